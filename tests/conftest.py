"""Shared fixtures: the third-party data folder, the slow-test switch and small inputs."""

from __future__ import annotations

import hashlib
import os
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
