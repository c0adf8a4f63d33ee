"""Command-line interface: ``fastmetrics <measures|evaluate|count|leaderboard|meta|sweep|report|axioms|demo>``.

Every error caused by the input or the options prints one line to stderr and exits with
status 2; output files are written atomically, so a failed run leaves none behind.
"""

from __future__ import annotations

import argparse
import importlib.abc
import importlib.machinery
import itertools
import json
import os
import signal
import sys
import threading
import warnings
from typing import TYPE_CHECKING

# Only what parsing the command line needs is imported with this module: pyarrow, numba and the
# stages load in the functions that use them, once a command runs (`fastmetrics --help`, a usage
# mistake and `--version` answer in a tenth of the time).
from . import __version__
from ._errors import FastmetricsError, ParameterError, UndefinedMeasureWarning
from ._formats import INPUT_FORMATS, OUTPUT_SUFFIXES

if TYPE_CHECKING:
    import pyarrow as pa

DEFAULT_MEASURES = {
    # the first ranks leaderboards and reports: F1 weighs both kinds of error (precision's leader is a
    # system that predicts hardly anything positive) and is defined where MCC is not (constant decisions)
    "binary": "f1,mcc,k,accuracy,precision,recall",
    "multiclass": "accuracy,balanced_accuracy,f1@macro,cohen_kappa,mcc,k",
    "multilabel": "precision,recall,f1,proficiency,permuted_proficiency",
    "top_k": "top_k_accuracy(k=1),top_k_accuracy(k=2),top_k_accuracy(k=3)",  # --thresholds topk
}
AVERAGE_CHOICES = ("none", "micro", "macro", "weighted", "samples")
TABLE_FILES = ", ".join(OUTPUT_SUFFIXES[:-1]) + " or " + OUTPUT_SUFFIXES[-1]  # what --out writes a table as


def _parse_thresholds(text: str | None):
    if text is None:
        return None
    if text in ("exact", "ranks", "topk"):
        return text
    try:
        k = int(text)
    except ValueError:
        pass
    else:
        if k < 1:
            raise ParameterError(
                f"--thresholds {text}: an integer is a number of thresholds k >= 1; for one "
                f"threshold at {k} write {k}.0."
            )
        return k
    try:
        return [float(x) for x in text.split(",")]
    except ValueError:
        raise ParameterError(
            f"--thresholds must be 'exact', an integer k, or comma-separated floats. Got {text!r}."
        ) from None


def _emit(table: pa.Table, out: str | None, wide: bool = True) -> None:
    from .report import format_table, pivot_measures, write_table

    if out:
        write_table(table, out)
        print(f"wrote {table.num_rows} rows to {out}", file=sys.stderr)
    else:
        shown = pivot_measures(table) if wide and "measure" in table.column_names else table
        sys.stdout.write(format_table(shown, max_rows=200))


def cmd_measures(args) -> None:
    """``fastmetrics measures``: the measure catalog as Markdown, CSV or JSON."""
    import pyarrow as pa

    from .measures import api as measures_api
    from .report import to_markdown

    catalog = measures_api.measures()
    if args.format == "json":
        print(json.dumps(catalog.to_pylist(), indent=1, default=str))
    elif args.format == "csv":
        import pyarrow.csv as pacsv

        aliases = [", ".join(a) for a in catalog.column("aliases").to_pylist()]
        flat = catalog.set_column(catalog.schema.get_field_index("aliases"), "aliases", pa.array(aliases, pa.string()))
        sink = pa.BufferOutputStream()
        pacsv.write_csv(flat, sink)
        sys.stdout.write(sink.getvalue().to_pybytes().decode())
    else:
        cols = [
            "name",
            "aliases",
            "formula",
            "range_low",
            "range_high",
            "higher_is_better",
            "family",
            "kind",
            "params",
            "undefined_when",
            "smoothable",
            "multiclass",
            "reference",
        ]
        view = catalog.select(cols)
        view = view.set_column(1, "aliases", pa.array([", ".join(a) for a in view.column("aliases").to_pylist()]))
        view = view.set_column(2, "formula", pa.array([f"`{f}`" for f in view.column("formula").to_pylist()]))
        sys.stdout.write(to_markdown(view, digits=2))


def _split(text: str | None):
    return None if text is None else [c.strip() for c in text.split(",") if c.strip()]


def _open_runs(args):
    """The input, opened once, its column options checked against it (read by the user's names:
    counting takes --system, --topic and --item as the columns playing those parts)."""
    from .count.tables import saved_layout
    from .io.labels import require_columns
    from .io.readers import open_source

    src = open_source(args.inputs, format=args.format)
    roles = saved_layout(src.schema).get("roles")
    if roles and (args.system, args.topic) == ("system", "topic"):
        args.system, args.topic = roles["system"], roles["topic"]  # counts saved with --system/--topic
    _distinct_columns(args)
    named = [(args.system, "system", "--system"), (args.topic, "topic", "--topic"), (args.item, "item", "--item")]
    named += [(c, "score", "--score") for c in args.score.split(",")] if hasattr(args, "score") else []
    named += [(args.weight, None, "--weight")] if getattr(args, "weight", None) else []
    named += [(args.pred, "pred", "--pred")] if hasattr(args, "pred") else []
    for column, default, option in named:
        if column != default:  # a column the user named must exist, or the job would quietly do without
            require_columns(src.column_names, [column], src.names[0], f" named by {option}")
    if args.command not in ("evaluate", "count") and _probability_scores(src, args.score):
        raise ParameterError(
            f"--score {args.score}: class probabilities are scored by 'fastmetrics evaluate' (argmax measures, "
            f"--thresholds topk|exact) and saved by 'fastmetrics count'; '{args.command}' ranks hard predictions "
            "or binary scores. Give a --pred column of hard labels, or use evaluate."
        )
    return src


def _probability_scores(src, score: str) -> bool:
    import pyarrow as pa

    if "," in score:
        return True
    return (
        score in src.column_names
        and pa.types.is_list(src.schema.field(score).type)
        or (score in src.column_names and pa.types.is_fixed_size_list(src.schema.field(score).type))
    )


def _distinct_columns(args) -> None:
    """One column cannot play two parts (--pred gold would score the gold against itself)."""
    scores = [c.strip() for c in args.score.split(",")] if "," in args.score else [args.score]
    named = [
        ("--system", args.system),
        ("--topic", args.topic),
        ("--item", args.item),
        ("--gold-column", args.gold_column),
        ("--pred", args.pred),
        ("--weight", args.weight),
    ] + [("--score", c) for c in scores]
    seen = {}
    for option, column in named:
        if column is None:
            continue
        if column in seen and not (option == seen[column] == "--score"):
            raise ParameterError(
                f"{seen[column]} and {option} both name the column '{column}': one column plays one part."
            )
        if column in seen:
            raise ParameterError(f"--score names the column '{column}' twice: one score column per class.")
        seen[column] = option


def _grouping(args, topic: bool = True) -> tuple:
    """The --by columns (default: the columns playing the system and, with ``topic``, the topic)."""
    if not args.by:
        return (args.system, args.topic) if topic else (args.system,)
    return tuple(c.strip() for c in args.by.split(",") if c.strip())


