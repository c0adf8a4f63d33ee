"""fastmetrics against the alternatives a user has, on the same data, in one run.

    python benchmarks/compare_peers.py            # everything (slow peers extrapolated)
    python benchmarks/compare_peers.py --quick    # fewer repetitions, smaller samples
    python benchmarks/compare_peers.py --only core --markdown-out table.md

Every ratio is against what a user calls -- ``fm.count`` end to end from the Arrow table (or the
Parquet file) -- measured in this run; the bare kernel is an extra, informative line. Times are
the minimum of several runs. Workload W1: 10M rows, 10,000 (system, topic) groups, int32
system/topic, bool gold, float32 scores; hard labels ``pred = score >= 0.5``; a 101-value grid.

DuckDB and polars count the same things with ``group by``: hard labels by (system, topic, gold,
pred); the grid as the 101-bucket histogram by (system, topic, gold, bucket) -- the number of
grid values <= score, computed as ``floor((score - lo) / step) + 1`` clipped to [0, 101], an
approximation of the bucket fastmetrics settles exactly against the stored threshold values.
fastmetrics returns the whole counts tensor (cumulated at every threshold), they the histogram.
Peers not installed are listed as skipped (``pip install -e '.[bench]'``; torch optional).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics.count import histogram_to_counts, sweep_histogram, threshold_grid  # noqa: E402

N_ROWS, N_GROUPS, ITEMS, K = 100 * 100 * 1000, 100 * 100, 1000, workloads.N_THRESHOLDS


class Table:
    """Rows of the result: (name, task, seconds, reference task, note)."""

    def __init__(self):
        self.rows, self.reference = [], {}

    def add(self, name, task, seconds, note="", reference=False):
        self.rows.append((name, task, seconds, note))
        if reference:
            self.reference[task] = seconds
        return seconds

    def markdown(self) -> str:
        lines = ["| peer | task | time (s) | rows/s | peer / fm.count | note |", "|---|---|---:|---:|---:|---|"]
        for name, task, seconds, note in self.rows:
            if seconds is None:
                lines.append(f"| {name} | {task} | – | – | – | {note} |")
                continue
            ref = self.reference.get(task)
            ratio = "1.0 (reference)" if seconds == ref else (f"{seconds / ref:,.2f}" if ref else "–")
            lines.append(f"| {name} | {task} | {seconds:,.4f} | {N_ROWS / seconds / 1e6:,.0f}M | {ratio} | {note} |")
        return "\n".join(lines)


def string_axes(table: pa.Table) -> pa.Table:
    """W1 with system/topic as plain strings ("s017", "t042")."""
    systems = pa.array([f"s{i:03d}" for i in range(100)])
    topics = pa.array([f"t{i:03d}" for i in range(100)])
    return table.set_column(0, "system", systems.take(table.column("system"))).set_column(
        1, "topic", topics.take(table.column("topic")))


def duckdb_queries(lo, step):
    hard = "select system, topic, gold, pred, count(*) as n from {src} group by all"
    bucket = f"least(greatest(floor((score - {lo!r}) / {step!r}) + 1, 0), {K})::integer"
    grid = f"select system, topic, gold, {bucket} as bucket, count(*) as n from {{src}} group by all"
    return hard, grid


def core(out: Table, repeat: int, folder: str):
    table = workloads.table()
    hard_table = table.append_column("pred", pc.greater_equal(table.column("score"), 0.5))
    system, topic, gold, score = workloads.w1()
    grid = threshold_grid(K, float(score.min()), float(score.max()))
    lo, step = float(grid[0]), float((grid[-1] - grid[0]) / (K - 1))
    fm.count(hard_table.slice(0, 200_000))
    fm.count(table.slice(0, 200_000), thresholds=K)  # compile (or load) the kernels first

    floor = best_of(lambda: (system.sum(), topic.sum(), gold.sum(dtype=np.int64), score.sum()), repeat * 3)
    out.add("column read (numpy sums of the four columns: the floor)", "floor", floor)
    fm_hard = out.add("fastmetrics fm.count(table), hard labels", "hard",
                      best_of(lambda: fm.count(hard_table), repeat), reference=True)
    fm_grid = out.add(f"fastmetrics fm.count(table, thresholds={K})", f"grid{K}",
                      best_of(lambda: fm.count(table, thresholds=K), repeat), reference=True)
    group = system.astype(np.int64) * 100 + topic
    out.add("fastmetrics sweep kernel alone (codes already made; informative)", f"grid{K}",
            best_of(lambda: histogram_to_counts(sweep_histogram(group, gold, score, grid, N_GROUPS)), repeat))

    path = os.path.join(folder, "w1.parquet")
    pq.write_table(table, path, row_group_size=1 << 20)
    columns = ["system", "topic", "gold", "score"]
    read = out.add("pyarrow pq.read_table of the same columns", "parquet",
                   best_of(lambda: pq.read_table(path, columns=columns), repeat))
    fm_parquet = out.add(f"fastmetrics fm.count('w1.parquet', thresholds={K})", "parquet",
                         best_of(lambda: fm.count(path, thresholds=K), repeat), reference=True)

    strings = string_axes(hard_table)
    string_path = os.path.join(folder, "w1-strings.parquet")
    pq.write_table(strings, string_path, row_group_size=1 << 20, use_dictionary=True)
    out.add("fastmetrics fm.count(table), string system/topic, hard", "strings",
            best_of(lambda: fm.count(strings), max(2, repeat // 2)), reference=True)
    out.add(f"fastmetrics fm.count(table, thresholds={K}), string system/topic", "strings",
            best_of(lambda: fm.count(strings, thresholds=K), max(2, repeat // 2)))
    out.add("fastmetrics fm.count(dictionary-encoded Parquet), hard", "strings",
            best_of(lambda: fm.count(string_path), max(2, repeat // 2)))

    targets = {"floor": floor, "read": read, "hard": fm_hard, "grid": fm_grid, "parquet": fm_parquet}
    duck = _duckdb(out, repeat, hard_table, strings, path, string_path, lo, step)
    _polars(out, repeat, hard_table, lo, step)
    return targets, duck


def _duckdb(out, repeat, hard_table, strings, path, string_path, lo, step):
    try:
        import duckdb
    except ImportError:
        out.add("DuckDB", "hard", None, "not installed")
        return {}
    con = duckdb.connect()
    con.register("w1", hard_table)
    con.register("w1s", strings)
    hard, grid = duckdb_queries(lo, step)
    run = lambda q: con.sql(q).to_arrow_table()  # noqa: E731 - fetching the result is part of the task
    found = {
        "hard": out.add("DuckDB group by (system, topic, gold, pred) on the Arrow table", "hard",
                        best_of(lambda: run(hard.format(src="w1")), repeat)),
        "grid": out.add(f"DuckDB {K}-bucket histogram on the Arrow table", f"grid{K}",
                        best_of(lambda: run(grid.format(src="w1")), repeat)),
        "parquet": out.add(f"DuckDB {K}-bucket histogram from the Parquet file", "parquet",
                           best_of(lambda: run(grid.format(src=f"read_parquet('{path}')")), repeat)),
    }
    out.add("DuckDB group by, string system/topic, hard", "strings",
            best_of(lambda: run(hard.format(src="w1s")), max(2, repeat // 2)))
    out.add(f"DuckDB {K}-bucket histogram, string system/topic", "strings",
            best_of(lambda: run(grid.format(src="w1s")), max(2, repeat // 2)))
    out.add("DuckDB group by from the dictionary-encoded Parquet, hard", "strings",
            best_of(lambda: run(hard.format(src=f"read_parquet('{string_path}')")), max(2, repeat // 2)))
    return found


def _polars(out, repeat, hard_table, lo, step):
    try:
        import polars as pl
    except ImportError:
        out.add("polars", "hard", None, "not installed")
        return
    frame = pl.from_arrow(hard_table)  # conversion not timed
    keys = ["system", "topic", "gold", "pred"]
    out.add("polars group_by(system, topic, gold, pred).len()", "hard",
            best_of(lambda: frame.group_by(keys).len(), repeat), "DataFrame made outside the timing")
    bucket = ((pl.col("score") - lo) / step).floor().add(1).clip(0, K).cast(pl.Int32).alias("bucket")
    out.add(f"polars {K}-bucket histogram", f"grid{K}",
            best_of(lambda: frame.group_by(["system", "topic", "gold", bucket]).len(), repeat),
            "DataFrame made outside the timing")


def slow_peers(out: Table, sample: int):
    system, topic, gold, score = workloads.w1()
    grid = threshold_grid(K, float(score.min()), float(score.max()))
    table = workloads.table()
    out.add("fastmetrics fm.count(table, thresholds='exact')", "exact",
            best_of(lambda: fm.count(table, thresholds="exact"), 2), reference=True)

    def numpy_broadcast():
        for g in range(N_GROUPS):
            s, y = score[g * ITEMS:(g + 1) * ITEMS], gold[g * ITEMS:(g + 1) * ITEMS].astype(bool)
            positive = s[:, None] >= grid[None, :]
            (positive & y[:, None]).sum(axis=0), positive.sum(axis=0)
    out.add("numpy broadcasting per group (score[:, None] >= thresholds)", f"grid{K}", best_of(numpy_broadcast, 1))
    try:
        import mmu

        y2 = gold.reshape(N_GROUPS, ITEMS).T.astype(np.int64)
        s2 = score.reshape(N_GROUPS, ITEMS).T.astype(np.float64)
        out.add("mmu confusion_matrices_runs_thresholds", f"grid{K}",
                best_of(lambda: mmu.confusion_matrices_runs_thresholds(y2, s2, grid), 2), "arrays reshaped untimed")
    except ImportError:
        out.add("mmu", f"grid{K}", None, "not installed")
    _sklearn_and_pycm(out, sample, gold, score, grid)
    _torchmetrics(out, gold, score, grid)


def _sklearn_and_pycm(out, sample, gold, score, grid):
    try:
        from sklearn.metrics import confusion_matrix, confusion_matrix_at_thresholds
    except ImportError:
        out.add("scikit-learn", "exact", None, "not installed")
        return

    def sk_exact():
        for g in range(N_GROUPS):
            confusion_matrix_at_thresholds(gold[g * ITEMS:(g + 1) * ITEMS], score[g * ITEMS:(g + 1) * ITEMS])
    out.add("scikit-learn confusion_matrix_at_thresholds per group", "exact", best_of(sk_exact, 1))
    cells = np.random.default_rng(0).integers(0, N_GROUPS * grid.size, sample)

    def sk_cells():
        for c in cells:
            g, t = divmod(int(c), grid.size)
            confusion_matrix(gold[g * ITEMS:(g + 1) * ITEMS], score[g * ITEMS:(g + 1) * ITEMS] >= grid[t], labels=[0, 1])
    out.add("scikit-learn confusion_matrix per cell", f"grid{K}", best_of(sk_cells, 1) / sample * N_GROUPS * grid.size,
            f"{sample} cells timed, extrapolated")
    try:
        import pycm
    except ImportError:
        out.add("PyCM", f"grid{K}", None, "not installed")
        return
    few = cells[: max(20, sample // 10)]

    def pycm_cells():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in few:
                g, t = divmod(int(c), grid.size)
                sl = slice(g * ITEMS, (g + 1) * ITEMS)
                pycm.ConfusionMatrix(actual_vector=gold[sl].tolist(),
                                     predict_vector=(score[sl] >= grid[t]).astype(np.int8).tolist())
    out.add("PyCM ConfusionMatrix per cell", f"grid{K}", best_of(pycm_cells, 1) / few.size * N_GROUPS * grid.size,
            f"{few.size} cells timed, extrapolated")


def _torchmetrics(out, gold, score, grid):
    try:
        import torch
        from torchmetrics.functional.classification import binary_precision_recall_curve
    except ImportError:
        out.add("torchmetrics binary_precision_recall_curve per group", f"grid{K}", None, "torch not installed")
        return
    thresholds = torch.tensor(grid, dtype=torch.float32)

    def tm():
        for g in range(100):
            sl = slice(g * ITEMS, (g + 1) * ITEMS)
            binary_precision_recall_curve(torch.from_numpy(score[sl]), torch.from_numpy(gold[sl].astype(np.int64)),
                                          thresholds=thresholds)
    out.add("torchmetrics binary_precision_recall_curve per group", f"grid{K}", best_of(tm, 1) * N_GROUPS / 100,
            "100 groups timed, extrapolated")


def summary(targets, duck) -> list[str]:
    t, lines = targets, []
    if duck:
        lines.append(f"TARGET hard: fm.count {t['hard']:.4f} s, DuckDB group by {duck['hard']:.4f} s -> "
                     f"DuckDB/fm.count = {duck['hard'] / t['hard']:.2f}x (target >= 3x); "
                     f"fm.count/floor = {t['hard'] / t['floor']:.2f}x (target <= 3x)")
        lines.append(f"TARGET grid{K}: fm.count {t['grid']:.4f} s, DuckDB histogram {duck['grid']:.4f} s -> "
                     f"DuckDB/fm.count = {duck['grid'] / t['grid']:.2f}x (target >= 3x); "
                     f"fm.count/floor = {t['grid'] / t['floor']:.2f}x (target <= 4x)")
    lines.append(f"TARGET parquet: fm.count(parquet) {t['parquet']:.4f} s, pq.read_table {t['read']:.4f} s -> "
                 f"{t['parquet'] / t['read']:.2f}x (target <= 2x)")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and smaller samples")
    parser.add_argument("--only", choices=("core", "all"), default="all", help="core: W1 rows against DuckDB/polars")
    parser.add_argument("--markdown-out", help="also write the table to this file")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    out = Table()
    with tempfile.TemporaryDirectory() as folder:
        targets, duck = core(out, repeat, folder)
    if args.only == "all":
        slow_peers(out, 100 if args.quick else 400)
    import numba

    text = "\n".join([
        f"# fastmetrics vs peers -- W1: {N_ROWS:,} rows, {N_GROUPS:,} groups, {K} thresholds; min of {repeat} runs",
        f"# {datetime.date.today()} | {platform.platform()} | {os.cpu_count()} cores | numba threads "
        f"{numba.get_num_threads()} | pyarrow {pa.__version__}", "", out.markdown(), "", *summary(targets, duck)])
    print(text)
    if args.markdown_out:
        with open(args.markdown_out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
