"""Peak memory of streaming Parquet counting: P10 (10M rows) against P100 (100M rows).

    python benchmarks/memory_p100.py [--folder /tmp/fastmetrics-p100]

Generates, on demand, W1-shaped Parquet datasets with the same 10,000 (system, topic) groups and
10x more items per group in P100 (ten 10M-row files with different seeds), then counts each with
101 thresholds in a fresh process and prints its peak resident set size. Counting streams the
files by record batch, so the peak should not grow with the number of rows.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402

PROBE = """
import resource, time, fastmetrics as fm
start = time.perf_counter()
t = fm.count({path!r}, thresholds=101)
elapsed = time.perf_counter() - start
print(int(t.counts[..., 0, :, :].sum()), elapsed, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def generate(folder: str, files: int) -> str:
    os.makedirs(folder, exist_ok=True)
    for i in range(files):
        path = os.path.join(folder, f"part-{i:03d}.parquet")
        if not os.path.exists(path):
            pq.write_table(workloads.table(seed=100 + i), path, row_group_size=1 << 20)
    return folder


def probe(path: str):
    out = subprocess.run([sys.executable, "-c", PROBE.format(path=path)], capture_output=True, text=True, check=True)
    rows, elapsed, rss_kb = out.stdout.split()
    return int(rows), float(elapsed), int(rss_kb) / 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default="/tmp/fastmetrics-p100")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    p10 = generate(os.path.join(args.folder, "p10"), 1)
    p100 = generate(os.path.join(args.folder, "p100"), 10)
    print(f"# datasets ready in {time.perf_counter() - start:.0f} s under {args.folder}")
    probe(p10)  # warm numba's cache
    print("| dataset | rows | count time (s) | rows/s | peak RSS (MiB) |")
    print("|---|---:|---:|---:|---:|")
    for name, path in (("P10", p10), ("P100", p100)):
        rows, elapsed, rss = probe(path)
        print(f"| {name} | {rows:,} | {elapsed:.2f} | {rows / elapsed / 1e6:.0f}M | {rss:,.0f} |")


if __name__ == "__main__":
    main()