def _columns(args) -> dict:
    """The count options naming the runs' columns (--item, --gold-column, --pred, --score, --weight)."""
    # several score columns, one per class, are class probabilities (fastmetrics.count.probabilities)
    score = [c.strip() for c in args.score.split(",")] if "," in args.score else args.score
    names = dict(system=args.system, topic=args.topic, item=args.item, gold_column=args.gold_column, pred=args.pred)
    return dict(names, score=score, weight=args.weight)


def _task_of(tensor) -> str:
    from .tensor import MultilabelTensor

    if isinstance(tensor, MultilabelTensor):
        return "multilabel"
    return "binary" if tensor.m == 2 and list(tensor.classes) == [0, 1] else "multiclass"


def cmd_evaluate(args) -> None:
    """``fastmetrics evaluate``: measures per (system, topic[, threshold]) cell."""
    from .count import count
    from .measures import registry

    if args.measures is not None:
        registry.parse_specs(args.measures)  # fail before reading data
    by = _grouping(args)
    if args.scheduler:
        tensor = _distributed_count(args, by, thresholds=_parse_thresholds(args.thresholds))
    else:
        tensor = count(
            _open_runs(args),
            gold=args.gold,
            by=by,
            thresholds=_parse_thresholds(args.thresholds),
            missing=args.missing,
            unjudged=args.unjudged,
            **_columns(args),
            progress=not args.quiet,
            task=args.task,
            classes=_split(args.classes),
            category=args.category,
            grid=args.grid,
            ties=args.ties,
            multiclass=args.multiclass,
        )
    task = _task_of(tensor)
    defaults = "top_k" if "top_k" in tensor.axes else _defaults_of(task, tensor, args)
    measures = args.measures or DEFAULT_MEASURES[defaults]
    average = args.average
    if average is None:
        average = "micro" if task == "multilabel" else "default"  # per class only when asked
    kwargs = {}
    if args.cost is not None:
        kwargs["cost"] = _cost_of(args, tensor, task)
    if args.pos_label is not None:
        if task == "multilabel":
            raise ParameterError("--pos-label picks the positive of class labels; multilabel categories have none.")
        kwargs["pos_label"] = args.pos_label
    if args.ci is not None:
        kwargs.update(ci=args.ci, method=args.ci_method or "bootstrap", resamples=args.resamples, seed=args.seed)
    scores = tensor.evaluate(
        measures,
        undefined=args.undefined,
        smoothing=args.smoothing,
        average=None if average == "none" else average,
        **kwargs,
    )
    _emit(scores.to_arrow(wide=args.wide), args.out)


def _defaults_of(task: str, tensor, args) -> str:
    """The default measures' task: binary ones where a class is positive (scikit-learn's
    ``pos_label``: 1 among two labels such as {1, 2}, or --pos-label)."""
    from .measures.positive import has_positive

    if task == "multiclass" and (args.pos_label is not None or (tensor.m <= 2 and has_positive(tensor.classes))):
        return "binary"
    return task


def _cost_of(args, tensor, task):
    """The cost matrix of --cost over the counts' classes (multiclass labels only)."""
    if task != "multiclass":
        raise ParameterError("--cost applies to multiclass labels (k_cost); these labels are " + task + ".")
    return _cost_option(args.cost, tensor.classes)


def _cost_option(text: str, classes):
    """--cost: 'ordinal', 'unit', or a cost-matrix file (square with labels, or true,pred,cost)."""
    from .io.readers import open_source
    from .measures import ordinal_costs
    from .measures.multiclass import cost_matrix, unit_costs

    if text == "ordinal":
        return ordinal_costs(len(classes))
    if text == "unit":
        return unit_costs(len(classes))
    if not os.path.isfile(text):
        raise ParameterError(
            f"--cost takes 'ordinal', 'unit' or a cost-matrix file (.csv, .parquet); there is no file '{text}'."
        )
    return cost_matrix(open_source(text).read_all(), classes, f"cost file '{text}'")


def cmd_count(args) -> None:
    """``fastmetrics count``: the counts of the runs as a tidy table that every command reads back."""
    from .count import count
    from .count.tables import saved_layout
    from .tensor import LAYOUT_KEY, MultilabelTensor

    out = (args.out or "").lower()
    if args.out and not out.endswith((".parquet", ".csv")):
        raise ParameterError(
            f"fastmetrics count writes .parquet or .csv (tables every command reads); got '{args.out}'."
        )
    by = _grouping(args)
    names = ("gold", "grid", "ties", "missing", "unjudged", "task", "category", "multiclass")
    options = {name: getattr(args, name) for name in names}
    tensor = count(
        _open_runs(args),
        by=by,
        thresholds=_parse_thresholds(args.thresholds),
        classes=_split(args.classes),
        progress=not args.quiet,
        **_columns(args),
        **options,
    )
    if isinstance(tensor, MultilabelTensor):
        raise ParameterError(
            "Multilabel counts are not saved: the set-based measures need per-item statistics that a table of "
            "tp, fp, fn, tn per category does not hold. Keep the runs, or combine counts in Python (merge, concat)."
        )
    if args.system in by and args.system not in tensor.coords and not tensor.cells:
        tensor = _one_system(tensor, args.inputs, args.system)  # named as leaderboard names it, so both agree
    classes = list(tensor.classes)
    if out.endswith(".csv") and tensor.m > 2 and classes != sorted(classes):
        raise ParameterError(
            f"A CSV file does not keep the class order ({', '.join(map(str, classes))}): write .parquet, or "
            "write .csv and give --classes again to every command that reads it."
        )
    table = tensor.to_arrow()
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
    table = table.replace_schema_metadata({LAYOUT_KEY: json.dumps(layout, default=str).encode()})
    _emit(table, args.out, wide=False)


def _count_from_args(args, src=None):
    """Hard counts for the jobs that rank systems (leaderboard, meta, report), from the input
    opened once (``src``, or opened here)."""
    from .count import count
    from .tensor import ConfusionTensor

    by = _grouping(args)
    src = _open_runs(args) if src is None else src
    columns = src.column_names
    sweep = _parse_thresholds(args.thresholds) if args.command in ("leaderboard", "meta") else None
    select = getattr(args, "select", "same")
    if select != "same" and not isinstance(sweep, int):
        raise ParameterError(f"--select {select} chooses thresholds on a grid: give --thresholds k (an int).")
    if (
        sweep is None
        and args.pred not in columns
        and getattr(args, "score", "score") in columns
        and not {"tp", "fp", "fn", "tn"} <= set(columns)
    ):
        raise ParameterError(
            f"The input has scores ('{getattr(args, 'score', 'score')}') but no hard predictions ('{args.pred}'): "
            f"'{args.command}' ranks one confusion matrix per system and topic. Add a '{args.pred}' column of hard "
            "labels (e.g. score >= 0.5), name yours with --pred, or choose a threshold per system with "
            "'fastmetrics sweep' (or rank them with curve measures and --thresholds exact|ranks)."
        )
    if getattr(args, "scheduler", None):
        return _distributed_count(args, by)
    options = dict(
        gold=args.gold,
        missing=args.missing,
        **{k: v for k, v in _columns(args).items() if k != "score"},
        task=args.task,
        classes=_split(args.classes),
        unjudged=args.unjudged,
    )
    if select != "same":
        return _selection_count(args, src, by, sweep, args.grid, score=args.score, **options)
    tensor = count(src, by=by, progress=not args.quiet, **options, **(_sweep_options(args, sweep) if sweep else {}))
    if sweep is None and args.system in by and args.system not in columns and isinstance(tensor, ConfusionTensor):
        tensor = _one_system(tensor, args.inputs, args.system)
    return tensor


