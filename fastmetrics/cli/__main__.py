"""``python -m fastmetrics.cli``: the command line in a process of its own, as ``fastmetrics``."""

import sys

from .program import run

if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
