"""``fastmetrics compare``: many systems at once -- Friedman's test, a post-hoc test of every pair,
mean ranks, tiers and groups, and the critical-difference diagram."""

from __future__ import annotations

import sys

from . import options
from .counting import count_from_args, measure_list, task_of
from .reading import open_runs

POSTHOC = ("nemenyi", "conover", "wilcoxon")


def add_parser(sub) -> None:
    """The ``compare`` command: its options, and :func:`action` to run."""
    p = sub.add_parser(
        "compare", help="Friedman's test, post-hoc tests, tiers and the critical-difference diagram of many systems"
    )
    options.counting(p)
    options.table_out(p, "the mean ranks, tiers and groups (one row per measure and system)")
    p.add_argument("--detail", help=f"write the post-hoc test of every pair to this file ({options.TABLE_FILES})")
    p.add_argument(
        "--posthoc",
        choices=POSTHOC,
        default="nemenyi",
        help="the post-hoc test of every pair: nemenyi (the critical difference of mean ranks, Demšar 2006), "
        "conover, or wilcoxon (signed-rank tests of every pair, corrected) (default nemenyi)",
    )
    p.add_argument(
        "--correction",
        choices=("holm", "bonferroni", "bh"),
        default="holm",
        help="correction of conover's and wilcoxon's p-values (nemenyi's need none) (default holm)",
    )
    options.alpha(p, "level of the critical difference and of the tiers")
    p.add_argument(
        "--cd",
        metavar="FILE",
        help="draw the first measure's critical-difference diagram: .svg, .png, .pdf (the [report] extra) or "
        ".tex (a TikZ picture)",
    )
    p.add_argument("--title", help="the diagram's title (default: the measure, the topics and the test)")
    options.smoothing(p)
    options.sweeping(p)
    options.runs(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Compare the systems and print or write the ranks (and the pairs to --detail, the diagram to --cd)."""
    from ..board import compare, held_out_scores, test_sentence
    from ..report import cd, format_table, write_table
    from ..report.tables import output_path

    for path in (args.out, args.detail):
        if path:
            output_path(path)  # checked before anything is counted
    if args.cd:
        cd.check_path(args.cd)
    tensor = count_from_args(args, open_runs(args))
    measures = measure_list(args, task_of(tensor))
    roles = dict(system=args.system, topic=args.topic)
    data = tensor
    if args.select != "same":
        data = held_out_scores(
            tensor.evaluate(measures, smoothing=args.smoothing), args.select, args.folds, args.seed, **roles
        )
    result = compare(
        data,
        measures,
        posthoc=args.posthoc,
        alpha=args.alpha,
        correction=args.correction,
        smoothing=args.smoothing,
        undefined=args.undefined,
        progress=not args.quiet,
        **roles,
    )
    for test in result.tests.to_pylist():
        print(test_sentence(test, args.alpha))
    if args.out:
        write_table(result.summary, args.out)
        print(f"wrote {result.summary.num_rows} rows to {args.out}", file=sys.stderr)
    else:
        for measure in result.tests.column("measure").to_pylist():
            rows = result.summary.filter(result.summary.column("measure").to_numpy(zero_copy_only=False) == measure)
            sys.stdout.write(f"\n{measure}:\n" + format_table(rows.drop_columns(["measure"]), max_rows=200))
    if args.detail:
        write_table(result.detail, args.detail)
        print(f"wrote {result.detail.num_rows} rows to {args.detail}", file=sys.stderr)
    if args.cd:
        title = args.title if args.title is not None else True
        cd.write(cd.of_comparison(result, system=args.system, title=title), args.cd)
        print(f"wrote {args.cd}", file=sys.stderr)
