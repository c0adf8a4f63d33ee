"""What a command prints or writes: a table to ``--out`` (atomically) or as a readable table on
stdout, and a job's summary and ``--detail``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .._errors import ParameterError

if TYPE_CHECKING:
    import pyarrow as pa


def emit(table: pa.Table, out: str | None, wide: bool = True) -> None:
    """Write ``table`` to ``out`` in the format of its suffix, or print it.

    Printed, a tidy table shows one column per measure when ``wide``.
    """
    from ..report import format_table, pivot_measures, write_table

    if out:
        write_table(table, out)
        print(f"wrote {table.num_rows} rows to {out}", file=sys.stderr)
    else:
        shown = pivot_measures(table) if wide and "measure" in table.column_names else table
        sys.stdout.write(format_table(shown, max_rows=200))


def emit_result(result, args) -> None:
    """Write a job's result (its columns named after the user's columns, as the jobs name them)."""
    from .._show import board_view
    from ..report import write_table
    from ..report.tables import format_board

    if args.detail:
        if result.detail is None:
            raise ParameterError("This job has no detail table; drop --detail.")
        write_table(result.detail, args.detail)
        print(f"wrote {result.detail.num_rows} rows to {args.detail}", file=sys.stderr)
    if args.command == "leaderboard" and not args.out and "kind" in result.summary.column_names:
        sys.stdout.write(format_board(board_view(result.summary, args.system), max_rows=200))
        return
    emit(result.summary, args.out, wide=False)
