"""Combining counts: the counts of several tensors summed cell by cell over the union of their
labels (what :meth:`~fastmetrics.tensor.ConfusionTensor.merge` and
:meth:`~fastmetrics.tensor.ConfusionTensor.concat` do), and the cells of a threshold sweep pooled
over groups.

The functions read the parts' counts and labels (``counts``, ``axes``, ``coords``, ``classes``,
``cells``) and return the arguments of the container they make, which
:mod:`fastmetrics.tensor.counts` builds: the containers use this module, not the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .._errors import ParameterError
from .._numbers import parameter
from .labels import group_starts


def combined_counts(parts: Sequence, along: str | None) -> dict:
    """The arguments of the :class:`~fastmetrics.tensor.ConfusionTensor` of ``parts`` combined.

    Parameters
    ----------
    parts : sequence of ConfusionTensor
        Not multilabel; the first fixes the order of the axes, the classes and the labels it holds.
    along : str or None
        The axis whose labels may not repeat across parts (``concat``), or None (``merge``).

    Returns
    -------
    dict
        ``counts, axes, coords`` and ``coord_axes, classes``.

    Raises
    ------
    ParameterError
        See :meth:`~fastmetrics.tensor.ConfusionTensor.merge` and
        :meth:`~fastmetrics.tensor.ConfusionTensor.concat`.
    """
    orders = _class_orders([p.classes for p in parts], "classes")
    counts = [p.counts[..., o, :][..., :, o] for p, o in zip(parts, orders)]
    if any(p.cells for p in parts):
        return _combine_cells(parts, counts, along)
    own_axes = [p.axes for p in parts]
    for i, part in enumerate(parts):
        if set(part.coords) != set(part.axes):
            raise ParameterError(
                f"Part {i} has coordinates ({', '.join(part.coords)}) besides its axes: merge and concat "
                "take counts with one coordinate per axis."
            )
    labels, positions = _aligned_axes(parts, own_axes, along)
    out = _scatter(own_axes, counts, labels, positions)
    return dict(counts=out, axes=parts[0].axes, coords=labels, classes=parts[0].classes)


def combined_statistics(parts: Sequence, along: str | None, names: Sequence[str]) -> tuple:
    """Multilabel statistics summed over the union of the group labels (they are additive).

    Parameters
    ----------
    parts : sequence of MultilabelTensor
    along : str or None
        As in :func:`combined_counts`.
    names : sequence of str
        The statistics, in the order of the container's arguments.

    Returns
    -------
    stats : list of ndarray
        One per name.
    axes : tuple of str
        The group axes.
    coords : dict
        Their labels.
    """
    order = _class_orders([p.categories for p in parts], "categories")
    own_axes = [p.group_axes for p in parts]
    labels, positions = _aligned_axes(parts, own_axes, along)
    stats = []
    for name in names:
        arrays = [getattr(p, name) for p in parts]
        if name == "cooccurrence":
            arrays = [a[..., o, :][..., :, o] for a, o in zip(arrays, order)]
        elif name in ("gold_size", "pred_size"):
            arrays = [a[..., o] for a, o in zip(arrays, order)]
        stats.append(_scatter(own_axes, arrays, labels, positions))
    return stats, own_axes[0], labels


def _class_orders(classes: list, what: str) -> list[np.ndarray]:
    """For each part, the positions of the first part's classes among its own."""
    first = np.asarray(classes[0]).tolist()
    orders = []
    for i, own in enumerate(classes):
        own = np.asarray(own).tolist()
        if sorted(map(str, own)) != sorted(map(str, first)) or len(own) != len(first):
            raise ParameterError(
                f"Part {i} has {what} ({', '.join(map(str, own))}); the first has ({', '.join(map(str, first))}): "
                f"merge and concat need the same {what} (count every part with classes=[...])."
            )
        where = {str(c): k for k, c in enumerate(own)}
        orders.append(np.array([where[str(c)] for c in first], dtype=np.intp))
    return orders


def _aligned_axes(parts, own_axes: list, along: str | None):
    """Union of the labels of each axis (first part's order, then new labels in order) and each
    part's positions in it; thresholds must be equal and labels along ``along`` new.

    ``own_axes[i]`` are part ``i``'s axes (its group axes for multilabel counts)."""
    axes = own_axes[0]
    for i, own in enumerate(own_axes):
        if set(own) != set(axes):
            raise ParameterError(
                f"Part {i} has axes ({', '.join(own)}); the first has ({', '.join(axes)}): merge and concat "
                "need the same axes (count every part with the same by=)."
            )
    if along is not None and along not in axes:
        raise ParameterError(f"Cannot concatenate along '{along}': the axes are {', '.join(axes) or 'none'}.")
    labels, positions = {}, [[] for _ in parts]
    for axis in axes:
        per_part = [np.asarray(p.coords[axis]) for p in parts]
        if axis == "threshold":
            _same_thresholds(per_part)
        if axis == along:
            _disjoint(axis, per_part)
        labels[axis] = _union(axis, per_part)
        index = {v: k for k, v in enumerate(labels[axis].tolist())}
        for k, values in enumerate(per_part):
            positions[k].append(np.array([index[v] for v in values.tolist()], dtype=np.intp))
    return labels, positions


