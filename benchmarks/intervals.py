"""Issue 17's targets, measured end to end.

1. Bootstrap intervals (2000 resamples, percentile) of 5 measures for W1's 101-threshold sweep
   (1.01M cells): ``t.evaluate(measures, ci=0.95)`` on the whole tensor, after a call on a slice
   that compiles the kernels (and builds the five measures' ufuncs).
2. The item-paired bootstrap (1000 replicates) of SemEval-2016 A's 32 runs, all 496 pairs:
   ``fastmetrics.meta.item_tests`` from the run files (read from ``$FASTMETRICS_SHARED``).

    python benchmarks/intervals.py
"""

from __future__ import annotations

import glob
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics.meta import item_tests  # noqa: E402

MEASURES = ["accuracy", "precision", "recall", "f1", "mcc"]


def main():
    table = workloads.table()
    tensor = fm.count(table, thresholds=101)
    part = fm.ConfusionTensor(tensor.counts[:1, :2], tensor.axes)
    part.evaluate(MEASURES, ci=0.95, resamples=20)  # compile outside the timing
    start = time.perf_counter()
    tensor.evaluate(MEASURES, ci=0.95, resamples=2000, seed=0)
    seconds = time.perf_counter() - start
    print(
        f"TARGET cell intervals: {tensor.counts.size // 4:,} cells of W1 x 5 measures x 2000 resamples in "
        f"{seconds:.1f} s (target <= 10 s)"
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
