"""``fastmetrics demo``: write the demo runs and print their leaderboard (ranked by K, the first measure)."""

from __future__ import annotations

import sys

from . import options
from .leaderboard import ranked_measures, ranking_heading

MEASURES = ("k", "mcc", "f1", "accuracy")


def add_parser(sub) -> None:
    """The ``demo`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("demo", help="generate the demo leaderboard into data/ and rank it")
    p.add_argument("--data-dir", default="data/demo", help="where the demo runs are written (default data/demo)")
    p.add_argument(
        "--out",
        help="also write the leaderboard as printed (ranked, one row per system, the baselines last; .tex: a booktabs "
        "table for a paper) to this file",
    )
    options.long_table(p)
    options.rank_by(p)
    p.set_defaults(func=action)


def action(args) -> None:
    """Write the demo runs, rank them and print the leaderboard (also to --out)."""
    from .. import demo
    from .._show import board_view
    from ..board import leaderboard
    from ..count import count
    from ..report import write_table
    from ..report.boards import write_board
    from ..report.tables import format_board, output_path

    if args.out:
        output_path(args.out)  # checked before the runs are written and counted
    path = demo.write(args.data_dir)
    print(
        f"demo runs written to {path} ({demo.N_SYSTEMS} systems x {demo.N_TOPICS} topics x {demo.N_ITEMS} items)",
        file=sys.stderr,
    )
    measures = ranked_measures(args, list(MEASURES))
    result = leaderboard(count(str(path)), measures)
    if args.out:
        (write_table if args.long else write_board)(result.summary, args.out)
        print(f"wrote the leaderboard{' (long table)' if args.long else ''} to {args.out}", file=sys.stderr)
    print("\n".join(ranking_heading(args, measures)))
    print("macro: mean over the topics where the measure is defined (topics: how many); micro: on the pooled counts")
    sys.stdout.write(format_board(board_view(result.summary)))
