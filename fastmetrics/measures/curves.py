"""Curve and ranking measures: one value per group of a threshold sweep or per ranked list.

A threshold sweep holds, for each group (e.g. a system on a topic), one confusion matrix per
threshold: ``tp, fp, fn, tn`` of "predicted positive iff score >= threshold". Read from the
highest threshold down, these matrices are the group's ROC and precision-recall curves. Every
curve kernel here reads one group's cells in that order and returns one number:

- the curve starts at the operating point that predicts nothing positive (FPR = TPR = recall = 0)
  and ends at the one that predicts everything positive (FPR = TPR = recall = 1); both are
  added when the sweep's thresholds do not reach them, as any classifier can be cut there;
- an exact sweep (``thresholds="exact"``) has one cell per distinct score, so tied scores form
  one step of the curve and the areas equal scikit-learn's ``roc_auc_score`` and
  ``average_precision_score`` (ties counted as the Mann-Whitney statistic counts them, 1/2);
- on a grid (``thresholds=k``) the same formulas run on the grid's points: an approximation. For
  ``roc_auc`` the error is at most half the sum, over grid intervals, of ΔFPR·ΔTPR -- the area of
  the boxes the exact staircase can take inside each interval -- hence at most half the largest
  share of negatives (or positives) falling between two neighbouring grid points.

Ranking measures read a ranked list: a sweep with ``thresholds="ranks"``, one cell per position
(ties in score broken by the input order, or as asked), cell ``i`` holding the counts of the top
``i + 1`` items. Average precision with a cutoff, precision@k, recall@k and the reciprocal rank
are computed there; MAP and MRR are their means over topics (a leaderboard's macro column).

Undefined values (NaN) follow each record: a group with one class has no ROC curve; a topic
without a relevant item has no average precision or reciprocal rank (a topic whose relevant
items all lie beyond the cutoff has reciprocal rank 0, as trec_eval's ``recip_rank`` and ranx's
``mrr@k`` score it; ``ranked_ap_retrieved`` is undefined there, the SemEval scorer's 0 being
``undefined=0``).
"""

from __future__ import annotations

import math

import numba
import numpy as np

from ._kernels import group_kernel
from .registry import Measure, Param, register

NAN = np.nan


@numba.njit(cache=True, inline="always")  # no module of its own to compile
def _sizes(tp, fp, fn, tn):
    """Positives and negatives of the group (the same in every cell)."""
    return tp[0] + fn[0], fp[0] + tn[0]


@group_kernel
def roc_auc_curve(tp, fp, fn, tn, params):
    """Area under the ROC curve by the trapezoid rule.

    With ``max_fpr < 1`` the area up to it, McClish-standardised to [0.5, 1] for a curve above the
    diagonal as scikit-learn does."""
    max_fpr = params[0]
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0 or negatives <= 0:
        return NAN
    area, x0, y0 = 0.0, 0.0, 0.0
    for i in range(tp.size + 1):
        x = fp[i] / negatives if i < tp.size else 1.0
        y = tp[i] / positives if i < tp.size else 1.0
        if x > max_fpr:
            y_cut = y0 + (y - y0) * (max_fpr - x0) / (x - x0)
            area += (max_fpr - x0) * (y0 + y_cut) / 2.0
            break
        area += (x - x0) * (y + y0) / 2.0
        x0, y0 = x, y
    if max_fpr >= 1.0:
        return area
    low, high = 0.5 * max_fpr * max_fpr, max_fpr
    return 0.5 * (1.0 + (area - low) / (high - low))


@group_kernel
def average_precision_curve(tp, fp, fn, tn, params):
    """Σ (R_n − R_{n−1}) P_n over the thresholds from the highest (scikit-learn's step rule)."""
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0:
        return NAN
    total, recall0 = 0.0, 0.0
    for i in range(tp.size):
        if tp[i] + fp[i] > 0:
            recall = tp[i] / positives
            total += (recall - recall0) * tp[i] / (tp[i] + fp[i])
            recall0 = recall
    return total + (1.0 - recall0) * positives / (positives + negatives)


@group_kernel
def pr_auc_curve(tp, fp, fn, tn, params):
    """Trapezoid area under the precision-recall curve from (recall 0, precision 1)."""
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0:
        return NAN
    area, recall0, precision0 = 0.0, 0.0, 1.0
    for i in range(tp.size + 1):
        if i < tp.size and tp[i] + fp[i] == 0:
            continue
        recall = tp[i] / positives if i < tp.size else 1.0
        precision = tp[i] / (tp[i] + fp[i]) if i < tp.size else positives / (positives + negatives)
        area += (recall - recall0) * (precision + precision0) / 2.0
        recall0, precision0 = recall, precision
    return area


