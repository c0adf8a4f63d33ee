"""Shared by the meta-evaluation jobs: oriented score arrays and results (the jobs' progress bar is
:mod:`fastmetrics._progress`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from .._errors import ParameterError
from .._html import table_html
from .._show import result_view, table_text
from .._threads import in_ranges
from ..measures import registry
from ..tensor import Roles, Scores
from ._kernels import TILE, last_axis_first

# Up to this many values in a job's largest array, numpy computes the job: in milliseconds, where
# a first call in a fresh environment would compile the job's kernels for a second or more (a
# report's meta-evaluation of a few systems and topics). Beyond it the kernels run, compiled once
# and then read from numba's cache.
NUMPY_VALUES = 1 << 20


@dataclass
class MetaResult:
    """The output of a meta-evaluation job.

    Parameters
    ----------
    summary : pyarrow.Table
        The job's main tidy table (what ``--out`` writes).
    detail : pyarrow.Table or None
        The per-pair / per-system values the summary aggregates (``--detail``).
    params : dict
        The job's settings (seed, counts of pairs, tolerance ...), for the record.
    """

    summary: pa.Table
    detail: pa.Table | None = None
    params: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        """The summary as people read it (:func:`~fastmetrics._show.result_view`): a leaderboard
        ranked, a table over levels one row per measure, any other sorted by its main statistic."""
        table, title, note = self.view()
        return table_text(table, title, note)

    def _repr_html_(self) -> str:
        """A notebook's view of :meth:`__repr__`'s table (intervals beside their values)."""
        table, title, note = self.view()
        return table_html(table, title + (f" ({note})" if note else ""))

    def view(self) -> tuple:
        """What ``repr`` and a notebook show: ``(table, title, note)`` of
        :func:`fastmetrics._show.result_view`."""
        return result_view(self.summary, self.detail, self.params.get("system"))


def higher_is_better(label: str) -> bool:
    """Direction of a measure label, read from the measure's record.

    The label is a spec such as ``"f1"``, ``"fbeta(beta=2)"`` or ``"f1@macro"``.

    Parameters
    ----------
    label : str
        A measure label of a Scores (any spec :func:`~fastmetrics.measures.parse_spec` reads).

    Returns
    -------
    bool
        True when higher values of the measure are better.
    """
    return registry.parse_spec(label).higher_is_better


def system_topic_values(scores, oriented: bool = True, *, system: str = "system", topic: str = "topic"):
    """The values of a Scores as ``values[measure, system, topic]``, with the system and topic labels.

    Lower-is-better measures are negated when ``oriented``. A Scores without a topic axis has one
    topic.

    Parameters
    ----------
    scores : Scores
        Values over the axes playing the system and (optionally) the topic, in either order.
    oriented : bool, default True
        Negate the lower-is-better measures, so that higher is better for every measure.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    values : ndarray of float64, shape (n_measures, n_systems, n_topics)
        A copy of the values.
    systems : ndarray
        The system labels.
    topics : ndarray
        The topic labels; ``["-"]`` without a topic axis.

    Raises
    ------
    ParameterError
        ``scores`` is not a Scores (a ConfusionTensor must be evaluated first), has no ``system``
        axis, or has axes other than ``system`` and ``topic``.
    """
    roles = Roles(system, topic)
    if not isinstance(scores, Scores):
        hint = (
            " (a ConfusionTensor: evaluate it first, e.g. tensor.evaluate(['f1', 'mcc']))"
            if hasattr(scores, "counts")
            else ""
        )
        raise ParameterError(f"Meta-evaluation takes Scores; got {type(scores).__name__}{hint}.")
    axes = list(scores.axes)
    _check_axes(axes, roles)
    values = scores.values
    if topic not in axes:
        values = values[..., None]
        topics = np.array(["-"], dtype=object)
    else:
        order = [0] + [1 + axes.index(system), 1 + axes.index(topic)]
        values = np.transpose(values, order)
        topics = np.asarray(scores.coords[topic])
    values = np.array(values, dtype=np.float64)
    if oriented:
        for i, label in enumerate(scores.measures):
            if not higher_is_better(label):
                values[i] = -values[i]
    return values, np.asarray(scores.coords[system]), topics


def _check_axes(axes: list, roles: Roles) -> None:
    """Refuse scores without the system's axis, or with axes besides the system's and topic's."""
    extra = [a for a in axes if a not in roles.identity]
    if extra and roles.system not in axes:
        raise ParameterError(
            f"Meta-evaluation reads the axes playing the system ('{roles.system}') and the topic ('{roles.topic}'); "
            f"these scores have {', '.join(axes)}: name the ones playing them (system={axes[0]!r}, topic=...), "
            "or select one value of the others first."
        )
    if extra:
        raise ParameterError(
            f"Meta-evaluation works on ({roles.system}, {roles.topic}) scores; these also have the axes "
            f"{', '.join(extra)}: select one value of each first (e.g. scores.sel(threshold=0.5))."
        )
    if roles.system not in axes:
        raise ParameterError(
            f"Meta-evaluation compares systems: the scores need an axis playing the system ('{roles.system}')."
        )