def _sweep_options(args, sweep) -> dict:
    """The count options of a sweep for the jobs that rank systems."""
    grid = args.grid if isinstance(sweep, int) else "global"
    return {"thresholds": sweep, "score": args.score, "ties": args.ties, "grid": grid}


def _one_system(tensor, inputs, axis: str = "system"):
    """Input without a system column is one system (the axis ``axis``), named after its file (or 'system')."""
    from .io.readers import run_system_name
    from .tensor import ConfusionTensor

    name = run_system_name(inputs[0]) if len(inputs) == 1 and os.path.isfile(inputs[0]) else "system"
    return ConfusionTensor(
        tensor.counts[None],
        (axis,) + tensor.axes,
        {**tensor.coords, axis: [name]},
        coord_axes=tensor.coord_axes,
        classes=tensor.classes,
    )


def _distributed_count(args, by, thresholds=None):
    """Count on Dask (``--scheduler local[:N] | ADDRESS``); the jobs then run on the client."""
    from . import dask as fmd

    if len(args.inputs) != 1:
        raise ParameterError("--scheduler takes one Parquet dataset (a file, a folder or a URL).")
    if getattr(args, "unjudged", "error") != "error":
        raise ParameterError(
            "--unjudged negative needs every run's items in one place: drop --scheduler, or add "
            "the unjudged items to the gold as negatives."
        )
    client = fmd.client_for(args.scheduler)
    _UNWIND[0] = True
    try:
        return fmd.count(
            args.inputs[0],
            gold=args.gold,
            by=by,
            **_columns(args),
            thresholds=thresholds,
            client=client,
            missing=args.missing,
            task=args.task,
            classes=_split(args.classes),
        )
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and args.scheduler.startswith("local"):
            cluster.close()
        _UNWIND[0] = False


def _measure_list(args, task: str) -> list[str]:
    """The measure specs of ``--measures`` (or the task's defaults), checked before any counting."""
    from .measures import registry

    text = args.measures or DEFAULT_MEASURES[task]
    registry.parse_specs(text)
    return registry.split_specs(text)


def _emit_result(result, args) -> None:
    """Write a job's result (its columns named after the user's columns, as the jobs name them)."""
    from .report import write_table
    from .report.tables import board_view, format_board

    if args.detail:
        if result.detail is None:
            raise ParameterError("This job has no detail table; drop --detail.")
        write_table(result.detail, args.detail)
        print(f"wrote {result.detail.num_rows} rows to {args.detail}", file=sys.stderr)
    if args.command == "leaderboard" and not args.out and "kind" in result.summary.column_names:
        sys.stdout.write(format_board(board_view(result.summary, args.system), max_rows=200))
        return
    _emit(result.summary, args.out, wide=False)


def cmd_leaderboard(args) -> None:
    """``fastmetrics leaderboard``: macro and micro scores per system, ranks, baselines, significance."""
    from .board import leaderboard
    from .count.api import normalised_gold
    from .meta import item_tests

    src = _open_runs(args)
    tensor = _count_from_args(args, src)
    measures = _measure_list(args, _task_of(tensor))
    correction = args.correction or ("holm" if args.holm else None)
    over_items = args.significance in ("mcnemar", "item-bootstrap")
    if over_items and args.thresholds is not None:
        raise ParameterError(
            f"--significance {args.significance} compares the systems' hard predictions ('{args.pred}') "
            "item by item: drop --thresholds, or use --significance bootstrap across topics."
        )
    with warnings.catch_warnings():  # a note of the result's, printed once below
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        result = _board_of(leaderboard, tensor, measures, args, over_items, correction)
    if result.params.get("ci_note"):
        print(f"fastmetrics: note: {result.params['ci_note']}.", file=sys.stderr)
    if over_items:
        gold = None if args.gold is None else normalised_gold(args.gold, args.item, args.gold_column, topic=args.topic)
        result.detail = item_tests(
            src,
            gold,
            measures=measures,
            method=args.significance,
            resamples=args.resamples,
            seed=args.seed,
            correction=correction,
            **{k: v for k, v in _columns(args).items() if k != "score"},
        ).summary
    _emit_result(result, args)


def _board_of(leaderboard, tensor, measures, args, over_items, correction):
    """The leaderboard the options ask for (item tests added by the caller)."""
    return leaderboard(
        tensor,
        measures,
        baselines=not args.no_baselines,
        significance=None if over_items else args.significance,
        correction=correction,
        resamples=args.resamples,
        seed=args.seed,
        smoothing=args.smoothing,
        progress=not args.quiet,
        undefined=args.undefined,
        select=None if args.select == "same" else args.select,
        folds=args.folds,
        ci=args.ci,
        cost=None if args.cost is None else _cost_of(args, tensor, _task_of(tensor)),
        system=args.system,
        topic=args.topic,
    )


def cmd_meta(args) -> None:
    """``fastmetrics meta``: one meta-evaluation job (strictness, robustness, stability, inconsistency, power)."""
    from . import meta
    from .board import held_out_scores

    if args.job == "stability":
        if args.unjudged != "error":
            raise ParameterError(
                "meta stability splits the judged items of each topic: --unjudged negative is not available there."
            )
        if args.scheduler:
            raise ParameterError(
                "Stability resamples the items of every topic: it runs in one process; drop --scheduler."
            )
        if args.weight is not None:
            raise ParameterError("meta stability counts items, not weights: drop --weight.")
        if getattr(args, "thresholds", None) is not None:
            raise ParameterError("meta stability counts the hard predictions of each half: drop --thresholds.")
        measures = args.measures.split(",") if args.measures else DEFAULT_MEASURES["binary"].split(",")
        result = meta.stability(
            _open_runs(args),
            args.gold,
            measures=measures,
            replicates=args.splits,
            seed=args.seed,
            tolerance=args.tolerance,
            progress=not args.quiet,
            by=_grouping(args),
            system=args.system,
            topic=args.topic,
            missing=args.missing,
            pred=args.pred,
            item=args.item,
            gold_column=args.gold_column,
            task=args.task,
            classes=_split(args.classes),
        )
        _emit_result(result, args)
        return
    tensor = _count_from_args(args)
    scores = tensor.evaluate(_measure_list(args, _task_of(tensor)), smoothing=args.smoothing, undefined=args.undefined)
    roles = dict(system=args.system, topic=args.topic)
    if args.select != "same":
        scores = held_out_scores(scores, args.select, args.folds, args.seed, **roles)
    shown = dict(progress=not args.quiet, **roles)
    if args.job == "strictness":
        result = meta.strictness(scores, **shown)
    elif args.job == "robustness":
        pairs = "all" if args.pairs == "all" else _positive_int(args.pairs, "--pairs")
        result = meta.robustness(scores, pairs=pairs, seed=args.seed, detail=bool(args.detail), **shown)
    elif args.job == "inconsistency":
        result = meta.inconsistency(scores, tolerance=args.tolerance, **roles)
    else:
        result = meta.power(scores, alpha=args.alpha, resamples=args.resamples, seed=args.seed, **shown)
    _emit_result(result, args)


