"""Shared fixtures: the third-party data folder, the slow-test switch, and the kernel warmer."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
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


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="run tests marked slow")


# A fresh checkout has no compiled kernels: the suite compiles about 500 numba specializations,
# some six minutes on one core, while the machine's other core mostly idles. A second pytest
# process runs the same tests in reverse order, its output thrown away, only so that the kernels
# it compiles land in numba's on-disk cache before this process reaches them (numba replaces its
# cache files atomically, so the two never read a half-written one). Every result still comes
# from this process; the warmer is stopped when it ends. FASTMETRICS_NO_WARMER=1 turns it off.
_WARMER = "FASTMETRICS_WARMER"
_warmer: list = []


def _kernels_cached() -> int:
    return sum(1 for _ in (REPO / "fastmetrics").glob("**/__pycache__/*.nbi"))


def pytest_sessionstart(session):
    config = session.config
    if os.environ.get(_WARMER) or os.environ.get("FASTMETRICS_NO_WARMER") == "1":
        return
    if config.option.collectonly or (os.cpu_count() or 1) < 2 or _kernels_cached() > 100:
        return
    basetemp = tempfile.mkdtemp(prefix="fastmetrics-warmer-")
    env = {**os.environ, _WARMER: "1"}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--basetemp", basetemp, *config.args]
    if config.getoption("--runslow"):
        command.append("--runslow")
    _warmer.append(
        subprocess.Popen(
            command, cwd=config.invocation_params.dir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
    )


def pytest_unconfigure(config):
    for process in _warmer:
        process.kill()
        process.wait()


def pytest_collection_modifyitems(config, items):
    if os.environ.get(_WARMER):
        items.reverse()
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
