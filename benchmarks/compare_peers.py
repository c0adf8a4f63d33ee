"""fastmetrics against the alternatives a user has, on the same data, in one run.

    python benchmarks/compare_peers.py                # everything (slow peers extrapolated)
    python benchmarks/compare_peers.py --quick        # fewer repetitions, smaller samples
    python benchmarks/compare_peers.py --only core --markdown-out table.md   # rows 1-5 only

Every ratio is against what a user calls -- ``fm.count`` end to end from the Arrow table (or the
Parquet file) -- measured in this run; the bare sweep kernel is an extra, informative line.
Times are the minimum of several runs. Workload W1: 10M rows, 10,000 (system, topic) groups,
int32 system/topic, bool gold, float32 scores; hard labels ``pred = score >= 0.5``; a 101-value
grid.

Rows (the ``task`` column; each task's ratio is against its fm.count row):

1. ``floor``: numpy sums of the four columns (system, topic, gold, score) -- reading them once.
2. ``hard``: ``fm.count(table)`` with a ``pred`` column, against DuckDB
   ``select system, topic, gold, pred, count(*) ... group by all`` on the registered Arrow table
   (result fetched as an Arrow table, inside the timing) and polars
   ``group_by([system, topic, gold, pred]).len()`` (``pl.from_arrow`` outside the timing).
3. ``grid101``: ``fm.count(table, thresholds=101)`` against DuckDB and polars building the
   101-bucket sweep histogram by (system, topic, gold, bucket), bucket = the number of grid
   values <= score computed as ``least(greatest(floor((score - lo) / step) + 1, 0), 101)``.
   That is an APPROXIMATION of the exact bucket, which fastmetrics settles against the stored
   threshold values (a score within rounding of a threshold may land one bucket off); and the
   peers stop at the histogram while fastmetrics returns the counts cumulated at every
   threshold.
4. ``parquet``: W1 written once as one Parquet file (1M-row row groups):
   ``fm.count(path, thresholds=101)`` against ``pq.read_table`` of the same four columns and
   DuckDB's histogram over ``read_parquet(path)``.
5. ``str ...`` / ``dict-pq ...``: the hard and grid counts with string system/topic ("s017",
   "t042"): plain strings in the Arrow table, and dictionary-encoded in a Parquet file
   (``use_dictionary=True``) read by ``fm.count(path)``; DuckDB on the same data. No target.
8.-10. ``ids ...``: W1 with string ids (``team007/run_primary``, ``Q1042_R6``, ``doc123``) and the
   duplicate check on (system, topic, item): ``fm.count`` of the Arrow table (hard and grid), of
   the Parquet file pyarrow writes by default (dictionary pages) and of the CSV file, against
   DuckDB's ``group by system, topic, gold, pred`` over the registered table, ``read_parquet`` and
   ``read_csv``, and polars' ``scan_csv().group_by()``. Targets: DuckDB/fm.count >= 2 (Arrow,
   Parquet); fm.count <= 1.2x the faster peer (CSV).
11. ``gold join`` (its own table): a runs table joined to a separate gold table by (topic, item)
   with string ids, once per id spelling of a real collection (``workloads.SPELLINGS``), 20
   systems x 100 topics x 1,000 judged items (``--join-systems 100`` for 10M rows), each system
   listing a topic's items in its own order: ``fm.count(runs, gold=gold)`` (hard predictions)
   against DuckDB's join + ``group by system, topic, gold, pred`` on the registered tables and
   polars' ``join().group_by().len()``. Targets: every spelling within 1.5x the fastest; DuckDB /
   fm.count >= 2 on every spelling (``--only join`` runs these rows alone).
6. (``--only all``) the other peers on the 101-value grid: numpy broadcasting per group, mmu,
   scikit-learn ``confusion_matrix`` per cell and PyCM per cell (extrapolated from a sample of
   cells), torchmetrics per group if torch is installed.
7. (``--only all``) ``exact``: ``fm.count(table, thresholds="exact")`` against scikit-learn
   ``confusion_matrix_at_thresholds`` per group.

Peers not installed are listed as skipped (``pip install -e '.[bench]'``; torch optional).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
import time
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

N_SYSTEMS, N_TOPICS, ITEMS = 100, 100, 1000
N_ROWS, N_GROUPS, K = N_SYSTEMS * N_TOPICS * ITEMS, N_SYSTEMS * N_TOPICS, workloads.N_THRESHOLDS
GRID = f"grid{K}"
COLUMNS = ["system", "topic", "gold", "score"]


class Table:
    """Rows of the result: (peer, task, seconds, note); one fm.count reference per task."""

    def __init__(self):
        self.rows, self.reference = [], {}

    def add(self, name, task, seconds, note="", reference=False):
        self.rows.append((name, task, seconds, note, reference))
        if reference:
            self.reference[task] = seconds
        return seconds

    def markdown(self) -> str:
        lines = ["| peer | task | time (s) | rows/s | peer / fm.count | note |", "|---|---|---:|---:|---:|---|"]
        for name, task, seconds, note, is_ref in self.rows:
            if seconds is None:
                lines.append(f"| {name} | {task} | – | – | – | {note} |")
                continue
            ref = self.reference.get(task)
            ratio = "1.00 (reference)" if is_ref else (f"{seconds / ref:,.2f}" if ref else "–")
            lines.append(f"| {name} | {task} | {seconds:,.4f} | {_rate(N_ROWS / seconds)} | {ratio} | {note} |")
        return "\n".join(lines)


def _rate(rows_per_second: float) -> str:
    m = rows_per_second / 1e6
    return f"{m:,.0f}M" if m >= 10 else f"{m:.2g}M"


def string_axes(table: pa.Table) -> pa.Table:
    """The table with system/topic as plain (not dictionary) strings: "s017", "t042"."""
    for name, prefix in (("system", "s"), ("topic", "t")):
        codes = table.column(name)
        labels = pc.binary_join_element_wise(prefix, pc.utf8_lpad(pc.cast(codes, pa.string()), 3, "0"), "")
        table = table.set_column(table.schema.get_field_index(name), name, labels)
    return table


def duckdb_queries(lo, step):
    """(hard, grid) SQL templates over ``{src}``; the bucket approximates the exact one."""
    hard = "select system, topic, gold, pred, count(*) as n from {src} group by all"
    bucket = f"least(greatest(floor((score - {lo!r}) / {step!r}) + 1, 0), {K})::integer"
    grid = f"select system, topic, gold, {bucket} as bucket, count(*) as n from {{src}} group by all"
    return hard, grid


def fetch(relation) -> pa.Table:
    """The whole result as an Arrow table (DuckDB >= 1.4 ``.arrow()`` is a lazy reader)."""
    if hasattr(relation, "to_arrow_table"):
        return relation.to_arrow_table()
    result = relation.arrow()
    return result.read_all() if isinstance(result, pa.RecordBatchReader) else result


def check(hard_table, system, topic, gold, score) -> str:
    """Untimed sanity check: fm.count's hard counts against a numpy bincount, and the grid counts
    summing to the items of each group at every threshold."""
    pred = score >= 0.5
    key = ((system.astype(np.int64) * N_TOPICS + topic) * 2 + gold) * 2 + pred
    expected = np.bincount(key, minlength=N_GROUPS * 4).reshape(N_SYSTEMS, N_TOPICS, 2, 2)
    hard = np.asarray(fm.count(hard_table).counts)
    grid = np.asarray(fm.count(hard_table.drop_columns(["pred"]), thresholds=K).counts)
    ok = (
        hard.shape == expected.shape
        and np.array_equal(hard, expected)
        and grid.shape == (N_SYSTEMS, N_TOPICS, K, 2, 2)
        and bool((grid.sum(axis=(-1, -2)) == ITEMS).all())
    )
    return "CHECK: fm.count hard counts == numpy bincount, grid counts sum to the items: " + (
        "OK" if ok else f"MISMATCH (shapes {hard.shape}, {grid.shape}) -- the timings may not compare like with like"
    )


def _fm_note(seconds, floor):
    return f"fm.count/floor = {seconds / floor:.2f}x"


def core(out: Table, repeat: int, folder: str) -> dict:
    """Rows 1-5; returns the figures the summary lines quote."""
    table = workloads.table()
    hard_table = table.append_column("pred", pc.greater_equal(table.column("score"), 0.5))
    system, topic, gold, score = workloads.w1()
    grid = threshold_grid(K, float(score.min()), float(score.max()))
    lo, step = float(grid[0]), float((grid[-1] - grid[0]) / (K - 1))
    fm.count(hard_table.slice(0, 200_000))
    fm.count(table.slice(0, 200_000), thresholds=K)  # compile (or load) the kernels first
    few = max(2, repeat // 2)
    f = {"check": check(hard_table, system, topic, gold, score)}

    # 1. the floor
    f["floor"] = floor = out.add(
        "column read (numpy sums of system, topic, gold, score): the floor",
        "floor",
        best_of(lambda: (system.sum(), topic.sum(), gold.sum(dtype=np.int64), score.sum()), repeat * 3),
    )
    # 2./3. fastmetrics end to end, and the bare kernel
    f["hard"] = best_of(lambda: fm.count(hard_table), repeat)
    out.add("fastmetrics fm.count(table), hard labels", "hard", f["hard"], _fm_note(f["hard"], floor), reference=True)
    f["grid"] = best_of(lambda: fm.count(table, thresholds=K), repeat)
    out.add(f"fastmetrics fm.count(table, thresholds={K})", GRID, f["grid"], _fm_note(f["grid"], floor), reference=True)
    group = system.astype(np.int64) * N_TOPICS + topic
    kernel = best_of(lambda: histogram_to_counts(sweep_histogram(group, gold, score, grid, N_GROUPS)), repeat)
    out.add(
        "fastmetrics sweep kernel alone (group codes made outside; informative)",
        GRID,
        kernel,
        f"kernel/floor = {kernel / floor:.2f}x",
    )

    # 4. Parquet
    path = os.path.join(folder, "w1.parquet")
    pq.write_table(table, path, row_group_size=1 << 20)
    f["read"] = out.add(
        "pyarrow pq.read_table of the same four columns",
        "parquet",
        best_of(lambda: pq.read_table(path, columns=COLUMNS), repeat),
    )
    f["parquet"] = best_of(lambda: fm.count(path, thresholds=K), repeat)
    out.add(
        f"fastmetrics fm.count('w1.parquet', thresholds={K})",
        "parquet",
        f["parquet"],
        f"fm.count/pq.read_table = {f['parquet'] / f['read']:.2f}x",
        reference=True,
    )

    # 5. string system/topic: plain strings in Arrow, dictionary-encoded in Parquet
    strings = string_axes(hard_table)
    string_path = os.path.join(folder, "w1-strings.parquet")
    pq.write_table(strings, string_path, row_group_size=1 << 20, use_dictionary=True)
    fm.count(strings.slice(0, 200_000)), fm.count(strings.slice(0, 200_000), thresholds=K)  # warm the string path
    f["str hard"] = out.add(
        "fastmetrics fm.count(table), string system/topic",
        "str hard",
        best_of(lambda: fm.count(strings), few),
        reference=True,
    )
    f["str grid"] = out.add(
        f"fastmetrics fm.count(table, thresholds={K}), string system/topic",
        f"str {GRID}",
        best_of(lambda: fm.count(strings, thresholds=K), few),
        reference=True,
    )
    f["dict hard"] = out.add(
        "fastmetrics fm.count('w1-strings.parquet'), dictionary pages",
        "dict-pq hard",
        best_of(lambda: fm.count(string_path), few),
        reference=True,
    )
    f["dict grid"] = out.add(
        f"fastmetrics fm.count('w1-strings.parquet', thresholds={K}), dictionary pages",
        f"dict-pq {GRID}",
        best_of(lambda: fm.count(string_path, thresholds=K), few),
        reference=True,
    )

    f["duck"] = _duckdb(out, repeat, few, hard_table, strings, path, string_path, lo, step)
    f["polars"] = _polars(out, repeat, hard_table, lo, step)
    return f


def _duckdb(out, repeat, few, hard_table, strings, path, string_path, lo, step) -> dict:
    try:
        import duckdb
    except ImportError:
        out.add("DuckDB", "hard", None, "not installed")
        return {}
    con = duckdb.connect()
    con.register("w1", hard_table)
    con.register("w1s", strings)
    hard, grid = duckdb_queries(lo, step)
    run = lambda q: fetch(con.sql(q))  # noqa: E731 - fetching the result is part of the task
    arrow, approx = "on the registered Arrow table, Arrow result fetched", "approximate bucket (see docstring)"
    found = {
        "hard": out.add(
            "DuckDB group by (system, topic, gold, pred)",
            "hard",
            best_of(lambda: run(hard.format(src="w1")), repeat),
            arrow,
        ),
        "grid": out.add(
            f"DuckDB {K}-bucket histogram group by (system, topic, gold, bucket)",
            GRID,
            best_of(lambda: run(grid.format(src="w1")), repeat),
            f"{arrow}; {approx}",
        ),
        "parquet": out.add(
            f"DuckDB {K}-bucket histogram from read_parquet('w1.parquet')",
            "parquet",
            best_of(lambda: run(grid.format(src=f"read_parquet('{path}')")), repeat),
            approx,
        ),
    }
    found["str hard"] = out.add(
        "DuckDB group by, string system/topic", "str hard", best_of(lambda: run(hard.format(src="w1s")), few), arrow
    )
    found["str grid"] = out.add(
        f"DuckDB {K}-bucket histogram, string system/topic",
        f"str {GRID}",
        best_of(lambda: run(grid.format(src="w1s")), few),
        approx,
    )
    src = f"read_parquet('{string_path}')"
    found["dict hard"] = out.add(
        "DuckDB group by from read_parquet('w1-strings.parquet')",
        "dict-pq hard",
        best_of(lambda: run(hard.format(src=src)), few),
    )
    found["dict grid"] = out.add(
        f"DuckDB {K}-bucket histogram from read_parquet('w1-strings.parquet')",
        f"dict-pq {GRID}",
        best_of(lambda: run(grid.format(src=src)), few),
        approx,
    )
    return found


def _polars(out, repeat, hard_table, lo, step) -> dict:
    try:
        import polars as pl
    except ImportError:
        out.add("polars", "hard", None, "not installed")
        return {}
    frame = pl.from_arrow(hard_table)  # conversion not timed
    keys = ["system", "topic", "gold", "pred"]
    untimed = "pl.from_arrow(table) made outside the timing"
    found = {
        "hard": out.add(
            "polars group_by(system, topic, gold, pred).len()",
            "hard",
            best_of(lambda: frame.group_by(keys).len(), repeat),
            untimed,
        )
    }
    bucket = ((pl.col("score") - lo) / step).floor().add(1).clip(0, K).cast(pl.Int32).alias("bucket")
    found["grid"] = out.add(
        f"polars {K}-bucket histogram group_by(system, topic, gold, bucket).len()",
        GRID,
        best_of(lambda: frame.group_by(["system", "topic", "gold", bucket]).len(), repeat),
        f"{untimed}; approximate bucket",
    )
    return found


def real_inputs(out: Table, repeat: int, folder: str) -> dict:
    """Rows 8-10: W1 as users have it -- string system, topic and item ids (the duplicate check on
    (system, topic, item) included) -- as an Arrow table, as Parquet written with pyarrow's
    defaults (dictionary pages) and as CSV, each against DuckDB (and polars for CSV) grouping the
    same rows by (system, topic, gold, pred) from the same source; and the Parquet file's rows
    shuffled (runs of one row), beside DuckDB, without a target."""
    import pyarrow.csv as pacsv

    table = workloads.table_with_string_ids()
    hard, grid = table.drop_columns(["score"]), table.drop_columns(["pred"])
    parquet, csv = os.path.join(folder, "w1-ids.parquet"), os.path.join(folder, "w1-ids.csv")
    pq.write_table(table, parquet)
    # the same rows in random order (runs of one row): no target, the rows' order varied
    shuffled = os.path.join(folder, "w1-ids-shuffled.parquet")
    pq.write_table(table.take(np.random.default_rng(3).permutation(table.num_rows)), shuffled)
    pacsv.write_csv(table, csv)
    fm.count(hard.slice(0, 300_000)), fm.count(grid.slice(0, 300_000), thresholds=K)  # compile first
    few = max(2, repeat // 2)
    # (figure, row, task, call, repetitions): fastmetrics end to end, each task's reference
    ours = [
        ("ids hard", "fm.count(table)", "ids hard", lambda: fm.count(hard), repeat),
        ("ids grid", f"fm.count(table, thresholds={K})", f"ids {GRID}", lambda: fm.count(grid, thresholds=K), repeat),
        ("ids parquet", "fm.count('w1-ids.parquet')", "ids parquet", lambda: fm.count(parquet), repeat),
        ("ids shuffled", "fm.count('w1-ids-shuffled.parquet')", "ids shuffled", lambda: fm.count(shuffled), few),
        ("ids csv", "fm.count('w1-ids.csv')", "ids csv", lambda: fm.count(csv), few),
    ]
    f = {
        key: out.add(f"fastmetrics {row}, string ids", task, best_of(call, n), reference=True)
        for key, row, task, call, n in ours
    }
    f["ids read_csv"] = out.add(
        "pyarrow read_csv of the same file", "ids csv", best_of(lambda: pacsv.read_csv(csv), few)
    )
    try:
        import duckdb
    except ImportError:
        out.add("DuckDB", "ids hard", None, "not installed")
    else:
        con = duckdb.connect()
        con.register("ids", hard)
        query, _ = duckdb_queries(0.0, 1.0)
        sources = [
            ("duck ids hard", "", "ids hard", "ids", repeat, "on the registered Arrow table"),
            ("duck ids parquet", "read_parquet ", "ids parquet", f"read_parquet('{parquet}')", repeat, ""),
            ("duck ids shuffled", "read_parquet ", "ids shuffled", f"read_parquet('{shuffled}')", few, "rows shuffled"),
            ("duck ids csv", "read_csv ", "ids csv", f"read_csv('{csv}')", few, ""),
        ]
        for key, reader, task, src, n, note in sources:
            timed = best_of(lambda src=src: fetch(con.sql(query.format(src=src))), n)
            f[key] = out.add(f"DuckDB {reader}group by (system, topic, gold, pred), string ids", task, timed, note)
    try:
        import polars as pl
    except ImportError:
        out.add("polars", "ids csv", None, "not installed")
    else:
        keys = ["system", "topic", "gold", "pred"]
        f["polars ids csv"] = out.add(
            "polars scan_csv().group_by(system, topic, gold, pred).len()",
            "ids csv",
            best_of(lambda: pl.scan_csv(csv).group_by(keys).len().collect(), max(2, repeat // 2)),
        )
    return f


def real_summary(f: dict) -> list[str]:
    """The TARGET lines of the real-inputs rows (issue 27)."""
    lines = []
    duck = f.get("duck ids hard")
    for kind, label in (("ids hard", "hard"), ("ids grid", GRID)):
        line = f"TARGET string ids, Arrow, {label}: fm.count {f[kind]:.4f} s"
        if duck:
            line += f", DuckDB group by {duck:.4f} s -> DuckDB/fm.count = {duck / f[kind]:.2f}x (target >= 2x)"
        lines.append(line)
    if f.get("duck ids parquet"):
        ratio = f["duck ids parquet"] / f["ids parquet"]
        lines.append(
            f"TARGET string ids, Parquet: fm.count {f['ids parquet']:.4f} s, DuckDB read_parquet group by "
            f"{f['duck ids parquet']:.4f} s -> DuckDB/fm.count = {ratio:.2f}x (target >= 2x)"
        )
    if f.get("duck ids shuffled"):
        lines.append(
            f"STRING IDS, rows shuffled (no target): fm.count {f['ids shuffled']:.4f} s, DuckDB read_parquet group by "
            f"{f['duck ids shuffled']:.4f} s -> DuckDB/fm.count = {f['duck ids shuffled'] / f['ids shuffled']:.2f}x"
        )
    peers = {k: f[k] for k in ("duck ids csv", "polars ids csv") if f.get(k)}
    if peers:
        best = min(peers, key=peers.get)
        lines.append(
            f"TARGET string ids, CSV: fm.count {f['ids csv']:.4f} s, fastest peer ({best.split()[0]}) "
            f"{peers[best]:.4f} s -> fm.count/peer = {f['ids csv'] / peers[best]:.2f}x (target <= 1.2x); "
            f"pyarrow read_csv alone {f['ids read_csv']:.4f} s"
        )
    return lines


JOIN_SHAPE = (20, 100, 1000)  # systems, topics, judged items a topic: 2M rows


def gold_join(repeat: int, systems: int) -> list[str]:
    """Rows 11: a runs table joined to a separate gold table by (topic, item), once per id spelling
    of real collections (:data:`workloads.SPELLINGS`): ``fm.count(runs, gold=gold)`` with hard
    predictions, against DuckDB's ``join ... using (topic, item)`` + ``group by system, topic,
    gold, pred`` on the registered Arrow tables and polars' ``join().group_by().len()``. Every
    system lists each topic's items in its own order. Each round times every spelling in turn
    (a slow spell of the machine falls on all of them); each figure is the median of the rounds
    after an untimed first one."""
    _, n_topics, n_items = JOIN_SHAPE
    rows = systems * n_topics * n_items
    data = {}
    for spelling in workloads.SPELLINGS:
        runs, gold = workloads.runs_and_gold(spelling, systems, n_topics, n_items, seed=5)
        data[spelling.name] = (runs.drop_columns(["score"]), gold)
    first_runs, first_gold = next(iter(data.values()))
    fm.count(first_runs.slice(0, 200_000), gold=first_gold, missing="negative")  # compile first
    try:
        import duckdb
    except ImportError:
        duckdb = None
    try:
        import polars as pl
    except ImportError:
        pl = None
    query = (
        "select r.system, r.topic, g.gold, r.pred, count(*) as n from runs r join gold g "
        "on r.topic = g.topic and r.item = g.item group by all"
    )
    frames = {name: (pl.from_arrow(runs), pl.from_arrow(gold)) for name, (runs, gold) in data.items()} if pl else {}
    keys = ["system", "topic", "gold", "pred"]
    times = {name: {"fm": [], "duck": [], "polars": []} for name in data}
    check = ""
    # round 0 is untimed: every tool's first call on each spelling's tables (allocations its
    # later calls reuse) falls outside the medians, for every tool alike
    for round_ in range(repeat + 1):
        for name, (runs, gold) in data.items():
            timed = {"fm": _timed(fm.count, runs, gold=gold)}
            if duckdb is not None:
                con = duckdb.connect()
                con.register("runs", runs)
                con.register("gold", gold)
                timed["duck"] = _timed(lambda con: fetch(con.sql(query)), con)
                if round_ == 0 and not check:
                    check = _join_check(fm.count(runs, gold=gold), fetch(con.sql(query)), name)
            if pl is not None:
                timed["polars"] = _timed(_polars_join, *frames[name], keys)
            for tool, seconds in timed.items():
                if round_ > 0:
                    times[name][tool].append(seconds)
    best = {name: {k: float(np.median(v)) if v else float("nan") for k, v in t.items()} for name, t in times.items()}
    fastest = min(b["fm"] for b in best.values())
    source = {s.name: s.source for s in workloads.SPELLINGS}
    lines = [
        f"Runs table + separate gold, string ids: {systems} systems x {n_topics} topics x {n_items:,} judged "
        f"items = {rows:,} rows, hard predictions; medians of {repeat} rounds",
        "",
        "| item ids | collection | fm.count ns/row | / fastest spelling | DuckDB join + group by ns/row | "
        "DuckDB / fm.count | polars join + group_by ns/row | polars / fm.count |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, b in best.items():
        lines.append(
            f"| {name} | {source[name]} | {b['fm'] / rows * 1e9:,.0f} | {b['fm'] / fastest:.2f} | "
            f"{b['duck'] / rows * 1e9:,.0f} | {b['duck'] / b['fm']:.2f} | {b['polars'] / rows * 1e9:,.0f} | "
            f"{b['polars'] / b['fm']:.2f} |"
        )
    slowest = max(best, key=lambda n: best[n]["fm"])
    lines += [
        "",
        f"TARGET gold join, spellings: slowest ({slowest}) / fastest = {best[slowest]['fm'] / fastest:.2f} "
        "(target <= 1.5)",
    ]
    if duckdb is not None:
        worst = min(best, key=lambda n: best[n]["duck"] / best[n]["fm"])
        ratio = best[worst]["duck"] / best[worst]["fm"]
        lines.append(
            f"TARGET gold join vs DuckDB: DuckDB join + group by / fm.count >= {ratio:.2f} on every spelling "
            f"(least: {worst}) (target >= 2)"
        )
        lines.append(check)
    return lines


def _polars_join(runs, gold, keys):
    return runs.join(gold, on=["topic", "item"]).group_by(keys).len()


def _timed(fn, *args, **kwargs) -> float:
    start = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - start


def _join_check(tensor, duck: pa.Table, name: str) -> str:
    """Untimed: fm.count's counts of each (system, topic) against DuckDB's group by."""
    frame = duck.to_pandas()
    expected = {}
    for system, topic, gold, pred, n in frame.itertuples(index=False):
        expected[(system, topic, int(gold), int(pred))] = n
    counts = np.asarray(tensor.counts)
    systems, topics = (list(tensor.coords[a]) for a in tensor.axes[:2])
    got = {
        (s, t, i, j): int(counts[a, b, i, j])
        for a, s in enumerate(systems)
        for b, t in enumerate(topics)
        for i in range(2)
        for j in range(2)
        if counts[a, b, i, j]
    }
    verdict = "OK" if got == expected else "MISMATCH -- the timings may not compare like with like"
    return f"CHECK gold join ({name}): fm.count counts == DuckDB join + group by: {verdict}"


def slow_peers(out: Table, quick: bool, sample: int):
    """Rows 6-7. With --quick the per-group loops run over a tenth of the groups, extrapolated."""
    _, _, gold, score = workloads.w1()
    grid = threshold_grid(K, float(score.min()), float(score.max()))
    table = workloads.table()
    fm.count(table.slice(0, 200_000), thresholds="exact")
    out.add(
        "fastmetrics fm.count(table, thresholds='exact')",
        "exact",
        best_of(lambda: fm.count(table, thresholds="exact"), 2),
        reference=True,
    )
    groups = N_GROUPS // 10 if quick else N_GROUPS
    scale = N_GROUPS / groups
    extrapolated = f"{groups:,} groups timed, extrapolated" if groups < N_GROUPS else ""

    def numpy_broadcast():
        for g in range(groups):
            s, y = score[g * ITEMS : (g + 1) * ITEMS], gold[g * ITEMS : (g + 1) * ITEMS].astype(bool)
            positive = s[:, None] >= grid[None, :]
            (positive & y[:, None]).sum(axis=0), positive.sum(axis=0)

    out.add(
        "numpy broadcasting per group (score[:, None] >= thresholds)",
        GRID,
        best_of(numpy_broadcast, 1) * scale,
        extrapolated,
    )
    try:
        import mmu

        y2 = gold.reshape(N_GROUPS, ITEMS).T.astype(np.int64)
        s2 = score.reshape(N_GROUPS, ITEMS).T.astype(np.float64)
        out.add(
            "mmu confusion_matrices_runs_thresholds (one run per group)",
            GRID,
            best_of(lambda: mmu.confusion_matrices_runs_thresholds(y2, s2, grid), 2),
            "arrays reshaped to (items, groups) outside the timing",
        )
    except ImportError:
        out.add("mmu", GRID, None, "not installed")
    _sklearn_and_pycm(out, sample, groups, gold, score, grid)
    _torchmetrics(out, gold, score, grid)


def _sklearn_and_pycm(out, sample, groups, gold, score, grid):
    try:
        from sklearn.metrics import confusion_matrix, confusion_matrix_at_thresholds
    except ImportError:
        out.add("scikit-learn", "exact", None, "not installed (confusion_matrix_at_thresholds needs >= 1.8)")
        return

    def sk_exact():
        for g in range(groups):
            confusion_matrix_at_thresholds(gold[g * ITEMS : (g + 1) * ITEMS], score[g * ITEMS : (g + 1) * ITEMS])

    out.add(
        "scikit-learn confusion_matrix_at_thresholds per group",
        "exact",
        best_of(sk_exact, 1) * N_GROUPS / groups,
        f"{groups:,} groups timed, extrapolated" if groups < N_GROUPS else "",
    )
    cells = np.random.default_rng(0).integers(0, N_GROUPS * grid.size, sample)

    def sk_cells():
        for c in cells:
            g, t = divmod(int(c), grid.size)
            confusion_matrix(
                gold[g * ITEMS : (g + 1) * ITEMS], score[g * ITEMS : (g + 1) * ITEMS] >= grid[t], labels=[0, 1]
            )

    out.add(
        "scikit-learn confusion_matrix per cell",
        GRID,
        best_of(sk_cells, 1) / sample * N_GROUPS * grid.size,
        f"{sample} cells timed, extrapolated to {N_GROUPS * grid.size:,}",
    )
    try:
        import pycm
    except ImportError:
        out.add("PyCM", GRID, None, "not installed")
        return
    few = cells[: max(20, sample // 10)]

    def pycm_cells():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for c in few:
                g, t = divmod(int(c), grid.size)
                sl = slice(g * ITEMS, (g + 1) * ITEMS)
                pycm.ConfusionMatrix(
                    actual_vector=gold[sl].tolist(), predict_vector=(score[sl] >= grid[t]).astype(np.int8).tolist()
                )

    out.add(
        "PyCM ConfusionMatrix per cell",
        GRID,
        best_of(pycm_cells, 1) / few.size * N_GROUPS * grid.size,
        f"{few.size} cells timed, extrapolated to {N_GROUPS * grid.size:,}",
    )


def _torchmetrics(out, gold, score, grid):
    try:
        import torch
        from torchmetrics.functional.classification import binary_precision_recall_curve
    except ImportError:
        out.add("torchmetrics binary_precision_recall_curve per group", GRID, None, "torch/torchmetrics not installed")
        return
    thresholds = torch.tensor(grid, dtype=torch.float32)

    def tm():
        for g in range(100):
            sl = slice(g * ITEMS, (g + 1) * ITEMS)
            binary_precision_recall_curve(
                torch.from_numpy(score[sl]), torch.from_numpy(gold[sl].astype(np.int64)), thresholds=thresholds
            )

    out.add(
        "torchmetrics binary_precision_recall_curve per group",
        GRID,
        best_of(tm, 1) * N_GROUPS / 100,
        "100 groups timed, extrapolated",
    )


def summary(f: dict) -> list[str]:
    duck, polars, lines = f["duck"], f["polars"], []
    floor = f["floor"]
    hard = f"TARGET hard: fm.count {f['hard']:.4f} s"
    if duck:
        ratio = duck["hard"] / f["hard"]
        hard += f", DuckDB group by {duck['hard']:.4f} s -> DuckDB/fm.count = {ratio:.2f}x (target >= 3x)"
    if polars:
        hard += f"; polars/fm.count = {polars['hard'] / f['hard']:.2f}x"
    lines.append(hard + f"; fm.count/floor = {f['hard'] / floor:.2f}x (target <= 3x)")
    grid = f"TARGET {GRID}: fm.count {f['grid']:.4f} s"
    if duck:
        grid += (
            f", DuckDB histogram {duck['grid']:.4f} s -> DuckDB/fm.count = {duck['grid'] / f['grid']:.2f}x "
            "(target >= 3x)"
        )
    if polars:
        grid += f"; polars/fm.count = {polars['grid'] / f['grid']:.2f}x"
    lines.append(grid + f"; fm.count/floor = {f['grid'] / floor:.2f}x (target <= 4x)")
    parquet = (
        f"TARGET parquet: fm.count(parquet) {f['parquet']:.4f} s, pq.read_table {f['read']:.4f} s -> "
        f"fm.count(parquet)/pq.read_table = {f['parquet'] / f['read']:.2f}x (target <= 2x)"
    )
    if duck:
        parquet += f"; DuckDB read_parquet histogram/fm.count = {duck['parquet'] / f['parquet']:.2f}x"
    lines.append(parquet)
    lines.append(f["check"])
    for kind, label in (("hard", "hard"), ("grid", GRID)):
        line = (
            f"STRINGS {label} (no target): fm.count int32 Arrow {f[kind]:.4f} s | string Arrow "
            f"{f['str ' + kind]:.4f} s | dictionary Parquet {f['dict ' + kind]:.4f} s"
        )
        if duck:
            line += (
                f"; DuckDB int32 {duck[kind]:.4f} s | string Arrow {duck['str ' + kind]:.4f} s | "
                f"dictionary Parquet {duck['dict ' + kind]:.4f} s"
            )
        lines.append(line)
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions and smaller samples")
    parser.add_argument(
        "--only",
        choices=("core", "ids", "join", "all"),
        default="all",
        help="core: rows 1-5 (floor, hard, grid, Parquet, strings) without the slow peers; "
        "ids: rows 8-10 only (string ids from Arrow, Parquet and CSV); join: rows 11 only (a runs "
        "table joined to a separate gold, every id spelling)",
    )
    parser.add_argument("--markdown-out", help="also write the table and the summary to this file")
    parser.add_argument(
        "--join-systems",
        type=int,
        default=JOIN_SHAPE[0],
        help=f"systems of the gold-join rows (default {JOIN_SHAPE[0]}: "
        f"{JOIN_SHAPE[0] * JOIN_SHAPE[1] * JOIN_SHAPE[2]:,} rows; 100 for 10M)",
    )
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 7
    out = Table()
    figures, real = None, None
    joined = []
    with tempfile.TemporaryDirectory() as folder:
        if args.only not in ("ids", "join"):
            figures = core(out, repeat, folder)
        if args.only != "join":
            real = real_inputs(out, repeat, folder)
    if args.only in ("all", "join"):
        joined = gold_join(repeat, args.join_systems)
    if args.only == "all":
        slow_peers(out, args.quick, 100 if args.quick else 400)
    import numba

    versions = [f"pyarrow {pa.__version__}"]
    for name in ("duckdb", "polars"):
        try:
            versions.append(f"{name} {__import__(name).__version__}")
        except ImportError:
            pass
    title = (
        f"# fastmetrics vs peers -- W1: {N_ROWS:,} rows, {N_GROUPS:,} groups, {K} thresholds; "
        f"min of {repeat} runs (string rows: {max(2, repeat // 2)})"
    )
    machine = (
        f"# {datetime.date.today()} | {platform.platform()} | {os.cpu_count()} cores | numba threads "
        f"{numba.get_num_threads()} | {' | '.join(versions)}"
    )
    lines = (summary(figures) if figures else []) + (real_summary(real) if real else [])
    table = [out.markdown(), ""] if out.rows else []
    text = "\n".join([title, machine, "", *table, *lines, *([""] + joined if joined else [])])
    print(text)
    if args.markdown_out:
        with open(args.markdown_out, "w") as fh:
            fh.write(text + "\n")


if __name__ == "__main__":
    main()
