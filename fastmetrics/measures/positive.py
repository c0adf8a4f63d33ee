"""Which class is positive: scikit-learn's ``pos_label`` on the classes of counted labels.

Binary kernels read ``counts[..., 1, 1]`` as the true positives. Counts of 0/1 or boolean labels
have the positive class there; for other labels the rule is scikit-learn's (``pos_label=1`` by
default, ``average="binary"``):

- two classes, one of them 1 (``{1, 2}``, ``{-1, 1}``): 1 is positive;
- one class (every item of one label): positive if it is 1, else every item is negative;
- two classes without 1 (``ham``/``spam``, ``{0, 2}``): which one is positive must be said with
  ``pos_label`` -- refused without it, as scikit-learn refuses, for every measure that reads a
  positive class (measures flagged ``class_symmetric``, averaged ones and native multiclass
  ones do not);
- ``pos_label`` given: that class against the rest (one-vs-rest when there are more than two).
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from .averaging import one_vs_rest


def positive_counts(counts: np.ndarray, classes, specs, average, pos_label=None) -> np.ndarray:
    """The counts with the positive class last, as the binary kernels read them.

    Parameters
    ----------
    counts : ndarray, shape (..., m, m)
        ``counts[..., i, j]``: items of class ``classes[i]`` predicted as ``classes[j]``.
    classes : array_like
        The labels of the last two axes.
    specs : list of MeasureSpec
        The measures asked for (only those reading a positive class can be refused).
    average : str or None
        The call's averaging for specs without a suffix.
    pos_label : scalar, optional
        The positive class (default: 1 where it is one of the classes).

    Returns
    -------
    ndarray, shape (..., 2, 2) or the counts unchanged
        ``[[tn, fp], [fn, tp]]`` of the positive class against the rest; the counts themselves
        when they are already so, or when no measure reads a positive class.

    Raises
    ------
    InputError
        ``pos_label`` is not one of two or more classes; or two classes, neither 1, without
        ``pos_label`` for a measure that reads a positive class.
    """
    labels = np.asarray(classes).tolist()
    m = counts.shape[-1]
    if pos_label is None:
        if not _binary_read(specs, average, m):
            return counts
        k = _index(labels, 1)
        if k is None and m == 2:
            raise _which_positive(labels, specs, average)
    else:
        k = _index(labels, pos_label)
        if k is None and m > 1:
            shown = ", ".join(repr(c) for c in labels[:8]) + (", ..." if m > 8 else "")
            raise InputError(f"pos_label={pos_label!r} is not one of the labels ({shown}).")
    if m == 2 and k == 1:
        return counts
    return _one_against_rest(counts, k)


def has_positive(classes) -> bool:
    """Whether scikit-learn's default ``pos_label=1`` is one of ``classes`` (or they are 0/1)."""
    labels = np.asarray(classes).tolist()
    return _index(labels, 1) is not None


def _index(labels: list, label):
    """The position of ``label`` among ``labels`` (a number equal to it, or its text: a CLI option)."""
    for i, c in enumerate(labels):
        if _same(c, label):
            return i
    if isinstance(label, str):
        for i, c in enumerate(labels):
            if not isinstance(c, str) and str(c) == label:
                return i
    return None


def _same(c, label) -> bool:
    if isinstance(c, str) != isinstance(label, str):
        return False
    try:
        return bool(c == label)
    except (TypeError, ValueError):
        return False


def _binary_read(specs, average, m: int) -> list:
    """The specs evaluated by a binary kernel that reads the positive class."""
    if m > 2:
        return []
    return [
        s
        for s in specs
        if s.measure.kind == "point"
        and s.averaged(average) is None
        and (m == 1 and s.measure.multiclass is None or m == 2 and "class_symmetric" not in s.measure.properties)
    ]


def _one_against_rest(counts: np.ndarray, k) -> np.ndarray:
    """``[[tn, fp], [fn, tp]]`` of class ``k`` against the rest (every item negative if ``k`` is None)."""
    if k is None:
        total = counts.sum(axis=(-2, -1))
        tp = fn = fp = np.zeros_like(total)
        tn = total
    else:
        tp, fp, fn, tn = (c[..., k] for c in one_vs_rest(counts)[:4])
    return np.stack([np.stack([tn, fp], -1), np.stack([fn, tp], -1)], -2)


def _which_positive(labels: list, specs, average) -> InputError:
    reading = ", ".join(dict.fromkeys(s.base_label for s in _binary_read(specs, average, 2)))
    return InputError(
        f"The labels are {labels[0]!r} and {labels[1]!r}, and neither is 1 (scikit-learn's default "
        f"pos_label): {reading} read(s) a positive class. Say which label is positive with pos_label= "
        "(--pos-label), or ask for measures that read none (accuracy, mcc, f1@macro)."
    )
