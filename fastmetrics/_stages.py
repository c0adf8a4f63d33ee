"""Calls from a stage to a later one, bound by the package root.

:meth:`ConfusionTensor.evaluate <fastmetrics.tensor.ConfusionTensor.evaluate>` runs the measures
stage, which comes after the containers: the tensor modules may not import it (the stages import
only those before them, docs/architecture.md), and an import inside the method would make a circle
(tensor → measures → tensor). The package root, which sits above every stage and already loads
them on first use, binds the function here as ``fastmetrics`` is imported, before any container
exists (:mod:`fastmetrics`); the measures stage itself then loads on the first call.
"""

from __future__ import annotations

from collections.abc import Callable

_BOUND: dict[str, Callable] = {}


def bind_evaluator(function: Callable) -> None:
    """Install the function that :meth:`ConfusionTensor.evaluate` runs.

    Parameters
    ----------
    function : callable
        ``function(tensor, measures, **options) -> Scores``
        (:func:`fastmetrics.measures.evaluation.evaluate`).
    """
    _BOUND["evaluate"] = function


def evaluator() -> Callable:
    """The function bound by :func:`bind_evaluator`.

    Returns
    -------
    callable

    Raises
    ------
    RuntimeError
        Nothing bound (the package root binds it when ``fastmetrics`` is imported).
    """
    if "evaluate" not in _BOUND:
        raise RuntimeError("No evaluator bound: the package root binds fastmetrics.measures.evaluation.evaluate.")
    return _BOUND["evaluate"]
