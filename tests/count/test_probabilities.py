"""Multiclass probabilities: argmax counts, top-k accuracy, one-vs-rest and one-vs-one sweeps and
per-class values, against scikit-learn."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.csv  # noqa: F401  (pa.csv in the command-line test)
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

import fastmetrics as fm


def _probabilities(seed, n=240, m=4, levels=None, systems=2):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(m), n)
    if levels:  # coarse scores, still summing to 1: ties within an item and across items
        proba = np.array([rng.multinomial(levels, p) for p in proba]) / levels
    gold = np.array([rng.choice(m, p=p / p.sum()) if p.sum() > 0 else 0 for p in proba + 1e-9])
    system = rng.integers(0, systems, n)
    weight = rng.uniform(0.2, 3.0, n)
    table = pa.table(
        {
            "system": system,
            "item": np.arange(n),
            "gold": gold,
            "score": pa.FixedSizeListArray.from_arrays(pa.array(proba.reshape(-1)), m),
            "w": weight,
        }
    )
    return table, system, gold, proba, weight


def _sk(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), levels=st.sampled_from([None, 2, 5]), weighted=st.booleans())
def test_top_k_accuracy_equals_scikit_learn_with_ties(seed, levels, weighted):
    table, system, gold, proba, weight = _probabilities(seed, levels=levels)
    tensor = fm.count(table, by="system", thresholds="topk", weight="w" if weighted else None)
    s = tensor.evaluate(["top_k_accuracy(k=1)", "top_k_accuracy", "top_k_accuracy(k=3)"])
    for j, sys in enumerate(s.coords["system"]):
        m = system == sys
        w = weight[m] if weighted else None
        for i, k in enumerate((1, 2, 3)):
            expected = _sk(skm.top_k_accuracy_score, gold[m], proba[m], k=k, labels=range(4), sample_weight=w)
            assert s.values[i, j] == pytest.approx(expected, abs=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), levels=st.sampled_from([None, 3, 10]))
def test_one_vs_rest_and_one_vs_one_auc_equal_scikit_learn(seed, levels):
    table, system, gold, proba, _ = _probabilities(seed, levels=levels, systems=1)
    assume(len(np.unique(gold)) == 4)  # scikit-learn needs every class in y_true
    table = table.drop(["system"])
    ovr = fm.count(table, thresholds="exact")
    per_class = ovr.evaluate("roc_auc")
    assert per_class.axes == ("class",)
    np.testing.assert_allclose(
        per_class["roc_auc"], skm.roc_auc_score(gold, proba, multi_class="ovr", average=None), atol=1e-12
    )
    for average in ("macro", "weighted"):
        ours = float(ovr.evaluate(f"roc_auc@{average}").values[0])
        assert ours == pytest.approx(skm.roc_auc_score(gold, proba, multi_class="ovr", average=average), abs=1e-12)
        ovo = fm.count(table, thresholds="exact", multiclass="ovo").evaluate(f"roc_auc@{average}")
        expected = skm.roc_auc_score(gold, proba, multi_class="ovo", average=average)
        assert float(ovo.values[0]) == pytest.approx(expected, abs=1e-12)


def test_argmax_counts_and_per_class_values_equal_scikit_learn():
    table, _, gold, proba, weight = _probabilities(3, systems=1)
    table = table.drop(["system"])
    pred = proba.argmax(axis=1)
    tensor = fm.count(table, weight="w")
    assert tensor.m == 4
    np.testing.assert_allclose(tensor.counts, skm.confusion_matrix(gold, pred, sample_weight=weight), atol=1e-9)
    s = tensor.evaluate(["precision@none", "recall@none", "f1@none"])
    assert s.axes == ("class",) and list(s.coords["class"]) == [0, 1, 2, 3]
    p, r, f, _ = skm.precision_recall_fscore_support(gold, pred, sample_weight=weight, zero_division=np.nan)
    np.testing.assert_allclose(s.values, [p, r, f], atol=1e-12)
    with pytest.raises(fm.ParameterError, match="separate calls"):
        tensor.evaluate(["f1@none", "accuracy"])


def test_one_score_column_per_class_and_a_separate_gold():
    table, _, gold, proba, _ = _probabilities(4, n=120, m=3, systems=1)
    columns = {"item": np.arange(120), "cat": proba[:, 0], "dog": proba[:, 1], "eel": proba[:, 2]}
    names = np.array(["cat", "dog", "eel"])
    truth = pa.table({"item": np.arange(120)[::-1], "gold": names[gold][::-1]})
    tensor = fm.count(pa.table(columns), truth, score=["cat", "dog", "eel"], thresholds="exact")
    s = tensor.evaluate("roc_auc")
    assert list(s.coords["class"]) == ["cat", "dog", "eel"]
    np.testing.assert_allclose(s["roc_auc"], skm.roc_auc_score(gold, proba, multi_class="ovr", average=None))
    argmax = fm.count(pa.table(columns), truth, score=["cat", "dog", "eel"])
    assert float(argmax.evaluate("accuracy").values[0]) == pytest.approx(skm.accuracy_score(gold, proba.argmax(1)))


def test_fm_score_takes_a_probability_matrix():
    _, _, gold, proba, _ = _probabilities(5, systems=1)
    s = fm.score(gold, y_score=proba, measures=["accuracy", "top_k_accuracy(k=2)", "roc_auc@macro", "f1@macro"])
    assert s.measures == ("accuracy", "top_k_accuracy", "roc_auc@macro", "f1@macro")
    assert float(s["accuracy"]) == pytest.approx(skm.accuracy_score(gold, proba.argmax(1)))
    assert float(s["top_k_accuracy"]) == pytest.approx(skm.top_k_accuracy_score(gold, proba, k=2))
    assert float(s["roc_auc@macro"]) == pytest.approx(skm.roc_auc_score(gold, proba, multi_class="ovr"))
    assert float(s["f1@macro"]) == pytest.approx(skm.f1_score(gold, proba.argmax(1), average="macro"))
    ovo = fm.score(gold, y_score=proba, measures="roc_auc@macro", multiclass="ovo")
    assert float(ovo.values[0]) == pytest.approx(skm.roc_auc_score(gold, proba, multi_class="ovo"))


@pytest.mark.parametrize(
    ("change", "error", "match"),
    [
        (lambda t: t.set_column(3, "score", pa.array([[0.5, 0.5]] * t.num_rows)), fm.InputError, "has 2 class scores"),
        (
            lambda t: t.set_column(3, "score", pa.array([[np.nan, 0.2, 0.3, 0.5]] * t.num_rows)),
            fm.InputError,
            "must be finite",
        ),
    ],
)
def test_bad_probability_inputs(change, error, match):
    table, *_ = _probabilities(6, n=20)
    with pytest.raises(error, match=match):
        fm.count(change(table), by="system")


def test_measures_need_their_form():
    table, *_ = _probabilities(7, n=60)
    with pytest.raises(fm.ParameterError, match="thresholds='topk'"):
        fm.count(table, by="system").evaluate("top_k_accuracy")
    with pytest.raises(fm.ParameterError, match="@macro"):
        fm.count(table, by="system", thresholds="exact").evaluate(["roc_auc@macro", "roc_auc"])
    with pytest.raises(fm.ParameterError, match="'multiclass'.*'ovr' or 'ovo'.*'pairs'"):
        fm.count(table, by="system", thresholds="exact", multiclass="pairs")


def test_command_line_reads_probabilities_in_columns_or_a_list(tmp_path, capsys):
    import pyarrow.parquet as pq

    from fastmetrics.cli import main

    _, _, gold, proba, _ = _probabilities(8, n=150, m=3, systems=1)
    names = np.array(["cat", "dog", "eel"])
    path = tmp_path / "probs.parquet"
    table = {"id": np.arange(150), "label": names[gold], "cat": proba[:, 0], "dog": proba[:, 1], "eel": proba[:, 2]}
    table["proba"] = pa.array(proba.tolist())
    pq.write_table(pa.table(table), path)
    common = [str(path), "--item", "id", "--gold-column", "label", "--format", "parquet"]
    runs = [
        (["--score", "cat,dog,eel", "--measures", "accuracy,f1@macro"], None),
        (["--score", "proba", "--thresholds", "topk", "--measures", "top_k_accuracy(k=2)"], None),
        (["--score", "proba", "--thresholds", "exact", "--measures", "roc_auc@macro"], "ovr"),
        (["--score", "proba", "--thresholds", "exact", "--measures", "roc_auc@macro", "--multiclass", "ovo"], "ovo"),
    ]
    expected = [
        [skm.accuracy_score(gold, proba.argmax(1)), skm.f1_score(gold, proba.argmax(1), average="macro")],
        [skm.top_k_accuracy_score(gold, proba, k=2)],
        [skm.roc_auc_score(gold, proba, multi_class="ovr")],
        [skm.roc_auc_score(gold, proba, multi_class="ovo")],
    ]
    for (options, _), values in zip(runs, expected):
        out = tmp_path / "out.csv"
        assert main(["evaluate", *common, *options, "--out", str(out)]) == 0
        got = pa.csv.read_csv(out).column("value").to_numpy()
        np.testing.assert_allclose(got, values, atol=1e-12)


def test_saved_probability_counts_keep_their_class_axes(tmp_path, capsys):
    import pyarrow.parquet as pq

    from fastmetrics.cli import main

    _, _, gold, proba, _ = _probabilities(9, n=150, m=3, systems=1)
    path = tmp_path / "probs.parquet"
    pq.write_table(pa.table({"item": np.arange(150), "gold": gold, "proba": pa.array(proba.tolist())}), path)
    for form, measure, expected in (
        (["--thresholds", "exact"], "roc_auc@macro", skm.roc_auc_score(gold, proba, multi_class="ovr")),
        (
            ["--thresholds", "exact", "--multiclass", "ovo"],
            "roc_auc@macro",
            skm.roc_auc_score(gold, proba, multi_class="ovo"),
        ),
        (["--thresholds", "topk"], "top_k_accuracy(k=2)", skm.top_k_accuracy_score(gold, proba, k=2)),
    ):
        saved, out = tmp_path / "counts.parquet", tmp_path / "out.csv"
        assert main(["count", str(path), "--score", "proba", *form, "--out", str(saved), "--quiet"]) == 0
        assert main(["evaluate", str(saved), "--measures", measure, "--out", str(out)]) == 0
        assert pa.csv.read_csv(out).column("value")[0].as_py() == pytest.approx(expected, abs=1e-12)
    capsys.readouterr()
    assert main(["leaderboard", str(path), "--score", "proba", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "class probabilities are scored by 'fastmetrics evaluate'" in err and err.count("\n") == 1


def test_top_k_counts_have_a_top_k_axis_not_k():
    # "k" is Sebastiani's K: an axis of that name would collide with the measure's column
    table, *_ = _probabilities(10, n=60)
    tensor = fm.count(table, by="system", thresholds="topk")
    assert tensor.axes == ("system", "top_k") and list(tensor.coords["top_k"]) == [1, 2, 3, 4]
    wide = tensor.evaluate(["recall", "k"]).to_arrow(wide=True)
    assert wide.column_names == ["system", "top_k", "recall", "k"]


def _runs_and_gold(n=30, seed=0):
    rng = np.random.default_rng(seed)
    scores = rng.dirichlet(np.ones(3), n)
    runs = pa.table({"system": ["a"] * n, "topic": [1] * n, "item": np.arange(n)})
    for c in range(3):
        runs = runs.append_column(f"p{c}", pa.array(scores[:, c]))
    gold = pa.table({"topic": [1] * n, "item": np.arange(n), "gold": rng.integers(0, 3, n)})
    return runs, gold


def _count(runs, gold, **kw):
    return fm.count(runs, gold=gold, score=["p0", "p1", "p2"], classes=[0, 1, 2], **kw)


def test_the_gold_of_class_probabilities_is_checked_as_any_gold():
    runs, gold = _runs_and_gold()
    expected = _count(runs, gold).counts
    as_text = gold.set_column(1, "item", pa.array([str(i) for i in range(30)]))  # keys cast to the runs' type
    np.testing.assert_array_equal(_count(runs, as_text).counts, expected)
    named = gold.rename_columns(["topic", "doc", "label"])
    np.testing.assert_array_equal(
        _count(
            runs.rename_columns(["system", "topic", "doc", "p0", "p1", "p2"]), named, item="doc", gold_column="label"
        ).counts,
        expected,
    )
    with pytest.raises(fm.InputError, match="does not convert"):
        _count(runs, gold.set_column(1, "item", pa.array([f"x{i}" for i in range(30)])))
    with pytest.raises(fm.InputError, match="more than once"):
        _count(runs, pa.concat_tables([gold, gold.slice(0, 1)]))
    with pytest.raises(fm.InputError, match="null"):
        _count(runs, gold.set_column(2, "gold", pa.array([None] + [1] * 29)))


def test_a_run_lacking_gold_items_is_refused_unless_dropped():
    runs, gold = _runs_and_gold()
    with pytest.raises(fm.InputError, match="20 of the gold's 30 items"):
        _count(runs.slice(0, 20), gold)
    dropped = _count(runs.slice(0, 20), gold, missing="drop")
    assert dropped.counts.sum() == 20


@pytest.mark.parametrize(
    "options, match",
    [
        (dict(score=["p0"]), "two or more"),
        (dict(score=["p0", "p0", "p1"]), "own"),
        (dict(score=["p0", "p1", "system"]), "another part"),
        (dict(topic=["topic"]), "'topic'.*column name"),
        (dict(system=3), "'system'.*column name"),
    ],
)
def test_column_options_of_the_wrong_kind_are_refused(options, match):
    runs, gold = _runs_and_gold()
    with pytest.raises(fm.ParameterError, match=match):
        fm.count(runs.append_column("gold", gold.column("gold")), **options)


def test_options_that_do_not_apply_to_probabilities_are_refused():
    runs, gold = _runs_and_gold()
    with pytest.raises(fm.ParameterError, match="grid=.*do not apply"):
        _count(runs, gold, thresholds=5, grid="system")
    with pytest.raises(fm.ParameterError, match="'multiclass'"):
        fm.count(
            runs.append_column("pred", gold.column("gold")).append_column("gold", gold.column("gold")), multiclass="x"
        )


def test_a_null_gold_label_is_named_as_such():
    runs, gold = _runs_and_gold()
    runs = runs.append_column("label", pa.array([None] + ["p1"] * 29))
    with pytest.raises(fm.InputError, match="'label'.*null.*row 0"):
        fm.count(runs, score=["p0", "p1", "p2"], gold_column="label")
