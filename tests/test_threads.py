"""Calls spread over threads (:mod:`fastmetrics._threads`)."""

import re
import threading
from pathlib import Path

import pytest

from fastmetrics import _threads


@pytest.mark.parametrize("n, parts", [(10, 3), (10, None), (2, 8), (7, 7), (0, 4), (1, None)])
def test_in_ranges_covers_the_rows_once_in_order(n, parts, monkeypatch):
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 4)
    names = set()

    def rows(start, stop, tag):
        names.add(threading.current_thread().name)
        return tag, start, stop

    got = _threads.in_ranges(rows, n, "x", parts=parts)
    assert [g[0] for g in got] == ["x"] * len(got)
    bounds = [(start, stop) for _, start, stop in got]
    assert bounds[0][0] == 0 and bounds[-1][1] == n
    assert all(a[1] == b[0] for a, b in zip(bounds, bounds[1:]))
    assert len(bounds) == max(1, min(n, parts or 4))
    assert all(stop - start in (n // len(bounds), n // len(bounds) + 1) for start, stop in bounds)
    assert (len(bounds) > 1) == any(name.startswith("fastmetrics-") for name in names)


def test_in_ranges_runs_the_first_range_here_and_raises_after_every_range(monkeypatch):
    """No more ranges than threads: the calling thread takes the first; an error is raised once
    every range has ended, the first range's before a later one's."""
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 3)
    ended = []

    def rows(start, stop):
        ended.append(start)
        if start > 0:
            raise KeyError(start)
        return threading.current_thread().name

    with pytest.raises(KeyError):
        _threads.in_ranges(rows, 3)
    assert sorted(ended) == [0, 1, 2]

    def first_fails(start, stop):
        if start == 0:
            raise ValueError("first")
        raise KeyError(start)

    with pytest.raises(ValueError, match="first"):
        _threads.in_ranges(first_fails, 3)
    assert _threads.in_ranges(lambda start, stop: threading.current_thread().name, 2)[0] == (
        threading.current_thread().name
    )


def test_an_interrupted_wait_drops_the_calls_not_started(monkeypatch):
    """Ctrl-C while on_threads waits: the queued calls are cancelled, not run behind the user's back."""
    import time

    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 2)
    started = []

    def slow(i):
        started.append(i)
        time.sleep(0.05)

    def interrupted(jobs, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_threads.concurrent.futures, "wait", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _threads.on_threads(slow, [(i,) for i in range(40)])
    time.sleep(0.3)
    assert len(started) <= 4  # the calls the two threads had taken before the interrupt


def test_read_ahead_yields_in_order_with_calls_running_ahead_on_threads_of_their_own():
    started, names = [], set()
    release = threading.Event()

    def decode(i):
        started.append(i)
        names.add(threading.current_thread().name)
        if i == 0:
            assert release.wait(5)  # the next calls start while the first is not consumed
        return i * i

    reading = _threads.read_ahead(decode, ((i,) for i in range(7)), 3)
    waiting = threading.Timer(0.05, release.set)
    waiting.start()
    assert list(reading) == [i * i for i in range(7)]
    waiting.join()
    assert sorted(started) == list(range(7))
    assert all(name.startswith("fastmetrics-ahead-") for name in names)


def test_read_ahead_raises_a_calls_error_in_its_turn_and_drops_the_rest_when_stopped():
    def decode(i):
        if i == 2:
            raise ValueError("bad group 2")
        return i

    reading = _threads.read_ahead(decode, ((i,) for i in range(50)), 2)
    assert next(reading) == 0 and next(reading) == 1
    with pytest.raises(ValueError, match="bad group 2"):
        next(reading)
    taken = []
    reading = _threads.read_ahead(lambda i: taken.append(i) or i, ((i,) for i in range(1000)), 2)
    assert next(reading) == 0
    reading.close()  # the consumer stops: no call beyond those already submitted runs
    assert len(taken) <= 4


POOL = re.compile(r"ThreadPoolExecutor|ProcessPoolExecutor|threading\.Thread\(")


def test_every_thread_pool_is_made_in_threads_module():
    """One way to run calls on threads: no module but fastmetrics/_threads.py makes a pool."""
    package = Path(_threads.__file__).parent
    makers = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if path.name != "_threads.py"
        and re.search(r"ThreadPoolExecutor|ProcessPoolExecutor|threading\.Thread\(", path.read_text())
    ]
    assert makers == ["cli/report.py"], makers  # a daemon thread that imports the figure modules early
