"""trec_eval's measures of one ranked list, beyond AP, P@k, R@k and RR (:mod:`.curves`).

Each reads a ranked list counted with ``thresholds="ranks"``: cell ``i`` of a group holds the
counts of its top ``i + 1`` items, so ``tp[i]`` is the relevant items retrieved within rank
``i + 1``, ``tp[0] + fn[0]`` the topic's relevant items ``R`` (retrieved or not, with
``missing="negative"``) and ``tp[-1] + fp[-1]`` the items retrieved. The definitions are
trec_eval's (version 10.0, ``m_Rprec.c``, ``m_success.c``, ``m_iprec_at_recall.c``,
``m_num_ret.c``, ``m_num_rel.c``, ``m_num_rel_ret.c``), checked per topic against trec_eval
through pytrec_eval in ``tests/measures/test_trec_measures.py``.

A topic without a relevant item is undefined (NaN) for the measures that divide by ``R``, as for
``ranked_ap``; trec_eval prints 0 there, which ``undefined=0`` (and the ``trec_eval`` profile)
gives.
"""

from __future__ import annotations

import math
import warnings

import numba
import numpy as np

from ._kernels import group_kernel
from .registry import Measure, Param, register

NAN = np.nan


@numba.njit(cache=True, inline="always")
def _depth(k, size):
    """Positions of the list read for a cutoff ``k`` (``inf``: all)."""
    return size if k >= size else int(k)


@group_kernel
def r_precision(tp, fp, fn, tn, params):
    """Relevant items among the top R, over R (R the topic's relevant items)."""
    positives = tp[0] + fn[0]
    if positives <= 0:
        return NAN
    depth = _depth(positives, tp.size)
    return tp[depth - 1] / positives if depth > 0 else 0.0


@group_kernel
def success_at_k(tp, fp, fn, tn, params):
    """1 if a relevant item is among the top k, else 0."""
    depth = _depth(params[0], tp.size)
    return 1.0 if depth > 0 and tp[depth - 1] > 0 else 0.0


@group_kernel
def num_ret(tp, fp, fn, tn, params):
    """Items retrieved (the length of the list)."""
    return tp[tp.size - 1] + fp[fp.size - 1] if tp.size else 0.0


@group_kernel
def num_rel(tp, fp, fn, tn, params):
    """Relevant items of the topic, retrieved or not."""
    return tp[0] + fn[0] if tp.size else NAN


@group_kernel
def num_rel_ret(tp, fp, fn, tn, params):
    """Relevant items retrieved."""
    return tp[tp.size - 1] if tp.size else 0.0


@group_kernel
def interpolated_precision(tp, fp, fn, tn, params):
    """The highest precision at any depth whose recall reaches r, trec_eval's way.

    trec_eval turns the recall level r into a number of relevant items, ``c = floor(r R + carry)``
    (10.0: ``carry = 0.5``, ``lround``; 9.x and pytrec_eval: 0.9), and takes the highest
    precision at the depths holding at least ``c`` relevant items; 0 when fewer than ``c`` are
    retrieved."""
    positives = tp[0] + fn[0]
    if positives <= 0:
        return NAN
    needed = math.floor(params[0] * positives + params[1])
    best = 0.0
    for i in range(tp.size):
        if tp[i] >= needed:
            precision = tp[i] / (i + 1)
            if precision > best:
                best = precision
    return best


@group_kernel
def log_ap(tp, fp, fn, tn, params):
    """log(max(AP, 0.00001)): trec_eval's per-topic gm_map, whose mean over topics is log(GMAP).

    A topic without a relevant item has AP 0 there, hence log(0.00001): the floor is the measure's
    own convention, so no NaN is left for ``undefined=`` to fill with a value of another scale."""
    positives = tp[0] + fn[0]
    if positives <= 0:
        return math.log(0.00001)
    total, before = 0.0, 0.0
    for i in range(tp.size):
        if tp[i] > before:
            total += (tp[i] - before) * tp[i] / (i + 1)
        before = tp[i]
    return math.log(max(total / positives, 0.00001))


@group_kernel
def floored_ap(tp, fp, fn, tn, params):
    """max(AP, 0.00001), the AP whose geometric mean over topics is GMAP (0 AP without a relevant item)."""
    return math.exp(log_ap(tp, fp, fn, tn, params))


def topic_values(ranks, asked, system, evaluate) -> np.ndarray:
    """Ranking measures of every list, ``values[measure, system, topic cells]``.

    What a measure defined over all topics at once (a registry record's ``pooled``) sums or
    averages.

    Parameters
    ----------
    ranks : ConfusionTensor
        Ranked lists (``thresholds="ranks"``) over ``(system[, topic])``.
    asked : list of str
        Measure specs.
    system : str
        The axis playing the system.
    evaluate : callable
        :func:`fastmetrics.measures.evaluation.evaluate`.

    Returns
    -------
    ndarray of float64, shape (measures, systems, cells)
    """
    scores = evaluate(ranks, asked)
    values = np.moveaxis(scores.values, 1 + scores.axes.index(system), 1)
    return values.reshape(values.shape[:2] + (-1,))


