"""``fastmetrics demo``: write the demo runs and print their leaderboard (ranked by K)."""

from __future__ import annotations

import sys

MEASURES = ("k", "mcc", "f1", "accuracy")


def add_parser(sub) -> None:
    """The ``demo`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("demo", help="generate the demo leaderboard into data/ and rank it")
    p.add_argument("--data-dir", default="data/demo", help="where the demo runs are written (default data/demo)")
    p.add_argument("--out", help="also write the leaderboard (one row per system or baseline and measure) to this file")
    p.set_defaults(func=action)


def action(args) -> None:
    """Write the demo runs, rank them and print the leaderboard (also to --out)."""
    from .. import demo
    from .._show import board_view
    from ..board import leaderboard
    from ..count import count
    from ..report import write_table
    from ..report.tables import format_board

    path = demo.write(args.data_dir)
    print(
        f"demo runs written to {path} ({demo.N_SYSTEMS} systems x {demo.N_TOPICS} topics x {demo.N_ITEMS} items)",
        file=sys.stderr,
    )
    summary = leaderboard(count(str(path)), list(MEASURES)).summary
    if args.out:
        write_table(summary, args.out)
    print(
        "Leaderboard: ranked by K's macro mean over topics (macro: mean over the topics where the measure is "
        "defined, topics: how many; micro: the pooled counts; then the baselines)"
    )
    sys.stdout.write(format_board(board_view(summary)))
