"""The measures as numpy ufuncs: ``fm.ufuncs.<name>`` and ``fm.ufunc(name)``.

Every point measure of the registry -- a function of one confusion matrix, ``kind == "point"`` in
:func:`fastmetrics.measures` -- is a :class:`numpy.ufunc` over its counts ``tp, fp, fn, tn``
followed by its parameters (``fm.ufuncs.fbeta(tp, fp, fn, tn, beta)``), all broadcasting together.
It has a float32 and a float64 loop; integer counts are cast by numpy's type resolution, as for
``np.sqrt`` (int64 and int32 to float64, int16 and narrower to float32; ``dtype=`` chooses).
Where the measure is undefined (its record's ``undefined_when``) the value is NaN. Being a real
ufunc, it takes numpy's whole protocol: broadcasting, ``out=``, ``where=``, ``dtype=``, and
inputs that implement ``__array_ufunc__`` -- a ``dask.array`` stays lazy, an xarray ``DataArray``
keeps its dimensions and coordinates. The float32 loop computes in float32 where the formula
allows (proficiency, a ratio of two entropies that may both be near 0, computes in float64
inside it): within 1e-5 of the float64 value (relative to max(1, |value|)) for counts exact in
float32 (below 2^24).

A ufunc does no validation: negative or non-finite counts and parameters outside their domain give
whatever the formula gives, and undefined cells are NaN without a ``UndefinedMeasureWarning``
(numpy's floating-point warning, ``invalid value encountered in f1``, may come as it comes from
numpy's own division; ``np.errstate`` silences it).
:func:`fastmetrics.compute` is the validating entry point around the same ufuncs (it checks the
counts and parameters, warns on undefined cells, averages and smooths).

The other kinds have no ufunc: a curve, ranking or calibration measure is one value per *group*
of cells (a threshold sweep, a ranked list, the scores of a group) and a top-k accuracy one per
group of class probabilities, not a function of one cell's counts. The native multiclass
definitions of some point measures (``fm.compute(name, counts=C)``, ``C[..., m, m]``) read the
whole matrix: they are generalized ufuncs inside :func:`fastmetrics.compute`.

The ufuncs are built on first access (numba builds each ufunc's loops once per process; building
all of them at import would cost seconds), and the attribute then holds the ufunc itself.
"""

from __future__ import annotations

import numpy as _np

from .._errors import ParameterError as _ParameterError
from .._errors import UnknownMeasureError as _UnknownMeasureError
from .._errors import suggest as _suggest
from .._numbers import parameter as _parameter
from . import registry as _registry
from ._kernels import LazyUfunc as _LazyUfunc

_COUNTS = ("tp", "fp", "fn", "tn")


def ufunc(measure) -> _np.ufunc:
    """The numpy ufunc of a point measure, by name or alias.

    Parameters
    ----------
    measure : str or Measure
        A name or alias of a point measure (case-insensitive, as :func:`fastmetrics.compute`
        reads it), or its record.

    Returns
    -------
    numpy.ufunc
        Inputs ``tp, fp, fn, tn`` and then the measure's parameters (:func:`inputs`); loops for
        float32 and float64; NaN where the measure is undefined. The same object as
        ``fm.ufuncs.<name>``.

    Raises
    ------
    UnknownMeasureError
        The name matches no measure; the message lists close names.
    ParameterError
        The measure is not a point measure (a curve, ranking, calibration or top-k measure is one
        value per group of cells, not a function of one cell's counts).

    Examples
    --------
    >>> import numpy as np
    >>> import fastmetrics as fm
    >>> f1 = fm.ufunc("f_measure")
    >>> f1 is fm.ufuncs.f1, isinstance(f1, np.ufunc), f1.types
    (True, True, ['ffff->f', 'dddd->d'])
    >>> fm.ufuncs.fbeta([2, 0], 0, [3, 0], 45, [1.0, 2.0])
    array([0.57142857,        nan])
    """
    m = _registry.get(measure)
    if m.kind != "point":
        raise _ParameterError(_not_a_point_measure(m))
    kernel = m.kernel
    built = kernel.ufunc if isinstance(kernel, _LazyUfunc) else getattr(kernel, "ufunc", kernel)
    if not isinstance(built, _np.ufunc):
        raise _ParameterError(
            f"Measure '{m.name}' was registered with a kernel that is not a numpy ufunc "
            f"({type(kernel).__name__}); register_function makes one."
        )
    _document(built, m)
    return built


def inputs(measure) -> tuple[str, ...]:
    """The names of a point measure's ufunc inputs, in order.

    Parameters
    ----------
    measure : str or Measure
        A name or alias, or its record.

    Returns
    -------
    tuple of str
        The four counts, then the measure's parameters: ``("tp", "fp", "fn", "tn", "beta")`` for
        ``fbeta``.
    """
    return _COUNTS + tuple(p.name for p in _registry.get(measure).params)


def _document(built, m) -> None:
    """Give the ufunc the measure's definition as its docstring (``help(fm.ufuncs.f1)``)."""
    if getattr(built, "_fastmetrics_doc", None) == m.name:
        return
    params = "".join(f"\n    {p.name}: {p.doc} (fm.compute's default {_parameter(p.default)})" for p in m.params)
    doc = (
        f"{m.name}({', '.join(inputs(m))}, /, out=None, *, where=True, casting='same_kind', order='K', "
        f"dtype=None, subok=True[, signature])\n\n{m.summary}\n\n    {m.formula}\n\n"
        f"NaN where it is undefined: {m.undefined_when}.{params and chr(10) + 'Parameters:' + params}\n\n"
        f"Loops: {', '.join(built.types)}. No validation and no warning: fm.compute('{m.name}', ...) "
        f"checks the counts and warns on undefined cells.\n\nReference: {m.reference}"
    )
    try:
        built.__doc__ = doc
        built._fastmetrics_doc = m.name
    except (AttributeError, TypeError):  # numpy < 2.1: a ufunc's attributes are read-only
        pass


def _point_names() -> list[str]:
    return _registry.names(kind="point")


def __getattr__(name: str):
    if name.startswith("_"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        m = _registry.get(name)
    except _UnknownMeasureError:
        m = None
    if m is None or name not in (m.name, *m.aliases):
        raise AttributeError(
            f"fm.ufuncs has no measure {name!r}."
            + _suggest(name, _point_names())
            + " dir(fm.ufuncs) lists the point measures."
        )
    if m.kind != "point":
        raise AttributeError(_not_a_point_measure(m))
    built = ufunc(m)
    # a measure of the package keeps its ufunc as a module attribute (no lookup on the next
    # access); one a user registered may be unregistered and registered anew
    if getattr(m.kernel, "__module__", "").startswith("fastmetrics."):
        globals()[name] = built
    return built


def _not_a_point_measure(m) -> str:
    return (
        f"Measure '{m.name}' is a {m.kind} measure: one value per group of cells, not a function of one "
        f"confusion matrix, so it has no ufunc. Count with thresholds and evaluate it: "
        f"fm.count(...).evaluate(['{m.name}'])."
    )


def __dir__():
    return sorted({"ufunc", "inputs", *_point_names()})
