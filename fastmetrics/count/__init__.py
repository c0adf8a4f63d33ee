"""Count stage: plan (pass 1) and fused Numba kernels (pass 2) that build confusion tensors."""

from .api import count
from .arrays import hard_counts, sweep_histogram
from .assemble import exact_counts, histogram_to_counts
from .graded import count_graded
from .grid import threshold_grid
from .options import CountOptions
from .plan import plan

__all__ = [
    "CountOptions",
    "count",
    "count_graded",
    "exact_counts",
    "hard_counts",
    "histogram_to_counts",
    "plan",
    "sweep_histogram",
    "threshold_grid",
]
