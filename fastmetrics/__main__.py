"""The ``fastmetrics`` program (``python -m fastmetrics`` and the console script)."""

import sys


def run() -> int:
    """Run the ``fastmetrics`` program, Ctrl-C included from its first instruction.

    The command line's modules (pyarrow, numba and the stages) take a second or two to import,
    before :func:`fastmetrics.cli.main` installs its signal handlers: an interrupt there ends
    the same way as later, with one line and exit status 130, not a traceback.

    Returns
    -------
    int
        The exit status (see :func:`fastmetrics.cli.main`).
    """
    try:
        from .cli import run as run_cli

        return run_cli()
    except KeyboardInterrupt:
        sys.stderr.write("fastmetrics: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(run())
