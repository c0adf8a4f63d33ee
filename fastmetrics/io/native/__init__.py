"""fastmetrics' own readers of Parquet, CSV and run files, and the one switch that turns them off.

The readers here are fast paths: :mod:`.parquet` decodes the row groups of the columns a count
reads (footer and page headers by :mod:`.thrift`), :mod:`.csv` parses plain CSV files and codes
their ids in one pass, :mod:`.text` parses plain TREC runs, qrels and SemEval run files. Each
reads what pyarrow reads, or gives up and lets pyarrow read it; none decides what is read.

One rule holds for all of them (:func:`attempt`): a failure inside a native reader that is not a
fastmetrics error -- something it does not decode, a damaged file, any exception -- hands that
row group or file to pyarrow, whose reading is then the one counted (or whose refusal becomes a
clear error naming the file). A native reader never ends in a traceback and never gives another
count.

The switch: ``FASTMETRICS_NATIVE=0`` in the environment, ``native=False`` in Python
(``fm.count``, ``fm.read_runs``, :func:`fastmetrics.io.open_source`, ...) or ``fastmetrics
--no-native`` on the command line read everything through pyarrow (and use no footer statistics).
"""

from __future__ import annotations

import contextlib
import contextvars
import os

from ..._errors import FastmetricsError, ParameterError

ENV = "FASTMETRICS_NATIVE"
_ON, _OFF = ("1", "on", "true", "yes", ""), ("0", "off", "false", "no")
_given: contextvars.ContextVar = contextvars.ContextVar("fastmetrics_native", default=None)
# set by the fuzz test only: a native reader's unexpected exception is raised, not left to pyarrow
_STRICT = False


def enabled(native: bool | None = None) -> bool:
    """Whether the native readers are used.

    Parameters
    ----------
    native : bool, optional
        The caller's choice; None takes the setting in force (:func:`setting`, else
        ``FASTMETRICS_NATIVE``, else on).

    Returns
    -------
    bool
    """
    if native is not None:
        if not isinstance(native, bool):
            raise ParameterError(f"The 'native' parameter must be True, False or None. Got {native!r} instead.")
        return native
    given = _given.get()
    if given is not None:
        return given
    text = os.environ.get(ENV, "").strip().lower()
    if text in _ON:
        return True
    if text in _OFF:
        return False
    raise ParameterError(f"{ENV} must be 1 (fastmetrics' own readers, the default) or 0 (pyarrow's). Got {text!r}.")


@contextlib.contextmanager
def setting(native: bool | None):
    """Within the block, :func:`enabled` answers ``native`` (None: the setting in force)."""
    token = _given.set(enabled(native)) if native is not None else None
    try:
        yield
    finally:
        if token is not None:
            _given.reset(token)


class Unsupported(Exception):
    """What a native reader does not decode (a codec, a null, a damaged page): read by pyarrow."""


def attempt(read, *args):
    """``read(*args)`` on the native path, or None for the caller to read with pyarrow.

    A fastmetrics error is the input's fault and is raised; any other exception (the reader's
    :class:`Unsupported`, or anything a damaged file provokes) means pyarrow reads instead.
    """
    try:
        return read(*args)
    except FastmetricsError:
        raise
    except Unsupported:
        return None
    except Exception:  # noqa: BLE001 (the rule of the native path: pyarrow reads what it fails on)
        if _STRICT:
            raise
        return None