ALL_POSITIVE, NOTHING = -1, -2  # operating points no cell holds: threshold -inf, +inf


@group_kernel
def precision_at_recall_point(tp, fp, fn, tn, params):
    """(the highest precision among the operating points with recall >= r, the cell reaching it)."""
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0:
        return NAN, NOTHING
    best, at = -1.0, ALL_POSITIVE
    for i in range(tp.size):
        if tp[i] + fp[i] > 0 and tp[i] / positives >= params[0] and tp[i] / (tp[i] + fp[i]) > best:
            best, at = tp[i] / (tp[i] + fp[i]), i
    everything = positives / (positives + negatives)  # recall 1
    return (everything, ALL_POSITIVE) if everything > best else (best, at)


@group_kernel
def recall_at_precision_point(tp, fp, fn, tn, params):
    """(the highest recall among the operating points with precision >= p -- 0 if none --, the cell)."""
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0:
        return NAN, NOTHING
    best, at = 0.0, NOTHING
    for i in range(tp.size):
        if tp[i] + fp[i] > 0 and tp[i] / (tp[i] + fp[i]) >= params[0] and tp[i] / positives > best:
            best, at = tp[i] / positives, i
    if positives / (positives + negatives) >= params[0] and best < 1.0:
        return 1.0, ALL_POSITIVE
    return best, at


@group_kernel
def tpr_at_fpr_point(tp, fp, fn, tn, params):
    """(the highest TPR among the operating points with FPR <= f -- predicting nothing: 0 --, the cell)."""
    positives, negatives = _sizes(tp, fp, fn, tn)
    if positives <= 0 or negatives <= 0:
        return NAN, NOTHING
    best, at = 0.0, NOTHING
    for i in range(tp.size):
        if fp[i] / negatives <= params[0] and tp[i] / positives > best:
            best, at = tp[i] / positives, i
    if params[0] >= 1.0 and best < 1.0:
        return 1.0, ALL_POSITIVE
    return best, at


@group_kernel
def precision_at_recall_curve(tp, fp, fn, tn, params):
    """The highest precision among the operating points with recall >= r."""
    return precision_at_recall_point(tp, fp, fn, tn, params)[0]


@group_kernel
def recall_at_precision_curve(tp, fp, fn, tn, params):
    """The highest recall among the operating points with precision >= p (0 if none)."""
    return recall_at_precision_point(tp, fp, fn, tn, params)[0]


@group_kernel
def tpr_at_fpr_curve(tp, fp, fn, tn, params):
    """The highest TPR among the operating points with FPR <= f (predicting nothing: 0)."""
    return tpr_at_fpr_point(tp, fp, fn, tn, params)[0]


# operating-point measures: the function giving (value, cell) -- the threshold reaching each
POINTS = {
    "precision_at_recall": precision_at_recall_point,
    "recall_at_precision": recall_at_precision_point,
    "tpr_at_fpr": tpr_at_fpr_point,
}


@group_kernel
def _ranked_precisions(tp, fp, cutoff):
    """Σ precision@i over the relevant positions i <= cutoff, and how many there are."""
    total, found, before = 0.0, 0.0, 0.0
    for i in range(min(tp.size, cutoff)):
        if tp[i] > before:
            found += tp[i] - before
            total += (tp[i] - before) * tp[i] / (tp[i] + fp[i])
        before = tp[i]
    return total, found


@group_kernel
def ranked_ap(tp, fp, fn, tn, params):
    """Σ_{relevant i <= cutoff} precision@i / (relevant items of the topic) -- trec_eval's AP."""
    positives = tp[0] + fn[0]
    if positives <= 0:
        return NAN
    total, _ = _ranked_precisions(tp, fp, _cutoff(params[0], tp.size))
    return total / positives


@group_kernel
def ranked_ap_retrieved(tp, fp, fn, tn, params):
    """Σ_{relevant i <= cutoff} precision@i / (relevant items within the cutoff)."""
    total, found = _ranked_precisions(tp, fp, _cutoff(params[0], tp.size))
    return total / found if found > 0 else NAN


@group_kernel
def precision_at_k(tp, fp, fn, tn, params):
    """Relevant items among the top k, divided by k (a list shorter than k counts as k)."""
    k = _cutoff(params[0], tp.size)
    return tp[k - 1] / params[0] if k > 0 else NAN


