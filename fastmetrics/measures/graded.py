"""Measures of ranked lists against graded judgements: nDCG, bpref, judged@k.

They read a :class:`~fastmetrics.tensor.graded.GradedRanks` -- the ranks sweep of the same lists
at every relevance grade ``g_1 < g_2 < ...`` ("grade >= g_j" positive) and of the judged items
(grade >= 0) -- where ``tp_j[i]`` counts the items of grade at least ``g_j`` among the top
``i + 1``. An item's gain ``G(grade)`` is the sum of ``G(g_j) - G(g_{j-1})`` over the levels it
reaches, so a list's discounted cumulative gain is a weighted sum of one binary DCG per level,
and the ideal list's -- the judged items by decreasing grade -- takes the ``R_j`` items reaching
level ``j`` first:

- ``ndcg(k)``: DCG@k / IDCG@k, ``DCG@k = sum_{i <= k} G(grade_i) / log2(i + 1)``, gains the
  grades (trec_eval's ``ndcg`` and ``ndcg_cut_k``, Järvelin & Kekäläinen, 2002), or
  ``2^grade - 1`` with ``exponential=1`` (Burges et al., 2005);
- ``bpref``: trec_eval's ``m_bpref.c``, ``(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) /
  min(N, R))``, ``n_r`` the judged non-relevant items above ``r`` (a term is 1 when ``n_r = 0``),
  ``N`` the topic's judged non-relevant items (Buckley & Voorhees, 2004); unjudged items are
  skipped;
- ``judged_at_k``: the judged items among the top ``min(k, list length)``, over that number
  (ir_measures' ``Judged@k``).

Binary ranking measures asked in the same call read the sweep at the relevance level.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from .._errors import ParameterError
from ..tensor import Scores, group_starts
from ..tensor.graded import GradedRanks
from . import api, registry, sweeps
from .registry import Measure, Param, register

NAN = np.nan


@numba.njit(cache=True)
def _ideal(levels, gains, depth):
    """The ideal list's DCG: ``levels[j]`` items reach level j, each adding ``gains[j]``."""
    total = 0.0
    for j in range(levels.size):
        for i in range(min(levels[j], depth)):
            total += gains[j] / math.log2(i + 2.0)
    return total


@numba.njit(cache=True)
def _ndcg(tps, positives, gains, starts, k, ideal_depth, out):
    for g in range(starts.size - 1):
        s, e = starts[g], starts[g + 1]
        depth = e - s if k >= e - s else int(k)
        dcg = 0.0
        for j in range(tps.shape[0]):
            before = 0
            for i in range(depth):
                if tps[j, s + i] > before:
                    dcg += gains[j] * (tps[j, s + i] - before) / math.log2(i + 2.0)
                before = tps[j, s + i]
        ideal = _ideal(positives[:, g], gains, ideal_depth)  # the ideal list is cut at k, not at the list's end
        out[g] = dcg / ideal if ideal > 0 else NAN


@numba.njit(cache=True)
def _bpref(rel, judged, relevant, nonrelevant, starts, out):
    for g in range(starts.size - 1):
        s, e, r, n = starts[g], starts[g + 1], relevant[g], nonrelevant[g]
        if r <= 0:
            out[g] = NAN
            continue
        total, before = 0.0, 0
        for i in range(s, e):
            if rel[i] > before:
                above = judged[i] - rel[i]
                total += 1.0 if above <= 0 else 1.0 - min(above, r) / min(n, r)
            before = rel[i]
        out[g] = total / r


@numba.njit(cache=True)
def _judged_at_k(judged, starts, k, out):
    for g in range(starts.size - 1):
        s, e = starts[g], starts[g + 1]
        depth = e - s if k >= e - s else int(k)
        out[g] = judged[s + depth - 1] / depth if depth > 0 else NAN


