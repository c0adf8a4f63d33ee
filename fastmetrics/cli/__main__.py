"""``python -m fastmetrics.cli``: the command line in a process of its own, as ``fastmetrics``
runs it but for the process's set-up (:func:`fastmetrics.__main__._set_up`: the collector's pace,
OpenBLAS's wait, transparent huge pages), which is left as Python and the system have it."""

import sys

from .program import run

if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
