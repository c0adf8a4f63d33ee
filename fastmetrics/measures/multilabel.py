"""Multilabel proficiency and permuted proficiency (Steingold & Laclavík n.d., §4.3): the ``multilabel`` hooks of
the ``proficiency`` and ``permuted_proficiency`` records.

With binary variables ``Ac_i`` ("category i is in the gold set") and ``Pc_i`` (in the predicted
set), and Pc_i assumed independent of everything but Ac_i::

    alpha  = sum_i I(Pc_i; Ac_i) / sum_i H(Ac_i)
    alpha' = sum_i I(M(Pc_i); Ac_i) / sum_i H(Ac_i)

where ``M`` is the one-to-one assignment of predicted to gold categories maximising the summed
mutual information (Munkres; here ``scipy.optimize.linear_sum_assignment``), so alpha <= alpha'.
Categories absent from gold have H = 0 and I = 0: the sums run over categories present in gold.
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError
from ._binary_kernels import mutual_information_kernel


def _entropy_bits(size, n):
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.asarray(size, np.float64) / np.asarray(n, np.float64)[..., None]
        h = -(
            np.where(p > 0, p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
            + np.where(p < 1, (1 - p) * np.log2(np.where(p < 1, 1 - p, 1.0)), 0.0)
        )
    return h


def _ratio(info, h):
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(h > 0, info / np.where(h > 0, h, 1.0), np.nan)


def multilabel_proficiency(tensor, spec=None) -> np.ndarray:
    """alpha of Steingold & Laclavík (n.d., §4.3) over the group axes of a multilabel tensor.

    ``tensor`` is a :class:`~fastmetrics.tensor.MultilabelTensor`.
    """
    c = tensor.counts
    info = mutual_information_kernel(c[..., 1, 1], c[..., 0, 1], c[..., 1, 0], c[..., 0, 0])
    h = _entropy_bits(tensor.gold_size, tensor.n)
    return _ratio(np.nansum(info, axis=-1), h.sum(axis=-1))


def pairwise_information(tensor) -> np.ndarray:
    """``I[..., i, j]`` = I(Pc_j; Ac_i) in bits for every gold category i and predicted category j."""
    a = np.asarray(tensor.gold_size, np.float64)[..., :, None]
    b = np.asarray(tensor.pred_size, np.float64)[..., None, :]
    n = np.asarray(tensor.n, np.float64)[..., None, None]
    both = np.asarray(tensor.cooccurrence, np.float64)
    info = mutual_information_kernel(both, b - both, a - both, n - a - b + both)
    return np.nan_to_num(info, nan=0.0)  # n = 0 groups: no information either way


def optimal_assignment(information: np.ndarray) -> np.ndarray:
    """For one K x K information matrix, ``assigned[i]`` = predicted category matched to gold i."""
    try:
        from scipy.optimize import linear_sum_assignment
    except ImportError:  # pragma: no cover - exercised only without scipy
        raise ParameterError(
            "permuted_proficiency needs scipy (the Munkres assignment): pip install 'fastmetrics[assignment]'"
        ) from None
    rows, cols = linear_sum_assignment(information, maximize=True)
    assigned = np.empty(information.shape[0], np.int64)
    assigned[rows] = cols
    return assigned


def multilabel_permuted_proficiency(tensor, spec=None) -> np.ndarray:
    """alpha' of Steingold & Laclavík (n.d., §4.3): proficiency after the optimal category assignment."""
    info = pairwise_information(tensor)
    h = _entropy_bits(tensor.gold_size, tensor.n).sum(axis=-1)
    k = info.shape[-1]
    flat = info.reshape(-1, k, k)
    best = np.empty(flat.shape[0])
    for g in range(flat.shape[0]):
        assigned = optimal_assignment(flat[g])
        best[g] = flat[g][np.arange(k), assigned].sum()
    return _ratio(best.reshape(info.shape[:-2]), h)
