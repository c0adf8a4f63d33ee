"""Gold read apart from the runs: from run-format files, TREC qrels or table files, or given as a
table; graded relevance made binary."""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .labels import not_text_error, not_utf8, python_value
from .runfiles import checked_level, graded_gold
from .source import decode_dictionaries, open_source, table_from_object

# schema metadata of a gold read from one file: the file (rows of the table are its rows)
GOLD_FILE = b"fastmetrics.gold_file"


def gold_table(gold) -> pa.Table:
    """Read a separate gold given as a path or as an in-memory table.

    A path is read by :func:`read_gold` (run-format file, TREC qrels or table file); a table has
    its dictionary-encoded columns decoded. A text column holding a value that is not UTF-8 is
    refused, naming its row.
    """
    if isinstance(gold, (str, list, tuple)) or hasattr(gold, "__fspath__"):
        table = read_gold(gold)
    else:
        table = decode_dictionaries(table_from_object(gold))
    part = (table.schema.metadata or {}).get(GOLD_FILE, b"<table>").decode("utf-8", "replace")
    for name, column in zip(table.column_names, table.columns):
        bad = not_utf8(column.combine_chunks())
        if bad is not None:
            raise not_text_error(name, part, int(np.argmax(bad)), python_value(column, int(np.argmax(bad))))
    return table


QRELS_LEVEL = object()  # read_gold's default level: 1 for TREC qrels, other gold read as it is


def read_gold(
    source, *, format: str = "auto", relevance_level=QRELS_LEVEL, gold_column: str = "gold", native: bool | None = None
) -> pa.Table:
    """Read a gold table from run-format files, TREC qrels or table files.

    A run-format file's ``label`` is the gold; a table file carries ``topic, item, gold`` columns.

    Parameters
    ----------
    source : str, path, or sequence of them
        Files, folders or glob patterns (see :func:`list_inputs` with ``kind="gold"``).
    format : {"auto", "parquet", "csv", "ipc", "run", "qrels", "trec"}, default "auto"
        ``auto`` decides by suffix, then by the first data line: 4 fields (``qid iter docno
        rel``) are TREC qrels, 5 fields a ``topic item rank score label`` file. ``trec`` and
        ``qrels`` both read TREC qrels.
    relevance_level : number, optional
        Graded relevance made binary, ``gold = grade >= relevance_level``: TREC qrels' ``rel``
        (default 1, as ``trec_eval -l``) and, when given, a numeric gold column of any other
        gold file (``gold_column``, else ``gold``; grades 0/1/2 are otherwise three classes).
    gold_column : str, default "gold"
        The gold column of a table file (the runs' ``--gold-column``).
    native : bool, optional
        False reads every file with pyarrow only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, gold`` (bool) for qrels; ``topic, item, rank, score, gold`` for a
        run-format file; the table's own columns otherwise.
    """
    given = relevance_level is not QRELS_LEVEL
    level = checked_level(relevance_level if given else 1)
    src = open_source(source, format=format, label_name="gold", kind="gold", relevance_level=level, native=native)
    table = src.read_all()
    if given:
        table = graded_gold(table, gold_column if gold_column in table.column_names else "gold", level, src.names)
    if "rank" in table.column_names and "system" in table.column_names:
        table = table.drop_columns(["system"])  # a gold file is not a system
    if len(src.names) == 1:  # its rows are that file's: an error about them names it
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), GOLD_FILE: src.names[0]})
    return table
