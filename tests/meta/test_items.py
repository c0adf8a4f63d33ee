"""Paired tests over items: McNemar against statsmodels, the multiple-comparison corrections
against multipletests, the item bootstrap against scipy.stats.bootstrap."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fastmetrics.meta import adjust, item_tests, mcnemar_p

contingency = pytest.importorskip("statsmodels.stats.contingency_tables")
multitest = pytest.importorskip("statsmodels.stats.multitest")


@settings(max_examples=80, deadline=None)
@given(b=st.integers(0, 60), c=st.integers(0, 60), both=st.integers(0, 50), neither=st.integers(0, 50))
def test_mcnemar_equals_statsmodels(b, c, both, neither):
    table = [[both, b], [c, neither]]
    if b + c == 0:
        assert mcnemar_p(b, c, "exact") == 1.0
        return
    assert mcnemar_p(b, c, "exact") == pytest.approx(contingency.mcnemar(table, exact=True).pvalue, abs=1e-12)
    for form, corrected in (("chi2", False), ("chi2-corrected", True)):
        expected = contingency.mcnemar(table, exact=False, correction=corrected).pvalue
        assert mcnemar_p(b, c, form) == pytest.approx(expected, abs=1e-12)
    expected = mcnemar_p(b, c, "exact" if b + c < 25 else "chi2-corrected")
    assert mcnemar_p(b, c) == expected


@settings(max_examples=60, deadline=None)
@given(p=st.lists(st.floats(0, 1), min_size=1, max_size=30))
def test_corrections_equal_multipletests(p):
    # statsmodels runs gc.collect() on every Holm call (importing gc inside the function): in
    # the suite's heap that is 0.4 s a call, a minute for this test's examples
    with mock.patch("gc.collect", lambda *args: 0):
        for ours, theirs in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
            expected = multitest.multipletests(p, method=theirs)[1]
            np.testing.assert_allclose(adjust(p, ours), expected, atol=1e-12)


def _runs(n=400, seed=0):
    rng = np.random.default_rng(seed)
    gold = rng.random(n) < 0.4
    preds = {f"s{k}": np.where(rng.random(n) < skill, gold, ~gold) for k, skill in enumerate([0.85, 0.8, 0.6])}
    table = pa.table(
        {
            "system": np.repeat(list(preds), n),
            "item": np.tile(np.arange(n), 3),
            "gold": np.tile(gold, 3),
            "pred": np.concatenate(list(preds.values())),
        }
    )
    return table, gold, preds


def test_mcnemar_pairs_read_the_discordant_items():
    table, gold, preds = _runs()
    rows = item_tests(table, method="mcnemar", correction=None).summary.to_pylist()
    assert len(rows) == 3
    for row in rows:
        a, b = preds[row["system_a"]] == gold, preds[row["system_b"]] == gold
        assert (row["discordant_a"], row["discordant_b"]) == ((a & ~b).sum(), (~a & b).sum())
        expected = contingency.mcnemar(
            [[(a & b).sum(), (a & ~b).sum()], [(~a & b).sum(), (~a & ~b).sum()]], exact=False, correction=True
        ).pvalue
        assert row["p_value"] == pytest.approx(expected)


def test_item_bootstrap_agrees_with_scipy():
    table, gold, preds = _runs(seed=1)
    rows = item_tests(
        table, method="item-bootstrap", measures=["accuracy"], resamples=4000, seed=3, ci=0.9, weights="multinomial"
    ).summary.to_pylist()
    for row in rows:
        a, b = preds[row["system_a"]] == gold, preds[row["system_b"]] == gold
        ref = stats.bootstrap(
            (a.astype(float) - b,), np.mean, n_resamples=4000, confidence_level=0.9, method="percentile", random_state=4
        ).confidence_interval
        se = (a.astype(float) - b).std() / np.sqrt(a.size)
        assert abs(row["ci_low"] - ref.low) < 0.15 * se and abs(row["ci_high"] - ref.high) < 0.15 * se
        assert row["difference"] == pytest.approx(a.mean() - b.mean())
    strong = next(r for r in rows if (r["system_a"], r["system_b"]) == ("s0", "s2"))
    assert strong["a_beats_b"] == 1.0 and strong["p_value"] == 0.0


def test_item_tests_need_shared_binary_items():
    table, _, _ = _runs(50)
    with pytest.raises(Exception, match="binary"):
        item_tests(table.set_column(3, "pred", pa.array(np.arange(150) % 3)), method="mcnemar")
    one = table.filter(pa.compute.equal(table.column("system"), "s0"))
    with pytest.raises(Exception, match="one"):
        item_tests(one)


@pytest.mark.parametrize("column", ["system", "item"])
def test_a_missing_system_or_item_is_named(column):
    import fastmetrics as fm

    table, _, _ = _runs(50)
    values = table.column(column).to_pylist()
    values[7] = None
    with pytest.raises(fm.InputError, match=f"Column '{column}'.*missing \\(null\\) value at row 7"):
        item_tests(table.set_column(table.schema.get_field_index(column), column, pa.array(values)))


def test_the_pairs_do_not_depend_on_the_order_of_the_rows():
    """Systems in sorted order, as fm.count orders them, wherever their rows come first: a join
    with a separate gold does not keep the order of the rows (the pairs of a folder of run files
    came out in another orientation at each call)."""
    table, _, _ = _runs()
    expected = item_tests(table, method="mcnemar").summary
    assert expected.column("system_a").to_pylist() == ["s0", "s0", "s1"]
    for seed in range(3):
        shuffled = table.take(np.random.default_rng(seed).permutation(table.num_rows))
        assert item_tests(shuffled, method="mcnemar").summary.equals(expected)
    gold = table.filter(pc.equal(table.column("system"), "s0")).select(["item", "gold"])
    assert item_tests(table.drop_columns(["gold"]), gold, method="mcnemar").summary.equals(expected)
