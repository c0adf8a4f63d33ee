"""scikit-learn scorers from fastmetrics measures: ``GridSearchCV(..., scoring=fm.sklearn.make_scorer("k"))``.

Needs scikit-learn (not a dependency of fastmetrics itself).
"""

from __future__ import annotations

import math

from ._errors import ParameterError
from .arrays import score
from .measures import registry, scorers

try:
    from sklearn.metrics import make_scorer as _sklearn_make_scorer
except ImportError as exc:  # pragma: no cover - exercised only without scikit-learn
    raise ImportError("fastmetrics.sklearn needs scikit-learn: pip install scikit-learn") from exc

__all__ = ["make_scorer"]


def make_scorer(measure, *, undefined=None, pos_label=None, **options):
    """A scikit-learn scorer computing one fastmetrics measure.

    Parameters
    ----------
    measure : str
        One measure spec (``"k"``, ``"fbeta(beta=2)"``, ``"f1@macro"``, ``"roc_auc"``), or a
        scikit-learn metric name or scorer string (``"f1_score"``, ``"f1_macro"``,
        ``"roc_auc_ovr_weighted"``, ``"neg_brier_score"``): the scorer then gives what
        scikit-learn's ``get_scorer`` of that string gives.
    undefined : float, optional
        The score of a fold where the measure is undefined (e.g. MCC when a fold's predictions
        are all one class). Default ``None``: NaN, which scikit-learn's searches rank last and
        warn about (``GridSearchCV`` keeps running; ``cross_val_score`` returns the NaN). Give
        a value (e.g. ``0.0`` or the measure's worst) to rank such folds as that value instead.
    pos_label : scalar, optional
        The positive label of binary targets other than 0/1 and booleans.
    **options
        More options of :func:`fastmetrics.score` (``average=``, ``smoothing=``, ...).

    Returns
    -------
    callable
        A scorer ``scorer(estimator, X, y)`` (``sklearn.metrics.make_scorer``), with
        ``greater_is_better`` read from the measure's record. Point measures score
        ``predict``'s output; binary curve measures (``roc_auc``, ``average_precision``, ...)
        ``decision_function`` or, failing that, ``predict_proba`` (the positive class's column);
        calibration measures (``brier``, ``ece``), ``top_k_accuracy`` and curve measures averaged
        over classes (``roc_auc@macro`` of a multiclass model) ``predict_proba``.

    Raises
    ------
    ParameterError
        An unknown measure, several measures, or a ranking measure (it needs topics of ranked
        lists, which one estimator's predictions do not have).
    """
    # scikit-learn's scorer strings: "f1_macro", "roc_auc_ovo", "neg_brier_score" (a loss is negated by
    # greater_is_better below, as scikit-learn's own scorer negates it)
    found = scorers.scorer(measure, registry.is_known) if isinstance(measure, str) else None
    if found is not None and not registry.is_known(measure):
        measure, options = found[0], {**found[1], **options}
    if undefined is not None:
        options["warn"] = False  # the scorer chooses the number itself
    specs = registry.parse_specs(measure)
    if len(specs) != 1:
        raise ParameterError(f"A scorer computes one measure; got {len(specs)}: {measure!r}.")
    spec = specs[0]
    if spec.measure.kind == "ranking":
        raise ParameterError(f"{spec.base_label} reads ranked lists per topic; a scorer sees one set of predictions.")
    if undefined is not None and (not isinstance(undefined, int | float) or math.isnan(undefined)):
        raise ParameterError(f"undefined must be a number; got {undefined!r}.")
    by_score = spec.measure.kind != "point"
    label = spec.label
    # probabilities where the measure reads them as such (calibration, top-k, averages over classes
    # of multiclass probabilities); a monotone decision function is as good for a binary curve
    wants_probabilities = spec.measure.kind in ("calibration", "topk") or spec.average in ("macro", "weighted")
    if not by_score:
        response_method = "predict"
    elif wants_probabilities:
        response_method = "predict_proba"
    else:
        response_method = ("decision_function", "predict_proba")

    # scikit-learn passes pos_label back to the function and uses it to pick the probability column
    def score_func(y_true, y_out, sample_weight=None, pos_label=None):
        arrays = {"y_score" if by_score else "y_pred": y_out}
        scores = score(y_true, **arrays, measures=[label], sample_weight=sample_weight, pos_label=pos_label, **options)
        if scores.values.size != 1:
            raise ParameterError(
                f"{label} gives {scores.values.size} values ({', '.join(scores.axes)}); a scorer needs one number: "
                "average it (@macro, @weighted)."
            )
        value = float(scores.values.reshape(-1)[0])
        return float(undefined) if math.isnan(value) and undefined is not None else value

    score_func.__name__ = f"fastmetrics_{spec.measure.name}"
    return _sklearn_make_scorer(
        score_func,
        greater_is_better=spec.higher_is_better,
        response_method=response_method,
        **({} if pos_label is None else {"pos_label": pos_label}),
    )
