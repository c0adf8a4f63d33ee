"""Scalar building blocks shared by the measure kernels (numba, no validation, no warnings)."""

from __future__ import annotations

import functools
import math
import types

import numpy as np
from llvmlite import ir
from numba import guvectorize, njit, typeof, vectorize
from numba import types as nbtypes
from numba.extending import intrinsic, typeof_impl

NAN = np.nan
# Up to SMALL_CELLS cells a scalar ufunc runs as a cached loop over its element function: building
# the ufunc's loop wrapper is paid for each measure in every process (numba cannot cache it), most
# of a small command. The ufunc's own loop is faster a cell (it does not pack the arguments for the
# loop), so it is built for larger calls -- unless none was built yet and the call is below
# FIRST_CALL_CELLS, where the build costs more than the loop (a report's random baselines). The
# figures behind both bounds: docs/guides/performance.md.
SMALL_CELLS = 1 << 16
FIRST_CALL_CELLS = 1 << 19


class LazyUfunc:
    """A float64 numba ufunc (or gufunc) built on first use.

    Building a ufunc's loop wrapper is paid in every process even when numba's cache holds the
    kernel, and the catalog has dozens of them: building them all at import made ``import
    fastmetrics`` take seconds. This wrapper builds each on its first call (cached on disk as
    before), so a command pays only for the measures it evaluates. Inside other numba kernels the
    object behaves as its scalar ``njit`` function (see the ``typeof`` registration below), so
    kernels can call one another.
    """

    def __init__(self, py_func, signatures, layout=None):
        self.py_func = py_func
        self._signatures = signatures
        self._layout = layout
        self._built = None
        self._element = None
        self._scalar = None
        functools.update_wrapper(self, py_func)

    @property
    def scalar(self):
        """The scalar ``njit`` function that numba code calls (None for a gufunc), made on first
        use: a command creates the dispatchers of the measures it evaluates only."""
        if self._scalar is None and self._layout is None:
            self._scalar = njit(cache=True)(_renamed(self.py_func, "_scalar"))
        return self._scalar

    @property
    def ufunc(self):
        if self._built is None:
            if self._layout is None:
                self._built = vectorize(self._signatures, cache=True)(self.py_func)
            else:
                self._built = guvectorize(self._signatures, self._layout, cache=True)(self.py_func)
        return self._built

    def __call__(self, *args, **kwargs):
        if self._layout is None:
            values = self._small_call(args, kwargs)
            if values is not None:
                return values
        return self.ufunc(*args, **kwargs)

    def _small_call(self, args, kwargs):
        """The ufunc's result on few cells, from a cached loop over the element function (the same
        float64 code and error model as the ufunc's); None where the ufunc itself must run (many
        cells, other arguments, or inputs it would refuse or treat otherwise)."""
        loop = _LOOPS.get(len(args))
        out = kwargs.get("out")
        if loop is None or len(args) != self.py_func.__code__.co_argcount or set(kwargs) - {"out"}:
            return None
        arrays = [np.asarray(a) for a in args]
        if any(a.dtype.kind not in "biuf" for a in arrays):
            return None
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            return None
        size = math.prod(shape)
        limit = SMALL_CELLS if self._built is not None else FIRST_CALL_CELLS
        if size > limit or not (out is None or _writable_into(out, shape)):
            return None
        x = np.empty((len(arrays), size))
        for row, a in zip(x, arrays):
            np.copyto(row.reshape(shape), a)
        values = np.empty(size)
        loop(self.element, x, values)
        if out is not None:
            out[...] = values.reshape(shape)
            return out
        return values.reshape(shape) if shape else values[0]

    @property
    def element(self):
        """The scalar function compiled as the ufunc compiles it (numpy's error model: a division
        by zero gives inf or NaN, never ZeroDivisionError), for :data:`_LOOPS` only: without the
        wrapper that would let Python call it, a third of its compile on a first call."""
        if self._element is None:
            self._element = njit(cache=True, error_model="numpy", no_cpython_wrapper=True)(
                _renamed(self.py_func, "_element")
            )
        return self._element

    def __getattr__(self, name):  # nin, nout, types, reduce ... of the real ufunc
        if name.startswith("__") or name in ("_built", "_element", "_scalar", "_signatures", "_layout", "py_func"):
            raise AttributeError(name)
        return getattr(self.ufunc, name)


def _writable_into(out, shape) -> bool:
    return isinstance(out, np.ndarray) and out.dtype == np.float64 and out.shape == shape and out.flags.writeable


def _renamed(py_func, suffix: str):
    """A copy of ``py_func`` under another name: two dispatchers of one function (njit, vectorize,
    other flags) must not share one cache file."""
    clone = types.FunctionType(
        py_func.__code__,
        py_func.__globals__,
        py_func.__name__ + suffix,
        py_func.__defaults__,
        py_func.__closure__,
    )
    clone.__qualname__ = py_func.__qualname__ + suffix
    return clone


# The curve, ranking and calibration kernels run only inside the group loops (``_groups``), as
# first-class functions: compiled without the wrapper that would let Python call them, less to
# compile on a first call (a report's areas and calibration).
group_kernel = njit(cache=True, no_cpython_wrapper=True)


# The loops take the element function as a first-class function of a fixed type, so each is
# compiled once per number of arguments and cached (a dispatcher argument would make a new,
# uncachable loop per measure). x holds one row per argument, broadcast to the cells.
def _loop4(f, x, out):
    for i in range(out.size):
        out[i] = f(x[0, i], x[1, i], x[2, i], x[3, i])


