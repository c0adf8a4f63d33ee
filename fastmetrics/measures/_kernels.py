"""Scalar building blocks shared by the measure kernels (numba, no validation, no warnings)."""

from __future__ import annotations

import functools
import math
import types

import numpy as np
from llvmlite import ir
from numba import guvectorize, njit, typeof, vectorize
from numba import types as nbtypes
from numba.extending import intrinsic, overload, typeof_impl

from ._numpy_ufunc import plain_ufunc

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
    """A numba ufunc (or gufunc) built on first use.

    Building a ufunc's loop wrapper is paid in every process even when numba's cache holds the
    kernel, and the catalog has dozens of them: building them all at import made ``import
    fastmetrics`` take seconds. This wrapper builds each on its first use (cached on disk as
    before), so a command pays only for the measures it evaluates. Inside other numba kernels the
    object behaves as its scalar ``njit`` function (see the ``typeof`` registration below), so
    kernels can call one another.

    Parameters
    ----------
    py_func : function
        The scalar function (or, with ``layout``, the gufunc's kernel).
    signatures : list of str
        numba signatures of the loops, in numpy's order of preference (float32 before float64).
    layout : str, optional
        A gufunc's core dimensions (``"(m,m)->()"``); None for an element-wise ufunc.
    name : str, optional
        The ufunc's ``__name__`` (numpy's messages and dask's task names show it). Default: the
        function's name without its leading underscores and ``_kernel`` suffix (``_f1_kernel``
        gives ``f1``).
    cache : bool, default True
        Whether numba caches the compiled loops on disk (not for a function defined in a
        notebook or a test).
    """

    def __init__(self, py_func, signatures, layout=None, *, name=None, cache=True):
        self.py_func = py_func
        self._signatures = signatures
        self._layout = layout
        self._cache = cache
        self._built = None
        self._float64 = None
        self._element = None
        self._scalar = None
        functools.update_wrapper(self, py_func)
        self.name = name or py_func.__name__.lstrip("_").removesuffix("_kernel")

    @property
    def scalar(self):
        """The scalar ``njit`` function that numba code calls (None for a gufunc), made on first
        use: a command creates the dispatchers of the measures it evaluates only."""
        if self._scalar is None and self._layout is None:
            self._scalar = njit(cache=self._cache)(_renamed(self.py_func, "_scalar"))
        return self._scalar

    @property
    def ufunc(self):
        """The numpy ufunc with one loop per signature (a gufunc with ``layout``), built on first
        use. numba's ``vectorize`` gives a ``DUFunc`` whose call runs Python first, and whose
        ufunc inside refuses ``where=``: its loops are handed to numpy's own constructor
        (:func:`~fastmetrics.measures._numpy_ufunc.plain_ufunc`), which gives a plain
        ``numpy.ufunc`` (numpy's dispatch only, the whole protocol, and what dask and xarray
        recognise through ``__array_ufunc__``)."""
        if self._built is None:
            if self._layout is None:
                self._built = plain_ufunc(vectorize(self._signatures, cache=self._cache)(self.py_func), self.name)
            else:
                self._built = guvectorize(self._signatures, self._layout, cache=self._cache)(self.py_func)
        return self._built

    @property
    def built(self) -> bool:
        """Whether the ufunc exists already (its loop wrapper was paid for in this process)."""
        return self._built is not None

    def _float64_ufunc(self):
        """The ufunc whose float64 loop :meth:`__call__` runs: :attr:`ufunc` once it exists, else
        one of the float64 loop alone -- the same compiled kernel, so the same values, without the
        float32 loop's wrapper, which a command that never asks for it would pay for in every
        process (a wrapper is built, not read from numba's cache)."""
        if self._built is None and self._float64 is None:
            float64 = [s for s in self._signatures if s.startswith("float64(")]
            if float64 == self._signatures:
                return self.ufunc
            self._float64 = plain_ufunc(vectorize(float64, cache=self._cache)(self.py_func), self.name)
        return self._built if self._built is not None else self._float64

    def __call__(self, *args, out=None):
        """The float64 values (what :func:`fastmetrics.compute` returns) whatever the inputs'
        type: few cells through :meth:`_small_call`, others through the ufunc's float64 loop."""
        if self._layout is None:
            values = self._small_call(args, out)
            if values is not None:
                return values
            return self._float64_ufunc()(*args, out=out, dtype=np.float64)
        return self.ufunc(*args) if out is None else self.ufunc(*args, out=out)

    def _small_call(self, args, out):
        """The ufunc's float64 result on few cells, from a cached loop over the element function
        (the same float64 code and error model as the ufunc); None where the ufunc itself must run
        (many cells, other arguments, or inputs it would refuse or treat otherwise)."""
        loop = _LOOPS.get(len(args))
        if loop is None or len(args) != self.py_func.__code__.co_argcount:
            return None
        arrays = [np.asarray(a) for a in args]
        if any(a.dtype.kind not in "biuf" for a in arrays):
            return None
        try:
            shape = np.broadcast_shapes(*(a.shape for a in arrays))
        except ValueError:
            return None
        size = math.prod(shape)
        limit = SMALL_CELLS if self._built is not None or self._float64 is not None else FIRST_CALL_CELLS
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
            self._element = njit(cache=self._cache, error_model="numpy", no_cpython_wrapper=True)(
                _renamed(self.py_func, "_element")
            )
        return self._element

    def __getattr__(self, name):  # nin, nout, types, reduce ... of the real ufunc
        if name.startswith("__") or name in _OWN_ATTRIBUTES:
            raise AttributeError(name)
        return getattr(self.ufunc, name)