def _union(axis: str, arrays: list) -> np.ndarray:
    kinds = {"text" if a.dtype.kind in "OSU" else "number" for a in arrays if a.size}
    if len(kinds) > 1:
        raise ParameterError(
            f"The labels of '{axis}' are text in one part and numbers in another: give them one type "
            "(e.g. read every part with the same column types)."
        )
    labels = list(dict.fromkeys(v for a in arrays for v in a.tolist()))
    return np.asarray(labels, dtype=object if kinds == {"text"} else None)


def _layout(part) -> str:
    """How a part was counted, for messages: a sweep of per-cell coordinates, a grid, or plain counts."""
    if part.cells:
        inside = [c for c in ("threshold", "rank") if c in part.coords]
        named = [c for c in part.coords if c not in inside]
        return f"a sweep with a {' and '.join(inside) or 'coordinate'} per cell (groups {', '.join(named) or 'none'})"
    at = " at thresholds" if "threshold" in part.axes else " without thresholds"
    return f"counts over ({', '.join(a for a in part.axes if a != 'threshold') or 'no axis'}){at}"


def _same_thresholds(per_part: list) -> None:
    for i, grid in enumerate(per_part[1:], 1):
        if grid.shape != per_part[0].shape or not np.array_equal(grid, per_part[0]):
            raise ParameterError(
                f"Part {i} was swept at other thresholds ({_shown(grid)}) than the first ({_shown(per_part[0])}): "
                "count every part at the same thresholds, e.g. thresholds=[0.1, 0.2, ...] (a grid of k "
                "thresholds spans each input's own score range)."
            )


def _disjoint(axis: str, per_part: list) -> None:
    seen: set = set()
    for i, values in enumerate(per_part):
        again = [v for v in dict.fromkeys(values.tolist()) if v in seen]
        if again:
            raise ParameterError(
                f"Part {i} holds {axis} {', '.join(map(repr, again[:5]))}{' ...' if len(again) > 5 else ''} "
                f"already held by an earlier part: concat adds new {axis} labels; use merge to add the "
                "counts of more items of the same cells."
            )
        seen.update(values.tolist())


def _shown(values: np.ndarray, n: int = 4) -> str:
    return ", ".join(parameter(v) if isinstance(v, float) else str(v) for v in values.tolist()[:n]) + (
        " ..." if values.size > n else ""
    )


def _scatter(own_axes: list, arrays: list, labels: dict, positions: list) -> np.ndarray:
    """Each part's arrays (leading axes in the part's own order) added at its positions."""
    axes = own_axes[0]
    trailing = arrays[0].shape[len(axes) :]
    out = np.zeros(tuple(len(labels[a]) for a in axes) + trailing, np.result_type(*arrays))
    for own, array, pos in zip(own_axes, arrays, positions):
        order = [own.index(a) for a in axes]
        array = np.transpose(array, order + list(range(len(axes), array.ndim)))
        out[np.ix_(*pos)] += array
    return out


def _combine_cells(parts, counts: list, along: str | None) -> dict:
    """Sweeps of per-cell thresholds: new groups are appended, shared groups merged."""
    j = next(k for k, p in enumerate(parts) if p.cells)  # a sweep: the parts are compared with it
    names = list(parts[j].coords)
    for i, part in enumerate(parts):
        if not part.cells or set(part.coords) != set(names):
            raise ParameterError(
                f"Part {i} is {_layout(part)}; part {j} is {_layout(parts[j])}: merge and concat take parts "
                "counted the same way (the same thresholds= and by=)."
            )
    groups = [c for c in names if c not in ("threshold", "rank")]
    if along is not None:
        if along not in groups:
            raise ParameterError(
                f"Cannot concatenate along '{along}': the groups of this sweep are named by {', '.join(groups)}."
            )
        _disjoint(along, [np.asarray(p.coords[along]) for p in parts])
    if "rank" in names:
        if along is None:
            raise ParameterError(
                "Sweeps of ranks (thresholds='ranks') do not merge: a rank depends on every item of a "
                "topic. Combine the runs and count them again."
            )
        for c in groups:
            _union(c, [np.asarray(p.coords[c]) for p in parts])  # one kind of label per coordinate
        coords = {c: np.concatenate([np.asarray(p.coords[c]) for p in parts]) for c in names}
        return _cells(np.concatenate(counts), coords, parts[0].classes)
    pieces = _group_pieces(parts, counts, groups)
    labels = {c: [np.asarray(p.coords[c]) for p in parts] for c in groups}
    return _from_pieces(pieces, groups, labels, parts[0].classes)


