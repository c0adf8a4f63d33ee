"""Pass 2 of counting: record batches against a :class:`~fastmetrics.count.plan.CountPlan`.

A :class:`Tally` holds the running counts (a ``[group, m, m]`` array for hard predictions, a
``[group, 2, k + 1]`` histogram for a grid, the encoded rows for an exact sweep) and the set of
(run, item) keys seen so far. Both are additive, so a tally of a Dask partition merges with
another's; a key met twice -- in one batch, across batches, row groups, files or partitions -- is
a duplicated item. :meth:`Tally.finish` applies the missing policy and builds the tensor.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa

from .. import _memory
from .._errors import InputError, ParameterError
from . import _codes, _hard, _marks, _small, _sweep, goldindex
from .encoders import ABSENT_COLUMN, code_column, score_range, score_view, where
from .plan import CountPlan

# One partial count array per thread up to this size (summed once, after the last batch);
# beyond it, one array shared by a single thread costs less memory.
_PARTIAL_BYTES = 256 << 20
# A (run, item) bitmap up to this many bits; beyond it, keys are sorted at the end instead.
_BITMAP_BITS = 1 << 32
# Batches smaller than this are counted by numpy (fastmetrics.count._small): no kernel compiled.
SERIAL_ROWS = 1 << 16


# The counting kernels check a run's items at a cost a run (see ``_hard.new_keys``): rows whose
# (system, topic) runs are shorter than this on average are checked in a pass of their own, a
# cost a row. Measured on W1's rows shuffled (runs of one row): 607 -> 223 ms for
# fm.count(file), against 55 ms either way for its rows grouped (docs/guides/performance.md).
_FUSED_RUN = 16
# rows sampled at a batch's start for the length of its runs
_RUN_SAMPLE = 4096


def _long_runs(a, b, n: int) -> bool:
    """Whether the first rows of a batch come in runs of one (system, topic) of ``_FUSED_RUN``
    rows or more on average (grouping columns in the kernels' forms; a bitmap column, never a
    run of rows' axis in practice, counts as one value)."""
    rows = min(n, _RUN_SAMPLE)
    changes = np.zeros(max(rows - 1, 0), np.bool_)
    for column in (a, b):
        if len(column) == 3:
            stored = np.asarray(column[0][:rows])
            changes |= stored[1:] != stored[:-1]
    return rows >= _FUSED_RUN * (1 + int(np.count_nonzero(changes)))


class Tally:
    """Running counts of one plan; see the module docstring."""

    def __init__(self, plan: CountPlan, keep_rows: bool = False):
        self.plan = plan
        self.rows = 0
        # (group, gold class, predicted class, item key) per batch, for resampling
        self.kept = [] if keep_rows else None
        self._items = None
        self._before = None  # the item bitmap before the batch counted with its items checked
        self._templates = None  # the counting kernels' item templates (see Tally._marks)
        self.parts = []  # part names in the order met (for duplicate messages)
        dtype = np.float64 if plan.request.weight else np.int64
        n_groups, m = plan.n_groups, plan.m
        shape = {
            "hard": (n_groups, m, m),
            "sweep": (n_groups, 2, (plan.grid.size + 1) if plan.grid is not None else 1),
        }.get(plan.mode)
        self.pieces = []
        threads = numba.get_num_threads()
        # one partial count array per thread, kept across batches and summed by `acc`
        cell_bytes = int(np.prod(shape, dtype=np.int64)) * 8 if shape else 0
        chunks = max(1, min(threads, _PARTIAL_BYTES // max(cell_bytes, 1)))
        # in Arrow's pool (fastmetrics._memory.empty): a sweep's partials are tens of MiB a call
        self.partial = _memory.zeros((chunks,) + shape, dtype) if shape else None
        self.errors = np.full((threads, _codes.N_KINDS), -1, np.int64)
        self.seen, self.keys, self.n_keys = self._key_space()

    def _key_space(self):
        """(bitmap, key list, keys per run) for the duplicate check, or Nones without items."""
        plan = self.plan
        if plan.join is not None:
            stride, n_topics = plan.topic_stride()
            n_runs, n_items = plan.n_groups // n_topics, plan.join.n_gold
        elif plan.item is not None:
            n_runs, n_items = plan.n_groups, plan.item.size
        else:
            return None, None, 0
        if n_runs * n_items <= _BITMAP_BITS:
            # whole 64-bit words: the counting kernels mark a word at a time
            return np.zeros((n_runs * n_items + 63) // 64 * 8, np.uint8), None, n_items
        return None, [], n_items

    # -- pass 2 -----------------------------------------------------------------------------
    def add(self, batch: pa.RecordBatch, part, offset: int = 0) -> None:
        """Count one record batch (``offset``: its first row's index in ``part``)."""
        n = batch.num_rows
        if n == 0:
            return
        self.rows += n
        if part not in self.parts:
            self.parts.append(part)
        plan, request = self.plan, self.plan.request
        a, b, stride = self._group_columns(batch, part, offset)
        marks = _codes.NO_MARKS
        if plan.join is not None:
            gold = self._join(batch, part, offset, a, b, stride)
        else:
            gold = plan.gold.encode(batch.column(request.gold_column), part)
            if plan.item is not None:
                marks = self._marks(batch, part, stride, (a, b))
                if marks is _codes.NO_MARKS:
                    self._mark_items(batch, part, offset, a, b, stride, gold)
        # None: numba compiles the unweighted kernels without the branch
        weight = (
            score_view(batch.column(request.weight), request.weight, part, "weights").astype(np.float64, copy=False)
            if request.weight
            else None
        )
        errors = self.errors
        errors[:] = -1
        small = n < SERIAL_ROWS  # counted by numpy: no thread start-up, no kernel to compile
        clean = True
        if plan.mode == "hard":
            pred = plan.pred.encode(batch.column(request.pred), part)
            if small:
                _small.hard(n, a, b, stride, gold, pred, weight, self.partial[0], errors[0])
            else:
                clean = _hard.hard_batch(n, a, b, stride, gold, pred, weight, marks, self.partial, errors)
            if self.kept is not None:
                self._keep(n, a, b, stride, gold, pred, batch, part, offset)
        elif plan.mode == "sweep":
            score = score_view(batch.column(request.score), request.score, part)
            args = (a, b, stride, gold, score, weight)
            if small:
                _small.sweep(n, *args, plan.grid, self.partial[0], errors[0])
            else:
                grid = (plan.grid,) + plan.guide
                clean = _sweep.sweep_batch(n, *args, marks, grid, self.partial, errors)
        else:
            self._collect(a, b, stride, gold, batch, part, offset, weight, errors)
        if not clean:
            self.seen[:] = self._before
            self._mark_items(batch, part, offset, a, b, stride, gold)
            raise RuntimeError("fastmetrics: the item check of one pass and of a second pass disagree")  # a bug
        self._raise(errors, batch, part, offset)

    def _marks(self, batch, part, slots, groups):
        """``(item codes, keys per run, bitmap, templates, patterns)`` for the counting kernels to
        check items in their own pass (the bitmap copied first, for :meth:`_mark_items` to find
        the first duplicate should there be one), or :data:`~fastmetrics.count._codes.NO_MARKS`
        where items are checked in a pass of their own. ``slots``: the codes of the second
        grouping column, whose runs' items serve as templates (see ``_hard.new_keys``);
        ``groups``: the two grouping columns, whose runs decide (:func:`_long_runs`)."""
        n, seen = batch.num_rows, self.seen
        fused = self.plan.mode in ("hard", "sweep") and self.kept is None and n >= SERIAL_ROWS
        if not fused or seen is None or seen.size > 4 * n or not _long_runs(*groups, n):
            return _codes.NO_MARKS
        # one copy kept across batches: a new array each batch faulted its pages in each time
        if self._before is None:
            self._before = np.empty_like(seen)
        np.copyto(self._before, seen)
        if self._templates is None:
            self._templates = _hard.item_scratch(self.partial.shape[0], slots, self.n_keys)
        templates, patterns = self._templates
        templates[:] = -1  # a batch's stored items are its own (a dictionary per batch)
        item = self.plan.item.encode(batch.column(self.plan.request.item), part)
        return item, self.n_keys, seen, templates, patterns

    def _group_columns(self, batch, part, offset):
        """The two encoded grouping columns the kernels read, and the stride of the first. More
        than two axes are folded into one code column first."""
        plan = self.plan
        cols = [plan.encoders[c].encode(batch.column(c), part) for c in plan.axes]
        if len(cols) == 0:
            return ABSENT_COLUMN, ABSENT_COLUMN, 1
        if len(cols) == 1:
            return cols[0], ABSENT_COLUMN, 1
        if len(cols) == 2:
            return cols[0], cols[1], plan.sizes[1]
        group = np.zeros(batch.num_rows, np.int64)
        for i, col in enumerate(cols):
            codes, _, _ = self._rows(batch, part, offset, col, axis=i)
            group = group * plan.sizes[i] + codes
        return code_column(group, plan.n_groups), ABSENT_COLUMN, 1

    def _rows(
        self,
        batch,
        part,
        offset,
        a,
        b=ABSENT_COLUMN,
        stride=1,
        gold=ABSENT_COLUMN,
        pred=None,
        axis=0,
        gold_type=np.int64,
    ):
        """(group, gold, pred) codes of every row; a bad value is raised at once."""
        n = batch.num_rows
        group, gold_codes = np.empty(n, np.int64), np.empty(n, gold_type)
        pred_codes = np.empty(0 if pred is None else n, np.int64)
        errors = np.full((numba.get_num_threads(), _codes.N_KINDS), -1, np.int64)
        args = (a, b, stride, gold, ABSENT_COLUMN if pred is None else pred, group, gold_codes, pred_codes)
        if n < SERIAL_ROWS:
            _small.rows(n, *args, errors[0])
        else:
            _codes.rows_batch(n, *args, errors)
        if axis and errors.max() >= 0:  # a column of more than two axes, coded on its own
            name = self.plan.axes[axis]
            raise self.plan.encoders[name].explain(batch.column(name), int(errors[errors >= 0].min()), part)
        self._raise(errors, batch, part, offset)
        return group, gold_codes, pred_codes

    def _keep(self, n, a, b, stride, gold, pred, batch, part, offset):
        group, gold_codes, pred_codes = self._rows(batch, part, offset, a, b, stride, gold, pred)
        if self._items is None:
            raise InputError(f"Resampling items needs the '{self.plan.request.item}' column.")
        items = self._items
        if self.plan.join is None:
            t_stride, n_topics = self.plan.topic_stride()
            items = _marks.topic_item_keys(group, items, t_stride, n_topics, self.n_keys)
        self.kept.append((group, gold_codes, pred_codes, items))

    def _join(self, batch, part, offset, a, b, stride):
        """Join the separate gold: each row's gold class (as an encoded column), marking each
        (run, gold item) seen; a row the gold lacks or a key seen twice is an error."""
        plan, join = self.plan, self.plan.join
        n = batch.num_rows
        column = batch.column(plan.request.item)
        t_stride, n_topics = plan.topic_stride()
        err = np.full(_codes.N_KINDS, -1, np.int64)
        seen = self.seen if self.seen is not None else np.zeros(0, np.uint8)
        classes = None
        if join.index is not None and goldindex.is_string(column.type) and not column.null_count:
            # string items are looked up by topic in the gold's own index: no coding of the items
            # the gold rows are kept only for keys without a bitmap, or rows kept for resampling
            want_rows = self.seen is None or self.kept is not None
            joined = goldindex.join(
                join.index, column, a, b, stride, (t_stride, n_topics), join.classes, seen, join.n_gold, err, want_rows
            )
            self._raise(err[None], batch, part, offset)
            gold_rows, classes, dup, missing = joined
            if missing >= 0:
                raise self._not_in_gold(batch, part, offset, missing)
        else:
            coded = join.item_codes()
            item = coded.item.encode(column, part)
            gold_rows = np.empty(n, np.int64)
            dup = _marks.join_gold(
                n,
                a,
                b,
                stride,
                item,
                t_stride,
                n_topics,
                coded.dense,
                coded.keys,
                coded.key_rows,
                coded.item.size,
                seen,
                join.n_gold,
                gold_rows,
                err,
            )
            self._raise(err[None], batch, part, offset)
            if (gold_rows < 0).any():
                raise self._not_in_gold(batch, part, offset, int(np.argmax(gold_rows < 0)))
        if dup >= 0:
            raise self._duplicate(batch, part, offset + dup, dup)
        if self.seen is None:
            group, _, _ = self._rows(batch, part, offset, a, b, stride)
            self.keys.append((_codes.run_codes(group, t_stride, n_topics) * self.n_keys + gold_rows, part))
        # kept with the batch's rows when resampling: a copy, not the block the join's arrays reuse
        self._items = gold_rows.copy() if self.kept is not None else gold_rows
        return code_column(join.classes[gold_rows] if classes is None else classes, plan.m)

    def _not_in_gold(self, batch, part, offset, row) -> InputError:
        roles = self.plan.request.roles
        topic = (
            f"{roles.topic} {batch.column(roles.topic)[row].as_py()!r}, " if roles.topic in batch.schema.names else ""
        )
        item = batch.column(roles.item)[row].as_py()
        return InputError(
            f"The run{where(part)} has ({topic}{roles.item} {item!r}) at row {offset + row}, which the gold does not "
            "have."
        )

    def _mark_items(self, batch, part, offset, a, b, stride, gold):
        """Mark each (group, item) seen; a key seen before -- anywhere in the input -- is a
        duplicated item."""
        n = batch.num_rows
        item = self.plan.item.encode(batch.column(self.plan.request.item), part)
        err = np.full(_codes.N_KINDS, -1, np.int64)
        keys = np.empty(0 if self.seen is not None else n, np.int64)
        seen = self.seen if self.seen is not None else np.zeros(0, np.uint8)
        threads = numba.get_num_threads()
        # the bitmap is copied before a threaded pass (to find the first duplicate serially should
        # there be one): worth it while the copy is small beside the batch
        if self.seen is not None and threads > 1 and n >= SERIAL_ROWS and seen.size <= 4 * n:
            before = seen.copy()
            if _marks.mark_items_threads(
                n, a, b, stride, gold, item, self.n_keys, seen, np.full((threads, _codes.N_KINDS), -1, np.int64)
            ):
                if self.kept is not None:
                    self._items, _, _ = self._rows(batch, part, offset, item)
                return
            seen[:] = before
        mark = _small.mark if n < SERIAL_ROWS else _marks.mark_items
        dup = mark(n, a, b, stride, gold, item, self.n_keys, seen, keys, err)
        if self.seen is None:
            self.keys.append((keys, part))
        if err[_codes.VALUE] >= 0:  # an item outside the surveyed labels
            raise self.plan.item.explain(batch.column(self.plan.request.item), int(err[_codes.VALUE]), part)
        self._raise(err[None], batch, part, offset)
        if dup >= 0:
            raise self._duplicate(batch, part, offset + dup, dup)
        if self.kept is not None:
            self._items, _, _ = self._rows(batch, part, offset, item)

    def _collect(self, a, b, stride, gold, batch, part, offset, weight, errors):
        group, gold_codes, _ = self._rows(batch, part, offset, a, b, stride, gold, gold_type=np.int8)
        score = score_view(batch.column(self.plan.request.score), self.plan.request.score, part)
        score_range(score, errors)
        if weight is not None and not (np.all(weight >= 0) and np.all(np.isfinite(weight))):
            errors[0, _codes.WEIGHT] = int(np.argmax(~((weight >= 0) & np.isfinite(weight))))
        self.pieces.append((group, gold_codes, score, weight))

    # -- errors -------------------------------------------------------------------------------
    def _raise(self, errors, batch, part, offset):
        if errors.max() < 0:
            return
        kinds = np.where(errors >= 0, errors, np.iinfo(np.int64).max).min(axis=0)
        kind = int(np.argmin(kinds))
        row = int(kinds[kind])
        plan, request = self.plan, self.plan.request
        if kind in (_codes.GROUP_A, _codes.GROUP_B):
            axes = plan.axes if len(plan.axes) <= 2 else plan.axes[:1]
            name = axes[kind] if kind < len(axes) else axes[-1]
            error = plan.encoders[name].explain(batch.column(name), row, part)
        elif kind == _codes.GOLD:
            error = plan.gold.explain(batch.column(request.gold_column), row, part)
        elif kind == _codes.VALUE and plan.mode == "hard":
            error = plan.pred.explain(batch.column(request.pred), row, part)
        elif kind == _codes.VALUE:
            value = batch.column(request.score)[row].as_py()
            error = InputError(
                f"Column '{request.score}'{where(part)} has the non-finite value {value!r} at row "
                f"{offset + row}; scores must be finite numbers."
            )
        else:
            value = batch.column(request.weight)[row].as_py()
            error = InputError(
                f"Column '{request.weight}'{where(part)} must hold finite weights >= 0; found "
                f"{value!r} at row {offset + row}."
            )
        raise error

    def _duplicate(self, batch, part, row, local) -> DuplicateItem:
        request = self.plan.request
        names = [c for c in request.roles.identity if c in batch.schema.names] + [request.item]
        names += [c for c in self.plan.axes if c not in names]
        key = {c: batch.column(c)[local].as_py() for c in names}
        return DuplicateItem(key, [(part, row)], request.roles.identity)

    # -- merging and the result -------------------------------------------------------------
    def merge(self, other: Tally) -> Tally:
        """Add another tally of the same plan (a Dask partition's)."""
        if other.rows == 0:
            return self
        if self.partial is not None:
            self.partial = self.acc + other.acc
            self.partial = self.partial[None]
        self.pieces += other.pieces
        if self.seen is not None:
            both = np.bitwise_and(self.seen, other.seen)
            if both.any():
                raise self._duplicate_key(
                    int(np.flatnonzero(both)[0]) * 8 + _lowest_bit(both[np.flatnonzero(both)[0]]), other.parts
                )
            np.bitwise_or(self.seen, other.seen, out=self.seen)
        elif self.keys is not None:
            self.keys += other.keys
        self.rows += other.rows
        self.parts += [p for p in other.parts if p not in self.parts]
        return self

    def _duplicate_key(self, key: int, parts) -> InputError:
        """The error for a (run, item) key counted in two partitions or files."""
        plan = self.plan
        run, item = divmod(key, self.n_keys)
        if plan.join is not None:
            stride, n_topics = plan.topic_stride()
            group = _run_group(np.array([run]), stride, n_topics, plan.join.topic_codes[item : item + 1])[0]
            item_label = plan.join.table.column("item")[item].as_py()
        else:
            group, item_label = run, plan.item.labels[item].as_py()
        codes = np.unravel_index(group, plan.sizes) if plan.sizes else ()
        where_ = ", ".join(f"{c}={plan.encoders[c].labels[int(i)].as_py()!r}" for c, i in zip(plan.axes, codes))
        roles = plan.request.roles
        if plan.join is not None and roles.topic not in plan.axes and "topic" in plan.join.table.column_names:
            where_ += f", {roles.topic}={plan.join.table.column('topic')[item].as_py()!r}"
        return InputError(
            f"Duplicated ({', '.join(roles.identity + (roles.item,))}): {where_}, {roles.item}={item_label!r} "
            "appears more than once "
            f"(in different partitions or files: {', '.join(map(repr, parts[:4]))}); each item may "
            f"appear once per ({', '.join(roles.identity)})."
        )

    def check_complete(self) -> None:
        """Refuse an empty input and duplicated items, once every batch is in.

        The duplicates checked here are those a tally of sorted keys finds only at the end;
        :func:`fastmetrics.count.assemble.assemble` calls this first.

        Raises
        ------
        InputError
            The input has no rows, or a (system, topic, item) appears more than once.
        """
        if self.rows == 0:
            raise InputError("The input has no rows.")
        if self.keys:
            self._check_sorted_keys()

    def _check_sorted_keys(self):
        keys = np.concatenate([key for key, _ in self.keys])
        order = np.argsort(keys, kind="stable")
        ordered = keys[order]
        same = np.flatnonzero(ordered[1:] == ordered[:-1])
        if same.size:
            parts = sorted({p for key, p in self.keys if (key == ordered[same[0]]).any()})
            raise self._duplicate_key(int(ordered[same[0]]), parts)

    def lacking(self) -> tuple[np.ndarray, np.ndarray]:
        """The (run, gold row) pairs no row of the run joined, for the missing policy.

        Returns ``(runs, gold_rows)``, int64 arrays in order of run, then gold row.
        """
        n_runs = self.plan.n_groups // self.plan.topic_stride()[1]
        if self.seen is not None:
            return _marks.unmarked(self.seen, n_runs, self.n_keys)
        out = np.zeros(n_runs * self.n_keys, bool)
        for key, _ in self.keys:
            out[key] = True
        runs, gold_rows = np.nonzero(~out.reshape(n_runs, self.n_keys))
        return runs.astype(np.int64), gold_rows.astype(np.int64)

    @property
    def acc(self):
        """The counts so far (the per-thread partials summed)."""
        if self.partial is None:
            return None
        if self.partial.shape[0] > 1:
            self.partial = self.partial.sum(axis=0, keepdims=True)
        return self.partial[0]

    def __getstate__(self):
        state = dict(self.__dict__)
        if self.partial is not None:
            state["partial"] = self.acc[None]  # ship one summed array, not one per thread
        return state


class DuplicateItem(InputError):
    """A (system, topic, item) met twice.

    ``sightings`` lists (part, row) where it was found, ``per`` the columns playing the system
    and the topic.
    """

    def __init__(self, key: dict, sightings: list, per=("system", "topic")):
        self.key, self.sightings, self.per = key, sightings, tuple(per)
        values = ", ".join(f"{c}={v!r}" for c, v in key.items())
        found = "; ".join(f"row {row}{where(part) or ' of the table'}" for part, row in sightings[:4])
        super().__init__(
            f"Duplicated ({', '.join(key)}): {values} appears more than once ({found}); each item "
            f"may appear once per ({', '.join(self.per)})."
        )

    def located(self, src) -> DuplicateItem:
        """The same error naming every place the key occurs (read again: an error path only)."""
        import pyarrow.compute as pc

        sightings = []
        for part, offset, batch in src.record_batches(list(self.key)):
            mask = None
            for c, v in self.key.items():
                column = batch.column(c)
                if pa.types.is_dictionary(column.type):
                    column = column.dictionary_decode()
                same = pc.equal(column, pa.scalar(v, column.type))
                mask = same if mask is None else pc.and_(mask, same)
            rows = np.flatnonzero(mask.to_numpy(zero_copy_only=False))
            sightings += [(part, offset + int(r)) for r in rows]
        return DuplicateItem(self.key, sightings or self.sightings, self.per)


def _lowest_bit(byte) -> int:
    byte = int(byte)
    return (byte & -byte).bit_length() - 1


def _run_group(runs, stride, n_topics, topics):
    """Inverse of :func:`fastmetrics.count._codes.run_codes` given each run's topic code."""
    if stride == 0:
        return runs
    return (runs // stride) * (stride * n_topics) + topics * stride + runs % stride


def missing_rows(tally: Tally):
    """Find the gold items each run lacks, and apply the missing policy to them.

    Returns ``(group codes, gold classes, gold rows)`` of the items to add as predicted negative
    (``missing="negative"``), or None when there is nothing to add (no item lacking, or
    ``missing="drop"``); ``missing="error"`` raises an :class:`InputError` naming the first one.
    """
    plan, join = tally.plan, tally.plan.join
    if plan.request.missing == "drop":
        return None
    runs, gold_rows = tally.lacking()
    if not runs.size:
        return None
    stride, n_topics = plan.topic_stride()
    if plan.request.missing == "error":
        run = int(runs[0])
        group = int(_run_group(np.array([run]), stride, n_topics, join.topic_codes[gold_rows[:1]])[0])
        codes = np.unravel_index(group, plan.sizes) if plan.sizes else ()
        name = next(
            (
                f"{plan.encoders[c].labels[int(i)].as_py()!r}"
                for c, i in zip(plan.axes, codes)
                if c == plan.request.roles.system
            ),
            "the run",
        )
        g = int(gold_rows[0])
        topic = join.table.column("topic")[g].as_py() if "topic" in join.table.column_names else None
        raise InputError(
            f"Run {name} lacks {int((runs == run).sum())} of the {join.n_gold} gold item(s), e.g. topic {topic!r}, "
            f"item {join.table.column('item')[g].as_py()!r}. Use missing='negative' (--missing negative) to count "
            "them as predicted negative, or 'drop' to ignore them."
        )
    extra = [c for c in plan.axes if c not in plan.request.roles.identity]
    if extra:
        raise ParameterError(
            f"missing='negative' (--missing negative) needs the grouping to be system/topic only; got {extra[0]!r}."
        )
    groups = _run_group(runs, stride, n_topics, join.topic_codes[gold_rows])
    return groups, join.classes[gold_rows], gold_rows
