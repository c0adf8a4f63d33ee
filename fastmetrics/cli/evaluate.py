"""``fastmetrics evaluate``: measures per (system, topic[, threshold]) cell."""

from __future__ import annotations

from .._errors import ParameterError
from . import options
from .counting import cost_of, distributed_count, task_of
from .options import DEFAULT_MEASURES, TABLE_FILES, parse_thresholds
from .output import emit
from .reading import count_options, grouping, open_runs

AVERAGE_CHOICES = ("none", "micro", "macro", "weighted", "samples")


def add_parser(sub) -> None:
    """The ``evaluate`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("evaluate", help="measures per (system, topic[, threshold])")
    options.inputs(p)
    options.gold(p)
    options.measures(
        p,
        "comma-separated specs; a suffix @micro/@macro/@weighted/@samples sets one measure's "
        "averaging (default by task: " + "; ".join(f"{k}: {v}" for k, v in DEFAULT_MEASURES.items()) + ")",
    )
    options.by(p)
    options.task(p, "default auto: list-typed gold is multilabel, bool/0-1 labels binary, other labels multiclass")
    p.add_argument(
        "--average",
        choices=AVERAGE_CHOICES,
        default=None,
        help="one-vs-rest averaging over classes (default none; micro for multilabel)",
    )
    options.classes(
        p,
        "comma-separated class labels in order (e.g. an ordinal scale); "
        "default the sorted union of gold and predicted labels",
    )
    options.cost(p)
    p.add_argument(
        "--pos-label",
        help="the label binary measures (precision, recall, f1, ...) read as positive (default 1, as "
        "scikit-learn's pos_label; two labels without 1, e.g. ham/spam, need it)",
    )
    options.category(p)
    options.scheduler(p)
    options.thresholds(p)
    options.grid(p, "with --thresholds k: one grid over all scores, or each system's own range or score quantiles")
    options.ties(p)
    options.missing(p, "what to do with gold items a run lacks (default error)")
    _evaluation_options(p)
    options.runs(p, probabilities=True)
    p.set_defaults(func=action)


def _evaluation_options(p) -> None:
    """How the counts are evaluated and the scores written."""
    options.undefined(p, "value for undefined cells (default NaN)")
    options.ci(p, "a confidence level (e.g. 0.95): ci_low and ci_high columns")
    p.add_argument("--wide", action="store_true", help="write one column per measure (default: tidy, one row each)")
    p.add_argument(
        "--ci-method",
        choices=("bootstrap", "wilson", "jeffreys"),
        default=None,
        help="with --ci: multinomial bootstrap of each cell's items (any measure, the default) or a proportion's "
        "analytic interval",
    )
    options.resamples(p, "bootstrap replicates (default 2000)", low=10, default=2000)
    options.seed(p, "seed of the bootstrap (default 0)")
    options.smoothing(p)
    options.out(p, f"write the scores ({TABLE_FILES}) instead of printing them")
    options.quiet(p)


def action(args) -> None:
    """Count the runs and print or write the measures of every cell."""
    from ..measures import registry

    if args.measures is not None:
        registry.parse_specs(args.measures)  # fail before reading data
    tensor = _count(args)
    task = task_of(tensor)
    defaults = "top_k" if "top_k" in tensor.axes else _defaults_of(task, tensor, args)
    measures = args.measures or DEFAULT_MEASURES[defaults]
    average = args.average
    if average is None:
        average = "micro" if task == "multilabel" else "default"  # per class only when asked
    kwargs = {}
    if args.cost is not None:
        kwargs["cost"] = cost_of(args, tensor, task)
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
    emit(scores.to_arrow(wide=args.wide), args.out)


def _count(args):
    """The counts of the runs, in this process or on Dask."""
    from ..count import count

    by = grouping(args)
    if args.scheduler:
        return distributed_count(args, by, thresholds=parse_thresholds(args.thresholds))
    src = open_runs(args)  # the runs' column options checked against them first (one column, one part)
    asked = count_options(
        args,
        thresholds=parse_thresholds(args.thresholds),
        category=args.category,
        grid=args.grid,
        ties=args.ties,
        multiclass=args.multiclass,
    )
    return count(src, args.gold, options=asked, progress=not args.quiet)


def _defaults_of(task: str, tensor, args) -> str:
    """The default measures' task: binary ones where a class is positive (scikit-learn's
    ``pos_label``: 1 among two labels such as {1, 2}, or --pos-label)."""
    from ..measures.positive import has_positive

    if task == "multiclass" and (args.pos_label is not None or (tensor.m <= 2 and has_positive(tensor.classes))):
        return "binary"
    return task
