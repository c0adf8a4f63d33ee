"""The SemEval-2016 Task 3 scorer's AvgRec (Nakov et al., 2016): recall at depths 1 ... 10.

The scorer (``ev.py`` of the task's distribution, its ``avg_acc1``) counts, at each depth
``k = 1 ... cutoff``, the relevant items found within the top ``k`` of every question, and divides
by the most a perfect ranking could find there, ``min(k, R)`` per question (``R`` its relevant
items); AvgRec is the mean of these ratios over the depths. Both sums run over all questions
before dividing: the official value is the pooled one (:func:`pooled_avgrec`, a leaderboard's
micro column), not a mean over questions. The per-question value (the macro column) is the same
ratio for one question, undefined when it has no relevant item (it adds nothing to the sums).
"""

from __future__ import annotations

import numpy as np

from ._kernels import group_kernel
from .registry import Measure, Param, register
from .trec import topic_values

NAN = np.nan


@group_kernel
def avgrec(tp, fp, fn, tn, params):
    """Mean over depths k = 1 ... cutoff of TP@k / min(k, R)."""
    positives = tp[0] + fn[0]
    depths = int(params[0])
    if positives <= 0 or depths <= 0:
        return NAN
    total = 0.0
    for k in range(1, depths + 1):
        found = tp[min(k, tp.size) - 1] if tp.size else 0.0
        total += found / min(k, positives)
    return total / depths


def pooled_avgrec(ranks, spec, system, evaluate) -> np.ndarray:
    """Each system's AvgRec over all its questions, as the official scorer computes it.

    Per depth, the items found summed over the questions divided by ``min(k, R)`` summed over
    them, then the mean over the depths; the arguments are those of a record's ``pooled``
    (:class:`~fastmetrics.measures.registry.Measure`).
    """
    depths = int(spec.params[0])
    # TP@k of each list is k P@k (a list shorter than k counts as k), R its num_rel
    asked = [f"precision_at_k(k={k})" for k in range(1, depths + 1)] + ["num_rel"]
    values = topic_values(ranks, asked, system, evaluate)  # [measure, system, topic cells]
    depth = np.arange(1, depths + 1)[:, None, None]
    relevant = values[depths]
    found = np.where(np.isnan(relevant)[None], 0.0, np.nan_to_num(values[:depths] * depth))
    best = np.nan_to_num(np.minimum(depth, relevant[None]))
    with np.errstate(invalid="ignore", divide="ignore"):
        return (found.sum(axis=2) / best.sum(axis=2)).mean(axis=0)


register(
    Measure(
        name="avgrec",
        kernel=avgrec,
        aliases=("avg_rec",),
        summary="The SemEval-2016 Task 3 scorer's AvgRec: recall of the top k against a perfect ranking's, "
        "averaged over the depths k = 1 ... cutoff (its official value pools the questions: the micro column).",
        formula="mean_{k=1..cutoff} TP@k / min(k, R); pooled: mean_k sum_q TP_q@k / sum_q min(k, R_q)",
        latex=r"\frac{1}{c}\sum_{k=1}^{c} \frac{TP@k}{\min(k, R)}",
        undefined_when="the topic has no relevant item",
        reference="SemEval-2016 Task 3 (Nakov et al., 2016), the official scorer's AvgRec",
        params=(Param("cutoff", 10.0, "depths averaged (1 ... cutoff)", low=1.0, integer=True),),
        higher_is_better=True,
        family="none",
        kind="ranking",
        range=(0.0, 1.0),
        pooled=pooled_avgrec,
    )
)
