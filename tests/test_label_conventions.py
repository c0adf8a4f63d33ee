"""Conventions users take on trust from scikit-learn (issue 29): ``undefined=`` without groups, weight 0,
the positive label, NaN labels, integer ``k``, ``@none`` with one class."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

import fastmetrics as fm


@pytest.mark.parametrize("fill", [0.0, 1.0])
@pytest.mark.parametrize("measure", ["precision", "recall", "f1"])
def test_undefined_replaces_nan_without_groups(measure, fill):
    y_true, y_pred = ([0, 1], [0, 0]) if measure != "recall" else ([0, 0], [0, 1])
    sk = {"precision": skm.precision_score, "recall": skm.recall_score, "f1": skm.f1_score}[measure]
    expected = sk(y_true, y_pred, zero_division=fill)
    value = fm.score(y_true, y_pred, measures=[measure], undefined=fill)[measure]
    assert np.ndim(value) == 0 and float(value) == expected
    grouped = fm.score(y_true, y_pred, measures=[measure], undefined=fill, groups={"g": [1, 1]})[measure]
    assert grouped.tolist() == [expected]
