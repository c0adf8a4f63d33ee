"""How fm.count's time grows with rows and with groups.

    python benchmarks/growth.py [--quick] [--big] [--repeat N]

- against rows at 10,000 (system, topic) groups: 1M and 10M rows from an in-memory Arrow table;
  with ``--big`` also 100M rows streamed from a Parquet dataset of ten 10M-row files written to
  a temporary folder (~1.5 GB of disk, a few minutes: 100M rows are never held in memory);
- against groups at 10M rows: 100, 1k, 10k, 100k, 1M groups (10^ceil(e/2) systems x the rest
  topics for 10^e groups; items per group = rows / groups).

Each cell is ``fm.count`` end to end, hard labels (the bool ``pred`` column) and a 101-value grid
(``thresholds=101``), the minimum of ``--repeat`` runs (1 run for the streamed 100M rows). Data
from :func:`workloads.table_sized` (numpy, seeded). Expected: linear in rows; flat in groups
until the per-thread counts (groups x 2 x 102 int64 for the grid) leave the cache.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time

import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402

K = workloads.N_THRESHOLDS
ROWS = (1_000_000, 10_000_000)
GROUPS = (100, 1_000, 10_000, 100_000, 1_000_000)
HEADER = ["| rows | groups | hard (s) | grid101 (s) | Mrows/s hard | Mrows/s grid |", "|---:|---:|---:|---:|---:|---:|"]


def shape(groups: int) -> str:
    systems, topics = workloads.sized_shape(groups)
    return f"{systems:,} x {topics:,}"


def measure(label: str, n_rows: int, groups: int, source, repeat: int) -> str:
    hard = best_of(lambda: fm.count(source), repeat)
    grid = best_of(lambda: fm.count(source, thresholds=K), repeat)
    line = (
        f"| {label} | {groups:,} | {hard:.4f} | {grid:.4f} | {n_rows / hard / 1e6:,.0f} | {n_rows / grid / 1e6:,.0f} |"
    )
    print(line, flush=True)
    return line


def in_memory(n_rows: int, groups: int, repeat: int) -> str:
    table = workloads.table_sized(n_rows, groups)
    try:
        return measure(f"{n_rows:,}", n_rows, groups, table, repeat)
    finally:
        del table
        gc.collect()


def streamed(repeat: int) -> str:
    with tempfile.TemporaryDirectory(prefix="fastmetrics-growth-") as folder:
        start = time.perf_counter()
        for i in range(10):
            table = workloads.table_sized(10_000_000, 10_000, seed=100 + i)
            pq.write_table(table, os.path.join(folder, f"part-{i:02d}.parquet"), row_group_size=1 << 20)
            del table
        gc.collect()
        size = sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder))
        print(
            f"# 100M rows written as 10 Parquet files ({size / 2**30:.2f} GiB) in {time.perf_counter() - start:.0f} s",
            flush=True,
        )
        return measure("100,000,000 (Parquet, streamed)", 100_000_000, 10_000, folder, repeat)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2 runs per cell instead of 5")
    parser.add_argument("--big", action="store_true", help="also 100M rows streamed from 10 Parquet files")
    parser.add_argument("--repeat", type=int, help="runs per cell (default 5, 2 with --quick)")
    args = parser.parse_args(argv)
    repeat = args.repeat or (2 if args.quick else 5)
    warm = workloads.table_sized(200_000, 100)
    fm.count(warm), fm.count(warm, thresholds=K)  # compile (or load) the kernels first
    print(
        f"# fm.count growth, min of {repeat} runs; groups = systems x topics: "
        + ", ".join(f"{g:,} = {shape(g)}" for g in GROUPS),
        flush=True,
    )
    print("\n".join(HEADER), flush=True)
    by_rows = [in_memory(n, 10_000, repeat) for n in ROWS]
    if args.big:
        by_rows.append(streamed(1))
    ten_million = by_rows[ROWS.index(10_000_000)]
    by_groups = [ten_million if g == 10_000 else in_memory(10_000_000, g, repeat) for g in GROUPS]
    print("\n## against rows (10,000 groups)\n" + "\n".join(HEADER + by_rows))
    print("\n## against groups (10M rows in memory)\n" + "\n".join(HEADER + by_groups))


if __name__ == "__main__":
    main()
