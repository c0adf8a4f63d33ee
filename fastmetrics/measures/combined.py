"""Combined binary measures of Sebastiani (2015), Hand et al. (2021) and Amigó et al. (2019):
odds ratio, LAM%, ASP, E/F_alpha, F', markedness, chi, utilities, mutual information and Reliability/Sensitivity.

See :mod:`fastmetrics.measures.binary` for the notation.
"""

from __future__ import annotations

import math

from . import _multiclass_kernels as _mc
from ._binary_kernels import mutual_information_kernel, npv_kernel, precision_kernel, recall_kernel, specificity_kernel
from ._kernels import NAN, binary_ufunc, harmonic, prob_ufunc, safe_div, unit_scale
from .binary import (
    AMIGO_2019,
    CLASS_SYMMETRIC,
    HAND_2021,
    JOINT,
    SCALE_INVARIANT,
    SEBASTIANI_2015,
    TRANSPOSE_SYMMETRIC,
)
from .registry import Measure, Param, register

INF = float("inf")


@binary_ufunc()
def _dor_kernel(tp, fp, fn, tn):
    return safe_div(tp * tn, fp * fn)


@binary_ufunc()
def _lam_kernel(tp, fp, fn, tn):
    # logit^-1 of the mean logit of the two error rates, in closed form: with x = fn/AP and
    # y = fp/AN, sqrt(x y) / (sqrt(x y) + sqrt((1 - x)(1 - y))) = sqrt(fn fp) / (sqrt(fn fp) +
    # sqrt(tp tn)) -- the common factor 1 / sqrt(AP AN) cancels, and with it two divisions.
    s = unit_scale(tp + fp + fn + tn)
    tp, fp, fn, tn = tp * s, fp * s, fn * s, tn * s
    if tp + fn == 0.0 or fp + tn == 0.0:
        return NAN
    bad = math.sqrt(fn * fp)
    return safe_div(bad, bad + math.sqrt(tp * tn))


@binary_ufunc()
def _asp_kernel(tp, fp, fn, tn):
    return safe_div(tp * tp, (tp + fn) * (tp + fp))


@binary_ufunc(1)
def _f_alpha_kernel(tp, fp, fn, tn, alpha):
    return safe_div(tp, alpha * (tp + fp) + (1.0 - alpha) * (tp + fn))


@binary_ufunc(1)
def _e_alpha_kernel(tp, fp, fn, tn, alpha):
    return 1.0 - _f_alpha_kernel(tp, fp, fn, tn, alpha)


@binary_ufunc()
def _f_prime_kernel(tp, fp, fn, tn):
    return safe_div(tp, fp + fn)


@binary_ufunc()
def _markedness_kernel(tp, fp, fn, tn):
    return precision_kernel(tp, fp, fn, tn) + npv_kernel(tp, fp, fn, tn) - 1.0


@binary_ufunc()
def _chi_kernel(tp, fp, fn, tn):
    tpr = recall_kernel(tp, fp, fn, tn)
    tnr = specificity_kernel(tp, fp, fn, tn)
    return (tpr * tnr - (1.0 - tnr) * (1.0 - tpr) + 1.0) / 2.0


@binary_ufunc(4)
def _utility_kernel(tp, fp, fn, tn, a1, a2, a3, a4):
    return a1 * tp + a2 * tn - a3 * fp - a4 * fn


@binary_ufunc()
def _t11su_kernel(tp, fp, fn, tn):
    nu = safe_div(2.0 * tp - fp, 2.0 * (tp + fn))
    if nu != nu:
        return NAN
    return (max(nu, -0.5) + 0.5) / 1.5


@binary_ufunc(1)
def _weighted_accuracy_kernel(tp, fp, fn, tn, lam):
    return safe_div(lam * tp + tn, lam * (tp + fn) + tn + fp)


@binary_ufunc()
def _reliability_kernel(tp, fp, fn, tn):
    return precision_kernel(tp, fp, fn, tn) * npv_kernel(tp, fp, fn, tn)


@binary_ufunc()
def _sensitivity_rs_kernel(tp, fp, fn, tn):
    return recall_kernel(tp, fp, fn, tn) * specificity_kernel(tp, fp, fn, tn)


