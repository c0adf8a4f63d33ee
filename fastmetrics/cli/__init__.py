"""Command-line interface: ``fastmetrics <measures|evaluate|count|leaderboard|meta|sweep|report|axioms|demo>``.

Every error caused by the input or the options prints one line to stderr and exits with
status 2; output files are written atomically, so a failed run leaves none behind.

One module per command (:mod:`~fastmetrics.cli.evaluate`, :mod:`~fastmetrics.cli.leaderboard`,
...): its ``add_parser`` declares the command's options and names its ``action``, written below
them. The options several commands share are declared once in :mod:`~fastmetrics.cli.options`;
the input is opened and counted by :mod:`~fastmetrics.cli.reading` and
:mod:`~fastmetrics.cli.counting`, results written by :mod:`~fastmetrics.cli.output`;
:mod:`~fastmetrics.cli.program` assembles the parser and runs a command, and
:mod:`~fastmetrics.cli.process` handles Ctrl-C and SIGTERM.

Only what parsing the command line needs is imported with this package: pyarrow, numba and the
stages load in the actions that use them, once a command runs (``fastmetrics --help``, a usage
mistake and ``--version`` answer in a tenth of the time).
"""

from .process import Terminated
from .program import build_parser, main, run

__all__ = ["Terminated", "build_parser", "main", "run"]
