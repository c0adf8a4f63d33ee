"""A CSV file parsed and its text columns coded in one pass, on every thread.

The fast path for the CSV files a count reads: text fields become dictionary codes as they are
parsed (compared with the row one period back before any hash, as
:mod:`fastmetrics._strings` codes Arrow strings), numbers and booleans become arrays, and no
string column is ever built. It takes the plain dialect only -- comma-separated, a header line,
fields quoted or not but with no quote or line end inside, every field present, lines ended as
pyarrow ends them (CR LF, LF or a lone CR; a run of them is empty lines, skipped) -- with the
column types pyarrow infers from the first block, and it is strict: any field that pyarrow
might read otherwise (a quote inside a field, an empty field, a number beyond the
exactly-rounded fast path, a value not of the column's type, a ragged line, bytes that are not
UTF-8) makes it give up, and the file is read by pyarrow
instead, with pyarrow's conventions and errors. So it changes how fast a file is read, never
what is read.

Numbers: integers of up to 18 digits; decimals ``-?d+(.d+)?([eE][+-]?d+)?``. A decimal whose
value is ``m * 10**e`` with ``m <= 2**53`` and ``|e| <= 22`` is one IEEE multiplication or
division of two exact doubles, which is the correctly rounded result (Clinger's fast path), i.e.
the double pyarrow's parser gives; any other well-formed decimal (a float64 written with 17
digits) is handed to pyarrow's parser once the pass is over.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from numba import njit

from ... import _memory, _strings, _threads
from ..._strings import EMPTY, move_bytes, same_bytes, string_hash
from .delimiters import COMMA, NEWLINE, QUOTE, RETURN, positions_for, refill, reserve_for
from .fields import MALFORMED, SLOW, parse_boolean, parse_decimal, parse_integer

TEXT, BOOL, INT, FLOAT, SKIP = 0, 1, 2, 3, 4  # SKIP: a column the caller does not read, only delimited


PLAIN, OTHER, FULL = 0, 1, 2


# below this many bytes pyarrow's reader is as fast, and needs no kernel compiled
MIN_BYTES = 8 << 20


# the bytes at the file's start whose reading by pyarrow gives the column types (pyarrow's CSV
# block: a file read by pyarrow instead is read with the same types)
SAMPLE_BYTES = 16 << 20


# How every CSV is converted: an empty field is missing, in text columns too (as DuckDB and
# polars read it), and only an empty field ("NA", "null" or "NaN" are values: an item "NA" is
# an id, a score "NaN" is refused as not finite).
# Text that is not UTF-8 is read as text (not inferred as binary), for the reader to refuse it
# naming its column and row.
CONVERT = pacsv.ConvertOptions(strings_can_be_null=True, null_values=[""], check_utf8=False)


@njit(cache=True, nogil=True)
def count_lines(buf, start, stop, out, k):
    """``out[k]`` = the number of line ends in ``buf[start:stop]``: LFs, and CRs not before a LF.

    LFs and CRs are counted in a loop the compiler vectorizes (an unsigned index: a signed one
    keeps numba's wraparound check, and the loop a byte at a time, three times slower); a range
    holding a CR is read again, in a loop of the same form, to leave out those of its CR LFs (a
    range's last CR LF may end past ``stop``)."""
    lf = 0
    cr = 0
    for i in range(np.uint64(start), np.uint64(stop)):
        byte = buf[i]
        lf += byte == NEWLINE
        cr += byte == RETURN
    if cr:
        for i in range(np.uint64(start), np.uint64(min(stop, buf.size - 1))):
            cr -= (buf[i] == RETURN) & (buf[i + np.uint64(1)] == NEWLINE)
    out[k] = lf + cr


@njit(cache=True, nogil=True)
def _look_up(buf, a, b, slot, row, span_a, span_b, hashes, last, table, n_values, period):
    """The code (by first appearance) of the text ``buf[a:b]`` of column ``slot`` on ``row``,
    by its hash; -1 when the column has no room left for a new value, or a probe ran long (the
    caller makes the table larger either way). Not inlined: the row one period back, compared
    in the caller, spares most rows this call."""
    h = string_hash(buf, a, b)
    size = table.shape[1]
    mask = np.uint64(size - 1)
    s = h & mask
    v = table[slot, s]
    steps = 0
    while v >= 0:
        if hashes[slot, v] == h and same_bytes(buf, a, b, buf, span_a[slot, v], span_b[slot, v]):
            period[slot] = row - last[slot, v]
            last[slot, v] = row
            return v
        s = (s + np.uint64(1)) & mask
        v = table[slot, s]
        steps += 1
    v = n_values[slot]
    if v >= span_a.shape[1] or 2 * (v + 1) > size or _strings.long_probe(steps, size):
        return -1
    span_a[slot, v], span_b[slot, v], hashes[slot, v] = a, b, h
    table[slot, s] = v
    n_values[slot] = v + 1
    last[slot, v] = row
    return v


@njit(cache=True, nogil=True, inline="always")
def _past_empty_lines(buf, at, stop, positions, n, i, indexed, reserve):
    """``(at, n, i, indexed)``: the first position from ``at`` that does not start an empty
    line (pyarrow skips them: any run of CRs and LFs is line ends), with the delimiter index
    moved past them and refilled for a line."""
    while True:
        if n - i < reserve and indexed < stop:  # a call a chunk, not a line
            n, i, indexed = refill(buf, positions, n, i, indexed, stop, reserve)
        if at >= stop or (buf[at] != NEWLINE and buf[at] != RETURN):
            return at, n, i, indexed
        at += 1
        i += 1


@njit(cache=True, nogil=True)
def _look_up_state(span_a, n_text, table):
    """``(last, n_values, period)`` for :func:`parse_range`, ``table`` emptied: the row of each
    value's last hash look-up, each text column's number of values and its period."""
    table[:] = EMPTY
    return np.empty(span_a.shape, np.int64), np.zeros(n_text, np.int64), np.ones(n_text, np.int64)


@njit(cache=True, nogil=True)
def _past_commas(buf, stop, positions, n, k, indexed, reserve):
    """The first delimiter from ``positions[k]`` (a comma inside a quoted field) that is not a
    comma: ``(b, k - 1, n, indexed)``, ``b`` its byte and ``k`` its index, the index refilled as
    it is read so that a line's reserve of positions still follows it."""
    while True:
        if n - k < reserve and indexed < stop:
            n, k, indexed = refill(buf, positions, n, k, indexed, stop, reserve)
        b = positions[k]
        if b >= stop or buf[b] != COMMA:
            return b, k - 1, n, indexed
        k += 1


@njit(cache=True, nogil=True)
def parse_range(
    buf, start, stop, kinds, slots, codes, booleans, integers, decimals, slow, span_a, span_b, hashes, table, positions
):
    """Parse the lines of ``buf[start:stop]`` (whole lines) into output rows 0, 1, ...

    ``kinds[c]`` and ``slots[c]`` say where column ``c`` goes: text codes by first appearance
    in the range (``codes[slot]``), ``booleans``, ``integers`` or ``decimals``.

    Each text value's bytes are written as ``buf[span_a:span_b]`` (its first appearance), with
    its hash; ``table`` (a power of two a row, at least twice the values' room) is the hash
    table. ``positions``, from :func:`~fastmetrics.io.native.delimiters.positions_for`, holds the
    index of the range's delimiters as the lines are read.

    Each field is ``buf[a:b]``, without its quotes; ``positions[i]`` is the first delimiter from
    the field on. Every way out of the dialect returns at once: a path that went on to the next
    field with a flag, or a helper returning one, has the compiler pick the next field's start
    by conditional moves -- a chain of loads a field, where branches on the line's regular
    layout are predicted (2-5 times slower, measured). Out of the dialect: a quote inside a
    field, a quoted field without its closing quote on its line, anything but a comma or the
    line's end after a closing quote (``"x"y``), an empty field, a line of another length.

    The value tables come allocated, as large as the caller expects them to grow: arrays
    replaced inside the loop would cost reference counting on every row. A text value's first
    appearance stands for all of its rows: compared with it, the row one period back needs no
    bytes of its own.

    Returns
    -------
    rows : int
    status : int
        ``PLAIN``; ``OTHER`` as soon as a line is outside the plain dialect; ``FULL`` when a text
        column has more distinct values than half its table, or a probe in it ran long (the
        outputs are then partial).
    n_values : ndarray
        The number of distinct values of each text column.
    n_slow : int
        The number of decimals written to ``slow`` (column slot, row, span) for pyarrow to read:
        well-formed, but beyond the fast path's exact rounding.
    """
    n_cols, n_text, capacity, reserve = kinds.size, codes.shape[0], booleans.shape[1], reserve_for(kinds.size)
    last, n_values, period = _look_up_state(span_a, n_text, table)
    n_slow, n_indexed, i, indexed, row, at = 0, 0, 0, start, 0, start
    while at < stop:
        at, n_indexed, i, indexed = _past_empty_lines(buf, at, stop, positions, n_indexed, i, indexed, reserve)
        if at >= stop or row >= capacity:
            return row, PLAIN if at >= stop else OTHER, n_values, n_slow
        field = at
        for c in range(n_cols):
            if field < stop and buf[field] == QUOTE:
                a, b = field + 1, positions[i + 1]  # b: the first delimiter after the opening quote
                if b < stop and buf[b] == COMMA:  # commas inside the quotes: a call, seldom made
                    b, i, n_indexed, indexed = _past_commas(buf, stop, positions, n_indexed, i + 1, indexed, reserve)
                if b >= stop or buf[b] != QUOTE or b <= a:  # a line end inside, no closing quote, or ""
                    return row, OTHER, n_values, n_slow
                after, i = b + 1, i + 2
            else:
                a, b, after = field, positions[i], positions[i]
                if (b < stop and buf[b] == QUOTE) or b <= a:  # a quote inside, or an empty field
                    return row, OTHER, n_values, n_slow
            if after < stop and buf[after] == COMMA and c < n_cols - 1:
                field, i = after + 1, i + 1
            elif c != n_cols - 1:  # a short line (or a long one: a comma after the last field)
                return row, OTHER, n_values, n_slow
            elif after < stop and buf[after] != NEWLINE and buf[after] != RETURN:  # e.g. "x"y, a long line
                return row, OTHER, n_values, n_slow
            else:  # the line's end; a CR LF is one
                crlf = after + 1 < stop and buf[after] == RETURN and buf[after + 1] == NEWLINE
                field, i = after + 1 + crlf, i + 1 + crlf
            kind, slot = kinds[c], slots[c]
            if kind == TEXT:
                p = row - period[slot]
                v = np.int64(codes[slot, p]) if p >= 0 else np.int64(-1)
                if v >= 0 and not same_bytes(buf, a, b, buf, span_a[slot, v], span_b[slot, v]):
                    v = -1
                if v < 0:
                    v = _look_up(buf, a, b, slot, row, span_a, span_b, hashes, last, table, n_values, period)
                    if v < 0:
                        return row, FULL, n_values, n_slow  # more values than room: the caller makes more
                codes[slot, row] = v
            elif kind == BOOL:
                flag = parse_boolean(buf, a, b)
                if flag < 0:
                    return row, OTHER, n_values, n_slow
                booleans[slot, row] = flag
            elif kind == INT:
                value, ok = parse_integer(buf, a, b)
                if not ok:
                    return row, OTHER, n_values, n_slow
                integers[slot, row] = value
            elif kind == FLOAT:  # and a SKIP column is only delimited
                number, parsed = parse_decimal(buf, a, b)
                if parsed == MALFORMED:
                    return row, OTHER, n_values, n_slow
                if parsed == SLOW:  # e.g. a float64 written with 17 digits: pyarrow reads it after
                    slow[0, n_slow], slow[1, n_slow], slow[2, n_slow], slow[3, n_slow] = slot, row, a, b
                    n_slow += 1
                decimals[slot, row] = number
        row, at = row + 1, field
    return row, PLAIN, n_values, n_slow


_KINDS = {"string": TEXT, "large_string": TEXT, "bool": BOOL, "int64": INT, "double": FLOAT}


def _mapped(path: str) -> np.ndarray | None:
    """The file's bytes mapped, not copied (the page cache read in place; see
    :func:`fastmetrics._memory.mapped_file`)."""
    try:
        mapped = _memory.mapped_file(path)
    except (OSError, ValueError):
        return None
    return None if mapped is None else np.frombuffer(mapped, np.uint8)


def plain_sample(path: str, block_size: int = SAMPLE_BYTES) -> pa.Table | None:
    """The first block of a file the plain parser can read, as pyarrow reads it.

    The first ``block_size`` bytes (whole lines) of a file the plain parser can read, as
    pyarrow reads them (their column types are the file's), or None for a file to read with
    pyarrow: outside the plain dialect at once, small, or with a column type the parser does
    not make."""
    buf = _mapped(path)
    if buf is None:
        return None
    if buf.size < MIN_BYTES or buf[:3].tobytes() == b"\xef\xbb\xbf":
        return None
    if _body_start(buf) < 0:
        return None
    head = buf[: min(buf.size, block_size)]
    cut = head.size
    if head.size < buf.size:  # whole lines: up to the block's last line end (a lone CR ends lines too)
        ends = np.flatnonzero((head == NEWLINE) | (head == RETURN))
        if ends.size == 0:
            return None  # a line longer than the block
        cut = int(ends[-1]) + 1
    try:
        sample = pacsv.read_csv(pa.BufferReader(head[:cut].tobytes()), convert_options=CONVERT)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if sample.num_columns == 0 or any(_KINDS.get(str(f.type)) is None for f in sample.schema):
        return None
    return sample


def read_plain_csv(path: str, sample: pa.Table, columns) -> pa.Table | None:
    """Parse the ``columns`` of a plain CSV file, or give it up to pyarrow.

    The ``columns`` of the file as a table with dictionary-coded text columns, or None to read
    it with pyarrow.

    Parameters
    ----------
    path : str
        An uncompressed CSV file.
    sample : pyarrow.Table
        Its first block, from :func:`plain_sample`: the column types.
    columns : sequence of str
        The columns to read; the others are only delimited (their values are not parsed).

    Returns
    -------
    pyarrow.Table or None
        Text columns as ``dictionary<int32, string>`` with sorted dictionaries, the others as
        pyarrow would read them; None for a file outside the plain dialect (see the module
        docstring).
    """
    buf = _mapped(path)
    if buf is None:
        return None
    body = _body_start(buf)
    if body < 0:
        return None
    wanted = set(columns)
    kinds = [_KINDS[str(f.type)] if f.name in wanted else SKIP for f in sample.schema]
    return _parse(buf, body, sample, np.asarray(kinds, np.int64))


def _body_start(buf) -> int:
    """Where the line after the header starts (its line end a CR LF, a LF or a lone CR), or -1
    when the header has no line end within its first MiB. Empty lines before the header are
    skipped, as pyarrow skips them."""
    head = buf[: 1 << 20]
    line_end = (head == NEWLINE) | (head == RETURN)
    first = int(np.argmin(line_end))  # the header's first byte (0 when every byte is a line end)
    ends = np.flatnonzero(line_end[first:]) if not line_end[first] else np.zeros(0, np.int64)
    if ends.size == 0:
        return -1
    end = first + int(ends[0])
    return end + 2 if buf[end] == RETURN and end + 1 < buf.size and buf[end + 1] == NEWLINE else end + 1


def _parse(buf: np.ndarray, body: int, sample: pa.Table, kinds: np.ndarray) -> pa.Table | None:
    # four ranges a thread, taken by the threads as they come free: with one range a thread, a
    # core another process holds for a while held the whole read back (twice the time, measured)
    ranges = _line_ranges(buf, body, 4 * max(1, numba.get_num_threads()))
    if ranges is None:
        return None
    lines = np.zeros(len(ranges), np.int64)
    _threads.on_threads(count_lines, [(buf, a, b, lines, k) for k, (a, b) in enumerate(ranges)])
    slots = np.zeros(kinds.size, np.int64)
    n_of = {}
    for c, kind in enumerate(kinds):
        slots[c] = n_of.get(kind, 0)
        n_of[kind] = slots[c] + 1
    room = _value_room(sample, kinds, buf.size)
    capacity = lines.copy()
    capacity[-1] += 1  # the last line may lack its line end (the others end where a range does)
    starts = np.concatenate([[0], np.cumsum(capacity)])
    # every range writes its rows into one array per column, from its own start
    outputs = tuple(_memory.empty((n_of.get(kind, 0), int(starts[-1])), dtype) for kind, dtype in _OUTPUTS)
    results = [None] * len(ranges)

    def run(k):
        (a, b), base, size = ranges[k], int(starts[k]), int(capacity[k])
        mine = tuple(out[:, base : base + size] for out in outputs)
        values = room
        slow = np.empty((4, size * n_of.get(FLOAT, 0)), np.int64)  # untouched pages cost nothing
        positions = positions_for(kinds.size)
        while True:
            state = _value_state(n_of.get(TEXT, 0), min(values, size))
            rows, status, n_values, n_slow = parse_range(buf, a, b, kinds, slots, *mine, slow, *state, positions)
            if status != FULL or values >= size:
                break
            values *= 8  # the sample promised fewer distinct values than this range has
        if status == PLAIN and n_slow and not _read_slow(buf, slow[:, :n_slow], mine[FLOAT]):
            status = OTHER
        results[k] = (rows, status, n_values, state, base)

    _threads.on_threads(run, [(k,) for k in range(len(ranges))])
    if any(r[1] != PLAIN for r in results):
        return None
    rows = [(r[4], r[4] + r[0]) for r in results]
    keep = None
    if any(stop != start for (_, stop), start in zip(rows[:-1], starts[1:])):  # empty lines skipped
        keep = np.concatenate([np.arange(a, b) for a, b in rows])
    columns = {}
    for c, field in enumerate(sample.schema):
        kind, slot = int(kinds[c]), int(slots[c])
        if kind == SKIP:
            continue
        values = outputs[kind][slot]
        values = values[: rows[-1][1]] if keep is None else values[keep]
        if kind == TEXT:
            column = _text_column(buf, results, values, slot)
            if column is None:
                return None
        else:
            column = pa.array(values)
        columns[field.name] = column
    return pa.table(columns)


@njit(cache=True, nogil=True)
def _gather(buf, starts, stops, offsets, data):
    """The bytes ``buf[starts[i]:stops[i]]`` one after the other, as a string array's buffers."""
    at = 0
    for i in range(starts.size):
        size = stops[i] - starts[i]
        move_bytes(data, at, buf, starts[i], size)
        at += size
        offsets[i + 1] = at


def _read_slow(buf, slow, decimals) -> bool:
    """Read the decimals the fast path left, by pyarrow's parser; False if one does not parse."""
    slots, rows, starts, stops = slow
    offsets = np.zeros(starts.size + 1, np.int64)
    data = np.empty(int((stops - starts).sum()), np.uint8)
    _gather(buf, starts, stops, offsets, data)
    text = pa.Array.from_buffers(pa.large_string(), starts.size, [None, pa.py_buffer(offsets), pa.py_buffer(data)])
    try:
        values = pc.cast(text, pa.float64()).to_numpy(zero_copy_only=False)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return False  # not a number: the file is read by pyarrow's reader, whose error names the value
    decimals[slots, rows] = values
    return True


def _line_ranges(buf, body: int, n_ranges: int):
    """``n_ranges`` ranges of whole lines: each cut moved to just after a line end, a LF or a
    CR not before a LF (None when a line is longer than a MiB)."""
    cuts = [body]
    for k in range(1, n_ranges):
        at = body + (buf.size - body) * k // n_ranges
        window = buf[at : at + (1 << 20)]
        after = buf[at + 1 : at + 1 + window.size]  # each byte's next (one short at the data's end)
        lone_cr = window == RETURN
        lone_cr[: after.size] &= after != NEWLINE
        ends = np.flatnonzero((window == NEWLINE) | lone_cr)
        if ends.size == 0:
            return None
        cuts.append(max(cuts[-1], at + int(ends[0]) + 1))
    cuts.append(buf.size)
    return list(zip(cuts[:-1], cuts[1:]))


_OUTPUTS = ((TEXT, np.int32), (BOOL, np.bool_), (INT, np.int64), (FLOAT, np.float64))


def _value_room(sample: pa.Table, kinds: np.ndarray, size: int) -> int:
    """Room for the distinct values of a text column, from those of the sample, scaled to the file."""
    found = [len(pc.unique(sample.column(c))) for c, kind in zip(sample.column_names, kinds) if kind == TEXT]
    if not found:
        return 1
    share = max(sample.nbytes, 1) / size  # nbytes of the parsed sample: near its share of the text
    return int(max(4096, 2 * max(found) / min(1.0, max(share, 1e-6))))


def _value_state(n_text: int, room: int):
    """(span_a, span_b, hashes, table) for ``room`` values of each of ``n_text`` text columns."""
    table = 1 << int(np.ceil(np.log2(2 * room + 2)))
    return (
        np.empty((n_text, room), np.int64),
        np.empty((n_text, room), np.int64),
        np.empty((n_text, room), np.uint64),
        np.empty((n_text, table), np.int64),
    )


def _text_column(buf, results, codes, slot) -> pa.DictionaryArray | None:
    """One text column's codes (``codes``, of every range, rewritten in place) in one sorted
    dictionary; None when its values are not UTF-8."""
    store, maps = _strings.new_store(), []
    for _, _, n_values, (span_a, span_b, hashes, _), _ in results:
        n = int(n_values[slot])
        spans = np.empty(2 * n + 1, np.int64)
        spans[0 : 2 * n : 2], spans[1 : 2 * n : 2] = span_a[slot, :n], span_b[slot, :n]
        mapped, store = _strings.merge_range(spans, buf, np.arange(0, 2 * n, 2), hashes[slot, :n].copy(), store)
        maps.append(mapped)
    s_offsets, s_data, _, _, counts = store
    n_values, n_bytes = int(counts[0]), int(counts[1])
    if n_bytes >= (1 << 31) - 1:
        return None
    found = pa.Array.from_buffers(
        pa.string(),
        n_values,
        [None, pa.py_buffer(s_offsets[: n_values + 1].astype(np.int32)), pa.py_buffer(s_data[:n_bytes].copy())],
    )
    try:
        found.validate(full=True)
    except pa.ArrowInvalid:
        return None
    order = pc.sort_indices(found).to_numpy()
    rank = np.empty(n_values, np.int32)
    rank[order] = np.arange(n_values, dtype=np.int32)
    at, calls = 0, []
    for mapped, (rows, *_) in zip(maps, results):
        table = rank[mapped]
        if not (table == np.arange(table.size)).all():
            calls.append((codes, at, at + rows, table))
        at += rows
    _threads.on_threads(_strings.recode, calls)
    return pa.DictionaryArray.from_arrays(pa.array(codes), found.take(pa.array(order)), safe=False)  # codes in range