@binary_ufunc(1)
def _f_rs_kernel(tp, fp, fn, tn, alpha):
    # harmonic(R, S, alpha) over one quotient: R = tp tn / (PP PN) and S = tp tn / (AP AN), so
    # 1 / (alpha / R + (1 - alpha) / S) = tp tn / (alpha PP PN + (1 - alpha) AP AN); NaN where R or
    # S is undefined, 0 where either is 0 (harmonic's conventions)
    s = unit_scale(tp + fp + fn + tn)
    tp, fp, fn, tn = tp * s, fp * s, fn * s, tn * s
    predicted = (tp + fp) * (fn + tn)
    actual = (tp + fn) * (fp + tn)
    joint = tp * tn
    if predicted == 0.0 or actual == 0.0:
        return NAN
    return 0.0 if joint == 0.0 else joint / (alpha * predicted + (1.0 - alpha) * actual)


# probability forms (Amigó et al. 2019, §5): measures of precision/npv, or of recall and specificity alone
# (those stay defined under smoothing when a gold class is absent, which a rebuilt joint would not)
@prob_ufunc()
def _dor_prob(r, s, p, v, g, q):
    return safe_div(r * s, (1.0 - r) * (1.0 - s))


@prob_ufunc()
def _lam_prob(r, s, p, v, g, q):
    bad = math.sqrt((1.0 - r) * (1.0 - s))
    good = math.sqrt(r * s)
    return safe_div(bad, bad + good)


@prob_ufunc()
def _chi_prob(r, s, p, v, g, q):
    return (r * s - (1.0 - s) * (1.0 - r) + 1.0) / 2.0


@prob_ufunc()
def _sensitivity_rs_prob(r, s, p, v, g, q):
    return r * s


@prob_ufunc()
def _asp_prob(r, s, p, v, g, q):
    return p * r


@prob_ufunc(1)
def _f_alpha_prob(r, s, p, v, g, q, alpha):
    return harmonic(p, r, alpha)


@prob_ufunc(1)
def _e_alpha_prob(r, s, p, v, g, q, alpha):
    return 1.0 - _f_alpha_prob(r, s, p, v, g, q, alpha)


@prob_ufunc()
def _f_prime_prob(r, s, p, v, g, q):
    f = harmonic(p, r, 0.5)
    return safe_div(f, 2.0 * (1.0 - f))


@prob_ufunc()
def _markedness_prob(r, s, p, v, g, q):
    return p + v - 1.0


@prob_ufunc()
def _reliability_prob(r, s, p, v, g, q):
    return p * v


@prob_ufunc(1)
def _f_rs_prob(r, s, p, v, g, q, alpha):
    return harmonic(p * v, r * s, alpha)


ALPHA = Param("alpha", 0.5, "weight of the first component in the weighted harmonic mean", low=0.0, high=1.0)
ALPHA_F = Param("alpha", 0.5, "weight of precision (1 - alpha weighs recall)", low=0.0, high=1.0)

