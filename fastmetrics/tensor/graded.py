"""Ranked lists against graded judgements: one ranks sweep per relevance grade, and the judged items.

A TREC qrels file grades each judged document (0 non-relevant, 1, 2, ... more relevant; a
negative grade: in the pool, not judged). The ranks sweep (``thresholds="ranks"``) is binary:
each grade ``g`` read as the class "grade >= g" gives one sweep, and "judged" (grade >= 0)
another, all with the same cells -- the same ranked lists, position by position -- so that the
count of each grade among the top ``i`` items is a difference of two of them. Graded measures
(nDCG: the gain of an item is its grade) and the measures of judged items (bpref, judged@k) read
them together; every binary ranking measure reads the sweep at the relevance level.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._errors import ParameterError
from .._stages import evaluator
from .counts import ConfusionTensor


@dataclass(frozen=True)
class GradedRanks:
    """Ranks sweeps of the same ranked lists at every relevance grade, and of the judged items.

    Parameters
    ----------
    grades : ndarray of float64
        The positive grades found in the judgements, increasing.
    tensors : tuple of ConfusionTensor
        ``tensors[j]``: the ranks sweep with "grade >= grades[j]" as the positive class.
    judged : ConfusionTensor
        The ranks sweep with "judged" (grade >= 0) as the positive class.
    relevance_level : float
        The grade from which an item is relevant for binary measures (trec_eval's ``-l``).
    """

    grades: np.ndarray
    tensors: tuple
    judged: ConfusionTensor
    relevance_level: float = 1.0

    def __post_init__(self):
        for tensor in (*self.tensors, self.judged):
            if tensor.counts.shape != self.judged.counts.shape or tensor.coord_axes.get("rank") != "cell":
                raise ParameterError("The sweeps of a GradedRanks must be ranks sweeps of the same cells.")

    @property
    def binary(self) -> ConfusionTensor:
        """The ranks sweep at the relevance level: relevant = grade >= ``relevance_level``."""
        at = np.searchsorted(self.grades, self.relevance_level)
        if at < len(self.tensors):
            return self.tensors[at]
        nothing = self.judged.counts.copy()  # no item reaches the level: every item is non-relevant
        nothing[..., 0, :] += nothing[..., 1, :]
        nothing[..., 1, :] = 0
        judged = self.judged
        return ConfusionTensor(nothing, judged.axes, judged.coords, coord_axes=judged.coord_axes, classes=[0, 1])

    def evaluate(self, measures, **options):
        """Evaluate graded and binary ranking measures (see :func:`fastmetrics.evaluate`).

        Parameters
        ----------
        measures : str or sequence of str
            Measure specs (``"ndcg(k=10)"``, ``"bpref"``, ``"map"``).
        **options
            As in :func:`fastmetrics.evaluate` (``undefined=0``).

        Returns
        -------
        Scores
        """
        return evaluator()(self, measures, **options)

    def __repr__(self) -> str:
        return f"GradedRanks(grades={list(self.grades)}, cells={self.judged.counts.shape[0]})"
