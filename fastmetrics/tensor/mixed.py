"""Counts of one read of the runs for measures that read different tensors.

Classification measures (precision, F1, accuracy ...) read each system's hard predictions, one
confusion matrix per (system, topic); ranking measures (MAP, MRR, nDCG ...) read the ranked lists,
one cell per position; curve measures read a threshold sweep. An official table such as the
SemEval-2016 Task 3 scorer's (MAP, AvgRec, MRR, P, R, F1, Acc) needs both: :class:`MixedCounts`
holds them side by side, counted from the same rows, and evaluating it sends each measure to
the counts it reads (:func:`fastmetrics.measures.mixed.mixed_scores`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._stages import evaluator


@dataclass(frozen=True)
class MixedCounts:
    """Hard counts and a sweep (or ranked lists) of the same runs, for one table of both kinds of measure.

    Parameters
    ----------
    hard : ConfusionTensor or None
        Counts of the hard predictions over ``(system[, topic])``: what point measures read.
    sweep : ConfusionTensor, GradedRanks or None
        The threshold sweep or ranked lists (``thresholds="ranks"``) of the same runs: what
        curve, ranking and graded measures read.
    """

    hard: object = None
    sweep: object = None

    def evaluate(self, measures, **options):
        """Evaluate point, curve and ranking measures together (see :func:`fastmetrics.evaluate`).

        Parameters
        ----------
        measures : str or sequence of str
            Measure specs of any kind; each is evaluated on the counts it reads.
        **options
            As in :func:`fastmetrics.evaluate` (``undefined=0``).

        Returns
        -------
        Scores
            One Scores keyed by the full specs, over the union of the parts' systems and topics
            (NaN where a part lacks a cell).
        """
        return evaluator()(self, measures, **options)

    def __repr__(self) -> str:
        parts = [
            f"{name}={type(part).__name__}"
            for name, part in (("hard", self.hard), ("sweep", self.sweep))
            if part is not None
        ]
        return f"MixedCounts({', '.join(parts)})"
