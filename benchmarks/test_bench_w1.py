"""pytest-benchmark suites on W1: counting 10M rows x 101 thresholds, measures over 1.01M cells.

Run: ``pytest benchmarks/ --benchmark-only`` (not part of the test suite).
"""

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.count import histogram_to_counts, sweep_histogram, threshold_grid

import workloads


@pytest.fixture(scope="module")
def w1():
    system, topic, gold, score = workloads.w1()
    group = (system.astype(np.int64) * 100 + topic)
    grid = threshold_grid(workloads.N_THRESHOLDS, float(score.min()), float(score.max()))
    return group, gold, score, grid


@pytest.fixture(scope="module")
def w1_table():
    return workloads.table()


@pytest.fixture(scope="module")
def w1_counts(w1):
    group, gold, score, grid = w1
    hist = sweep_histogram(group, gold, score, grid, 10_000)
    return histogram_to_counts(hist).reshape(100, 100, grid.size, 2, 2)


def test_column_read_floor(benchmark, w1):
    """Reading the columns once (numpy sums over the same arrays): the floor for counting."""
    group, gold, score, _ = w1
    benchmark(lambda: (group.sum(), gold.sum(dtype=np.int64), score.sum()))


def test_count_w1_kernel(benchmark, w1):
    """The sweep kernel alone: 10M rows into 10,000 groups x 101 thresholds."""
    group, gold, score, grid = w1
    benchmark(lambda: histogram_to_counts(sweep_histogram(group, gold, score, grid, 10_000)))


def test_count_w1_from_arrow(benchmark, w1_table):
    """fm.count end to end from an Arrow table: validation, encoding, counting."""
    benchmark.pedantic(lambda: fm.count(w1_table, by=("system", "topic"), thresholds=101), rounds=3, iterations=1)


@pytest.mark.parametrize("name", ["accuracy", "precision", "recall", "f1", "mcc", "k", "proficiency"])
def test_measure_over_w1_cells(benchmark, w1_counts, name):
    c = w1_counts
    tp, fp, fn, tn = c[..., 1, 1], c[..., 0, 1], c[..., 1, 0], c[..., 0, 0]
    out = np.empty(tp.shape)
    benchmark(lambda: fm.compute(name, tp=tp, fp=fp, fn=fn, tn=tn, out=out, warn=False))


def test_all_measures_over_w1_cells(benchmark, w1_counts):
    """Every registered measure, one after the other, over the 1.01M cells."""
    c = w1_counts
    tp, fp, fn, tn = (np.ascontiguousarray(c[..., i, j], dtype=np.float64) for i, j in ((1, 1), (0, 1), (1, 0), (0, 0)))
    out = np.empty(tp.shape)
    names = fm.measures().column("name").to_pylist()

    def run():
        for name in names:
            fm.compute(name, tp=tp, fp=fp, fn=fn, tn=tn, out=out, warn=False)

    benchmark(run)