def sliced_values(scores, oriented: bool = True, *, system: str = "system", topic: str = "topic"):
    """The values of a Scores as ``values[slice, measure, system, topic]``, one slice per label of
    the axes other than the system's and the topic's (e.g. each threshold of a sweep).

    Parameters
    ----------
    scores : Scores
        Values over the axes playing the system and (optionally) the topic and any other axes
        that have a coordinate of their own name (a threshold grid's ``threshold``).
    oriented : bool, default True
        Negate the lower-is-better measures, so that higher is better for every measure.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    values : ndarray of float64, shape (n_slices, n_measures, n_systems, n_topics)
        A copy of the values; one slice when the scores have no other axis.
    slices : pyarrow.Table or None
        One row per slice, a column per other axis holding its label; None without other axes.

    Raises
    ------
    ParameterError
        As :func:`measure_rows`.
    """
    rows, signs, slices = measure_rows(scores, system=system, topic=topic)
    return slices_first(rows, signs if oriented else None), slices


def slices_first(rows: np.ndarray, signs: np.ndarray | None = None) -> np.ndarray:
    """``values[slice, measure, system, topic]`` from :func:`measure_rows`'
    ``rows[measure, system, topic, slice]``, a copy: by numpy up to :data:`NUMPY_VALUES`
    values (no kernel compiled for a few), beyond it by a kernel in tiles on the threads.

    Parameters
    ----------
    rows : ndarray of float64, shape (n_measures, n_systems, n_topics, n_slices)
    signs : ndarray of float64, shape (n_measures,), optional
        Each measure's values times its sign (higher is better for every measure); None: as
        they are.

    Returns
    -------
    ndarray of float64, shape (n_slices, n_measures, n_systems, n_topics)
    """
    n_measures, n_systems, n_topics, n_slices = rows.shape
    flat = rows.reshape(n_measures, n_systems * n_topics, n_slices)
    if flat.size <= NUMPY_VALUES:
        values = np.array(np.moveaxis(flat, 2, 0), np.float64, order="C")  # a copy, even of one slice
        if signs is not None:
            values *= signs[:, None]
    else:
        values = np.empty((n_slices, n_measures, n_systems * n_topics))
        transpose_slices(flat, 0, np.ones(n_measures) if signs is None else signs, values, holes=False)
    return values.reshape(n_slices, n_measures, n_systems, n_topics)


