"""Binary measures over (tp, fp, fn, tn): the core set.

Each measure is a numba ufunc with a float32 and a float64 loop (``_<name>_kernel``; the kernels
other kernels build on -- the four rates, MCC, K -- are in :mod:`fastmetrics.measures._binary_kernels`)
plus one :class:`Measure` record. The kernels return NaN exactly where the record's ``undefined_when``
says; :func:`fastmetrics.compute` turns that into a warning or into the caller's ``undefined=``
value.

Notation: ``n = tp + fp + fn + tn``, actual positives ``AP = tp + fn``, actual negatives
``AN = fp + tn``, predicted positives ``PP = tp + fp``, predicted negatives ``PN = fn + tn``;
recall ``ρ = tp/AP``, specificity ``σ = tn/AN``.
"""

from __future__ import annotations

import numpy as np

from . import _multiclass_kernels as _mc
from . import multilabel as _ml
from ._binary_kernels import k_kernel, mcc_kernel, npv_kernel, precision_kernel, recall_kernel, specificity_kernel
from ._kernels import NAN, binary_ufunc, entropy2, harmonic, mutual_information2, prob_ufunc, safe_div
from .registry import Measure, Param, register

JOINT = "joint"

SEBASTIANI_2015 = (
    "Sebastiani (2015), An Axiomatically Derived Measure for the Evaluation of Classification Algorithms, "
    "ICTIR, doi:10.1145/2808194.2809449"
)
STEINGOLD_LACLAVIK = (
    "Steingold & Laclavík (n.d.), An Information Theoretic Metric for Multi-Class Categorization, "
    "Magnetic Media Online (an undated manuscript)"
)
HAND_2021 = (
    "Hand, Christen & Kirielle (2021), F*: an interpretable transformation of the F-measure, "
    "Machine Learning, doi:10.1007/s10994-021-05964-1"
)
GOESGENS_2021 = (
    "Gösgens, Zhiyanov, Tikhonov & Prokhorenkova (2021), Good Classification Measures and How to Find Them, NeurIPS"
)
AMIGO_2019 = (
    "Amigó, Gonzalo, Verdejo & Spina (2019), A comparison of filtering evaluation metrics based on formal "
    "constraints, Information Retrieval Journal 22, doi:10.1007/s10791-019-09355-y"
)

CLASS_SYMMETRIC = "class_symmetric"  # unchanged when positive and negative swap: tp<->tn, fp<->fn
TRANSPOSE_SYMMETRIC = "transpose_symmetric"  # unchanged when gold and prediction swap: fp<->fn
SCALE_INVARIANT = "scale_invariant"  # unchanged when every count is multiplied by c > 0


# --- simple measures (Sebastiani 2015, Table 1) -------------------------------------------------------


@prob_ufunc()
def _precision_prob(r, s, p, v, g, q):
    return p


@prob_ufunc()
def _npv_prob(r, s, p, v, g, q):
    return v


@prob_ufunc()
def _f1_prob(r, s, p, v, g, q):
    return harmonic(p, r, 0.5)


@prob_ufunc(1)
def _fbeta_prob(r, s, p, v, g, q, beta):
    return harmonic(p, r, 1.0 / (1.0 + beta * beta))


@prob_ufunc()
def _jaccard_prob(r, s, p, v, g, q):
    f = harmonic(p, r, 0.5)
    return f / (2.0 - f)


@prob_ufunc()
def _recall_prob(r, s, p, v, g, q):
    return r


@prob_ufunc()
def _specificity_prob(r, s, p, v, g, q):
    return s


@prob_ufunc()
def _informedness_prob(r, s, p, v, g, q):
    # also K's: smoothed recall and specificity are defined on every non-empty test set
    return r + s - 1.0


@prob_ufunc()
def _balanced_accuracy_prob(r, s, p, v, g, q):
    return 0.5 * (r + s)


