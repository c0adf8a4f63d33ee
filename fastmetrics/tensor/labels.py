"""Batch axes with labels: what the containers of :mod:`fastmetrics.tensor` share.

A *coordinate* is a column of labels laid along one batch axis. A dense axis has one coordinate
of the same name (``system``, ``topic``, ``threshold``); the ``cell`` axis of an exact threshold
sweep carries several coordinates (``system``, ``topic``, ``threshold`` per cell), because each
group has its own thresholds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from .._errors import InputError, ParameterError
from .._show import labels_text


def check_layout(shape, axes, coords, coord_axes) -> None:
    """Refuse axis names and coordinates that do not fit a batch shape.

    Parameters
    ----------
    shape : tuple of int
        The batch shape.
    axes : sequence of str
        One name per batch axis.
    coords : mapping of str to array_like
        Labels per coordinate.
    coord_axes : mapping of str to str
        The axis of each coordinate not named after its axis.

    Raises
    ------
    InputError
        A count of names or labels that does not match, or a coordinate along an unknown axis.
    """
    if len(axes) != len(shape):
        raise InputError(f"{len(axes)} axis names given for {len(shape)} batch axes of shape {shape}.")
    for name, values in coords.items():
        axis = coord_axes.get(name, name)
        if axis not in axes:
            raise InputError(f"Coordinate '{name}' lies along unknown axis '{axis}'.")
        if len(values) != shape[axes.index(axis)]:
            raise InputError(
                f"Coordinate '{name}' has {len(values)} labels for axis '{axis}' of length {shape[axes.index(axis)]}."
            )


class Labelled:
    """Shared by ConfusionTensor and Scores: batch axes with labelled coordinates."""

    axes: tuple[str, ...]
    coords: dict[str, np.ndarray]
    coord_axes: dict[str, str]

    def _labels_lines(self) -> list[str]:
        """A line per coordinate: its name, a few labels and how many (:func:`labels_text`)."""
        lines = []
        for name, values in self.coords.items():
            along = self.coord_axes.get(name, name)
            lines.append("  " + labels_text(name, values) + (f", along {along}" if along != name else ""))
        return lines

    def _coord_columns(self, repeat: int = 1) -> dict[str, pa.Array]:
        """Every coordinate expanded to one value per cell, in C order of the batch axes, the
        whole block repeated ``repeat`` times. String labels become dictionary-encoded columns:
        a tidy table of 10M rows then costs integer indices, not 10M Python strings."""
        shape = self.batch_shape
        n = int(np.prod(shape, dtype=np.int64))
        grids = np.unravel_index(np.arange(n), shape) if shape else ()
        out = {}
        for name, values in self.coords.items():
            axis = self.axes.index(self.coord_axes.get(name, name))
            labels = np.asarray(values)
            index = grids[axis]
            if repeat > 1:
                index = np.tile(index, repeat)
            if labels.dtype == object:
                # labels may repeat (per-cell coordinates of an exact sweep): encode them first
                encoded = pa.array(labels.tolist()).dictionary_encode()
                codes = encoded.indices.to_numpy(zero_copy_only=False)[index]
                out[name] = pa.DictionaryArray.from_arrays(pa.array(codes.astype(np.int32)), encoded.dictionary)
            else:
                out[name] = pa.array(labels[index])
        return out

    def _select(self, labels: Mapping[str, object]):
        """Index tuple and new (axes, coords, coord_axes) for selection by label."""
        index: list = [slice(None)] * len(self.axes)
        axes = list(self.axes)
        coords = dict(self.coords)
        for name, wanted in labels.items():
            if name not in self.axes:
                raise ParameterError(f"Cannot select on '{name}': the axes are {', '.join(self.axes)}.")
            values = np.asarray(self.coords[name])
            scalar = np.ndim(wanted) == 0
            wanted_list = [wanted] if scalar else list(wanted)
            positions = []
            for w in wanted_list:
                hit = np.flatnonzero(values == w)
                if hit.size == 0:
                    raise ParameterError(
                        f"No {name} labelled {w!r}; known: {', '.join(map(str, values[:10]))}"
                        + (" ..." if values.size > 10 else "")
                        + "."
                    )
                positions.append(int(hit[0]))
            i = self.axes.index(name)
            if scalar:
                index[i] = positions[0]
            else:
                index[i] = np.asarray(positions)
                coords[name] = values[positions]
        for name, wanted in labels.items():
            if np.ndim(wanted) == 0:
                axes.remove(name)
                coords.pop(name)
        return tuple(index), tuple(axes), coords


@dataclass(frozen=True)
class Roles:
    """The columns playing the system, the topic and the item, by the user's names.

    Counting reads these columns where they are and names the count axes after them (the plan
    carries one ``Roles``); the stages after it find the system and topic axes of a tensor or of
    scores by the same names and give their output columns those names, so nothing is renamed on
    the way in or out.

    Parameters
    ----------
    system, topic, item : str, default "system", "topic", "item"
        The columns (axes) playing each part.

    Raises
    ------
    ParameterError
        One column named to play both the system and the topic.
    """

    system: str = "system"
    topic: str = "topic"
    item: str = "item"

    def __post_init__(self):
        if self.system == self.topic:
            raise ParameterError(f"One column cannot play both the system and the topic: '{self.system}'.")

    @property
    def identity(self) -> tuple:
        """The columns identifying a run's ranking: (system, topic)."""
        return (self.system, self.topic)

    def pair(self, part: str) -> tuple[str, str]:
        """The columns of a pair of systems (``part="system"``) or topics: ``<name>_a, <name>_b``.

        Parameters
        ----------
        part : {"system", "topic"}

        Returns
        -------
        tuple of str
            E.g. ``("annotator_a", "annotator_b")`` when ``annotator`` plays the system.
        """
        name = getattr(self, part)
        return f"{name}_a", f"{name}_b"


def group_starts(tensor, skip=("threshold", "rank")) -> tuple[np.ndarray, tuple[str, ...]]:
    """Where each group of a ``cell`` tensor starts (its cells are contiguous), and the group axes.

    Parameters
    ----------
    tensor : ConfusionTensor or Scores
        With a ``cell`` axis and per-cell coordinates.
    skip : sequence of str
        The coordinates that vary inside a group.

    Returns
    -------
    starts : ndarray of int64
        ``starts[g]:starts[g + 1]`` are group ``g``'s cells; the last entry is the cell count.
    axes : tuple of str
        The coordinates that name a group.
    """
    axes = tuple(c for c in tensor.coords if c not in skip)
    known = getattr(tensor, "_group_starts", None)
    # a counter that knows its groups leaves them here, with the coordinates they were found for
    if known is not None and known[0] == axes and all(tensor.coords[a] is c for a, c in zip(axes, known[1])):
        return known[2], axes
    n = tensor.batch_shape[0]
    first = np.zeros(n, bool)
    first[:1] = True
    for a in axes:
        labels = np.asarray(tensor.coords[a])
        first[1:] |= labels[1:] != labels[:-1]
    return np.append(np.flatnonzero(first), n).astype(np.int64), axes
