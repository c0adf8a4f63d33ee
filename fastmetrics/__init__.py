"""fastmetrics: classification evaluation at leaderboard scale.

Ingest (Arrow) -> count (Numba kernels) -> measures (ufuncs from a registry) -> meta-evaluation
and leaderboards -> reports.
"""

from ._errors import (FastmetricsError, InputError, ParameterError, UndefinedMeasureWarning,
                      UnknownMeasureError)
from .count import count
from .io import read_gold, read_runs
from .measures import compute, measures
from .tensor import ConfusionTensor, Scores

__version__ = "0.1.0"

__all__ = [
    "ConfusionTensor", "FastmetricsError", "InputError", "ParameterError", "Scores",
    "UndefinedMeasureWarning", "UnknownMeasureError", "compute", "count", "measures",
    "read_gold", "read_runs",
]