@group_kernel
def recall_at_k(tp, fp, fn, tn, params):
    """Relevant items among the top k, divided by the topic's relevant items."""
    positives = tp[0] + fn[0]
    k = _cutoff(params[0], tp.size)
    return tp[k - 1] / positives if positives > 0 and k > 0 else NAN


@group_kernel
def reciprocal_rank(tp, fp, fn, tn, params):
    """1 / the position of the first relevant item within the cutoff; 0 if none is (trec_eval)."""
    if tp[0] + fn[0] <= 0:
        return NAN
    for i in range(_cutoff(params[0], tp.size)):
        if tp[i] > 0:
            return 1.0 / (i + 1)
    return 0.0


@group_kernel
def _cutoff(value, size):
    return size if value >= size else int(value)


_SEED = "scikit-learn's definition (Pedregosa et al., JMLR 2011); "
_UNDEF_CURVE = "the group has only one class"


# -- the records -------------------------------------------------------------------------------
_CURVE = dict(higher_is_better=True, family="none", kind="curve", range=(0.0, 1.0))
register(
    Measure(
        name="roc_auc",
        kernel=roc_auc_curve,
        aliases=("auc", "auroc", "roc_auc_score"),
        summary="Area under the ROC curve (TPR against FPR); with max_fpr, the standardised partial area.",
        formula="trapezoid area under (FPR, TPR) from (0, 0) to (1, 1); max_fpr < 1: 0.5 (1 + (A - m²/2) / "
        "(m - m²/2)), A the area up to FPR = m (McClish 1989)",
        latex=r"\mathrm{AUC} = \int_0^1 \mathrm{TPR}\, d\,\mathrm{FPR}",
        undefined_when=_UNDEF_CURVE,
        reference=_SEED + "equal to the Mann-Whitney U / (AP·AN), ties 1/2",
        params=(Param("max_fpr", 1.0, "largest FPR of the partial area", low=0.0, high=1.0, low_open=True),),
        **_CURVE,
    )
)
register(
    Measure(
        name="average_precision",
        kernel=average_precision_curve,
        aliases=("ap", "average_precision_score"),
        summary="Average precision: precision at each threshold weighted by the recall it adds.",
        formula="sum_n (R_n - R_{n-1}) P_n over the thresholds from the highest",
        latex=r"\mathrm{AP} = \sum_n (R_n - R_{n-1}) P_n",
        undefined_when="the group has no positive item",
        reference=_SEED + "no interpolation",
        **_CURVE,
    )
)
register(
    Measure(
        name="pr_auc",
        kernel=pr_auc_curve,
        summary="Trapezoid area under the precision-recall curve (differs from average_precision, which "
        "does not interpolate).",
        formula="trapezoid area under (recall, precision) from (0, 1)",
        latex=r"\int_0^1 P\, dR \ \text{(trapezoid)}",
        undefined_when="the group has no positive item",
        reference=_SEED + "auc(recall, precision) of precision_recall_curve",
        **_CURVE,
    )
)
register(
    Measure(
        name="precision_at_recall",
        kernel=precision_at_recall_curve,
        summary="The best precision among the thresholds reaching recall r.",
        formula="max { P_t : R_t >= r }",
        latex=r"\max_t \{P_t : R_t \ge r\}",
        undefined_when="the group has no positive item",
        reference="torchmetrics' PrecisionAtFixedRecall",
        params=(Param("recall", 0.5, "the recall to reach", low=0.0, high=1.0),),
        **_CURVE,
    )
)
register(
    Measure(
        name="recall_at_precision",
        kernel=recall_at_precision_curve,
        summary="The best recall among the thresholds keeping precision at least p (0 if none does).",
        formula="max { R_t : P_t >= p }, 0 if empty",
        latex=r"\max_t \{R_t : P_t \ge p\}",
        undefined_when="the group has no positive item",
        reference="torchmetrics' RecallAtFixedPrecision",
        params=(Param("precision", 0.5, "the precision to keep", low=0.0, high=1.0),),
        **_CURVE,
    )
)
register(
    Measure(
        name="tpr_at_fpr",
        kernel=tpr_at_fpr_curve,
        summary="The best true positive rate among the thresholds keeping FPR at most f.",
        formula="max { TPR_t : FPR_t <= f } (predicting nothing: 0)",
        latex=r"\max_t \{TPR_t : FPR_t \le f\}",
        undefined_when=_UNDEF_CURVE,
        reference="the ROC curve's operating point at a false-alarm budget",
        params=(Param("fpr", 0.1, "the largest false positive rate", low=0.0, high=1.0),),
        **_CURVE,
    )
)