def _int_at_least(low: int):
    """An argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    return parse


_seed = _int_at_least(0)  # numpy's generators take integers >= 0


def _positive_int(text: str, option: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        also = " or 'all'" if option == "--pairs" else ""
        raise ParameterError(f"{option} must be a positive integer{also}; got {text!r}.")
    return value


def cmd_axioms(args) -> None:
    """``fastmetrics axioms``: which properties of seeds 000, 003 and 004 each measure satisfies."""
    from .meta import axioms
    from .report import property_matrix_markdown, write_table, write_text

    fmt = _axioms_format(args)
    properties = _split(args.properties)
    table = axioms.axioms(
        args.measures or None, properties, n_max=args.n_max, smoothing=args.smoothing, classes=args.classes
    )
    if fmt == "table":  # --out with a table suffix: the tidy verdicts, written as the suffix says
        write_table(table, args.out)
        print(f"wrote {table.num_rows} verdicts to {args.out}", file=sys.stderr)
        return
    if fmt == "json":
        rows = [
            {k: r[k] for k in ("measure", "property", "holds", "counterexample", "note", "numeric")}
            for r in table.to_pylist()
        ]
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    else:
        text = property_matrix_markdown(table)
    if args.out:
        write_text(text, args.out)
        print(f"wrote {table.num_rows} verdicts to {args.out}", file=sys.stderr)
    else:
        sys.stdout.write(text)


def _axioms_format(args) -> str:
    """What ``axioms`` writes: ``md`` or ``json`` (printed, or to --out of that suffix) or ``table``
    (the tidy verdicts in the format of another --out suffix; an unknown one is refused)."""
    from .report.tables import output_path

    if not args.out:
        return args.format or "md"
    suffix, _ = output_path(args.out)  # refused before any work, as every command refuses it
    fmt = {".md": "md", ".json": "json"}.get(suffix, "table")
    if args.format is not None and args.format != fmt:
        raise ParameterError(
            f"--format {args.format} and --out {args.out} disagree: the file is written in the format of "
            "its suffix (.md: the matrix, .json: the verdicts, .csv/.parquet/.tex/.html: the verdict table)."
        )
    return fmt


def cmd_sweep(args) -> None:
    """``fastmetrics sweep``: the best threshold per system (and topic) and measure, and the curves."""
    from .board import best_thresholds
    from .count import count
    from .count.fitted import ranges_differ
    from .io.labels import COUNT_COLUMNS
    from .measures import registry
    from .report import pivot_measures, write_table

    by = _grouping(args, topic=False)
    thresholds = _parse_thresholds(args.thresholds) if args.thresholds is not None else None
    measures = _measure_list(args, "binary")
    src = _open_runs(args)
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
    elif grid != "global" and not isinstance(thresholds, int):
        raise ParameterError(f"--grid {grid} fits k thresholds to each system: give --thresholds k (an int).")
    if args.select != "same" and isinstance(thresholds, str):
        raise ParameterError(
            f"--select {args.select} chooses thresholds on a grid shared by a system's topics: give "
            "--thresholds k (an int) or a,b,c."
        )
    options = dict(gold=args.gold, by=by, missing=args.missing, unjudged=args.unjudged, **_columns(args))
    if args.select == "same":
        tensor = count(src, thresholds=thresholds, grid=grid, progress=not args.quiet, **options)
    else:
        tensor = _selection_count(args, src, by, thresholds, grid, **{k: v for k, v in options.items() if k != "by"})
    if any(spec.measure.kind != "point" for spec in registry.parse_specs(measures)):
        best = _curve_table(tensor, measures, args.select)
    else:
        roles = dict(system=args.system, topic=args.topic)
        best = best_thresholds(tensor.evaluate(measures), select=args.select, folds=args.folds, seed=args.seed, **roles)
        best = best.summary
    if args.curves:
        exact = count(src, **options) if saved else count(src, thresholds="exact", **options)  # saved: as counted
        curves = pivot_measures(exact.evaluate(["recall", "fallout", "precision"]).to_arrow())
        curves = curves.rename_columns(
            ["tpr" if c == "recall" else "fpr" if c == "fallout" else c for c in curves.column_names]
        )
        write_table(curves, args.curves)
        print(
            f"wrote the {'saved' if saved else 'exact'} ROC and precision-recall curves ({curves.num_rows} points) "
            f"to {args.curves}",
            file=sys.stderr,
        )
    _emit(best, args.out, wide=False)


def _curve_table(tensor, measures, select) -> pa.Table:
    """Curve measures of a sweep per group; operating points with the threshold reaching each."""
    import pyarrow as pa

    from .measures import registry
    from .measures.curves import POINTS
    from .measures.evaluation import operating_points

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

    columns = {n: pc.cast(table[n], pa.string()) if n != "value" else table[n] for n in table.column_names}
    return pa.table({**columns, "threshold": pa.nulls(table.num_rows, pa.float64())})


def _selection_count(args, src, by, thresholds, grid, **options):
    """The sweep that threshold selection on held-out data reads: per (system, topic), and for
    ``split-half`` per half of each topic's items as well."""
    from .count import count
    from .count.api import halves_sweep

    by = tuple(dict.fromkeys(tuple(by) + (args.system, args.topic)))
    if args.select == "cross-topic":
        return count(src, by=by, thresholds=thresholds, grid=grid, **options)
    gold = options.pop("gold")
    return halves_sweep(src, gold, thresholds=thresholds, grid=grid, seed=args.seed, by=by, **options)


def cmd_report(args) -> None:
    """``fastmetrics report``: leaderboard, meta-evaluation and figures in one HTML or Markdown file."""
    from .pipeline import report_data
    from .report.html import check_report_paths, write_report

    if not args.out:
        raise ParameterError("report needs --out report.html or --out report.md.")
    # the options are checked before the input is read: a mistake costs no counting
    check_report_paths(args.out, args.figures)
    thresholds = _positive_int(args.thresholds, "--thresholds")
    pairs = "all" if args.pairs == "all" else _positive_int(args.pairs, "--pairs")
    scatter = _scatter_pairs(args.scatter)
    # matplotlib is imported (pure Python, ~0.5 s) while numba compiles the kernels, whose LLVM
    # passes release the GIL: on a first call the two overlap instead of adding up
    threading.Thread(target=_import_figures, daemon=True).start()
    src = _open_runs(args)
    tensor = _count_from_args(args, src)
    runs = None
    if args.score in src.column_names and args.system in src.column_names and _task_of(tensor) == "binary":
        runs = src.read_all()
    data = report_data(
        tensor,
        _measure_list(args, _task_of(tensor)),
        runs=runs,
        gold=args.gold,
        thresholds=thresholds,
        seed=args.seed,
        resamples=args.resamples,
        pairs=pairs,
        title=args.title,
        scatter=scatter,
        weight=args.weight,
        progress=not args.quiet,
        **{k: v for k, v in _columns(args).items() if k not in ("pred", "weight")},
    )
    figures = write_report(data, args.out, figures_dir=args.figures, progress=not args.quiet)
    print(f"wrote {args.out} ({len(figures)} figures)", file=sys.stderr)


