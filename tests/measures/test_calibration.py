"""Calibration measures against scikit-learn's Brier score, a direct numpy ECE/MCE and
torchmetrics' binary calibration error; Murphy's three parts add up to the Brier score."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import brier_score_loss

import fastmetrics as fm
from fastmetrics.measures import registry

CALIBRATION = registry.names(kind="calibration")


def _items(seed, n=200, levels=None, weighted=False, groups=3):
    rng = np.random.default_rng(seed)
    score = rng.random(n) if levels is None else rng.integers(0, levels + 1, n) / levels  # ties, 0 and 1
    gold = rng.random(n) < score**1.5  # miscalibrated on purpose
    group = rng.integers(0, groups, n)
    weight = rng.uniform(0.1, 3.0, n) if weighted else np.ones(n)
    table = pa.table({"system": group, "item": np.arange(n), "gold": gold, "score": score, "w": weight})
    return table, group, gold.astype(float), score, weight


def _numpy_bins(score, gold, weight, bins, mass):
    """ECE and MCE as the module docstring defines them, item by item."""
    total = weight.sum()
    if mass:
        below = np.array([weight[score < s].sum() for s in score])
        which = np.minimum(np.floor(bins * below / total), bins - 1).astype(int)
    else:
        edges = np.arange(1, bins) / bins
        which = np.searchsorted(edges, score, side="right")  # bin b: [b/B, (b+1)/B), 1 in the last
    ece, mce = 0.0, 0.0
    for b in np.unique(which):
        m = which == b
        gap = abs((weight[m] * gold[m]).sum() - (weight[m] * score[m]).sum())
        ece += gap / total
        mce = max(mce, gap / weight[m].sum())
    return ece, mce


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    levels=st.sampled_from([None, 1, 4, 10, 20]),
    weighted=st.booleans(),
    bins=st.sampled_from([1, 3, 10, 15]),
)
def test_calibration_equals_direct_numpy_and_scikit_learn(seed, levels, weighted, bins):
    table, group, gold, score, weight = _items(seed, levels=levels, weighted=weighted)
    tensor = fm.count(table, by="system", thresholds="exact", weight="w")
    specs = [f"ece(bins={bins})", f"mce(bins={bins})", f"ece_mass(bins={bins})", f"mce_mass(bins={bins})"]
    names = [registry.parse_spec(s).base_label for s in specs]
    parts = ["brier", "brier_reliability", "brier_resolution", "brier_uncertainty"]
    s = tensor.evaluate(specs + parts)
    for k, system in enumerate(s.coords["system"]):
        m = group == system
        g, f, w = gold[m], score[m], weight[m]
        expected = _numpy_bins(f, g, w, bins, False) + _numpy_bins(f, g, w, bins, True)
        got = [s[name][k] for name in names]
        np.testing.assert_allclose(got, expected, atol=1e-12)
        assert s["brier"][k] == pytest.approx(brier_score_loss(g, f, sample_weight=w), abs=1e-12)
        rel, res, unc = (s[p][k] for p in parts[1:])
        assert rel - res + unc == pytest.approx(s["brier"][k], abs=1e-12)
        base = (w * g).sum() / w.sum()
        assert unc == pytest.approx(base * (1 - base), abs=1e-12)


def test_ece_equals_torchmetrics():
    torch = pytest.importorskip("torch")
    tm = pytest.importorskip("torchmetrics.functional.classification")
    table, _, gold, score, _ = _items(7, n=2000, groups=1)
    tensor = fm.count(table.drop(["system"]), thresholds="exact")
    for bins in (5, 15):
        s = tensor.evaluate([f"ece(bins={bins})", f"mce(bins={bins})"])
        for norm, value in (("l1", s.values[0]), ("max", s.values[1])):
            theirs = tm.binary_calibration_error(
                torch.tensor(score, dtype=torch.float64), torch.tensor(gold.astype(int)), n_bins=bins, norm=norm
            )
            assert float(value) == pytest.approx(float(theirs), abs=1e-6)


def test_a_score_of_one_falls_in_the_last_of_the_bins():
    """B bins, 1.0 in the last (Naeini et al., Guo et al.; the numpy reference): on gold [0, 1],
    scores [1.0, 0.95] and 2 bins both items share bin [0.5, 1], ECE |1 - 1.95| / 2 = 0.475
    (torchmetrics puts 1.0 in a third bin of its own and gives (1 + 0.05) / 2 = 0.525)."""
    gold, score = np.array([0.0, 1.0]), np.array([1.0, 0.95])
    table = pa.table({"item": [0, 1], "gold": gold.astype(bool), "score": score})
    s = fm.count(table, thresholds="exact").evaluate(["ece(bins=2)", "mce(bins=2)"])
    expected = _numpy_bins(score, gold, np.ones(2), 2, False)
    np.testing.assert_allclose(s.values.reshape(-1), expected, atol=1e-12)
    assert float(s.values[0]) == pytest.approx(0.475, abs=1e-12)
    for bins in (1, 3, 10):  # a score of 1 alone with others: always the top bin's
        table = pa.table({"item": range(4), "gold": [True, False, True, False], "score": [1.0, 0.99, 0.2, 0.0]})
        got = fm.count(table, thresholds="exact").evaluate(f"ece(bins={bins})").values.reshape(-1)
        expected = _numpy_bins(np.array([1.0, 0.99, 0.2, 0.0]), np.array([1.0, 0, 1, 0]), np.ones(4), bins, False)
        assert got[0] == pytest.approx(expected[0], abs=1e-12)


def test_calibration_needs_an_exact_sweep_of_probabilities():
    table, *_ = _items(3)
    with pytest.raises(fm.ParameterError, match="thresholds='exact'"):
        fm.count(table, by="system", thresholds=11).evaluate("ece")
    logits = table.set_column(3, "score", pa.array(np.linspace(-3, 3, table.num_rows)))
    with pytest.raises(fm.ParameterError, match=r"in \[0, 1\]"):
        fm.count(logits, by="system", thresholds="exact").evaluate("brier")
    with pytest.raises(fm.ParameterError, match="whole number"):
        fm.count(table, by="system", thresholds="exact").evaluate("ece(bins=2.5)")


def test_every_calibration_measure_has_a_record_and_ranks_lower_first():
    assert set(CALIBRATION) >= {"brier", "ece", "mce", "ece_mass", "mce_mass", "brier_reliability"}
    for name in CALIBRATION:
        record = registry.get(name)
        assert record.summary and record.formula and record.reference and record.undefined_when
    table, *_ = _items(5, n=600)
    tensor = fm.count(table.append_column("topic", pa.array(np.arange(600) % 4)), thresholds="exact")
    board = fm.board.leaderboard(tensor, ["brier"], baselines=False).summary.to_pylist()
    ranked = sorted(board, key=lambda r: r["rank"])
    assert [r["macro"] for r in ranked] == sorted(r["macro"] for r in board)  # lower is better


def test_reliability_bins_are_the_ece_bins():
    from fastmetrics.measures.calibration import reliability_bins

    table, group, gold, score, weight = _items(11, levels=20, weighted=True, groups=1)
    tensor = fm.count(table.drop(["system"]), thresholds="exact", weight="w")
    mean_score, frequency, w, ece, brier = reliability_bins(tensor.counts, tensor.coords["threshold"], 10)
    filled = w > 0
    from_points = (w[filled] * np.abs(frequency[filled] - mean_score[filled])).sum() / w.sum()
    assert from_points == pytest.approx(_numpy_bins(score, gold, weight, 10, False)[0], abs=1e-12)
    measured = tensor.evaluate(["ece(bins=10)", "brier"]).values.reshape(-1)
    assert [ece, brier] == measured.tolist()  # the measures' numbers, to the last bit
    assert w.sum() == pytest.approx(weight.sum())
    assert np.isnan(reliability_bins(tensor.counts[:0], tensor.coords["threshold"][:0], 10)[3:]).all()
