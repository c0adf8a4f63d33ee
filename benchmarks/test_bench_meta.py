"""pytest-benchmark suites of issue 28: the meta-evaluation jobs on 100 systems x 1,000 topics x
200 items (20M rows, ten measures), with counting and evaluating the same rows beside them.

Run: ``pytest benchmarks/test_bench_meta.py --benchmark-only`` (not part of the test suite);
``meta_growth.py`` gives the ratios and how they grow.
"""

import pytest
import workloads
from meta_growth import ITEMS, TEN

import fastmetrics as fm
from fastmetrics import meta


@pytest.fixture(scope="module")
def case():
    return workloads.table_with_predictions(100, 1000, ITEMS)


@pytest.fixture(scope="module")
def scores(case):
    return fm.count(case).evaluate(TEN)


def test_count_evaluate_20m(benchmark, case):
    """What the jobs are measured against: fm.count(table).evaluate(ten measures)."""
    benchmark.pedantic(lambda: fm.count(case).evaluate(TEN), rounds=5, iterations=1, warmup_rounds=1)


def test_robustness_all_pairs_20m(benchmark, scores):
    """Every one of the 499,500 topic pairs, with the per-pair table (target <= 1.5x count+evaluate)."""
    benchmark.pedantic(lambda: meta.robustness(scores, pairs="all"), rounds=5, iterations=1, warmup_rounds=1)


def test_strictness_20m(benchmark, scores):
    """Strictness at the 50 default levels, every pair of the ten measures (target <= 2x)."""
    benchmark.pedantic(lambda: meta.strictness(scores), rounds=5, iterations=1, warmup_rounds=1)


def test_inconsistency_20m(benchmark, scores):
    """Inconsistency over the 4.95M comparisons of every pair of the ten measures (target <= 2x)."""
    benchmark.pedantic(lambda: meta.inconsistency(scores), rounds=5, iterations=1, warmup_rounds=1)


def test_stability_20m_500_halvings(benchmark, case):
    """Split-half stability, the issue's 500 random halvings (10^8 half-cells, ten measures on each)."""
    meta.stability(case, measures=TEN, replicates=2)  # the timed call's paths, parallel kernels included
    benchmark.pedantic(lambda: meta.stability(case, measures=TEN, replicates=500), rounds=1, iterations=1)
