"""A leaderboard written as it was printed: ranked, one row per system, the baselines last.

``fastmetrics leaderboard --out`` writes this layout (``--long`` the tidy table instead):

- ``.csv``, ``.parquet``, ``.json``: :func:`board_table`, typed columns a program reads (``rank``,
  the system, ``kind``, then per measure ``<m> macro``, its interval bounds, ``<m> micro``,
  ``<m> topics``); undefined values are nulls.
- ``.md``, ``.html``: the printed cells (:func:`fastmetrics._show.board_view`), footnotes below.
- ``.tex``: :func:`board_latex`, a booktabs table for a paper: the best system of each column in
  bold (by the measure's direction), intervals, LaTeX-escaped names and a caption naming the
  measures and their references.
"""

from __future__ import annotations

import html
import math
import os

import pyarrow as pa

from .. import _numbers
from .._show import board_rows, board_view, notes_of
from ..measures import registry
from .tables import escape_latex, escape_md, output_path, to_html, to_markdown, write_table, write_text

BASELINES = {
    "placebo": "every item positive",
    "zero": "every item negative",
    "random": "each item positive with probability 1/2, expected value",
}


def board_table(summary: pa.Table, system: str = "system") -> pa.Table:
    """The printed leaderboard as typed columns, in its order.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary (one row per system and measure).
    system : str, default "system"
        Its system column.

    Returns
    -------
    pyarrow.Table
        ``rank`` (null for a baseline; ``rank_low``, ``rank_high`` with intervals), the system
        column, ``kind`` (``system`` or ``baseline``), ``as_baseline`` (the baseline a system
        scores exactly as on every measure, else null), ``tier`` when the board has tiers, then
        per measure ``<m> macro`` (``<m> macro_low``, ``<m> macro_high``), ``<m> micro`` (and its
        bounds) and ``<m> topics``.
    """
    measures, order, cells, twins = board_rows(summary, system)
    first = [cells[key][measures[0]] for key in order]
    names = summary.column_names
    out: dict = {"rank": pa.array([r["rank"] for r in first], pa.int64())}
    for bound in ("rank_low", "rank_high"):
        if bound in names:
            out[bound] = pa.array([r.get(bound) for r in first], pa.int64())
    out[system] = pa.array([str(key[1]) for key in order], pa.string())
    out["kind"] = pa.array([key[0] for key in order], pa.string())
    out["as_baseline"] = pa.array([twins.get(key) for key in order], pa.string())
    if "tier" in names:
        out["tier"] = pa.array([r.get("tier") for r in first])
    for m in measures:
        column = [cells[key].get(m, {}) for key in order]
        for field in ("macro", "macro_low", "macro_high", "micro", "micro_low", "micro_high"):
            if field in names:
                out[f"{m} {field}"] = pa.array([c.get(field) for c in column], pa.float64())
        out[f"{m} topics"] = pa.array([c.get("topics") for c in column], pa.int64())
    return pa.table(out)


def references(measures) -> list[str]:
    """Each measure's ``spec: Authors (year)``, read from its record's reference.

    Authors and year only: the title and venue are in the bibliography.
    """
    out = []
    for spec in measures:
        reference = registry.parse_spec(spec).measure.reference
        parts = [part.strip() for part in reference.split(";")]
        cited = [part[: part.find(")") + 1] for part in parts if ")" in part]
        out.append(f"{spec}: {'; '.join(cited) if cited else reference}")
    return out


