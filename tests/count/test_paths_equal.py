"""One plan, one way to count: the in-process path, the Parquet stream (one file of many row
groups, a folder of files, tiny read batches), Dask partitions and split halves give the same
counts on the same data -- hard labels, grids, exact sweeps (where local), multiclass, and a
separate gold under every missing policy, checked against counts written out with numpy here."""

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.count.resample import split_half_counts
from fastmetrics.io import readahead

SYSTEMS, TOPICS, ITEMS = 3, 4, 50


def _data(seed=0):
    rng = np.random.default_rng(seed)
    s, t, i = (x.reshape(-1) for x in np.indices((SYSTEMS, TOPICS, ITEMS)))
    gold_of = rng.random((TOPICS, ITEMS)) < 0.35
    classes = rng.integers(0, 3, (TOPICS, ITEMS))
    score = np.round(rng.normal(size=s.size), 1)  # ties, also on grid values
    return pa.table(
        {
            "system": [f"sys{x}" for x in s],
            "topic": t.astype(np.int64),
            "item": i.astype(np.int64),
            "gold": gold_of[t, i],
            "score": score,
            "pred": score >= 0.2,
            "label": classes[t, i],
            "guess": (classes[t, i] + (rng.random(s.size) < 0.3)) % 3,
        }
    )


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    table = _data()
    root = tmp_path_factory.mktemp("paths")
    pq.write_table(table, root / "one.parquet", row_group_size=37)
    folder = root / "parts"
    folder.mkdir()
    order = np.random.default_rng(1).permutation(table.num_rows)  # rows of every group in every file
    shuffled = table.take(order)
    for k, start in enumerate(range(0, table.num_rows, 200)):
        pq.write_table(shuffled.slice(start, 200), folder / f"part-{k}.parquet")
    return table, str(root / "one.parquet"), str(folder)


def _same(a, b):
    assert a.axes == b.axes
    np.testing.assert_array_equal(a.counts, b.counts)
    for name in a.coords:
        assert list(a.coords[name]) == list(b.coords[name]), name


OPTIONS = {
    "hard": {},
    "grid": {"thresholds": 7},
    "grid-array": {"thresholds": [-1.0, 0.0, 0.2, 1.5]},
    "exact": {"thresholds": "exact"},
    "multiclass": {"pred": "guess", "gold_column": "label"},
}


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_in_process_and_streamed(sources, monkeypatch, name):
    table, one, folder = sources
    options = OPTIONS[name]
    reference = fm.count(table, **options)
    _same(fm.count(one, **options), reference)
    _same(fm.count(folder, **options), reference)
    monkeypatch.setattr(readahead, "BATCH_ROWS", 13)
    _same(fm.count(one, **options), reference)


def test_hard_counts_against_numpy(sources):
    table, _, _ = sources
    counts = fm.count(table).counts
    rows = table.to_pydict()
    expected = np.zeros((SYSTEMS, TOPICS, 2, 2), np.int64)
    for s, t, g, p in zip(rows["system"], rows["topic"], rows["gold"], rows["pred"]):
        expected[int(s[3:]), t, int(g), int(p)] += 1
    np.testing.assert_array_equal(counts, expected)


@pytest.mark.parametrize("name", ["hard", "grid", "grid-array", "multiclass"])
def test_dask_partitions(sources, name):
    pytest.importorskip("distributed")
    import fastmetrics.dask as fmd

    table, _, folder = sources
    _same(fmd.count(folder, **OPTIONS[name]), fm.count(table, **OPTIONS[name]))


def _lacking(table):
    """The runs without a few (system, topic, item) rows, and the gold table."""
    gold = table.filter(pa.compute.equal(table.column("system"), "sys0")).select(["topic", "item", "gold"])
    keep = np.ones(table.num_rows, bool)
    keep[[5, 60, 260, 261, 499]] = False  # rows of sys0 and sys1 across topics
    return table.filter(pa.array(keep)).drop_columns(["gold", "label"]), gold, table.filter(pa.array(~keep))


