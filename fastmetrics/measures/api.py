"""The public entry points of the measures stage: :func:`compute` and :func:`measures`."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError, UndefinedMeasureWarning, parameter_error, refuse_sklearn_options
from .._numbers import parameter
from . import averaging, multiclass, registry
from . import smoothing as smoothing_module
from ._kernels import LazyUfunc

_COUNT_NAMES = ("tp", "fp", "fn", "tn")


def _as_count_array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value)
    except ValueError:  # ragged nested lists
        raise InputError(
            f"Expected '{name}' to be an array of counts; got nested sequences of different lengths."
        ) from None
    if (
        arr.dtype == object
        or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool)
        or np.issubdtype(arr.dtype, np.complexfloating)
    ):
        raise InputError(f"Expected '{name}' to be real numeric counts, but got an array of dtype {arr.dtype}.")
    if not arr.size:
        return arr
    # two reductions and no temporary array: a NaN makes the minimum NaN, an infinity is an extreme
    low = np.min(arr)
    if np.issubdtype(arr.dtype, np.floating) and not (np.isfinite(low) and np.isfinite(np.max(arr))):
        raise InputError(f"Expected '{name}' to be finite counts, but it contains NaN or infinity.")
    if low < 0:
        raise InputError(f"Expected '{name}' to be non-negative counts, but its minimum is {low}.")
    return arr


def binary_counts(tp=None, fp=None, fn=None, tn=None, counts=None, owner: str = "compute"):
    """Validate and return ``(tp, fp, fn, tn)`` from either the four arrays or ``counts[..., 2, 2]``.

    This is the one validation helper every binary entry point uses.
    """
    given = [x is not None for x in (tp, fp, fn, tn)]
    if counts is not None:
        if any(given):
            raise ParameterError(f"{owner}: pass either counts= or tp=, fp=, fn=, tn=, not both.")
        c = _as_count_array(counts, "counts")
        if c.ndim < 2 or c.shape[-2:] != (2, 2):
            raise InputError(
                f"Expected 'counts' to have shape (..., 2, 2) for a binary measure, but got shape {c.shape}."
            )
        return c[..., 1, 1], c[..., 0, 1], c[..., 1, 0], c[..., 0, 0]
    if not all(given):
        missing = [n for n, g in zip(_COUNT_NAMES, given) if not g]
        raise ParameterError(
            f"{owner}: missing count argument(s) {', '.join(missing)}; pass tp, fp, fn, tn or counts=."
        )
    arrays = [_as_count_array(x, n) for x, n in zip((tp, fp, fn, tn), _COUNT_NAMES)]
    try:
        np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:
        shapes = ", ".join(f"{n}{a.shape}" for n, a in zip(_COUNT_NAMES, arrays))
        raise InputError(f"The count arrays do not broadcast together: {shapes}.") from None
    return tuple(arrays)


def apply_undefined(values: np.ndarray, undefined, label: str, warn: bool = True) -> np.ndarray:
    """Replace NaN (the undefined cells) by ``undefined``, or warn once with their count.

    The kernels return NaN only for undefined cells (counts are validated finite), so NaN here
    always means "undefined by the measure's documented convention".
    """
    if undefined is not None:
        try:
            fill = float(undefined)
        except (TypeError, ValueError):
            raise parameter_error("undefined", "compute", "a number or None", undefined) from None
        mask = np.isnan(values)
        if not isinstance(values, np.ndarray):  # a numpy scalar; a 0-d array (an ``out=``) is filled in place
            return np.float64(fill) if mask else values
        values[mask] = fill
        return values
    if warn:
        n_undefined = int(np.count_nonzero(np.isnan(values)))
        if n_undefined:
            warnings.warn(
                f"{label} is undefined in {n_undefined} of {np.size(values)} cell(s); returned NaN. "
                "Pass undefined=<number> to replace them.",
                UndefinedMeasureWarning,
                stacklevel=3,
            )
    return values


def compute(
    measure,
    tp=None,
    fp=None,
    fn=None,
    tn=None,
    *,
    counts=None,
    undefined=None,
    smoothing=None,
    average=None,
    out=None,
    warn=True,
    **params,
):
    """Compute one measure over broadcastable count arrays or confusion matrices.

    Parameters
    ----------
    measure : str or MeasureSpec
        Measure name or alias (see :func:`measures`), or a spec string such as
        ``"fbeta(beta=0.5)"`` or ``"f1@macro"`` (a suffix sets ``average``).
    tp, fp, fn, tn : array_like of int or float
        Counts of true positives, false positives, false negatives, true negatives. Any shapes
        that broadcast together.
    counts : array_like, shape (..., m, m), optional
        Alternative to the four arrays: ``counts[..., i, j]`` = items of true class ``i``
        predicted as ``j``. With ``m = 2`` class 1 is positive (``tn = c00, fp = c01,
        fn = c10, tp = c11``). With ``m > 2`` a measure uses its native multiclass definition
        (``fm.measures()`` column ``multiclass``) unless ``average`` is given.
    undefined : float or None, default None
        Value returned where the measure is undefined. ``None`` returns NaN there and issues one
        :class:`UndefinedMeasureWarning` with the number of undefined cells. With ``average``
        the value replaces each undefined per-class value before averaging (``undefined=0`` is
        scikit-learn's ``zero_division=0``).
    smoothing : {None, "laplace", "noninformative"}, default None
        Estimate the measure's conditional probabilities with Laplace's correction or with
        the non-informative prior of Amigó et al. (2019, §5; see :mod:`fastmetrics.measures.smoothing`).
        Only for measures whose record has ``smoothable`` true, on binary (or one-vs-rest) counts.
    average : {None, "micro", "macro", "weighted"}, default None
        One-vs-rest averaging over the classes of ``counts`` (Gösgens et al. (2021) §2; see
        :mod:`fastmetrics.measures.averaging` for classes absent from a matrix). ``None``: the
        binary definition (``m = 2``) or the native multiclass one.
    out : ndarray of float64, optional
        Array of the result's shape to write the result into (the ufunc's own ``out=``, checked
        first: float64 and of the counts' broadcast shape).
    warn : bool, default True
        Whether to issue the undefined-cells warning.
    **params
        The measure's parameters (e.g. ``beta`` for ``fbeta``; ``cost`` and ``power`` for
        ``k_cost``).

    Returns
    -------
    values : ndarray of float64 or float
        The measure per cell, with the broadcast shape of the counts (the batch shape of
        ``counts``).

    Raises
    ------
    UnknownMeasureError
        The name matches no measure; the message lists close names.
    InputError
        Counts are negative, non-finite, non-numeric, not square or do not broadcast.
    ParameterError
        A parameter is outside its domain, or a multiclass matrix meets a measure with no native
        multiclass definition and no ``average``.

    See Also
    --------
    fastmetrics.ufunc : The measure's numpy ufunc (``fm.ufuncs.<name>``), which this function
        validates around: its float64 loop gives these values. No validation, float32 loops,
        ``where=``, dask and xarray inputs.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> float(fm.compute("f1", tp=2, fp=0, fn=3, tn=45))
    0.5714285714285714
    >>> fm.compute("k", tp=[5, 0], fp=[0, 0], fn=[0, 0], tn=[45, 50])
    array([1., 1.])
    >>> C = [[5, 1, 0], [2, 6, 2], [0, 1, 3]]
    >>> round(float(fm.compute("cohen_kappa", counts=C)), 4)
    0.5349
    >>> round(float(fm.compute("f1", counts=C, average="macro")), 4)
    0.7009
    """
    refuse_sklearn_options(params, "compute")
    matrix_args = {k: params.pop(k) for k in list(params) if k in _matrix_param_names(measure)}
    spec = registry.make_spec(measure, params)
    average = spec.averaged(average)
    check_options(average, smoothing)
    if counts is not None and any(x is not None for x in (tp, fp, fn, tn)):
        raise ParameterError("compute: pass either counts= or tp=, fp=, fn=, tn=, not both.")
    if counts is None:
        if average is not None:
            raise parameter_error(
                "average", "compute", "None for tp/fp/fn/tn (pass counts=[..., m, m] to average over classes)", average
            )
        counts4 = binary_counts(tp, fp, fn, tn)
        _check_out(out, np.broadcast_shapes(*(np.shape(x) for x in counts4)))
        values = _binary_values(spec, counts4, smoothing, out)
        return apply_undefined(values, undefined, spec.base_label, warn=warn)
    c = checked_counts(counts)
    _check_out(out, c.shape[:-2])
    return values_of(
        spec, c, average=average, smoothing=smoothing, undefined=undefined, out=out, warn=warn, matrix_args=matrix_args
    )


def check_options(average, smoothing) -> None:
    """Refuse an ``average`` or ``smoothing`` that no measure takes."""
    if average is not None and average not in averaging.AVERAGES:
        raise parameter_error("average", "compute", "None, 'micro', 'macro' or 'weighted'", average)
    if smoothing is not None and smoothing not in smoothing_module.SMOOTHINGS:
        raise parameter_error(
            "smoothing", "compute", "None, " + " or ".join(map(repr, smoothing_module.SMOOTHINGS)), smoothing
        )


def checked_counts(counts) -> np.ndarray:
    """``counts[..., m, m]`` validated once: real, finite, non-negative, square.

    Parameters
    ----------
    counts : array_like

    Returns
    -------
    ndarray
        The counts as an array (not copied when already one).
    """
    c = _as_count_array(counts, "counts")
    if c.ndim < 2 or c.shape[-1] != c.shape[-2] or c.shape[-1] < 1:
        raise InputError(f"Expected 'counts' to have shape (..., m, m) with m >= 1 classes, but got shape {c.shape}.")
    return c


def values_of(
    spec,
    c: np.ndarray,
    *,
    average=None,
    smoothing=None,
    undefined=None,
    out=None,
    warn=False,
    matrix_args=None,
    present=None,
) -> np.ndarray:
    """One measure on counts already checked by :func:`checked_counts`.

    The one place where a measure's kernel meets a tensor's counts (:func:`compute` and every
    evaluation call it): the binary kernel for ``m = 2``, the native multiclass one for
    ``m > 2``, or the binary kernel on micro-pooled or one-vs-rest counts with ``average``.

    Parameters
    ----------
    spec : MeasureSpec
        The measure and its bound parameters.
    c : ndarray, shape (..., m, m)
        Confusion counts, ``c[..., i, j]`` = items of true class ``i`` predicted as ``j``.
    average : {None, "micro", "macro", "weighted"}
        The averaging that applies (the spec's own suffix already resolved).
    smoothing, undefined, out, warn
        As in :func:`compute`.
    matrix_args : mapping, optional
        Array parameters of the native multiclass kernel (``cost``).
    present : ndarray of bool, shape (..., m), optional
        The classes of each labelling, for the macro mean (``ConfusionTensor.present``).

    Returns
    -------
    ndarray of float64, shape (...)
        The measure per cell (the batch shape of ``c``; ``out`` when given), NaN or
        ``undefined`` where it is undefined.
    """
    m = c.shape[-1]
    if average is None:
        if m == 2:
            values = _binary_values(spec, (c[..., 1, 1], c[..., 0, 1], c[..., 1, 0], c[..., 0, 0]), smoothing, out)
        else:
            extra = [
                _matrix_arg(spec.measure, name, (matrix_args or {}).get(name), m) for name in spec.measure.matrix_params
            ]
            values = _native_values(spec, c, extra, smoothing, out)
        return apply_undefined(values, undefined, spec.base_label, warn=warn)
    if average == "micro":
        values = _binary_values(spec, averaging.micro_counts(c), smoothing, None)
    else:
        ctp, cfp, cfn, ctn, a, b = averaging.one_vs_rest(c)
        per_class = _binary_values(spec, (ctp, cfp, cfn, ctn), smoothing, None)
        if undefined is not None:
            per_class = apply_undefined(per_class, undefined, spec.base_label, warn=False)
        values = averaging.average_classes(per_class, a, b, average, present)
    if out is not None:
        out[...] = values
        values = out
    return apply_undefined(values, undefined, f"{spec.base_label} ({average})", warn=warn)


def _check_out(out, shape) -> None:
    """``out`` must be a float64 ndarray of the result's shape (the counts' batch shape)."""
    if out is None:
        return
    if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.shape != tuple(shape):
        got = (
            f"an array of dtype {out.dtype} and shape {out.shape}"
            if isinstance(out, np.ndarray)
            else type(out).__name__
        )
        raise ParameterError(
            f"The 'out' parameter of compute must be a float64 array of shape {tuple(shape)} "
            f"(the counts' batch shape). Got {got} instead."
        )


def _matrix_param_names(measure) -> tuple[str, ...]:
    try:
        return registry.make_spec(measure).measure.matrix_params
    except (ParameterError, TypeError):
        return ()


def _matrix_arg(measure, name: str, value, m: int) -> np.ndarray:
    if name == "cost":
        return multiclass.unit_costs(m) if value is None else multiclass.check_costs(value, m)
    raise ParameterError(f"Measure '{measure.name}' declares an unknown array parameter {name!r}.")


def binary_element(spec):
    """The scalar function that evaluates ``spec`` on one binary cell, for other numba kernels.

    It is the function the measure's ufunc is built from (float64 arguments ``tp, fp, fn, tn``
    and the spec's parameters, numpy's error model: NaN where undefined), so a kernel that calls
    it computes what :func:`values_of` computes on two classes without smoothing or averaging.

    Parameters
    ----------
    spec : MeasureSpec

    Returns
    -------
    numba dispatcher or None
        Callable from numba code only (it is compiled without the wrapper that lets Python call
        it). None for a measure evaluated otherwise (a curve or ranking measure, an averaged spec, a
        gufunc kernel).
    """
    kernel = spec.measure.kernel
    plain = (
        spec.measure.kind == "point"
        and spec.average is None
        and isinstance(kernel, LazyUfunc)
        and kernel.scalar is not None
        and kernel.py_func.__code__.co_argcount == 4 + len(spec.params)
    )
    return kernel.element if plain else None


def _binary_values(spec, counts4, smoothing, out) -> np.ndarray:
    """Raw values (NaN where undefined) of the binary kernel or its smoothed form."""
    tp, fp, fn, tn = counts4
    if smoothing is not None:
        return smoothing_module.smoothed_values(spec, tp, fp, fn, tn, smoothing, out=out)
    kwargs = {} if out is None else {"out": out}
    # LLVM may evaluate a division before the zero-denominator branch picks NaN; the flag it
    # raises is not an error here, every undefined cell is counted in apply_undefined.
    with np.errstate(invalid="ignore", divide="ignore"):
        return spec.measure.kernel(tp, fp, fn, tn, *spec.params, **kwargs)


def _native_values(spec, c, extra, smoothing, out) -> np.ndarray:
    native = spec.measure.multiclass
    if native is None:
        raise ParameterError(
            f"Measure '{spec.measure.name}' has no native multiclass definition; these counts have "
            f"{c.shape[-1]} classes. Pass average='micro', 'macro' or 'weighted' (--average; one-vs-rest, "
            f"Gösgens et al. (2021) §2), or write '{spec.measure.name}@macro' in a measure list "
            f"('{spec.measure.name}@none': one value per class)."
        )
    if smoothing is not None:
        raise ParameterError(
            "Smoothing (Amigó et al. (2019) §5) estimates binary conditional probabilities; for "
            f"{c.shape[-1]} classes pass average='micro', 'macro' or 'weighted' (--average) with it."
        )
    kwargs = {} if out is None else {"out": out}
    with np.errstate(invalid="ignore", divide="ignore"):
        return native(c, *extra, *spec.params, **kwargs)


def _multiclass_text(m) -> str:
    if m.kind != "point":
        return "binary only"
    return m.multiclass_formula or "one-vs-rest: average='micro' | 'macro' | 'weighted'"


def measures() -> pa.Table:
    """The measure catalog: one row per registered measure, read from the registry.

    Returns
    -------
    catalog : pyarrow.Table
        Columns ``name, kind, aliases, summary, formula, latex, range_low, range_high,
        higher_is_better, family, params, undefined_when, smoothable, multiclass, reference``;
        ``kind`` is ``point`` (one value per confusion matrix), ``curve`` (one per group of a
        threshold sweep) or ``ranking`` (one per ranked list); ``multiclass`` is the native
        multiclass formula, or says that the measure takes one-vs-rest averaging.
    """
    rows = registry.all_measures()
    return pa.table(
        {
            "name": [m.name for m in rows],
            "kind": [m.kind for m in rows],
            "aliases": [list(m.aliases) for m in rows],
            "summary": [m.summary for m in rows],
            "formula": [m.formula for m in rows],
            "latex": [m.latex for m in rows],
            "range_low": pa.array([m.range[0] for m in rows], pa.float64()),
            "range_high": pa.array([m.range[1] for m in rows], pa.float64()),
            "higher_is_better": [m.higher_is_better for m in rows],
            "family": [m.family for m in rows],
            "params": [", ".join(f"{p.name}={parameter(p.default)}" for p in m.params) for m in rows],
            "undefined_when": [m.undefined_when for m in rows],
            "smoothable": [m.smoothable for m in rows],
            "multiclass": [_multiclass_text(m) for m in rows],
            "reference": [m.reference for m in rows],
        }
    )