_RANKING = dict(higher_is_better=True, family="none", kind="ranking", range=(0.0, 1.0))
_CUTOFF = Param("cutoff", math.inf, "positions read from the top (inf: all)", low=1.0, infinite=True, integer=True)
_K = Param("k", 10.0, "positions read from the top", low=1.0, infinite=True, integer=True)
# P@k divides by k: k = inf would be 0 on every topic, so it takes a whole number
_K_FINITE = Param("k", 10.0, "positions read from the top", low=1.0, integer=True)
register(
    Measure(
        name="ranked_ap",
        kernel=ranked_ap,
        summary="Average precision of a ranked list: precision at each relevant position within the cutoff, "
        "over the topic's relevant items (trec_eval's AP).",
        formula="sum_{i <= cutoff, item i relevant} P@i / R",
        latex=r"\frac{1}{R}\sum_{i \le c,\, rel_i} P@i",
        undefined_when="the topic has no relevant item",
        reference="trec_eval (Voorhees & Harman, TREC)",
        params=(_CUTOFF,),
        **_RANKING,
    )
)
register(
    Measure(
        name="ranked_ap_retrieved",
        kernel=ranked_ap_retrieved,
        summary="Average precision of a ranked list over the relevant items found within the cutoff "
        "(the SemEval-2016 Task 3 scorer's AP).",
        formula="sum_{i <= cutoff, item i relevant} P@i / (relevant items within the cutoff)",
        latex=r"\frac{1}{R_c}\sum_{i \le c,\, rel_i} P@i",
        undefined_when="no relevant item within the cutoff",
        reference="SemEval-2016 Task 3 (Nakov et al., 2016)",
        params=(_CUTOFF,),
        **_RANKING,
    )
)
register(
    Measure(
        name="precision_at_k",
        kernel=precision_at_k,
        aliases=("p_at_k",),
        summary="Relevant items among the top k, over k.",
        formula="TP@k / k",
        latex=r"P@k = TP_k / k",
        undefined_when="never",
        reference="IR evaluation (Manning et al., 2008, §8.4)",
        params=(_K_FINITE,),
        **_RANKING,
    )
)
register(
    Measure(
        name="recall_at_k",
        kernel=recall_at_k,
        aliases=("r_at_k",),
        summary="Relevant items among the top k, over the topic's relevant items.",
        formula="TP@k / R",
        latex=r"R@k = TP_k / R",
        undefined_when="the topic has no relevant item",
        reference="IR evaluation (Manning et al., 2008, §8.4)",
        params=(_K,),
        **_RANKING,
    )
)
register(
    Measure(
        name="reciprocal_rank",
        kernel=reciprocal_rank,
        aliases=("rr",),
        summary="One over the position of the first relevant item (MRR is its mean over topics).",
        formula="1 / min { i <= cutoff : item i relevant }; 0 if no relevant item is within the cutoff",
        latex=r"1 / \min\{i \le c : rel_i\}",
        undefined_when="the topic has no relevant item",
        reference="Voorhees, TREC-8 QA track (1999); 0 beyond the cutoff as trec_eval's recip_rank and ranx's mrr@k",
        params=(_CUTOFF,),
        **_RANKING,
    )
)


def top_k_accuracy(counts):
    """tp / (tp + fn) of ``counts[..., 2, 2]`` at depth k: the items whose gold class is in their top k."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return counts[..., 1, 1] / (counts[..., 1, 1] + counts[..., 1, 0])


register(
    Measure(
        name="top_k_accuracy",
        kernel=top_k_accuracy,
        summary="Top-k accuracy: the share of items whose gold class is among the k classes they score "
        "highest (class probabilities counted with thresholds='topk').",
        formula="sum_i w_i [rank of gold_i <= k] / sum_i w_i, ties ranking the higher class index first",
        latex=r"\frac{1}{N}\sum_i [\mathrm{rank}_i(y_i) \le k]",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="none",
        kind="topk",
        undefined_when="the group has no item",
        reference="scikit-learn's top_k_accuracy_score (Pedregosa et al., JMLR 2011)",
        aliases=("top_k_accuracy_score",),
        params=(Param("k", 2.0, "classes counted from the top", low=1.0, integer=True),),
    )
)
