"""Evaluation: measures over every cell of a tensor, the counts checked once per call.

:func:`evaluate` is what ``ConfusionTensor.evaluate`` and ``MultilabelTensor.evaluate`` run (the
tensor module holds containers only; importing this stage binds the methods to these functions,
see :func:`fastmetrics.tensor.bind_evaluator`).
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError
from ..tensor import ConfusionTensor, MultilabelTensor, Scores, bind_evaluator
from . import api, averaging, registry

MULTILABEL_AVERAGES = (None, "micro", "macro", "weighted", "samples")
_SAMPLE_MEASURES = ("precision", "recall", "f1")


def evaluate(
    tensor, measures, *, smoothing=None, average="default", undefined=None, warn=False, **matrix_params
) -> Scores:
    """Evaluate measures on every cell of a tensor.

    Parameters
    ----------
    tensor : ConfusionTensor or MultilabelTensor
        The counts (a :class:`MultilabelTensor` goes to :func:`evaluate_multilabel`).
    measures : str, MeasureSpec or sequence of them
        Names, aliases or specs (``"fbeta(beta=0.5)"``). A suffix ``@micro``, ``@macro``,
        ``@weighted`` or ``@none`` sets the averaging of that measure alone (``"f1@macro"``), so
        native and averaged multiclass values fit in one table.
    smoothing, undefined
        As in :func:`fastmetrics.compute`.
    average : {None, "micro", "macro", "weighted", "samples"}, optional
        The averaging of measures without a suffix; by default none (native multiclass values)
        for a ConfusionTensor and ``"micro"`` for a MultilabelTensor.
    warn : bool, default False
        Issue :class:`UndefinedMeasureWarning` for undefined cells (off: leaderboards of many
        topics routinely contain undefined cells, and the NaNs are in the output).
    **matrix_params
        Array parameters of multiclass measures, e.g. ``cost=`` for ``k_cost``.

    Returns
    -------
    Scores
        ``values[measure, *batch axes]``; each measure labelled as asked, with ``@average``
        where its averaging differs from ``average``.
    """
    if isinstance(tensor, MultilabelTensor):
        if matrix_params:
            raise ParameterError(f"Multilabel measures take no array parameters; got {', '.join(matrix_params)}.")
        return evaluate_multilabel(
            tensor,
            measures,
            smoothing=smoothing,
            average="micro" if average == "default" else average,
            undefined=undefined,
            warn=warn,
        )
    if not isinstance(tensor, ConfusionTensor):
        raise ParameterError(f"evaluate takes a ConfusionTensor; got {type(tensor).__name__}.")
    specs = registry.parse_specs(measures)
    values, labels = values_over(
        tensor.counts,
        specs,
        average=None if average == "default" else average,
        smoothing=smoothing,
        undefined=undefined,
        warn=warn,
        matrix_params=matrix_params,
    )
    return Scores(values, labels, tensor.axes, tensor.coords, coord_axes=tensor.coord_axes)


def values_over(
    counts, specs, *, average=None, smoothing=None, undefined=None, warn=False, matrix_params=None
) -> tuple[np.ndarray, list[str]]:
    """Every spec over one count array, validated once.

    Parameters
    ----------
    counts : array_like, shape (..., m, m)
    specs : list of MeasureSpec
    average, smoothing, undefined, warn, matrix_params
        As in :func:`evaluate`.

    Returns
    -------
    values : ndarray of float64, shape (len(specs), ...)
        One row per spec over the batch shape of ``counts``.
    labels : list of str
        One label per spec (:func:`label_of`).
    """
    default = None if average == "none" else average
    api.check_options(default, smoothing)
    c = api.checked_counts(counts)
    values = np.empty((len(specs),) + c.shape[:-2], np.float64)
    labels = []
    for i, spec in enumerate(specs):
        avg = spec.averaged(default)
        api.check_options(avg, None)
        extra = {k: v for k, v in (matrix_params or {}).items() if k in spec.measure.matrix_params}
        api.values_of(
            spec,
            c,
            average=avg,
            smoothing=smoothing,
            undefined=undefined,
            out=values[i, ...],
            warn=warn,
            matrix_args=extra,
        )
        labels.append(label_of(spec, avg, default))
    return values, labels


def label_of(spec, average, default) -> str:
    """A measure's label in a result.

    Its spec (:attr:`MeasureSpec.base_label`), with ``@average`` only where the averaging
    differs from the call's default (``@none`` for no averaging).
    """
    return spec.base_label if average == default else f"{spec.base_label}@{average or 'none'}"


def evaluate_multilabel(
    tensor: MultilabelTensor, measures, *, smoothing=None, average="micro", undefined=None, warn=False
) -> Scores:
    """Evaluate measures on multilabel input.

    Parameters
    ----------
    tensor : MultilabelTensor
    measures : str, MeasureSpec or sequence of them
        As in :func:`evaluate`.
    smoothing, undefined, warn
        As in :func:`evaluate`.
    average : {"micro", "macro", "weighted", "samples", None}, default "micro"
        ``micro``: pool the per-category counts (seed 001 §4.1); proficiency measures use
        their §4.3 definitions. ``macro``/``weighted``: mean over categories present in gold
        or prediction / weighted by gold size (:mod:`fastmetrics.measures.averaging`).
        ``samples``: per-object precision, recall or F1 averaged over the objects where each
        is defined (§4.4; objects with no predicted category have no precision, with no gold
        category no recall). ``None``: one value per category (a ``category`` axis).

    Returns
    -------
    Scores
        Over the group axes, or over the group axes and ``category`` for ``average=None``.
    """
    default = None if average == "none" else average
    entries = [(spec, spec.averaged(default)) for spec in registry.parse_specs(measures)]
    for spec, avg in entries:
        if avg not in MULTILABEL_AVERAGES:
            raise ParameterError(
                f"average must be one of {', '.join(map(str, MULTILABEL_AVERAGES))} for multilabel "
                f"input; got {avg!r} (for {spec.base_label})."
            )
    per_category = [avg is None for _, avg in entries]
    if any(per_category) and not all(per_category):
        raise ParameterError(
            "Per-category values (average=None) and averaged values cannot share one Scores: evaluate them separately."
        )
    axes = tensor.axes if all(per_category) else tensor.group_axes
    c = api.checked_counts(tensor.counts)
    values = np.empty((len(entries),) + (c.shape[:-2] if all(per_category) else c.shape[:-3]), np.float64)
    for i, (spec, avg) in enumerate(entries):
        values[i, ...] = _multilabel_values(tensor, c, spec, avg, smoothing, undefined, warn)
    return Scores(
        values,
        [label_of(spec, avg, default) for spec, avg in entries],
        axes,
        {k: v for k, v in tensor.coords.items() if k in axes},
    )


def _multilabel_values(tensor, c, spec, avg, smoothing, undefined, warn) -> np.ndarray:
    kw = dict(smoothing=smoothing, undefined=undefined, warn=warn)
    if avg is None:
        return api.values_of(spec, c, **kw)
    if avg == "samples":
        return _per_object(tensor, spec, undefined)
    if avg == "micro" and spec.measure.multilabel is not None:
        return api.apply_undefined(spec.measure.multilabel(tensor, spec), undefined, spec.base_label, warn)
    if avg == "micro":
        return api.values_of(spec, c.sum(axis=-3), **kw)
    per = api.values_of(spec, c, smoothing=smoothing, undefined=undefined, warn=False)
    mean = averaging.average_classes(per, c[..., 1, :].sum(-1), c[..., :, 1].sum(-1), avg)
    return api.apply_undefined(mean, undefined, f"{spec.base_label} ({avg})", warn)


def _per_object(tensor, spec, undefined) -> np.ndarray:
    name = spec.measure.name
    if name not in _SAMPLE_MEASURES:
        raise ParameterError(
            f"average='samples' (per-object means, seed 001 §4.4) is defined for "
            f"{', '.join(_SAMPLE_MEASURES)}; not for '{name}'."
        )
    k = _SAMPLE_MEASURES.index(name)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = tensor.object_sums[..., k] / tensor.object_counts[..., k]
    if undefined is not None:
        out = np.where(tensor.object_counts[..., k] > 0, out, float(undefined))
    return out


bind_evaluator(evaluate)