def transpose_slices(rows: np.ndarray, first: int, signs: np.ndarray, out: np.ndarray, holes: bool = True):
    """``out[k, m, o] = signs[m] * rows[m, o, first + k]`` by :func:`~fastmetrics.meta._kernels.last_axis_first`
    on the threads, and whether each slice ``k`` holds no NaN.

    Parameters
    ----------
    rows : ndarray of float64, shape (n_measures, n_outputs, n_slices)
    first : int
        The first slice copied.
    signs : ndarray of float64, shape (n_measures,)
    out : ndarray of float64, shape (k, n_measures, n_outputs)
        Written: the ``k`` slices from ``first``.
    holes : bool, default True
        Say which slices hold no NaN (counted as the values are copied).

    Returns
    -------
    ndarray of bool, shape (k,), or None
        The slices without a NaN; None without ``holes``.
    """
    n_measures, n_outputs, _ = rows.shape
    jobs = n_measures * ((n_outputs + TILE - 1) // TILE)
    found = np.empty((out.shape[0], jobs) if holes else (0, 0), np.int64)
    in_ranges(last_axis_first, jobs, rows, first, signs, out, found, holes)
    return found.sum(axis=1) == 0 if holes else None


def measure_rows(scores, *, system: str = "system", topic: str = "topic"):
    """The values of a Scores as ``rows[measure, system, topic, slice]``, where they are, with
    the direction of each measure: what :func:`sliced_values` transposes, for the kernels that
    read a topic's values of every slice at once.

    Parameters
    ----------
    scores : Scores
        As :func:`sliced_values`.
    system, topic : str, default "system", "topic"
        The axes playing the system and the topic.

    Returns
    -------
    rows : ndarray of float64, shape (n_measures, n_systems, n_topics, n_slices)
        The values, not oriented: a view where the scores hold them in this order (a threshold
        sweep's), a copy otherwise.
    signs : ndarray of float64, shape (n_measures,)
        1 for a higher-is-better measure, -1 for the others.
    slices : pyarrow.Table or None
        As :func:`sliced_values`.

    Raises
    ------
    ParameterError
        As :func:`system_topic_values`, and for another axis without labels of its own (the cells
        of an exact sweep, whose thresholds differ between systems).
    """
    roles = Roles(system, topic)
    axes = list(scores.axes) if isinstance(scores, Scores) else []
    extra = [a for a in axes if a not in roles.identity]
    along = {a for a in roles.identity if a not in axes and a in getattr(scores, "coord_axes", {})}
    unlabelled = [a for a in extra if along or a not in scores.coords or scores.coord_axes.get(a, a) != a]
    if unlabelled:
        raise ParameterError(
            f"Meta-evaluation runs once per label of an axis other than {system} and {topic}; {unlabelled[0]!r} has "
            f"no labels of its own (its thresholds differ between systems: an exact sweep or a per-system grid). "
            f"Count on shared thresholds (a list, or k with grid='global'; on the command line --grid global) or "
            f"select one {unlabelled[0]} first."
        )
    if not extra or system not in axes:
        values, _, _ = system_topic_values(scores, False, system=system, topic=topic)
        return values[..., None], _signs(scores.measures), None
    labels = [np.asarray(scores.coords[a]) for a in extra]
    order = [0, 1 + axes.index(system)] + ([1 + axes.index(topic)] if topic in axes else [])
    rows = np.transpose(scores.values, order + [1 + axes.index(a) for a in extra])
    rows = np.ascontiguousarray(rows if topic in axes else rows[:, :, None], np.float64)
    grid = np.indices([v.size for v in labels]).reshape(len(extra), -1)
    slices = pa.table({a: labels_array(labels[i][grid[i]]) for i, a in enumerate(extra)})
    return rows.reshape(rows.shape[:3] + (-1,)), _signs(scores.measures), slices


def _signs(measures) -> np.ndarray:
    return np.array([1.0 if higher_is_better(m) else -1.0 for m in measures])


def labels_array(values) -> pa.Array:
    """Labels (systems, topics ...) as a pyarrow array of the type Arrow infers from their Python values.

    Parameters
    ----------
    values : array_like
        The labels, e.g. the coordinate of a Scores (numpy strings and objects included).

    Returns
    -------
    pyarrow.Array
    """
    arr = np.asarray(values)
    return pa.array(arr.tolist())
