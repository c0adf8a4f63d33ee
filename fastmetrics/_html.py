"""Tables as compact HTML for notebooks (``_repr_html_`` of Scores and of meta-evaluation and
leaderboard results): the first rows only, numbers written by :mod:`fastmetrics._numbers` (4
decimals, ``NaN`` where undefined), each interval beside its value.

An interval's bounds are found by the names fastmetrics gives them: ``ci_low``/``ci_high`` after
``value`` (tidy scores), ``<measure> ci_low``/``<measure> ci_high`` (wide scores) and
``<column>_low``/``<column>_high`` (leaderboards: ``macro_low``, ``rank_high``). Private: the
containers call it; the tables themselves are what code should read.
"""

from __future__ import annotations

import html

import pyarrow as pa

from ._numbers import bounds as interval_bounds
from ._numbers import cell

MAX_ROWS = 20
STYLE = (
    "<style>.fm-table{border-collapse:collapse;font-size:0.9em}"
    ".fm-table td,.fm-table th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}"
    ".fm-table .ci,.fm-more{color:#777}</style>"
)


def _bounds(names: list) -> dict:
    """Column -> (low column, high column) of its interval, for the columns that have one."""
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


def table_html(table: pa.Table, title: str, digits: int = 4, max_rows: int = MAX_ROWS) -> str:
    """``table``'s first ``max_rows`` rows as an HTML table under ``title``.

    Parameters
    ----------
    table : pyarrow.Table
    title : str
        A line above the table (escaped).
    digits : int, default 4
        Decimals of floats (NaN is written ``NaN``, a null as an empty cell).
    max_rows : int, default 20
        Rows shown; a last line says how many were left out.

    Returns
    -------
    str
    """
    names = table.column_names
    bounds = _bounds(names)
    hidden = {c for pair in bounds.values() for c in pair}
    shown = [c for c in names if c not in hidden]
    rows = table.slice(0, max_rows).to_pylist()

    def text_of(x) -> str:
        return html.escape(cell(x, digits))

    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown)
    body = []
    for row in rows:
        cells = []
        for c in shown:
            text = text_of(row[c])
            if c in bounds and row[bounds[c][0]] is not None:
                text += f' <span class="ci">{interval_bounds(*(row[b] for b in bounds[c]), text_of)}</span>'
            cells.append(f"<td>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = table.num_rows - len(rows)
    foot = f"<p class='fm-more'>… {more:,} more rows</p>" if more > 0 else ""
    return (
        f"<div>{STYLE}<p><b>{html.escape(title)}</b></p><table class='fm-table'><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>{foot}</div>"
    )