def _import_figures() -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot  # noqa: F401
    except ImportError:  # the report says so when it draws
        pass


def _scatter_pairs(text):
    from .measures import registry

    if not text:
        return None
    pairs = []
    for part in registry.split_specs(text):
        if ":" not in part:
            raise ParameterError(f"--scatter takes measure pairs a:b separated by commas; got {part!r}.")
        a, b = (x.strip() for x in part.split(":", 1))
        pairs.append((a, b))
    return pairs


def cmd_demo(args) -> None:
    """``fastmetrics demo``: write the demo runs and print their macro leaderboard (by K, then MCC)."""
    from . import demo
    from .board import macro_leaderboard
    from .count import count
    from .report import format_table, write_table

    path = demo.write(args.data_dir)
    print(
        f"demo runs written to {path} ({demo.N_SYSTEMS} systems x {demo.N_TOPICS} topics x {demo.N_ITEMS} items)",
        file=sys.stderr,
    )
    tensor = count(str(path))
    scores = tensor.evaluate(["k", "mcc", "f1", "accuracy"])
    table = macro_leaderboard(scores, order=("k", "mcc")).summary
    if args.out:
        write_table(table, args.out)
    print(
        "Leaderboard: macro mean over topics, sorted by mean K then MCC "
        "(undefined_topics = topics where some measure is undefined, left out of its mean)"
    )
    sys.stdout.write(format_table(table))


class _Parser(argparse.ArgumentParser):
    """argparse with the command line's one rule: a usage mistake is one line, exit 2."""

    def error(self, message):
        self.exit(2, f"fastmetrics: error: {self.prog}: {message} (see '{self.prog} --help').\n")


def cost_option(p) -> None:
    """--cost, of the commands that evaluate k_cost."""
    p.add_argument(
        "--cost",
        default=None,
        metavar="ordinal|unit|FILE",
        help="cost matrix for k_cost: 'ordinal' = |i - j| over the class order, 'unit' = 1 off the diagonal, or a "
        "CSV/Parquet file: square (a header of class labels, the true class in the first column) or long "
        "(true,pred,cost); costs >= 0, 0 on the diagonal",
    )


