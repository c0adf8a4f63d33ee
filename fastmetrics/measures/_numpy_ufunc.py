"""A numba ufunc's loops as a ufunc numpy makes itself (private; used by ``_kernels.LazyUfunc``).

numba creates its ufunc objects with type resolution and loop selection of its own. numpy runs
them through its legacy path, in which ``where=`` fails ("An iterator operand was flagged as the
ARRAYMASK, but no WRITEMASKED operands were given to use the mask", numba 0.68 with numpy 2.4;
``np.frompyfunc`` and numpy's own ufuncs take it). The same compiled loops handed to numpy's
public constructor ``PyUFunc_FromFuncAndData`` (its C API, reached through the capsule every
extension module uses) give a ufunc with numpy's default type resolution, on which the whole
protocol works: ``out=``, ``where=``, ``dtype=``, ``casting=``, ``__array_ufunc__`` overrides.

numpy keeps the pointers it is given (loops, their data, the type codes, the name): the numba
object that owns them and the name's bytes are made the new ufunc's ``obj``, the field numpy
releases when the ufunc is freed (``np.frompyfunc`` keeps its function there), so the loops live
as long as the ufunc does.
"""

from __future__ import annotations

import ctypes
import importlib

_PYUFUNC_NONE = -1  # a ufunc without identity (numpy's PyUFunc_None)
_FROM_FUNC_AND_DATA = 1  # PyUFunc_FromFuncAndData's slot in numpy's ufunc C API table


class _UfuncHead(ctypes.Structure):
    """The leading fields of numpy's ``PyUFuncObject`` (numpy/ufuncobject.h, unchanged since
    numpy 1.0 and part of its ABI)."""

    _fields_ = [
        ("ob_refcnt", ctypes.c_ssize_t),
        ("ob_type", ctypes.c_void_p),
        ("nin", ctypes.c_int),
        ("nout", ctypes.c_int),
        ("nargs", ctypes.c_int),
        ("identity", ctypes.c_int),
        ("functions", ctypes.c_void_p),
        ("data", ctypes.c_void_p),
        ("ntypes", ctypes.c_int),
        ("reserved1", ctypes.c_int),
        ("name", ctypes.c_void_p),
        ("types", ctypes.c_void_p),
        ("doc", ctypes.c_void_p),
        ("ptr", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
    ]


def _constructor():
    capsule = None
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):  # numpy 2, numpy 1
        try:
            capsule = importlib.import_module(module)._UFUNC_API
            break
        except (ImportError, AttributeError):
            continue
    get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    get_pointer.restype = ctypes.c_void_p
    get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    table = ctypes.cast(get_pointer(capsule, None), ctypes.POINTER(ctypes.c_void_p))
    c_int, c_void_p = ctypes.c_int, ctypes.c_void_p
    prototype = ctypes.PYFUNCTYPE(
        ctypes.py_object, c_void_p, c_void_p, c_void_p, c_int, c_int, c_int, c_int, ctypes.c_char_p, c_void_p, c_int
    )
    return prototype(table[_FROM_FUNC_AND_DATA])


def plain_ufunc(numba_object, name: str):
    """A ufunc made by numpy over the loops of a ufunc numba built, named ``name``.

    Parameters
    ----------
    numba_object : numba DUFunc or numpy.ufunc
        What numba's ``vectorize`` returned (a ``DUFunc`` whose ``ufunc`` holds the loops, or the
        ufunc itself in older numba); its loops, data and type codes are reused.
    name : str
        The new ufunc's ``__name__``.

    Returns
    -------
    numpy.ufunc
        Element-wise, no identity, the same loops in the same order.
    """
    numba_ufunc = getattr(numba_object, "ufunc", numba_object)
    head = _UfuncHead.from_address(id(numba_ufunc))
    name_bytes = ctypes.c_char_p(name.encode())
    made = _constructor()(
        head.functions, head.data, head.types, head.ntypes, head.nin, head.nout, _PYUFUNC_NONE, name_bytes, None, 0
    )
    owners = (numba_object, numba_ufunc, name_bytes)
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(owners))  # the reference numpy releases with the ufunc
    _UfuncHead.from_address(id(made)).obj = id(owners)
    return made
