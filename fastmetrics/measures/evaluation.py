"""Evaluation: measures over every cell of a tensor, the counts checked once per call.

:func:`evaluate` is what ``ConfusionTensor.evaluate`` and ``MultilabelTensor.evaluate`` run (the
containers import no later stage: the package root binds them to it, see
:mod:`fastmetrics._stages`). Curve, ranking and calibration measures over the groups of a sweep,
and :func:`operating_points`, are :mod:`fastmetrics.measures.sweeps` (``operating_points`` is also
reached here, where it always was).
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError, refuse_sklearn_options, suggest
from ..tensor import ConfusionTensor, MixedCounts, MultilabelTensor, Scores
from ..tensor.graded import GradedRanks
from . import api, area_intervals, averaging, graded, intervals, positive, registry
from .mixed import mixed_scores
from .sweeps import curve_scores
from .sweeps import operating_points as operating_points

MULTILABEL_AVERAGES = (None, "micro", "macro", "weighted", "samples")
_SAMPLE_MEASURES = ("precision", "recall", "f1")


def evaluate(
    tensor,
    measures,
    *,
    smoothing=None,
    average="default",
    undefined=None,
    warn=False,
    ci=None,
    method="bootstrap",
    resamples=2000,
    seed=0,
    interval="percentile",
    pos_label=None,
    **matrix_params,
) -> Scores:
    """Evaluate measures on every cell of a tensor.

    Parameters
    ----------
    tensor : ConfusionTensor, MultilabelTensor, GradedRanks or MixedCounts
        The counts (a :class:`MultilabelTensor` goes to :func:`evaluate_multilabel`; a
        :class:`MixedCounts` sends each measure to the part it reads,
        :func:`fastmetrics.measures.mixed.mixed_scores`).
    measures : str, MeasureSpec or sequence of them
        Names, aliases or specs (``"fbeta(beta=0.5)"``). A suffix ``@micro``, ``@macro``,
        ``@weighted`` or ``@none`` sets the averaging of that measure alone (``"f1@macro"``), so
        native and averaged multiclass values fit in one table.
    smoothing, undefined
        As in :func:`fastmetrics.compute`.
    average : {None, "micro", "macro", "weighted", "samples"}, optional
        The averaging of measures without a suffix; by default none (native multiclass values)
        for a ConfusionTensor and ``"micro"`` for a MultilabelTensor. Given as ``None`` (or a
        spec's ``@none``), a measure without a native multiclass definition gives one value per
        class, scikit-learn's ``average=None`` (a ``class`` axis, :func:`per_class_scores`).
    warn : bool, default False
        Issue :class:`UndefinedMeasureWarning` for undefined cells (off: leaderboards of many
        topics routinely contain undefined cells, and the NaNs are in the output).
    ci : float, optional
        A confidence level (e.g. 0.95): the Scores then carry ``low`` and ``high`` (``ci_low``,
        ``ci_high`` in tidy output) for every point measure on every cell; see
        :mod:`fastmetrics.measures.intervals`.
    method : {"bootstrap", "wilson", "jeffreys", "delong"}, default "bootstrap"
        A multinomial bootstrap of each cell's items (any measure), or the analytic intervals of
        a proportion (accuracy, precision, recall, ...). Curve measures of a sweep: the bootstrap
        of each group's items, or DeLong's interval of ROC AUC
        (:mod:`fastmetrics.measures.area_intervals`).
    resamples : int, default 2000
        Bootstrap replicates per cell.
    seed : int, default 0
        Of the bootstrap: the same seed gives the same intervals.
    interval : {"percentile", "basic"}, default "percentile"
        The bootstrap interval.
    pos_label : scalar, optional
        The class binary measures (precision, recall, F1, ...) read as positive, scikit-learn's
        ``pos_label``: by default 1 where it is one of the classes (0/1 and boolean labels);
        two classes without 1 need it (see :mod:`fastmetrics.measures.positive`). With more
        than two classes, that class against the rest.
    **matrix_params
        Array parameters of multiclass measures, e.g. ``cost=`` for ``k_cost``.

    Returns
    -------
    Scores
        ``values[measure, *batch axes]``; each measure labelled as asked, with ``@average``
        where its averaging differs from ``average``.
    """
    refuse_sklearn_options(matrix_params, "evaluate")
    if ci is not None:
        intervals.check(ci, method, resamples, interval)
    if isinstance(tensor, MultilabelTensor):
        if ci is not None:
            raise ParameterError(
                f"Intervals (ci={ci!r}, --ci) are not computed for multilabel counts: they keep per-category "
                "totals, not the items a bootstrap resamples. Drop ci (--ci); in Python "
                "tensor.per_category().evaluate(..., ci=) gives each category's binary intervals."
            )
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
    if isinstance(tensor, MixedCounts):
        options = dict(smoothing=smoothing, average=average, undefined=undefined, warn=warn, ci=ci, method=method)
        options.update(resamples=resamples, seed=seed, interval=interval, pos_label=pos_label, **matrix_params)
        return mixed_scores(tensor, measures, evaluate=evaluate, **options)
    if isinstance(tensor, GradedRanks):
        return graded.graded_scores(tensor, registry.parse_specs(measures), undefined=undefined, warn=warn)
    if not isinstance(tensor, ConfusionTensor):
        raise ParameterError(f"evaluate takes a ConfusionTensor; got {type(tensor).__name__}.")
    specs = registry.parse_specs(measures)
    _check_matrix_params(specs, matrix_params)
    if ci is not None and any(spec.measure.kind != "point" for spec in specs):
        options = dict(ci=ci, method=method, resamples=resamples, seed=seed, interval=interval)
        return area_intervals.curve_intervals(tensor, specs, **options, undefined=undefined, warn=warn)
    if ci is not None and method == "delong":
        raise ParameterError(
            "method='delong' (--ci-method delong) is ROC AUC's interval, read from a threshold sweep: count with "
            "thresholds='exact' and ask for roc_auc, or use method='bootstrap' for point measures."
        )
    other = _other_layout(tensor, specs, average, ci, smoothing=smoothing, undefined=undefined, warn=warn)
    if other is not None:
        return other
    default = None if average in ("default", "none") else average
    counts = positive.positive_counts(tensor.counts, tensor.classes, specs, default, pos_label)
    values, labels = values_over(
        counts,
        specs,
        average=None if average == "default" else average,
        smoothing=smoothing,
        undefined=undefined,
        warn=warn,
        matrix_params=matrix_params,
        present=tensor.present if counts is tensor.counts else None,
    )
    bounds = {}
    if ci is not None:
        options = dict(ci=ci, method=method, resamples=resamples, seed=seed, interval=interval)
        low, high = _cell_intervals(tensor, counts, specs, values, default, smoothing, matrix_params, options)
        bounds = {"low": low, "high": high}
    return Scores(values, labels, tensor.axes, tensor.coords, coord_axes=tensor.coord_axes, **bounds)


def _cell_intervals(tensor, counts, specs, values, default, smoothing, matrix_params, options):
    """The ``low`` and ``high`` bounds of every measure on every cell (:func:`evaluate`'s ``ci``):
    one set of bootstrap replicates for every measure, or each proportion's analytic interval."""
    c = api.checked_counts(counts)
    if options["method"] == "bootstrap":
        matrix_args = [{k: v for k, v in matrix_params.items() if k in s.measure.matrix_params} for s in specs]
        return intervals.bootstrap_intervals(
            specs,
            c,
            values,
            ci=options["ci"],
            resamples=options["resamples"],
            seed=options["seed"],
            interval=options["interval"],
            averages=[spec.averaged(default) for spec in specs],
            smoothing=smoothing,
            matrix_args=matrix_args,
            squares=tensor.squares,
        )
    pairs = [
        intervals.interval(spec, c, values[i], ci=options["ci"], method=options["method"], squares=tensor.squares)
        for i, spec in enumerate(specs)
    ]
    return np.stack([p[0] for p in pairs]), np.stack([p[1] for p in pairs])


def _other_layout(tensor, specs, average, ci, **options) -> Scores | None:
    """Scores of measures read from a sweep, from gold ranks or per class; None for the rest."""
    if any(spec.measure.kind != "point" for spec in specs):
        if ci is not None:
            raise ParameterError(
                "Intervals of curve and ranking measures need the items, not the counts: they are "
                "not computed from a sweep (ci= is for point measures)."
            )
        if any(spec.measure.kind == "topk" for spec in specs):
            return top_k_scores(tensor, specs)
        return curve_scores(tensor, specs, undefined=options["undefined"], warn=options["warn"])
    if tensor.m == 2 and "class" in tensor.axes + tuple(tensor.coords):
        averaged = class_sweep_averages(tensor, specs, average, ci, **options)
        if averaged is not None:
            return averaged
    # per class only when asked (@none, average=None): a bare "f1" on multiclass counts stays an error
    asked = average in (None, "none")
    # two classes: per class only for an explicit @none (average=None keeps the binary value); counts
    # that already have a class axis (class probabilities: each class against the rest) keep it
    if "class" not in tensor.axes + tuple(tensor.coords) and any(
        s.measure.multiclass is None and (s.average == "none" or (s.average is None and asked and tensor.m != 2))
        for s in specs
    ):
        default = None if average in ("default", "none") else average
        if ci is not None:
            raise ParameterError("Intervals are computed for averaged or native values, not per class (@none).")
        return per_class_scores(tensor, specs, default, **options)
    return None


def class_sweep_averages(tensor: ConfusionTensor, specs, average, ci, *, smoothing=None, undefined=None, warn=False):
    """Point measures of class probabilities on a threshold grid, averaged over the classes.

    Parameters
    ----------
    tensor : ConfusionTensor
        Binary counts of class probabilities swept per class (``counts[..., class, threshold, 2, 2]``,
        one-vs-rest; with a ``versus`` axis, one-vs-one).
    specs : list of MeasureSpec
        Point measures.
    average : str or None
        The call's averaging.
    ci : float or None
        Refused with an averaging: the classes' cells share the items.
    smoothing, undefined, warn
        As in :func:`evaluate`.

    Returns
    -------
    Scores or None
        None when no spec is averaged (one value per class and threshold, the class against the
        rest). Else over the axes without ``class`` / ``versus``: at each threshold, every class's
        probability binarised at it, ``@macro`` the mean of the classes' binary values (classes
        with neither gold nor predicted items left out, as for multiclass counts), ``@weighted``
        weighted by their gold items, ``@micro`` the binary value of the summed counts --
        scikit-learn's averages over the binarised labels, and ``roc_auc@macro``'s classes.
    """
    default = None if average in ("default", "none") else average
    averages = [s.averaged(default) for s in specs]
    if all(a is None for a in averages):
        return None
    _check_class_averages(tensor, specs, averages, ci)
    over = [i for i, a in enumerate(tensor.axes) if a in ("class", "versus")]
    c = api.checked_counts(tensor.counts)
    c = np.moveaxis(c, over, list(range(c.ndim - 2 - len(over), c.ndim - 2)))
    c = c.reshape(c.shape[: c.ndim - 2 - len(over)] + (-1, 2, 2))  # (..., classes, 2, 2)
    gold, predicted = c[..., 1, :].sum(axis=-1), c[..., :, 1].sum(axis=-1)
    if len(over) > 1:  # a pair's weight: its items
        gold = c.sum(axis=(-2, -1))
    values = []
    for spec, avg in zip(specs, averages):
        if avg == "micro":
            values.append(api.values_of(spec, c.sum(axis=-3), smoothing=smoothing, undefined=undefined, warn=warn))
            continue
        per_class = api.values_of(spec, c, smoothing=smoothing, undefined=undefined, warn=False)
        mean = averaging.average_classes(per_class, gold, predicted, avg)
        values.append(api.apply_undefined(mean, undefined, f"{spec.base_label} ({avg})", warn=warn))
    kept = tuple(a for a in tensor.axes if a not in ("class", "versus"))
    labels = [label_of(s, a, default) for s, a in zip(specs, averages)]
    return Scores(np.stack(values), labels, kept, {a: tensor.coords[a] for a in kept})


def _check_class_averages(tensor, specs, averages, ci) -> None:
    """Refuse what :func:`class_sweep_averages` cannot average: an exact sweep, a mix of per-class
    and averaged specs, intervals, ``@micro`` over one-vs-one pairs."""
    where = "class" if "class" in tensor.axes else None
    if where is None or "threshold" not in tensor.axes or None in averages:
        raise ParameterError(
            f"{', '.join(s.label for s in specs)}: point measures of class probabilities average over the "
            "classes at each threshold of a grid (thresholds=k or a list); "
            + (
                "an exact sweep has different thresholds per class: count with a grid, or ask per class (@none)."
                if where is None or "threshold" not in tensor.axes
                else "per-class (@none) and averaged values cannot share one Scores: evaluate them in separate calls."
            )
        )
    if ci is not None:
        raise ParameterError(
            "Intervals of values averaged over the classes of class probabilities are not computed from the "
            "counts (the classes share the items): ask per class (@none) or drop ci."
        )
    if "versus" in tensor.axes and "micro" in averages:
        raise ParameterError("One-vs-one pairs average @macro or @weighted (pairs share items), not @micro.")


def _check_matrix_params(specs, matrix_params) -> None:
    """Refuse a keyword no measure asked for takes: a misspelt option, or a cost matrix without
    ``k_cost``, would otherwise be ignored."""
    taken = {name for spec in specs for name in spec.measure.matrix_params}
    unknown = [name for name in (matrix_params or {}) if name not in taken]
    if unknown:
        raise ParameterError(
            f"No measure asked for takes {', '.join(map(repr, unknown))}"
            + (" (a cost matrix, --cost, is k_cost's)" if "cost" in unknown else "")
            + (f"; they take {', '.join(sorted(taken))}" if taken else "")
            + f".{suggest(unknown[0], ['smoothing', 'average', 'undefined', 'warn', 'ci', 'method', *taken])}"
        )


def values_over(
    counts, specs, *, average=None, smoothing=None, undefined=None, warn=False, matrix_params=None, present=None
) -> tuple[np.ndarray, list[str]]:
    """Every spec over one count array, validated once.

    Parameters
    ----------
    counts : array_like, shape (..., m, m)
    specs : list of MeasureSpec
    average, smoothing, undefined, warn, matrix_params
        As in :func:`evaluate`.
    present : ndarray of bool, optional
        ``ConfusionTensor.present``: the classes of each labelling, for macro means.

    Returns
    -------
    values : ndarray of float64, shape (len(specs), ...)
        One row per spec over the batch shape of ``counts``.
    labels : list of str
        One label per spec (:func:`label_of`).
    """
    _check_matrix_params(specs, matrix_params)
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
            present=present,
        )
        labels.append(label_of(spec, avg, default))
    return values, labels


def per_class_scores(tensor: ConfusionTensor, specs, default, *, smoothing=None, undefined=None, warn=False) -> Scores:
    """One-vs-rest values of every class (scikit-learn's ``average=None``): a ``class`` axis.

    Parameters
    ----------
    tensor : ConfusionTensor
        Multiclass counts ``counts[..., m, m]``.
    specs : list of MeasureSpec
        Measures without a native multiclass definition, with no averaging (``"f1@none"``).
    default : str or None
        The call's averaging.
    smoothing, undefined, warn
        As in :func:`evaluate`.

    Returns
    -------
    Scores
        Over the tensor's axes and ``class`` (labelled by ``tensor.classes``): the measure of
        "class c against the rest" per class.
    """
    mixed = [s.label for s in specs if not (s.averaged(default) is None and s.measure.multiclass is None)]
    if mixed:
        raise ParameterError(
            f"Per-class values (@none) and {', '.join(mixed)} cannot share one Scores (one has a class axis): "
            "evaluate them in separate calls."
        )
    c = api.checked_counts(tensor.counts)
    ctp, cfp, cfn, ctn, _, _ = averaging.one_vs_rest(c)
    one_vs_rest = np.stack([ctn, cfp, cfn, ctp], axis=-1).reshape(ctp.shape + (2, 2))
    values = np.empty((len(specs),) + ctp.shape, np.float64)
    for i, spec in enumerate(specs):
        values[i] = api.values_of(spec, one_vs_rest, smoothing=smoothing, undefined=undefined, warn=warn)
    classes = np.asarray(tensor.classes)
    seen = _implied_class_seen(c, classes, tensor.present)
    if seen is not None:
        values, classes = values[..., seen], classes[seen]
    coords = dict(tensor.coords, **{"class": classes})
    labels = [label_of(s, None, default) for s in specs]
    return Scores(values, labels, tensor.axes + ("class",), coords, coord_axes=tensor.coord_axes)


def _implied_class_seen(c: np.ndarray, classes: np.ndarray, present) -> np.ndarray | None:
    """Where 0/1 (or boolean) labels imply the pair of classes but one of them occurs nowhere,
    a mask keeping the one that occurs: per-class values cover the labels seen, as scikit-learn's
    ``average=None`` (its ``unique_labels``); None otherwise."""
    if classes.size != 2 or {v.item() if hasattr(v, "item") else v for v in classes} != {0, 1}:
        return None
    axes = tuple(range(c.ndim - 2))
    seen = (c.sum(axis=axes).sum(axis=0) + c.sum(axis=axes).sum(axis=1)) > 0
    if present is not None:
        seen |= np.asarray(present).reshape(-1, 2).any(axis=0)
    return seen if seen.sum() == 1 else None


def top_k_scores(tensor: ConfusionTensor, specs) -> Scores:
    """``top_k_accuracy(k)``: the share of items whose gold class is among their k highest scores.

    Parameters
    ----------
    tensor : ConfusionTensor
        Counted with ``thresholds="topk"`` from class probabilities: ``counts[..., top_k, 2, 2]``,
        ``tp`` the weight of the items whose gold class is within the top ``k``.
    specs : list of MeasureSpec
        ``top_k_accuracy`` specs only.

    Returns
    -------
    Scores
        Over the tensor's axes without ``top_k``; a ``k`` at or above the number of classes gives 1.
    """
    other = [s.base_label for s in specs if s.measure.kind != "topk"]
    if other:
        raise ParameterError(
            f"top_k_accuracy reads the gold class's rank (thresholds='topk', --thresholds topk); "
            f"{', '.join(other)} read(s) other counts: evaluate them in separate calls (fm.score does it for you)."
        )
    if "top_k" not in tensor.axes:
        raise ParameterError(
            "top_k_accuracy reads the rank of each item's gold class: count class probabilities with "
            "thresholds='topk' (a list-typed score column or one score column per class)."
        )
    at = tensor.axes.index("top_k")
    counts = np.moveaxis(api.checked_counts(tensor.counts), at, -3)
    m = counts.shape[-3]
    values = np.stack([spec.measure.kernel(counts[..., min(int(spec.params[0]), m) - 1, :, :]) for spec in specs])
    axes = tuple(a for a in tensor.axes if a != "top_k")
    return Scores(values, [s.base_label for s in specs], axes, {a: tensor.coords[a] for a in axes})


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
        ``micro``: pool the per-category counts (Steingold & Laclavík n.d., §4.1); proficiency measures use
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
        if spec.measure.kind != "point":
            raise ParameterError(
                f"'{spec.base_label}' is a {spec.measure.kind.replace('topk', 'top-k')} measure: it reads scores "
                "over thresholds or ranks, and multilabel input is counted as sets of categories (no sweep); "
                "use point measures (precision, recall, f1, ...)."
            )
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
            f"average='samples' (--average samples; per-object means, Steingold & Laclavík (n.d., §4.4)) "
            f"is defined for "
            f"{', '.join(_SAMPLE_MEASURES)}; not for '{name}'."
        )
    k = _SAMPLE_MEASURES.index(name)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = tensor.object_sums[..., k] / tensor.object_counts[..., k]
    if undefined is not None:
        out = np.where(tensor.object_counts[..., k] > 0, out, float(undefined))
    return out
