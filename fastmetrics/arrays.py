"""scikit-learn-style entry point: measures from ``y_true`` and ``y_pred`` / ``y_score`` arrays.

:func:`score` builds the long table the count stage reads (one row per item) and runs the same
count -> evaluate path as every other input, so its values are those of ``fm.count(...).evaluate``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ._errors import (
    FastmetricsError,
    InputError,
    ParameterError,
    UndefinedMeasureWarning,
    refuse_sklearn_options,
)
from .count import count
from .io.labels import no_nans
from .measures.positive import has_positive
from .measures.registry import parse_specs
from .tensor import Scores

# the measures a call without measures= reports, by what the arrays are
DEFAULT_MEASURES = {
    "binary": ("precision", "recall", "f1", "accuracy", "mcc", "k"),
    "multiclass": ("accuracy", "balanced_accuracy", "f1@macro", "cohen_kappa", "mcc", "k"),
    "scores": ("roc_auc", "average_precision"),
    "probabilities": ("accuracy", "f1@macro", "top_k_accuracy(k=2)", "roc_auc@macro"),
}


def score(
    y_true,
    y_pred=None,
    *,
    y_score=None,
    measures=None,
    groups=None,
    sample_weight=None,
    thresholds=None,
    classes=None,
    pos_label=None,
    multiclass="ovr",
    **evaluate_options,
) -> Scores:
    """Measures of one classifier's predictions, as scikit-learn's metric functions take them.

    Parameters
    ----------
    y_true : array_like of shape (n,)
        Gold labels: a list, numpy array, pandas or polars Series, or Arrow array.
    y_pred : array_like of shape (n,), optional
        Hard predictions. Give ``y_pred`` or ``y_score``, not both.
    y_score : array_like of shape (n,) or (n, m), optional
        Scores of the positive class (binary), or one column of class probabilities per class
        (multiclass, columns in the order of ``classes``): predictions are then the argmax.
    measures : str or sequence of str, optional
        Measure specs (``"f1"``, ``"fbeta(beta=2)"``, ``"f1@macro"``, ``"roc_auc"``). Default:
        precision, recall, F1, accuracy, MCC and K for binary labels; accuracy, balanced
        accuracy, macro F1, Cohen's kappa, MCC and K for multiclass; ROC AUC and average
        precision for binary scores; accuracy, macro F1, top-2 accuracy and one-vs-rest macro
        ROC AUC for class probabilities.
    groups : mapping of str to array_like, or a DataFrame / pyarrow.Table, optional
        Grouping columns (e.g. ``{"model": ..., "fold": ...}``), one output axis each, in order.
    sample_weight : array_like of shape (n,), optional
        Item weights: weighted counts (scikit-learn's ``sample_weight``).
    thresholds : None, "exact", int or array_like, optional
        With ``y_score``: as in :func:`fastmetrics.count`. ``None`` gives the exact sweep, where
        curve measures (``roc_auc``, ``average_precision``) are exact; point measures then need a
        grid (``thresholds=k``) and give one value per threshold.
    classes : sequence, optional
        The class labels in order (multiclass; the column order of a 2-D ``y_score``).
    pos_label : scalar, optional
        The positive label: gold and predictions become ``label == pos_label``. Default as
        scikit-learn's ``pos_label=1``: 1 is positive where it is one of the labels; two labels
        without 1 (``ham``/``spam``) need it for measures that read a positive class
        (precision, recall, F1, ...), and get the multiclass default measures without it.
    multiclass : {"ovr", "ovo"}, default "ovr"
        Class probabilities: curve measures (``roc_auc@macro``) over one-vs-rest sweeps, or over
        one-vs-one sweeps (``roc_auc@macro`` is then Hand & Till's multiclass AUC). Point
        measures read the argmax predictions and ``top_k_accuracy(k)`` the gold class's rank.
    **evaluate_options
        Passed to :meth:`ConfusionTensor.evaluate` (``average=``, ``undefined=``, ``ci=``, ...).

    Returns
    -------
    Scores
        Over the ``groups`` axes (none without groups: ``s["f1"]`` is a 0-d array, ``float()``
        of it the value).

    Raises
    ------
    InputError
        Arrays of different lengths, missing labels, or labels that are not binary where a
        measure needs two classes.
    ParameterError
        Neither or both of ``y_pred`` and ``y_score``; an unknown measure.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> s = fm.score([0, 1, 1, 0, 1], [0, 1, 0, 0, 1], measures=["f1", "mcc"])
    >>> round(float(s["f1"]), 4)
    0.8
    """
    refuse_sklearn_options(evaluate_options, "score")
    if (y_pred is None) == (y_score is None):
        raise ParameterError("Give y_pred (hard predictions) or y_score (scores or probabilities), exactly one.")
    warn = evaluate_options.pop("warn", True)
    evaluate_options["warn"] = False  # one warning for the whole call, below
    # the columns are named as the arguments, so that an error about one names the argument
    columns = {"y_true": _column(y_true, "y_true")}
    n = len(columns["y_true"])
    by = _group_columns(groups, n, columns)
    probabilities = y_score is not None and _is_matrix(y_score)
    if y_pred is not None:
        columns["y_pred"] = _same_length(_column(y_pred, "y_pred"), n, "y_pred")
    elif probabilities:
        columns["y_score"] = _same_length(_probability_column(y_score), n, "y_score")
        if _width(columns["y_score"]) == 2 and classes is None:
            # binary predict_proba: the second column is the positive class's probability
            columns["y_score"] = pc.list_element(columns["y_score"], 1)
            probabilities = False
    else:
        columns["y_score"] = _same_length(_column(y_score, "y_score"), n, "y_score")
    for name in ("y_true", "y_pred"):
        if name in columns:
            no_nans(columns[name], name, None)
    if pos_label is None and not probabilities and y_score is not None:
        pos_label = _positive_of_two(columns["y_true"])
    if pos_label is not None:
        _binarise(columns, pos_label)
    table = pa.table(columns)  # no item column: each row is an item, none can repeat
    if sample_weight is not None:
        table = _weighted(table, _same_length(_column(sample_weight, "sample_weight"), n, "sample_weight"))
    options = dict(
        by=by,
        gold_column="y_true",
        pred="y_pred",
        score="y_score",
        weight="sample_weight" if sample_weight is not None else None,
        classes=classes,
    )
    if probabilities:
        specs = parse_specs(DEFAULT_MEASURES["probabilities"] if measures is None else measures)
        scores = _probability_scores(table, specs, thresholds, multiclass, options, evaluate_options)
    else:
        tensor = count(table, thresholds=thresholds, **options)
        if measures is None:
            # binary measures where a class is positive (0/1, booleans, 1 of two labels, pos_label)
            binary = tensor.m == 2 and has_positive(tensor.classes)
            measures = DEFAULT_MEASURES["scores" if y_pred is None else "binary" if binary else "multiclass"]
        scores = tensor.evaluate(measures, **evaluate_options)
    if warn and evaluate_options.get("undefined") is None:
        warn_undefined(scores)
    return scores


def warn_undefined(scores: Scores) -> None:
    """Warn once for all the undefined (NaN) cells of ``scores``.

    One :class:`UndefinedMeasureWarning`, as scikit-learn's ``UndefinedMetricWarning``: which
    measures, how many of their cells, and how to choose a number there.

    Parameters
    ----------
    scores : Scores
    """
    values = np.asarray(scores.values, dtype=float)
    parts = []
    for label, row in zip(scores.measures, values.reshape(len(scores.measures), -1)):
        n = int(np.count_nonzero(np.isnan(row)))
        if n:
            try:
                when = f" (undefined when {parse_specs(label)[0].measure.undefined_when})"
            except FastmetricsError:
                when = ""
            parts.append(f"{label} in {n} of {row.size} cell(s){when}")
    if parts:
        warnings.warn(
            f"Undefined, returned as NaN: {'; '.join(parts)}. Pass undefined=0 (scikit-learn's zero_division=0) "
            "or another number to choose the value there, or smoothing='laplace' where the measure allows it.",
            UndefinedMeasureWarning,
            stacklevel=3,
        )


def _width(lists: pa.Array):
    """The number of scores per item when every item has the same, else None."""
    if pa.types.is_fixed_size_list(lists.type):
        return lists.type.list_size
    lengths = pc.list_value_length(lists)
    low, high = pc.min_max(lengths).values()
    return low.as_py() if low.as_py() == high.as_py() else None


def _positive_of_two(gold: pa.Array):
    """Scores against labels other than 0/1 and booleans: the greater of the two labels is the
    positive class (scikit-learn's ``roc_auc_score`` reads string targets so)."""
    if pa.types.is_boolean(gold.type):
        return None
    labels = pc.unique(gold.drop_null()).to_pylist()
    if set(labels) <= {0, 1}:
        return None
    if len(labels) != 2:
        raise InputError(
            f"y_score scores one class against the rest, but y_true has {len(labels)} labels "
            f"({', '.join(map(str, sorted(labels)[:6]))}): give pos_label=, or one score column per class."
        )
    return max(labels)


def _weighted(table: pa.Table, weight: pa.Array) -> pa.Table:
    """The table with its ``sample_weight`` column (a zero-weight item adds nothing to any count,
    but its labels are classes, as in scikit-learn)."""
    if not (pa.types.is_integer(weight.type) or pa.types.is_floating(weight.type)) or weight.null_count:
        raise InputError(f"sample_weight must hold numbers, without missing values; got type {weight.type}.")
    values = weight.cast(pa.float64()).to_numpy(zero_copy_only=False)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        row = int(np.argmax(bad))
        raise InputError(f"sample_weight must be finite and >= 0; item {row} has {values[row]}.")
    return table.append_column("sample_weight", weight.cast(pa.float64()))


def _probability_scores(table, specs, thresholds, multiclass, options, evaluate_options) -> Scores:
    """Each measure on the count of class probabilities it reads (argmax counts, the gold class's
    rank, one-vs-rest or one-vs-one sweeps), joined into one Scores over the group axes."""
    average = evaluate_options.get("average")
    if average in ("macro", "weighted"):  # the class average of a curve measure is its @macro / @weighted
        specs = [replace(s, average=average) if s.measure.kind == "curve" and s.average is None else s for s in specs]
    forms = {"point": None, "topk": "topk", "curve": "exact" if thresholds is None else thresholds}
    wrong = [s.label for s in specs if s.measure.kind not in forms]
    if wrong:
        raise ParameterError(f"{', '.join(wrong)} cannot be computed from multiclass probabilities.")
    parts = []
    for kind, form in forms.items():
        asked = [s for s in specs if s.measure.kind == kind]
        if asked:
            tensor = count(table, thresholds=form, multiclass=multiclass, **options)
            parts.append((asked, tensor.evaluate(asked, **evaluate_options)))
    first = parts[0][1]
    if any(p.axes != first.axes for _, p in parts):
        raise ParameterError("Per-class values (@none) cannot share one Scores with averaged ones: score them apart.")
    order = {id(s): i for i, s in enumerate(specs)}
    rows = sorted(
        ((order[id(s)], label, j, p) for asked, p in parts for j, (s, label) in enumerate(zip(asked, p.measures))),
        key=lambda r: r[0],
    )
    bounds = {}
    if all(r[3].low is not None for r in rows):  # evaluate(ci=) gives every part its bounds, or refuses
        bounds = {k: np.stack([getattr(r[3], k)[r[2]] for r in rows]) for k in ("low", "high")}
    return Scores(np.stack([r[3].values[r[2]] for r in rows]), [r[1] for r in rows], first.axes, first.coords, **bounds)


def _binarise(columns: dict, pos_label) -> None:
    """Gold (and predictions) as ``label == pos_label``."""
    for name in ("y_true", "y_pred"):
        if name in columns:
            array = columns[name]
            try:
                columns[name] = pc.equal(array, pa.scalar(pos_label, array.type)).fill_null(False)
            except (pa.ArrowException, TypeError, ValueError):
                columns[name] = pa.array(np.asarray(array.to_pylist(), dtype=object) == pos_label)
    if not (pc.any(columns["y_true"]).as_py() or ("y_pred" in columns and pc.any(columns["y_pred"]).as_py())):
        raise InputError(f"pos_label={pos_label!r} is not among the labels of y_true or y_pred.")


def _column(values, name: str) -> pa.Array:
    """One input array as a flat Arrow array (lists, numpy, pandas, polars, Arrow)."""
    if isinstance(values, pa.ChunkedArray):
        return values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    if hasattr(values, "to_arrow") and not isinstance(values, np.ndarray):  # polars Series
        return _column(values.to_arrow(), name)
    if name in ("y_true", "y_pred"):
        _no_nan_among_labels(values, name)
    try:
        array = pa.array(values, from_pandas=True) if hasattr(values, "iloc") else pa.array(np.asarray(values))
    except (pa.ArrowException, TypeError, ValueError) as exc:
        raise InputError(f"{name} could not be read as one column of labels or numbers: {exc}") from None
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if pa.types.is_list(array.type) or pa.types.is_fixed_size_list(array.type):
        raise InputError(f"{name} must be one-dimensional; got nested values of type {array.type}.")
    return array


def _no_nan_among_labels(values, name: str) -> None:
    """Refuse a float NaN in a list or object array of labels, naming its row: numpy would make
    it the text 'nan' beside text labels, a class of its own."""
    if not (isinstance(values, (list, tuple)) or (isinstance(values, np.ndarray) and values.dtype == object)):
        return
    row = next((i for i, v in enumerate(values) if isinstance(v, float) and v != v), None)
    if row is not None:
        raise InputError(
            f"Column '{name}' has a NaN label at row {row}: labels are classes; drop the row or give it a class."
        )


def _is_matrix(values) -> bool:
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return pa.types.is_list(values.type) or pa.types.is_fixed_size_list(values.type)
    if hasattr(values, "iloc") or hasattr(values, "to_arrow"):
        return len(getattr(values, "shape", ())) == 2  # pandas / polars DataFrame
    try:
        return np.ndim(values) == 2
    except ValueError:  # ragged nested lists
        raise InputError("y_score is nested but ragged: give one row of m class scores per item.") from None


def _probability_column(values) -> pa.Array:
    """A 2-D ``(n, m)`` score matrix as a list<float64> column (one list of m scores per item)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if isinstance(values, pa.Array):
        return values
    try:
        matrix = np.asarray(values.to_numpy() if hasattr(values, "to_numpy") else values, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InputError(f"y_score could not be read as an (n, m) matrix of class scores: {exc}") from None
    n, m = matrix.shape
    return pa.FixedSizeListArray.from_arrays(pa.array(matrix.reshape(-1)), m)


def _same_length(array: pa.Array, n: int, name: str) -> pa.Array:
    if len(array) != n:
        raise InputError(f"{name} has {len(array)} values; y_true has {n}: one value per item is expected.")
    return array


def _group_columns(groups, n: int, columns: dict) -> tuple[str, ...]:
    """Add the grouping columns to ``columns``; return their names in order."""
    if groups is None:
        return ()
    if isinstance(groups, pa.Table):
        groups = {name: groups.column(name) for name in groups.column_names}
    elif not isinstance(groups, Mapping):
        if not hasattr(groups, "columns"):
            raise ParameterError(
                f"groups must be a mapping of column name to values, or a DataFrame; got {type(groups).__name__}."
            )
        groups = {str(name): groups[name] for name in groups.columns}
    reserved = sorted(set(groups) & {"y_true", "y_pred", "y_score", "sample_weight"})
    if reserved:
        raise ParameterError(f"Group name(s) {', '.join(reserved)} are used for the item columns; rename them.")
    for name, values in groups.items():
        columns[name] = _same_length(_column(values, f"groups[{name!r}]"), n, f"groups[{name!r}]")
    return tuple(groups)
