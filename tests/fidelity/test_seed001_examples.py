"""Seed 001 §2.3: the worked examples (tp, fn, fp, tn) -> proficiency / phi / accuracy / F1 in %."""

import pytest

import fastmetrics as fm

# (tp, fn, fp, tn): (proficiency, mcc, accuracy, f1), as printed in seed 001 §2.3.1-2.3.4
CASES = {
    "s2.3.1-A": ((2, 3, 0, 45), (30.96, 61.24, 94.00, 57.14)),
    "s2.3.1-B": ((5, 0, 7, 38), (49.86, 59.32, 86.00, 58.82)),
    "s2.3.1-A2": ((3, 2, 2, 43), (28.96, 55.56, 92.00, 60.00)),
    "s2.3.2-A": ((3, 2, 1, 44), (35.55, 63.89, 94.00, 66.67)),
    "s2.3.2-B": ((5, 0, 6, 39), (53.37, 62.76, 88.00, 62.50)),
    "s2.3.3-A": ((1, 4, 0, 45), (14.77, 42.86, 92.00, 33.33)),
    "s2.3.3-B": ((5, 0, 13, 32), (34.57, 44.44, 74.00, 43.48)),
    "s2.3.4-B": ((2, 3, 2, 43), (14.71, 39.32, 90.00, 44.44)),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("position, measure", [(0, "proficiency"), (1, "mcc"), (2, "accuracy"), (3, "f1")])
def test_seed001_worked_example(case, position, measure):
    (tp, fn, fp, tn), expected = CASES[case]
    value = 100 * fm.compute(measure, tp=tp, fp=fp, fn=fn, tn=tn)
    assert round(float(value), 2) == pytest.approx(expected[position], abs=1e-9)


def test_seed001_relabelled_predictor_keeps_proficiency():
    # seed 001 §2.4: alpha(1 - P) = alpha(P), phi(1 - P) = -phi(P), Acc(1 - P) = 1 - Acc(P)
    tp, fn, fp, tn = 3, 2, 1, 44
    flipped = dict(tp=fn, fn=tp, fp=tn, tn=fp)
    assert fm.compute("proficiency", **flipped) == pytest.approx(fm.compute("proficiency", tp=tp, fp=fp, fn=fn, tn=tn))
    assert fm.compute("mcc", **flipped) == pytest.approx(-fm.compute("mcc", tp=tp, fp=fp, fn=fn, tn=tn))
    assert fm.compute("accuracy", **flipped) == pytest.approx(1 - fm.compute("accuracy", tp=tp, fp=fp, fn=fn, tn=tn))


def test_seed001_figure1_points():
    # seed 001 §2.2: i = 50 -> tp=15, fn=5, fp=45, tn=135: Acc 75 %, F1 38 %, phi 33 %, alpha ~15 %
    c = dict(tp=15, fn=5, fp=45, tn=135)
    assert round(100 * float(fm.compute("accuracy", **c))) == 75
    assert round(100 * float(fm.compute("f1", **c))) == 38
    assert round(100 * float(fm.compute("mcc", **c))) == 33
    assert round(100 * float(fm.compute("proficiency", **c))) == 15
    # i = 100: independent prediction, alpha = phi = 0
    c = dict(tp=10, fn=10, fp=90, tn=90)
    assert float(fm.compute("proficiency", **c)) == pytest.approx(0, abs=1e-12)
    assert float(fm.compute("mcc", **c)) == pytest.approx(0, abs=1e-12)
