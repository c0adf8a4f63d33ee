"""fastmetrics: classification evaluation at leaderboard scale.

Ingest (Arrow) -> count (Numba kernels) -> measures (ufuncs from a registry) -> meta-evaluation
and leaderboards -> reports.
"""

import os as _os

# The counting kernels run on numba's OpenMP threads while Arrow's threads decode the next
# record batches. libgomp's default lets a thread that has finished its chunk spin for a while,
# taking the core the decoder needs: passive waiting lets the decoder run (a Parquet stream is
# faster; the figure is in docs/guides/performance.md). It is read when libgomp loads (the first
# parallel kernel), and a value the user set is kept.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import sys as _sys
import types as _types

from . import _stages
from ._errors import (
    FastmetricsError,
    InputError,
    ParameterError,
    SignificanceWarning,
    UndefinedMeasureWarning,
    UnknownMeasureError,
)
from ._version import __version__ as __version__


def _evaluate(tensor, measures, **options):
    """What ``ConfusionTensor.evaluate`` runs: the measures stage, loaded on the first call (the
    containers import no later stage; the root, above them all, links the two, see
    :mod:`fastmetrics._stages`)."""
    from .measures.evaluation import evaluate

    return evaluate(tensor, measures, **options)


def _labels(text):
    """The labels a result may hold the measure ``text`` under, in any spelling of it (``P_10``,
    ``P@10``, ``precision_at_k(k=10)`` are ``precision_at_k``): :meth:`Scores.__getitem__` reads
    them, so every spelling of a measure finds its values; ``()`` for text that is not a spec."""
    from .measures.registry import parse_spec

    try:
        spec = parse_spec(text)
    except FastmetricsError:
        return ()
    return (spec.label, spec.base_label)


_stages.bind_evaluator(_evaluate)
_stages.bind_labeller(_labels)

# The stages load on first use (module __getattr__ below): numba and the kernels' modules are most
# of a second, which `fastmetrics --help`, `fastmetrics measures` or an import to read the version
# need not pay. The public name -> the module that defines it.
_PUBLIC = {
    "score": ".arrays",
    "count": ".count",
    "count_graded": ".count",
    "read_gold": ".io",
    "read_runs": ".io",
    "compute": ".measures",
    "evaluate": ".measures",
    "measures": ".measures",
    "ordinal_costs": ".measures",
    "ufunc": ".measures",
    "ufuncs": ".measures",
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
    "SignificanceWarning",
    "UndefinedMeasureWarning",
    "UnknownMeasureError",
    "compute",
    "count",
    "count_graded",
    "evaluate",
    "measures",
    "ordinal_costs",
    "read_gold",
    "read_runs",
    "score",
    "ufunc",
    "ufuncs",
]


def __getattr__(name):
    import importlib.util

    if name in _PUBLIC:
        module = importlib.import_module(_PUBLIC[name], __name__)
        value = module if name in _STAGE_FUNCTIONS else getattr(module, name)
        globals()[name] = value
        return value
    # any other stage (meta, board, the scikit-learn scorers ...) as an attribute, as after an import
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'fastmetrics' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))


# stage packages that are also their public function: fm.count(...), fm.measures()
_STAGE_FUNCTIONS = ("count", "measures")


class _Stage(_types.ModuleType):
    """A stage package callable as its public function of the same name.

    ``fm.count(...)`` is :func:`fastmetrics.count.count` and ``fm.measures()`` the catalog
    (:func:`fastmetrics.measures.measures`), while ``fm.measures.parse_spec``, ``from
    fastmetrics.measures import intervals`` and ``import fastmetrics.measures.intervals as iv``
    reach the package's modules: the name is the package, and calling it calls the function.
    """

    def __call__(self, *args, **kwargs):
        return getattr(self, self.__name__.rpartition(".")[2])(*args, **kwargs)

    @property
    def __signature__(self):
        import inspect

        return inspect.signature(getattr(self, self.__name__.rpartition(".")[2]))


class _Package(_types.ModuleType):
    """The package's module: the ``count`` and ``measures`` subpackages, bound to these names when
    they are imported, are made callable as the public functions (:class:`_Stage`)."""

    def __setattr__(self, name, value):
        if name in _STAGE_FUNCTIONS and isinstance(value, _types.ModuleType):
            value.__class__ = _Stage
        super().__setattr__(name, value)


_sys.modules[__name__].__class__ = _Package