register(
    Measure(
        name="dor",
        kernel=_dor_kernel,
        aliases=("odds_ratio", "diagnostic_odds_ratio"),
        summary="Diagnostic odds ratio.",
        formula="(tp tn) / (fp fn)",
        latex=r"DOR = \frac{TP\,TN}{FP\,FN}",
        range=(0.0, INF),
        higher_is_better=True,
        family="informativeness",
        undefined_when="fp = 0 or fn = 0 (Sebastiani 2015, Property 4.9: not defined for FP = 0 or FN = 0)",
        reference=SEBASTIANI_2015 + ", Table 2; " + AMIGO_2019 + ", §4.2",
        smoothed=_dor_prob,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="lam",
        kernel=_lam_kernel,
        aliases=("lam_percent", "lam%", "logistic_average_misclassification"),
        summary="Logistic average misclassification rate (LAM%): inverse logit of the mean logit of FNR and FPR.",
        formula="logit^-1((logit(fn/AP) + logit(fp/AN)) / 2)",
        latex=r"lam\% = \mathrm{logit}^{-1}\left(\frac{\mathrm{logit}(P(\lnot S|G)) + "
        r"\mathrm{logit}(P(S|\lnot G))}{2}\right)",
        range=(0.0, 1.0),
        higher_is_better=False,
        family="informativeness",
        undefined_when="AP = 0 or AN = 0, or one error rate is 0 while the other is 1 (logit -inf + inf)",
        reference=AMIGO_2019 + ", §4.2",
        smoothed=_lam_prob,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="asp",
        kernel=_asp_kernel,
        aliases=("asymmetric_precision",),
        summary="Product of precision and recall.",
        formula="tp^2 / (AP PP)",
        latex=r"ASP = \frac{TP^2}{AP \cdot PP}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="AP = 0 or PP = 0",
        reference=SEBASTIANI_2015 + ", Table 2",
        smoothed=_asp_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="f_alpha",
        kernel=_f_alpha_kernel,
        params=(ALPHA_F,),
        summary="Van Rijsbergen's F: weighted harmonic mean of precision (weight alpha) and recall.",
        formula="tp / (alpha PP + (1 - alpha) AP) = 1 / (alpha/P + (1 - alpha)/R)",
        latex=r"F_\alpha = \frac{1}{\frac{\alpha}{P} + \frac{1-\alpha}{R}}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="alpha PP + (1 - alpha) AP = 0",
        reference=AMIGO_2019 + ", §4.3",
        smoothed=_f_alpha_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="e_alpha",
        kernel=_e_alpha_kernel,
        params=(ALPHA_F,),
        aliases=("van_rijsbergen_e", "e_measure"),
        summary="Van Rijsbergen's effectiveness E = 1 - F_alpha (an error: lower is better).",
        formula="1 - tp / (alpha PP + (1 - alpha) AP)",
        latex=r"E_\alpha = 1 - \frac{1}{\alpha\frac{1}{\pi} + (1-\alpha)\frac{1}{\rho}}",
        range=(0.0, 1.0),
        higher_is_better=False,
        family="class-oriented",
        undefined_when="alpha PP + (1 - alpha) AP = 0",
        reference=SEBASTIANI_2015 + ", eq. 1",
        smoothed=_e_alpha_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="f_prime",
        kernel=_f_prime_kernel,
        summary="Hand's F' = F/(2(1 - F)) = tp/(fp + fn): true positives per misclassified item.",
        formula="tp / (fp + fn)",
        latex=r"F' = \frac{F}{2(1-F)} = \frac{TP}{FP + FN}",
        range=(0.0, INF),
        higher_is_better=True,
        family="class-oriented",
        undefined_when="fp + fn = 0 (a perfect prediction: the ratio diverges)",
        reference=HAND_2021,
        smoothed=_f_prime_prob,
        properties=frozenset({TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="markedness",
        kernel=_markedness_kernel,
        aliases=("deltap",),
        summary="Markedness: precision + npv - 1.",
        formula="tp/PP + tn/PN - 1",
        latex=r"MK = \pi + NPV - 1",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="PP = 0 or PN = 0",
        reference=AMIGO_2019 + ", §4.2",
        smoothed=_markedness_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="chi",
        kernel=_chi_kernel,
        aliases=("chi_amigo",),
        summary="Amigó et al.'s (2019) chi statistic (tpr tnr - fpr fnr + 1)/2; algebraically (tpr + tnr)/2.",
        formula="(tpr tnr - fpr fnr + 1) / 2",
        latex=r"Chi = \frac{P(S|G)P(\lnot S|\lnot G) - P(S|\lnot G)P(\lnot S|G) + 1}{2}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="AP = 0 or AN = 0 (unlike balanced_accuracy, no class-present convention)",
        reference=AMIGO_2019 + ", §4.2",
        smoothed=_chi_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="utility",
        kernel=_utility_kernel,
        params=(
            Param("a1", 2.0, "reward per true positive"),
            Param("a2", 0.0, "reward per true negative"),
            Param("a3", 1.0, "penalty per false positive"),
            Param("a4", 0.0, "penalty per false negative"),
        ),
        summary="Linear utility a1 tp + a2 tn - a3 fp - a4 fn (TREC filtering: 2 tp - fp).",
        formula="a1 tp + a2 tn - a3 fp - a4 fn",
        latex=r"U = \alpha_1 TP + \alpha_2 TN - \alpha_3 FP - \alpha_4 FN",
        range=(-INF, INF),
        higher_is_better=True,
        family="utility",
        undefined_when="never",
        reference=AMIGO_2019 + ", §4.1",
        smoothed=JOINT,
    )
)
register(
    Measure(
        name="t11su",
        kernel=_t11su_kernel,
        aliases=("scaled_utility", "trec11_scaled_utility"),
        summary="TREC-2002 scaled utility: 2 tp - fp normalised by its maximum and floored at -0.5.",
        formula="(max((2 tp - fp) / (2 AP), -0.5) + 0.5) / 1.5",
        latex=r"T11SU = \frac{\max(T11NU, -0.5) + 0.5}{1.5},\; T11NU = \frac{2TP - FP}{2(TP+FN)}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="utility",
        undefined_when="AP = 0 (MaxU = 0)",
        reference=AMIGO_2019 + ", §4.1 (Hull 1998 normalisation)",
        smoothed=JOINT,
        properties=frozenset({SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="weighted_accuracy",
        kernel=_weighted_accuracy_kernel,
        aliases=("wacc",),
        params=(
            Param("lam", 1.0, "weight of a positive item relative to a negative one (lambda)", low=0.0, low_open=True),
        ),
        summary="Weighted accuracy of Androutsopoulos et al.: positives weigh lambda.",
        formula="(lam tp + tn) / (lam AP + AN)",
        latex=r"WAcc = \frac{\lambda TP + TN}{\lambda(TP+FN) + TN + FP}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="utility",
        undefined_when="n = 0",
        reference=AMIGO_2019 + ", §4.1",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="mutual_information",
        kernel=mutual_information_kernel,
        multiclass=_mc.mutual_information_mc,
        multiclass_formula="sum_ij p_ij log2(p_ij / (p_i. p_.j)), at most log2 m bits",
        aliases=("mi",),
        summary="Mutual information of actual and predicted labels, in bits.",
        formula="sum_ij p_ij log2(p_ij / (p_i. p_.j))",
        latex=r"MI = \sum_{i,j} P(i,j)\log_2\frac{P(i,j)}{P(i)P(j)}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="n = 0",
        reference=AMIGO_2019 + ", §4.2",
        smoothed=JOINT,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="reliability",
        kernel=_reliability_kernel,
        aliases=("r_filtering",),
        summary="Reliability for filtering: precision x npv.",
        formula="(tp/PP)(tn/PN)",
        latex=r"R = P(G|S)\,P(\lnot G|\lnot S)",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="none",
        undefined_when="PP = 0 or PN = 0",
        reference=AMIGO_2019 + ", §4.4",
        smoothed=_reliability_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="sensitivity_rs",
        kernel=_sensitivity_rs_kernel,
        aliases=("s_filtering",),
        summary="Sensitivity for filtering: recall x specificity.",
        formula="(tp/AP)(tn/AN)",
        latex=r"S = P(S|G)\,P(\lnot S|\lnot G)",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="none",
        undefined_when="AP = 0 or AN = 0",
        reference=AMIGO_2019 + ", §4.4",
        smoothed=_sensitivity_rs_prob,
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
register(
    Measure(
        name="f_rs",
        kernel=_f_rs_kernel,
        params=(ALPHA,),
        aliases=("f_reliability_sensitivity",),
        summary="Weighted harmonic mean of Reliability (weight alpha) and Sensitivity.",
        formula="1 / (alpha/R + (1 - alpha)/S); 0 if R = 0 or S = 0",
        latex=r"F(R,S) = \frac{1}{\frac{\alpha}{R} + \frac{1-\alpha}{S}}",
        range=(0.0, 1.0),
        higher_is_better=True,
        family="none",
        undefined_when="R or S undefined: AP, AN, PP or PN is 0",
        reference=AMIGO_2019 + ", §4.4",
        smoothed=_f_rs_prob,
        properties=frozenset({CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT}),
    )
)
