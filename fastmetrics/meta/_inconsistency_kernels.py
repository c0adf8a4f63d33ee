"""Numba kernels of :mod:`fastmetrics.meta.inconsistency`: every comparison signed once a measure,
eight to a byte, and two measures compared by popcounts.

A comparison is a system pair ``i < j`` of one topic; its sign under a measure is that of
``v_i - v_j`` beyond the tolerance (one bit for above, one for below), undefined where the
difference is NaN. Row ``i`` of a measure's bytes holds the pairs ``(i, j)`` for ``j`` in chunks of
eight systems, from the chunk holding ``i + 1`` on (the chunks before it are never written and
stay zero): one vector subtraction and two or three vector comparisons a chunk, each comparison's
eight lanes one byte (:func:`_signs8`). The pairs ``j <= i`` left in the first chunk and the
padding past the last system are masked by the triangle's bytes when two measures are compared.
A measure whose values of the topic are all finite has no undefined comparison, so its third
comparison is skipped and a pair of such measures defines ``n (n - 1) / 2`` comparisons.

The rows are read where :class:`~fastmetrics.tensor.Scores` keeps them -- ``values[measure,
system, topic, slice]`` -- a topic's values of every slice (a threshold sweep's thresholds)
gathered once into a buffer of the thread, so no transposed copy of the scores is made.

:func:`inconsistency_counts` takes a range of chunks of topics, releases the GIL and runs on
Python threads (:func:`fastmetrics._threads.in_ranges`), not in a ``prange``: a parallel kernel
compiles several times slower, paid on a first call in every fresh environment.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..count.draws import popcount


@intrinsic
def _signs8(typingctx, vi, row, start, tolerance):
    """``(above, below, undefined)``: bytes whose bit ``l`` says whether ``vi - row[start + l]``
    is > tolerance, < -tolerance, NaN -- eight lanes of one vector comparison each."""
    signature = types.UniTuple(types.uint8, 3)(types.float64, row, types.int64, types.float64)

    def codegen(context, builder, signature, args):
        vi, row, start, tolerance = args
        data = context.make_array(signature.args[1])(context, builder, row).data
        vector = ir.VectorType(ir.DoubleType(), 8)
        lanes = builder.load(builder.bitcast(builder.gep(data, [start]), vector.as_pointer()), align=8)

        def splat(x):
            one = builder.insert_element(ir.Constant(vector, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
            return builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(ir.IntType(32), 8), [0] * 8))

        d = builder.fsub(splat(vi), lanes)
        byte = ir.IntType(8)
        above = builder.bitcast(builder.fcmp_ordered(">", d, splat(tolerance)), byte)
        below = builder.bitcast(builder.fcmp_ordered("<", d, builder.fneg(splat(tolerance))), byte)
        undefined = builder.bitcast(builder.fcmp_unordered("uno", d, d), byte)
        return context.make_tuple(builder, signature.return_type, [above, below, undefined])

    return signature, codegen


@njit(cache=True)
def _triangle(n_systems, stride):
    """Bytes of the pairs ``j > i`` (``j < n_systems``), row ``i`` at ``i * stride``."""
    out = np.zeros(n_systems * stride, np.uint8)
    for i in range(n_systems):
        for j in range(i + 1, n_systems):
            out[i * stride + j // 8] |= np.uint8(1 << (j % 8))
    return out


@njit(cache=True, inline="always")
def _sign_bytes(row, n_systems, tolerance, clean, stride, above, below, undefined):
    """Sign the comparisons of one measure's ``row`` (padded with NaN to whole chunks)."""
    chunks = row.size // 8
    for i in range(n_systems):
        vi = row[i]
        for c in range((i + 1) // 8, chunks):
            up, down, unknown = _signs8(vi, row, c * 8, tolerance)
            above[i * stride + c] = up
            below[i * stride + c] = down
            if not clean:
                undefined[i * stride + c] = unknown


@njit(cache=True, inline="always")
def _pair_counts(clean, triangle, above, below, undefined, n_systems, bad, both):
    """Add to ``bad[a, b]`` and ``both[a, b]`` (``a < b``) the comparisons measures ``a`` and ``b``
    sign differently, and those both define (words of the signs' bytes). Every pair of one call:
    a serial kernel handing a pair's arrays to a helper 45 times a topic and slice counted their
    references (a tenth of its time)."""
    for a in range(clean.size):
        for b in range(a + 1, clean.size):
            differ = 0
            if clean[a] and clean[b]:
                for k in range(triangle.size):
                    differ += popcount(((above[a, k] ^ above[b, k]) | (below[a, k] ^ below[b, k])) & triangle[k])
                bad[a, b] += differ
                both[a, b] += n_systems * (n_systems - 1) // 2
                continue
            defined = 0
            for k in range(triangle.size):
                ua = undefined[a, k] if not clean[a] else np.uint64(0)
                ub = undefined[b, k] if not clean[b] else np.uint64(0)
                ok = triangle[k] & ~(ua | ub)
                defined += popcount(ok)
                differ += popcount(((above[a, k] ^ above[b, k]) | (below[a, k] ^ below[b, k])) & ok)
            bad[a, b] += differ
            both[a, b] += defined


@njit(cache=True, inline="always")
def _finite(row, n):
    """Whether ``row[:n]`` holds no NaN and no infinity."""
    for i in range(n):
        if not np.isfinite(row[i]):
            return False
    return True


@njit(cache=True, inline="always")
def _gather_topic(values, signs, t, slab):
    """``slab[k, m, s] = signs[m] * values[m, s, t, k]``: a topic's rows of every slice."""
    n_measures, n_systems, _, n_slices = values.shape
    for m in range(n_measures):
        sign = signs[m]
        for s in range(n_systems):
            for k in range(n_slices):  # indexed in place: a view a run cost the kernel a view's set-up each
                slab[k, m, s] = sign * values[m, s, t, k]


@njit(cache=True, nogil=True)
def inconsistency_counts(begin, end, values, signs, tolerance, n_chunks, bad, both):
    """bad[c, k, a, b], both[c, k, a, b] for ``a < b`` and begin <= c < end: over the comparisons
    of chunk ``c`` (of ``n_chunks``) of the topics in slice ``k`` of ``values[measure, system,
    topic, slice]`` (times ``signs[measure]``, +1 or -1, so that higher is better), those
    measures ``a`` and ``b`` both define, and those they also sign differently. See the module
    docstring."""
    n_measures, n_systems, n_topics, n_slices = values.shape
    chunks = (n_systems + 7) // 8
    stride = (chunks + 7) // 8 * 8  # bytes a row: whole words
    triangle = _triangle(n_systems, stride).view(np.uint64)
    per = (n_topics + n_chunks - 1) // n_chunks
    for c in range(begin, end):
        slab = np.full((n_slices, n_measures, chunks * 8), np.nan)
        above = np.zeros((n_measures, n_systems * stride), np.uint8)
        below = np.zeros_like(above)
        undefined = np.zeros_like(above)
        clean = np.empty(n_measures, np.bool_)
        above_w, below_w, undefined_w = above.view(np.uint64), below.view(np.uint64), undefined.view(np.uint64)
        for t in range(c * per, min(n_topics, (c + 1) * per)):
            _gather_topic(values, signs, t, slab)
            for k in range(n_slices):
                for m in range(n_measures):
                    row = slab[k, m]
                    clean[m] = _finite(row, n_systems)
                    _sign_bytes(row, n_systems, tolerance, clean[m], stride, above[m], below[m], undefined[m])
                _pair_counts(clean, triangle, above_w, below_w, undefined_w, n_systems, bad[c, k], both[c, k])
