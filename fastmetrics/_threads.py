"""Calls spread over threads: numba kernels compiled with ``nogil=True`` (and numpy) run in
parallel from Python threads, without a numba ``parallel`` loop -- whose compile, paid on a first
call in every fresh environment, can outweigh the work. Shared by the stages."""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import os
import threading

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
    # a call from one of the pool's own threads runs its calls itself: waiting on the pool from
    # inside it could wait for ever
    if threads < 2 or len(calls) < 2 or in_pool():
        return [function(*args) for args in calls]
    pool = _pool(threads)
    jobs = [pool.submit(function, *args) for args in calls]
    try:
        concurrent.futures.wait(jobs)
    except BaseException:
        # Ctrl-C: the calls not started are dropped (the running ones end on their own)
        for job in jobs:
            job.cancel()
        raise
    return [job.result() for job in jobs]


def in_pool() -> bool:
    """Whether this is one of the pool's threads, whose :func:`on_threads` calls run where they are."""
    return threading.current_thread().name.startswith(_PREFIX)


_PREFIX = "fastmetrics-"
_pools: dict = {}
_lock = threading.Lock()
# a forked child has none of its parent's threads: it starts pools of its own
os.register_at_fork(after_in_child=_pools.clear)


def _pool(threads: int, job: str = "") -> concurrent.futures.ThreadPoolExecutor:
    """One pool a thread count and job, kept for the process: a count of many small files calls
    :func:`on_threads` a few times a file, and starting threads each time cost more than the
    work of a small file. ``job`` names a pool of its own (the read-ahead's), whose threads work
    beside the counting's."""
    with _lock:
        if (threads, job) not in _pools:
            _pools[threads, job] = concurrent.futures.ThreadPoolExecutor(
                threads, thread_name_prefix=f"{_PREFIX}{job}{threads}"
            )
        return _pools[threads, job]


def read_ahead(function, calls, depth: int):
    """``function(*args)`` of every ``args`` in ``calls``, yielded in order, while up to ``depth``
    of the next calls run ahead on threads of their own (beside the :func:`on_threads` calls the
    consumer makes meanwhile).

    Parameters
    ----------
    function : callable
        Releases the GIL for the calls to overlap the consumer's work (a decoder).
    calls : iterable of tuple
        The arguments of each call, taken as they are needed.
    depth : int
        How many calls may run ahead of the one consumed.

    Yields
    ------
    object
        Each call's result, in the order of ``calls``. A call's error is raised in its turn; when
        the consumer stops early, the calls not started are dropped and the running ones waited
        for.
    """
    calls = iter(calls)
    if in_pool():  # from a pool's own thread: its calls run where they are
        for args in calls:
            yield function(*args)
        return
    pool = _pool(thread_count(), "ahead-")
    ahead = collections.deque(pool.submit(function, *args) for args in itertools.islice(calls, max(1, depth)))
    try:
        while ahead:
            result = ahead.popleft().result()
            for args in itertools.islice(calls, 1):
                ahead.append(pool.submit(function, *args))
            yield result
    finally:
        for job in ahead:
            job.cancel()
        concurrent.futures.wait(ahead)


def in_ranges(function, n: int, *args, parts: int | None = None) -> list:
    """Call ``function(start, stop, *args)`` over consecutive ranges covering ``range(n)``, on
    the threads (:func:`on_threads`).

    With no more ranges than threads, the calling thread takes the first range itself and the
    pool the others: a thread fewer to wake (a handover costs more than a small range's work, and
    a job calling a kernel per slice of a sweep pays it hundreds of times). Errors as :func:`on_threads`:
    every range ends, then the error of the first range (in order) that raised one is raised.

    Parameters
    ----------
    function : callable
        Releases the GIL (a ``nogil`` numba kernel over the rows ``start:stop`` of its arrays).
    n : int
        The number of rows.
    *args
        The arguments after ``start, stop``, the same for every range.
    parts : int, optional
        The number of ranges (default: one a thread); never more than ``n``.

    Returns
    -------
    list
        Each range's result, in the order of the ranges.
    """
    parts = max(1, min(n, parts or thread_count()))
    calls = [(n * c // parts, n * (c + 1) // parts, *args) for c in range(parts)]
    if parts < 2 or parts > thread_count() or threading.current_thread().name.startswith(_PREFIX):
        return on_threads(function, calls)
    # the calling thread takes the first range: one thread woken fewer a call
    jobs = [_pool(thread_count()).submit(function, *call) for call in calls[1:]]
    try:
        first = function(*calls[0])
    finally:
        concurrent.futures.wait(jobs)
    return [first] + [job.result() for job in jobs]


def in_background(function, name: str) -> threading.Thread:
    """Start ``function()`` on a daemon thread of its own (not a pool's: its calls to
    :func:`on_threads` use the pool) and return the thread, to join when its result is needed.

    For work that waits on the disk or releases the GIL beside a command's single-threaded
    start (its imports), such as the inputs' digests of :mod:`fastmetrics.cli.output`.
    """
    thread = threading.Thread(target=function, name=name, daemon=True)
    thread.start()
    return thread


def thread_count() -> int:
    """How many calls :func:`on_threads` runs at once (numba's thread count)."""
    return max(1, numba.get_num_threads())
