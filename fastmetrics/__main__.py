"""The ``fastmetrics`` program (``python -m fastmetrics`` and the console script)."""

import os
import sys
from typing import NoReturn


def run() -> NoReturn:
    """Run the ``fastmetrics`` program, Ctrl-C included from its first instruction, and end the
    process with its exit status.

    The command line's modules (pyarrow, numba and the stages) take a second or two to import,
    before :func:`fastmetrics.cli.main` installs its signal handlers: an interrupt there ends
    the same way as later, with one line and exit status 130, not a traceback.

    It does not return: the process ends with the exit status of :func:`fastmetrics.cli.main`
    (:func:`_end`).
    """
    try:
        from .cli import run as run_cli

        code = run_cli()
    except KeyboardInterrupt:
        sys.stderr.write("fastmetrics: interrupted\n")
        code = 130
    _end(code)


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
