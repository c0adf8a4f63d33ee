"""pytest-benchmark suites on W1: counting 10M rows x 101 thresholds, measures over 1.01M cells.

Run: ``pytest benchmarks/ --benchmark-only`` (not part of the test suite).
"""

import intervals
import numpy as np
import pytest
import workloads

import fastmetrics as fm
from fastmetrics.count import histogram_to_counts, sweep_histogram, threshold_grid


@pytest.fixture(scope="module")
def w1():
    system, topic, gold, score = workloads.w1()
    group = system.astype(np.int64) * 100 + topic
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


def test_column_read_floor(benchmark):
    """Reading the four columns once (numpy sums of system, topic, gold, score): the floor for
    counting, as compare_peers.py measures it."""
    system, topic, gold, score = workloads.w1()
    benchmark(lambda: (system.sum(), topic.sum(), gold.sum(dtype=np.int64), score.sum()))


def test_count_w1_kernel(benchmark, w1):
    """The sweep kernel alone: 10M rows into 10,000 groups x 101 thresholds."""
    group, gold, score, grid = w1
    benchmark(lambda: histogram_to_counts(sweep_histogram(group, gold, score, grid, 10_000)))


def test_fm_count_w1_grid101_arrow(benchmark, w1_table):
    """fm.count end to end from an Arrow table: validation, encoding, counting (101 thresholds)."""
    fm.count(w1_table.slice(0, 200_000), thresholds=101)
    benchmark.pedantic(lambda: fm.count(w1_table, thresholds=101), rounds=7, iterations=1)


@pytest.fixture(scope="module")
def w1_hard():
    import pyarrow.compute as pc

    table = workloads.table()
    return table.append_column("pred", pc.greater_equal(table.column("score"), 0.5))


def test_fm_count_w1_hard_arrow(benchmark, w1_hard):
    """fm.count end to end, hard labels (pred = score >= 0.5)."""
    fm.count(w1_hard.slice(0, 200_000))
    benchmark.pedantic(lambda: fm.count(w1_hard), rounds=7, iterations=1)


def test_duckdb_w1_hard_groupby(benchmark, w1_hard):
    """The same hard counts by DuckDB: group by (system, topic, gold, pred) on the registered Arrow
    table, the result fetched as an Arrow table."""
    duckdb = pytest.importorskip("duckdb")
    from compare_peers import duckdb_queries, fetch

    query, _ = duckdb_queries(0.0, 1.0)
    con = duckdb.connect()
    con.register("w1", w1_hard)
    benchmark.pedantic(lambda: fetch(con.sql(query.format(src="w1"))), rounds=7, iterations=1)


def test_duckdb_w1_grid101_histogram(benchmark, w1_table, w1):
    """DuckDB building the 101-bucket sweep histogram (group by system, topic, gold, bucket; the
    bucket computed from the even grid's lo/step, an approximation of fastmetrics' exact one)."""
    duckdb = pytest.importorskip("duckdb")
    from compare_peers import duckdb_queries, fetch

    grid = w1[3]
    _, query = duckdb_queries(float(grid[0]), float((grid[-1] - grid[0]) / (grid.size - 1)))
    con = duckdb.connect()
    con.register("w1", w1_table)
    benchmark.pedantic(lambda: fetch(con.sql(query.format(src="w1"))), rounds=5, iterations=1)


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


def test_bootstrap_intervals_w1(benchmark, w1_table):
    """Issue 17: 95 % bootstrap intervals (2000 resamples) of 5 measures on all 1.01M cells of a
    101-threshold sweep of W1 (benchmarks/intervals.py puts scipy.stats.bootstrap beside it)."""
    tensor = fm.count(w1_table, thresholds=101)
    names = ["accuracy", "precision", "recall", "f1", "mcc"]
    with intervals.compiling_intervals():
        fm.ConfusionTensor(tensor.counts[:1, :2], tensor.axes).evaluate(names, ci=0.95, resamples=20)
    benchmark.pedantic(lambda: tensor.evaluate(names, ci=0.95, resamples=2000, seed=0), rounds=3, iterations=1)


def test_exact_sweep_w1(benchmark, w1):
    """Every distinct score of every (system, topic): 10M rows, ~10M output cells."""
    try:
        from fastmetrics.count import exact_counts
    except ImportError:
        pytest.skip("fastmetrics.count.exact_counts is gone (see test_fm_count_w1_exact_arrow)")

    group, gold, score, _ = w1
    benchmark.pedantic(lambda: exact_counts(group, gold, score, 10_000), rounds=5, iterations=1, warmup_rounds=1)


