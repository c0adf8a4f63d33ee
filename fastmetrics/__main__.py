"""``python -m fastmetrics``: the command line, as the ``fastmetrics`` script runs it."""

import sys

from .cli import run

sys.exit(run())
