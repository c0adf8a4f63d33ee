"""ROC AUC and average precision for every (system, topic) group of W1, end to end, against the
per-group calls a user has: scikit-learn's ``roc_auc_score`` / ``average_precision_score`` and,
when torch is installed, torchmetrics' ``binary_auroc`` / ``binary_average_precision``.

fastmetrics is timed as a user calls it: ``fm.count(table, thresholds="exact")`` on the Arrow
table, then ``.evaluate(["roc_auc", "average_precision"])``. The peers are timed on a sample of
groups (arrays sliced outside the timing) and extrapolated to the 10,000 groups; their values on
the sample are compared with fastmetrics' (to 1e-12 for scikit-learn).

    python benchmarks/areas.py [--groups 500]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402

ITEMS = 1000
MEASURES = ["roc_auc", "average_precision"]


def _fastmetrics(table):
    return fm.count(table, thresholds="exact").evaluate(MEASURES)


def _sklearn(gold, score, sample):
    from sklearn.metrics import average_precision_score, roc_auc_score

    out = np.empty((2, sample.size))
    start = time.perf_counter()
    for j, g in enumerate(sample):
        sl = slice(g * ITEMS, (g + 1) * ITEMS)
        out[0, j] = roc_auc_score(gold[sl], score[sl])
        out[1, j] = average_precision_score(gold[sl], score[sl])
    return time.perf_counter() - start, out


def _torchmetrics(gold, score, sample):
    try:
        import torch
        from torchmetrics.functional.classification import binary_auroc, binary_average_precision
    except ImportError:
        return None, None
    pieces = [
        (
            torch.from_numpy(score[g * ITEMS : (g + 1) * ITEMS].astype(np.float64)),
            torch.from_numpy(gold[g * ITEMS : (g + 1) * ITEMS].astype(np.int64)),
        )
        for g in sample
    ]
    out = np.empty((2, sample.size))
    start = time.perf_counter()
    for j, (s, y) in enumerate(pieces):
        out[0, j] = float(binary_auroc(s, y))
        out[1, j] = float(binary_average_precision(s, y))
    return time.perf_counter() - start, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", type=int, default=500, help="groups the peers are timed on (default 500)")
    args = parser.parse_args(argv)
    system, topic, gold, score = workloads.w1()
    table = workloads.table()
    n_groups = system.size // ITEMS
    _fastmetrics(table.slice(0, 200_000))  # compile outside the timing
    seconds = best_of(lambda: _fastmetrics(table), 3)
    values = _fastmetrics(table).values.reshape(2, -1)
    sample = np.random.default_rng(0).choice(n_groups, args.groups, replace=False)
    print(
        f"# W1: {system.size:,} rows, {n_groups:,} (system, topic) groups of {ITEMS} items; peers timed on "
        f"{args.groups} groups, extrapolated"
    )
    print("| what | seconds for all groups | vs fastmetrics |")
    print("|---|---:|---:|")
    print(f"| fastmetrics count(exact) + evaluate(roc_auc, average_precision) | {seconds:.3f} | 1.00 |")
    sk_seconds, sk = _sklearn(gold, score, sample)
    sk_all = sk_seconds * n_groups / args.groups
    sk_error = np.abs(sk - values[:, sample]).max()
    print(
        f"| scikit-learn roc_auc_score + average_precision_score per group | {sk_all:.2f} | {sk_all / seconds:.1f}x |"
    )
    tm_seconds, tm = _torchmetrics(gold, score, sample)
    lines = [
        f"TARGET areas: fastmetrics {seconds:.3f} s, scikit-learn per group {sk_all:.2f} s -> "
        f"scikit-learn/fastmetrics = {sk_all / seconds:.1f}x (target >= 20x); largest difference "
        f"{sk_error:.1e} (target <= 1e-12)"
    ]
    if tm_seconds is not None:
        tm_all = tm_seconds * n_groups / args.groups
        tm_error = np.abs(tm - values[:, sample]).max()
        print(
            f"| torchmetrics binary_auroc + binary_average_precision per group | {tm_all:.2f} | "
            f"{tm_all / seconds:.1f}x |"
        )
        lines.append(
            f"TARGET areas (torchmetrics): {tm_all:.2f} s -> torchmetrics/fastmetrics = "
            f"{tm_all / seconds:.1f}x (target >= 20x); largest difference {tm_error:.1e} "
            f"(torchmetrics returns float32: its rounding)"
        )
    else:
        print("| torchmetrics | not installed | |")
    print()
    print("\n".join(lines))


if __name__ == "__main__":
    main()
