"""``fastmetrics leaderboard``: macro and micro scores per system, ranks, baselines, significance."""

from __future__ import annotations

import sys
import warnings

from .._errors import ParameterError, UndefinedMeasureWarning
from . import options
from .counting import cost_of, count_from_args, measure_list, task_of
from .output import emit_result
from .reading import columns, open_runs


def add_parser(sub) -> None:
    """The ``leaderboard`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("leaderboard", help="macro and micro scores per system, ranks, baselines, significance")
    options.counting(p)
    options.tables_out(
        p,
        "the leaderboard (one row per system or baseline and measure)",
        "the paired tests of --significance",
        "replicates of the bootstrap tests and of the --ci intervals",
    )
    p.add_argument("--no-baselines", action="store_true", help="leave out the placebo/zero/random rows")
    options.cost(p)
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
    options.ci(
        p,
        "a confidence level (e.g. 0.95): intervals of macro (topics resampled), micro (items resampled) and "
        "rank, and the systems tied with the leader (--resamples, --seed)",
    )
    options.sweeping(p)
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Rank the systems and print or write the leaderboard (and the paired tests to --detail)."""
    from ..board import leaderboard
    from ..count.goldkeys import normalised_gold
    from ..meta import item_tests

    src = open_runs(args)
    tensor = count_from_args(args, src)
    measures = measure_list(args, task_of(tensor))
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
            **{k: v for k, v in columns(args).items() if k != "score"},
        ).summary
    emit_result(result, args)


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
        cost=None if args.cost is None else cost_of(args, tensor, task_of(tensor)),
        system=args.system,
        topic=args.topic,
    )
