"""Paired tests across topics against scipy.stats: ttest_rel, wilcoxon (its defaults, on ties and
zeros, every branch of method="auto"), binomtest, permutation_test; the resamples sized to the
correction, and the warning when a family cannot reach alpha."""

import warnings

import numpy as np
import pytest
from scipy import stats

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.meta.paired import paired_tests, resamples_for

from ._data import random_scores


def _cases(seed, sizes, discrete):
    """Matrices of per-topic values with NaN, ties and zeros among their differences."""
    rng = np.random.default_rng(seed)
    for n in sizes:
        values = rng.normal(0.5, 0.2, (4, n))
        if discrete:
            values = np.round(values * 10) / 10  # many tied and zero differences
        values[rng.integers(4), rng.integers(n)] = np.nan
        yield values


def _pairs(values):
    first, second = np.triu_indices(values.shape[0], 1)
    for i, (a, b) in enumerate(zip(first, second)):
        ok = ~np.isnan(values[a]) & ~np.isnan(values[b])
        yield i, values[a][ok], values[b][ok]


SIZES = (3, 5, 8, 12, 13, 14, 20, 30, 50, 51, 80)
# scipy's wilcoxon enumerates the sign patterns of tied ranks up to 13 topics, the costliest
# oracle of the suite from 12 on: by default the tied cases skip 12-14 (n = 8 takes the same
# branch, and test_wilcoxon_branches_are_scipys covers each branch); --runslow compares every size
TIED_SIZES = (3, 5, 8, 20, 30, 50, 51, 80)


@pytest.mark.parametrize(
    "discrete, sizes",
    [
        pytest.param(False, SIZES, id="continuous"),
        pytest.param(True, TIED_SIZES, id="tied"),
        pytest.param(True, SIZES, marks=pytest.mark.slow, id="tied-every-size"),
    ],
)
def test_t_wilcoxon_and_sign_equal_scipy(discrete, sizes):
    """Every pair of every case (6 pairs a case, 3 p-values a pair), ties and zeros in the discrete
    ones: the p-values equal scipy's to 1e-12, NaN where scipy's are NaN."""
    compared = 0
    for values in _cases(7 + discrete, sizes, discrete):
        first, second = np.triu_indices(values.shape[0], 1)
        ours = {m: paired_tests(values, first, second, m).p_value for m in ("t", "wilcoxon", "sign")}
        for i, x, y in _pairs(values):
            d = x - y
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                theirs = {
                    "t": stats.ttest_rel(x, y).pvalue,
                    "wilcoxon": stats.wilcoxon(x, y).pvalue,
                    "sign": stats.binomtest(int((d > 0).sum()), int((d != 0).sum())).pvalue
                    if (d != 0).any()
                    else np.nan,
                }
            for m, p in theirs.items():
                np.testing.assert_allclose(ours[m][i], p, rtol=1e-12, atol=1e-14, equal_nan=True, err_msg=f"{m} {d}")
                compared += 1
    assert compared == 3 * 6 * len(sizes)  # 3 tests x 6 pairs x the cases


def test_wilcoxon_branches_are_scipys():
    """The branches of scipy's method="auto": exact without ties or zeros up to 50, the exact sign
    patterns of tied ranks up to 13, the normal approximation otherwise; all-zero differences."""
    tied = np.array([[1.0, 2, 2, 3, 3, 3, 0.5, 4, 4, 1], [0.0, 1, 1, 2, 2, 2, 0.5, 2, 2, 0]])  # ties and a zero
    plain = np.array([np.arange(1, 21) * 1.1, np.zeros(20)])
    wide = np.array([np.r_[np.arange(1, 31) * 1.0, 5.0], np.zeros(31)])  # a tie at n = 31: normal
    same = np.array([np.ones(6), np.ones(6)])  # every difference zero: scipy's permutation gives 1
    for values in (tied, plain, wide, same):
        p = paired_tests(values, np.array([0]), np.array([1]), "wilcoxon").p_value[0]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = stats.wilcoxon(values[0], values[1]).pvalue
        assert p == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_randomization_test_enumerates_small_families_exactly():
    """With 2^n sign patterns no more than the resamples, the randomization test is exact: scipy's
    permutation_test enumerating them all gives the same p-values (dyadic differences: no rounding)."""
    rng = np.random.default_rng(3)
    values = rng.integers(0, 8, size=(5, 10)) / 8.0
    first, second = np.triu_indices(5, 1)
    ours = paired_tests(values, first, second, "fisher", resamples=5000, rng=np.random.default_rng(0))
    assert ours.resamples == 5000 and np.all(ours.smallest_p == 2 / 2**10)
    for i, (a, b) in enumerate(zip(first, second)):
        d = values[a] - values[b]
        expected = stats.permutation_test(
            (d,), np.mean, permutation_type="samples", n_resamples=np.inf, alternative="two-sided"
        ).pvalue
        assert ours.p_value[i] == pytest.approx(expected, abs=1e-12)