def pooled_cells(tensor, over: Sequence[str]) -> dict:
    """The arguments of :func:`fastmetrics.tensor.pool_cells`' tensor (see there)."""
    if "rank" in tensor.coords or "threshold" not in tensor.coords:
        raise ParameterError(
            f"Cannot pool a sweep of ranks over {', '.join(over)}: a rank depends on every item of a topic. "
            "Count the runs again, grouped as wanted."
        )
    unknown = [c for c in over if c not in tensor.coords or c == "threshold"]
    if unknown:
        raise ParameterError(f"Cannot pool over '{unknown[0]}': the groups are named by {', '.join(tensor.coords)}.")
    groups = [c for c in tensor.coords if c not in over and c != "threshold"]
    pieces = _group_pieces([tensor], [tensor.counts], groups)
    return _from_pieces(pieces, groups, {c: [np.asarray(tensor.coords[c])] for c in groups}, tensor.classes)


def _group_pieces(parts, counts: list, groups: list) -> dict:
    """Each group's cells ``(thresholds, counts)``, per part, keyed by its ``groups`` labels."""
    pieces: dict = {}
    for part, array in zip(parts, counts):
        starts, _ = group_starts(part, skip=("threshold",))
        for a, b in zip(starts[:-1], starts[1:]):
            key = tuple(part.coords[c][a] for c in groups)
            pieces.setdefault(key, []).append((np.asarray(part.coords["threshold"][a:b], np.float64), array[a:b]))
    return pieces


def _from_pieces(pieces: dict, groups: list, labels: dict, classes) -> dict:
    """The cells of every group, the pieces of each merged, groups in the order of ``pieces``."""
    merged = [(key, *_merge_sweeps(p)) for key, p in pieces.items()]
    sizes = [len(thresholds) for _, thresholds, _ in merged]
    kinds = {c: _union(c, labels[c]).dtype for c in groups}
    coords = {c: np.repeat(np.array([key[i] for key, _, _ in merged], kinds[c]), sizes) for i, c in enumerate(groups)}
    coords["threshold"] = np.concatenate([t for _, t, _ in merged])
    out = np.concatenate([c for _, _, c in merged])
    return _cells(out, coords, classes)


def _cells(counts: np.ndarray, coords: dict, classes) -> dict:
    """The arguments of a tensor over one ``cell`` axis, every coordinate along it."""
    return dict(counts=counts, axes=("cell",), coords=coords, coord_axes={c: "cell" for c in coords}, classes=classes)


def _merge_sweeps(pieces: list) -> tuple[np.ndarray, np.ndarray]:
    """One group's cells from several parts: a cell at every threshold of any part."""
    if len(pieces) == 1:
        return pieces[0]
    thresholds = np.unique(np.concatenate([t for t, _ in pieces]))[::-1]  # decreasing, as count() orders them
    return thresholds, sum(counts_at(own, counts, thresholds) for own, counts in pieces)


def counts_at(own: np.ndarray, counts: np.ndarray, thresholds: np.ndarray) -> np.ndarray:
    """One group's counts at any ``thresholds`` from its exact-sweep cells.

    At a threshold ``t`` the items with ``score >= t`` are predicted positive: the counts are those
    of the group's lowest own threshold ``>= t``, or, when it has none, every item negative.

    Parameters
    ----------
    own : ndarray of float64
        The group's own thresholds, decreasing (as an exact sweep orders its cells).
    counts : ndarray, shape (len(own), 2, 2)
        The counts at each of them.
    thresholds : ndarray of float64
        Where to read the counts.

    Returns
    -------
    ndarray, shape (len(thresholds), 2, 2)
    """
    at_or_above = own.size - np.searchsorted(own[::-1], thresholds, side="left")
    reached = at_or_above > 0
    out = np.zeros((thresholds.size, 2, 2), counts.dtype)
    out[reached] = counts[at_or_above[reached] - 1]
    if counts.shape[0]:
        out[~reached, 0, 0] = counts[0, 0].sum()  # nothing predicted positive: every negative a tn,
        out[~reached, 1, 0] = counts[0, 1].sum()  # every positive a fn
    return out
