"""Shared fixtures: the third-party data folder, the slow-test switch and small inputs."""

from __future__ import annotations

import hashlib
import os
import resource
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    """``../shared`` next to the repository, or ``$FASTMETRICS_SHARED``."""
    return Path(os.environ.get("FASTMETRICS_SHARED", REPO.parent / "shared"))


def external(*parts: str) -> Path:
    """A file of the third-party data. Missing data fails the test (a silent skip would let the
    paper reproductions vanish from CI); FASTMETRICS_SKIP_EXTERNAL=1 turns that into a skip."""
    path = shared_dir().joinpath("data", "external", *parts)
    if not path.exists():
        message = f"third-party data not found at {path} (set FASTMETRICS_SHARED to the shared folder)"
        if os.environ.get("FASTMETRICS_SKIP_EXTERNAL") == "1":
            pytest.skip(message)
        pytest.fail(message)
    return path


def boundscheck_env(**extra: str) -> dict:
    """The environment of a process whose numba kernels check every index (``NUMBA_BOUNDSCHECK=1``).

    Numba's cache ignores the flag, so these processes keep a cache folder of their own, written
    only by processes with the checks: kernels compiled with them, and kept between the tests and
    between runs of the suite (a kernel whose source changed compiles again, as in any cache).
    """
    key = hashlib.sha1(str(Path(__file__).resolve().parents[1]).encode()).hexdigest()[:10]
    cache = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"fastmetrics-boundscheck-numba-{key}")
    os.makedirs(cache, exist_ok=True)
    return {**os.environ, "NUMBA_BOUNDSCHECK": "1", "NUMBA_CACHE_DIR": cache, **extra}


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


# set from --runslow before any test module is imported (collection follows pytest_configure)
_RUNSLOW = False


def examples(exhaustive: int, default: int = 50) -> int:
    """A property test's ``max_examples``: ``exhaustive`` with ``--runslow``, at most ``default``
    otherwise (hypothesis draws the same kinds of cases, fewer of them)."""
    return exhaustive if _RUNSLOW else min(exhaustive, default)


# -- the suite's budget ------------------------------------------------------------------------
# FASTMETRICS_TEST_BUDGET=<seconds> fails every test that takes more processor time than that
# (setup and call: this process, the processes it waited for and the commands forked for it;
# numba compiling kernels in this process not counted, since a warm cache skips it) and prints
# the costliest tests; FASTMETRICS_SUITE_BUDGET=<seconds> fails the run when all of them together
# take more. docs/guides/contributing.md says how they are used.


# the session's budget, for the hooks that get no config (the controller's, under pytest-xdist)
_BUDGET: dict = {}


class _Budget:
    def __init__(self, seconds: float):
        import threading

        self.seconds = seconds
        self.spent: dict[str, float] = {}
        self.over_suite = ""
        self._local = threading.local()
        self._compiling = 0.0
        from numba.core import event

        budget = self

        class Compiling(event.Listener):
            # processor time of the thread that compiles, outermost compilation only
            def on_start(self, ev):
                depth = getattr(budget._local, "depth", 0)
                if depth == 0:
                    budget._local.start = time.thread_time()
                budget._local.depth = depth + 1

            def on_end(self, ev):
                budget._local.depth -= 1
                if budget._local.depth == 0:
                    budget._compiling += time.thread_time() - budget._local.start

        event.register("numba:compile", Compiling())

    def now(self) -> float:
        from tests._program import _SERVERS

        own = resource.getrusage(resource.RUSAGE_SELF)
        waited = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + waited.ru_utime + waited.ru_stime + _SERVERS.cpu - self._compiling


def pytest_configure(config):
    global _RUNSLOW
    _RUNSLOW = bool(config.getoption("--runslow", default=False))
    from fastmetrics import _memory

    # arrays handed out uninitialised hold 0xFF bytes, not the zeros of a fresh page: a kernel
    # that reads an element it never wrote gives a wrong number in the suite, not only elsewhere
    _memory.POISON = True
    seconds = os.environ.get("FASTMETRICS_TEST_BUDGET")
    if seconds or os.environ.get("FASTMETRICS_SUITE_BUDGET"):
        config._fastmetrics_budget = _BUDGET["budget"] = _Budget(float(seconds or "inf"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    budget = getattr(item.config, "_fastmetrics_budget", None)
    if budget is not None:
        item._fastmetrics_start = budget.now()
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    budget = getattr(item.config, "_fastmetrics_budget", None)
    report = outcome.get_result()
    if budget is None or call.when != "call":
        return
    spent = budget.now() - item._fastmetrics_start
    # read back by pytest_runtest_logreport, here or, under pytest-xdist, in the controller
    report.user_properties.append(("processor_seconds", spent))
    if report.passed and spent > budget.seconds:
        report.outcome = "failed"
        report.longrepr = (
            f"{item.nodeid} took {spent:.1f} s of processor time, over FASTMETRICS_TEST_BUDGET={budget.seconds:g} "
            "s: make it smaller, share its fixtures, or keep a small version and mark the exhaustive one "
            "@pytest.mark.slow (docs/guides/contributing.md)"
        )


def pytest_runtest_logreport(report):
    budget = _BUDGET.get("budget")
    if budget is None or report.when != "call":
        return
    for name, value in report.user_properties:
        if name == "processor_seconds":
            budget.spent[report.nodeid] = value


def pytest_terminal_summary(terminalreporter, config):
    budget = getattr(config, "_fastmetrics_budget", None)
    if budget is None:
        return
    costliest = sorted(budget.spent.items(), key=lambda kv: -kv[1])[:15]
    terminalreporter.section(f"processor time: {sum(budget.spent.values()):.0f} s in {len(budget.spent)} tests")
    for nodeid, spent in costliest:
        terminalreporter.write_line(f"{spent:8.2f} s  {nodeid}")
    if budget.over_suite:
        terminalreporter.write_line(budget.over_suite, red=True)


def pytest_sessionfinish(session, exitstatus):
    budget = getattr(session.config, "_fastmetrics_budget", None)
    total = os.environ.get("FASTMETRICS_SUITE_BUDGET")
    if budget is None or not total:
        return
    spent = sum(budget.spent.values())
    if spent > float(total):
        budget.over_suite = (
            f"the tests took {spent:.0f} s of processor time, over FASTMETRICS_SUITE_BUDGET={total} s "
            "(docs/guides/contributing.md)"
        )
        if session.exitstatus == 0:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def labels_from_counts(tp, fp, fn, tn):
    """Per-item gold and predicted labels realising the counts (an independent view for oracles)."""
    y_true = np.concatenate([np.ones(tp), np.zeros(fp), np.ones(fn), np.zeros(tn)]).astype(int)
    y_pred = np.concatenate([np.ones(tp), np.ones(fp), np.zeros(fn), np.zeros(tn)]).astype(int)
    return y_true, y_pred


def binary_runs(seed: int, systems: int, topics: int, items: int) -> pa.Table:
    """Runs under the default column names: every system labels every item of every topic, one
    gold per (topic, item) (as a separate gold holds it), each system's scores a little better
    than the one before, its hard predictions those scores cut at 0.5."""
    rng = np.random.default_rng(seed)
    s, t, i = np.indices((systems, topics, items)).reshape(3, -1)
    gold = (rng.random((topics, items)) < 0.4)[t, i]
    score = gold * 0.8 + s * 0.1 + rng.normal(size=i.size)
    return pa.table(
        {
            "system": [f"s{x}" for x in s],
            "topic": [f"t{x}" for x in t],
            "item": i,
            "gold": gold,
            "pred": score > 0.5,
            "score": score,
        }
    )