def _expected(table, lacking_rows, missing, thresholds=None):
    """Counts written out with numpy: present rows as predicted; lacking rows negative or gone."""
    rows = table.to_pydict()
    gone = {(s, t, i) for s, t, i in zip(*(lacking_rows.column(c).to_pylist() for c in ("system", "topic", "item")))}
    grid = np.asarray(thresholds) if thresholds is not None else None
    shape = (SYSTEMS, TOPICS) + ((grid.size,) if grid is not None else ()) + (2, 2)
    out = np.zeros(shape, np.int64)
    for s, t, i, g, p, score in zip(
        rows["system"], rows["topic"], rows["item"], rows["gold"], rows["pred"], rows["score"]
    ):
        lacking = (s, t, i) in gone
        if lacking and missing == "drop":
            continue
        if grid is None:
            out[int(s[3:]), t, int(g), int(p and not lacking)] += 1
        else:
            for k, thr in enumerate(grid):
                out[int(s[3:]), t, k, int(g), int(score >= thr and not lacking)] += 1
    return out


@pytest.mark.parametrize("missing", ["negative", "drop"])
@pytest.mark.parametrize("thresholds", [None, [-0.5, 0.2, 1.0]], ids=["hard", "grid"])
def test_separate_gold_under_each_missing_policy(sources, tmp_path, missing, thresholds):
    table, _, _ = sources
    runs, gold, lacking_rows = _lacking(table)
    expected = _expected(table, lacking_rows, missing, thresholds)
    options = {"gold": gold, "missing": missing, "thresholds": thresholds}
    np.testing.assert_array_equal(fm.count(runs, **options).counts, expected)
    folder = tmp_path / "runs"
    folder.mkdir()
    for k in range(3):
        pq.write_table(runs.slice(k * 200, 200), folder / f"r{k}.parquet", row_group_size=31)
    np.testing.assert_array_equal(fm.count(str(folder), **options).counts, expected)
    if thresholds is None:
        _check_exact(fm.count(runs, thresholds="exact", gold=gold, missing=missing), table, lacking_rows, missing)
    try:
        import fastmetrics.dask as fmd
    except ImportError:
        return
    np.testing.assert_array_equal(
        fmd.count(str(folder), gold=gold, missing=missing, thresholds=thresholds).counts, expected
    )


def _check_exact(tensor, table, lacking_rows, missing):
    """Every cell of an exact sweep against numpy: lacking items negative (or gone)."""
    gone = set(zip(*(lacking_rows.column(c).to_pylist() for c in ("system", "topic", "item"))))
    rows = list(zip(*(table.column(c).to_pylist() for c in ("system", "topic", "item", "gold", "score"))))
    cells = list(zip(tensor.coords["system"], tensor.coords["topic"], tensor.coords["threshold"]))
    assert len(cells) > SYSTEMS * TOPICS
    for (system, topic, threshold), counts in zip(cells, tensor.counts):
        expected = np.zeros((2, 2), np.int64)
        for s, t, i, g, score in rows:
            if (s, t) != (system, topic) or ((s, t, i) in gone and missing == "drop"):
                continue
            expected[int(g), int(score >= threshold and (s, t, i) not in gone)] += 1
        np.testing.assert_array_equal(counts, expected)


def test_separate_gold_missing_error_everywhere(sources, tmp_path):
    table, _, _ = sources
    runs, gold, _ = _lacking(table)
    pq.write_table(runs, tmp_path / "runs.parquet", row_group_size=50)
    for source in (runs, str(tmp_path / "runs.parquet")):
        for thresholds in (None, 5, "exact"):
            with pytest.raises(fm.InputError, match=r"Run 'sys0' lacks 2 of the 200 gold item\(s\)"):
                fm.count(source, gold=gold, thresholds=thresholds)
    with pytest.raises(fm.InputError, match="lacks"):
        split_half_counts(runs, gold, replicates=2)


@pytest.mark.parametrize("missing", ["negative", "drop"])
def test_split_halves_add_up_to_the_counts(sources, missing):
    table, one, _ = sources
    runs, gold, _ = _lacking(table)
    for source, options in (
        (runs, {"gold": gold, "missing": missing}),
        (one, {}),
        (one, {"pred": "guess", "gold_column": "label"}),
    ):
        gold_arg = options.pop("gold", None)
        halves = split_half_counts(source, gold_arg, replicates=5, seed=2, **options)
        whole = fm.count(source, gold_arg, **options)
        assert halves.axes == ("replicate", "half") + whole.axes
        np.testing.assert_array_equal(
            halves.counts.sum(axis=1), np.broadcast_to(whole.counts, (5,) + whole.counts.shape)
        )
        # each half holds about half of every topic's items, for every system alike
        sizes = halves.counts.sum(axis=(-1, -2))
        assert np.all(np.abs(sizes[:, 0] - sizes[:, 1]) <= 1 + 3 * (missing == "drop"))
