"""A one-line progress bar with an ETA on stderr: ``label [########        ]  45% 3.2s ETA 4.1s``.

Shown only on a terminal (a log file or a pipe would collect one line per redraw) and only once
a job has run for about a second, so quick jobs print nothing. Written here rather than taken
from tqdm or rich: the runtime dependencies stay numpy, numba and pyarrow.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable

WIDTH = 20
REDRAW = 0.1  # seconds between redraws: a tight loop pays for a clock read, not a write


def seconds(value: float) -> str:
    """A duration as ``3.2s``, ``1m05s`` or ``2h03m``.

    Parameters
    ----------
    value : float
        Seconds (>= 0).

    Returns
    -------
    str
    """
    if value < 60:
        return f"{value:.1f}s"
    minutes = int(value // 60)
    if minutes < 60:
        return f"{minutes}m{int(value % 60):02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def bar_line(label: str, done: float, total: float, elapsed: float, width: int = WIDTH) -> str:
    """The text of the bar: label, filled share, percentage, time spent and time left.

    The time left assumes the remaining steps take as long as the ones done (``?`` before the
    first step ends).

    Parameters
    ----------
    label : str
    done, total : float
        Steps done and in all (rows, replicates, stages ...).
    elapsed : float
        Seconds since the job started.
    width : int, default 20
        Characters of the bar.

    Returns
    -------
    str
    """
    share = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
    filled = int(width * share)
    eta = seconds(elapsed * (total - done) / done) if done > 0 else "?"
    return (
        f"{label} [{'#' * filled}{' ' * (width - filled)}] {math.floor(100 * share):3d}% {seconds(elapsed)} ETA {eta}"
    )


class Progress:
    """A progress bar on stderr, shown only on a terminal and after ``delay`` seconds of work.

    Parameters
    ----------
    total : int or float
        Number of steps (at least 1 is used).
    label : str
        Shown before the bar.
    quiet : bool, default False
        Never show the bar.
    delay : float, default 1.0
        Seconds of work before the bar appears.
    clock : callable, default time.monotonic
        The time in seconds (a fake clock in tests).
    """

    def __init__(
        self,
        total,
        label: str,
        quiet: bool = False,
        delay: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.total = max(total, 1)
        self.label = label
        self.enabled = not quiet and sys.stderr.isatty()
        self.clock = clock
        self.start = clock()
        self.delay = delay
        self.done = 0
        self.shown = False
        self._drawn_at = -math.inf
        self._width = 0

    def update(self, done) -> None:
        """Show ``done`` of the ``total`` steps, once the bar is enabled and ``delay`` has passed."""
        self.done = done
        if not self.enabled:
            return
        now = self.clock()
        if now - self.start < self.delay or (now - self._drawn_at < REDRAW and done < self.total):
            return
        self._drawn_at = now
        self.shown = True
        line = bar_line(self.label, done, self.total, now - self.start)
        sys.stderr.write("\r" + line.ljust(self._width))
        sys.stderr.flush()
        self._width = len(line)

    def advance(self, steps=1) -> None:
        """Count ``steps`` more steps done."""
        self.update(self.done + steps)

    def close(self) -> None:
        """End the bar's line, if the bar was shown."""
        if self.shown:
            sys.stderr.write("\n")
            sys.stderr.flush()
            self.shown = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
