"""fastmetrics: classification evaluation at leaderboard scale.

Ingest (Arrow) -> count (Numba kernels) -> measures (ufuncs from a registry) -> meta-evaluation
and leaderboards -> reports.
"""

import os as _os

# The counting kernels run on numba's OpenMP threads while Arrow's threads decode the next
# record batches. libgomp's default lets a thread that has finished its chunk spin for a while,
# taking the core the decoder needs: passive waiting makes a Parquet stream ~10 % faster. It is
# read when libgomp loads (the first parallel kernel), and a value the user set is kept.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from ._errors import FastmetricsError, InputError, ParameterError, UndefinedMeasureWarning, UnknownMeasureError
from ._version import __version__ as __version__
from .arrays import score
from .count import count
from .io import read_gold, read_runs
from .measures import compute, evaluate, measures, ordinal_costs
from .tensor import ConfusionTensor, MultilabelTensor, Scores

__all__ = [
    "ConfusionTensor",
    "FastmetricsError",
    "InputError",
    "MultilabelTensor",
    "ParameterError",
    "Scores",
    "UndefinedMeasureWarning",
    "UnknownMeasureError",
    "compute",
    "count",
    "evaluate",
    "measures",
    "ordinal_costs",
    "read_gold",
    "read_runs",
    "score",
]


def __getattr__(name):
    # The meta-evaluation and leaderboard stages load on first use: most calls never need them;
    # the scikit-learn scorers need scikit-learn, which fastmetrics does not depend on.
    if name in ("meta", "board", "sklearn"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'fastmetrics' has no attribute {name!r}")
