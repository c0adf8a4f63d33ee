"""The counting kernels' work on a small batch, by numpy: no kernel compiled for a small input.

A batch of at most ``encoders.SMALL`` rows reaches the count stage with every column in its small
form (final int64 codes, -1 outside the plan: :func:`fastmetrics.count.encoders.small_form`).
Decoding those and counting them with ``bincount`` takes a millisecond, where the first call in
a fresh environment would compile the counting kernels for a second or two -- most of the time of
``fastmetrics evaluate`` on a few thousand rows. Each function has the contract of its kernel in
:mod:`fastmetrics.count._hard`, :mod:`._sweep` and :mod:`._codes` (the same counts, the same first
bad row noted for each kind, the same order of checks: grouping columns, gold, then prediction,
score or item, then weight), and ``tests/count/test_small.py`` holds them equal on random batches
with bad rows of every kind.
"""

from __future__ import annotations

import numpy as np

from ._codes import GOLD, GROUP_A, GROUP_B, VALUE, WEIGHT
from .encoders import small_form


def codes(col, n: int) -> np.ndarray:
    """The int64 codes of an encoded column's ``n`` rows, -1 outside the plan."""
    if len(col) == 1:
        return np.zeros(n, np.int64)
    values, _, size = small_form(col, n)
    return np.where((values >= 0) & (values < size), values, -1)


def _first(err, kind: int, bad: np.ndarray) -> None:
    if bad.any() and err[kind] < 0:
        err[kind] = int(np.argmax(bad))


def _group_gold(n, a, b, stride_a, gold, err):
    """``(group, gold, ok)`` of every row, noting the first row bad in each of the grouping
    columns and the gold (a row is bad for the first of them that fails, as ``row_codes``)."""
    first, second, label = codes(a, n), codes(b, n), codes(gold, n)
    bad_a = first < 0
    bad_b = ~bad_a & (second < 0)
    bad_gold = ~bad_a & ~bad_b & (label < 0)
    for kind, bad in ((GROUP_A, bad_a), (GROUP_B, bad_b), (GOLD, bad_gold)):
        _first(err, kind, bad)
    ok = ~(bad_a | bad_b | bad_gold)
    return np.where(ok, first * stride_a + second, -1), np.where(ok, label, -1), ok


def _checked(ok, bad, err, kind):
    _first(err, kind, ok & bad)
    return ok & ~bad


def _add(flat, cells, weight, ok) -> None:
    if weight is None:
        flat += np.bincount(cells[ok], minlength=flat.size).astype(flat.dtype, copy=False)
    else:  # added one row after another, as the kernel adds them: the same float sums
        np.add.at(flat, cells[ok], weight[ok])


def _weights_checked(ok, weight, n, err):
    """``ok`` without the rows whose weight is negative, infinite or NaN (the first one noted)."""
    return _checked(ok, ~((weight[:n] >= 0.0) & (weight[:n] < np.inf)), err, WEIGHT)


def hard(n, a, b, stride_a, gold, pred, weight, p, err) -> bool:
    """``_hard.hard_chunk`` over rows ``0:n``, items not checked."""
    group, label, ok = _group_gold(n, a, b, stride_a, gold, err)
    guess = codes(pred, n)
    ok = _checked(ok, guess < 0, err, VALUE)
    if weight is not None:
        ok = _weights_checked(ok, weight, n, err)
    m = p.shape[1]
    _add(p.reshape(-1), (group * m + label) * m + guess, None if weight is None else weight[:n], ok)
    return True


def sweep(n, a, b, stride_a, gold, score, weight, thresholds, p, err) -> bool:
    """``_sweep.sweep_chunk`` over rows ``0:n``, items not checked: a row's bucket is the
    number of thresholds at or below its score."""
    group, label, ok = _group_gold(n, a, b, stride_a, gold, err)
    values = np.asarray(score[:n], np.float64)
    ok = _checked(ok, ~np.isfinite(values), err, VALUE)
    if weight is not None:
        ok = _weights_checked(ok, weight, n, err)
    bucket = np.searchsorted(thresholds, np.where(ok, values, 0.0), side="right")
    _add(p.reshape(-1), (group * 2 + label) * p.shape[2] + bucket, None if weight is None else weight[:n], ok)
    return True


def rows(n, a, b, stride_a, gold, pred, group_out, gold_out, pred_out, err) -> None:
    """``_codes.rows_chunk`` over rows ``0:n``: the codes themselves."""
    group, label, _ = _group_gold(n, a, b, stride_a, gold, err)
    group_out[:n], gold_out[:n] = group, label
    if pred_out.size:
        guess = codes(pred, n)
        _first(err, VALUE, guess < 0)
        pred_out[:n] = guess


def mark(n, a, b, stride_a, gold, item, n_items, seen, keys, err) -> int:
    """``_marks.mark_items`` over rows ``0:n``: mark each row's (group, item) key in the bitmap
    ``seen`` (or write it to ``keys`` when ``seen`` is empty) until the first bad row, whose kind
    is noted; return the first row whose key was marked before -- in this batch or an earlier
    one -- when it comes before any bad row, else -1."""
    noted = np.full_like(err, -1)  # the kernel stops at the first bad row: only its kind is noted
    group, _, ok = _group_gold(n, a, b, stride_a, gold, noted)
    thing = codes(item, n)
    bad_item = ok & (thing < 0)
    _first(noted, VALUE, bad_item)
    bad = ~ok | bad_item
    stop = int(np.argmax(bad)) if bad.any() else n
    key = group[:stop] * n_items + thing[:stop]
    if seen.size == 0:
        keys[:stop] = key
        dup = stop
    else:
        before = (seen[key >> 3] >> (key & 7)) & 1
        _, first_of = np.unique(key, return_index=True)
        again = np.ones(stop, bool)
        again[first_of] = False  # a key met earlier in this batch
        repeated = (before == 1) | again
        dup = int(np.argmax(repeated)) if repeated.any() else stop
        np.bitwise_or.at(seen, key[:dup] >> 3, (1 << (key[:dup] & 7)).astype(np.uint8))
    if dup < stop:
        return dup
    if stop < n:
        kind = int(np.flatnonzero(noted == stop)[0])
        err[kind] = stop if err[kind] < 0 else err[kind]
    return -1
