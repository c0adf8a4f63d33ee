"""Issue 30, items 7, 8, 9, 12, 14, 17, 18: each edge ends in the right number or one clear line.

Numbers are checked against scikit-learn, statsmodels or numpy loops; refusals against the one
``fastmetrics: error:`` line and exit status 2 of the command line.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from sklearn.metrics import f1_score, roc_auc_score

import fastmetrics as fm
from tests._program import run_fastmetrics

REPO = Path(__file__).resolve().parents[1]
CLASSES = np.array(["cat", "dog", "eel"])


def cli(*argv, cwd, env=None):
    """Run the command line with this checkout's package; returns the finished process."""
    environ = {k: v for k, v in os.environ.items() if k != "FASTMETRICS_MEMORY_LIMIT"}
    environ["PYTHONPATH"] = str(REPO)
    environ.update(env or {})
    return run_fastmetrics(argv, cwd=cwd, env=environ, timeout=300)


def one_line(proc) -> str:
    """The single error line of a run refused with exit status 2."""
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastmetrics: error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[0]


def _probabilities(n=90, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, n), rng.dirichlet([1, 1, 1], n)


def test_item7_class_probabilities_on_a_grid_average_over_the_classes(tmp_path):
    y, p = _probabilities()
    grid = [0.3, 0.5]
    table = pa.table({"gold": CLASSES[y], "proba": pa.array(list(p))})
    tensor = fm.count(table, score="proba", thresholds=grid)
    scores = tensor.evaluate(["f1@macro", "f1@micro", "f1@weighted"])
    assert scores.axes == ("threshold",)
    binarised = np.eye(3)[y]
    for j, t in enumerate(grid):  # one-vs-rest: each class's probability binarised at the threshold
        for i, average in enumerate(["macro", "micro", "weighted"]):
            expected = f1_score(binarised, (p >= t).astype(int), average=average)
            assert scores.values[i, j] == pytest.approx(expected)
    per_class = tensor.evaluate("f1@none").values[0]
    for k in range(3):
        for j, t in enumerate(grid):
            assert per_class[k, j] == pytest.approx(f1_score(binarised[:, k], p[:, k] >= t))
    # the curve measure of the same sweep averages over the same classes
    auc = fm.count(table, score="proba", thresholds=101).evaluate("roc_auc@macro").values[0]
    exact = fm.count(table, score="proba", thresholds="exact").evaluate("roc_auc@macro").values[0]
    assert float(exact) == pytest.approx(roc_auc_score(y, p, multi_class="ovr", average="macro"))
    assert float(auc) == pytest.approx(float(exact), abs=0.02)
    # on the command line
    frame = pd.DataFrame({"gold": CLASSES[y], **{f"p_{c}": p[:, k] for k, c in enumerate(CLASSES)}})
    frame.to_csv(tmp_path / "proba.csv", index=False)
    common = ["--score", "p_cat,p_dog,p_eel", "--classes", "cat,dog,eel"]
    proc = cli(
        "evaluate",
        "proba.csv",
        *common,
        "--thresholds",
        "0.3,0.5",
        "--measures",
        "f1@macro",
        "--out",
        "s.csv",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = pd.read_csv(tmp_path / "s.csv")
    assert out["value"].tolist() == pytest.approx([f1_score(binarised, p >= t, average="macro") for t in grid])
    # averaged over the classes needs a grid; intervals of such averages are refused
    exact_line = one_line(
        cli("evaluate", "proba.csv", *common, "--thresholds", "exact", "--measures", "f1@macro", cwd=tmp_path)
    )
    assert "grid" in exact_line
    one_line(
        cli(
            "evaluate",
            "proba.csv",
            *common,
            "--thresholds",
            "0.3",
            "--measures",
            "f1@macro",
            "--ci",
            "0.95",
            cwd=tmp_path,
        )
    )


def _runs(seed=1, n=40):
    rng = np.random.default_rng(seed)
    rows = [
        (s, t, f"i{i}", bool(g), float(rng.normal(g, 1.0)))
        for s in "AB"
        for t in ("t1", "t2")
        for i, g in enumerate(rng.random(n) < 0.4)
    ]
    return pd.DataFrame(rows, columns=["system", "topic", "item", "gold", "score"])


def test_item8_saved_counts_merge_only_when_they_fit(tmp_path):
    runs = _runs()
    half = runs["item"].str[1:].astype(int) % 2
    runs[half == 0].to_csv(tmp_path / "h1.csv", index=False)
    runs[half == 1].to_csv(tmp_path / "h2.csv", index=False)
    for k in (1, 2):  # the same grid: the two halves' counts are summed
        assert (
            cli("count", f"h{k}.csv", "--thresholds", "0,0.5,1", "--out", f"g{k}.parquet", cwd=tmp_path).returncode == 0
        )
        assert cli("count", f"h{k}.csv", "--thresholds", "11", "--out", f"f{k}.parquet", cwd=tmp_path).returncode == 0
        assert (
            cli("count", f"h{k}.csv", "--thresholds", "exact", "--out", f"e{k}.parquet", cwd=tmp_path).returncode == 0
        )
    proc = cli("evaluate", "g1.parquet", "g2.parquet", "--measures", "f1", "--out", "f1.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = pd.read_csv(tmp_path / "f1.csv")
    assert len(got) == 4 * 3
    for row in got.itertuples():
        part = runs[(runs.system == row.system) & (runs.topic == row.topic)]
        assert row.value == pytest.approx(f1_score(part.gold, part.score >= row.threshold))
    # each half's own 11 thresholds: refused, naming the files
    line = one_line(cli("evaluate", "f1.parquet", "f2.parquet", "--measures", "f1", cwd=tmp_path))
    assert "f2.parquet" in line and "thresholds" in line
    # exact sweeps of two halves merge into the exact sweep of all items
    proc = cli("evaluate", "e1.parquet", "e2.parquet", "--measures", "roc_auc", "--out", "auc.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    for row in pd.read_csv(tmp_path / "auc.csv").itertuples():
        part = runs[(runs.system == row.system) & (runs.topic == row.topic)]
        assert row.value == pytest.approx(roc_auc_score(part.gold, part.score))
    # concatenated into one table with the cells renumbered: a group's cells are not contiguous
    both = pd.concat([pd.read_parquet(tmp_path / "e1.parquet"), pd.read_parquet(tmp_path / "e2.parquet")])
    both.assign(cell=np.arange(len(both))).to_parquet(tmp_path / "cat.parquet")
    line = one_line(cli("evaluate", "cat.parquet", "--measures", "roc_auc", cwd=tmp_path))
    assert "system='A', topic='t1'" in line and "contiguous" in line
    swapped = pd.read_parquet(tmp_path / "e1.parquet")
    swapped.loc[[3, 4], "cell"] = [4, 3]
    swapped.to_parquet(tmp_path / "swap.parquet")
    assert "order" in one_line(cli("evaluate", "swap.parquet", "--measures", "roc_auc", cwd=tmp_path))


def test_item9_one_topic_leaves_topic_intervals_undefined(tmp_path):
    runs = _runs()
    runs = runs[runs.topic == "t1"].assign(pred=lambda d: d.score > 0.5)
    other = runs[runs.system == "A"].assign(system="C", pred=lambda d: d.score > 0.0)
    pd.concat([runs, other]).to_csv(tmp_path / "one.csv", index=False)
    proc = cli("leaderboard", "one.csv", "--ci", "0.95", "--measures", "f1", "--long", "--out", "b.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "fastmetrics: note: one topic" in proc.stderr
    board = pd.read_csv(tmp_path / "b.csv")
    systems = board[board.kind == "system"]
    for column in ("macro_low", "macro_high", "rank_low", "rank_high", "tied_with_leader"):
        assert systems[column].isna().all(), column
    assert (systems.micro_high > systems.micro_low).all()  # the items are resampled
    tensor = fm.count(pa.Table.from_pandas(pd.concat([runs, other]), preserve_index=False))
    with pytest.warns(fm.UndefinedMeasureWarning, match="one topic"):
        result = fm.board.leaderboard(tensor, ["f1"], ci=0.95, resamples=200)
    assert "one topic" in result.params["ci_note"]


def test_item12_item_tests_honour_weights_and_one_gold_per_item(tmp_path):
    from sklearn.metrics import accuracy_score

    rng = np.random.default_rng(3)
    n = 120
    gold = rng.random(n) < 0.4
    w = rng.integers(1, 5, n).astype(float)
    preds = {"A": gold ^ (rng.random(n) < 0.2), "B": gold ^ (rng.random(n) < 0.3)}
    runs = pd.DataFrame(
        [(s, f"i{k}", bool(gold[k]), bool(p[k]), w[k]) for s, p in preds.items() for k in range(n)],
        columns=["system", "item", "gold", "pred", "w"],
    )
    runs.to_csv(tmp_path / "runs.csv", index=False)
    table = pa.Table.from_pandas(runs, preserve_index=False)
    result = fm.meta.item_tests(table, method="item-bootstrap", measures=["accuracy", "f1"], weight="w", resamples=300)
    rows = {r["measure"]: r for r in result.summary.to_pylist()}
    for name, score in (("accuracy", accuracy_score), ("f1", f1_score)):
        expected = score(gold, preds["A"], sample_weight=w) - score(gold, preds["B"], sample_weight=w)
        assert rows[name]["difference"] == pytest.approx(expected)
    assert rows["accuracy"]["ci_low"] < rows["accuracy"]["difference"] < rows["accuracy"]["ci_high"]
    args = ("leaderboard", "runs.csv", "--measures", "accuracy", "--weight", "w", "--detail", "pairs.csv")
    proc = cli(*args, "--significance", "item-bootstrap", "--resamples", "200", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    pairs = pd.read_csv(tmp_path / "pairs.csv")
    expected = accuracy_score(gold, preds["A"], sample_weight=w) - accuracy_score(gold, preds["B"], sample_weight=w)
    assert pairs["difference"].iloc[0] == pytest.approx(expected)
    # McNemar counts discordant items: no standard weighted form, refused
    assert "McNemar" in one_line(cli(*args, "--significance", "mcnemar", cwd=tmp_path))
    with pytest.raises(fm.ParameterError, match="McNemar"):
        fm.meta.item_tests(table, method="mcnemar", weight="w")
    # an item whose gold differs between systems is refused, naming it
    runs.loc[(runs.system == "B") & (runs.item == "i7"), "gold"] = not gold[7]
    runs.to_csv(tmp_path / "runs.csv", index=False)
    line = one_line(cli("leaderboard", "runs.csv", "--measures", "accuracy", "--significance", "mcnemar", cwd=tmp_path))
    assert "item='i7'" in line and "gold" in line


def test_item14_relevance_level_makes_a_graded_csv_gold_binary(tmp_path):
    rng = np.random.default_rng(5)
    n = 60
    grade = rng.integers(0, 3, n)
    items = [f"d{i}" for i in range(n)]
    pred, score = rng.random(n) < 0.4, rng.random(n)
    pd.DataFrame({"item": items, "gold": grade}).to_csv(tmp_path / "grades.csv", index=False)
    pd.DataFrame({"system": "S", "item": items, "pred": pred, "score": score}).to_csv(
        tmp_path / "runs.csv", index=False
    )
    for level in (1, 2):
        proc = cli(
            "evaluate", "runs.csv", "--gold", "grades.csv", "--measures", "f1,recall",
            "--relevance-level", level, "--out", "s.csv", cwd=tmp_path,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        got = pd.read_csv(tmp_path / "s.csv").set_index("measure")["value"]
        assert got["f1"] == pytest.approx(f1_score(grade >= level, pred))
        proc = cli(
            "evaluate", "runs.csv", "--gold", "grades.csv", "--measures", "roc_auc", "--thresholds", "exact",
            "--relevance-level", level, "--out", "a.csv", cwd=tmp_path,
        )  # fmt: skip
        assert pd.read_csv(tmp_path / "a.csv")["value"].iloc[0] == pytest.approx(roc_auc_score(grade >= level, score))
    gold = fm.read_gold(str(tmp_path / "grades.csv"), relevance_level=2)
    assert gold.column("gold").to_pylist() == (grade >= 2).tolist()
    assert fm.read_gold(str(tmp_path / "grades.csv")).column("gold").to_pylist() == grade.tolist()  # as read
    pd.DataFrame({"item": items, "gold": np.where(grade > 0, "yes", "no")}).to_csv(tmp_path / "text.csv", index=False)
    line = one_line(cli("evaluate", "runs.csv", "--gold", "text.csv", "--relevance-level", "2", cwd=tmp_path))
    assert "--relevance-level" in line and "'gold'" in line


def test_item17_memory_limit_covers_the_bootstrap_replicates(tmp_path):
    runs = _runs()
    runs.assign(pred=runs.score > 0.5).to_csv(tmp_path / "runs.csv", index=False)
    cases = [
        ("evaluate", "--ci", "0.95", "--resamples", "3000000"),
        ("evaluate", "--ci", "0.95", "--resamples", "100000000"),
        ("leaderboard", "--ci", "0.95", "--resamples", "3000000"),
        ("leaderboard", "--significance", "bootstrap", "--resamples", "3000000"),
    ]
    for command, *options in cases:
        proc = cli("--memory-limit", "10M", command, "runs.csv", "--measures", "f1", *options, cwd=tmp_path)
        line = one_line(proc)
        assert "resamples" in line and "10.0 MiB" in line, line
    # the leaderboard's intervals count their replicates apart from its tests': the message names that option
    options = ["--significance", "fisher", "--test-resamples", "10", "--ci", "0.95", "--ci-resamples", "3000000"]
    line = one_line(cli("--memory-limit", "10M", "leaderboard", "runs.csv", "--measures", "f1", *options, cwd=tmp_path))
    assert "3,000,000 resamples" in line and "(--ci-resamples, ci_resamples=)" in line, line
    one = runs[runs.system.isin(["A", "B"]) & (runs.topic == "t1")].assign(pred=lambda d: d.score > 0.5)
    one = one.assign(gold=one.groupby("item").gold.transform("first"))
    table = pa.Table.from_pandas(one, preserve_index=False)
    os.environ["FASTMETRICS_MEMORY_LIMIT"] = "10M"
    try:
        with pytest.raises(fm.ParameterError, match="resamples"):
            fm.meta.item_tests(table, method="item-bootstrap", resamples=3_000_000)
    finally:
        del os.environ["FASTMETRICS_MEMORY_LIMIT"]
    # one cell of many replicates is drawn in parts: its interval is still the bootstrap's
    gold, pred = np.r_[np.ones(30), np.zeros(30)], np.r_[np.ones(20), np.zeros(25), np.ones(15)]
    counts = fm.score(gold.astype(bool), pred.astype(bool), measures=["accuracy"], ci=0.95, resamples=1_200_000)
    draws = np.random.default_rng(7).binomial(60, np.mean(gold == pred), 400_000) / 60
    low, high = np.percentile(draws, [2.5, 97.5])
    assert counts.low.ravel()[0] == pytest.approx(low, abs=1 / 60 + 1e-9)
    assert counts.high.ravel()[0] == pytest.approx(high, abs=1 / 60 + 1e-9)


def test_item18_messages_name_the_problem(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.dirichlet([1, 1, 1], 10).tolist()
    p[5][1] = None
    gold = CLASSES[rng.integers(0, 3, 10)]
    pq.write_table(pa.table({"gold": gold, "proba": p}), tmp_path / "null.parquet")
    line = one_line(cli("evaluate", "null.parquet", "--score", "proba", cwd=tmp_path))
    assert "row 5" in line and "score 1" in line
    fox = gold.astype(object)
    fox[0] = "fox"
    p = rng.dirichlet([1, 1, 1], 10).tolist()
    pq.write_table(pa.table({"gold": fox, "proba": p}), tmp_path / "fox.parquet")
    pq.write_table(pa.table({"gold": gold, "proba": p}), tmp_path / "ok.parquet")
    line = one_line(cli("evaluate", "fox.parquet", "--score", "proba", cwd=tmp_path))
    assert "fox" in line and "not among" in line
    assert "'fox'" in one_line(
        cli("evaluate", "fox.parquet", "--score", "proba", "--classes", "cat,dog,eel", cwd=tmp_path)
    )
    pytest.importorskip("distributed")
    dask = ("--thresholds", "exact", "--measures", "roc_auc@macro", "--scheduler", "local:1")
    line = one_line(cli("evaluate", "ok.parquet", "--score", "proba", *dask, cwd=tmp_path))
    assert "Class probabilities" in line and "--scheduler" in line


def test_item18_more_messages(tmp_path):
    runs = _runs().assign(pred=lambda d: d.score > 0.5)
    runs.to_csv(tmp_path / "runs.csv", index=False)
    stability = ("meta", "stability", "runs.csv", "--measures", "roc_auc")
    line = one_line(cli(*stability, "--thresholds", "exact", cwd=tmp_path))
    assert "drop --thresholds" in line
    line = one_line(cli(*stability, cwd=tmp_path))
    assert "roc_auc" in line and "point measures" in line and "--thresholds exact" not in line
    assert cli("count", "runs.csv", "--out", "plain.parquet", cwd=tmp_path).returncode == 0
    assert cli("count", "runs.csv", "--thresholds", "exact", "--out", "exact.parquet", cwd=tmp_path).returncode == 0
    line = one_line(cli("sweep", "plain.parquet", "--curves", "c.csv", cwd=tmp_path))
    assert "--curves" in line and "--thresholds)" not in line
    proc = cli("sweep", "exact.parquet", "--curves", "c.csv", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    curves = pd.read_csv(tmp_path / "c.csv")
    part = runs[runs.system == "A"]  # sweep groups by system
    mine = curves[curves.system == "A"].sort_values("threshold", ascending=False)
    fpr, tpr = np.r_[0.0, mine.fpr], np.r_[0.0, mine.tpr]
    area = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))
    assert area == pytest.approx(roc_auc_score(part.gold, part.score))
    runs.assign(topic=runs.topic + runs.item).to_csv(tmp_path / "single.csv", index=False)
    line = one_line(cli("sweep", "single.csv", "--select", "split-half", "--measures", "f1", cwd=tmp_path))
    assert "two items" in line and "no rows" not in line
    plain, exact = fm.count(str(tmp_path / "plain.parquet")), fm.count(str(tmp_path / "exact.parquet"))
    with pytest.raises(fm.ParameterError, match="without thresholds; part 1 is a sweep with a threshold per cell"):
        plain.merge(exact)
    runs.assign(score=np.where(runs.index == 3, 1.7, runs.score.clip(0, 0.9))).to_csv(tmp_path / "p.csv", index=False)
    line = one_line(cli("evaluate", "p.csv", "--thresholds", "exact", "--measures", "brier", cwd=tmp_path))
    assert "score 1.7" in line and "np.float64" not in line
