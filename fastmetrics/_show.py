"""Result objects as a person reads them: the compact text of ``repr``/``str`` and the rows their
notebook view (:mod:`fastmetrics._html`) shows, with every number written by
:mod:`fastmetrics._numbers`.

A long table shows its first and last rows around a ``...`` line, then how many rows it has (as
pandas does); an interval sits beside its value (``0.9192 [0.9100, 0.9300]``). A leaderboard's
view (:func:`board_view`) is the one the command line prints and ``--out`` writes: one row per
system, best first, then the baselines.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from . import _numbers

MAX_ROWS = 20
# a meta-evaluation summary's main statistic, and whether its view puts the highest first
MAIN_STATISTICS = {"value": True, "mean": True, "swap_rate": False}
NOTES = "fastmetrics.notes"  # schema metadata: a view's footnotes


def interval_columns(names: list) -> dict:
    """Column -> (low column, high column) of its interval, for the columns that have one.

    The bounds are found by the names fastmetrics gives them: ``ci_low``/``ci_high`` after
    ``value`` (tidy scores), ``<measure> ci_low``/``<measure> ci_high`` (wide scores) and
    ``<column>_low``/``<column>_high`` (leaderboards: ``macro_low``, ``rank_high``).

    Parameters
    ----------
    names : list of str
        A table's column names.

    Returns
    -------
    dict
    """
    found = {}
    for name in names:
        pairs = [(f"{name} ci_low", f"{name} ci_high"), (f"{name}_low", f"{name}_high")]
        if name == "value":
            pairs.insert(0, ("ci_low", "ci_high"))
        for low, high in pairs:
            if low in names and high in names:
                found[name] = (low, high)
                break
    return found


def shown_rows(n_rows: int, max_rows: int = MAX_ROWS) -> list:
    """The row numbers a view shows: all of them, or the first and last halves of ``max_rows``
    with ``None`` where the ``...`` line goes.

    Parameters
    ----------
    n_rows : int
    max_rows : int, default 20

    Returns
    -------
    list of int or None
    """
    if n_rows <= max_rows:
        return list(range(n_rows))
    head = max_rows - max_rows // 2
    return list(range(head)) + [None] + list(range(n_rows - max_rows // 2, n_rows))


def size_line(table: pa.Table, shown: list) -> str:
    """``[600 rows x 4 columns]`` under a view that left rows out, else an empty string."""
    if None not in shown:
        return ""
    return f"[{table.num_rows:,} rows x {table.num_columns} columns]"


def display_cells(table: pa.Table, shown: list, digits: int = _numbers.DECIMALS) -> tuple[list, list]:
    """The columns a view shows (the interval bounds folded into their values' cells) and the
    text of each shown row (``None`` for the ``...`` line)."""
    names = table.column_names
    bounds = interval_columns(names)
    hidden = {c for pair in bounds.values() for c in pair}
    columns = [c for c in names if c not in hidden]
    picked = [i for i in shown if i is not None]  # only the rows shown: a view of 10M cells reads 20
    rows = dict(zip(picked, table.take(pa.array(picked, pa.int64())).to_pylist()))
    out = []
    for i in shown:
        if i is None:
            out.append(None)
            continue
        row = rows[i]
        cells = []
        for c in columns:
            text = _numbers.cell(row[c], digits)
            if c in bounds and row[bounds[c][0]] is not None and row[c] is not None:
                text = _numbers.interval(row[c], row[bounds[c][0]], row[bounds[c][1]])
            cells.append(text)
        out.append(cells)
    return columns, out


def table_text(table: pa.Table, title: str, note: str = "", max_rows: int = MAX_ROWS) -> str:
    """A table as aligned text under ``title``: numbers right-aligned, the rest left-aligned.

    Parameters
    ----------
    table : pyarrow.Table
    title : str
        The first line.
    note : str, optional
        A last line (what the view leaves out, where the rest is).
    max_rows : int, default 20
        Rows shown; a longer table shows its first and last rows around ``...``.

    Returns
    -------
    str
    """
    shown = shown_rows(table.num_rows, max_rows)
    columns, rows = display_cells(table, shown)
    numeric = [_is_number(table.schema.field(c).type) for c in columns]
    widths = [max([len(c)] + [len(r[j]) for r in rows if r is not None]) for j, c in enumerate(columns)]

    def line(cells):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(cells, widths, numeric)).rstrip()

    lines = [title, line(columns)] if columns else [title]
    lines += [line(["..." for _ in columns]) if r is None else line(r) for r in rows]
    lines += [text for text in (size_line(table, shown), notes_of(table), note) if text]
    return "\n".join(lines)


def _is_number(kind) -> bool:
    return pa.types.is_integer(kind) or pa.types.is_floating(kind)


def sorted_by(table: pa.Table, column: str, descending: bool = True) -> pa.Table:
    """``table`` sorted by a float column, undefined values (NaN, null) last."""
    values = table.column(column).to_pylist()
    sign = -1 if descending else 1
    order = sorted(range(len(values)), key=lambda i: _sort_key(values[i], sign))
    return table.take(pa.array(order, pa.int64()))


def _sort_key(x, sign: int) -> tuple:
    undefined = x is None or (isinstance(x, float) and math.isnan(x))
    return (undefined, 0.0 if undefined else sign * x)


def board_view(summary: pa.Table, system: str = "system") -> pa.Table:
    """A leaderboard table as people read it: one row per system, best first, then the baselines.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary (one row per system and measure).
    system : str, default "system"
        The summary's system column (named after the column playing the system).

    Returns
    -------
    pyarrow.Table
        ``rank, system`` (the system column keeping its name; a baseline's rank reads
        ``baseline``, and a system scoring exactly as a baseline on every measure is marked ``*``
        after its name, with a footnote in the schema's metadata: :func:`notes_of`), ``tier``
        (by the first measure's tests) when the board has tiers, then per measure ``<m> macro``
        (with its interval and the rank interval when the board has them), ``<m> micro`` and
        ``<m> topics``; ranked by the first measure.
    """
    measures, order, cells, twins = board_rows(summary, system)
    first = measures[0]
    out: dict = {"rank": [], system: []}
    tiers = "tier" in summary.column_names
    if tiers:
        out["tier"] = []
    for key in order:
        r = cells[key][first]
        out["rank"].append(_rank_text(r) if key[0] == "system" else "baseline")
        out[system].append(str(key[1]) + (" *" if key in twins else ""))
        if tiers:
            out["tier"].append(r.get("tier"))
    for m in measures:
        column = [cells[key].get(m, {}) for key in order]
        out[f"{m} macro"] = [_with_bounds(c.get("macro"), c.get("macro_low"), c.get("macro_high")) for c in column]
        out[f"{m} micro"] = [_with_bounds(c.get("micro"), c.get("micro_low"), c.get("micro_high")) for c in column]
        out[f"{m} topics"] = [c.get("topics") for c in column]
    notes = twin_notes(twins)
    return pa.table(out).replace_schema_metadata({NOTES: notes} if notes else None)


def board_rows(summary: pa.Table, system: str = "system") -> tuple:
    """A leaderboard's rows in the order people read them: systems by rank, then the baselines.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary.
    system : str, default "system"

    Returns
    -------
    measures : list of str
        In the board's order; the first ranks.
    order : list of tuple
        ``(kind, system)`` keys, best first, the baselines last.
    cells : dict
        key -> measure -> the summary's row.
    twins : dict
        key of a system -> the baseline it scores exactly as (macro and micro of every measure).
    """
    rows = summary.to_pylist()
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    cells: dict = {}
    for r in rows:
        cells.setdefault((r["kind"], r[system]), {})[r["measure"]] = r
    first = measures[0]
    systems = sorted(
        (k for k in cells if k[0] == "system"),
        key=lambda k: (cells[k][first]["rank"] is None, cells[k][first]["rank"] or 0),
    )
    baselines = [k for k in cells if k[0] != "system"]
    twins = {k: t for k in systems if (t := _baseline_twin(cells, k, baselines, measures))}
    return measures, systems + baselines, cells, twins


def twin_notes(twins: dict) -> str:
    """The footnote of :func:`board_rows`'s twins: which systems score as which baseline."""
    named: dict = {}
    for key, base in twins.items():
        named.setdefault(base, []).append(str(key[1]))
    return "\n".join(f"* scores exactly as the {b} baseline on every measure: {', '.join(n)}" for b, n in named.items())


def notes_of(table: pa.Table) -> str:
    """The footnotes a view carries (:func:`board_view`'s marks), one a line, or ''."""
    meta = table.schema.metadata or {}
    return meta.get(NOTES.encode(), b"").decode()


def _baseline_twin(by_system: dict, key, baselines: list, measures: list):
    """The baseline a system scores exactly as (macro and micro of every measure), if any: a run
    that predicts one class everywhere is a baseline whatever its name."""

    def same(a, b) -> bool:
        return a == b or (a is not None and b is not None and math.isnan(a) and math.isnan(b))

    for base in baselines:
        pairs = [(by_system[key].get(m, {}), by_system[base].get(m, {})) for m in measures]
        if all(same(a.get(f), b.get(f)) for a, b in pairs for f in ("macro", "micro")) and any(
            a.get("macro") is not None and not math.isnan(a["macro"]) for a, _ in pairs
        ):
            return str(base[1])
    return None


def _rank_text(row) -> str:
    low, high = row.get("rank_low"), row.get("rank_high")
    rank = _numbers.cell(row["rank"])
    return rank if low is None or low == high else f"{rank} {_numbers.bounds(low, high, _numbers.count)}"


def _with_bounds(value, low, high) -> str:
    if value is None or low is None or value != value:
        return _numbers.cell(value)
    return _numbers.interval(value, low, high)


def _label(x) -> str:
    """A label as written: a real number (a threshold) with up to 6 significant digits."""
    return _numbers.short(x) if isinstance(x, (float, np.floating)) else str(x)


def labels_text(name: str, labels, shown: int = 4) -> str:
    """An axis and a few of its labels: ``system: sys00, sys01, sys02, ..., sys19 (20)``.

    Parameters
    ----------
    name : str
    labels : sequence
        Indexable, with a length (a numpy array is not copied).
    shown : int, default 4
        Labels written before ``...`` and the last one.

    Returns
    -------
    str
    """
    n = len(labels)
    words = [_label(x) for x in labels[: min(n, shown)]]
    if n == shown + 1:
        words.append(_label(labels[-1]))
    elif n > shown:
        words += ["...", _label(labels[-1])]
    return f"{name}: {', '.join(words)} ({n:,})"


def result_view(summary: pa.Table, detail: pa.Table | None, system: str | None = None) -> tuple:
    """What a meta-evaluation result's ``repr`` and notebook view show.

    - A leaderboard (columns ``kind``, ``rank``, ``measure``): :func:`board_view`.
    - A table over levels (strictness: ``..., level, value``): one row per measure (and label of
      the other key columns), the value at five of the levels -- the first, the quartiles, the
      last -- and the mean over all of them, highest mean first.
    - Any other: its rows sorted by the main statistic (``value``, else ``mean``, highest first;
      else ``swap_rate``, lowest first), undefined values last.

    Parameters
    ----------
    summary : pyarrow.Table
    detail : pyarrow.Table or None
    system : str, optional
        A leaderboard's system column (default: its first column).

    Returns
    -------
    table : pyarrow.Table
    title : str
    note : str
        What the view leaves out and where it is.
    """
    names = summary.column_names
    title = (
        f"{summary.num_rows:,} rows"
        if detail is None
        else (f"{summary.num_rows:,} rows; detail: {detail.num_rows:,} rows (.detail)")
    )
    if summary.num_rows == 0:
        return summary, title, ""
    if {"kind", "rank", "measure"} <= set(names):
        view = board_view(summary, system or names[0])
        first = summary.column("measure")[0].as_py()
        kinds = summary.column("kind").to_pylist()
        systems = len({r for r, k in zip(summary.column(system or names[0]).to_pylist(), kinds) if k == "system"})
        title = f"Leaderboard of {systems:,} systems, ranked by {first} (macro mean over topics)"
        return view, title, ".summary holds the tidy table"
    if {"level", "value"} <= set(names):
        return _levels_view(summary), title, ".summary holds every level"
    main = next((c for c in MAIN_STATISTICS if c in names), None)
    if main is None or not pa.types.is_floating(summary.schema.field(main).type):
        return summary, title, ""
    highest = MAIN_STATISTICS[main]
    return sorted_by(summary, main, highest), title, f"sorted by {main}, {'highest' if highest else 'lowest'} first"


def _levels_view(summary: pa.Table) -> pa.Table:
    """A table over levels as one row per key: the value at five levels and the mean."""
    keys = [c for c in summary.column_names if c not in ("level", "value")]
    rows = summary.to_pylist()
    levels = sorted({r["level"] for r in rows})
    picked = sorted({levels[round(q * (len(levels) - 1))] for q in (0, 0.25, 0.5, 0.75, 1)})
    grouped: dict = {}
    for r in rows:
        grouped.setdefault(tuple(r[k] for k in keys), {})[r["level"]] = r["value"]
    out: dict = {k: [key[i] for key in grouped] for i, k in enumerate(keys)}
    for level in picked:
        out[f"at {_numbers.parameter(level)}"] = pa.array([v.get(level) for v in grouped.values()], pa.float64())
    out["mean"] = pa.array([_mean(v.values()) for v in grouped.values()], pa.float64())
    return sorted_by(pa.table(out), "mean")


def _mean(values) -> float:
    defined = [x for x in values if x is not None and not math.isnan(x)]
    return sum(defined) / len(defined) if defined else math.nan
