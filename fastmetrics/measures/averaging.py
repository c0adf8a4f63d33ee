"""One-vs-rest averaging of binary measures over the classes of ``counts[..., m, m]`` (Gösgens et al. 2021, §2).

For class ``i`` taken as positive and every other class as negative::

    tp_i = c_ii,  fn_i = a_i - c_ii,  fp_i = b_i - c_ii,  tn_i = n - a_i - b_i + c_ii

- ``micro``: the binary measure of the summed one-vs-rest matrices, ``sum_i (tp_i, fp_i, fn_i,
  tn_i)`` -- for single-label input tp = sum_i c_ii, fp = fn = n - tp, tn = (m - 2) n + tp.
- ``macro``: the mean of the ``m`` per-class values.
- ``weighted``: the mean weighted by the true class sizes, ``sum_i a_i M_i / n``.

Policy for classes missing from a matrix (documented, tested against scikit-learn):

- a class absent from both gold and prediction of a matrix is not part of that labeling and is
  left out of the macro mean (scikit-learn averages over the labels present in ``y_true`` or
  ``y_pred`` in the same way); its weight is 0 in the weighted mean;
- a class present in one of them can make its binary value undefined (precision of a class
  never predicted, recall of a class absent from gold): that NaN propagates to the macro mean,
  so the average is undefined rather than silently changed. ``undefined=x`` replaces each
  undefined per-class value by ``x`` *before* averaging -- ``undefined=0`` is scikit-learn's
  ``zero_division=0``. In the weighted mean classes absent from gold have weight 0 and are left
  out, as in scikit-learn.
"""

from __future__ import annotations

import numpy as np

AVERAGES = ("micro", "macro", "weighted")


def one_vs_rest(counts: np.ndarray):
    """Per-class binary counts ``(tp, fp, fn, tn)``, each of shape ``(..., m)``, and ``a``, ``b``."""
    c = np.asarray(counts)
    diag = np.diagonal(c, axis1=-2, axis2=-1)
    a = c.sum(axis=-1)
    b = c.sum(axis=-2)
    n = a.sum(axis=-1, keepdims=True)
    return diag, b - diag, a - diag, n - a - b + diag, a, b


def micro_counts(counts: np.ndarray):
    """The summed one-vs-rest matrix ``(tp, fp, fn, tn)``, each of the batch shape."""
    tp, fp, fn, tn, _, _ = one_vs_rest(counts)
    return tp.sum(-1), fp.sum(-1), fn.sum(-1), tn.sum(-1)


def average_classes(values: np.ndarray, a: np.ndarray, b: np.ndarray, average: str, present=None) -> np.ndarray:
    """Combine per-class values ``values[..., m]`` by ``"macro"`` or ``"weighted"`` averaging.

    ``present`` (bool, ``[..., m]``) names the classes of each labelling where the counts cannot
    (a class seen only in items of weight 0); by default the classes with items, ``a + b > 0``.
    """
    if average == "macro":
        present = (a + b) > 0 if present is None else present
        total = np.where(present, values, 0.0).sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return total / present.sum(axis=-1)
    support = a.astype(np.float64)
    total = np.where(support > 0, values * support, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return total / support.sum(axis=-1)