register(
    Measure(
        name="recall",
        proportion=(("tp",), ("tp", "fn")),
        kernel=recall_kernel,
        aliases=("tpr", "sensitivity", "hit_rate", "true_positive_rate", "recall_score"),
        summary="Fraction of actual positives predicted positive.",
        formula="tp / (tp + fn)",
        latex=r"\rho = \frac{TP}{TP + FN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="AP = tp + fn = 0 (no actual positive)",
        reference=SEBASTIANI_2015 + ", Table 1",
        smoothed=_recall_prob,
        properties=frozenset({SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="precision",
        proportion=(("tp",), ("tp", "fp")),
        kernel=precision_kernel,
        aliases=("ppv", "positive_predictive_value", "precision_score"),
        summary="Fraction of predicted positives that are actual positives.",
        formula="tp / (tp + fp)",
        latex=r"\pi = \frac{TP}{TP + FP}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="PP = tp + fp = 0 (nothing predicted positive)",
        reference=SEBASTIANI_2015 + ", Table 1",
        smoothed=_precision_prob,
        properties=frozenset({SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="specificity",
        proportion=(("tn",), ("fp", "tn")),
        kernel=specificity_kernel,
        aliases=("tnr", "inverse_recall", "true_negative_rate"),
        summary="Fraction of actual negatives predicted negative.",
        formula="tn / (fp + tn)",
        latex=r"\sigma = \frac{TN}{FP + TN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="AN = fp + tn = 0 (no actual negative)",
        reference=SEBASTIANI_2015 + ", Table 1",
        smoothed=_specificity_prob,
        properties=frozenset({SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="npv",
        proportion=(("tn",), ("fn", "tn")),
        kernel=npv_kernel,
        aliases=("inverse_precision", "negative_predictive_value"),
        summary="Fraction of predicted negatives that are actual negatives.",
        formula="tn / (fn + tn)",
        latex=r"NPV = \frac{TN}{FN + TN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="PN = fn + tn = 0 (nothing predicted negative)",
        reference=SEBASTIANI_2015 + ", Table 1",
        smoothed=_npv_prob,
        properties=frozenset({SCALE_INVARIANT}),
    )
)


# --- combined measures --------------------------------------------------------------------------


@binary_ufunc()
def _accuracy_kernel(tp, fp, fn, tn):
    return safe_div(tp + tn, tp + fp + fn + tn)


@binary_ufunc()
def _f1_kernel(tp, fp, fn, tn):
    # tp + tp is 2 tp to the bit, and keeps a float32 loop in float32 (a literal 2.0 is a float64)
    return safe_div(tp + tp, tp + tp + fp + fn)


@binary_ufunc(1)
def _fbeta_kernel(tp, fp, fn, tn, beta):
    b2 = beta * beta
    return safe_div((1.0 + b2) * tp, (1.0 + b2) * tp + b2 * fn + fp)


@binary_ufunc()
def _jaccard_kernel(tp, fp, fn, tn):
    return safe_div(tp, tp + fp + fn)


@binary_ufunc()
def _cohen_kappa_kernel(tp, fp, fn, tn):
    # (p_o - p_e) / (1 - p_e) multiplied through by n^2: no cancellation in 1 - p_e.
    den = (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)
    return safe_div(2.0 * (tp * tn - fn * fp), den)


@binary_ufunc()
def _balanced_accuracy_kernel(tp, fp, fn, tn):
    ap = tp + fn
    an = fp + tn
    if ap > 0.0 and an > 0.0:
        return 0.5 * (tp / ap + tn / an)
    if an > 0.0:
        return tn / an
    if ap > 0.0:
        return tp / ap
    return NAN


@binary_ufunc()
def _informedness_kernel(tp, fp, fn, tn):
    # NaN when a class is absent from gold: recall or specificity is undefined
    return recall_kernel(tp, fp, fn, tn) + specificity_kernel(tp, fp, fn, tn) - 1.0


@binary_ufunc()
def _proficiency_kernel(tp, fp, fn, tn):
    # in float64 in the float32 loop too: with nearly all items of one gold class the mutual
    # information and the entropy are both near 0, and float32's rounding of the ratios inside the
    # logarithms (and of sums past 2^24) moved their quotient by up to 0.06, below 0
    # (np.float64, not float(), which keeps float32; new names, as numba types a reassigned argument
    # as the argument)
    a, b, c, d = np.float64(tp), np.float64(fp), np.float64(fn), np.float64(tn)
    n = a + b + c + d
    if n == 0.0:
        return NAN
    h_actual = entropy2(a + c, b + d, n)
    if h_actual == 0.0:
        return NAN
    return mutual_information2(a, b, c, d) / h_actual


register(
    Measure(
        name="accuracy",
        proportion=(("tp", "tn"), ("tp", "fp", "fn", "tn")),
        kernel=_accuracy_kernel,
        multiclass=_mc.accuracy_mc,
        multiclass_formula="sum_i c_ii / n",
        aliases=("acc", "accuracy_score"),
        summary="Fraction of items classified correctly.",
        formula="(tp + tn) / n",
        latex=r"A = \frac{TP + TN}{TP + FP + FN + TN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="utility",
        undefined_when="n = 0 (empty test set)",
        reference=SEBASTIANI_2015 + ", Table 2",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="f1",
        kernel=_f1_kernel,
        aliases=("f_measure", "f1_score", "dice"),
        summary="Harmonic mean of precision and recall.",
        formula="2 tp / (2 tp + fp + fn)",
        latex=r"F_1 = \frac{2\,TP}{2\,TP + FP + FN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="tp = fp = fn = 0 (no actual and no predicted positive); Sebastiani (2015, §4) shows no value "
        "is right there, so it stays NaN",
        reference=SEBASTIANI_2015 + ", eq. 2",
        smoothed=_f1_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="fbeta",
        kernel=_fbeta_kernel,
        aliases=("f_beta", "fbeta_score"),
        params=(
            Param(
                "beta",
                1.0,
                "weight of recall relative to precision (recall counts beta times as much)",
                low=0.0,
                low_open=True,
            ),
        ),
        summary="Weighted harmonic mean of precision and recall.",
        formula="(1 + beta^2) tp / ((1 + beta^2) tp + beta^2 fn + fp)",
        latex=r"F_\beta = \frac{(1+\beta^2)\,TP}{(1+\beta^2)\,TP + \beta^2 FN + FP}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="tp = fp = fn = 0",
        reference=STEINGOLD_LACLAVIK + ", §1",
        smoothed=_fbeta_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="jaccard",
        kernel=_jaccard_kernel,
        aliases=("f_star", "critical_success_index", "threat_score", "jaccard_index", "jaccard_score"),
        summary="Jaccard coefficient of the actual and predicted positive sets; Hand's F* = F1/(2 - F1).",
        formula="tp / (tp + fp + fn)",
        latex=r"F^{*} = J = \frac{TP}{TP + FP + FN}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="tp = fp = fn = 0",
        reference=HAND_2021 + ", eq. 3",
        smoothed=_jaccard_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="mcc",
        kernel=mcc_kernel,
        multiclass=_mc.mcc_mc,
        multiclass_formula="(n sum_i c_ii - sum_i a_i b_i) / sqrt((n^2 - sum_i b_i^2)(n^2 - sum_i a_i^2)) "
        "(Gorodkin's R_K)",
        aliases=("phi", "matthews_corrcoef", "matthews"),
        summary="Matthews correlation coefficient (Pearson's phi of actual and predicted labels).",
        formula="(tp tn - fp fn) / sqrt((tp + fp)(tp + fn)(tn + fp)(tn + fn))",
        latex=r"MCC = \frac{TP\,TN - FP\,FN}{\sqrt{(TP+FP)(TP+FN)(TN+FP)(TN+FN)}}",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="any marginal is 0: no actual positive, no actual negative, nothing predicted positive "
        "or nothing predicted negative (scikit-learn returns 0 there; fastmetrics NaN)",
        reference=SEBASTIANI_2015 + ", Table 2; " + GOESGENS_2021 + ", Table 1",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="cohen_kappa",
        kernel=_cohen_kappa_kernel,
        multiclass=_mc.cohen_kappa_mc,
        multiclass_formula="(n sum_i c_ii - sum_i a_i b_i) / (n^2 - sum_i a_i b_i)",
        aliases=("kappa", "cohen_kappa_score"),
        summary="Cohen's kappa: agreement beyond the agreement expected from the marginals.",
        formula="2 (tp tn - fn fp) / ((tp + fp)(fp + tn) + (tp + fn)(fn + tn))",
        latex=r"\kappa = \frac{p_o - p_e}{1 - p_e} = \frac{2(TP\,TN - FN\,FP)}{(TP+FP)(FP+TN) + (TP+FN)(FN+TN)}",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="p_e = 1: gold and prediction are both constant and equal (e.g. all items tp), or n = 0",
        reference=GOESGENS_2021 + ", Table 1",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="balanced_accuracy",
        kernel=_balanced_accuracy_kernel,
        multiclass=_mc.balanced_accuracy_mc,
        multiclass_formula="mean over classes with a_i > 0 of c_ii / a_i",
        aliases=("maac", "macro_accuracy", "bacc", "balanced_accuracy_score"),
        summary="Mean recall over the classes present in the gold labels.",
        formula="(tp/AP + tn/AN) / 2; tn/AN if AP = 0; tp/AP if AN = 0",
        latex=r"BA = \frac{1}{2}\left(\frac{TP}{TP+FN} + \frac{TN}{TN+FP}\right)",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="n = 0; with one class absent from gold it is the recall of the class present "
        "(macro recall over present classes, as scikit-learn's balanced_accuracy_score)",
        reference=GOESGENS_2021 + ", Table 1; " + AMIGO_2019 + ", §4.2",
        smoothed=_balanced_accuracy_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="informedness",
        kernel=_informedness_kernel,
        aliases=("youden_j", "bookmaker", "bookmaker_informedness"),
        summary="Youden's J / bookmaker informedness: recall + specificity - 1.",
        formula="tp/AP + tn/AN - 1",
        latex=r"J = \rho + \sigma - 1",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="AP = 0 or AN = 0 (see `k` for the defined extension)",
        reference=SEBASTIANI_2015 + ", §5",
        smoothed=_informedness_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="k",
        kernel=k_kernel,
        multiclass=_mc.k_mc,
        multiclass_formula="m/(m-1) * mean_{i: a_i > 0} c_ii/a_i - 1/(m-1) (Sebastiani 2015, eq. 10)",
        aliases=("sebastiani_k", "k_measure"),
        summary="Sebastiani's K: recall + specificity - 1, defined on every test set.",
        formula="rho + sigma - 1 if AP > 0 and AN > 0; 2 sigma - 1 if AP = 0; 2 rho - 1 if AN = 0",
        latex=r"K = \begin{cases}\rho + \sigma - 1 & AP>0,\,AN>0\\ 2\sigma - 1 & AP = 0\\ "
        r"2\rho - 1 & AN = 0\end{cases}",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="n = 0 only (eq. 5 defines K when one class is absent)",
        reference=SEBASTIANI_2015 + ", eq. 5",
        smoothed=_informedness_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="proficiency",
        kernel=_proficiency_kernel,
        multilabel=_ml.multilabel_proficiency,
        multiclass=_mc.proficiency_mc,
        multiclass_formula="I(A; P) / H(A) over the m x m joint distribution, in bits (Steingold & Laclavík n.d., §3)",
        aliases=("uncertainty_coefficient", "alpha", "theil_u"),
        summary="Steingold's proficiency: share of the gold labels' entropy captured by the prediction.",
        formula="I(Actual; Predicted) / H(Actual), in bits",
        latex=r"\alpha = \frac{I(P; A)}{H(A)}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="H(Actual) = 0: gold has a single class (or n = 0). Note alpha = 1 also for the "
        "inverted (pervert) predictor, Steingold & Laclavík (n.d., §2.1)",
        reference=STEINGOLD_LACLAVIK + ", eq. 1",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)


@binary_ufunc()
def _permuted_proficiency_kernel(tp, fp, fn, tn):
    # One category (or single-label input): the only assignment is the identity, alpha' = alpha.
    return _proficiency_kernel(tp, fp, fn, tn)


register(
    Measure(
        name="permuted_proficiency",
        kernel=_permuted_proficiency_kernel,
        aliases=("alpha_prime",),
        multiclass=_mc.proficiency_mc,
        multilabel=_ml.multilabel_permuted_proficiency,
        multiclass_formula="equal to proficiency: mutual information is invariant to relabelling the predictions",
        summary="Steingold's permuted proficiency: multilabel proficiency after the best one-to-one matching "
        "of predicted to gold categories.",
        formula="sum_i I(M(Pc_i); Ac_i) / sum_i H(Ac_i), M maximising sum_i I (Munkres); binary and multiclass: "
        "= proficiency",
        latex=r"\alpha' = \frac{\sum_i I(M(Pc_i); Ac_i)}{\sum_i H(Ac_i)}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="every category has H(Ac_i) = 0 (each is in all gold sets or in none), or n = 0",
        reference=STEINGOLD_LACLAVIK + ", §4.3 and Table 1",
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
