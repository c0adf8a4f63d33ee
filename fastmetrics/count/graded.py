"""Ranked lists against graded judgements: the ranks sweep at every grade (:class:`GradedRanks`)."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError
from ..io import read_gold, read_qrels
from ..io.paths import detect_format
from ..tensor.graded import GradedRanks
from .api import count, rank_sweeps_at_levels

# the options the one-pass sweep of every grade takes (others: a count per grade)
_ONE_PASS = {"ties", "missing", "unjudged", "format", "system", "topic", "item", "score"}


def graded_table(gold, *, gold_column: str = "gold", native=None) -> pa.Table:
    """The judgements with their grades: TREC qrels read with their ``rel`` column as it is.

    Parameters
    ----------
    gold : path or table
        TREC qrels, or any gold :func:`~fastmetrics.io.read_gold` reads, with numeric grades.
    gold_column : str, default "gold"
        The grades' column of a table.
    native : bool, optional
        See :func:`~fastmetrics.io.open_source`.

    Returns
    -------
    pyarrow.Table
        ``topic, item, gold`` with float64 grades in ``gold`` (named ``gold_column``).

    Raises
    ------
    InputError
        The grades are not numbers.
    """
    if isinstance(gold, (str, os.PathLike)) and not os.path.isdir(gold) and detect_format(str(gold)) == "qrels":
        table = read_qrels(str(gold), relevance_level=None, native=native)
        return table.rename_columns([gold_column if c == "gold" else c for c in table.column_names])
    table = read_gold(gold, gold_column=gold_column, native=native)
    kind = table.schema.field(gold_column).type if gold_column in table.column_names else None
    if kind is None or not (pa.types.is_integer(kind) or pa.types.is_floating(kind)):
        raise InputError(
            f"Graded measures (ndcg, bpref, judged_at_k) read numeric relevance grades; the gold's column "
            f"'{gold_column}' is {kind or 'missing'}. Give TREC qrels or a numeric grade column."
        )
    grades = pc.cast(table[gold_column], pa.float64())
    return table.set_column(table.column_names.index(gold_column), gold_column, grades)


def count_graded(source, gold, *, relevance_level: float = 1.0, gold_column: str = "gold", native=None, **options):
    """The ranks sweep of runs at every relevance grade of the gold, and of its judged items.

    Parameters
    ----------
    source : path or table
        The runs, as :func:`~fastmetrics.count` reads them.
    gold : path or table
        Graded judgements (see :func:`graded_table`).
    relevance_level : float, default 1
        The grade from which an item is relevant for binary measures (trec_eval's ``-l``).
    gold_column : str, default "gold"
    native : bool, optional
    **options
        Other options of :func:`~fastmetrics.count` (``missing``, ``unjudged``, ``ties``,
        ``format``, the roles); ``thresholds`` is ``"ranks"``.

    Returns
    -------
    GradedRanks
        One ranks sweep per positive grade found, and one of the judged items (grade >= 0).
    """
    table = graded_table(gold, gold_column=gold_column, native=native)
    values = table[gold_column].to_numpy(zero_copy_only=False)
    grades = np.unique(values[values > 0])
    if set(options) <= _ONE_PASS:
        # every grade and the judged items in one join and one sweep of the ranked lists
        levels = [*grades.tolist(), 0.0]
        swept = rank_sweeps_at_levels(source, table, levels, gold_column=gold_column, native=native, **options)
        if swept is not None:
            return GradedRanks(grades.astype(np.float64), swept[:-1], swept[-1], float(relevance_level))

    def at(level):
        binary = pc.greater_equal(table[gold_column], pa.scalar(level, pa.float64()))
        level_gold = table.set_column(table.column_names.index(gold_column), gold_column, binary)
        return count(source, level_gold, thresholds="ranks", gold_column=gold_column, native=native, **options)

    tensors = tuple(at(float(g)) for g in grades)
    return GradedRanks(grades.astype(np.float64), tensors, at(0.0), float(relevance_level))
