"""How fm.count's time grows: against rows (1M, 10M in memory; 100M streamed from Parquet with
--big) at 10,000 groups, and against groups (100 ... 1M) at 10M rows.

    python benchmarks/growth.py [--big] [--repeat 3]

Each cell is the minimum of ``--repeat`` runs of ``fm.count`` end to end (hard labels, and a
101-value grid). Expected: linear in rows; flat in groups until the counts (groups x 2 x 102
int64 per thread for the grid) leave the cache.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402

ROWS = (1_000_000, 10_000_000)
GROUPS = (100, 1_000, 10_000, 100_000, 1_000_000)


def row(label_rows, groups, source, repeat):
    hard = best_of(lambda: fm.count(source), repeat)
    grid = best_of(lambda: fm.count(source, thresholds=101), repeat)
    return f"| {label_rows} | {groups:,} | {hard:.4f} | {grid:.4f} | {rows_of(label_rows) / hard / 1e6:,.0f} | " \
           f"{rows_of(label_rows) / grid / 1e6:,.0f} |"


def rows_of(label) -> int:
    return int(label.replace(",", "").split()[0])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also 100M rows streamed from 10 Parquet files")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    fm.count(workloads.table_sized(200_000, 100), thresholds=101)
    fm.count(workloads.table_sized(200_000, 100))
    lines = ["| rows | groups | hard (s) | grid 101 (s) | hard Mrows/s | grid Mrows/s |", "|---:|---:|---:|---:|---:|---:|"]
    for n in ROWS:
        lines.append(row(f"{n:,}", 10_000, workloads.table_sized(n, 10_000), args.repeat))
        print(lines[-1], flush=True)
    for groups in GROUPS:
        if groups == 10_000:
            continue
        lines.append(row(f"{10_000_000:,}", groups, workloads.table_sized(10_000_000, groups), args.repeat))
        print(lines[-1], flush=True)
    if args.big:
        with tempfile.TemporaryDirectory() as folder:
            for i in range(10):
                pq.write_table(workloads.table_sized(10_000_000, 10_000, seed=100 + i),
                               os.path.join(folder, f"part-{i}.parquet"), row_group_size=1 << 20)
            lines.append(row(f"{100_000_000:,} (Parquet, streamed)", 10_000, folder, 1))
            print(lines[-1], flush=True)
    print("\n" + "\n".join(lines))


if __name__ == "__main__":
    main()
