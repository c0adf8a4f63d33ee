"""How the meta-evaluation jobs grow with topics and with systems, beside the counting they sit on.

    python benchmarks/meta_growth.py [--big] [--repeat N] [--replicates R] [--sweep]

Each cell is :func:`workloads.table_with_predictions` (200 items a topic, hard predictions and
the score) with ten measures (:data:`TEN`); ``count+evaluate`` is ``fm.count(table).evaluate(TEN)``
and every job's time is also given as a ratio to it, measured in the same process:

- ``robustness``: ``fm.meta.robustness(s, pairs="all", detail=False)`` (every topic pair, the
  summary only: 10,000 topics are 50M pairs a measure);
- ``stability``: ``fm.meta.stability(table, measures=TEN, replicates=R)`` from the rows;
- ``strictness``, ``inconsistency``: ``fm.meta.strictness(s)``, ``fm.meta.inconsistency(s)``.

``--jobs`` times only some of them (e.g. ``--big --jobs robustness,strictness,inconsistency``:
stability keeps every row of a 200M-row cell).

Against topics at 100 systems (100, 1,000, and with ``--big`` 10,000) and against systems at
1,000 topics (10, 100, and with ``--big`` 1,000); the biggest cells are 200M rows (~6 GB). With
``--sweep`` also the 20M-row case counted at 101 thresholds, strictness and inconsistency run at
every threshold (``s.sel(threshold=th)``). Minimum of ``--repeat`` runs (stability: one run).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyarrow as pa  # noqa: E402
import workloads  # noqa: E402
from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402
from fastmetrics import meta  # noqa: E402

TEN = [
    "f1",
    "accuracy",
    "mcc",
    "k",
    "balanced_accuracy",
    "precision",
    "recall",
    "lam",
    "f_rs",
    "informedness",
]
ITEMS = 200
JOBS = ("robustness", "stability", "strictness", "inconsistency")


def header(names) -> list[str]:
    """The table's two heading lines."""
    cells = " | ".join(f"{job} (s, ratio)" for job in names)
    rule = "|---:|---:|---:|---:|" + "---:|" * len(names)
    return [f"| systems | topics | rows | count+evaluate (s) | {cells} |", rule]


def jobs(table, scores, replicates: int, names=JOBS) -> dict:
    """The jobs ``names`` as calls."""
    calls = {
        "robustness": lambda: meta.robustness(scores, pairs="all", detail=False),
        "stability": lambda: meta.stability(table, measures=TEN, replicates=replicates),
        "strictness": lambda: meta.strictness(scores),
        "inconsistency": lambda: meta.inconsistency(scores),
    }
    return {name: calls[name] for name in names}


def cell(n_systems: int, n_topics: int, repeat: int, replicates: int, names=JOBS) -> str:
    table = workloads.table_with_predictions(n_systems, n_topics, ITEMS)
    count_evaluate = lambda: fm.count(table).evaluate(TEN)  # noqa: E731
    scores = count_evaluate()
    base = best_of(count_evaluate, repeat)
    parts = []
    for name, job in jobs(table, scores, replicates, names).items():
        seconds = best_of(job, 1 if name == "stability" else repeat)
        parts.append(f"{seconds:.3f} ({seconds / base:.2f}x)")
    base = min(base, best_of(count_evaluate, repeat))  # the machine is shared: best of before and after
    rows = n_systems * n_topics * ITEMS
    line = f"| {n_systems:,} | {n_topics:,} | {rows / 1e6:,.0f}M | {base:.3f} | " + " | ".join(parts) + " |"
    print(line, flush=True)
    workloads.arrays.cache_clear()
    gc.collect()
    return line


def sweep(repeat: int) -> None:
    """The 20M-row case counted at 101 thresholds; strictness and inconsistency at each."""
    table = workloads.table_with_predictions(100, 1000, ITEMS)
    table = table.append_column("score", pa.array(workloads.arrays(100, 1000, ITEMS)[3]))
    count_evaluate = lambda: fm.count(table, thresholds=workloads.N_THRESHOLDS).evaluate(TEN)  # noqa: E731
    scores = count_evaluate()
    base = best_of(count_evaluate, repeat)
    levels = scores.coords["threshold"]
    for name, job in (("strictness", meta.strictness), ("inconsistency", meta.inconsistency)):
        seconds = best_of(lambda job=job: job(scores), repeat)  # every threshold, in one call
        print(
            f"# 101-threshold sweep, 100 systems x 1,000 topics: count+evaluate {base:.3f} s, {name} at each of "
            f"{len(levels)} thresholds in one call {seconds:.3f} s ({seconds / base:.2f}x, target <= 2x)",
            flush=True,
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--big", action="store_true", help="also 10,000 topics and 1,000 systems (200M rows)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per cell, the fastest kept (default 3)")
    parser.add_argument("--replicates", type=int, default=20, help="stability: random halvings (default 20)")
    parser.add_argument("--sweep", action="store_true", help="also the 101-threshold sweep of the 20M-row case")
    parser.add_argument("--jobs", default=",".join(JOBS), help="the jobs to time, comma-separated (default all)")
    args = parser.parse_args(argv)
    names = args.jobs.split(",")
    warm = workloads.table_with_predictions(5, 4, 20)
    for job in jobs(warm, fm.count(warm).evaluate(TEN), 2).values():
        job()  # compile (or load) the kernels first
    print(f"# meta-evaluation growth, min of {args.repeat} runs, stability {args.replicates} halvings", flush=True)
    print("\n".join(header(names)), flush=True)
    topics = (100, 1_000, 10_000) if args.big else (100, 1_000)
    systems = (10, 100, 1_000) if args.big else (10, 100)
    by_topics = [cell(100, t, args.repeat, args.replicates, names) for t in topics]
    by_systems = [by_topics[1] if s == 100 else cell(s, 1_000, args.repeat, args.replicates, names) for s in systems]
    print("\n## against topics (100 systems)\n" + "\n".join(header(names) + by_topics))
    print("\n## against systems (1,000 topics)\n" + "\n".join(header(names) + by_systems))
    if args.sweep:
        sweep(args.repeat)


if __name__ == "__main__":
    main()
