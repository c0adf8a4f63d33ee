"""The labelled containers: ConfusionTensor (counts), MultilabelTensor and Scores (measure values).

- :mod:`~fastmetrics.tensor.labels`: batch axes with labelled coordinates (shared by the
  containers), :class:`Roles` and :func:`group_starts`;
- :mod:`~fastmetrics.tensor.counts`: :class:`ConfusionTensor` and :class:`MultilabelTensor`;
- :mod:`~fastmetrics.tensor.scores`: :class:`Scores`;
- :mod:`~fastmetrics.tensor.combining`: the counts of several tensors summed over the union of
  their labels (``merge``, ``concat``) and sweeps pooled over groups.

The containers import no later stage: :meth:`ConfusionTensor.evaluate` runs the function bound
in :mod:`fastmetrics._stages` (see there).
"""

from .._stages import bind_evaluator
from .combining import counts_at
from .counts import LAYOUT_KEY, ConfusionTensor, MultilabelTensor, combine, pool_cells
from .graded import GradedRanks
from .labels import Roles, group_starts
from .mixed import MixedCounts
from .scores import Scores

__all__ = [
    "LAYOUT_KEY",
    "ConfusionTensor",
    "GradedRanks",
    "MixedCounts",
    "MultilabelTensor",
    "Roles",
    "Scores",
    "bind_evaluator",
    "combine",
    "counts_at",
    "group_starts",
    "pool_cells",
]
