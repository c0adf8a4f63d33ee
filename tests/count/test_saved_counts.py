"""Saved counts (issue 18, point 6): ``fastmetrics count --out`` writes every axis, every command
reads the file back with the results of counting the runs, and ``ConfusionTensor.concat`` /
``.merge`` extend stored counts to what a full recount gives."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.cli import main

GRID = [0.2, 0.35, 0.5, 0.65, 0.8]
SYSTEMS = ["A", "B", "C"]


def _runs(seed=0, n_items=40, topics=4, weights=False, classes=None) -> pa.Table:
    """Runs of systems A, B, C on the same items; scores with ties; C lacks topic t3's items
    in no way (every system judged on every item)."""
    rng = np.random.default_rng(seed)
    s, t, i = (a.ravel() for a in np.indices((len(SYSTEMS), topics, n_items)))
    gold = rng.random((topics, n_items)) < 0.4
    score = np.round(np.clip(gold[t, i] * 0.3 + rng.random(s.size) * 0.7, 0, 1), 2)
    data = {
        "system": np.array(SYSTEMS)[s],
        "topic": np.array([f"t{k}" for k in range(topics)])[t],
        "item": i,
        "gold": gold[t, i],
        "score": score,
        "pred": score >= 0.5,
    }
    if classes is not None:
        labels = np.asarray(classes)
        data["gold"] = labels[rng.integers(0, len(labels), (topics, n_items))][t, i]
        data["pred"] = np.where(rng.random(s.size) < 0.6, data["gold"], labels[rng.integers(0, len(labels), s.size)])
        del data["score"]
    if weights:
        data["weight"] = rng.uniform(0.5, 2.0, s.size)
    return pa.table(data)


def _systems(runs: pa.Table, names) -> pa.Table:
    return runs.filter(pc.is_in(runs.column("system"), pa.array(names)))


def _same(a: fm.ConfusionTensor, b: fm.ConfusionTensor) -> None:
    """Same counts under the same labels, whatever the label order along the dense axes."""
    assert type(a) is type(b) and a.axes == b.axes and list(a.classes) == list(b.classes)
    if a.cells:
        for c in b.coords:
            np.testing.assert_array_equal(a.coords[c], b.coords[c])
        np.testing.assert_array_equal(a.counts, b.counts)
        return
    order = {axis: [list(a.coords[axis]).index(v) for v in b.coords[axis]] for axis in b.axes}
    assert all(len(order[axis]) == len(a.coords[axis]) for axis in b.axes)
    counts = a.counts[np.ix_(*(order[axis] for axis in a.axes))]
    assert counts.dtype == b.counts.dtype
    # weights summed in another order differ in the last bit
    np.testing.assert_allclose(counts, b.counts, rtol=1e-12, atol=0)


COUNTINGS = {
    "hard": dict(),
    "grid": dict(thresholds=GRID),
    "exact": dict(thresholds="exact"),
    "weighted": dict(weight="weight"),
    "multiclass": dict(classes=["pos", "neu", "neg"]),  # an order that is not the sorted one
}


def _cli_options(options: dict) -> list[str]:
    out = []
    for key, value in options.items():
        text = ",".join(map(str, value)) if isinstance(value, list) else str(value)
        out += [f"--{key}", text]
    return out


def _runs_for(kind: str, seed=0) -> pa.Table:
    if kind == "multiclass":
        return _runs(seed, classes=["neg", "neu", "pos"])
    return _runs(seed, weights=kind == "weighted")


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("kind", list(COUNTINGS))
def test_stored_then_extended_equals_a_full_recount(kind, suffix, tmp_path):
    runs = _runs_for(kind)
    options = COUNTINGS[kind]
    pq.write_table(_systems(runs, ["A", "B"]), tmp_path / "ab.parquet")
    saved = tmp_path / f"counts{suffix}"
    argv = ["count", str(tmp_path / "ab.parquet"), *_cli_options(options), "--out", str(saved)]
    if kind == "multiclass" and suffix == ".csv":
        assert main(argv) == 2  # a CSV file cannot keep the class order: refused, nothing written
        assert not saved.exists()
        return
    assert main(argv) == 0
    stored = fm.count(str(saved))  # the class order comes from the file
    extended = stored.concat(fm.count(_systems(runs, ["C"]), **options), axis="system")
    _same(extended, fm.count(runs, **options))


@pytest.mark.parametrize("kind", list(COUNTINGS))
def test_merged_halves_equal_a_full_count(kind):
    runs = _runs_for(kind)
    options = COUNTINGS[kind]
    first_half = pc.less(runs.column("item"), 20)
    merged = fm.count(runs.filter(first_half), **options).merge(fm.count(runs.filter(pc.invert(first_half)), **options))
    _same(merged, fm.count(runs, **options))


def test_merge_aligns_labels_and_fills_absent_cells_with_zeros():
    runs = _runs()
    system, topic, item = (runs.column(c).to_numpy(zero_copy_only=False) for c in ("system", "topic", "item"))
    # part 1: systems A, B on topics t0, t1, items < 25; part 2: systems B, C on topics t1..t3, the
    # rest of B's t1 items included -- B's t1 cell is split between the parts
    in_part1 = np.isin(system, ["A", "B"]) & np.isin(topic, ["t0", "t1"]) & (item < 25)
    in_part2 = np.isin(system, ["B", "C"]) & (topic != "t0") & ~in_part1
    part1, part2 = runs.filter(pa.array(in_part1)), runs.filter(pa.array(in_part2))
    merged = fm.count(part1).merge(fm.count(part2))
    everything = pa.concat_tables([part1, part2])
    _same(merged, fm.count(everything))
    # cells no part has stay zero (A never judged t2), as fm.count gives them
    assert merged.sel(system="A", topic="t2").counts.sum() == 0


def test_merge_keeps_the_first_class_order_and_promotes_weights():
    runs = _runs(classes=["neg", "neu", "pos"])
    half = pc.less(runs.column("item"), 20)
    first = fm.count(runs.filter(half), classes=["pos", "neu", "neg"])
    second = fm.count(
        runs.filter(pc.invert(half)).append_column("w", pa.array(np.ones(runs.num_rows // 2))), weight="w"
    )
    merged = first.merge(second)
    assert list(merged.classes) == ["pos", "neu", "neg"] and merged.counts.dtype == np.float64
    np.testing.assert_array_equal(merged.counts, fm.count(runs, classes=["pos", "neu", "neg"]).counts)


def test_concat_of_topics_and_of_multilabel_counts():
    runs = _runs()
    early = pc.is_in(runs.column("topic"), pa.array(["t0", "t1"]))
    by_topic = fm.count(runs.filter(early)).concat([fm.count(runs.filter(pc.invert(early)))], axis="topic")
    _same(by_topic, fm.count(runs))
    rng = np.random.default_rng(3)
    cats = ["x", "y", "z"]
    sets = [[c for c in cats if rng.random() < 0.5] for _ in range(2 * runs.num_rows)]
    ml = runs.select(["system", "topic", "item"]).append_column("gold", pa.array(sets[::2]))
    ml = ml.append_column("pred", pa.array(sets[1::2]))
    whole = fm.count(ml)
    parts = [fm.count(_systems(ml, ["A", "B"])), fm.count(_systems(ml, ["C"]))]
    joined = parts[0].concat(parts[1], axis="system")
    for name in fm.MultilabelTensor._STATISTICS:
        np.testing.assert_array_equal(getattr(joined, name), getattr(whole, name))
    half = pc.less(ml.column("item"), 20)
    merged = fm.count(ml.filter(half)).merge(fm.count(ml.filter(pc.invert(half))))
    np.testing.assert_allclose(merged.object_sums, whole.object_sums)
    np.testing.assert_array_equal(merged.cooccurrence, whole.cooccurrence)


def test_sweeps_of_ranks_concatenate_new_systems():
    runs = _runs()
    joined = fm.count(_systems(runs, ["A", "B"]), thresholds="ranks").concat(
        fm.count(_systems(runs, ["C"]), thresholds="ranks"), axis="system"
    )
    _same(joined, fm.count(runs, thresholds="ranks"))


def test_an_exact_sweep_pooled_over_topics_is_the_exact_sweep_of_the_pooled_items(tmp_path):
    runs = _runs()
    exact = fm.count(runs, thresholds="exact")
    _same(exact.sum("topic"), fm.count(runs, by="system", thresholds="exact"))
    pq.write_table(exact.to_arrow(), tmp_path / "exact.parquet")
    _same(fm.count(str(tmp_path / "exact.parquet"), by="system"), fm.count(runs, by="system", thresholds="exact"))


def test_the_counts_table_is_tidy_and_self_describing():
    runs = _runs()
    grid = fm.count(runs, thresholds=GRID).to_arrow()
    assert grid.column_names == ["system", "topic", "threshold", "tp", "fp", "fn", "tn"]
    exact = fm.count(runs, thresholds="exact").to_arrow()
    assert exact.column_names[0] == "cell"
    np.testing.assert_array_equal(exact.column("cell").to_numpy(), np.arange(exact.num_rows))
    # tp at one cell, by hand: system A, topic t0, threshold 0.5
    rows = runs.filter(pc.and_(pc.equal(runs.column("system"), "A"), pc.equal(runs.column("topic"), "t0")))
    tp = int(np.sum(rows.column("gold").to_numpy(zero_copy_only=False) & (rows.column("score").to_numpy() >= 0.5)))
    at = grid.filter(
        pc.and_(pc.and_(pc.equal(grid["system"], "A"), pc.equal(grid["topic"], "t0")), pc.equal(grid["threshold"], 0.5))
    )
    assert at.column("tp").to_pylist() == [tp]
    weighted = fm.count(_runs(weights=True), weight="weight").to_arrow()
    assert pa.types.is_floating(weighted.schema.field("tp").type)


COMMANDS = [
    (["evaluate"], []),
    (["leaderboard", "--quiet"], []),
    (["meta", "robustness", "--quiet"], []),
    (["meta", "strictness", "--quiet"], []),
    (["evaluate", "--measures", "f1,mcc"], ["--thresholds", "0.2,0.5,0.8"]),
    (["evaluate", "--measures", "roc_auc,average_precision"], ["--thresholds", "exact"]),
    (["sweep", "--measures", "f1,mcc"], ["--thresholds", "0.2,0.5,0.8"]),
    (["sweep", "--measures", "f1", "--select", "cross-topic"], ["--thresholds", "0.2,0.5,0.8"]),
    (["sweep", "--measures", "roc_auc,average_precision"], ["--thresholds", "exact"]),
    (["leaderboard", "--quiet", "--measures", "roc_auc,average_precision"], ["--thresholds", "exact"]),
    (["sweep", "--measures", "f1"], ["--thresholds", "3", "--grid", "system"]),
]


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
@pytest.mark.parametrize("command, counting", COMMANDS, ids=[" ".join(c + k) for c, k in COMMANDS])
def test_every_command_reads_the_counts_back(command, counting, suffix, tmp_path):
    runs = tmp_path / "runs.parquet"
    pq.write_table(_runs(), runs)
    counts = tmp_path / f"counts{suffix}"
    assert main(["count", str(runs), *counting, "--out", str(counts)]) == 0
    from_runs, from_counts = tmp_path / "a.csv", tmp_path / "b.csv"
    sweep_grid = ["--grid", "global"] if command[0] == "sweep" and "--grid" not in counting else []
    thresholds = [] if command[0] in ("evaluate", "leaderboard", "meta") and not counting else counting
    if command[0] == "sweep":
        thresholds = [a for a in counting if a not in ("--grid", "system")]
        sweep_grid = ["--grid", "system" if "system" in counting else "global"]
    assert main([*command, str(runs), *thresholds, *sweep_grid, "--out", str(from_runs)]) == 0
    assert main([*command, str(counts), "--out", str(from_counts)]) == 0
    assert from_counts.read_text() == from_runs.read_text()


def test_the_report_of_counts_ranks_as_the_report_of_runs(tmp_path):
    runs = tmp_path / "runs.parquet"
    pq.write_table(_runs().drop_columns(["score"]), runs)
    assert main(["count", str(runs), "--out", str(tmp_path / "c.parquet")]) == 0
    fast = ["--quiet", "--measures", "f1,accuracy,k", "--resamples", "10", "--pairs", "10"]
    assert main(["report", str(runs), *fast, "--out", str(tmp_path / "a.md")]) == 0
    assert main(["report", str(tmp_path / "c.parquet"), *fast, "--out", str(tmp_path / "b.md")]) == 0
    a, b = ((tmp_path / n).read_text().replace("a_figures", "X").replace("b_figures", "X") for n in ("a.md", "b.md"))
    # the last section names each report's own inputs (their names, sizes, hashes): the rest is equal
    (a, made_a), (b, made_b) = (text.split("## How these numbers were made") for text in (a, b))
    assert a == b and made_a != made_b


def test_a_run_file_without_system_is_saved_under_the_name_leaderboard_gives_it(tmp_path):
    runs = _systems(_runs(), ["A"]).drop_columns(["system"])
    pq.write_table(runs, tmp_path / "teamA.parquet")
    assert main(["count", str(tmp_path / "teamA.parquet"), "--out", str(tmp_path / "c.parquet")]) == 0
    assert main(["leaderboard", "--quiet", str(tmp_path / "teamA.parquet"), "--out", str(tmp_path / "a.csv")]) == 0
    assert main(["leaderboard", "--quiet", str(tmp_path / "c.parquet"), "--out", str(tmp_path / "b.csv")]) == 0
    assert (tmp_path / "a.csv").read_text() == (tmp_path / "b.csv").read_text()
    assert "teamA" in (tmp_path / "b.csv").read_text()


def test_saved_thresholds_are_not_silently_replaced(tmp_path):
    runs = tmp_path / "runs.parquet"
    pq.write_table(_runs(), runs)
    counts = tmp_path / "grid.parquet"
    assert main(["count", str(runs), "--thresholds", "5", "--out", str(counts)]) == 0
    with pytest.raises(fm.ParameterError, match="saved with its own thresholds.*--thresholds"):
        fm.count(counts, thresholds=3)
    assert main(["evaluate", str(counts), "--thresholds", "3"]) == 2
