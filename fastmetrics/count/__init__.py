"""Count stage: plan (pass 1) and fused Numba kernels (pass 2) that build confusion tensors."""

from .api import count, exact_counts, hard_counts, histogram_to_counts, plan, sweep_histogram, threshold_grid

__all__ = ["count", "exact_counts", "hard_counts", "histogram_to_counts", "plan", "sweep_histogram", "threshold_grid"]
