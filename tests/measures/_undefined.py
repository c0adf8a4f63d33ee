"""When each registered measure is undefined, written out independently of the kernels.

``test_common.test_undefined_table_covers_registry`` checks these keys equal the registry.
"""


def _m(tp, fp, fn, tn):
    return tp + fn, fp + tn, tp + fp, fn + tn, tp + fp + fn + tn


def never(*c):
    return False


def empty(*c):
    return _m(*c)[4] == 0


def no_ap(*c):
    return _m(*c)[0] == 0


def no_an(*c):
    return _m(*c)[1] == 0


def no_pp(*c):
    return _m(*c)[2] == 0


def no_pn(*c):
    return _m(*c)[3] == 0


def one_gold_class(*c):
    return no_ap(*c) or no_an(*c)


def any_margin(*c):
    return 0 in _m(*c)[:4]


def no_positive_anywhere(tp, fp, fn, tn):
    return tp + fp + fn == 0


def lam(tp, fp, fn, tn):
    return one_gold_class(tp, fp, fn, tn) or ((fn == 0 or fp == 0) and (tp == 0 or tn == 0))


UNDEFINED = {
    "accuracy": empty,
    "error_rate": empty,
    "prevalence": empty,
    "predicted_positive_rate": empty,
    "balanced_accuracy": empty,
    "k": empty,
    "k_cost": empty,
    "weighted_accuracy": empty,
    "mutual_information": empty,
    "confusion_entropy": empty,
    "recall": no_ap,
    "fnr": no_ap,
    "t11su": no_ap,
    "specificity": no_an,
    "fallout": no_an,
    "precision": no_pp,
    "fdr": no_pp,
    "npv": no_pn,
    "elusion": no_pn,
    "f1": no_positive_anywhere,
    "fbeta": no_positive_anywhere,
    "jaccard": no_positive_anywhere,
    "f_alpha": no_positive_anywhere,
    "e_alpha": no_positive_anywhere,
    "informedness": one_gold_class,
    "proficiency": one_gold_class,
    "permuted_proficiency": one_gold_class,
    "chi": one_gold_class,
    "sensitivity_rs": one_gold_class,
    "mcc": any_margin,
    "cd": any_margin,
    "cd_prime": any_margin,
    "sba": any_margin,
    "f_rs": any_margin,
    "markedness": lambda *c: no_pp(*c) or no_pn(*c),
    "reliability": lambda *c: no_pp(*c) or no_pn(*c),
    "asp": lambda *c: no_ap(*c) or no_pp(*c),
    "cohen_kappa": lambda tp, fp, fn, tn: (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn) == 0,
    "gm": lambda tp, fp, fn, tn: (tp + fn) * (fp + tn) == 0 and (tp + fp) * (fn + tn) == 0,
    "dor": lambda tp, fp, fn, tn: fp * fn == 0,
    "f_prime": lambda tp, fp, fn, tn: fp + fn == 0,
    "lam": lam,
    "utility": never,
    "tp": never,
    "fp": never,
    "fn": never,
    "tn": never,
    "n": never,
}
