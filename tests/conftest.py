"""Shared fixtures: the third-party data folder and the slow-test switch."""

from __future__ import annotations

import os
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
