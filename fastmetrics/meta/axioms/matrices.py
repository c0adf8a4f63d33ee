"""The enumerator: every confusion matrix up to a size, and every labeling of a few items.

One layout for every number of classes: ``C[k, i, j]`` counts the items of true class ``i``
predicted ``j`` (Gösgens et al.'s (2021) c_ij). Binary is m = 2 with class 1 the positive class, so
``tn = c00, fp = c01, fn = c10, tp = c11``; :func:`all_matrices` keeps the binary checker's
historical ``(tp, fp, fn, tn)`` rows for callers that index counts by name.
"""

from __future__ import annotations

import itertools

import numpy as np

# The binary cells in (tp, fp, fn, tn) order, as (true class, predicted class).
BINARY_CELLS = ((1, 1), (0, 1), (1, 0), (0, 0))
BINARY_NAMES = {(1, 1): "tp", (0, 1): "fp", (1, 0): "fn", (0, 0): "tn"}


def compositions(n: int, parts: int) -> np.ndarray:
    """Every way to write ``n`` as an ordered sum of ``parts`` non-negative integers.

    Parameters
    ----------
    n : int
        The total.
    parts : int
        Number of summands (>= 1).

    Returns
    -------
    numpy.ndarray
        ``int`` array of shape ``(k, parts)``, lexicographically increasing (the first part
        varies slowest), from stars and bars over the positions of the ``parts - 1`` bars.
    """
    combos = list(itertools.combinations(range(n + parts - 1), parts - 1))
    bars = np.array(combos, dtype=np.int64).reshape(len(combos), parts - 1)
    ends = np.full((bars.shape[0], 1), n + parts - 1)
    return np.diff(np.hstack([np.full((bars.shape[0], 1), -1), bars, ends]), axis=1) - 1


def _stack(blocks: list[np.ndarray], shape: tuple[int, ...]) -> np.ndarray:
    if not blocks or not sum(len(b) for b in blocks):
        return np.array([], dtype=np.float64)
    return np.concatenate(blocks).astype(np.float64).reshape((-1,) + shape)


def all_class_matrices(m: int, n_max: int, n_min: int = 1) -> np.ndarray:
    """Every m x m count matrix with ``n_min <= n <= n_max``.

    Parameters
    ----------
    m : int
        Number of classes.
    n_max, n_min : int
        Largest and smallest number of items.

    Returns
    -------
    numpy.ndarray
        ``float64`` array ``C[k, m, m]`` ordered by n, then lexicographically over the cells in
        row-major order.
    """
    return _stack([compositions(n, m * m) for n in range(n_min, n_max + 1)], (m, m))


def all_matrices(n_max: int, n_min: int = 1) -> np.ndarray:
    """Every binary confusion matrix with ``n_min <= n <= n_max`` as rows of counts.

    Parameters
    ----------
    n_max, n_min : int
        Largest and smallest number of items.

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``(4, k)``: rows tp, fp, fn, tn; columns ordered by n, then
        lexicographically over (tp, fp, fn).
    """
    return _stack([compositions(n, 4) for n in range(n_min, n_max + 1)], (4,)).T


def binary_matrix(tp, fp, fn, tn) -> np.ndarray:
    """Binary counts as matrices ``C[..., 2, 2]``.

    ``c11 = tp``, ``c01 = fp``, ``c10 = fn``, ``c00 = tn``.

    Parameters
    ----------
    tp, fp, fn, tn : array_like
        The four counts.

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``broadcast shape + (2, 2)``.
    """
    tp, fp, fn, tn = np.broadcast_arrays(*(np.asarray(x, np.float64) for x in (tp, fp, fn, tn)))
    return np.stack([np.stack([tn, fp], axis=-1), np.stack([fn, tp], axis=-1)], axis=-2)


def binary_matrices(n_max: int, n_min: int = 1) -> np.ndarray:
    """:func:`all_matrices` as ``C[k, 2, 2]``, in the same order.

    Parameters
    ----------
    n_max, n_min : int
        Largest and smallest number of items.

    Returns
    -------
    numpy.ndarray
        ``float64`` array of shape ``(k, 2, 2)``.
    """
    rows = np.reshape(all_matrices(n_max, n_min), (4, -1))
    return binary_matrix(*rows)


def labelings(m: int, n: int, first_item_fastest: bool) -> np.ndarray:
    """Every labeling of ``n`` items with ``m`` classes, in the order of its code in base m.

    Parameters
    ----------
    m, n : int
        Number of classes and of items.
    first_item_fastest : bool
        True: item k is digit k of the code (the first item varies fastest, the binary checker's
        bit order); False: the first item is the most significant digit (``itertools.product``).

    Returns
    -------
    numpy.ndarray
        ``int`` array ``L[labeling, item]`` of shape ``(m ** n, n)``.
    """
    L = np.array(list(itertools.product(range(m), repeat=n)), dtype=np.int64).reshape(-1, n)
    return L[:, ::-1] if first_item_fastest else L


def labeling_matrices(L: np.ndarray, m: int) -> np.ndarray:
    """The confusion matrix of every ordered pair of labelings (the first one true).

    Parameters
    ----------
    L : numpy.ndarray
        ``L[labeling, item]`` with classes 0..m-1.
    m : int
        Number of classes.

    Returns
    -------
    numpy.ndarray
        ``float64`` array ``conf[x, y, i, j]``: items of class i in labeling x and j in labeling y.
    """
    onehot = np.eye(m)[L]  # [labeling, item, class]
    return np.einsum("xic,yid->xycd", onehot, onehot)
