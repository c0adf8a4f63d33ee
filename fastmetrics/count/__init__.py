"""Count stage: Numba kernels that build confusion tensors from encoded columns."""

from .api import count, exact_counts, hard_counts, histogram_to_counts, sweep_histogram, threshold_grid

__all__ = ["count", "exact_counts", "hard_counts", "histogram_to_counts", "sweep_histogram", "threshold_grid"]
