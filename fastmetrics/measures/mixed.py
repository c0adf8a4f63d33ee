"""Point, curve and ranking measures in one table: each on the counts it reads.

:class:`~fastmetrics.tensor.MixedCounts` holds the hard counts and the sweep (or ranked lists) of
the same runs. :func:`mixed_scores` evaluates the point measures on the first and the others on
the second and puts the values back in the order asked, over the union of the two parts' cells:
a topic the ranked lists keep and the hard counts lack (``complete=True``, trec_eval's ``-c``)
is NaN for the point measures, and the other way round.
"""

from __future__ import annotations

import numpy as np

from .._errors import ParameterError
from ..tensor import Scores
from . import registry

HARD, SWEEP = "hard", "sweep"


def part_of(spec) -> str:
    """``"hard"`` for a point measure (one confusion matrix per cell), else ``"sweep"``."""
    return HARD if spec.measure.kind == "point" else SWEEP


def split(mixed, measures) -> dict:
    """The specs asked of each part, checked to have their counts.

    Parameters
    ----------
    mixed : MixedCounts
    measures : str or sequence of str

    Returns
    -------
    dict
        ``part -> list of (position asked, spec)``, parts in the order first asked.

    Raises
    ------
    ParameterError
        A measure whose counts the MixedCounts lacks.
    """
    parts: dict = {}
    for i, spec in enumerate(registry.parse_specs(measures)):
        parts.setdefault(part_of(spec), []).append((i, spec))
    for part, entries in parts.items():
        if getattr(mixed, part) is None:
            names = ", ".join(s.base_label for _, s in entries)
            what = (
                "hard predictions (a 'pred' column of labels)"
                if part == HARD
                else "a threshold sweep or ranked lists (thresholds='ranks')"
            )
            raise ParameterError(
                f"{names} read(s) {what}, and these counts hold none: count the runs with both, or leave them out."
            )
    return parts


def mixed_scores(mixed, measures, *, evaluate, **options) -> Scores:
    """Every measure on the part of ``mixed`` it reads, in one Scores.

    Parameters
    ----------
    mixed : MixedCounts
    measures : str or sequence of str
    evaluate : callable
        :func:`fastmetrics.measures.evaluation.evaluate` (passed in: it is the caller).
    **options
        As in :func:`~fastmetrics.measures.evaluation.evaluate`; ``ci`` applies to point measures
        only, and is refused with others (their intervals need the items, not the counts).

    Returns
    -------
    Scores
        Keyed by the full specs, in the order asked.
    """
    parts = split(mixed, measures)
    if options.get("ci") is not None and SWEEP in parts:
        raise ParameterError(
            "Intervals (ci=, --ci) of curve and ranking measures need the items, not the counts: evaluate the "
            f"point measures with ci= apart from {', '.join(s.base_label for _, s in parts[SWEEP])}."
        )
    pieces = []
    for part, entries in parts.items():
        scores = evaluate(getattr(mixed, part), [s for _, s in entries], **options)
        pieces.append((scores, [i for i, _ in entries]))
    return merged(pieces)


def merged(pieces) -> Scores:
    """Scores of several evaluations as one, their rows at the positions asked.

    Parameters
    ----------
    pieces : list of (Scores, list of int)
        Each evaluation's Scores and, per row, its position in the result.

    Returns
    -------
    Scores
        Over the axes of the first piece and the union of the pieces' coordinates (first seen
        first), NaN where a piece lacks a cell; intervals dropped unless every piece has them.

    Raises
    ------
    ParameterError
        Pieces over different axes: measures that give values over different cells (a point
        measure at every threshold of a grid, a curve measure one per group) share no table.
    """
    axes = pieces[0][0].axes
    for scores, _ in pieces:
        if scores.axes != axes:
            raise ParameterError(
                f"Measures giving values over {axes} and over {scores.axes} cannot share one table (one value per "
                "hard confusion matrix against one per group of the sweep): evaluate them in separate calls."
            )
    coords = {}
    for a in axes:
        seen: dict = {}
        for scores, _ in pieces:
            for value in scores.coords[a].tolist():
                seen.setdefault(value, len(seen))
        coords[a] = np.asarray(list(seen), dtype=pieces[0][0].coords[a].dtype if seen else object)
    n = sum(len(rows) for _, rows in pieces)
    shape = (n,) + tuple(len(coords[a]) for a in axes)
    bounds = {"low": None, "high": None}
    if all(scores.low is not None for scores, _ in pieces):
        bounds = {"low": np.full(shape, np.nan), "high": np.full(shape, np.nan)}
    values = np.full(shape, np.nan)
    labels = [""] * n
    for scores, rows in pieces:
        index = np.ix_(*[_positions(scores.coords[a], coords[a]) for a in axes]) if axes else ()
        for row, position in enumerate(rows):
            values[(position,) + index] = scores.values[row]
            if bounds["low"] is not None:
                bounds["low"][(position,) + index] = scores.low[row]
                bounds["high"][(position,) + index] = scores.high[row]
            labels[position] = scores.measures[row]
    return Scores(values, labels, axes, coords, **bounds)


def _positions(values, universe) -> np.ndarray:
    where = {v: i for i, v in enumerate(universe.tolist())}
    return np.array([where[v] for v in values.tolist()], np.intp)
