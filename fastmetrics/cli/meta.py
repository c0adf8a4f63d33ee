"""``fastmetrics meta``: one meta-evaluation job (strictness, robustness, stability, inconsistency, power)."""

from __future__ import annotations

from .._errors import ParameterError
from . import options
from .counting import count_from_args, measure_list, task_of
from .options import int_at_least, positive_int, split
from .reading import grouping, open_runs

JOBS = ("strictness", "robustness", "stability", "inconsistency", "power")


def add_parser(sub) -> None:
    """The ``meta`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("meta", help="meta-evaluation: strictness, robustness, stability, inconsistency, power")
    p.add_argument("job", choices=JOBS)
    options.counting(p)
    options.tables_out(
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
    p.add_argument("--splits", type=int_at_least(1), default=500, help="stability: random halvings (default 500)")
    p.add_argument(
        "--tolerance",
        type=float,
        default=1e-5,
        help="inconsistency/stability: differences within it are ties (default 1e-5)",
    )
    p.add_argument("--alpha", type=float, default=0.05, help="power: significance level (default 0.05)")
    options.sweeping(p)
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Run the job on the scores of the runs and print or write its summary (and --detail)."""
    from .. import meta
    from ..board import held_out_scores

    if args.job == "stability":
        emit_job(_stability(args), args, None)
        return
    tensor = count_from_args(args)
    scores = tensor.evaluate(measure_list(args, task_of(tensor)), smoothing=args.smoothing, undefined=args.undefined)
    roles = dict(system=args.system, topic=args.topic)
    if args.select != "same":
        scores = held_out_scores(scores, args.select, args.folds, args.seed, **roles)
    shown = dict(progress=not args.quiet, **roles)
    if args.job == "strictness":
        result = meta.strictness(scores, **shown)
    elif args.job == "robustness":
        pairs = "all" if args.pairs == "all" else positive_int(args.pairs, "--pairs")
        result = meta.robustness(scores, pairs=pairs, seed=args.seed, detail=bool(args.detail), **shown)
    elif args.job == "inconsistency":
        result = meta.inconsistency(scores, tolerance=args.tolerance, **roles)
    else:
        result = meta.power(scores, alpha=args.alpha, resamples=args.resamples, seed=args.seed, **shown)
    emit_job(result, args, scores)


HEADINGS = {
    "strictness": "Strictness of each measure (Amigó, Gonzalo, Verdejo & Spina 2019, §6.3): at level th, the lowest "
    "rank another measure gives to the outputs this one ranks in its top th; shown at five of the {levels} levels "
    "and their mean, strictest first",
    "robustness": "Robustness of each measure (Amigó et al. 2019, §6.4): the Spearman correlation of the system "
    "scores on two topics, its mean and std over {pairs} topic pairs, most robust first",
    "stability": "Split-half stability of each measure: how often the two halves of each topic's items order a pair "
    "of systems differently (swap_rate), and the mean std of a system's score over the halves; most stable first",
    "inconsistency": "Inconsistency between measures (Gösgens et al. 2021, §5): the percentage of comparisons (a pair "
    "of systems on one topic) two measures order differently, most inconsistent first",
    "power": "Discriminative power of each measure (Sakai 2006): the share of system pairs whose paired bootstrap "
    "p-value is below {alpha}, most discriminative first",
}


def emit_job(result, args, scores) -> None:
    """Print what a job measured and its compact view; the whole summary goes to --out.

    The detail goes to --detail.
    """
    from .._show import table_text
    from .output import emit_result, say, write_detail

    params = result.params
    levels = len(params.get("thresholds") or ())
    heading = HEADINGS[args.job].format(levels=levels, pairs=params.get("pairs_drawn", ""), alpha=args.alpha)
    if scores is not None:
        sizes = " x ".join(f"{n:,} {a}s" for a, n in zip(scores.axes, scores.batch_shape))
        heading += f"; over {sizes}"
    say([heading + "."], args.out)
    if args.out:
        emit_result(result, args)
        return
    write_detail(result, args)
    table, _, note = result.view()
    more = "--out FILE for every row" + (", --detail FILE for the detail" if result.detail is not None else "")
    print(table_text(table, f"{result.summary.num_rows:,} rows in all ({more})", "" if note.startswith(".") else note))


def _stability(args):
    """Split-half stability: the runs themselves halved, not their counts."""
    from .. import meta

    if args.unjudged != "error":
        raise ParameterError(
            "meta stability splits the judged items of each topic: --unjudged negative is not available there."
        )
    if args.scheduler:
        raise ParameterError("Stability resamples the items of every topic: it runs in one process; drop --scheduler.")
    if args.weight is not None:
        raise ParameterError("meta stability counts items, not weights: drop --weight.")
    if getattr(args, "thresholds", None) is not None:
        raise ParameterError("meta stability counts the hard predictions of each half: drop --thresholds.")
    measures = measure_list(args, "binary")
    return meta.stability(
        open_runs(args),
        args.gold,
        measures=measures,
        replicates=args.splits,
        seed=args.seed,
        tolerance=args.tolerance,
        progress=not args.quiet,
        by=grouping(args),
        system=args.system,
        topic=args.topic,
        missing=args.missing,
        pred=args.pred,
        item=args.item,
        gold_column=args.gold_column,
        task=args.task,
        classes=split(args.classes),
    )
