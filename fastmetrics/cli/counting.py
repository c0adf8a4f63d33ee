"""Counting as the commands ask for it: the hard counts or the sweep of the jobs that rank
systems, counts on Dask, the measure list of a task and the cost matrix of ``--cost``."""

from __future__ import annotations

import os

from .._errors import ParameterError
from .options import DEFAULT_MEASURES, parse_thresholds
from .process import UNWIND
from .reading import columns, count_options, grouping, open_runs


def task_of(tensor) -> str:
    """The task of counted labels: ``binary``, ``multiclass`` or ``multilabel``."""
    from ..tensor import GradedRanks, MixedCounts, MultilabelTensor

    if isinstance(tensor, MixedCounts):  # the task of its hard predictions
        tensor = tensor.hard
    if isinstance(tensor, GradedRanks):  # ranked lists: relevant or not at each grade
        return "binary"
    if isinstance(tensor, MultilabelTensor):
        return "multilabel"
    return "binary" if tensor.m == 2 and list(tensor.classes) == [0, 1] else "multiclass"


def measure_list(args, task: str) -> list[str]:
    """The measure specs of ``--measures`` (or the task's defaults), checked before any counting."""
    from ..measures import registry

    text = args.measures or DEFAULT_MEASURES[task]
    registry.parse_specs(text)
    return registry.split_specs(text)


def count_from_args(args, src=None):
    """Hard counts for the jobs that rank systems (leaderboard, meta, report).

    The input is opened once: ``src``, or opened here.
    """
    from ..count import count
    from ..tensor import ConfusionTensor

    if getattr(args, "profile", None):
        return profiled_count(args)
    by = grouping(args)
    src = open_runs(args) if src is None else src
    names = src.column_names
    sweep = parse_thresholds(args.thresholds) if args.command in ("leaderboard", "meta", "compare") else None
    select = getattr(args, "select", "same")
    if select != "same" and not isinstance(sweep, int):
        raise ParameterError(f"--select {select} chooses thresholds on a grid: give --thresholds k (an int).")
    if (
        sweep is None
        and args.pred not in names
        and getattr(args, "score", "score") in names
        and not {"tp", "fp", "fn", "tn"} <= set(names)
    ):
        raise ParameterError(
            f"The input has scores ('{getattr(args, 'score', 'score')}') but no hard predictions ('{args.pred}'): "
            f"'{args.command}' ranks one confusion matrix per system and topic. Add a '{args.pred}' column of hard "
            "labels (e.g. score >= 0.5), name yours with --pred, or choose a threshold per system with "
            "'fastmetrics sweep' (or rank them with curve measures and --thresholds exact|ranks)."
        )
    if getattr(args, "scheduler", None):
        return distributed_count(args, by)
    # hard counts read the predictions: --score is read by a sweep only
    asked = count_options(args, by=by, **(_sweep_options(args, sweep) if sweep else {"score": "score"}))
    if select != "same":
        return selection_count(args, src, asked)
    if sweep is not None and _mixed_kinds(args):
        return mixed_count(args, src, by, sweep)
    tensor = count(src, args.gold, options=asked, progress=not args.quiet)
    if sweep is None and args.system in by and args.system not in names and isinstance(tensor, ConfusionTensor):
        tensor = one_system(tensor, args.inputs, args.system)
    return tensor


def _mixed_kinds(args) -> bool:
    """Whether --measures names point measures and curve or ranking ones together."""
    from ..measures import parse_specs

    kinds = {spec.measure.kind == "point" for spec in parse_specs(measure_list(args, "binary"))}
    return len(kinds) == 2


def mixed_count(args, src, by, sweep):
    """The hard counts of --pred and the sweep of --thresholds of the same rows, read once.

    A board of point measures beside curve or ranking ones (:class:`~fastmetrics.tensor.MixedCounts`).
    """
    from ..count import count
    from ..tensor import MixedCounts

    if args.pred not in src.column_names:
        raise ParameterError(
            f"--measures {args.measures}: the point measures read hard predictions, and the input has no "
            f"'{args.pred}' column: name it with --pred, or ask curve and ranking measures only."
        )
    table = src.read_all()
    hard = count(table, args.gold, options=count_options(args, by=by, score="score"), progress=False)
    swept = count(
        table, args.gold, options=count_options(args, by=by, **_sweep_options(args, sweep)), progress=not args.quiet
    )
    return MixedCounts(hard, swept)


# the options whose value, when it is argparse's default, leaves the profile's in force
_PROFILED = {"missing": "error", "unjudged": "error", "ties": "input", "undefined": None}