_OWN_ATTRIBUTES = frozenset(
    ("_built", "_float64", "_element", "_scalar", "_signatures", "_layout", "_cache", "py_func", "name")
)


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


def float_signatures(n_args: int, types=("float64",)) -> list[str]:
    """numba signatures of a ufunc of ``n_args`` floats, one per type, all of one type each
    (``float32(float32, float32)``): numpy picks the first loop its inputs cast to safely, so
    float32 comes before float64."""
    return [f"{t}(" + ", ".join([t] * n_args) + ")" for t in types]


# The loops of a measure's public ufunc (fm.ufuncs): float32 halves the memory a large sweep reads
# and doubles the cells a vector instruction holds; integer counts go to the first loop numpy
# casts them to safely (int64 and int32 to float64, as in numpy's own float ufuncs).
POINT_TYPES = ("float32", "float64")


def binary_ufunc(n_params: int = 0):
    """Decorate a scalar function of ``(tp, fp, fn, tn, *params)`` into a numba ufunc with a
    float32 and a float64 loop (built lazily, :class:`LazyUfunc`).

    The float64 loop is the one :func:`fastmetrics.compute` runs (int64 counts are cast safely by
    the ufunc machinery), so products of marginals cannot overflow: the weather matrices of
    Gösgens et al. (2021) reach 6.6e7 per cell.
    """
    return lambda f: LazyUfunc(f, float_signatures(4 + n_params, POINT_TYPES))


def prob_ufunc(n_params: int = 0):
    """Decorate a scalar function of the smoothed probabilities ``(r, s, p, v, g, q, *params)``
    -- recall P(S|G), specificity P(¬S|¬G), precision P(G|S), npv P(¬G|¬S), P(G), P(S) -- into
    a float64 numba ufunc (Amigó et al. 2019, §5), built lazily."""
    return lambda f: LazyUfunc(f, float_signatures(6 + n_params))


@intrinsic
def _bits_of(typingctx, x):
    """The IEEE-754 bits of a float64 (an int64) or a float32 (an int32)."""
    single = x == nbtypes.float32

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(32 if single else 64))

    return (nbtypes.int32(nbtypes.float32) if single else nbtypes.int64(nbtypes.float64)), codegen


@intrinsic
def _float_of(typingctx, bits):
    """The float whose IEEE-754 bits are ``bits``: a float32 of an int32, else a float64."""
    single = bits == nbtypes.int32

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType() if single else ir.DoubleType())

    return (nbtypes.float32(nbtypes.int32) if single else nbtypes.float64(nbtypes.int64)), codegen


# A kernel is compiled for float32 and float64 counts (the two loops of its ufunc). numba types a
# literal such as 1.0 as float64, and float32 combined with float64 is float64: a kernel that wrote
# 1.0 or NAN would compute its float32 loop in float64, with half the cells per vector instruction
# and a conversion each way. These give the constants in the type of their argument.


def one_like(x):
    """1 in the type of ``x`` (numba code only)."""
    return 1.0


def nan_like(x):
    """NaN in the float type of ``x``: float32 for float32, else float64 (numba code only)."""
    return NAN


@overload(one_like, inline="always")
def _one_like(x):
    one = np.float32(1.0) if x == nbtypes.float32 else (1 if isinstance(x, nbtypes.Integer) else 1.0)
    return lambda x: one


@overload(nan_like, inline="always")
def _nan_like(x):
    nan = np.float32(NAN) if x == nbtypes.float32 else NAN
    return lambda x: nan


def unit_scale(n):
    """The power of two ``s`` with ``n * s`` in [1, 2), in the float type of ``n`` (clamped to
    that type's normal range; numba code only).

    Counts multiplied by ``s`` are exact, and so are the products, sums, quotients and square
    roots of a measure's formula to the bit -- every float operation commutes with a power of two
    away from overflow and underflow -- while products of two or four marginals, which overflow
    past marginals of 1e77 to 1e154 in float64 (1e9 to 1e19 in float32), or underflow for tiny
    weights, stay in range: one formula for every magnitude, with no second branch computed
    beside it in a vector of cells."""
    raise TypeError("unit_scale runs in numba code only")


@overload(unit_scale, inline="always")
def _unit_scale(n):
    if n == nbtypes.float32:

        def single(n):
            exponent = (_bits_of(n) >> 23) & 0xFF
            return _float_of(np.int32(max(254 - exponent, 1) << 23))

        return single

    def double(n):
        exponent = (_bits_of(n) >> 52) & 0x7FF
        return _float_of(max(2046 - exponent, 1) << 52)

    return double


@njit(cache=True, inline="always")
def safe_div(num, den):
    """num / den, NaN when den == 0 (the undefined case), never a silent 0; in the type of the
    quotient (float32 for float32 counts)."""
    if den == 0.0:
        return nan_like(num)
    return num / den


@njit(cache=True, inline="always")
def harmonic(x, y, wx):
    """Weighted harmonic mean 1 / (wx/x + (1-wx)/y): 0 if either is 0, NaN if either is NaN."""
    if x != x or y != y:
        return NAN
    if x == 0.0 or y == 0.0:
        return 0.0
    return 1.0 / (wx / x + (1.0 - wx) / y)


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
