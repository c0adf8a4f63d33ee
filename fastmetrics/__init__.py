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

import sys as _sys
import types as _types

from ._errors import FastmetricsError, InputError, ParameterError, UndefinedMeasureWarning, UnknownMeasureError
from ._version import __version__ as __version__

# The stages load on first use (module __getattr__ below): numba and the kernels' modules are most
# of a second, which `fastmetrics --help`, `fastmetrics measures` or an import to read the version
# need not pay. The public name -> the module that defines it.
_PUBLIC = {
    "score": ".arrays",
    "count": ".count",
    "read_gold": ".io",
    "read_runs": ".io",
    "compute": ".measures",
    "evaluate": ".measures",
    "measures": ".measures",
    "ordinal_costs": ".measures",
    "ConfusionTensor": ".tensor",
    "MultilabelTensor": ".tensor",
    "Scores": ".tensor",
}

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
    import importlib.util

    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name], __name__), name)
        globals()[name] = value
        return value
    # any other stage (meta, board, the scikit-learn scorers ...) as an attribute, as after an import
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'fastmetrics' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


class _Package(_types.ModuleType):
    """The package's module: ``fastmetrics.count`` and ``fastmetrics.measures`` stay the public
    functions when their subpackages are imported (which would bind the subpackages to these names)."""

    def __setattr__(self, name, value):
        if name in ("count", "measures") and isinstance(value, _types.ModuleType):
            return
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
