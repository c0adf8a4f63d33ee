"""P1 (W1 as a Parquet folder of 8 files) counted with 1 and 2 Dask worker processes, against the
in-process path, in one run.

    python benchmarks/dask_scaling.py
"""

from __future__ import annotations

import os
import sys
import tempfile

import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402


def main():
    from distributed import Client, LocalCluster

    from fastmetrics import dask as fmd

    folder = tempfile.mkdtemp(prefix="fastmetrics-p1-")
    table = workloads.table()
    step = table.num_rows // 8
    for i in range(8):
        pq.write_table(table.slice(i * step, step), os.path.join(folder, f"part-{i}.parquet"), row_group_size=1 << 20)
    fm.count(folder, thresholds=101)
    local = best_of(lambda: fm.count(folder, thresholds=101))
    print("| path | workers | time (s) | rows/s | vs in-process |")
    print("|---|---:|---:|---:|---:|")
    rate = table.num_rows / local / 1e6
    print(f"| fastmetrics.count (in-process, numba threads) | - | {local:.2f} | {rate:.0f}M | 1.00 |")
    for workers in (1, 2):
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
        client = Client(cluster)
        fmd.count(folder, thresholds=101, client=client)
        seconds = best_of(lambda client=client: fmd.count(folder, thresholds=101, client=client))
        print(
            f"| fastmetrics.dask.count | {workers} | {seconds:.2f} | {table.num_rows / seconds / 1e6:.0f}M | "
            f"{seconds / local:.2f} |"
        )
        client.close()
        cluster.close()


if __name__ == "__main__":
    main()
