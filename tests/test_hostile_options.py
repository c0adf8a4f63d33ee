"""Hostile inputs to the options added since the last audit (issue 30, items 1-6, 10, 11, 13, 15,
16): each ends as the right number (checked against numpy / scikit-learn) or one clear line --
exit status 2 on the command line, a fastmetrics error in Python."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from sklearn.metrics import f1_score, roc_auc_score, roc_curve

import fastmetrics as fm
from fastmetrics.board import best_thresholds
from fastmetrics.cli import main
from fastmetrics.measures import parse_spec
from fastmetrics.meta import axioms as ax
from fastmetrics.meta import item_tests
from fastmetrics.meta.axioms import MatrixMeasure


@pytest.fixture(scope="module")
def binary(tmp_path_factory):
    """Two systems, two topics, 150 items each: gold, a score and hard predictions."""
    rng = np.random.default_rng(30)
    s, t, i = np.indices((2, 2, 150)).reshape(3, -1)
    gold = rng.random(s.size) < 0.4
    score = np.round(np.clip(0.35 * gold + rng.random(s.size) * 0.75, 0, 1), 3)
    table = pa.table(
        {
            "system": np.array(["s1", "s2"])[s],
            "topic": np.array(["t1", "t2"])[t],
            "item": [f"i{k}" for k in i],
            "gold": gold,
            "score": score,
            "pred": score >= 0.5,
        }
    )
    path = tmp_path_factory.mktemp("binary") / "runs.parquet"
    pq.write_table(table, path)
    return path, table


@pytest.fixture(scope="module")
def multilabel(tmp_path_factory):
    rng = np.random.default_rng(31)
    rows = {"system": [], "topic": [], "item": [], "gold": [], "pred": []}
    for system in ("s1", "s2"):
        for k in range(40):
            rows["system"].append(system)
            rows["topic"].append("t1")
            rows["item"].append(f"i{k}")
            rows["gold"].append([c for c in "abcd" if rng.random() < 0.4])
            rows["pred"].append([c for c in "abcd" if rng.random() < 0.4])
    path = tmp_path_factory.mktemp("multilabel") / "ml.parquet"
    pq.write_table(pa.table(rows), path)
    return path


def _refused(capsys, *argv, match: str) -> str:
    """Exit status 2 and one line on stderr matching ``match``."""
    status = main([str(a) for a in argv])
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastmetrics: error: "), err
    assert __import__("re").search(match, lines[0]), lines[0]
    return lines[0]


def test_item1_measures_catalog_as_csv(capsys):
    assert main(["measures", "--format", "csv"]) == 0
    table = pacsv.read_csv(io.BytesIO(capsys.readouterr().out.encode()))
    assert main(["measures", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert table.column("name").to_pylist() == [r["name"] for r in records]
    aliases = [a or "" for a in table.column("aliases").to_pylist()]
    assert aliases == [", ".join(r["aliases"]) for r in records]


@pytest.mark.parametrize(
    "measure, kind",
    [
        ("roc_auc", "curve"),
        ("ranked_ap(cutoff=5)", "ranking"),
        ("precision_at_k(k=3)", "ranking"),
        ("brier", "calibration"),
        ("top_k_accuracy", "top-k"),
    ],
)
def test_item2_axioms_refuse_measures_not_of_counts(capsys, measure, kind):
    line = _refused(capsys, "axioms", measure, match=rf"'{__import__('re').escape(measure)}'.*{kind} measure")
    assert "confusion matrices" in line
    with pytest.raises(fm.ParameterError, match=kind):
        ax.check(measure)
    with pytest.raises(fm.ParameterError, match=kind):
        ax.check_multiclass(measure)


def test_item3_multilabel_intervals_refused_on_every_path(capsys, multilabel):
    ml = fm.count(pq.read_table(multilabel))
    with pytest.raises(fm.ParameterError, match=r"multilabel.*ci") as by_method:
        ml.evaluate(["precision"], ci=0.95)
    with pytest.raises(fm.ParameterError, match=r"multilabel.*ci") as by_function:
        fm.evaluate(ml, ["precision"], ci=0.95)
    assert str(by_method.value) == str(by_function.value)
    argv = ["evaluate", multilabel, "--measures", "precision,recall", "--ci", "0.95"]
    _refused(capsys, *argv, match=r"--ci.*multilabel")
    # what the message offers: per-category intervals, each category a binary matrix
    per = ml.per_category().evaluate(["precision"], ci=0.95)
    assert per.to_arrow().num_rows == 2 * 4


def test_item4_multilabel_curve_measure_refused(capsys, multilabel):
    _refused(
        capsys, "evaluate", multilabel, "--thresholds", "exact", "--measures", "roc_auc", match=r"'roc_auc'.*curve"
    )
    with pytest.raises(fm.ParameterError, match=r"'precision_at_k'.*ranking"):
        fm.count(pq.read_table(multilabel)).evaluate(["precision_at_k"])


def test_item5_item_tests_refuse_a_bad_level(binary):
    _, table = binary
    one = table.filter(pa.compute.equal(table["topic"], "t1"))
    with pytest.raises(fm.ParameterError, match=r"'ci' parameter of item_tests.*Got 5"):
        item_tests(one, method="item-bootstrap", ci=5)


@pytest.mark.parametrize("module", ["fastmetrics.cli", "fastmetrics.measures"])
def test_item6_ctrl_c_while_importing(tmp_path, module):
    """SIGINT raised by the process itself as it imports the command line (the window before the
    handlers exist) or as the command imports its stage, hit every time."""
    code = (
        "import os, runpy, signal, sys\n"
        "class Hook:\n"
        "    def find_spec(self, name, path, target=None):\n"
        f"        if name == {module!r}:\n"
        "            os.kill(os.getpid(), signal.SIGINT)\n"
        "sys.meta_path.insert(0, Hook())\n"
        "sys.argv = ['fastmetrics', 'measures']\n"
        "runpy.run_module('fastmetrics', run_name='__main__')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 130, proc.stderr
    assert proc.stderr == "fastmetrics: interrupted\n"
    assert proc.stdout == ""


def test_item10_precision_at_k_needs_a_finite_k():
    with pytest.raises(fm.ParameterError, match=r"'k' parameter of precision_at_k.*whole number.*inf"):
        parse_spec("precision_at_k(k=inf)")
    with pytest.raises(fm.ParameterError, match=r"'k' parameter of precision_at_k"):
        parse_spec("precision_at_k(k=2.5)")
    assert parse_spec("recall_at_k(k=inf)").params == (np.inf,)  # all of the list: the recall of the run


def test_item11_operating_points_keep_their_threshold_beside_areas(capsys, binary, tmp_path):
    path, table = binary
    asked = ["tpr_at_fpr(fpr=0.05)", "precision_at_recall(recall=0.8)", "roc_auc"]
    out, alone = tmp_path / "mixed.parquet", tmp_path / "alone.parquet"
    common = ["sweep", path, "--thresholds", "exact", "--quiet"]
    assert main([str(a) for a in [*common, "--measures", ",".join(asked), "--out", out]]) == 0
    assert main([str(a) for a in [*common, "--measures", ",".join(asked[:2]), "--out", alone]]) == 0
    mixed = pq.read_table(out).to_pylist()
    assert [r["measure"] for r in mixed] == [m for m in asked for _ in range(2)]
    assert mixed[:4] == pq.read_table(alone).to_pylist()
    for row in mixed:
        m = np.asarray(table["system"]) == row["system"]
        y, s = np.asarray(table["gold"])[m], np.asarray(table["score"])[m]
        fpr, tpr, cut = roc_curve(y, s)
        if row["measure"] == "roc_auc":
            assert row["threshold"] is None
            assert row["value_pooled"] == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        elif row["measure"].startswith("tpr_at_fpr"):
            assert row["value_pooled"] == pytest.approx(tpr[fpr <= 0.05].max(), abs=1e-12)
            assert (s >= row["threshold"])[~y].mean() <= 0.05


def test_item13_a_pred_column_that_does_not_exist(capsys, binary):
    path, _ = binary
    for command in (["evaluate"], ["sweep"], ["leaderboard"]):
        _refused(capsys, *command, path, "--pred", "nope", "--measures", "f1", match=r"'nope'.*--pred")


def test_item15_axioms_outputs(capsys, tmp_path):
    base = ["axioms", "f1", "--n-max", "4", "--properties", "sym,MON"]
    _refused(capsys, *base, "--out", tmp_path / "a.xlsx", match=r"a\.xlsx")
    assert not (tmp_path / "a.xlsx").exists()
    assert main([*base, "--out", str(tmp_path / "a.csv")]) == 0
    verdicts = pacsv.read_csv(tmp_path / "a.csv")
    assert verdicts.column_names == ["measure", "property", "holds", "counterexample", "note", "numeric"]
    assert verdicts.column("property").to_pylist() == ["sym", "MON"]
    assert main([*base, "--out", str(tmp_path / "a.parquet")]) == 0
    assert pq.read_table(tmp_path / "a.parquet").num_rows == 2
    capsys.readouterr()
    _refused(capsys, *base, "--format", "json", "--out", tmp_path / "a.md", match=r"--format json.*a\.md")
    # --out and --detail on one file
    same = tmp_path / "x.csv"
    _refused(capsys, "leaderboard", "runs.parquet", "--out", same, "--detail", same, match=r"--out and --detail")
    # f1 has no multiclass definition of its own: refused by name; its macro mean is checked
    _refused(capsys, "axioms", "f1", "--classes", "3", match=r"'f1'.*no native multiclass.*f1@macro")
    table = ax.axioms(["f1@macro"], ["max", "min"], classes=3, n_max=4)
    assert table.num_rows == 2 and all(table.column("holds").to_pylist())
    C = np.array([[3, 1, 0], [1, 2, 2], [0, 1, 4]])
    y_true = np.repeat(np.arange(3), C.sum(1))
    y_pred = np.concatenate([np.repeat(np.arange(3), row) for row in C])
    assert MatrixMeasure(parse_spec("f1@macro"))(C) == pytest.approx(f1_score(y_true, y_pred, average="macro"))


@pytest.mark.parametrize(
    "argv, match",
    [
        (["evaluate", "{runs}", "--ci-method", "wilson", "--measures", "accuracy"], r"--ci-method.*--ci"),
        (["sweep", "{runs}", "--folds", "3", "--measures", "f1"], r"--folds.*--select cross-topic"),
        (["leaderboard", "{runs}", "--correction", "bh"], r"--correction.*--significance"),
        (["leaderboard", "{runs}", "--holm", "--correction", "bh", "--significance", "fisher"], r"--holm.*bh"),
    ],
)
def test_item16_contradicting_options(capsys, binary, argv, match):
    path, _ = binary
    _refused(capsys, *[str(path) if a == "{runs}" else a for a in argv], match=match)


def test_item16_values_that_cannot_be_meant(binary):
    path, table = binary
    one = table.filter(pa.compute.equal(table["topic"], "t1"))
    with pytest.raises(fm.ParameterError, match=r"'resamples' parameter of item_tests.*Got 0"):
        item_tests(one, method="item-bootstrap", resamples=0)
    scores = fm.count(table, thresholds=11).evaluate(["f1"])
    with pytest.raises(fm.ParameterError, match=r"folds.*2\.5"):
        best_thresholds(scores, select="cross-topic", folds=2.5)
    with pytest.raises(fm.ParameterError, match=r"folds.*cross-topic"):
        best_thresholds(scores, select="same", folds=2)
    assert best_thresholds(scores, select="cross-topic", folds=2).summary.num_rows == 2
    assert os.path.exists(path)


# -- found by the audit after issues 29 and 30 ----------------------------------------------------
def test_saved_weighted_counts_get_no_interval_taken_for_items(tmp_path, binary, capsys):
    """Counts saved from weighted runs lack each count's sum of squared weights: intervals on
    them are refused (in a unit of 1000 they would narrow ~30x); unweighted saved counts keep
    theirs (Wilson: statsmodels on each cell's items)."""
    from statsmodels.stats.proportion import proportion_confint

    path, table = binary
    weighted = tmp_path / "runs.parquet"
    pq.write_table(table.append_column("weight", pa.array(np.arange(table.num_rows) % 3 + 1.0)), weighted)
    wilson = ["--measures", "accuracy", "--ci", "0.95", "--ci-method", "wilson"]
    for runs, saved, extra in ((weighted, "w.parquet", ["--weight", "weight"]), (path, "u.parquet", [])):
        assert main(["count", str(runs), *extra, "--out", str(tmp_path / saved), "--quiet"]) == 0
    capsys.readouterr()
    _refused(capsys, "evaluate", str(tmp_path / "w.parquet"), *wilson, match="sum of squared weights")
    assert main(["evaluate", str(tmp_path / "u.parquet"), *wilson, "--out", str(tmp_path / "u.csv")]) == 0
    for row in pacsv.read_csv(tmp_path / "u.csv").to_pylist():
        cell = table.filter(
            pa.compute.and_(
                pa.compute.equal(table["system"], row["system"]), pa.compute.equal(table["topic"], row["topic"])
            )
        )
        right = int(np.sum(np.asarray(cell["gold"]) == np.asarray(cell["pred"])))
        low, high = proportion_confint(right, cell.num_rows, alpha=0.05, method="wilson")
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low), pytest.approx(high))


