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


def bind_labeller(function: Callable) -> None:
    """Install the function that reads any spelling of a measure as its label in results.

    Parameters
    ----------
    function : callable
        ``function(text) -> tuple of str``: the labels a result may hold the measure under (the
        spec's label, and its label without the averaging), or ``()`` if ``text`` names no measure.
    """
    _BOUND["labels"] = function


def labels_of(text: str) -> tuple:
    """The labels :func:`bind_labeller`'s function gives ``text`` (``()`` when nothing is bound).

    Parameters
    ----------
    text : str
        A measure name or spec in any spelling (``"P_10"``, ``"precision_at_k(k=10)"``).

    Returns
    -------
    tuple of str
    """
    return _BOUND["labels"](text) if "labels" in _BOUND else ()
