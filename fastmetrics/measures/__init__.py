"""Measures stage: the registry of measures and their numba kernels."""

from . import binary, calibration, combined, correlation, curves, graded, multiclass, rates, semeval, trec, ufuncs  # noqa: F401  (each module registers its measures)
from .api import compute, measures
from .evaluation import evaluate
from .multiclass import ordinal_costs
from .registry import Measure, MeasureSpec, Param, get, make_spec, names, parse_spec, parse_specs, register, split_specs
from .ufuncs import ufunc

__all__ = [
    "compute",
    "evaluate",
    "measures",
    "Measure",
    "MeasureSpec",
    "Param",
    "get",
    "make_spec",
    "names",
    "ordinal_costs",
    "parse_spec",
    "parse_specs",
    "register",
    "split_specs",
    "ufunc",
    "ufuncs",
]