def build_parser() -> argparse.ArgumentParser:
    """The ``fastmetrics`` argument parser, one subcommand per ``cmd_*`` function."""
    parser = _Parser(prog="fastmetrics", description=__doc__.splitlines()[0])
    parser.add_argument("--version", action="version", version=f"fastmetrics {__version__}")
    parser.add_argument(
        "--memory-limit",
        metavar="SIZE",
        help="largest tensor to allocate, e.g. 64G (default: the memory available now; "
        "FASTMETRICS_MEMORY_LIMIT in the environment does the same)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("measures", help="print the measure catalog")
    p.add_argument("--format", choices=("md", "csv", "json"), default="md")
    p.set_defaults(func=cmd_measures)

    p = sub.add_parser("evaluate", help="measures per (system, topic[, threshold])")
    p.add_argument("inputs", nargs="+", help="run files, folders, globs, Parquet/CSV files or a counts table")
    p.add_argument("--gold", help="gold labels keyed by (topic, item)")
    p.add_argument(
        "--measures",
        default=None,
        help="comma-separated specs; a suffix @micro/@macro/@weighted/@samples sets one measure's "
        "averaging (default by task: " + "; ".join(f"{k}: {v}" for k, v in DEFAULT_MEASURES.items()) + ")",
    )
    p.add_argument("--by", default=None, help="grouping columns (default system,topic when present)")
    p.add_argument(
        "--task",
        choices=("auto", "binary", "multiclass", "multilabel"),
        default="auto",
        help="default auto: list-typed gold is multilabel, bool/0-1 labels binary, other labels multiclass",
    )
    p.add_argument(
        "--average",
        choices=AVERAGE_CHOICES,
        default=None,
        help="one-vs-rest averaging over classes (default none; micro for multilabel)",
    )
    p.add_argument(
        "--classes",
        help="comma-separated class labels in order (e.g. an ordinal scale); "
        "default the sorted union of gold and predicted labels",
    )
    cost_option(p)
    p.add_argument(
        "--pos-label",
        help="the label binary measures (precision, recall, f1, ...) read as positive (default 1, as "
        "scikit-learn's pos_label; two labels without 1, e.g. ham/spam, need it)",
    )
    p.add_argument("--category", help="multilabel input with one row per (item, category): the category column")
    p.add_argument("--scheduler", help="count on Dask: local, local:N (N worker processes) or a scheduler ADDRESS")
    p.add_argument(
        "--thresholds",
        help="'exact', 'ranks', an int k (even grid over the score range), floats a,b,c, or 'topk' (class "
        "probabilities: the rank of the gold class, for top_k_accuracy)",
    )
    p.add_argument(
        "--grid",
        choices=("global", "system", "quantile"),
        default="global",
        help="with --thresholds k: one grid over all scores, or each system's own range or score quantiles",
    )
    p.add_argument(
        "--ties", choices=("input", "item"), default="input", help="--thresholds ranks: order of equal scores"
    )
    p.add_argument(
        "--missing",
        choices=("error", "negative", "drop"),
        default="error",
        help="what to do with gold items a run lacks (default error)",
    )
    p.add_argument("--undefined", type=float, default=None, help="value for undefined cells (default NaN)")
    p.add_argument("--ci", type=float, default=None, help="a confidence level (e.g. 0.95): ci_low and ci_high columns")
    p.add_argument("--wide", action="store_true", help="write one column per measure (default: tidy, one row each)")
    p.add_argument(
        "--ci-method",
        choices=("bootstrap", "wilson", "jeffreys"),
        default=None,
        help="with --ci: multinomial bootstrap of each cell's items (any measure, the default) or a proportion's "
        "analytic interval",
    )
    p.add_argument("--resamples", type=_int_at_least(10), default=2000, help="bootstrap replicates (default 2000)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the bootstrap (default 0)")
    p.add_argument(
        "--smoothing",
        choices=("laplace", "noninformative"),
        default=None,
        help="smoothed probability estimates (seed 004 §5) for smoothable measures",
    )
    p.add_argument("--out", help=f"write the scores ({TABLE_FILES}) instead of printing them")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=cmd_evaluate)

    def inputs_and_counting(p):
        p.add_argument("inputs", nargs="+", help="run files, folders, globs, Parquet/CSV files or a counts table")
        p.add_argument("--gold", help="gold labels keyed by (topic, item)")
        p.add_argument("--measures", default=None, help="comma-separated measure specs (default by task)")
        p.add_argument("--by", default=None, help="grouping columns (default system,topic when present)")
        p.add_argument("--missing", choices=("error", "negative", "drop"), default="error")
        p.add_argument("--task", choices=("auto", "binary", "multiclass", "multilabel"), default="auto")
        p.add_argument("--classes", help="comma-separated class labels in order")
        p.add_argument("--seed", type=_seed, default=0, help="seed of every random choice (default 0)")
        p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
        p.add_argument(
            "--scheduler",
            help="count on Dask: local, local:N (N worker processes) or a scheduler ADDRESS (needs the [dask] extra)",
        )

    def tables_out(p, out: str, detail: str | None = None, resamples: str = "", smoothing: bool = True):
        p.add_argument("--out", help=f"write {out} ({TABLE_FILES}) instead of printing it")
        if detail:
            p.add_argument("--detail", help=f"write {detail} to this file ({TABLE_FILES})")
        if resamples:
            p.add_argument("--resamples", type=_int_at_least(1), default=1000, help=f"{resamples} (default 1000)")
        if smoothing:
            p.add_argument(
                "--smoothing",
                choices=("laplace", "noninformative"),
                default=None,
                help="smoothed probability estimates (seed 004 §5) for smoothable measures",
            )

    def selection_options(p, grids=("global", "system", "quantile"), grid="system"):
        p.add_argument(
            "--grid",
            choices=grids,
            default=grid,
            help="with --thresholds k: each system's own range (system), its score quantiles (quantile) or one grid "
            "over all scores (global); auto: system when some system's range covers less than half of all",
        )
        p.add_argument(
            "--select",
            choices=("same", "cross-topic", "split-half"),
            default="same",
            help="choose each threshold on the data it is scored on (same), on the other topics (cross-topic) or on "
            "the other half of each topic's items (split-half); the last two report held-out values and the optimism",
        )
        p.add_argument(
            "--folds",
            type=_int_at_least(2),
            default=None,
            help="cross-topic: topic folds (default: leave one topic out)",
        )

    def sweep_options(p):
        p.add_argument(
            "--thresholds",
            default=None,
            help="count a sweep: 'exact' (every score) or 'ranks' (each topic's items ranked) for curve and "
            "ranking measures (roc_auc, average_precision, ranked_ap, ...); an int k with --select",
        )
        selection_options(p)
        p.add_argument(
            "--ties", choices=("input", "item"), default="input", help="--thresholds ranks: order of equal scores"
        )
        p.add_argument(
            "--undefined", type=float, default=None, help="value for undefined values (default NaN: left out of means)"
        )

    p = sub.add_parser("count", help="count the runs once and save the counts: every command reads them back")
    p.add_argument("inputs", nargs="+", help="run files, folders, globs or Parquet/CSV files")
    p.add_argument("--gold", help="gold labels keyed by (topic, item)")
    p.add_argument("--by", default=None, help="grouping columns (default system,topic when present)")
    p.add_argument(
        "--thresholds",
        help="'exact', 'ranks', an int k (even grid over the score range), floats a,b,c, or 'topk' (class "
        "probabilities: the rank of the gold class, for top_k_accuracy)",
    )
    p.add_argument("--grid", choices=("global", "system", "quantile"), default="global", help="with --thresholds k")
    p.add_argument("--ties", choices=("input", "item"), default="input", help="--thresholds ranks: equal scores")
    p.add_argument("--missing", choices=("error", "negative", "drop"), default="error")
    p.add_argument("--task", choices=("auto", "binary", "multiclass", "multilabel"), default="auto")
    p.add_argument("--classes", help="comma-separated class labels in order")
    p.add_argument("--category", help="multilabel input with one row per (item, category): the category column")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--out", help="write .parquet or .csv (default: print)")
    p.set_defaults(func=cmd_count)

    p = sub.add_parser("leaderboard", help="macro and micro scores per system, ranks, baselines, significance")
    inputs_and_counting(p)
    tables_out(
        p,
        "the leaderboard (one row per system or baseline and measure)",
        "the paired tests of --significance",
        "replicates of the bootstrap tests and of the --ci intervals",
    )
    p.add_argument("--no-baselines", action="store_true", help="leave out the placebo/zero/random rows")
    cost_option(p)
    p.add_argument(
        "--significance",
        choices=("fisher", "bootstrap", "mcnemar", "item-bootstrap"),
        default=None,
        help="paired tests between systems, written with --detail: across topics (fisher, bootstrap) or over the "
        "items of one test set (mcnemar, item-bootstrap)",
    )
    p.add_argument("--holm", action="store_true", help="Holm-correct the p-values over system pairs")
    p.add_argument(
        "--correction", choices=("holm", "bonferroni", "bh"), default=None, help="multiple-comparison correction"
    )
    p.add_argument(
        "--ci",
        type=float,
        default=None,
        help="a confidence level (e.g. 0.95): intervals of macro (topics resampled), micro (items resampled) and "
        "rank, and the systems tied with the leader (--resamples, --seed)",
    )
    sweep_options(p)
    p.set_defaults(func=cmd_leaderboard)

    p = sub.add_parser("meta", help="meta-evaluation: strictness, robustness, stability, inconsistency, power")
    p.add_argument("job", choices=("strictness", "robustness", "stability", "inconsistency", "power"))
    inputs_and_counting(p)
    tables_out(
        p,
        "the job's summary (one row per measure or measure pair)",
        "the job's detail: per measure pair and threshold (strictness), per topic pair (robustness), per "
        "system (stability), the paired tests (power); inconsistency has none",
        "power: bootstrap replicates of the paired tests",
    )
    p.add_argument(
        "--pairs",
        default="1000",
        help="robustness: topic pairs drawn at random, or 'all' for every pair (one blocked matrix product a "
        "measure; the per-pair table only with --detail) (default 1000)",
    )
    p.add_argument("--splits", type=_int_at_least(1), default=500, help="stability: random halvings (default 500)")
    p.add_argument(
        "--tolerance",
        type=float,
        default=1e-5,
        help="inconsistency/stability: differences within it are ties (default 1e-5)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="power: significance level (default 0.05)")
    sweep_options(p)
    p.set_defaults(func=cmd_meta)

    p = sub.add_parser("sweep", help="the best threshold per system (and topic) and measure, and the curves")
    p.add_argument("inputs", nargs="+", help="runs with scores")
    p.add_argument("--gold", help="gold labels keyed by (topic, item)")
    p.add_argument("--measures", default=None, help="comma-separated measure specs")
    p.add_argument("--by", default=None, help="system (default: topics pooled) or system,topic")
    p.add_argument(
        "--thresholds",
        default=None,
        help="an int k (a grid, see --grid; default 101, or the thresholds of saved counts), floats a,b,c, or "
        "'exact' (every score)",
    )
    selection_options(p, ("auto", "global", "system", "quantile"), "auto")
    p.add_argument("--seed", type=_seed, default=0, help="seed of the folds and halves (default 0)")
    p.add_argument("--missing", choices=("error", "negative", "drop"), default="error")
    p.add_argument(
        "--curves", help="write the exact ROC and precision-recall curves (tpr, fpr, precision per threshold)"
    )
    p.add_argument("--out", help=f"write the best-threshold table ({TABLE_FILES}) instead of printing it")
    p.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
    p.set_defaults(func=cmd_sweep)

    p = sub.add_parser("report", help="an HTML or Markdown report: ranked table, figures, definitions")
    inputs_and_counting(p)
    p.add_argument(
        "--out",
        help="the report: .html (one self-contained file, figures embedded as PNG) or .md (figures as PNG and SVG "
        "in <name>_figures beside it)",
    )
    p.add_argument(
        "--resamples",
        type=_int_at_least(1),
        default=1000,
        help="replicates of the leaderboard's intervals and of the tests between adjacent ranks (default 1000)",
    )
    p.add_argument("--figures", help="also save every figure as PNG and SVG in this folder")
    p.add_argument(
        "--thresholds", default="51", help="points of each system's threshold curve when scores exist (default 51)"
    )
    p.add_argument("--pairs", default="1000", help="topic pairs of the robustness figure (default 1000)")
    p.add_argument("--title", default="fastmetrics report", help="the report's title")
    p.add_argument(
        "--scatter",
        help="measure pairs to plot output by output, e.g. f1:mcc,accuracy:k "
        "(default: the first measure against the second and the third)",
    )
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("axioms", help="decide the axioms and properties of seeds 000, 003 and 004 per measure")
    p.add_argument("measures", nargs="*", help="measures or specs (default: the whole catalog)")
    p.add_argument(
        "--n-max",
        type=_int_at_least(1),
        default=12,
        help="largest test set enumerated (default 12; 6 for --classes > 2)",
    )
    p.add_argument(
        "--classes",
        type=_int_at_least(2),
        default=2,
        help="2: binary properties; m > 2: seed 003's properties of the native multiclass definitions",
    )
    p.add_argument("--properties", help="comma-separated property ids (default: all)")
    p.add_argument("--smoothing", choices=("laplace", "noninformative"), default=None)
    p.add_argument("--format", choices=("md", "json"), default=None, help="printed format (default md)")
    p.add_argument(
        "--out",
        help="write the profile to this file (atomically), in the format of its suffix: .md the matrix, .json "
        "the verdicts, " + ", ".join(OUTPUT_SUFFIXES[:2] + OUTPUT_SUFFIXES[4:]) + " the verdict table",
    )
    p.set_defaults(func=cmd_axioms)

    p = sub.add_parser("demo", help="generate the demo leaderboard into data/ and rank it")
    p.add_argument("--data-dir", default="data/demo", help="where the demo runs are written (default data/demo)")
    p.add_argument("--out", help="also write the leaderboard to this file")
    p.set_defaults(func=cmd_demo)
    for name in ("evaluate", "count", "leaderboard", "meta", "sweep", "report"):
        _reading_options(sub.choices[name])
        _column_options(sub.choices[name], probabilities=name in ("evaluate", "count"))
    for name in ("evaluate", "count"):
        sub.choices[name].add_argument(
            "--multiclass",
            choices=("ovr", "ovo"),
            default="ovr",
            help="class probabilities swept (--thresholds exact|k): one sweep per class against the rest, or per "
            "ordered pair of classes (roc_auc@macro is then Hand & Till's multiclass AUC)",
        )
    return parser


def _column_options(p, probabilities: bool = False) -> None:
    """The names of the runs' columns, the same options on every command that reads runs."""
    group = p.add_argument_group("columns of the runs (and of a separate --gold)")
    group.add_argument(
        "--system",
        default="system",
        metavar="COL",
        help="the column playing the system: any grouping column, e.g. annotator (default system; "
        "outputs keep its name)",
    )
    group.add_argument(
        "--topic", default="topic", metavar="COL", help="the column playing the topic, in runs and gold (default topic)"
    )
    group.add_argument("--item", default="item", metavar="COL", help="the item column, in runs and gold (default item)")
    group.add_argument(
        "--gold-column", default="gold", metavar="COL", help="the gold label column, in runs or gold (default gold)"
    )
    group.add_argument("--pred", default="pred", metavar="COL", help="the hard-prediction column (default pred)")
    classes = (
        "; a list column, or COL1,COL2,... one per class, holds class probabilities (argmax predictions; "
        "--thresholds topk|exact|k for top-k accuracy and per-class sweeps)"
    )
    group.add_argument(
        "--score",
        default="score",
        metavar="COL",
        help="the score column (default score)" + (classes if probabilities else ""),
    )
    group.add_argument(
        "--weight", default=None, metavar="COL", help="a column of item weights (costs): weighted counts (default none)"
    )


def _reading_options(p) -> None:
    p.add_argument(
        "--format",
        choices=[f for f in INPUT_FORMATS if f != "qrels"],
        default="auto",
        help="input format (default auto: by suffix, then by the first data line; 'run' = SemEval "
        "'topic item rank score label', 'trec' = 'qid Q0 docno rank score tag')",
    )
    p.add_argument(
        "--relevance-level",
        type=float,
        default=None,
        help="graded gold made binary: relevant iff grade >= this level (TREC qrels: default 1; "
        "a numeric gold column of another --gold file: when given)",
    )
    p.add_argument(
        "--unjudged",
        choices=("error", "negative"),
        default="error",
        help="run items the --gold lacks: an error (default), or non-relevant as trec_eval reads qrels "
        "(TREC runs: --unjudged negative --missing negative)",
    )
    p.add_argument(
        "--verbose",
        action="store_true",
        help="list the files of the input folders that are skipped (README, .score, hidden files, ...) and why",
    )


def _read_gold_once(args) -> None:
    """The gold is read here, once, with the reading options (qrels binarised at --relevance-level);
    ``--verbose`` lists what the input folders hold besides runs."""
    from .io.labels import require_columns
    from .io.readers import list_inputs, read_gold

    if getattr(args, "verbose", False):
        for label, paths, kind in (("input", args.inputs, "runs"), ("gold", [args.gold] if args.gold else [], "gold")):
            for path, reason in list_inputs(paths, kind=kind)[1] if paths else []:
                print(f"fastmetrics: skipped {label} file {path}: {reason}", file=sys.stderr)
    if getattr(args, "gold", None) is not None:
        level = {} if args.relevance_level is None else {"relevance_level": args.relevance_level}
        table = read_gold(args.gold, gold_column=args.gold_column, **level)
        names = table.column_names
        # a gold file may name its columns as the runs do (--item, --gold-column) or by default
        needed = [c if c in names or default not in names else default for c, default in _gold_columns(args)]
        require_columns(names, needed, args.gold, " of a gold table")
        args.gold = table


def _gold_columns(args) -> list:
    return [(args.item, "item"), (args.gold_column, "gold")]


class Terminated(KeyboardInterrupt):
    """SIGTERM as a :class:`KeyboardInterrupt`.

    Raised where the process is so that the same clean-up as Ctrl-C runs (no partial output:
    :func:`fastmetrics.report.tables.write_table` removes its temporary file).
    """


_UNWIND = [False]  # a Dask cluster is up: its processes are shut down by unwinding, not os._exit


def _on_signal(signum, frame):
    """Ctrl-C or SIGTERM. While an output file is written, unwind so that its temporary file is
    removed; otherwise nothing is on disk yet, so stop at once (an exception raised here could be
    swallowed by a callback from numba's compiler and the job would run on)."""
    from .report.tables import writing

    if writing() or _UNWIND[0]:
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    sys.stderr.write("fastmetrics: terminated\n" if signum == signal.SIGTERM else "fastmetrics: interrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def main(argv=None, *, own_process: bool = False) -> int:
    """Run the command line; returns the exit status.

    0 on success; 2 for every failure the input, the options or the environment cause (one line
    ``fastmetrics: error: ...`` on stderr); 130 after Ctrl-C and 143 after SIGTERM (one line, no
    output file left behind). A bug of fastmetrics keeps its traceback (exit 1).

    With ``own_process`` (the ``fastmetrics`` program, :func:`run`) the process skips imports
    the command never uses (:func:`_skip_unused_imports`); a caller's process is left as it is.
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    parser.typed = _typed_options(sys.argv[1:] if argv is None else argv)
    if own_process:
        _skip_unused_imports(args)
    previous = _install_handlers() if _main_thread() else {}
    try:
        _refuse_contradictions(args)
        _refuse_unused(args, parser.typed)
        if args.memory_limit is not None:
            from . import _memory

            os.environ[_memory.ENV] = str(_memory.parse_size(args.memory_limit))
        if hasattr(args, "inputs") and hasattr(args, "relevance_level"):
            _read_gold_once(args)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            args.func(args)
    except FastmetricsError as exc:
        return _fail(str(exc))
    except BrokenPipeError:
        return 0
    except OSError as exc:  # the file system refused a path the user gave (permission, full disk ...)
        where = f" '{exc.filename}'" if exc.filename else ""
        return _fail(f"cannot use{where}: {exc.strerror or exc}.")
    except MemoryError:
        return _fail(
            "out of memory while counting or evaluating: use fewer thresholds, fewer --by axes, "
            "or count on Dask (--scheduler)."
        )
    except Terminated:
        print("fastmetrics: terminated", file=sys.stderr)
        return 128 + signal.SIGTERM
    except KeyboardInterrupt:
        print("fastmetrics: interrupted", file=sys.stderr)
        return 130
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    return 0


def _refuse_contradictions(args) -> None:
    """Refuse an option that the others would leave without effect, and two outputs on one file."""
    given = {name: getattr(args, name, None) for name in ("ci", "ci_method", "folds", "select", "significance")}
    needs = [
        ("--ci-method", given["ci_method"] is not None and given["ci"] is None, "--ci", "the intervals it chooses"),
        ("--folds", given["folds"] is not None and given["select"] != "cross-topic", "--select cross-topic", "folds"),
    ]
    for option in ("correction", "holm"):
        if getattr(args, option, None) and given["significance"] is None:
            needs.append((f"--{option}", True, "--significance", "the paired tests whose p-values it corrects"))
    for option, unused, wanted, what in needs:
        if unused:
            raise ParameterError(f"{option} has no effect without {wanted} ({what}): add {wanted} or drop {option}.")
    if getattr(args, "holm", False) and getattr(args, "correction", None) not in (None, "holm"):
        raise ParameterError(f"--holm and --correction {args.correction} ask for two corrections: give one.")
    outputs = [(f"--{o}", getattr(args, o, None)) for o in ("out", "detail", "curves")]
    outputs = [(o, os.path.realpath(v)) for o, v in outputs if v]
    for i, (option, path) in enumerate(outputs):
        for other, same in outputs[:i]:
            if path == same:
                raise ParameterError(f"{other} and {option} name the same file '{path}': give each its own.")


def _typed_options(argv) -> set:
    """The long options the user typed (``--name`` or ``--name=value``), defaults left out."""
    return {str(token).split("=", 1)[0] for token in argv if str(token).startswith("--")}


def _refuse_unused(args, typed: set) -> None:
    """Refuse an option typed where the command would leave it without effect."""
    command = getattr(args, "command", None)
    job = getattr(args, "job", None)
    ranks = str(getattr(args, "thresholds", None)) == "ranks"
    intervals = getattr(args, "ci", None) is not None or getattr(args, "significance", None) is not None
    unused = [
        ("--relevance-level", getattr(args, "gold", None) is None, "a --gold file (the grades it reads)"),
        ("--missing", getattr(args, "gold", None) is None, "a --gold file (items the runs miss)"),
        ("--unjudged", getattr(args, "gold", None) is None, "a --gold file (items it does not judge)"),
        ("--ties", not ranks, "--thresholds ranks (the order of equal scores)"),
        ("--resamples", command in ("evaluate", "leaderboard") and not intervals, "--ci or --significance"),
        ("--pairs", command == "meta" and job != "robustness", "meta robustness"),
        ("--splits", command == "meta" and job != "stability", "meta stability"),
    ]
    for option, idle, wanted in unused:
        if option in typed and idle:
            raise ParameterError(f"{option} has no effect without {wanted}: add it or drop {option}.")


class _NumbaWithout(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads two of numba's registry modules while the optional module each probes for cannot be
    imported.

    numba imports them when its first kernel runs (compiled or read from the cache):
    ``numba.np.arraymath`` looks for BLAS by importing ``scipy.linalg`` (0.3 s, a third of a small
    command) and ``numba.core.typing.cffi_utils`` builds a ``cffi.FFI`` (40 ms), for nothing
    fastmetrics calls. Without them numba's ``np.convolve``/``np.correlate`` use their own
    inner-product loop (``np.dot`` and ``np.linalg`` still find scipy when a kernel uses them)
    and jitted code cannot call cffi functions.
    """

    PROBES = {"numba.np.arraymath": "scipy.linalg.cython_blas", "numba.core.typing.cffi_utils": "cffi"}

    def __init__(self):
        self.loaders = {}

    def find_spec(self, name, path, target=None):
        if name not in self.PROBES or name in self.loaders:
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            self.loaders[name], spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return self.loaders[spec.name].create_module(spec)

    def exec_module(self, module) -> None:
        name = module.__spec__.name
        blocked = self.PROBES[name]
        absent = blocked not in sys.modules
        if absent:
            sys.modules[blocked] = None  # an ImportError at once, before the package's parents load
        try:
            self.loaders[name].exec_module(module)
        finally:
            if absent and sys.modules.get(blocked, 0) is None:
                del sys.modules[blocked]
        if len(self.loaders) == len(self.PROBES) and self in sys.meta_path:
            sys.meta_path.remove(self)


class _Refuse(importlib.abc.MetaPathFinder):
    """Fails the import of one top-level module (``None`` in ``sys.modules`` does not stop Cython's
    imports)."""

    def __init__(self, name: str):
        self.name = name

    def find_spec(self, name, path, target=None):
        if name == self.name:
            raise ImportError(f"{name} is not imported here", name=name)
        return None


def run() -> int:
    """Run the ``fastmetrics`` program: :func:`main` in a process of its own.

    The console script and ``python -m fastmetrics`` call it.

    Returns
    -------
    int
        The exit status, as :func:`main` returns it.
    """
    return main(own_process=True)


def _skip_unused_imports(args) -> None:
    """Spare the process scipy and cffi (numba's probes, :class:`_NumbaWithout`) and pandas
    (pyarrow's optional uses): 0.35 s and 0.3 s of a small command, for nothing a command calls.

    pyarrow imports pandas where it could meet pandas objects (its first array, ``pyarrow.dataset``,
    which Arrow's group-by and joins load) and goes without it where it is not installed. No
    command converts to or from pandas except the Dask ones (``--scheduler``), whose partitions
    are pandas objects: they keep it.
    """
    if not any(isinstance(f, _NumbaWithout) for f in sys.meta_path):
        sys.meta_path.insert(0, _NumbaWithout())
    if not getattr(args, "scheduler", None) and "pandas" not in sys.modules:
        sys.meta_path.insert(0, _Refuse("pandas"))


def _install_handlers() -> dict:
    """Route SIGINT (unless the caller ignores it, as ``nohup`` does) and SIGTERM to :func:`_on_signal`;
    returns the previous handlers."""
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, _on_signal)
    return previous


def _fail(message: str) -> int:
    print(f"fastmetrics: error: {' '.join(message.split())}", file=sys.stderr)
    return 2


def _main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
