"""scikit-learn's scorer strings (``sklearn.metrics.get_scorer_names()``) read as measure specs.

Its metric functions (``f1_score``, ``roc_auc_score``, ``cohen_kappa_score``, ...) are aliases in
the measures' records. A scorer string adds an averaging (``f1_macro``), a one-vs-one sweep
(``roc_auc_ovo``) or a sign (``neg_brier_score``) to a name; this module reads those:
``f1_macro`` is ``f1@macro``, ``roc_auc_ovr_weighted`` is ``roc_auc@weighted``.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .._errors import ParameterError

# "<measure>_<average>": f1_macro, precision_weighted, jaccard_samples, recall_micro
_AVERAGED = re.compile(r"^(?P<name>.+?)_(?P<average>macro|micro|weighted|samples)$")
# ROC AUC of class probabilities: one-vs-rest or one-vs-one sweeps (fm.score's multiclass=),
# macro or weighted by prevalence
_ROC_AUC = {
    "roc_auc_ovr": ("roc_auc@macro", "ovr"),
    "roc_auc_ovr_weighted": ("roc_auc@weighted", "ovr"),
    "roc_auc_ovo": ("roc_auc@macro", "ovo"),
    "roc_auc_ovo_weighted": ("roc_auc@weighted", "ovo"),
}
_NEGATED = re.compile(r"^neg_(?P<name>.+?)(?:_score)?$")


def scorer(text: str, known: Callable[[str], bool]) -> tuple[str, dict] | None:
    """The measure spec and ``fm.score`` options of a scikit-learn scorer string.

    Parameters
    ----------
    text : str
        A scorer string (``"f1_macro"``, ``"roc_auc_ovo"``, ``"neg_brier_score"``).
    known : callable
        Whether a name is a registered measure or alias.

    Returns
    -------
    (str, dict) or None
        ``("f1@macro", {})``, ``("roc_auc@macro", {"multiclass": "ovo"})``; ``neg_X`` gives the
        spec of ``X`` (a scorer of a loss is negated by ``greater_is_better``, as scikit-learn's
        is). None where ``text`` is not a scorer string of a registered measure.
    """
    key = text.strip().lower()
    if key in _ROC_AUC:
        spec, multiclass = _ROC_AUC[key]
        return spec, {"multiclass": multiclass}
    negated = _NEGATED.match(key)
    if negated:
        for name in (negated["name"], negated["name"] + "_score"):
            if known(name):
                return name, {}
        return None
    averaged = _AVERAGED.match(key)
    if averaged and known(averaged["name"]):
        return f"{averaged['name']}@{averaged['average']}", {}
    return None


def as_spec(text: str, known: Callable[[str], bool]) -> str:
    """A measure spec for ``text``: itself, or the spec of the scikit-learn scorer string it is.

    Raises
    ------
    ParameterError
        A scorer string that is more than a spec: a negated loss (fastmetrics reports the loss
        itself), or a one-vs-one ROC AUC (an option of ``fm.score``).
    """
    if known(text.strip().lower()):
        return text
    found = scorer(text, known)
    if found is None:
        return text
    spec, options = found
    if text.strip().lower().startswith("neg_"):
        raise ParameterError(
            f"{text!r} is scikit-learn's scorer of the negated {spec}; fastmetrics reports {spec} itself "
            f"(lower is better): ask for {spec!r}, or use fm.sklearn.make_scorer({text!r}) for a scorer."
        )
    if options.get("multiclass") == "ovo":
        raise ParameterError(
            f"{text!r} is ROC AUC over one-vs-one sweeps: fm.score(y, y_score=probabilities, "
            f"measures={spec!r}, multiclass='ovo'), or fm.sklearn.make_scorer({text!r})."
        )
    return spec
