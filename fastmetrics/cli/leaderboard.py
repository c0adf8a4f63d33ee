"""``fastmetrics leaderboard``: macro and micro scores per system, ranks, baselines, significance, tiers."""

from __future__ import annotations

import sys
import warnings

from .._errors import ParameterError, SignificanceWarning, UndefinedMeasureWarning
from . import options
from .counting import cost_of, count_from_args, measure_list, task_of
from .output import emit_result
from .reading import columns, open_runs

ACROSS_TOPICS = ("t", "wilcoxon", "sign", "fisher", "bootstrap", "bayes")
OVER_ITEMS = ("mcnemar", "item-bootstrap", "delong")


def add_parser(sub) -> None:
    """The ``leaderboard`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("leaderboard", help="macro and micro scores per system, ranks, baselines, significance, tiers")
    options.counting(p)
    options.tables_out(
        p,
        "the leaderboard as printed: ranked, one row per system, the baselines last (.tex: a booktabs table "
        "for a paper, best values in bold; --long: the tidy table)",
        "the paired tests of --significance",
        "replicates of the resampling tests and of the --ci intervals, where --test-resamples and --ci-resamples "
        "do not say otherwise",
        default=None,
    )
    options.long_table(p)
    options.rank_by(p)
    p.add_argument(
        "--no-baselines",
        action="store_true",
        help="leave out the baselines (added by default: placebo, every item positive; zero, every item negative; "
        "random, each item positive with probability 1/2)",
    )
    options.cost(p)
    p.add_argument(
        "--significance",
        choices=ACROSS_TOPICS + OVER_ITEMS,
        default=None,
        help="paired tests between every pair of systems, written with --detail, and the tiers they draw: across "
        "topics -- t (the paired t-test: continuous p-values, the one to choose without a reason for another), "
        "wilcoxon, sign, fisher (randomization), bootstrap, bayes (Bayesian signed-rank with --rope) -- or over the "
        "items of one test set (mcnemar, item-bootstrap, delong: ROC AUC of the --score column)",
    )
    p.add_argument("--holm", action="store_true", help="Holm-correct the p-values over system pairs")
    p.add_argument(
        "--correction", choices=("holm", "bonferroni", "bh"), default=None, help="multiple-comparison correction"
    )
    options.alpha(p, "level of the tiers, and the one --significance fisher|bootstrap size their resamples for")
    options.test_resamples(p)
    options.ci_resamples(p)
    p.add_argument(
        "--rope",
        type=float,
        default=None,
        help="--significance bayes: half-width of the region of practical equivalence, in the measures' units "
        "(default 0.01)",
    )
    options.ci(
        p,
        "a confidence level (e.g. 0.95): intervals of macro (topics resampled), micro (items resampled) and "
        "rank, and the systems tied with the leader (--ci-resamples, --seed)",
    )
    options.sweeping(p)
    options.profile(p)
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Rank the systems and print or write the leaderboard (and the paired tests to --detail)."""
    from ..board import leaderboard, with_tiers
    from ..count.goldkeys import normalised_gold
    from ..measures import registry
    from ..meta import item_tests
    from ..report.tables import output_path

    for path in (getattr(args, "out", None), args.detail):
        if path:
            output_path(path)  # checked before anything is counted or tested
    if args.measures:
        registry.parse_specs(args.measures)  # a misspelt measure named before the runs are read
    ranked_measures(args, [])  # and a misspelt --rank-by, or more than one
    src = open_runs(args)
    tensor = count_from_args(args, src)
    measures = ranked_measures(args, measure_list(args, task_of(tensor)))
    args.heading = ranking_heading(args, measures)
    correction = args.correction or ("holm" if args.holm else None)
    over_items = args.significance in OVER_ITEMS
    if args.significance in ("mcnemar", "item-bootstrap") and args.thresholds is not None:
        raise ParameterError(
            f"--significance {args.significance} compares the systems' hard predictions ('{args.pred}') item by "
            "item: drop --thresholds, or use a test across topics (--significance t)."
        )
    with warnings.catch_warnings():  # notes of the result's, printed once below
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        warnings.simplefilter("ignore", SignificanceWarning)
        result = _board_of(leaderboard, tensor, measures, args, over_items, correction)
    if result.params.get("ci_note"):
        print(f"fastmetrics: note: {result.params['ci_note']}.", file=sys.stderr)
    for note in result.params.get("notes") or []:
        print(f"fastmetrics: warning: {note}", file=sys.stderr)
    if over_items:
        gold = None if args.gold is None else normalised_gold(args.gold, args.item, args.gold_column, topic=args.topic)
        named = {k: v for k, v in columns(args).items() if k != "score"}
        if args.significance == "delong":
            named["pred"] = args.score
        result.detail = item_tests(
            src,
            gold,
            measures=measures,
            method=args.significance,
            resamples=_item_resamples(args),
            seed=args.seed,
            correction=correction,
            **named,
        ).summary
        result.summary = with_tiers(result.summary, result.detail, args.alpha, system=args.system, topic=args.topic)
    emit_result(result, args)


def ranked_measures(args, measures: list) -> list:
    """The measures with --rank-by's first (the board ranks by its first measure)."""
    from ..measures import registry

    if not getattr(args, "rank_by", None):
        return measures
    registry.parse_specs(args.rank_by)
    if "," in args.rank_by:
        raise ParameterError(f"--rank-by takes one measure; got '{args.rank_by}'.")
    return [args.rank_by] + [m for m in measures if m != args.rank_by]


def ranking_heading(args, measures: list) -> list:
    """What the board ranks by and why, and the baselines it adds: the lines above a board."""

    why = (
        "--rank-by"
        if getattr(args, "rank_by", None)
        else "the first of --measures"
        if getattr(args, "measures", None)
        else "the first default measure"
    )
    lines = [f"Leaderboard ranked by the macro mean over topics of {measures[0]} ({why}; --rank-by to change)"]
    if not getattr(args, "no_baselines", False):
        lines.append(
            "Baselines added (rank 'baseline'): placebo (all positive), zero (all negative), random (p = 1/2); "
            "--no-baselines to drop"
        )
    return lines


def _item_resamples(args) -> int:
    """The item bootstrap's replicates: --test-resamples, else --resamples, else 1000."""
    for value in (args.test_resamples, args.resamples):
        if value is not None:
            return value
    return 1000


def _board_of(leaderboard, tensor, measures, args, over_items, correction):
    """The leaderboard the options ask for (item tests added by the caller)."""
    return leaderboard(
        tensor,
        measures,
        baselines=not args.no_baselines,
        significance=None if over_items else args.significance,
        correction=correction,
        alpha=args.alpha,
        resamples=args.resamples,
        test_resamples=args.test_resamples,
        ci_resamples=args.ci_resamples,
        rope=0.01 if args.rope is None else args.rope,
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