def test_a_category_column_that_also_groups_is_refused(binary, capsys):
    _refused(capsys, "evaluate", str(binary[0]), "--category", "topic", match="--category.*grouping")


@pytest.mark.parametrize(
    "argv, match",
    [
        (["evaluate", "{runs}", "--relevance-level", "2"], "--relevance-level has no effect without a --gold"),
        (["evaluate", "{runs}", "--missing", "negative"], "--missing has no effect without a --gold"),
        (["evaluate", "{runs}", "--ties", "item"], "--ties has no effect without --thresholds ranks"),
        (["evaluate", "{runs}", "--resamples", "100"], "--resamples has no effect without --ci"),
        (["meta", "strictness", "{runs}", "--measures", "f1,accuracy", "--pairs", "10"], "--pairs .*robustness"),
        (["meta", "power", "{runs}", "--measures", "f1", "--splits", "10"], "--splits .*stability"),
    ],
)
def test_options_typed_where_they_have_no_effect_are_refused(binary, capsys, argv, match):
    _refused(capsys, *[a.format(runs=binary[0]) for a in argv], match=match)


def test_a_scheduler_address_that_cannot_be_meant(capsys, binary):
    """A mistyped --scheduler address is the user's mistake: one line and exit 2, not the
    ValueError of Dask's address parser."""
    pytest.importorskip("distributed")
    path, _ = binary
    for address in ("bogus", "bogus:1:2"):
        _refused(capsys, "evaluate", path, "--scheduler", address, match=r"scheduler '.*': cannot reach a Dask")


def test_spaces_around_the_score_columns(binary, capsys):
    """--score 'score, nope' names the columns 'score' and 'nope', not a column ' nope'."""
    path, _ = binary
    _refused(capsys, "evaluate", path, "--score", "score, nope", match=r"column 'nope'|'nope'.*--score")