def profiled_count(args):
    """Ranked lists counted under ``--profile`` (:func:`fastmetrics.pipeline.count_ranked`).

    An option given explicitly wins over the profile's; the profile's ``undefined`` becomes
    ``--undefined``'s.
    """
    from ..measures import parse_specs
    from ..measures.profiles import PROFILES
    from ..pipeline import count_ranked

    if args.gold is None:
        raise ParameterError(f"--profile {args.profile} scores ranked lists against judgements: give --gold.")
    if args.thresholds not in (None, "ranks"):
        raise ParameterError(f"--profile {args.profile} ranks each topic's items: drop --thresholds {args.thresholds}.")
    explicit = {k: getattr(args, k) for k, default in _PROFILED.items() if getattr(args, k) != default}
    if args.measures is None:  # the profile's measures, where none is named
        args.measures = ",".join(PROFILES[args.profile]["measures"])
    measures = measure_list(args, "binary")
    gold = args.gold
    if any(spec.measure.kind == "graded" for spec in parse_specs(measures)):
        gold = getattr(args, "gold_path", gold)  # the grades, not the gold read binary at the relevance level
    ranks, conventions = count_ranked(
        args.inputs[0] if len(args.inputs) == 1 else list(args.inputs),
        gold,
        profile=args.profile,
        measures=measures,
        complete=bool(getattr(args, "complete", False)),
        format=args.format,
        **columns(args),
        **explicit,
    )
    args.undefined = conventions.get("undefined")
    args.thresholds = "ranks"
    return ranks


def _sweep_options(args, sweep) -> dict:
    """The count options of a sweep for the jobs that rank systems."""
    grid = args.grid if isinstance(sweep, int) else "global"
    return {"thresholds": sweep, "score": args.score, "ties": args.ties, "grid": grid}


def selection_count(args, src, asked):
    """The sweep that threshold selection on held-out data reads.

    Per (system, topic), and for ``split-half`` per half of each topic's items as well
    (``asked``: the :class:`~fastmetrics.count.options.CountOptions` of the sweep).
    """
    from dataclasses import fields, replace

    from ..count import count
    from ..count.halves import halves_sweep

    asked = replace(asked, by=tuple(dict.fromkeys(asked.by + (args.system, args.topic))))
    if args.select == "cross-topic":
        return count(src, args.gold, options=asked)
    # halves_sweep counts each half with the options asked (those away from their defaults), the
    # sweep's own given apart
    rest = {
        f.name: getattr(asked, f.name)
        for f in fields(asked)
        if f.name not in ("thresholds", "grid", "by") and getattr(asked, f.name) != f.default
    }
    return halves_sweep(
        src, args.gold, thresholds=asked.thresholds, grid=asked.grid, seed=args.seed, by=asked.by, **rest
    )


def one_system(tensor, inputs, axis: str = "system"):
    """Input without a system column is one system (the axis ``axis``), named after its file (or 'system')."""
    from ..io.paths import run_system_name
    from ..tensor import ConfusionTensor

    name = run_system_name(inputs[0]) if len(inputs) == 1 and os.path.isfile(inputs[0]) else "system"
    return ConfusionTensor(
        tensor.counts[None],
        (axis,) + tensor.axes,
        {**tensor.coords, axis: [name]},
        coord_axes=tensor.coord_axes,
        classes=tensor.classes,
    )


def distributed_count(args, by, thresholds=None):
    """Count on Dask (``--scheduler local[:N] | ADDRESS``); the jobs then run on the client."""
    from .. import dask as fmd

    if len(args.inputs) != 1:
        raise ParameterError("--scheduler takes one Parquet dataset (a file, a folder or a URL).")
    if getattr(args, "unjudged", "error") != "error":
        raise ParameterError(
            "--unjudged negative needs every run's items in one place: drop --scheduler, or add "
            "the unjudged items to the gold as negatives."
        )
    asked = count_options(args, by=by, thresholds=thresholds)
    client = fmd.client_for(args.scheduler)
    UNWIND[0] = True
    try:
        return fmd.count(args.inputs[0], gold=args.gold, client=client, options=asked)
    finally:
        cluster = getattr(client, "cluster", None)
        client.close()
        if cluster is not None and args.scheduler.startswith("local"):
            cluster.close()
        UNWIND[0] = False


def cost_of(args, tensor, task):
    """The cost matrix of --cost over the counts' classes (multiclass labels only)."""
    if task != "multiclass":
        raise ParameterError("--cost applies to multiclass labels (k_cost); these labels are " + task + ".")
    return _cost_matrix(args.cost, tensor.classes)


def _cost_matrix(text: str, classes):
    """--cost: 'ordinal', 'unit', or a cost-matrix file (square with labels, or true,pred,cost)."""
    from ..io.source import open_source
    from ..measures import ordinal_costs
    from ..measures.multiclass import cost_matrix, unit_costs

    if text == "ordinal":
        return ordinal_costs(len(classes))
    if text == "unit":
        return unit_costs(len(classes))
    if not os.path.isfile(text):
        raise ParameterError(
            f"--cost takes 'ordinal', 'unit' or a cost-matrix file (.csv, .parquet); there is no file '{text}'."
        )
    return cost_matrix(open_source(text).read_all(), classes, f"cost file '{text}'")
