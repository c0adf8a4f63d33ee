"""Robustness of measures across topics (Amigó et al. 2019, §6.4, after Amigó et al. 2013).

For a topic pair (t, t'), the Spearman correlation between the systems' scores on t and on t'
(average ranks for ties); robustness is its mean over random distinct topic pairs. Systems with
an undefined score on either topic are left out of that pair; a pair where either side is
constant (or fewer than two systems remain) has no correlation: it is counted as undefined and
not averaged.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .. import _memory
from .._errors import ParameterError
from .._progress import Progress
from .._seeding import rng_of
from .._threads import in_ranges
from ..tensor import Roles
from . import _common
from ._common import MetaResult, labels_array, system_topic_values
from ._kernels import spearman_pairs, unit_ranks, upper_rows

_BLOCK_CELLS = 1 << 22  # correlations of one block of rows (32 MiB of float64)
# a block's rows go to the matrix product in about this many bands, each of at least this many
# rows (fewer rows per product than that and BLAS loses more than the band's triangle saves)
_BANDS, _BAND_ROWS = 4, 128
_REPEAT_ROWS = 1 << 20  # rows of the one array the per-pair table's measure column repeats


def _rank_rows(values: np.ndarray, by_numpy: bool):
    """``(values_t, order, z, dirty)`` for ``values[measure, system, topic]``: the values as
    ``values_t[measure, topic, system]``, each topic's sorting order of its systems, ``z`` the
    topic's average ranks centred and scaled to unit length (the Spearman correlation of two
    topics is the dot product of their rows), ``dirty[measure, topic]`` the topics with an
    undefined system, whose pairs are ranked anew on the systems both topics define. Rows that
    cannot correlate (dirty, constant, fewer than two systems) are NaN, which every product
    with them keeps. ``by_numpy``: ``z`` by numpy, not by the kernel."""
    values_t = np.ascontiguousarray(values.transpose(0, 2, 1))
    order = np.argsort(values_t, axis=2)
    flat = (-1, values_t.shape[2])
    if by_numpy:
        z = _unit_ranks_numpy(values_t.reshape(flat)).reshape(values_t.shape)
    else:
        z = np.empty(values_t.shape)
        rows = values_t.shape[0] * values_t.shape[1]
        in_ranges(unit_ranks, rows, values_t.reshape(flat), order.reshape(flat), z.reshape(flat))
    return values_t, order, z, np.isnan(values_t).any(axis=2)


def _ranked_anew(values_t, order, first, second, by_numpy: bool) -> np.ndarray:
    """The per-pair definition, for pairs touching a topic with an undefined system (their ranks
    depend on which systems the pair keeps)."""
    if by_numpy:
        return _spearman_numpy(values_t[first], values_t[second])
    out = np.empty(first.size)
    in_ranges(spearman_pairs, first.size, values_t, order, first.astype(np.int64), second.astype(np.int64), out)
    return out


def _average_ranks(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(ranks, flat)``: the average ranks (1-based) of the numbers of each row, NaN where the
    row holds NaN, and whether a row holds fewer than two distinct numbers (numpy: the kernels'
    ranks on a few rows)."""
    n_rows, size = rows.shape
    order = np.argsort(rows, axis=1, kind="stable")  # NaN last
    ordered = np.take_along_axis(rows, order, axis=1)
    starts = np.ones((n_rows, size), bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # a NaN starts a run of its own
    positions = np.broadcast_to(np.arange(size), (n_rows, size))
    first = np.maximum.accumulate(np.where(starts, positions, 0), axis=1)
    ends = np.ones((n_rows, size), bool)
    ends[:, :-1] = starts[:, 1:]
    last = np.minimum.accumulate(np.where(ends, positions, size)[:, ::-1], axis=1)[:, ::-1]
    ranks = np.empty((n_rows, size))
    np.put_along_axis(ranks, order, np.where(np.isnan(ordered), np.nan, 0.5 * (first + last) + 1.0), axis=1)
    distinct = (starts & ~np.isnan(ordered)).sum(axis=1)
    return ranks, distinct < 2


def _unit_ranks_numpy(rows: np.ndarray) -> np.ndarray:
    """The kernels' ``z`` rows by numpy: average ranks centred and scaled to unit length; NaN for
    a row with an undefined entry, a constant row or one of fewer than two entries (the ranks
    are halves of integers, so every sum is exact and equals the kernels')."""
    ranks, flat = _average_ranks(rows)
    z = ranks - 0.5 * (rows.shape[1] + 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z /= np.sqrt((z * z).sum(axis=1, keepdims=True))
    z[flat | np.isnan(rows).any(axis=1) | (rows.shape[1] < 2)] = np.nan
    return z


def _spearman_numpy(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman of the rows a[p], b[p] over the entries both define, by numpy (as
    :func:`~fastmetrics.meta._kernels.spearman_pairs`)."""
    keep = ~(np.isnan(a) | np.isnan(b))
    ra, flat_a = _average_ranks(np.where(keep, a, np.nan))
    rb, flat_b = _average_ranks(np.where(keep, b, np.nan))
    n = keep.sum(axis=1, keepdims=True)
    dx = np.where(keep, ra - 0.5 * (n + 1), 0.0)
    dy = np.where(keep, rb - 0.5 * (n + 1), 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (dx * dy).sum(axis=1) / np.sqrt((dx * dx).sum(axis=1) * (dy * dy).sum(axis=1))
    out[flat_a | flat_b | (n[:, 0] < 2)] = np.nan
    return out


class _Measure:
    """One measure's rank rows and what the pairs touching a dirty topic need."""

    def __init__(self, values_t: np.ndarray, order: np.ndarray, z: np.ndarray, dirty: np.ndarray, by_numpy: bool):
        self.values_t, self.order, self.z, self.dirty = values_t, order, z, dirty
        self.by_numpy = by_numpy

    def pairs(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Correlations of the topic pairs ``(first[p], second[p])``."""
        out = np.einsum("ps,ps->p", self.z[first], self.z[second])
        fix = np.flatnonzero(self.dirty[first] | self.dirty[second])
        if fix.size:
            out[fix] = _ranked_anew(self.values_t, self.order, first[fix], second[fix], self.by_numpy)
        return out

    def rows(self, start: int, stop: int, block: np.ndarray, dest: np.ndarray | None = None) -> np.ndarray:
        """Correlations of every pair (t, t') with start <= t < stop and t < t', in the order of
        ``np.triu_indices``: one block of the correlation matrix, made in ``block`` (a buffer of
        at least ``(stop - start) * n_topics`` floats) and written to the start of ``dest`` when
        given (the caller's table of every pair: no copy of it made and copied again)."""
        n_topics = self.z.shape[0]
        size = _upper_cells(n_topics, start, stop)
        out = np.empty(size) if dest is None else dest[:size]
        # a few bands of rows, each multiplied only by the topics from its first row on: the
        # product of the cells left of the diagonal (half the flops of a square) is not made
        step = max(_BAND_ROWS, -(-(stop - start) // _BANDS))
        at = 0
        for lo in range(start, stop, step):
            hi = min(lo + step, stop)
            width = n_topics - lo
            band = np.matmul(self.z[lo:hi], self.z[lo:].T, out=block[: (hi - lo) * width].reshape(-1, width))
            cells = _upper_cells(width, 0, hi - lo)
            if self.by_numpy:  # a few topics: numpy's mask, no kernel compiled
                out[at : at + cells] = band[_right_of_diagonal(width, 0, hi - lo)]
            else:
                upper_rows(band, 0, out[at : at + cells])  # no mask of the band's cells built and read
            at += cells
        if not self.dirty.any():
            return out
        upper = _right_of_diagonal(n_topics, start, stop)
        touched = upper & (self.dirty[start:stop, None] | self.dirty[None, :])
        if touched.any():
            first, second = np.nonzero(touched)
            out[touched[upper]] = _ranked_anew(self.values_t, self.order, first + start, second, self.by_numpy)
        return out


def _upper_cells(n_topics: int, start: int, stop: int) -> int:
    """The number of cells of rows ``start:stop`` of an ``n_topics`` square matrix right of its diagonal."""
    return (stop - start) * (2 * n_topics - start - stop - 1) // 2


def _right_of_diagonal(n_topics: int, start: int, stop: int) -> np.ndarray:
    """The cells of rows ``start:stop`` of an ``n_topics`` square matrix right of its diagonal."""
    return np.arange(n_topics)[None, :] > np.arange(start, stop)[:, None]


class _Moments:
    """Count, mean and sum of squared deviations of the defined correlations, per measure,
    merged block by block (Chan et al.): the summary without holding every pair."""

    def __init__(self, n_measures: int):
        self.count = np.zeros(n_measures, np.int64)
        self.mean = np.zeros(n_measures)
        self.m2 = np.zeros(n_measures)
        self._mask, self._squares = np.empty(0, bool), np.empty(0)

    def add(self, m: int, corr: np.ndarray) -> None:
        """Merge the correlations ``corr`` of measure ``m`` (NaN: undefined, not counted)."""
        if self._squares.size < corr.size:  # reused block after block, in Arrow's pool (_memory.empty)
            self._mask, self._squares = _memory.empty(corr.size, bool), _memory.empty(corr.size, np.float64)
        undefined = np.isnan(corr, out=self._mask[: corr.size])
        ok = corr[~undefined] if undefined.any() else corr
        if ok.size == 0:
            return
        # numpy's pairwise sums, as before the buffers were reused: the same figures to the last bit
        mean_b = ok.sum() / ok.size
        squares = np.subtract(ok, mean_b, out=self._squares[: ok.size])
        m2_b = np.multiply(squares, squares, out=squares).sum()
        n_a, n = self.count[m], self.count[m] + ok.size
        delta = mean_b - self.mean[m]
        self.mean[m] += delta * ok.size / n
        self.m2[m] += m2_b + delta * delta * n_a * ok.size / n
        self.count[m] = n

    def std(self) -> np.ndarray:
        """Sample standard deviation (ddof = 1); NaN with fewer than two correlations."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.count > 1, np.sqrt(self.m2 / np.maximum(self.count - 1, 1)), np.nan)


def _pair_of_index(k: np.ndarray, n_topics: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(n_topics, 1)`` at the flat positions ``k``, without building it."""
    offsets = np.arange(n_topics, dtype=np.int64)
    offsets = offsets * (2 * n_topics - offsets - 1) // 2
    first = np.searchsorted(offsets, k, side="right") - 1
    return first, k - offsets[first] + first + 1


def chosen_pairs(n_topics: int, pairs, rng) -> np.ndarray | None:
    """The topic pairs to correlate: positions in ``np.triu_indices(n_topics, 1)``, or None for all.

    ``pairs`` distinct unordered pairs are drawn without replacement (sorted positions); 'all',
    or as many pairs as exist, gives None (every pair).

    Parameters
    ----------
    n_topics : int
    pairs : int or "all"
    rng : numpy.random.Generator

    Returns
    -------
    ndarray of int64 or None
    """
    total = n_topics * (n_topics - 1) // 2
    if total == 0:
        raise ParameterError("Robustness compares topics: the scores need at least two topics.")
    if isinstance(pairs, str):
        if pairs != "all":
            raise ParameterError(f"pairs must be a positive integer or 'all'; got {pairs!r}.")
        return None
    if isinstance(pairs, bool) or not isinstance(pairs, (int, np.integer)) or pairs < 1:
        raise ParameterError(f"pairs must be a positive integer or 'all'; got {pairs!r}.")
    if pairs >= total:
        return None
    return np.sort(rng.choice(total, size=int(pairs), replace=False))


def _correlations(values: np.ndarray, chosen, keep: bool, progress: bool):
    """``(moments, corr)``: the summary moments per measure and, with ``keep``, every
    correlation ``corr[measure, pair]`` (pairs in the order of ``np.triu_indices``). All pairs go
    by blocks of rows of the correlation matrix, drawn pairs by chunks: memory stays a block."""
    n_measures, n_systems, n_topics = values.shape
    if chosen is None:
        step = max(1, _BLOCK_CELLS // n_topics)
        starts, total = range(0, n_topics, step), n_topics * (n_topics - 1) // 2
    else:
        step = _BLOCK_CELLS // max(n_topics, 1) + 1
        starts, total = range(0, chosen.size, step), chosen.size
    # numpy's work: each topic's ranks, and at worst every pair ranked anew
    by_numpy = n_measures * (n_topics + total) * n_systems <= _common.NUMPY_VALUES
    values_t, order, z, dirty = _rank_rows(values, by_numpy)
    moments = _Moments(n_measures)
    # the large arrays in Arrow's pool and the blocks in one buffer: this machine's host takes
    # back the pages numpy returns, and faulting in 170 MB a call anew doubled the job's time
    out = _memory.empty((n_measures, total), np.float64) if keep else None
    block = _memory.empty(min(step, n_topics) * n_topics, np.float64) if chosen is None else None
    bar = Progress(n_measures * len(starts), "robustness", quiet=not progress)
    for m in range(n_measures):
        measure = _Measure(values_t[m], order[m], z[m], dirty[m], by_numpy)
        at = 0
        for start in starts:
            if chosen is None:
                dest = None if out is None else out[m, at:]
                corr = measure.rows(start, min(start + step, n_topics), block, dest)
            else:
                corr = measure.pairs(*_pair_of_index(chosen[start : start + step], n_topics))
                if out is not None:
                    out[m, at : at + corr.size] = corr
            moments.add(m, corr)
            at += corr.size
            bar.advance()
    bar.close()
    return moments, out


def robustness(
    scores,
    *,
    pairs=1000,
    seed=0,
    detail: bool = True,
    progress: bool = False,
    system: str = "system",
    topic: str = "topic",
) -> MetaResult:
    """Mean Spearman correlation of system scores between random topic pairs, per measure.

    Every pair of topics whose systems are all defined comes from one blocked matrix product of
    the topics' centred rank rows; a pair touching a topic with an undefined system is ranked
    anew on the systems both topics define.

    Parameters
    ----------
    scores : Scores
        Values over ``(system, topic)``.
    pairs : int or "all", default 1000
        Number of distinct topic pairs drawn (the same pairs for every measure), or every pair.
    seed : int, default 0
        Seed of the draw: the same seed gives the same pairs.
    detail : bool, default True
        Return the correlation of every pair (``detail``); without it memory stays one block of
        the correlation matrix however many pairs there are (10,000 topics: 50M pairs).
    progress : bool, default False
        Show a progress bar on a terminal when the job runs longer than about a second.
    system, topic : str, default "system", "topic"
        The axes of ``scores`` playing the system and the topic (e.g. ``system="annotator"`` for
        scores of ``fm.count(..., system="annotator")``); the output columns keep their names.

    Returns
    -------
    MetaResult
        ``summary``: ``measure, mean, std`` (sample standard deviation), ``pairs`` (defined
        correlations) and ``undefined`` (pairs with a constant side); ``detail``: ``measure,
        topic_a, topic_b, value`` (``<topic>_a, <topic>_b`` after the column playing the topic;
        None without ``detail``).
    """
    values, _, topics = system_topic_values(scores, system=system, topic=topic)
    chosen = chosen_pairs(len(topics), pairs, rng_of(seed))
    moments, corr = _correlations(values, chosen, detail, progress)
    drawn = len(topics) * (len(topics) - 1) // 2 if chosen is None else chosen.size
    names = list(scores.measures)
    summary = pa.table(
        {
            "measure": names,
            "mean": pa.array(np.where(moments.count > 0, moments.mean, np.nan), pa.float64()),
            "std": pa.array(moments.std(), pa.float64()),
            "pairs": pa.array(moments.count, pa.int64()),
            "undefined": pa.array(drawn - moments.count, pa.int64()),
        }
    )
    pair = Roles(system, topic).pair("topic")
    table = None if corr is None else _detail(names, np.asarray(topics), chosen, corr, pair)
    return MetaResult(summary, table, {"seed": seed, "pairs_drawn": int(drawn)})


def _detail(names: list, topics: np.ndarray, chosen, corr: np.ndarray, columns: tuple) -> pa.Table:
    """The per-pair table, one chunk a measure: the topic labels are taken once and shared by
    the chunks, no Python object is made a row; ``columns`` name the pair's two topics."""
    if chosen is None:
        first, second = np.triu_indices(topics.size, 1)
    else:
        first, second = _pair_of_index(chosen, topics.size)
    labels = labels_array(topics)
    topic_a, topic_b = labels.take(first), labels.take(second)
    return pa.table(
        {
            "measure": pa.chunked_array([c for n in names for c in _repeated(n, first.size)], pa.string()),
            columns[0]: pa.chunked_array([topic_a] * len(names), topic_a.type),
            columns[1]: pa.chunked_array([topic_b] * len(names), topic_b.type),
            "value": pa.chunked_array([pa.array(row, pa.float64()) for row in corr], pa.float64()),
        }
    )


def _repeated(text: str, n: int) -> list:
    """``n`` copies of ``text`` as string arrays: one array of at most :data:`_REPEAT_ROWS` copies
    (and under 2 GiB), made once and used as every chunk. It is filled in Arrow's pool by copies
    doubling in size (``pa.repeat`` builds the copies one by one, a third of the job on 5M pairs,
    and fresh pages cost more than the copies)."""
    data = np.frombuffer(text.encode(), np.uint8)
    per = max(1, min(n, _REPEAT_ROWS, ((1 << 31) - 1) // max(data.size, 1)))
    offsets = _memory.empty(per + 1, np.int32)
    np.multiply(np.arange(per + 1, dtype=np.int32), data.size, out=offsets)
    values = _memory.empty(per * data.size, np.uint8)
    values[: data.size] = data
    filled = data.size
    while filled < values.size:
        step = min(filled, values.size - filled)
        values[filled : filled + step] = values[:step]
        filled += step
    chunk = pa.Array.from_buffers(pa.string(), per, [None, pa.py_buffer(offsets), pa.py_buffer(values)])
    whole, rest = divmod(n, per)
    return [chunk] * whole + ([chunk.slice(0, rest)] if rest else [])
