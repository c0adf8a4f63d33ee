"""A separate gold's keys: normalised to ``topic, item, gold`` columns, checked for judgements given
twice, and coded like the runs' columns so that the two can be joined."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from ..io.gold import GOLD_FILE
from ..io.gold import gold_table as load_gold
from ..io.labels import require_columns
from ._codes import N_KINDS, rows_chunk
from .encoders import ABSENT_COLUMN, Encoder


def column_codes(encoder: Encoder, array: pa.Array, part) -> np.ndarray:
    """Codes of a whole (small) column, e.g. of the gold table; -1 is an error here."""
    n = len(array)
    codes, unused = np.empty(n, np.int64), np.empty(n, np.int64)
    err = np.full(N_KINDS, -1, np.int64)
    rows_chunk(
        0,
        n,
        encoder.encode(array, part),
        ABSENT_COLUMN,
        1,
        ABSENT_COLUMN,
        ABSENT_COLUMN,
        codes,
        unused,
        np.zeros(0, np.int64),
        err,
    )
    if err.max() >= 0:
        raise encoder.explain(array, int(err.max()), part)
    return codes


def check_unique_gold(gold: pa.Table, keys: list, name: str | None = None) -> None:
    """Raise an :class:`InputError` naming the first ``keys`` value the gold has more than once.

    The message names the rows holding it (of the file ``name``, when the gold is one file).
    """
    grouped = gold.select(keys).group_by(keys).aggregate([([], "count_all")])
    dup = grouped.filter(pc.greater(grouped.column("count_all"), 1))
    if not dup.num_rows:
        return
    where = ", ".join(f"{k}={dup.column(k)[0].as_py()!r}" for k in keys)
    mask = None
    for k in keys:
        same = pc.equal(gold.column(k), dup.column(k)[0])
        mask = same if mask is None else pc.and_(mask, same)
    rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
    shown = ", ".join(map(str, rows[:4].tolist())) + (" ..." if rows.size > 4 else "")
    of = f"of '{name}'" if name else "of the gold table"
    raise InputError(f"The gold has ({', '.join(keys)}) = ({where}) more than once (rows {shown} {of}).")


def check_normalised_gold(gold: pa.Table, keys: list) -> None:
    """Run :func:`check_unique_gold` on a :func:`normalised_gold` table.

    The message names the gold's own columns and its file, as before the gold was normalised."""
    meta = gold.schema.metadata or {}
    own = dict(pair.split("\0") for pair in meta.get(_GOLD_NAMES, b"").decode().split("\0\0") if "\0" in pair)
    if all(c in own for c in gold.column_names):
        gold = gold.rename_columns([own[c] for c in gold.column_names])
        keys = [own[k] for k in keys]
    check_unique_gold(gold, keys, meta.get(GOLD_FILE, b"").decode() or None)


# schema metadata of a normalised gold: each column's name and the gold's own name for it
_GOLD_NAMES = b"fastmetrics.gold_columns"


def normalised_gold(gold, item: str, gold_column: str, *, topic: str = "topic", unique: bool = True) -> pa.Table:
    """A separate gold as a table ``[topic,] item, gold`` (validated: no nulls, unique keys).

    Parameters
    ----------
    gold : path or pyarrow.Table
    item, gold_column : str
        The gold's item and label columns when it has them (else ``item`` and ``gold``).
    topic : str, default "topic"
        The runs' topic column: the gold's topic when it has that column (else its ``topic``).
    unique : bool, default True
        Check that no ``(topic, item)`` is judged twice; a caller that finds duplicates on its own
        (:mod:`._ranks` and :mod:`.goldindex`, in their hash tables; :func:`build` checks the rest
        by :func:`check_normalised_gold`) skips the group-by.

    Returns
    -------
    pyarrow.Table
        The gold's own topic, item and label columns under the names ``topic``, ``item`` and
        ``gold``: the count stage's name for its gold, never the runs' columns.
    """
    table = load_gold(gold)
    names = table.column_names
    item = item if item in names else "item"
    label = gold_column if gold_column in names else "gold"
    topic = topic if topic in names else "topic" if "topic" in names else None
    one_file = (table.schema.metadata or {}).get(GOLD_FILE, b"").decode() or None
    require_columns(
        names, [item, label], str(gold) if isinstance(gold, (str, os.PathLike)) else "gold", " of a gold table"
    )
    own = ([topic] if topic else []) + [item, label]
    table = table.select(own)
    if table.num_rows == 0:
        raise InputError("The gold table has no rows.")
    for name in own:
        if table.column(name).null_count:
            raise InputError(f"Column '{name}' in 'gold' has a missing (null) value.")
    if pa.types.is_dictionary(table.schema.field(item).type):
        table = table.set_column(
            own.index(item), item, table.column(item).cast(table.schema.field(item).type.value_type)
        )
    if unique:
        check_unique_gold(table, own[:-1], one_file)  # in the gold's own names
    names = (["topic"] if topic else []) + ["item", "gold"]
    pairs = "\0\0".join(f"{name}\0{mine}" for name, mine in zip(names, own)).encode()
    kept = {_GOLD_NAMES: pairs} | ({GOLD_FILE: one_file.encode()} if one_file else {})
    # (renaming drops a schema's metadata)
    return table.rename_columns(names).replace_schema_metadata({**(table.schema.metadata or {}), **kept})


def gold_keys_like(gold: pa.Table, runs: pa.Table, keys: list, run_keys: list) -> pa.Table:
    """Cast the gold's key columns ``keys`` to the types of the runs' ``run_keys``, for a join.

    A key that does not convert is an :class:`InputError`.

    Parameters
    ----------
    gold, runs : pyarrow.Table
    keys, run_keys : list of str
        The join keys in each.

    Returns
    -------
    pyarrow.Table
    """
    for key, run_key in zip(keys, run_keys):
        target = runs.schema.field(run_key).type
        try:
            gold = gold.set_column(gold.column_names.index(key), key, gold.column(key).cast(target))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
            raise InputError(
                f"Column '{key}' of the gold has type {gold.schema.field(key).type}, which does not convert to the "
                f"runs' '{run_key}' type {target}: the gold cannot be joined to the runs."
            ) from None
    return gold
