"""Column encoders: one record batch's Arrow column -> the tuple a counting kernel reads.

The code of row ``r`` (see ``_codes.code_of``) is, by the tuple's form,

- ``(values, lo, size)``: ``values[r] - lo`` (integers whose distinct values are a contiguous
  range: the buffer is read in place, nothing is looked up);
- ``(values, lut, lo)``: ``lut[values[r] - lo]`` (integers with a small range: a table over the
  range; or the indices of a dictionary, with ``lut`` mapping the dictionary to the plan's
  labels -- built once per batch from the dictionary, not per row);
- ``(bitmap, offset)``: bit ``offset + r`` of a boolean column's bitmap (0/1 gold, predictions);
- ``(0,)``: 0 (an axis the input does not have).

Anything outside the plan decodes to -1 and the kernel reports the row. Strings and other types
are dictionary-encoded once per batch (Arrow hashes them) and then read as dictionary indices.
Parquet dictionaries, pandas categoricals and fastmetrics' own outputs arrive already encoded.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .. import _memory, _strings, _threads
from .._errors import InputError
from ..io.labels import no_nans, no_nulls, not_text_error, not_utf8, used_values, value_at, where
from ._codes import VALUE, check_scores, int_range, mark_present

# An integer column is read through a table over its range when the range is at most this many
# values (and not much sparser than the labels); beyond it, the column is dictionary-encoded.
MAX_INT_RANGE = 1 << 24
ABSENT_COLUMN = (0,)
SMALL = 1 << 16  # below this many rows Arrow's hash is as fast as a kernel (and needs no compiling)
TRUE_STRINGS = ("true", "1", "yes")
FALSE_STRINGS = ("false", "0", "no")


def int_view(array: pa.Array) -> np.ndarray:
    """The values of an integer array (no nulls) as int32/int64 numpy, zero-copy when they are."""
    values = array.to_numpy(zero_copy_only=False)
    if values.dtype in (np.int32, np.int64):
        return values
    if values.dtype.kind == "u" and values.dtype.itemsize == 8:
        if values.size and values.max() > np.iinfo(np.int64).max:
            raise InputError("Unsigned 64-bit labels above 2**63 are not supported; cast them to strings.")
    return values.astype(np.int64 if values.dtype.itemsize >= 4 else np.int32)


def bool_bits(array: pa.Array):
    """A boolean array's bitmap as the ``BITS`` tuple (bits start at the array's offset)."""
    buffer = array.buffers()[1]
    bits = np.frombuffer(buffer, np.uint8) if buffer is not None else np.zeros(1, np.uint8)
    return (bits, array.offset)


def distinct(array: pa.Array) -> pa.Array:
    """Return the distinct values of one batch's column, unsorted.

    Integers (and dictionary indices) go through a presence table over their range, without
    hashing; anything else through Arrow's hash.
    """
    if pa.types.is_dictionary(array.type):
        if len(array) > SMALL and not array.null_count:
            present = np.zeros(len(array.dictionary), np.bool_)
            mark_present(int_view(array.indices), 0, present)
            return used_values(array.dictionary, present)
        return pc.unique(array.dictionary.take(pc.unique(array.indices)))
    if pa.types.is_integer(array.type) and len(array) > SMALL and not array.null_count:
        values = int_view(array)
        lo, hi = int_range(values)
        if hi - lo < MAX_INT_RANGE:
            present = np.zeros(hi - lo + 1, np.bool_)
            mark_present(values, lo, present)
            return pa.array(np.flatnonzero(present) + lo, type=array.type)
    return pc.unique(array)


def is_text(data_type: pa.DataType) -> bool:
    """Whether a column of this type is coded by :func:`string_codes`."""
    return pa.types.is_string(data_type) or pa.types.is_large_string(data_type) or pa.types.is_string_view(data_type)


def string_codes(column, sort: bool = True) -> pa.ChunkedArray:
    """Dictionary-encode a string column (no nulls) with a dictionary of its distinct values.

    The codes come from :mod:`fastmetrics._strings`: each string's bytes are compared with
    the row one period back before any hash is computed, so grouped and repeated ids (systems,
    topics, the items of each topic) cost a comparison each, on every thread.

    Parameters
    ----------
    column : pyarrow.Array or ChunkedArray
        ``string``, ``large_string`` or ``string_view`` values without nulls.
    sort : bool, default True
        Sort the dictionary (byte order, as :func:`sorted_union` sorts labels), which costs a
        pass rewriting every code unless the values first appear in sorted order. False keeps
        them in order of first appearance: the count reads codes through a table from the
        dictionary to its sorted labels, made once a column, so it need not pay for the pass.

    Returns
    -------
    pyarrow.ChunkedArray
        ``dictionary<int32, string or large_string>``, chunked as ``column``; every chunk shares
        the one dictionary, which holds exactly the values present.
    """
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    total = sum(len(c) for c in chunks)
    if total < SMALL:
        return _small_string_codes(chunks, sort)
    codes = _memory.empty(total, np.int32)
    first, hashes = np.empty(total, np.int64), np.empty(total, np.uint64)
    threads = max(1, numba.get_num_threads())
    ranges, row = [], 0  # (buffers, start, stop, first row of the chunk) of every range
    for chunk in chunks:
        n = len(chunk)
        if pa.types.is_string_view(chunk.type):
            chunk = chunk.cast(pa.large_string())
        buffers = _strings.string_buffers(chunk)
        # a chunk in a range per thread, unless the chunks are many (a CSV read in blocks)
        pieces = threads if n >= SMALL and len(chunks) < threads else 1
        cuts = np.linspace(0, n, pieces + 1).astype(np.int64)
        ranges += [(buffers, int(a), int(b), row) for a, b in zip(cuts[:-1], cuts[1:]) if b > a]
        row += n
    sizes = np.zeros(len(ranges), np.int64)
    _threads.on_threads(
        _strings.code_into,
        [
            (*buffers, a, b, codes[base:], first[base:], hashes[base:], sizes, k)
            for k, (buffers, a, b, base) in enumerate(ranges)
        ],
    )
    store, maps = _strings.new_store(), []
    for k, ((offsets, data), a, _, base) in enumerate(ranges):
        part = slice(base + a, base + a + sizes[k])
        mapped, store = _strings.merge_range(offsets, data, first[part], hashes[part], store)
        maps.append(mapped)
    s_offsets, s_data, _, _, counts = store
    n_values, n_bytes = int(counts[0]), int(counts[1])
    large = any(pa.types.is_large_string(c.type) for c in chunks)
    value_type = pa.large_string() if large or n_bytes >= (1 << 31) - 1 else pa.string()
    offset_type = np.int64 if value_type == pa.large_string() else np.int32
    found = pa.Array.from_buffers(
        value_type,
        n_values,
        [None, pa.py_buffer(s_offsets[: n_values + 1].astype(offset_type)), pa.py_buffer(s_data[:n_bytes].copy())],
    )
    if sort:
        order = pc.sort_indices(found).to_numpy()
        rank = np.empty(n_values, np.int32)
        rank[order] = np.arange(n_values, dtype=np.int32)
        maps = [rank[mapped] for mapped in maps]
        found = found.take(pa.array(order))
    # a range whose values first appear in the dictionary's order keeps its codes
    calls = [
        (codes, base + a, base + b, table.astype(np.int32, copy=False))
        for table, (_, a, b, base) in zip(maps, ranges)
        if not (table == np.arange(table.size)).all()
    ]
    _threads.on_threads(_strings.recode, calls)
    return _chunked_like(chunks, codes, found)


def code_text_columns(src, columns) -> dict:
    """Code the string ``columns`` of a source's in-memory parts in place (:func:`string_codes`).

    Each dictionary keeps its values in order of first appearance: the plan reads the codes
    through a table to its sorted labels. Parquet parts are left alone: their string columns are
    read as the dictionaries their pages hold. A column with nulls is left as it is, for the
    count to name the null.

    Parameters
    ----------
    src : fastmetrics.io.Source
    columns : sequence of str

    Returns
    -------
    dict
        Column -> the dictionaries of the parts coded (each exactly the part's distinct values):
        the survey's values of that column when every part was coded.
    """
    found = {}
    for i, part in enumerate(src.parts):
        if not isinstance(part, pa.Table):
            continue
        for name in columns:
            column = part.column(name)
            if not is_text(column.type) or column.null_count:
                continue
            coded = string_codes(column, sort=False)
            part = part.set_column(part.schema.get_field_index(name), name, coded)
            if coded.num_chunks:
                found.setdefault(name, []).append(coded.chunk(0).dictionary)
        src.parts[i] = part
    whole = all(isinstance(p, pa.Table) for p in src.parts)
    return {name: values for name, values in found.items() if whole and len(values) == len(src.parts)}


def _small_string_codes(chunks, sort: bool) -> pa.ChunkedArray:
    """:func:`string_codes` of a few rows by Arrow's hash: no kernel to compile on a first call."""
    value_type = pa.large_string() if any(pa.types.is_large_string(c.type) for c in chunks) else pa.string()
    whole = pa.chunked_array([c.cast(value_type) for c in chunks], value_type).combine_chunks()
    encoded = pc.dictionary_encode(whole)
    if not sort:
        return _chunked_like(chunks, encoded.indices.to_numpy(zero_copy_only=False), encoded.dictionary)
    order = pc.sort_indices(encoded.dictionary).to_numpy()
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    codes = rank[encoded.indices.to_numpy(zero_copy_only=False)] if len(order) else np.zeros(len(whole), np.int32)
    return _chunked_like(chunks, codes, encoded.dictionary.take(pa.array(order, pa.int64())))


def _chunked_like(chunks, codes: np.ndarray, dictionary: pa.Array) -> pa.ChunkedArray:
    """The codes of the rows of ``chunks`` as dictionary arrays cut as they are, sharing ``dictionary``."""
    pieces, row = [], 0
    for chunk in chunks:
        # codes made here are in range: no check of 10M indices
        indices = pa.array(codes[row : row + len(chunk)])
        pieces.append(pa.DictionaryArray.from_arrays(indices, dictionary, safe=False))
        row += len(chunk)
    return pa.chunked_array(pieces, pa.dictionary(pa.int32(), dictionary.type))


def sorted_union(arrays, column: str) -> pa.Array:
    """The sorted distinct values of several arrays (cast to one type, see :func:`common_type`)."""
    target = common_type([a.type for a in arrays], [column] * len(arrays))
    if len(arrays) == 1 and pa.types.is_integer(target) and not arrays[0].null_count:
        # one batch's integers from distinct()'s presence table come sorted and unique already
        ints = arrays[0].to_numpy(zero_copy_only=False)
        if (ints[1:] > ints[:-1]).all():
            return arrays[0]
    values = pc.unique(pa.chunked_array([a.cast(target) for a in arrays], type=target).combine_chunks())
    if values.null_count:
        raise InputError(f"Column '{column}' has missing (null) values.")
    return values.take(pc.sort_indices(values))


def common_type(types, names) -> pa.DataType:
    """Choose one type for labels met with several types (files read separately).

    Integers widen to int64, anything else mixed becomes strings.
    """
    types = [t.value_type if pa.types.is_dictionary(t) else t for t in types]
    if all(pa.types.is_integer(t) for t in types):
        return pa.int64() if len(set(types)) > 1 else types[0]
    if all(t == types[0] for t in types):
        return types[0]
    if all(pa.types.is_string(t) or pa.types.is_large_string(t) for t in types):
        return pa.string()
    return pa.string()


@dataclass
class Encoder:
    """Turn one column of every batch into the codes the counting kernels read.

    A code is a position in ``labels`` (sorted, or fixed by the caller), or 0/1 for a binary label
    column (``binary=True``); a value the encoder does not know becomes -1 and is reported by
    :meth:`explain` with ``unknown`` as the reason.
    """

    column: str
    labels: pa.Array | None
    binary: bool = False
    unknown: str = "which is not among the labels found"
    compact: bool = False  # labels are a whole integer range; those without rows are dropped

    def __post_init__(self):
        self._int_table = None
        self._lut_of = None
        if self.labels is not None and pa.types.is_integer(self.labels.type) and len(self.labels):
            values = self.labels.to_numpy(zero_copy_only=False).astype(np.int64)
            lo, hi = int(values.min()), int(values.max())
            if hi - lo < MAX_INT_RANGE:
                if hi - lo + 1 == len(values) and np.all(np.diff(values) > 0):
                    self._int_table = (lo, None)
                else:
                    lut = np.full(hi - lo + 1, -1, np.int32)
                    lut[values - lo] = np.arange(len(values), dtype=np.int32)
                    self._int_table = (lo, lut)

    @property
    def size(self) -> int:
        """Number of codes: 2 for a binary column, else the number of labels."""
        return 2 if self.binary else len(self.labels)

    def encode(self, array: pa.Array, part):
        """The kernel tuple for this batch's column (:func:`small_form` for a few rows)."""
        col = self._encode(array, part)
        return small_form(col, len(array)) if len(array) <= SMALL else col

    def _encode(self, array: pa.Array, part):
        no_nulls(array, self.column, part)
        no_nans(array, self.column, part)
        if self.binary:
            return self._binary(array, part)
        if pa.types.is_dictionary(array.type):
            return self._dictionary(array.indices, array.dictionary)
        if self._int_table is not None and pa.types.is_integer(array.type):
            lo, lut = self._int_table
            if lut is None:
                return (int_view(array), lo, len(self.labels))
            return (int_view(array), lut, lo)
        if is_text(array.type) and len(array) > SMALL:
            coded = string_codes(array, sort=False).chunk(0)
            return self._dictionary(coded.indices, coded.dictionary)
        if array.type != self.labels.type:
            array = _cast(array, self.labels.type, self.column, part)
        encoded = pc.dictionary_encode(array)
        return self._dictionary(encoded.indices, encoded.dictionary)

    def _dictionary(self, indices, dictionary):
        # the batches of one coded column share its dictionary: its table is made once. The
        # dictionary is kept with it, so no other array can take its buffers' addresses.
        key = _buffers_key(dictionary)
        if self._lut_of is None or self._lut_of[0] != key:
            self._lut_of = (key, _text_only(self._lut(dictionary), dictionary), dictionary)
        lut = self._lut_of[1]
        if lut is None:  # the dictionary is the labels: its indices are the codes
            return (int_view(indices), 0, len(self.labels))
        return (int_view(indices), lut, 0)

    def _lut(self, dictionary):
        """The table from a dictionary's positions to codes, or None when it is the identity."""
        if dictionary.type != self.labels.type:
            dictionary = dictionary.cast(self.labels.type)
        if len(dictionary) == len(self.labels) and dictionary.equals(self.labels):
            return None
        lut = pc.index_in(dictionary, value_set=self.labels).fill_null(-1)
        return lut.to_numpy(zero_copy_only=False).astype(np.int32)

    def _binary(self, array, part):
        if pa.types.is_dictionary(array.type):
            lut = self._binary(array.dictionary, part)
            if len(lut) == 3 and isinstance(lut[1], np.ndarray):  # strings: a table over the dictionary
                return (int_view(array.indices), lut[1][lut[0]], 0)
            return self._binary(array.dictionary_decode(), part)
        if pa.types.is_boolean(array.type):
            return bool_bits(array)
        if pa.types.is_integer(array.type):
            return (int_view(array), 0, 2)
        if pa.types.is_floating(array.type):
            values = array.to_numpy(zero_copy_only=False)
            codes = np.where(values == 0, 0, np.where(values == 1, 1, 2)).astype(np.int32)
            return (codes, 0, 2)
        if pa.types.is_string(array.type) or pa.types.is_large_string(array.type):
            encoded = pc.dictionary_encode(array)
            bad = not_utf8(encoded.dictionary)  # unknown (-1), named by explain
            text = encoded.dictionary if bad is None else pc.if_else(pa.array(bad), "", encoded.dictionary)
            lowered = pc.utf8_lower(text)
            lut = np.full(len(lowered), -1, np.int32)
            lut[pc.is_in(lowered, value_set=pa.array(TRUE_STRINGS)).to_numpy(zero_copy_only=False)] = 1
            lut[pc.is_in(lowered, value_set=pa.array(FALSE_STRINGS)).to_numpy(zero_copy_only=False)] = 0
            return (int_view(encoded.indices), lut, 0)
        raise InputError(f"Column '{self.column}'{where(part)} has type {array.type}; expected bool or 0/1 integers.")

    def explain(self, array: pa.Array, row: int, part) -> InputError:
        """The error for a row this encoder decoded to -1."""
        value, text = value_at(array, row)
        if not text:
            return not_text_error(self.column, part, row, value)
        if self.binary:
            return InputError(
                f"Column '{self.column}'{where(part)} must be binary (bool, 0/1 or true/false) "
                f"for binary measures; found the value {value!r} at row {row}."
            )
        return InputError(f"Column '{self.column}'{where(part)} has the value {value!r} at row {row}, {self.unknown}.")


def _text_only(lut, dictionary):
    """A dictionary's table to codes with its values that are not UTF-8 text made unknown (-1),
    for the count to refuse the first row holding one (:meth:`Encoder.explain` names it)."""
    bad = not_utf8(dictionary)
    if bad is None:
        return lut
    lut = np.arange(len(dictionary), dtype=np.int32) if lut is None else lut.copy()
    lut[bad] = -1
    return lut


def _buffers_key(array: pa.Array) -> tuple:
    """What identifies an array's values without reading them: its buffers' addresses and sizes."""
    return (array.offset, len(array)) + tuple((b.address, b.size) if b is not None else None for b in array.buffers())


def _cast(array, target, column, part):
    try:
        return array.cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        raise InputError(
            f"Column '{column}'{where(part)} has type {array.type}, which does not fit the labels "
            f"of type {target} found elsewhere in the input."
        ) from None


def score_view(array: pa.Array, column: str, part, what: str = "scores") -> np.ndarray:
    """A score (or weight) column as float32/float64 numpy, zero-copy for floats."""
    if pa.types.is_dictionary(array.type):
        array = array.dictionary_decode()
    if not (pa.types.is_floating(array.type) or pa.types.is_integer(array.type)):
        raise InputError(f"Column '{column}'{where(part)} has type {array.type}; expected numbers ({what}).")
    no_nulls(array, column, part)
    values = array.to_numpy(zero_copy_only=False)
    if values.dtype not in (np.float32, np.float64):
        values = values.astype(np.float64)
    return values


_ANY_CODE = 1 << 62  # the size of a small form's range: its codes are final, -1 outside the plan


def small_form(col, n: int):
    """A code column of ``n`` rows as its final codes, ``(int64 codes, 0, size)``.

    A value outside the plan has code -1.
    The kernels are compiled for each combination of the forms of their columns (bits, int32 or
    int64 values, over a range or through a table, from Arrow or numpy); a batch of a few rows
    costs nothing to decode here, and every small batch then meets one compiled kernel instead of
    one per combination -- the compiling, not the counting, was most of a small input's time.
    """
    if len(col) == 1:
        return col
    if len(col) == 2:
        bits, offset = col
        codes = np.unpackbits(bits, bitorder="little")[offset : offset + n].astype(np.int64)
        return (codes, 0, 2)
    values, second, third = col
    values = values[:n].astype(np.int64)
    if isinstance(second, np.ndarray):  # a table over the values' range
        at = values - third
        inside = (at >= 0) & (at < second.size)
        codes = np.where(inside, second[np.where(inside, at, 0)], -1).astype(np.int64)
        return (codes, 0, _ANY_CODE)
    at = values - second
    return (np.where((at >= 0) & (at < third), at, -1), 0, _ANY_CODE)


def code_column(codes: np.ndarray, size: int):
    """Codes already computed (0 <= code < size) in the kernels' form.

    A few rows are given as int64, as :func:`small_form` gives them.
    """
    values = np.ascontiguousarray(codes)
    if values.size <= SMALL:
        values = values.astype(np.int64, copy=False)
    elif values.dtype not in (np.int32, np.int64):
        values = values.astype(np.int32)
    return (values, 0, int(size))


def score_range(values: np.ndarray, errors: np.ndarray) -> tuple[float, float]:
    """Return ``(min, max)`` of the finite scores; note the first non-finite row in ``errors[0, VALUE]``.

    numpy's ``min`` and ``max`` (vectorised, and a NaN comes out of either) settle the common case
    of finite scores in two passes that run at memory speed; only when one of them is not finite
    does a kernel (on a large array) or a mask (on a small one) look for the first bad row.
    """
    if values.size == 0:
        return np.inf, -np.inf
    lo, hi = float(values.min()), float(values.max())
    if np.isfinite(lo) and np.isfinite(hi):
        return lo, hi
    if values.size > SMALL:
        return check_scores(values, errors)
    finite = np.isfinite(values)
    if not finite.all():
        errors[0, VALUE] = int(np.argmin(finite))
        values = values[finite]
    if values.size == 0:
        return np.inf, -np.inf
    return float(values.min()), float(values.max())
