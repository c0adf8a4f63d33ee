"""The ``fastmetrics`` program (``python -m fastmetrics`` and the console script)."""

import gc
import os
import sys
from typing import NoReturn

# the collector's thresholds in the program's process (Python's are 700, 10, 10): see _set_up
_COLLECT_AFTER = (100_000, 20, 10)
# set to 1 to keep the system's transparent huge pages in the program's process: see _huge_pages_off
HUGE_PAGES_ENV = "FASTMETRICS_HUGE_PAGES"
_PR_SET_THP_DISABLE = 41  # <linux/prctl.h>


def run() -> NoReturn:
    """Run the ``fastmetrics`` program, Ctrl-C included from its first instruction, and end the
    process with its exit status.

    The command line's modules (pyarrow, numba and the stages) take a second or two to import,
    before :func:`fastmetrics.cli.main` installs its signal handlers: an interrupt there ends
    the same way as later, with one line and exit status 130, not a traceback.

    It does not return: the process ends with the exit status of :func:`fastmetrics.cli.main`
    (:func:`_end`).
    """
    _set_up()
    try:
        from .cli import run as run_cli

        code = run_cli()
    except KeyboardInterrupt:
        sys.stderr.write("fastmetrics: interrupted\n")
        code = 130
    _end(code)


def _set_up() -> None:
    """Set up the process before the command line's imports: the garbage collector's pace, how
    long numpy's BLAS threads wait for work, and no transparent huge pages
    (:func:`_huge_pages_off`).

    The imports and numba's registries make some 150,000 container objects that live until the
    process ends. At Python's pace (a collection every 700 new ones) the collector ran some 280
    times in a ``leaderboard`` of 2M lines, and each full pass went through all of them: 0.18 s
    of its 2 s (0.1 s in full passes), and 5 s of the 42 s of a first run that compiles the
    kernels (36.5 s after). A collection every 100,000 new ones still frees cycles as they come:
    one or two collections in that ``leaderboard``, 0.06-0.08 s.

    OpenBLAS starts a thread a core when numpy is imported, and each spins for some 2**28 clock
    ticks (about 0.1 s) waiting for work before it sleeps: on the cores the kernels' threads use,
    in every command. ``OPENBLAS_THREAD_TIMEOUT=4`` has them sleep at once; a large matrix
    product (the item bootstrap's) still runs on all of them. A value the environment gives is
    left as it is.
    """
    gc.set_threshold(*_COLLECT_AFTER)
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    _huge_pages_off()


def _huge_pages_off() -> bool:
    """Turn transparent huge pages off for the program's process and the processes it starts
    (Linux's ``prctl(PR_SET_THP_DISABLE)``), unless ``FASTMETRICS_HUGE_PAGES=1``; True when this
    call turned them off.

    Arrow's allocator (mimalloc) asks for huge pages over its whole 1 GiB arena, and numpy over
    every array of 4 MiB and more (``madvise(MADV_HUGEPAGE)``). The first write to such a page
    then zeroes 2 MiB at once, taken from memory the system has not used lately. A command
    touches most of its memory once or twice before it ends, so it gains little from the fewer
    address translations of a huge page, and on a virtual machine whose host hands memory back
    lazily that zeroing cost most of a command's system time: the ``leaderboard`` of a 2M-line
    run after 15 s idle took 1.47-1.66 s with them (1.0-1.2 s of it system time, 43 % of the
    samples in the kernel's page clearing) and 0.84-0.96 s without (docs/guides/performance.md).
    The library, imported in a process of one's own, leaves the setting as the system has it.
    A setting inherited from the process that started this one stays as it is.
    """
    if os.environ.get(HUGE_PAGES_ENV, "").strip() == "1" or not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
        off = ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)
        return prctl(ctypes.c_int(_PR_SET_THP_DISABLE), *off) == 0
    except (ImportError, OSError, AttributeError):  # no ctypes, or no prctl: the system's setting stands
        return False


def _end(code: int) -> NoReturn:
    """Flush Python's streams and end the process with ``code``, without the interpreter's
    teardown of the native libraries.

    A command has written its outputs (whole, or not at all) and closed its files by now. The
    teardown that remains destroys the native libraries' thread pools, and in a process that
    compiled numba kernels one of them could abort it after the command had ended (SIGABRT,
    "terminate called without an active exception", about one process in thirty on a cold
    kernel cache): the user's one-line error then ended with status 134 instead of 2.
    """
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing left to write to
            pass
    os._exit(code)


if __name__ == "__main__":
    run()
