"""``fastmetrics count``: the counts of the runs as a tidy table that every command reads back."""

from __future__ import annotations

import json

from .._errors import ParameterError
from . import options
from .counting import one_system
from .options import parse_thresholds
from .output import emit
from .reading import count_options, grouping, open_runs


def add_parser(sub) -> None:
    """The ``count`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("count", help="count the runs once and save the counts: every command reads them back")
    options.inputs(p, "run files, folders, globs or Parquet/CSV files")
    options.gold(p)
    options.by(p)
    options.thresholds(p)
    options.grid(p, "with --thresholds k")
    options.ties(p, "--thresholds ranks: equal scores")
    options.missing(p)
    options.task(p)
    options.classes(p)
    options.category(p)
    options.quiet(p, "no progress bar")
    options.out(p, "write .parquet or .csv (default: print)")
    options.runs(p, probabilities=True)
    p.set_defaults(func=action)


def action(args) -> None:
    """Count the runs and write the counts (.parquet or .csv) or print them."""
    from ..count import count
    from ..tensor import MultilabelTensor

    out = (args.out or "").lower()
    if args.out and not out.endswith((".parquet", ".csv")):
        raise ParameterError(
            f"fastmetrics count writes .parquet or .csv (tables every command reads); got '{args.out}'."
        )
    by = grouping(args)
    src = open_runs(args)  # the runs' column options checked against them first (one column, one part)
    asked = count_options(
        args,
        thresholds=parse_thresholds(args.thresholds),
        grid=args.grid,
        ties=args.ties,
        category=args.category,
        multiclass=args.multiclass,
    )
    tensor = count(src, args.gold, options=asked, progress=not args.quiet)
    if isinstance(tensor, MultilabelTensor):
        raise ParameterError(
            "Multilabel counts are not saved: the set-based measures need per-item statistics that a table of "
            "tp, fp, fn, tn per category does not hold. Keep the runs, or combine counts in Python (merge, concat)."
        )
    if args.system in by and args.system not in tensor.coords and not tensor.cells:
        tensor = one_system(tensor, args.inputs, args.system)  # named as leaderboard names it, so both agree
    classes = list(tensor.classes)
    if out.endswith(".csv") and tensor.m > 2 and classes != sorted(classes):
        raise ParameterError(
            f"A CSV file does not keep the class order ({', '.join(map(str, classes))}): write .parquet, or "
            "write .csv and give --classes again to every command that reads it."
        )
    emit(_with_layout(tensor.to_arrow(), args, out), args.out, wide=False)


def _with_layout(table, args, out: str):
    """The counts table with its layout in the schema's metadata, read back by every command."""
    from ..count.tables import saved_layout
    from ..tensor import LAYOUT_KEY

    layout = saved_layout(table.schema)
    if (args.system, args.topic) != ("system", "topic"):
        layout["roles"] = {"system": args.system, "topic": args.topic}  # read back with the same parts
    kept = [
        what
        for what, key in (("which columns play the system and topic", "roles"), ("its class axes", "keep"))
        if key in layout
    ]
    if out.endswith(".csv") and kept:
        raise ParameterError(
            f"A CSV file does not keep {' and '.join(kept)}: read back, the counts would be pooled into other "
            "numbers. Write .parquet."
        )
    return table.replace_schema_metadata({LAYOUT_KEY: json.dumps(layout, default=str).encode()})
