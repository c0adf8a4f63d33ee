"""Complementary rates of Sebastiani (2015, Table 1), class priors, and the raw counts.

See :mod:`fastmetrics.measures.binary` for the notation.
"""

from __future__ import annotations

from ._kernels import binary_ufunc, prob_ufunc, safe_div
from .binary import AMIGO_2019, CLASS_SYMMETRIC, JOINT, SCALE_INVARIANT, SEBASTIANI_2015, TRANSPOSE_SYMMETRIC
from .registry import Measure, register


@binary_ufunc()
def _fnr_kernel(tp, fp, fn, tn):
    return safe_div(fn, tp + fn)


@binary_ufunc()
def _fdr_kernel(tp, fp, fn, tn):
    return safe_div(fp, tp + fp)


@binary_ufunc()
def _fallout_kernel(tp, fp, fn, tn):
    return safe_div(fp, fp + tn)


@binary_ufunc()
def _elusion_kernel(tp, fp, fn, tn):
    return safe_div(fn, fn + tn)


@binary_ufunc()
def _error_rate_kernel(tp, fp, fn, tn):
    return safe_div(fp + fn, tp + fp + fn + tn)


@binary_ufunc()
def _prevalence_kernel(tp, fp, fn, tn):
    return safe_div(tp + fn, tp + fp + fn + tn)


@binary_ufunc()
def _predicted_positive_rate_kernel(tp, fp, fn, tn):
    return safe_div(tp + fp, tp + fp + fn + tn)


@prob_ufunc()
def _fdr_prob(r, s, p, v, g, q):
    return 1.0 - p


@prob_ufunc()
def _elusion_prob(r, s, p, v, g, q):
    return 1.0 - v


@prob_ufunc()
def _fnr_prob(r, s, p, v, g, q):
    return 1.0 - r


@prob_ufunc()
def _fallout_prob(r, s, p, v, g, q):
    return 1.0 - s


_PROPORTIONS = {
    "fnr": (("fn",), ("tp", "fn")),
    "fdr": (("fp",), ("tp", "fp")),
    "fallout": (("fp",), ("fp", "tn")),
    "elusion": (("fn",), ("fn", "tn")),
    "error_rate": (("fp", "fn"), ("tp", "fp", "fn", "tn")),
    "prevalence": (("tp", "fn"), ("tp", "fp", "fn", "tn")),
    "predicted_positive_rate": (("tp", "fp"), ("tp", "fp", "fn", "tn")),
}
_PROB_FORMS = {"fdr": _fdr_prob, "elusion": _elusion_prob, "fnr": _fnr_prob, "fallout": _fallout_prob}


def _rate(
    name,
    kernel,
    aliases,
    summary,
    formula,
    latex,
    undefined,
    reference,
    higher=False,
    family="class-oriented",
    flags=(),
):
    register(
        Measure(
            name=name,
            kernel=kernel,
            aliases=aliases,
            summary=summary,
            formula=formula,
            latex=latex,
            range=(0.0, 1.0),
            higher_is_better=higher,
            family=family,
            undefined_when=undefined,
            reference=reference,
            smoothed=_PROB_FORMS.get(name, JOINT),
            proportion=_PROPORTIONS.get(name),
            properties=frozenset({SCALE_INVARIANT, *flags}),
        )
    )


_rate(
    "fnr",
    _fnr_kernel,
    ("miss_rate", "false_negative_rate"),
    "Fraction of actual positives predicted negative (1 - recall).",
    "fn / (tp + fn)",
    r"FNR = \frac{FN}{TP + FN}",
    "AP = 0",
    SEBASTIANI_2015 + ", Table 1",
)
_rate(
    "fdr",
    _fdr_kernel,
    ("false_discovery_rate", "false_alarm_rate"),
    "Fraction of predicted positives that are actual negatives (1 - precision).",
    "fp / (tp + fp)",
    r"FDR = \frac{FP}{TP + FP}",
    "PP = 0",
    SEBASTIANI_2015 + ", Table 1",
)
_rate(
    "fallout",
    _fallout_kernel,
    ("fpr", "false_positive_rate"),
    "Fraction of actual negatives predicted positive (1 - specificity).",
    "fp / (fp + tn)",
    r"\phi = \frac{FP}{FP + TN}",
    "AN = 0",
    SEBASTIANI_2015 + ", Table 1",
)
_rate(
    "elusion",
    _elusion_kernel,
    ("false_omission_rate", "for"),
    "Fraction of predicted negatives that are actual positives (1 - npv).",
    "fn / (fn + tn)",
    r"\epsilon = \frac{FN}{FN + TN}",
    "PN = 0",
    SEBASTIANI_2015 + ", Table 1",
)
_rate(
    "error_rate",
    _error_rate_kernel,
    ("err", "zero_one_loss", "hamming_loss"),
    "Fraction of items misclassified (1 - accuracy).",
    "(fp + fn) / n",
    r"Err = \frac{FP + FN}{n}",
    "n = 0",
    AMIGO_2019 + ", §4.1",
    family="utility",
    flags=(CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC),
)
_rate(
    "prevalence",
    _prevalence_kernel,
    ("base_rate", "p_g"),
    "Fraction of actual positives, P(G) (descriptive; not a quality measure).",
    "(tp + fn) / n",
    r"P(\mathcal{G}) = \frac{TP + FN}{n}",
    "n = 0",
    AMIGO_2019 + ", §3.1",
    higher=True,
    family="none",
)
_rate(
    "predicted_positive_rate",
    _predicted_positive_rate_kernel,
    ("p_s", "positive_rate"),
    "Fraction of items predicted positive, P(S) (descriptive; not a quality measure).",
    "(tp + fp) / n",
    r"P(\mathcal{S}) = \frac{TP + FP}{n}",
    "n = 0",
    AMIGO_2019 + ", §3.1",
    higher=True,
    family="none",
)


@binary_ufunc()
def _tp_kernel(tp, fp, fn, tn):
    return tp


@binary_ufunc()
def _fp_kernel(tp, fp, fn, tn):
    return fp


@binary_ufunc()
def _fn_kernel(tp, fp, fn, tn):
    return fn


@binary_ufunc()
def _tn_kernel(tp, fp, fn, tn):
    return tn


@binary_ufunc()
def _n_kernel(tp, fp, fn, tn):
    return tp + fp + fn + tn


for _name, _kernel, _summary, _higher, _flags in (
    ("tp", _tp_kernel, "True positives, c11.", True, (TRANSPOSE_SYMMETRIC,)),
    ("fp", _fp_kernel, "False positives, c01.", False, ()),
    ("fn", _fn_kernel, "False negatives, c10.", False, ()),
    ("tn", _tn_kernel, "True negatives, c00.", True, (TRANSPOSE_SYMMETRIC,)),
    ("n", _n_kernel, "Number (or total weight) of items.", True, (CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC)),
):
    register(
        Measure(
            name=_name,
            kernel=_kernel,
            summary=_summary,
            formula=_name if _name != "n" else "tp + fp + fn + tn",
            latex=_name.upper(),
            range=(0.0, float("inf")),
            higher_is_better=_higher,
            family="descriptive",
            undefined_when="never",
            reference="a cell of the confusion matrix counts[..., i, j] (row: gold class i, column: predicted class j)",
            properties=frozenset({*_flags}),
        )
    )
