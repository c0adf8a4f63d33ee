"""The leaderboard against a Python loop over the raw rows (K from seed 000 eq. 5 written here)."""

import itertools
import math
import warnings

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics.board import leaderboard, random_baseline
from fastmetrics.demo import generate
from fastmetrics.measures import registry
from tests.meta._data import semeval_paths


def k_eq5(gold, pred):
    tp = np.sum(gold & pred)
    fn = np.sum(gold & ~pred)
    fp = np.sum(~gold & pred)
    tn = np.sum(~gold & ~pred)
    ap, an = tp + fn, fp + tn
    if ap and an:
        return tp / ap + tn / an - 1
    return 2 * tn / an - 1 if an else 2 * tp / ap - 1


def test_demo_leaderboard_macro_k_equals_loop():
    """The leaderboard the demo prints: K's macro mean per system equals eq. 5 looped over the raw
    rows, ranks are competition ranks by it, and MCC is undefined on the two topics without a
    positive item where K is defined."""
    raw = generate().to_pandas()
    table = leaderboard(fm.count(generate()), ["k", "mcc"], baselines=False).summary.to_pylist()
    expected = {}
    for system, rows in raw.groupby("system"):
        ks = [k_eq5(g.gold.to_numpy(), g.pred.to_numpy()) for _, g in rows.groupby("topic")]
        expected[system] = float(np.mean(ks))
    k = [r for r in table if r["measure"] == "k"]
    assert len(k) == 20
    for r in k:
        assert r["macro"] == pytest.approx(expected[r["system"]], abs=1e-12)
        assert r["rank"] == 1 + sum(v > expected[r["system"]] for v in expected.values())
        assert r["undefined_topics"] == 0
    mcc = [r for r in table if r["measure"] == "mcc"]
    assert all(r["undefined_topics"] == 2 and not math.isnan(r["macro"]) for r in mcc)


def test_leaderboard_needs_a_system_axis():
    tensor = fm.count(generate(), by=("topic",))
    with pytest.raises(fm.ParameterError, match=r"counts over \(system\[, topic\]\)"):
        leaderboard(tensor, ["k"])


# --- the full leaderboard -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def semeval_board():
    runs, gold = semeval_paths()
    tensor = fm.count(runs, gold=gold)
    measures = ["accuracy", "precision", "recall", "f1", "mcc", "k", "confusion_entropy"]
    return leaderboard(tensor, measures, significance="bootstrap", resamples=200).summary.to_pylist()


def test_shipped_semeval_baselines_equal_the_analytic_rows(semeval_board):
    rows = {(r["system"], r["measure"]): r for r in semeval_board}
    assert len({r["system"] for r in semeval_board if r["kind"] == "system"}) == 32
    for measure in ("accuracy", "precision", "recall", "f1", "mcc", "k", "confusion_entropy"):
        for shipped, analytic in (
            ("_baseline/subtask_A_baseline_true", "placebo"),
            ("_baseline/subtask_A_baseline_false", "zero"),
        ):
            a, b = rows[(shipped, measure)], rows[(analytic, measure)]
            for key in ("macro", "micro"):
                assert (math.isnan(a[key]) and math.isnan(b[key])) or a[key] == b[key], (measure, shipped, key)
            assert (a["topics"], a["undefined_topics"]) == (b["topics"], b["undefined_topics"])


def test_macro_micro_ranks_and_boldface(semeval_board):
    runs, gold = semeval_paths()
    raw = fm.count(runs, gold=gold)
    c = raw.counts.astype(float)  # per-topic F1 written out from the counts (not fastmetrics' kernel)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1 = 2 * c[..., 1, 1] / (2 * c[..., 1, 1] + c[..., 0, 1] + c[..., 1, 0])
    systems = list(raw.coords["system"])
    rows = [r for r in semeval_board if r["measure"] == "f1"]
    best_baseline = max(r["macro"] for r in rows if r["kind"] == "baseline")
    for r in rows:
        if r["kind"] != "system":
            assert r["rank"] is None and r["beats_baselines"] is None
            continue
        s = systems.index(r["system"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert r["macro"] == pytest.approx(np.nanmean(f1[s]))
        c = raw.counts[s].sum(axis=0)
        assert r["micro"] == pytest.approx(2 * c[1, 1] / (2 * c[1, 1] + c[0, 1] + c[1, 0]))
        assert r["undefined_topics"] == int(np.isnan(f1[s]).sum())
        assert r["rank"] == 1 + sum(o["macro"] > r["macro"] for o in rows if o["kind"] == "system")
        assert r["beats_baselines"] == (r["macro"] > best_baseline)
    ce = [r for r in semeval_board if r["measure"] == "confusion_entropy" and r["kind"] == "system"]
    best = min(ce, key=lambda r: r["macro"])  # lower is better: rank 1 is the smallest entropy
    assert best["rank"] == 1


@pytest.mark.parametrize("measure", ["f1", "mcc", "accuracy", "precision", "k"])
@pytest.mark.parametrize("ap, an", [(3, 4), (1, 5), (0, 4)])
def test_random_baseline_is_the_expectation_over_all_labelings(measure, ap, an):
    """Average over the 2^n equally likely labelings, conditioned on the measure being defined."""
    values = []
    for labels in itertools.product((0, 1), repeat=ap + an):
        tp = sum(labels[:ap])
        fp = sum(labels[ap:])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = float(fm.compute(measure, tp=tp, fp=fp, fn=ap - tp, tn=an - fp))
        if not math.isnan(v):
            values.append(v)
    spec = registry.make_spec(measure)
    expected = np.mean(values) if values else np.nan
    assert random_baseline(spec, ap, an) == pytest.approx(expected, nan_ok=True)


@pytest.mark.parametrize("measure", ["f1", "mcc", "balanced_accuracy", "f1@macro"])
def test_random_baselines_of_many_topics_equal_each_topics_own(measure, monkeypatch):
    """One evaluation over the outcomes of a batch of topics, batches cut mid-list, an empty
    topic and topics past the exact limit (the measure at the expected counts): each topic's
    number is the one it gets alone."""
    from fastmetrics.board import baselines
    from fastmetrics.measures import chance

    ap = [3, 0, 40, 0, 7, 500, 12, 1]
    an = [4, 0, 2, 9, 30, 700, 12, 0]
    spec = registry.parse_spec(measure)
    alone = [random_baseline(spec, a, n) for a, n in zip(ap, an)]
    monkeypatch.setattr(chance, "_BATCH_CELLS", 300)
    monkeypatch.setattr(baselines, "_RANDOM_EXACT_CELLS", 10_000)  # the fifth topic's outcomes are past it
    together = baselines.random_baselines(spec, ap, an)
    past = [baselines.random_baseline(spec, 500, 700)]
    np.testing.assert_array_equal(together, alone[:5] + past + alone[6:])
    assert past != [alone[5]] or np.isnan(alone[5])


def test_multiclass_leaderboard_has_no_binary_baselines():
    table = pa.table(
        {"system": ["a"] * 6 + ["b"] * 6, "gold": list("xyzxyz") * 2, "pred": list("xyzxxx") + list("xyyxyz")}
    )
    rows = leaderboard(fm.count(table), ["accuracy", "f1@macro"]).summary.to_pylist()
    assert {r["kind"] for r in rows} == {"system"} and all(r["beats_baselines"] is None for r in rows)
    assert [r["rank"] for r in rows if r["measure"] == "accuracy"] == [2, 1]