def test_resamples_are_sized_to_the_correction():
    assert resamples_for(1, 0.05) == 1000
    assert resamples_for(190, 0.05) == 38_000
    scores = random_scores(2, systems=6, topics=40)
    result = meta.significance(scores, method="fisher", correction="holm", seed=0)
    assert result.params["resamples"] == resamples_for(15, 0.05)
    p = result.summary.column("p_adjusted").to_numpy()
    assert p.min() >= 15 / (resamples_for(15, 0.05) + 1) - 1e-15


def test_a_family_that_cannot_reach_alpha_says_how_far_it_gets():
    scores = random_scores(2, systems=20, topics=30)
    with pytest.warns(fm.SignificanceWarning, match=r"smallest adjusted p-value reachable 0\.18981.*38000 resamples"):
        result = meta.significance(scores, method="fisher", resamples=1000, correction="holm")
    assert len(result.params["notes"]) == 4  # one per measure
    with warnings.catch_warnings():
        warnings.simplefilter("error", fm.SignificanceWarning)
        meta.significance(scores, method="t", correction="holm")  # continuous p-values reach any alpha
    few = random_scores(1, systems=3, topics=4)
    with pytest.warns(fm.SignificanceWarning, match="exact test on these topics gives p-values of at least 0.125"):
        meta.significance(few, method="wilcoxon")


def test_corrections_match_statsmodels():
    from statsmodels.stats.multitest import multipletests

    p = np.random.default_rng(0).uniform(0, 0.2, 40)
    for ours, theirs in (("holm", "holm"), ("bonferroni", "bonferroni"), ("bh", "fdr_bh")):
        np.testing.assert_allclose(meta.adjust(p, ours), multipletests(p, method=theirs)[1], atol=1e-12)


def test_default_test_is_the_t_test_and_options_are_checked():
    scores = random_scores(3, systems=3, topics=12)
    result = meta.significance(scores)
    assert result.params["method"] == "t" and "statistic" in result.summary.column_names
    for bad in (dict(method="z"), dict(alpha=1.5), dict(resamples=0), dict(correction="sidak")):
        with pytest.raises(fm.ParameterError):
            meta.significance(scores, **bad)


def test_t_test_of_close_identical_and_partly_defined_systems_equals_scipy():
    """The t-test's pairs from the systems' moments (a Gram matrix) where that is accurate, the direct
    pass where it is not: near-identical systems (differences of 1e-9), identical ones, a system far
    from 0, systems undefined on some topics (two on the same ones, one on others) and one compared
    on very few topics -- every pair's t and p equal scipy's ttest_rel to 1e-10."""
    rng = np.random.default_rng(11)
    base = rng.normal(0.5, 0.2, 300)
    rows = [
        base,
        base + 1e-9 * rng.normal(size=300),  # near-identical: the moments cancel
        base.copy(),  # identical: t undefined
        1e6 + rng.normal(0.5, 0.2, 300),
        rng.normal(0.4, 0.3, 300),
        rng.normal(0.6, 0.1, 300),
        rng.normal(0.5, 0.2, 300),
        np.full(300, np.nan),
    ]
    values = np.array(rows)
    values[4:6, ::7] = np.nan  # two systems undefined on the same topics
    values[6, 5:40] = np.nan  # one on others
    values[7, :2] = [0.3, 0.7]  # one defined on two topics only
    first, second = np.triu_indices(values.shape[0], 1)
    ours = paired_tests(values, first, second, "t")
    for i, x, y in _pairs(values):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = stats.ttest_rel(x, y) if x.size >= 2 else None
        if theirs is None:
            assert np.isnan(ours.p_value[i]) and np.isnan(ours.statistic[i])
            continue
        np.testing.assert_allclose(ours.statistic[i], theirs.statistic, rtol=1e-10, equal_nan=True)
        np.testing.assert_allclose(ours.p_value[i], theirs.pvalue, rtol=1e-10, atol=1e-300, equal_nan=True)
        assert ours.topics[i] == x.size