def _loop5(f, x, out):
    for i in range(out.size):
        out[i] = f(x[0, i], x[1, i], x[2, i], x[3, i], x[4, i])


def _loop6(f, x, out):
    for i in range(out.size):
        out[i] = f(x[0, i], x[1, i], x[2, i], x[3, i], x[4, i], x[5, i])


def _loop7(f, x, out):
    for i in range(out.size):
        out[i] = f(x[0, i], x[1, i], x[2, i], x[3, i], x[4, i], x[5, i], x[6, i])


def _loop8(f, x, out):
    for i in range(out.size):
        out[i] = f(x[0, i], x[1, i], x[2, i], x[3, i], x[4, i], x[5, i], x[6, i], x[7, i])


def _typed_loop(py_func, n_args: int):
    element = nbtypes.FunctionType(nbtypes.float64(*[nbtypes.float64] * n_args))
    signature = nbtypes.void(element, nbtypes.float64[:, ::1], nbtypes.float64[::1])
    return njit(signature, cache=True, nogil=True)(py_func)


class _Loops(dict):
    """Number of arguments -> loop, compiled (or read from the cache) on first use."""

    FUNCTIONS = {4: _loop4, 5: _loop5, 6: _loop6, 7: _loop7, 8: _loop8}

    def get(self, n_args):
        if n_args not in self and n_args in self.FUNCTIONS:
            self[n_args] = _typed_loop(self.FUNCTIONS[n_args], n_args)
        return super().get(n_args)


_LOOPS = _Loops()


@typeof_impl.register(LazyUfunc)
def _typeof_lazy_ufunc(value, context):
    if value.scalar is None:
        raise TypeError(f"the gufunc {value.__name__} cannot be called from numba code")
    return typeof(value.scalar)


def _float_signature(n_args: int) -> list[str]:
    return ["float64(" + ", ".join(["float64"] * n_args) + ")"]


def binary_ufunc(n_params: int = 0):
    """Decorate a scalar function of ``(tp, fp, fn, tn, *params)`` into a float64 numba ufunc
    (built lazily, :class:`LazyUfunc`).

    Counts arrive as float64 (int64 counts are cast safely by the ufunc machinery), so products
    of marginals cannot overflow: the weather matrices of seed 003 reach 6.6e7 per cell.
    """
    return lambda f: LazyUfunc(f, _float_signature(4 + n_params))


def prob_ufunc(n_params: int = 0):
    """Decorate a scalar function of the smoothed probabilities ``(r, s, p, v, g, q, *params)``
    -- recall P(S|G), specificity P(¬S|¬G), precision P(G|S), npv P(¬G|¬S), P(G), P(S) -- into
    a float64 numba ufunc (seed 004 §5), built lazily."""
    return lambda f: LazyUfunc(f, _float_signature(6 + n_params))


@intrinsic
def _bits_of(typingctx, x):
    """The IEEE-754 bits of a float64, as an int64."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))

    return nbtypes.int64(nbtypes.float64), codegen


@intrinsic
def _float_of(typingctx, bits):
    """The float64 whose IEEE-754 bits are ``bits``."""

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())

    return nbtypes.float64(nbtypes.int64), codegen


@njit(cache=True, inline="always")
def unit_scale(n):
    """The power of two ``s`` with ``n * s`` in [1, 2) (clamped to float64's normal range).

    Counts multiplied by ``s`` are exact, and so are the products, sums, quotients and square
    roots of a measure's formula to the bit -- every float operation commutes with a power of two
    away from overflow and underflow -- while products of two or four marginals, which overflow
    past marginals of 1e77 to 1e154 (or underflow for tiny weights), stay in range: one formula
    for every magnitude, with no second branch computed beside it in a vector of cells."""
    exponent = (_bits_of(n) >> 52) & 0x7FF
    return _float_of(max(2046 - exponent, 1) << 52)


@njit(cache=True, inline="always")
def harmonic(x, y, wx):
    """Weighted harmonic mean 1 / (wx/x + (1-wx)/y): 0 if either is 0, NaN if either is NaN."""
    if x != x or y != y:
        return NAN
    if x == 0.0 or y == 0.0:
        return 0.0
    return 1.0 / (wx / x + (1.0 - wx) / y)


@njit(cache=True, inline="always")
def safe_div(num, den):
    """num / den, NaN when den == 0 (the undefined case), never a silent 0."""
    if den == 0.0:
        return NAN
    return num / den


@njit(cache=True, inline="always")
def plogp_ratio(joint, row, col, n):
    """One term of the mutual information in bits: p_ij log2(p_ij / (p_i. p_.j)), 0 when c_ij = 0."""
    if joint <= 0.0:
        return 0.0
    return (joint / n) * math.log2(joint * n / (row * col))


@njit(cache=True, inline="always")
def entropy2(a, b, n):
    """Entropy in bits of the two-valued distribution (a/n, b/n), with 0 log 0 = 0."""
    h = 0.0
    if a > 0.0:
        h -= (a / n) * math.log2(a / n)
    if b > 0.0:
        h -= (b / n) * math.log2(b / n)
    return h


@njit(cache=True, inline="always")
def mutual_information2(tp, fp, fn, tn):
    """I(Actual; Predicted) in bits of a binary confusion matrix."""
    n = tp + fp + fn + tn
    ap = tp + fn
    an = fp + tn
    pp = tp + fp
    pn = fn + tn
    return (
        plogp_ratio(tp, ap, pp, n)
        + plogp_ratio(fn, ap, pn, n)
        + plogp_ratio(fp, an, pp, n)
        + plogp_ratio(tn, an, pn, n)
    )