def test_fm_count_w1_exact_arrow(benchmark, w1_table):
    """fm.count end to end with thresholds='exact': every distinct score of every group."""
    fm.count(w1_table.slice(0, 200_000), thresholds="exact")
    benchmark.pedantic(lambda: fm.count(w1_table, thresholds="exact"), rounds=3, iterations=1)


TEN = [
    "accuracy",
    "precision",
    "recall",
    "f1",
    "mcc",
    "k",
    "cohen_kappa",
    "balanced_accuracy",
    "jaccard",
    "proficiency",
]


@pytest.fixture(scope="module")
def p1(tmp_path_factory):
    import pyarrow.parquet as pq

    path = tmp_path_factory.mktemp("p1") / "w1.parquet"
    pq.write_table(workloads.table(), path, row_group_size=1 << 20)
    return str(path)


def test_pq_read_table_w1(benchmark, p1):
    """pyarrow reading the four columns of W1's Parquet file: the Parquet floor."""
    import pyarrow.parquet as pq

    benchmark.pedantic(lambda: pq.read_table(p1, columns=["system", "topic", "gold", "score"]), rounds=7, iterations=1)


def test_fm_count_w1_grid101_parquet(benchmark, p1):
    """fm.count from W1's Parquet file, 101 thresholds (target: <= 2x pq.read_table)."""
    fm.count(p1, thresholds=101)
    benchmark.pedantic(lambda: fm.count(p1, thresholds=101), rounds=7, iterations=1)


def test_p1_parquet_to_tidy_ten_measures(benchmark, p1):
    """P1 (W1 as Parquet) -> counts with 101 thresholds -> 10 measures -> tidy Arrow (10.1M rows)."""
    run = lambda: fm.count(p1, thresholds=workloads.N_THRESHOLDS).evaluate(TEN).to_arrow()  # noqa: E731
    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)


@pytest.fixture(scope="module")
def semeval_scores():
    import glob
    import os
    from pathlib import Path

    shared = Path(os.environ.get("FASTMETRICS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    root = shared / "data" / "external" / "semeval2016-task3-cqa"
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    gold = root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
    tensor = fm.count(runs, gold=str(gold))
    names = [
        n for n in fm.measures().column("name").to_pylist() if n not in ("tp", "fp", "fn", "tn", "n", "prevalence")
    ]
    return tensor.evaluate(names[:40])


def test_meta_sa_40_measures(benchmark, semeval_scores):
    """Strictness + robustness (1000 topic pairs) + inconsistency, 40 measures, SemEval subtask A."""
    from fastmetrics import meta

    def run():
        meta.strictness(semeval_scores)
        meta.robustness(semeval_scores, pairs=1000)
        meta.inconsistency(semeval_scores)

    benchmark.pedantic(run, rounds=3, iterations=1, warmup_rounds=1)


def test_stability_w1_500_halvings(benchmark):
    """Split-half stability, 500 random halvings of W1 (10M rows), four measures."""
    from fastmetrics import meta

    table = workloads.table_with_predictions()
    # the warm-up takes the timed call's paths (a slice under 65,536 rows would count serially and
    # leave the parallel kernels to be loaded inside the timing)
    meta.stability(table, measures=["accuracy", "f1", "mcc", "k"], replicates=2)
    benchmark.pedantic(
        lambda: meta.stability(table, measures=["accuracy", "f1", "mcc", "k"], replicates=500), rounds=1, iterations=1
    )


def test_cold_start_evaluate(benchmark, tmp_path):
    """`fastmetrics evaluate` on a 100-row file in a fresh process, numba's cache warm (see
    cold_start.py for an empty cache)."""
    import subprocess
    import sys

    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    path = tmp_path / "small.parquet"
    pq.write_table(
        pa.table(
            {
                "system": ["a"] * 50 + ["b"] * 50,
                "topic": ["t"] * 100,
                "gold": rng.random(100) < 0.3,
                "pred": rng.random(100) < 0.4,
            }
        ),
        path,
    )
    cmd = [sys.executable, "-m", "fastmetrics.cli", "evaluate", str(path)]
    subprocess.run(cmd, check=True, capture_output=True)
    benchmark.pedantic(lambda: subprocess.run(cmd, check=True, capture_output=True), rounds=5, iterations=1)
