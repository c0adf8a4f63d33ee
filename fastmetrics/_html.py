"""Tables as compact HTML for notebooks (``_repr_html_`` of Scores and of meta-evaluation and
leaderboard results): the first and last rows of a long table, numbers written by :mod:`fastmetrics._numbers` (4
decimals, ``NaN`` where undefined), each interval beside its value.

The rows and cells are :mod:`fastmetrics._show`'s, so that a notebook shows what ``repr`` prints.
Private: the containers call it; the tables themselves are what code should read.
"""

from __future__ import annotations

import html

import pyarrow as pa

from ._show import MAX_ROWS, display_cells, shown_rows, size_line

STYLE = (
    "<style>.fm-table{border-collapse:collapse;font-size:0.9em}"
    ".fm-table td,.fm-table th{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd}"
    ".fm-table .ci,.fm-more{color:#777}</style>"
)


def table_html(table: pa.Table, title: str, digits: int = 4, max_rows: int = MAX_ROWS) -> str:
    """``table`` as an HTML table under ``title``, cut to ``max_rows`` rows.

    Parameters
    ----------
    table : pyarrow.Table
    title : str
        A line above the table (escaped).
    digits : int, default 4
        Decimals of floats (NaN is written ``NaN``, a null as an empty cell).
    max_rows : int, default 20
        Rows shown: a longer table shows its first and last rows around a ``...`` row, then its size.

    Returns
    -------
    str
    """
    shown = shown_rows(table.num_rows, max_rows)
    columns, rows = display_cells(table, shown, digits)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{'...' if r is None else html.escape(r[j])}</td>" for j in range(len(columns))) + "</tr>"
        for r in rows
    )
    size = size_line(table, shown)
    foot = f"<p class='fm-more'>{html.escape(size)}</p>" if size else ""
    return (
        f"<div>{STYLE}<p><b>{html.escape(title)}</b></p><table class='fm-table'><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>{foot}</div>"
    )
