"""Issue 45's targets, measured end to end on what a user calls.

1. 100 systems x 1,000 topics (100 items each: 10M rows) x 10 measures: every pairwise test (the
   paired t-test of the 4,950 pairs of every measure, Holm-corrected) plus Friedman's test and
   Nemenyi's (``fm.board.compare``), against ``fm.count`` + ``evaluate`` of the same rows.
   TARGET: tests <= 2x count + evaluate.
2. DeLong's interval of ROC AUC over W1's 10,000 (system, topic) groups (10M rows):
   ``t.evaluate("roc_auc", ci=0.95, method="delong")`` on the exact sweep, against the exact
   sweep itself (``fm.count(table, thresholds="exact")``). TARGET: DeLong <= 2x the sweep.

Each pair of timings is interleaved and repeated; the best of each is kept (a shared machine's
noise only ever adds). Kernels are compiled (or read from numba's cache) by a first call on a
small slice.

    python benchmarks/compare.py
"""

from __future__ import annotations

import os
import sys
import time
import warnings

import numpy as np
import pyarrow as pa

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics import meta  # noqa: E402

MEASURES = [
    "f1",
    "mcc",
    "k",
    "accuracy",
    "precision",
    "recall",
    "balanced_accuracy",
    "fbeta(beta=2)",
    "specificity",
    "npv",
]
REPEAT = 5


def many_topics(n_systems=100, n_topics=1000, n_items=100, seed=1) -> pa.Table:
    """100 systems x 1,000 topics x 100 items: hard predictions ``score >= 0.5`` of W1's generator."""
    system, topic, gold, score = workloads.arrays(n_systems, n_topics, n_items, seed)
    return pa.table({"system": system, "topic": topic, "gold": gold.astype(bool), "pred": score >= 0.5})


def _best(pairs: dict, repeat: int = REPEAT) -> dict:
    """The best of ``repeat`` timings of each callable, the callables interleaved."""
    times = {k: [] for k in pairs}
    for _ in range(repeat):
        for name, fn in pairs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {k: min(v) for k, v in times.items()}


def tests_against_counting() -> None:
    table = many_topics()
    small = many_topics(6, 20, 50)

    def count_evaluate(t=table):
        return fm.count(t).evaluate(MEASURES)

    def all_tests(scores):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            meta.significance(scores, method="t", correction="holm")
            fm.board.compare(scores, posthoc="nemenyi")

    all_tests(count_evaluate(small))  # compiles (or loads) every kernel
    scores = count_evaluate()
    best = _best({"count + evaluate": count_evaluate, "tests": lambda: all_tests(scores)})
    ratio = best["tests"] / best["count + evaluate"]
    print(
        f"100 systems x 1,000 topics x 10 measures (10M rows): count + evaluate {best['count + evaluate']:.3f} s; "
        f"t-tests of 49,500 pairs (Holm) + Friedman + Nemenyi {best['tests']:.3f} s"
    )
    print(f"TARGET tests / (count + evaluate) <= 2: {ratio:.2f} {'met' if ratio <= 2 else 'NOT met'}")


def delong_against_sweep() -> None:
    table = workloads.table()
    workloads_small = workloads.table(4, 4, 200)
    fm.count(workloads_small, thresholds="exact").evaluate("roc_auc", ci=0.95, method="delong")
    holder = {}

    def sweep():
        holder["t"] = fm.count(table, thresholds="exact")

    sweep()

    def delong():
        holder["t"].evaluate("roc_auc", ci=0.95, method="delong")

    best = _best({"exact sweep": sweep, "delong": delong}, repeat=3)
    ratio = best["delong"] / best["exact sweep"]
    print(
        f"W1 (10M rows, 10,000 groups): exact sweep {best['exact sweep']:.3f} s; ROC AUC with DeLong's "
        f"interval on it {best['delong']:.3f} s"
    )
    print(f"TARGET delong / exact sweep <= 2: {ratio:.2f} {'met' if ratio <= 2 else 'NOT met'}")


if __name__ == "__main__":
    np.seterr(all="ignore")
    tests_against_counting()
    delong_against_sweep()
