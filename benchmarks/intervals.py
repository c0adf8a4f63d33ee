"""Issue 17's targets, measured end to end.

1. Bootstrap intervals (2000 resamples, percentile) of 5 measures for W1's 101-threshold sweep
   (1.01M cells): ``t.evaluate(measures, ci=0.95)`` on the whole tensor, after a call on a slice
   that compiles the kernels (and builds the five measures' ufuncs). Beside it, what a user
   would otherwise run: ``scipy.stats.bootstrap`` (percentile, vectorized, paired) on each
   cell's items, timed on a sample of cells and extrapolated to all of them.
   And the command a user runs for it, end to end (a process reading W1 from Parquet, counting,
   the intervals, the output file written).
2. The item-paired bootstrap (1000 replicates) of SemEval-2016 A's 32 runs, all 496 pairs:
   ``fastmetrics.meta.item_tests`` from the run files (read from ``$FASTMETRICS_SHARED``).

    python benchmarks/intervals.py
"""

from __future__ import annotations

import contextlib
import glob
import os
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path
from unittest import mock

import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics.meta import item_tests  # noqa: E402

MEASURES = ["accuracy", "precision", "recall", "f1", "mcc"]
_SCIPY_CELLS = 20


def _scipy_intervals(counts):
    """The five measures' percentile intervals by scipy.stats.bootstrap on the cell's items."""
    import numpy as np
    from scipy.stats import bootstrap

    (tn, fp), (fn, tp) = counts
    gold = np.repeat([1, 0, 1, 0], [tp, fp, fn, tn])
    pred = np.repeat([1, 1, 0, 0], [tp, fp, fn, tn])

    def cells(g, p, axis):
        return (
            ((g == 1) & (p == 1)).sum(axis),
            ((g == 0) & (p == 1)).sum(axis),
            ((g == 1) & (p == 0)).sum(axis),
            ((g == 0) & (p == 0)).sum(axis),
        )

    def accuracy(g, p, axis=-1):
        return (g == p).mean(axis)

    def precision(g, p, axis=-1):
        tp_, fp_, _, _ = cells(g, p, axis)
        return tp_ / (tp_ + fp_)

    def recall(g, p, axis=-1):
        tp_, _, fn_, _ = cells(g, p, axis)
        return tp_ / (tp_ + fn_)

    def f1(g, p, axis=-1):
        tp_, fp_, fn_, _ = cells(g, p, axis)
        return 2 * tp_ / (2 * tp_ + fp_ + fn_)

    def mcc(g, p, axis=-1):
        tp_, fp_, fn_, tn_ = (c.astype(float) for c in cells(g, p, axis))
        return (tp_ * tn_ - fp_ * fn_) / np.sqrt((tp_ + fp_) * (tp_ + fn_) * (tn_ + fp_) * (tn_ + fn_))

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's warnings on cells with an undefined measure
        for statistic in (accuracy, precision, recall, f1, mcc):
            bootstrap(
                (gold, pred),
                statistic,
                paired=True,
                vectorized=True,
                n_resamples=2000,
                method="percentile",
                random_state=0,
            )


@contextlib.contextmanager
def compiling_intervals():
    """Small calls take the paths of large ones (shared draws, the quantile kernel): a warm-up
    on a slice compiles what the timed call runs."""
    from fastmetrics.measures import intervals

    with mock.patch.multiple(intervals, _SHARED_VALUES=0, _KERNEL_QUANTILES=0):
        yield


def main():
    table = workloads.table()
    tensor = fm.count(table, thresholds=101)
    part = fm.ConfusionTensor(tensor.counts[:1, :2], tensor.axes)
    with compiling_intervals():  # the kernels the whole tensor takes, compiled outside the timing
        part.evaluate(MEASURES, ci=0.95, resamples=20)
    start = time.perf_counter()
    tensor.evaluate(MEASURES, ci=0.95, resamples=2000, seed=0)
    seconds = time.perf_counter() - start
    cells = tensor.counts.size // 4
    sample = tensor.counts.reshape(-1, 2, 2)[:: cells // _SCIPY_CELLS][:_SCIPY_CELLS]
    start = time.perf_counter()
    for counts in sample:
        _scipy_intervals(counts)
    scipy_seconds = (time.perf_counter() - start) * cells / len(sample)
    print(
        f"TARGET cell intervals: {cells:,} cells of W1 x 5 measures x 2000 resamples in {seconds:.1f} s "
        f"(target <= 10 s); scipy.stats.bootstrap per cell {scipy_seconds:,.0f} s (extrapolated from "
        f"{len(sample)} cells) -> scipy/fastmetrics = {scipy_seconds / seconds:,.0f}x"
    )
    with tempfile.TemporaryDirectory() as work:  # what a user runs: the command, from a file to a file
        runs, out = os.path.join(work, "w1.parquet"), os.path.join(work, "intervals.parquet")
        pq.write_table(table, runs)
        command = [sys.executable, "-m", "fastmetrics", "evaluate", runs, "--measures", ",".join(MEASURES)]
        command += ["--thresholds", "101", "--ci", "0.95", "--out", out]
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        cli_seconds = time.perf_counter() - start
    print(
        f"END TO END fastmetrics evaluate w1.parquet --thresholds 101 --ci 0.95 (5 measures, read, count, "
        f"intervals, {cells * len(MEASURES):,} rows written): {cli_seconds:.1f} s"
    )
    shared = Path(os.environ.get("FASTMETRICS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
    root = shared / "data" / "external" / "semeval2016-task3-cqa"
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    gold = root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
    start = time.perf_counter()
    result = item_tests(runs, gold, measures=["accuracy", "f1"], method="item-bootstrap", resamples=1000, seed=0)
    seconds = time.perf_counter() - start
    pairs = result.summary.num_rows // 2
    print(
        f"TARGET item bootstrap: SemEval-2016 A, {len(runs)} runs, {pairs} pairs, 2 measures, 1000 replicates "
        f"in {seconds:.2f} s (target <= 10 s)"
    )


if __name__ == "__main__":
    main()