def board_latex(summary: pa.Table, system: str = "system", params: dict | None = None) -> str:
    """A leaderboard as a LaTeX ``table`` float for a paper.

    booktabs rules; per measure a macro and a micro column, each value with its interval when the
    board has them; the best system of each column in bold (the highest, or the lowest for a
    lower-is-better measure; ties all bold); the baselines below a rule, in italics; names
    LaTeX-escaped; a caption saying what ranks, what macro and micro are and whom each measure
    follows.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary.
    system : str, default "system"
    params : dict, optional
        The board's settings (``ci``: the intervals' level).

    Returns
    -------
    str
    """
    measures, order, cells, twins = board_rows(summary, system)
    systems = [k for k in order if k[0] == "system"]
    fields = ("macro", "micro")
    best = {(m, f): _best(m, [cells[k].get(m, {}).get(f) for k in systems]) for m in measures for f in fields}
    lines = [r"\begin{table}[t]", r"\centering", f"\\caption{{{_caption(summary, system, measures, systems, params)}}}"]
    lines += [f"\\begin{{tabular}}{{rl{'rr' * len(measures)}}}", r"\toprule"]
    lines.append(" & & " + " & ".join(f"\\multicolumn{{2}}{{c}}{{{escape_latex(m)}}}" for m in measures) + r" \\")
    lines.append(" ".join(f"\\cmidrule(lr){{{3 + 2 * i}-{4 + 2 * i}}}" for i in range(len(measures))))
    lines.append("Rank & System & " + " & ".join("macro & micro" for _ in measures) + r" \\")
    lines.append(r"\midrule")
    for key in order:
        if key[0] != "system" and key == order[len(systems)]:
            lines.append(r"\midrule")
        rank = escape_latex(_numbers.cell(cells[key][measures[0]]["rank"])) if key[0] == "system" else ""
        name = escape_latex(key[1]) + ("$^{*}$" if key in twins else "")
        name = name if key[0] == "system" else f"\\textit{{{name}}} (baseline)"
        values = []
        for m in measures:
            row = cells[key].get(m, {})
            for f in fields:
                text = escape_latex(_cell(row, f))
                chosen = key[0] == "system" and row.get(f) is not None and row.get(f) == best[(m, f)]
                values.append(f"\\textbf{{{text}}}" if chosen else text)
        lines.append(" & ".join([rank, name, *values]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _cell(row: dict, field: str) -> str:
    value, low, high = row.get(field), row.get(f"{field}_low"), row.get(f"{field}_high")
    if value is None or low is None or (isinstance(value, float) and math.isnan(value)):
        return _numbers.cell(value)
    return _numbers.interval(value, low, high)


def _best(measure: str, values: list):
    defined = [v for v in values if v is not None and not math.isnan(v)]
    if not defined:
        return None
    return max(defined) if registry.parse_spec(measure).higher_is_better else min(defined)


def _caption(summary: pa.Table, system: str, measures: list, systems: list, params: dict | None) -> str:
    first = measures[0]
    direction = "higher" if registry.parse_spec(first).higher_is_better else "lower"
    topics = max((t for t in summary.column("topics").to_pylist() if t is not None), default=0)
    parts = [
        f"Leaderboard of {len(systems)} systems over {topics} topics, ranked by the macro mean of "
        f"{first} ({direction} is better). Macro: the mean over the topics where a measure is defined; "
        "micro: the measure of the pooled counts."
    ]
    ci = (params or {}).get("ci")
    if ci is not None:
        parts.append(f"In brackets: {_numbers.parameter(100 * ci)}\\% bootstrap intervals.")
    parts.append("Bold: the best system of each column.")
    _, _, _, twins = board_rows(summary, system)
    if twins:
        which = ", ".join(f"{k[1]} as {base}" for k, base in twins.items())
        parts.append(f"$^{{*}}$: scores exactly as a baseline on every measure ({escape_latex(which)}).")
    kinds = summary.column("kind").to_pylist()
    names = summary.column(system).to_pylist()
    added = list(dict.fromkeys(n for n, k in zip(names, kinds) if k != "system"))
    if added:
        said = ", ".join(f"{b} ({BASELINES[b]})" if b in BASELINES else str(b) for b in added)
        parts.append(f"Baselines, in italics: {escape_latex(said)}.")
    return " ".join(parts) + " " + escape_latex("Measures: " + "; ".join(references(measures)) + ".")


def write_board(
    summary: pa.Table,
    path: str | os.PathLike,
    system: str = "system",
    params: dict | None = None,
    provenance: dict | None = None,
) -> None:
    """Write a leaderboard by suffix, in the printed layout (see the module), atomically.

    Parameters
    ----------
    summary : pyarrow.Table
        :func:`fastmetrics.board.leaderboard`'s summary.
    path : str or os.PathLike
        ``.csv``, ``.parquet``, ``.json``, ``.md``, ``.html`` or ``.tex``, in an existing folder.
    system : str, default "system"
    params : dict, optional
        The board's settings (its ``params``).
    provenance : dict, optional
        How the numbers were made, kept with a Parquet or CSV file as
        :func:`~fastmetrics.report.tables.write_table` keeps it.
    """
    suffix, _ = output_path(path)
    if suffix in (".csv", ".parquet", ".json"):
        write_table(board_table(summary, system), path, provenance)
        return
    if suffix == ".tex":
        text = board_latex(summary, system, params)
    else:
        view = board_view(summary, system)
        notes = notes_of(view)
        if suffix == ".md":
            text = to_markdown(view) + ("\n" + escape_md(notes) + "\n" if notes else "")
        else:
            text = to_html(view) + (f"<p>{html.escape(notes)}</p>\n" if notes else "")
    write_text(text, path)
