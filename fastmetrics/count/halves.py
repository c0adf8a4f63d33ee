"""Random halves of each topic's items, the same for every system (held-out threshold selection)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._seeding import rng_of
from ..io.labels import require_columns


def with_halves(table, seed: int = 0, *, topic: str | None = "topic", item: str = "item", column: str = "half"):
    """The table with a column ``half`` (0 or 1) splitting each topic's items at random.

    The two halves have equal size (one more in half 0 when odd); the split is the same for every
    system.

    What threshold selection on held-out items counts by (``select="split-half"``).

    Parameters
    ----------
    table : pyarrow.Table
        Runs with an item column (and a topic column, if any).
    seed : int, default 0
    topic, item, column : str
        Column names (``topic=None``: one topic).

    Returns
    -------
    pyarrow.Table
    """
    require_columns(table.column_names, [item], "the input", " to split items into halves")
    topic = topic if topic in table.column_names else None
    keys = [c for c in (topic, item) if c is not None]
    joined = (
        pc.binary_join_element_wise(*[pc.cast(table.column(c), pa.string()) for c in keys], "\x1f")
        if len(keys) > 1
        else pc.cast(table.column(item), pa.string())
    )
    encoded = pc.dictionary_encode(joined).combine_chunks()
    distinct = encoded.dictionary
    n = len(distinct)
    group = np.zeros(n, np.int64)
    if topic is not None:
        first = pc.dictionary_encode(pc.cast(table.column(topic), pa.string())).combine_chunks()
        owner = np.zeros(n, np.int64)
        owner[encoded.indices.to_numpy()] = first.indices.to_numpy()
        group = owner
    rng = rng_of(seed)
    half = np.zeros(n, np.int8)
    for g in np.unique(group):
        members = np.flatnonzero(group == g)
        half[rng.permutation(members)[(members.size + 1) // 2 :]] = 1
    return table.append_column(column, pa.array(half[encoded.indices.to_numpy()]))