def graded_scores(ranks: GradedRanks, specs, *, undefined=None, warn=False) -> Scores:
    """Graded and binary ranking measures of a :class:`GradedRanks`, in the order asked.

    Parameters
    ----------
    ranks : GradedRanks
    specs : list of MeasureSpec
        Graded measures (this module) and ranking measures (read at the relevance level).
    undefined, warn
        As in :func:`fastmetrics.evaluate`.

    Returns
    -------
    Scores
        Over the groups (system, topic) of the sweeps.
    """
    other = [s for s in specs if s.measure.kind != "graded"]
    wrong = [s.label for s in other if s.measure.kind != "ranking"]
    if wrong:
        raise ParameterError(
            f"{', '.join(wrong)}: graded judgements counted as ranked lists take ranking measures (nDCG, bpref, "
            "AP, P@k ...); count the runs again for the others."
        )
    binary = sweeps.curve_scores(ranks.binary, other, undefined=undefined, warn=warn) if other else None
    template = binary if binary is not None else sweeps.curve_scores(ranks.judged, [registry.parse_spec("num_ret")])
    starts, _ = group_starts(ranks.judged)
    values = []
    for spec in specs:
        if spec.measure.kind != "graded":
            values.append(binary[spec.label if spec.average == "none" else spec.base_label])
            continue
        out = np.empty(starts.size - 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            spec.measure.kernel(ranks, starts, np.asarray(spec.params, np.float64), out)
        values.append(_placed(template, ranks, starts, api.apply_undefined(out, undefined, spec.base_label, warn)))
    labels = [s.base_label if s.average in (None, "none") else s.label for s in specs]
    return Scores(np.stack(values), labels, template.axes, template.coords)


def _placed(template: Scores, ranks: GradedRanks, starts, out) -> np.ndarray:
    """Group values laid out as ``template``'s (its dense axes, NaN where no group is)."""
    placed = np.full(template.batch_shape, np.nan)
    index = tuple(
        np.searchsorted(template.coords[a], np.asarray(ranks.judged.coords[a])[starts[:-1]]) for a in template.axes
    )
    placed[index] = out
    return placed


def _tp(tensor) -> np.ndarray:
    return np.ascontiguousarray(tensor.counts[:, 1, 1]).astype(np.int64)


def _ndcg_kernel(ranks: GradedRanks, starts, params, out) -> None:
    grades = ranks.grades
    gain = np.exp2(grades) - 1.0 if params[1] else grades.copy()
    gains = np.diff(gain, prepend=0.0)
    tps = np.stack([_tp(t) for t in ranks.tensors]) if ranks.tensors else np.zeros((0, out.size), np.int64)
    first = starts[:-1]
    positives = np.stack([t.counts[first, 1, :].sum(axis=-1) for t in ranks.tensors]) if ranks.tensors else tps
    ideal_depth = int(min(params[0], 2**62))
    _ndcg(tps, positives.astype(np.int64).reshape(len(ranks.tensors), -1), gains, starts, params[0], ideal_depth, out)


def _bpref_kernel(ranks: GradedRanks, starts, params, out) -> None:
    binary, first = ranks.binary, starts[:-1]
    relevant = binary.counts[first, 1, :].sum(axis=-1).astype(np.int64)
    nonrelevant = ranks.judged.counts[first, 1, :].sum(axis=-1).astype(np.int64) - relevant
    _bpref(_tp(binary), _tp(ranks.judged), relevant, nonrelevant, starts, out)


def _judged_kernel(ranks: GradedRanks, starts, params, out) -> None:
    _judged_at_k(_tp(ranks.judged), starts, params[0], out)


_GRADED = dict(higher_is_better=True, family="none", kind="graded", range=(0.0, 1.0))
register(
    Measure(
        name="ndcg",
        kernel=_ndcg_kernel,
        summary="Normalised discounted cumulative gain of a ranked list against graded judgements; gains the "
        "grades (trec_eval's ndcg, ndcg_cut_k) or 2^grade - 1 (exponential=1).",
        formula="DCG@k / IDCG@k, DCG@k = sum_{i <= k} G(grade_i) / log2(i + 1), G(g) = g (or 2^g - 1)",
        latex=r"\frac{\sum_{i \le k} G(g_i)/\log_2(i+1)}{\sum_{i \le k} G(g^*_i)/\log_2(i+1)}",
        undefined_when="the topic has no item of positive grade",
        reference="Järvelin & Kekäläinen (2002), ACM TOIS 20; trec_eval 10.0's m_ndcg.c, m_ndcg_cut.c; "
        "exponential gains: Burges et al. (2005)",
        params=(
            Param("k", math.inf, "positions read from the top (inf: all)", low=1.0, infinite=True, integer=True),
            Param("exponential", 0.0, "0: gain = grade; 1: gain = 2^grade - 1", low=0.0, high=1.0, integer=True),
        ),
        **_GRADED,
    )
)
register(
    Measure(
        name="bpref",
        kernel=_bpref_kernel,
        summary="Binary preference: the share of judged non-relevant items ranked below each relevant item "
        "retrieved, unjudged items skipped (trec_eval's bpref).",
        formula="(1/R) sum_{relevant retrieved r} (1 - min(n_r, R) / min(N, R)), n_r judged non-relevant above r",
        latex=r"\frac{1}{R}\sum_{r} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right)",
        undefined_when="the topic has no relevant item",
        reference="Buckley & Voorhees (2004), SIGIR; trec_eval 10.0's m_bpref.c",
        **_GRADED,
    )
)
register(
    Measure(
        name="judged_at_k",
        kernel=_judged_kernel,
        summary="The share of the top k items that are judged (ir_measures' Judged@k; a shorter list: its length).",
        formula="judged items in the top min(k, n) / min(k, n)",
        latex=r"J@k = \frac{|\mathrm{judged} \cap \mathrm{top}_{\min(k,n)}|}{\min(k, n)}",
        undefined_when="the list is empty",
        reference="ir_measures (MacAvaney et al., 2022), Judged@k",
        params=(Param("k", 10.0, "positions read from the top", low=1.0, infinite=True, integer=True),),
        **_GRADED,
    )
)
