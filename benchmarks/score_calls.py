"""``fm.score(y_true, y_pred | y_score)`` against the scikit-learn call a user would make instead,
per call and on the same arrays, in one run: the latency a scorer in a model search pays (1,000
items) and the throughput on a large test set (1,000,000 items). Values are checked equal.

    python benchmarks/score_calls.py
"""

from __future__ import annotations

import os
import sys

import numpy as np
from sklearn import metrics as skm

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from workloads import best_of  # noqa: E402

import fastmetrics as fm  # noqa: E402


def _cases(n: int):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    score = y * 0.7 + rng.random(n)
    pred = (score > 0.8).astype(int)
    m = 5
    yc = rng.integers(0, m, n)
    proba = rng.dirichlet(np.ones(m), n)
    proba[np.arange(n), yc] += 0.3
    proba /= proba.sum(axis=1, keepdims=True)
    return [
        ("binary f1", lambda: fm.score(y, pred, measures="f1"), lambda: skm.f1_score(y, pred)),
        ("binary roc_auc", lambda: fm.score(y, y_score=score, measures="roc_auc"), lambda: skm.roc_auc_score(y, score)),
        (
            "multiclass f1@macro",
            lambda: fm.score(yc, proba.argmax(1), measures="f1@macro"),
            lambda: skm.f1_score(yc, proba.argmax(1), average="macro"),
        ),
        (
            "top_k_accuracy(k=2)",
            lambda: fm.score(yc, y_score=proba, measures="top_k_accuracy(k=2)"),
            lambda: skm.top_k_accuracy_score(yc, proba, k=2),
        ),
        (
            "roc_auc@macro (ovr)",
            lambda: fm.score(yc, y_score=proba, measures="roc_auc@macro"),
            lambda: skm.roc_auc_score(yc, proba, multi_class="ovr"),
        ),
    ]


def main() -> None:
    print("| items | measure | fm.score ms | scikit-learn ms | scikit-learn / fm.score |")
    print("|---:|---|---:|---:|---:|")
    for n, repeat in ((1_000, 50), (1_000_000, 3)):
        for name, ours, theirs in _cases(n):
            assert abs(float(ours().values.reshape(-1)[0]) - theirs()) < 1e-9, name
            a = best_of(ours, repeat) * 1e3
            b = best_of(theirs, repeat) * 1e3
            print(f"| {n:,} | {name} | {a:.2f} | {b:.2f} | {b / a:.1f}x |")


if __name__ == "__main__":
    main()
