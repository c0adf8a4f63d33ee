"""Counting a run of one group at a time (``_codes.run_of``): rows grouped, interleaved or in
runs of every length; gold and predictions as bitmaps at any bit offset (popcounts), as
integers, with weights; duplicated items wherever they fall -- within a 64-bit word of the
bitmap, across words, across the threads' chunks. Every count is checked against numpy's
``bincount`` written here, every duplicate against the row that repeats a key."""

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics.count import _codes, tally
from fastmetrics.count.tally import SERIAL_ROWS

ROWS = 3 * SERIAL_ROWS  # over SERIAL_ROWS: the threaded kernels


def _rows(seed, order):
    """(system, topic, item) codes of ROWS rows in runs: "grouped" (long runs), "short" (runs of
    1 to 9 rows, groups recurring) or "shuffled"."""
    rng = np.random.default_rng(seed)
    systems, topics = 7, 13
    items = -(-ROWS // (systems * topics))
    s, t, i = (x.reshape(-1)[:ROWS] for x in np.indices((systems, topics, items)))
    if order == "short":  # groups cut into runs of 1-9 rows and the runs interleaved
        cuts = np.cumsum(rng.integers(1, 10, ROWS))
        run = np.searchsorted(cuts, np.arange(ROWS), side="right")
        perm = np.argsort(rng.permutation(run.max() + 1)[run], kind="stable")
        s, t, i = s[perm], t[perm], i[perm]
    elif order == "shuffled":
        perm = rng.permutation(ROWS)
        s, t, i = s[perm], t[perm], i[perm]
    return s, t, i


def _bools(values, offset):
    """A boolean Arrow array of ``values`` whose bitmap starts ``offset`` bits into its buffer."""
    return pa.array(np.concatenate([np.zeros(offset, bool), values])).slice(offset)


def _expected(s, t, gold, pred, weight=None, m=2):
    group = (s * (t.max() + 1) + t) * m * m + gold * m + pred
    counts = np.bincount(group, weights=weight, minlength=(s.max() + 1) * (t.max() + 1) * m * m)
    return counts.reshape(s.max() + 1, t.max() + 1, m, m)


@pytest.mark.parametrize("order", ["grouped", "short", "shuffled"])
@pytest.mark.parametrize("offsets", [(0, 0), (3, 3), (0, 5), (7, 1)])
def test_bitmaps_at_any_offset(order, offsets):
    s, t, i = _rows(1, order)
    rng = np.random.default_rng(2)
    gold, pred = rng.random(ROWS) < 0.3, rng.random(ROWS) < 0.6
    table = pa.table(
        {
            "system": s,
            "topic": t,
            "item": i,
            "gold": _bools(gold, offsets[0]),
            "pred": _bools(pred, offsets[1]),
        }
    )
    counts = fm.count(table).counts
    np.testing.assert_array_equal(counts, _expected(s, t, gold.astype(int), pred.astype(int)))


@pytest.mark.parametrize("order", ["grouped", "short"])
def test_string_ids_and_integer_labels_and_weights(order):
    s, t, i = _rows(3, order)
    rng = np.random.default_rng(4)
    gold, pred = rng.integers(0, 3, ROWS), rng.integers(0, 3, ROWS)
    weight = rng.random(ROWS)
    table = pa.table(
        {
            "system": pa.array([f"run{x}" for x in range(7)]).take(pa.array(s)),
            "topic": pa.array([f"q{x:02d}" for x in range(13)]).take(pa.array(t)).dictionary_encode(),
            "item": pa.array([f"d{x}" for x in i]),
            "gold": gold,
            "pred": pred,
        }
    )
    np.testing.assert_array_equal(fm.count(table).counts, _expected(s, t, gold, pred, m=3))
    weighted = fm.count(table.append_column("w", pa.array(weight)), weight="w").counts
    np.testing.assert_allclose(weighted, _expected(s, t, gold, pred, weight, m=3), rtol=1e-12)


@pytest.mark.parametrize("order", ["grouped", "short", "shuffled"])
def test_sweeps_in_runs(order):
    s, t, i = _rows(5, order)
    rng = np.random.default_rng(6)
    gold = rng.random(ROWS) < 0.4
    score = np.round(rng.normal(size=ROWS), 2)
    table = pa.table({"system": s, "topic": t, "item": i, "gold": gold, "score": score})
    grid = np.array([-1.0, 0.0, 0.5, 1.0])
    counts = fm.count(table, thresholds=grid).counts
    for k, threshold in enumerate(grid):
        expected = _expected(s, t, gold.astype(int), (score >= threshold).astype(int))
        np.testing.assert_array_equal(counts[:, :, k], expected)


def _key_rows(s, t, i):
    """Rows ordered as the table, and a map (s, t, i) -> its row."""
    return {key: r for r, key in enumerate(zip(s.tolist(), t.tolist(), i.tolist()))}


@pytest.mark.parametrize("fused", ["by run length", "always"])
@pytest.mark.parametrize("order", ["grouped", "short", "shuffled"])
@pytest.mark.parametrize("where", ["same word", "next word", "far", "other chunk"])
def test_a_duplicated_item_wherever_it_falls(order, where, fused, monkeypatch):
    """Found in the counting kernels' own pass (runs of rows: ``fused`` "always" forces it on
    rows of any order) or in a pass of its own (short runs), at the same row."""
    if fused == "always":
        monkeypatch.setattr(tally, "_FUSED_RUN", 0)
    s, t, i = _rows(7, order)
    rows = _key_rows(s, t, i)
    # the duplicate: row `late` takes the key of row `early`, chosen by where their keys' bits fall
    group = s * 13 + t
    items = -(-ROWS // (7 * 13))
    key = group * items + i
    late = ROWS // 2 + 11 if where != "other chunk" else ROWS - 5
    shift = {"same word": 1, "next word": 64, "far": 5000, "other chunk": 0}[where]
    target = key[late] - shift if where != "other chunk" else int(key[3])
    early = int(np.flatnonzero(key == target)[0])
    s, t, i = s.copy(), t.copy(), i.copy()
    s[late], t[late], i[late] = s[early], t[early], i[early]
    table = pa.table({"system": s, "topic": t, "item": i, "gold": np.zeros(ROWS, bool), "pred": np.ones(ROWS, bool)})
    with pytest.raises(fm.InputError, match="Duplicated") as error:
        fm.count(table)
    first, second = sorted((early, late))
    assert f"item={int(i[late])}" in str(error.value)
    assert f"row {second}" in str(error.value), (first, second, rows.get((s[late], t[late], i[late])))


@pytest.mark.parametrize("items", [40_000, 40_007])
def test_a_run_repeating_a_template_finds_an_item_marked_before(items):
    """Runs of one topic with the same items in the same order take the item set of the run
    before them (a template) as a whole; an item of that set marked by an earlier batch is found
    all the same, at any alignment of the group's bits."""
    k = 12_345
    system, item = np.repeat(np.arange(4), items), np.tile(np.arange(items), 4)

    def batch(system, item):
        n = len(system)
        columns = {"system": system, "topic": np.zeros(n, int), "item": item}
        return pa.record_batch(columns | {"gold": np.zeros(n, bool), "pred": np.ones(n, bool)})

    early = batch(np.array([3]), np.array([k]))  # marked before the runs of system 3's batch
    with pytest.raises(fm.InputError, match="Duplicated") as error:
        fm.count(pa.Table.from_batches([early, batch(system, item)]))
    assert "row 0" in str(error.value) and f"row {1 + 3 * items + k}" in str(error.value)
    counts = fm.count(pa.Table.from_batches([batch(system, item)])).counts
    np.testing.assert_array_equal(counts[:, 0, 0, 1], np.full(4, items))


@pytest.mark.parametrize("order,long", [("grouped", True), ("shuffled", False)])
def test_the_item_check_follows_the_length_of_the_runs(order, long, monkeypatch):
    """Rows grouped by (system, topic) have their items checked by the counting kernels, a cost
    a run; rows in runs of about one row by a pass of their own, a cost a row. Both count alike."""
    s, t, i = _rows(3, order)
    table = pa.table({"system": s, "topic": t, "item": i, "gold": i % 3 == 0, "pred": i % 2 == 0})
    fused = []
    marks = tally.Tally._marks

    def spy(self, *args):
        out = marks(self, *args)
        fused.append(out is not _codes.NO_MARKS)
        return out

    monkeypatch.setattr(tally.Tally, "_marks", spy)
    counts = fm.count(table).counts
    assert fused and all(f == long for f in fused)
    np.testing.assert_array_equal(counts, _expected(s, t, (i % 3 == 0).astype(int), (i % 2 == 0).astype(int)))
