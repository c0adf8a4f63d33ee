"""``fastmetrics sweep``: the best threshold per system (and topic) and measure, and the curves."""

from __future__ import annotations

import itertools
import sys
from dataclasses import replace
from typing import TYPE_CHECKING

from .._errors import ParameterError
from . import options
from .counting import measure_list, selection_count
from .options import GRIDS, parse_thresholds
from .output import emit, say
from .reading import count_options, grouping, open_runs

if TYPE_CHECKING:
    import pyarrow as pa


def add_parser(sub) -> None:
    """The ``sweep`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("sweep", help="the best threshold per system (and topic) and measure, and the curves")
    options.inputs(p, "runs with scores")
    options.gold(p)
    options.measures(p, "comma-separated measure specs")
    options.by(p, "system (default: topics pooled) or system,topic")
    options.thresholds(
        p,
        "an int k (a grid, see --grid; default 101, or the thresholds of saved counts), floats a,b,c, or "
        "'exact' (every score)",
    )
    options.selection(p, ("auto", *GRIDS), "auto")
    options.seed(p, "seed of the folds and halves (default 0)")
    options.missing(p)
    p.add_argument(
        "--curves", help="write the exact ROC and precision-recall curves (tpr, fpr, precision per threshold)"
    )
    options.table_out(p, "the best-threshold table")
    options.quiet(p)
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Sweep the runs' scores and print or write the best thresholds (and the curves to --curves)."""
    from ..board import best_thresholds
    from ..count import count
    from ..count.fitted import ranges_differ
    from ..io.labels import COUNT_COLUMNS
    from ..measures import registry

    by = grouping(args, topic=False)
    thresholds = parse_thresholds(args.thresholds) if args.thresholds is not None else None
    measures = measure_list(args, "binary")
    src = open_runs(args)
    saved = all(c in src.column_names for c in COUNT_COLUMNS)
    saved_sweep = saved and {"threshold", "cell"} & set(src.column_names)
    if args.curves and saved and not saved_sweep:
        raise ParameterError(
            f"--curves draws the ROC and precision-recall curves of a sweep; {src.names[0]} is a table of counts "
            "without thresholds: give the runs, or counts saved with --thresholds exact."
        )
    if args.thresholds is None and not saved_sweep:
        thresholds = 101  # runs: 101 thresholds; saved sweeps keep the thresholds they were counted at
    grid = args.grid
    if grid == "auto":
        grid = "system" if isinstance(thresholds, int) and ranges_differ(src, args.score, args.system) else "global"
    _check_grid(args, grid, thresholds)
    asked = count_options(args, by=by, thresholds=thresholds, grid=grid)
    if args.select == "same":
        tensor = count(src, args.gold, options=asked, progress=not args.quiet)
    else:
        tensor = selection_count(args, src, asked)
    if any(spec.measure.kind != "point" for spec in registry.parse_specs(measures)):
        best = _curve_table(tensor, measures, args.select)
    else:
        roles = dict(system=args.system, topic=args.topic)
        best = best_thresholds(tensor.evaluate(measures), select=args.select, folds=args.folds, seed=args.seed, **roles)
        best = best.summary
    pooled = args.topic in src.column_names and args.topic not in (by or ())
    best, lines = _labelled(best, args, thresholds, grid, pooled)
    if args.curves:
        curves = replace(asked, thresholds=None if saved else "exact", grid="global")  # saved: as counted
        exact = count(src, args.gold, options=curves)
        _write_curves(args.curves, exact, saved)
    say(lines, args.out)
    emit(best, args.out, wide=False)


def _labelled(best, args, thresholds, grid: str, pooled: bool):
    """The table with its value columns named after what they average (pooled counts or the macro
    mean over topics), and the lines saying so and which thresholds the sweep used."""
    if isinstance(thresholds, str):
        used = "every score of each group (exact)"
    elif isinstance(thresholds, int):
        how = {
            "global": "one grid over all scores",
            "system": "each system's own range",
            "quantile": "each system's score quantiles",
        }.get(grid, grid)
        used = f"{thresholds} thresholds on {how} (--grid {grid}{', chosen by auto' if args.grid == 'auto' else ''})"
    elif thresholds is None:
        used = "the thresholds the saved counts were counted at"
    else:
        used = f"the thresholds {args.thresholds}"
    lines = [f"Sweep over {used}."]
    names = best.column_names
    if "in_sample" in names:
        best = best.rename_columns([f"{n}_macro" if n in ("in_sample", "held_out") else n for n in names])
        lines.append(
            f"Thresholds chosen per system ({args.select}); in_sample_macro, held_out_macro: macro means over "
            "topics of the per-topic values."
        )
    elif pooled and "value" in names:
        best = best.rename_columns(["value_pooled" if n == "value" else n for n in names])
        lines.append(
            f"value_pooled: each measure on the counts pooled over topics (micro; --by {args.system},{args.topic} for "
            "per-topic values)."
        )
    return best, lines


def _check_grid(args, grid: str, thresholds) -> None:
    """Refuse a --grid or a --select that needs k thresholds without them."""
    if args.grid != "auto" and grid != "global" and not isinstance(thresholds, int):
        raise ParameterError(f"--grid {grid} fits k thresholds to each system: give --thresholds k (an int).")
    if args.select != "same" and isinstance(thresholds, str):
        raise ParameterError(
            f"--select {args.select} chooses thresholds on a grid shared by a system's topics: give "
            "--thresholds k (an int) or a,b,c."
        )


def _write_curves(path: str, exact, saved: bool) -> None:
    """The ROC and precision-recall curves of an exact sweep (or of ``saved`` counts, as counted)."""
    from ..report import pivot_measures, write_table

    curves = pivot_measures(exact.evaluate(["recall", "fallout", "precision"]).to_arrow())
    curves = curves.rename_columns(
        ["tpr" if c == "recall" else "fpr" if c == "fallout" else c for c in curves.column_names]
    )
    write_table(curves, path)
    print(
        f"wrote the {'saved' if saved else 'exact'} ROC and precision-recall curves ({curves.num_rows} points) "
        f"to {path}",
        file=sys.stderr,
    )


def _curve_table(tensor, measures, select) -> pa.Table:
    """Curve measures of a sweep per group; operating points with the threshold reaching each."""
    import pyarrow as pa

    from ..measures import registry
    from ..measures.curves import POINTS
    from ..measures.sweeps import operating_points

    if select != "same":
        raise ParameterError(
            "--select chooses thresholds for point measures (f1, mcc, ...); curve measures read the whole curve."
        )
    points = [registry.parse_spec(m).measure.name in POINTS for m in measures]
    if not any(points):
        return tensor.evaluate(measures).to_arrow()
    parts = []  # in the order asked; the other measures' rows have a null threshold
    for is_point, run in itertools.groupby(zip(points, measures), key=lambda pair: pair[0]):
        run = [m for _, m in run]
        part = operating_points(tensor, run) if is_point else tensor.evaluate(run).to_arrow()
        parts.append(part if is_point else _with_null_threshold(part))
    return pa.concat_tables(parts)


def _with_null_threshold(table: pa.Table) -> pa.Table:
    """Curve measures' rows beside operating points: the same column types, no threshold."""
    import pyarrow as pa
    import pyarrow.compute as pc

    typed = {n: pc.cast(table[n], pa.string()) if n != "value" else table[n] for n in table.column_names}
    return pa.table({**typed, "threshold": pa.nulls(table.num_rows, pa.float64())})
