"""Issue 30, items 7, 8, 9, 12, 14, 17, 18: each edge ends in the right number or one clear line.

Numbers are checked against scikit-learn, statsmodels or numpy loops; refusals against the one
``fastmetrics: error:`` line and exit status 2 of the command line.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from sklearn.metrics import f1_score, roc_auc_score

import fastmetrics as fm

REPO = Path(__file__).resolve().parents[1]
CLASSES = np.array(["cat", "dog", "eel"])


def cli(*argv, cwd, env=None):
    """Run the command line with this checkout's package; returns the finished process."""
    environ = {k: v for k, v in os.environ.items() if k != "FASTMETRICS_MEMORY_LIMIT"}
    environ["PYTHONPATH"] = str(REPO)
    environ.update(env or {})
    argv = [sys.executable, "-m", "fastmetrics", *map(str, argv)]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=environ, timeout=300)


def one_line(proc) -> str:
    """The single error line of a run refused with exit status 2."""
    assert proc.returncode == 2, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastmetrics: error: "), proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return lines[0]


def _probabilities(n=90, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 3, n), rng.dirichlet([1, 1, 1], n)


def test_item7_class_probabilities_on_a_grid_average_over_the_classes(tmp_path):
    y, p = _probabilities()
    grid = [0.3, 0.5]
    table = pa.table({"gold": CLASSES[y], "proba": pa.array(list(p))})
    tensor = fm.count(table, score="proba", thresholds=grid)
    scores = tensor.evaluate(["f1@macro", "f1@micro", "f1@weighted"])
    assert scores.axes == ("threshold",)
    binarised = np.eye(3)[y]
    for j, t in enumerate(grid):  # one-vs-rest: each class's probability binarised at the threshold
        for i, average in enumerate(["macro", "micro", "weighted"]):
            expected = f1_score(binarised, (p >= t).astype(int), average=average)
            assert scores.values[i, j] == pytest.approx(expected)
    per_class = tensor.evaluate("f1@none").values[0]
    for k in range(3):
        for j, t in enumerate(grid):
            assert per_class[k, j] == pytest.approx(f1_score(binarised[:, k], p[:, k] >= t))
    # the curve measure of the same sweep averages over the same classes
    auc = fm.count(table, score="proba", thresholds=101).evaluate("roc_auc@macro").values[0]
    exact = fm.count(table, score="proba", thresholds="exact").evaluate("roc_auc@macro").values[0]
    assert float(exact) == pytest.approx(roc_auc_score(y, p, multi_class="ovr", average="macro"))
    assert float(auc) == pytest.approx(float(exact), abs=0.02)
    # on the command line
    frame = pd.DataFrame({"gold": CLASSES[y], **{f"p_{c}": p[:, k] for k, c in enumerate(CLASSES)}})
    frame.to_csv(tmp_path / "proba.csv", index=False)
    common = ["--score", "p_cat,p_dog,p_eel", "--classes", "cat,dog,eel"]
    proc = cli(
        "evaluate",
        "proba.csv",
        *common,
        "--thresholds",
        "0.3,0.5",
        "--measures",
        "f1@macro",
        "--out",
        "s.csv",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    out = pd.read_csv(tmp_path / "s.csv")
    assert out["value"].tolist() == pytest.approx([f1_score(binarised, p >= t, average="macro") for t in grid])
    # averaged over the classes needs a grid; intervals of such averages are refused
    exact_line = one_line(
        cli("evaluate", "proba.csv", *common, "--thresholds", "exact", "--measures", "f1@macro", cwd=tmp_path)
    )
    assert "grid" in exact_line
    one_line(
        cli(
            "evaluate",
            "proba.csv",
            *common,
            "--thresholds",
            "0.3",
            "--measures",
            "f1@macro",
            "--ci",
            "0.95",
            cwd=tmp_path,
        )
    )
