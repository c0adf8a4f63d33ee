"""Calls spread over threads: numba kernels compiled with ``nogil=True`` (and numpy) run in
parallel from Python threads, without a numba ``parallel`` loop -- whose compile, paid on a first
call in every fresh environment, can outweigh the work. Shared by the stages."""

from __future__ import annotations

import concurrent.futures

import numba


def on_threads(function, calls) -> list:
    """Call ``function(*args)`` for every ``args`` in ``calls``, on as many threads as numba uses.

    Parameters
    ----------
    function : callable
        Releases the GIL for the calls to overlap (a ``nogil`` numba kernel).
    calls : iterable of tuple
        The arguments of each call; the calls must not depend on one another.

    Returns
    -------
    list
        Each call's result, in the order of ``calls``.

    Raises
    ------
    Exception
        The first call's error, after every call has ended.
    """
    calls = list(calls)
    threads = numba.get_num_threads()
    if threads < 2 or len(calls) < 2:
        return [function(*args) for args in calls]
    with concurrent.futures.ThreadPoolExecutor(threads) as pool:
        return [job.result() for job in [pool.submit(function, *args) for args in calls]]


def thread_count() -> int:
    """How many calls :func:`on_threads` runs at once (numba's thread count)."""
    return max(1, numba.get_num_threads())
