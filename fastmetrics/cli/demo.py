"""``fastmetrics demo``: write the demo runs and print their macro leaderboard (by K, then MCC)."""

from __future__ import annotations

import sys


def add_parser(sub) -> None:
    """The ``demo`` command: its options, and :func:`action` to run."""
    p = sub.add_parser("demo", help="generate the demo leaderboard into data/ and rank it")
    p.add_argument("--data-dir", default="data/demo", help="where the demo runs are written (default data/demo)")
    p.add_argument("--out", help="also write the leaderboard to this file")
    p.set_defaults(func=action)


def action(args) -> None:
    """Write the demo runs, rank them and print the leaderboard (also to --out)."""
    from .. import demo
    from ..board import macro_leaderboard
    from ..count import count
    from ..report import format_table, write_table

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
