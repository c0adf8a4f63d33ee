"""Side-by-side timings of fastmetrics and its peers on the same workload, in one run.

    python benchmarks/compare_peers.py            # W1 (10M rows), W0 for the slow peers
    python benchmarks/compare_peers.py --quick    # fewer repetitions and samples

Every row answers "how long to get the confusion counts of W1's 1.01M (system, topic, threshold)
cells" (binned rows) or "every distinct threshold of every (system, topic)" (exact rows). Peers too
slow for W1 run on W0 or on a sample of W1's cells and are extrapolated linearly to W1 (marked).
The ratio is the peer's time over fastmetrics' time for the same task, measured in this run.
Peers that are not installed are listed as skipped (``pip install -e '.[bench]'``; torch optional).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics.count import exact_counts, histogram_to_counts, sweep_histogram, threshold_grid  # noqa: E402

N_ROWS = 100 * 100 * 1000
N_GROUPS = 100 * 100
ITEMS = 1000


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and smaller samples")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    sample = 100 if args.quick else 400

    system, topic, gold, score = workloads.w1()
    group = system.astype(np.int64) * 100 + topic
    grid = threshold_grid(workloads.N_THRESHOLDS, float(score.min()), float(score.max()))
    rows = []

    def add(name, task, seconds, note=""):
        rows.append((name, task, seconds, note))

    # warm the kernels (numba cache) before timing
    histogram_to_counts(sweep_histogram(group[:1000], gold[:1000], score[:1000], grid, 1))
    exact_counts(group[:1000], gold[:1000], score[:1000], 1)

    floor = best_of(lambda: (group.sum(), gold.sum(dtype=np.int64), score.sum()), repeat * 3)
    add("column read (numpy sums, the floor)", "read", floor)
    fm_binned = best_of(lambda: histogram_to_counts(sweep_histogram(group, gold, score, grid, N_GROUPS)), repeat)
    add("fastmetrics sweep kernel", "binned", fm_binned)
    table = workloads.table()
    fm.count(table.slice(0, 1000), thresholds=3)
    fm_arrow = best_of(lambda: fm.count(table, thresholds=workloads.N_THRESHOLDS), max(2, repeat // 2))
    add("fastmetrics fm.count from Arrow (validate+encode+count)", "binned", fm_arrow)
    fm_exact = best_of(lambda: exact_counts(group, gold, score, N_GROUPS), repeat)
    add("fastmetrics exact sweep (every distinct score)", "exact", fm_exact)

    # numpy broadcasting, one group at a time (the natural hand-written version)
    def numpy_broadcast():
        out = np.empty((N_GROUPS, grid.size, 2, 2), np.int64)
        for g in range(N_GROUPS):
            s = score[g * ITEMS:(g + 1) * ITEMS]
            y = gold[g * ITEMS:(g + 1) * ITEMS].astype(bool)
            pred = s[:, None] >= grid[None, :]
            tp = (pred & y[:, None]).sum(axis=0)
            pp = pred.sum(axis=0)
            out[g, :, 1, 1] = tp
            out[g, :, 0, 1] = pp - tp
            out[g, :, 1, 0] = y.sum() - tp
            out[g, :, 0, 0] = ITEMS - y.sum() - pp + tp
        return out
    add("numpy broadcasting per group (score[:, None] >= thresholds)", "binned", best_of(numpy_broadcast, 1))

    try:
        import mmu

        y2 = gold.reshape(N_GROUPS, ITEMS).T.astype(np.int64)
        s2 = score.reshape(N_GROUPS, ITEMS).T.astype(np.float64)
        add("mmu confusion_matrices_runs_thresholds", "binned",
            best_of(lambda: mmu.confusion_matrices_runs_thresholds(y2, s2, grid), max(2, repeat // 2)))
    except ImportError:
        add("mmu confusion_matrices_runs_thresholds", "binned", None, "not installed")

    try:
        from sklearn.metrics import confusion_matrix, confusion_matrix_at_thresholds

        def sk_exact():
            for g in range(N_GROUPS):
                sl = slice(g * ITEMS, (g + 1) * ITEMS)
                confusion_matrix_at_thresholds(gold[sl], score[sl])
        add("scikit-learn confusion_matrix_at_thresholds per group", "exact", best_of(sk_exact, 1))

        rng = np.random.default_rng(0)
        cells = rng.integers(0, N_GROUPS * grid.size, sample)

        def sk_cells():
            for c in cells:
                g, t = divmod(int(c), grid.size)
                sl = slice(g * ITEMS, (g + 1) * ITEMS)
                confusion_matrix(gold[sl], score[sl] >= grid[t], labels=[0, 1])
        per_cell = best_of(sk_cells, 1) / sample
        add("scikit-learn confusion_matrix per cell", "binned", per_cell * N_GROUPS * grid.size,
            f"{sample} cells timed, x{N_GROUPS * grid.size // sample} extrapolated")
    except ImportError:
        add("scikit-learn", "binned", None, "not installed")

    try:
        import pycm

        rng = np.random.default_rng(1)
        cells = rng.integers(0, N_GROUPS * grid.size, max(20, sample // 10))

        def pycm_cells():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                for c in cells:
                    g, t = divmod(int(c), grid.size)
                    sl = slice(g * ITEMS, (g + 1) * ITEMS)
                    pycm.ConfusionMatrix(actual_vector=gold[sl].tolist(),
                                         predict_vector=(score[sl] >= grid[t]).astype(np.int8).tolist())
        per = best_of(pycm_cells, 1) / cells.size
        add("PyCM ConfusionMatrix per cell", "binned", per * N_GROUPS * grid.size,
            f"{cells.size} cells timed, extrapolated")
    except ImportError:
        add("PyCM", "binned", None, "not installed")

    try:
        import torch
        from torchmetrics.functional.classification import binary_precision_recall_curve

        thresholds = torch.tensor(grid, dtype=torch.float32)
        n_groups = 100

        def tm():
            for g in range(n_groups):
                sl = slice(g * ITEMS, (g + 1) * ITEMS)
                binary_precision_recall_curve(torch.from_numpy(score[sl]), torch.from_numpy(gold[sl].astype(np.int64)),
                                              thresholds=thresholds)
        add("torchmetrics binary_precision_recall_curve per group", "binned",
            best_of(tm, 1) * N_GROUPS / n_groups, f"{n_groups} groups timed, x{N_GROUPS // n_groups} extrapolated")
    except ImportError:
        add("torchmetrics binary_precision_recall_curve per group", "binned", None, "torch not installed")

    reference = {"binned": fm_binned, "exact": fm_exact, "read": fm_binned}
    print(f"# fastmetrics vs peers -- W1: {N_ROWS:,} rows, {N_GROUPS:,} groups, {grid.size} thresholds")
    print(f"# {datetime.date.today()} | {platform.platform()} | {platform.processor() or platform.machine()} | "
          f"{os.cpu_count()} cores | numba threads {__import__('numba').get_num_threads()}")
    print()
    print("| peer | task | time (s) | rows/s | peer / fastmetrics | note |")
    print("|---|---|---:|---:|---:|---|")
    for name, task, seconds, note in rows:
        if seconds is None:
            print(f"| {name} | {task} | – | – | – | {note} |")
            continue
        rate = N_ROWS / seconds
        ratio = seconds / reference[task]
        shown = "1.0 (reference)" if name.startswith("fastmetrics sweep kernel") or \
            name.startswith("fastmetrics exact") else f"{ratio:,.1f}"
        print(f"| {name} | {task} | {seconds:,.4f} | {rate / 1e6:,.0f}M | {shown} | {note} |")
    print()
    print(f"fastmetrics sweep kernel / column read = {fm_binned / floor:.2f}x "
          f"({N_ROWS / fm_binned / 1e6:.0f}M rows/s); exact sweep vs scikit-learn per group: "
          f"{next((s for n, _, s, _ in rows if 'confusion_matrix_at_thresholds' in n and s), float('nan')) / fm_exact:.1f}x")


if __name__ == "__main__":
    main()
