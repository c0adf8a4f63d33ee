"""The input of the commands that read runs: opened once, its column options checked against it,
and the gold read once with the reading options."""

from __future__ import annotations

import sys

from .._errors import ParameterError
from .options import split


def open_runs(args):
    """The input, opened once, its column options checked against it.

    The columns are read by the user's names: counting takes --system, --topic and --item as the
    columns playing those parts.
    """
    from ..count.tables import saved_layout
    from ..io.labels import require_columns
    from ..io.source import open_source

    src = open_source(args.inputs, format=args.format)
    roles = saved_layout(src.schema).get("roles")
    if roles and (args.system, args.topic) == ("system", "topic"):
        args.system, args.topic = roles["system"], roles["topic"]  # counts saved with --system/--topic
    distinct_columns(args)
    named = [(args.system, "system", "--system"), (args.topic, "topic", "--topic"), (args.item, "item", "--item")]
    named += [(c, "score", "--score") for c in score_columns(args)] if hasattr(args, "score") else []
    named += [(args.weight, None, "--weight")] if getattr(args, "weight", None) else []
    named += [(args.pred, "pred", "--pred")] if hasattr(args, "pred") else []
    for column, default, option in named:
        if column != default:  # a column the user named must exist, or the job would quietly do without
            require_columns(src.column_names, [column], src.names[0], f" named by {option}")
    if args.command not in ("evaluate", "count") and probability_scores(src, args.score):
        raise ParameterError(
            f"--score {args.score}: class probabilities are scored by 'fastmetrics evaluate' (argmax measures, "
            f"--thresholds topk|exact) and saved by 'fastmetrics count'; '{args.command}' ranks hard predictions "
            "or binary scores. Give a --pred column of hard labels, or use evaluate."
        )
    return src


def probability_scores(src, score: str) -> bool:
    """Whether --score names class probabilities: several columns, or one list column."""
    import pyarrow as pa

    if "," in score:
        return True
    return (
        score in src.column_names
        and pa.types.is_list(src.schema.field(score).type)
        or (score in src.column_names and pa.types.is_fixed_size_list(src.schema.field(score).type))
    )


def score_columns(args) -> list[str]:
    """The columns of --score: one, or one per class (comma-separated, spaces around names dropped)."""
    return [c.strip() for c in args.score.split(",")]


def distinct_columns(args) -> None:
    """One column cannot play two parts (--pred gold would score the gold against itself)."""
    scores = score_columns(args)
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


def grouping(args, topic: bool = True) -> tuple:
    """The --by columns (default: the columns playing the system and, with ``topic``, the topic)."""
    if not args.by:
        return (args.system, args.topic) if topic else (args.system,)
    return tuple(c.strip() for c in args.by.split(",") if c.strip())


def columns(args) -> dict:
    """The count options naming the runs' columns (--item, --gold-column, --pred, --score, --weight)."""
    # several score columns, one per class, are class probabilities (fastmetrics.count.probabilities)
    score = score_columns(args) if "," in args.score else args.score
    names = dict(system=args.system, topic=args.topic, item=args.item, gold_column=args.gold_column, pred=args.pred)
    return dict(names, score=score, weight=args.weight)


def count_options(args, **fields):
    """The :class:`~fastmetrics.count.options.CountOptions` a command's arguments ask for.

    Parameters
    ----------
    args : argparse.Namespace
        The command's arguments: ``--by`` and the column names, and ``--missing``, ``--unjudged``,
        ``--task`` and ``--classes`` where the command has them.
    **fields
        The other count options (``thresholds``, ``grid``, ``category``, ...), or values taking
        precedence over the arguments'.

    Returns
    -------
    CountOptions
    """
    from ..count.options import CountOptions

    asked = dict(by=grouping(args), **columns(args))
    asked.update({name: getattr(args, name) for name in ("missing", "unjudged", "task") if hasattr(args, name)})
    if getattr(args, "classes", None) is not None:
        asked["classes"] = split(args.classes)
    return CountOptions(**{**asked, **fields})


def read_gold_once(args) -> None:
    """Read the gold once, with the reading options (qrels binarised at --relevance-level).

    ``--verbose`` lists what the input folders hold besides runs.
    """
    from ..io.gold import read_gold
    from ..io.labels import require_columns
    from ..io.paths import list_inputs

    if getattr(args, "verbose", False):
        for label, paths, kind in (("input", args.inputs, "runs"), ("gold", [args.gold] if args.gold else [], "gold")):
            for path, reason in list_inputs(paths, kind=kind)[1] if paths else []:
                print(f"fastmetrics: skipped {label} file {path}: {reason}", file=sys.stderr)
    if getattr(args, "gold", None) is not None:
        level = {} if args.relevance_level is None else {"relevance_level": args.relevance_level}
        table = read_gold(args.gold, gold_column=args.gold_column, **level)
        names = table.column_names
        # a gold file may name its columns as the runs do (--item, --gold-column) or by default
        pairs = [(args.item, "item"), (args.gold_column, "gold")]
        needed = [c if c in names or default not in names else default for c, default in pairs]
        require_columns(names, needed, args.gold, " of a gold table")
        args.gold_path = args.gold  # named in the provenance of what is written
        args.gold = table