def pooled_gmap(ranks, spec, system, evaluate) -> np.ndarray:
    """Each system's GMAP, as trec_eval prints ``gm_map``.

    The exp of the mean over its topics of log max(AP, 0.00001); the arguments are those of a
    record's ``pooled`` (:class:`~fastmetrics.measures.registry.Measure`).
    """
    values = topic_values(ranks, ["log_ap"], system, evaluate)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a system without a topic: NaN
        return np.exp(np.nanmean(values, axis=1))


_RANKING = dict(higher_is_better=True, family="none", kind="ranking", range=(0.0, 1.0))
_TREC = "trec_eval 10.0 (Buckley & Voorhees, 2005, in TREC: Experiment and Evaluation in Information Retrieval)"
_NO_RELEVANT = "the topic has no relevant item"
register(
    Measure(
        name="r_precision",
        kernel=r_precision,
        summary="Precision after R items, R the topic's relevant items (trec_eval's Rprec): where precision "
        "equals recall.",
        formula="TP@R / R",
        latex=r"R\text{-}P = TP_R / R",
        undefined_when=_NO_RELEVANT,
        reference=_TREC,
        **_RANKING,
    )
)
register(
    Measure(
        name="success_at_k",
        kernel=success_at_k,
        summary="1 if a relevant item is among the top k, else 0 (trec_eval's success.k).",
        formula="[TP@k > 0]",
        latex=r"\mathrm{S}@k = [TP_k > 0]",
        undefined_when="never",
        reference=_TREC + "; Tomlinson",
        params=(Param("k", 10.0, "positions read from the top", low=1.0, infinite=True, integer=True),),
        **_RANKING,
    )
)
# the counts trec_eval prints for every topic: (name, kernel, summary, formula)
for _name, _kernel, _summary, _formula in (
    ("num_ret", num_ret, "Items retrieved: the length of the ranked list", "TP_n + FP_n"),
    ("num_rel", num_rel, "Relevant items of the topic, retrieved or not", "R = TP + FN"),
    ("num_rel_ret", num_rel_ret, "Relevant items retrieved", "TP_n"),
):
    register(
        Measure(
            name=_name,
            kernel=_kernel,
            summary=f"{_summary} (trec_eval's {_name}).",
            formula=_formula,
            latex=_formula,
            undefined_when="never",
            reference=_TREC,
            higher_is_better=True,
            family="none",
            kind="ranking",
            range=(0.0, math.inf),
        )
    )
register(
    Measure(
        name="interpolated_precision",
        kernel=interpolated_precision,
        summary="Interpolated precision at a recall level r: the highest precision at any depth reaching it "
        "(trec_eval's iprec_at_recall_r; the 11 points r = 0, 0.1, ..., 1 draw its recall-precision graph).",
        formula="max { TP@i / i : TP@i >= floor(r R + carry) }, 0 if no depth reaches it",
        latex=r"\max_i \{ TP_i / i : TP_i \ge \lfloor rR + \mathrm{carry} \rfloor \}",
        undefined_when=_NO_RELEVANT,
        reference=_TREC + "; carry=0.9 is trec_eval 9.x's and pytrec_eval's rule",
        params=(
            Param("recall", 0.0, "the recall level r", low=0.0, high=1.0),
            Param("carry", 0.5, "added to r R before rounding down: 0.5 (trec_eval 10), 0.9 (9.x)", low=0.0, high=1.0),
        ),
        **_RANKING,
    )
)
register(
    Measure(
        name="gmap",
        kernel=floored_ap,
        aliases=("gm_ap",),
        summary="Geometric mean average precision (trec_eval's gm_map): per topic max(AP, 0.00001); over "
        "topics the geometric mean, a leaderboard's micro column (its macro column is the arithmetic mean).",
        formula="per topic max(AP, 10^-5); GMAP = exp(mean_topics log max(AP, 10^-5))",
        latex=r"\mathrm{GMAP} = \exp\Big(\frac{1}{|Q|}\sum_q \log \max(\mathrm{AP}_q, 10^{-5})\Big)",
        undefined_when="never (a topic without a relevant item: AP 0, floored at 10^-5, as trec_eval)",
        reference=_TREC + "; Robertson (2006), On GMAP",
        pooled=pooled_gmap,
        **_RANKING,
    )
)
register(
    Measure(
        name="log_ap",
        kernel=log_ap,
        summary="log(max(AP, 0.00001)), trec_eval's per-topic gm_map: exp of its mean over topics is the "
        "geometric mean of average precision (GMAP).",
        formula="log max(AP, 10^-5)",
        latex=r"\log \max(\mathrm{AP}, 10^{-5})",
        undefined_when="never (a topic without a relevant item: AP 0, log 10^-5, as trec_eval)",
        reference=_TREC + "; Robertson (2006), On GMAP",
        higher_is_better=True,
        family="none",
        kind="ranking",
        range=(math.log(0.00001), 0.0),
    )
)
