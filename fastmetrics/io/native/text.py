"""A numba reader of the whitespace-separated text formats, for the plain files that are most of them.

:func:`read_fields` turns a TREC run or qrels file (or a run file) straight into Arrow columns, in
one pass over the bytes on every thread: each thread parses a chunk of lines at a time into arrays
of its own and copies it into the joined columns as soon as the chunks before it are in. It reads
what ``line.split()`` reads -- fields separated by runs of spaces, tabs, vertical tabs or form
feeds, ``\\n``, ``\\r`` or ``\\r\\n`` line ends, blank lines and lines starting with ``#``
skipped -- and gives up (returns None) on anything else: a line of another field count, a byte
outside ASCII, a number that is not plain decimal (``1``, ``-2.50``, ``3e-4``) or that a double
does not hold at once. The caller then reads the file with Arrow's CSV parser,
which names the line in error; both give equal tables on the files this one reads.

Numbers are exact: a decimal of at most 2**53 units times a power of ten of at most 22 is one
correctly rounded multiplication or division of two exact doubles (Clinger's fast path), the
value ``strtod`` and Arrow's parser give; any other number is a give-up.
"""

from __future__ import annotations

import numba
import numpy as np
import pyarrow as pa
from numba import njit

from ... import _memory
from ..._strings import load_word, move_bytes
from ..._threads import in_pool, on_threads
from .fields import EXACT, parse_decimal

STRING, NUMBER, IGNORED = 0, 1, 2
_MIN_CHUNK = 1 << 18  # bytes a thread takes at least
_MAX_BYTES = (1 << 31) - 1  # one string column's bytes: int32 offsets
OK, GIVE_UP = 0, 1


# byte classes: field text, blank, line end, outside ASCII
TEXT, BLANK, END, WIDE = 0, 1, 2, 3
_CLASS = np.zeros(256, np.uint8)
_CLASS[[32, 9, 11, 12]] = BLANK
_CLASS[[10, 13]] = END
_CLASS[128:] = WIDE


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == 32 or c == 9 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _is_end(c):
    return c == 10 or c == 13


_LOW = np.uint64(0x2121212121212121)
_HIGH = np.uint64(0x8080808080808080)


@njit(cache=True, inline="always")
def _plain_word(word):
    """Whether all 8 bytes of ``word`` are printable ASCII other than the space (0x21-0x7F), so
    field text without a check a byte: a byte below 0x21 borrows into its own high bit in
    ``word - 0x21..21`` (Mycroft's test for a byte below a bound), a byte from 0x80 has it set. A
    word with any other byte is read a byte at a time (control bytes other than blanks and line
    ends are field text too)."""
    return ((((word - _LOW) & ~word) | word) & _HIGH) == np.uint64(0)


@njit(cache=True, inline="always")
def _text_end(buf, j, stop, cls):
    """``(end, class)``: the first byte from ``j`` that is not field text (or ``stop``), 8 bytes a
    step while they are plainly text, and its class (``TEXT`` at ``stop``)."""
    k = TEXT
    while True:
        while j + 8 <= stop and _plain_word(load_word(buf, j)):
            j += 8
        if j >= stop:
            return j, k
        k = cls[buf[np.uint64(j)]]
        if k != TEXT:
            return j, k
        j += 1


@njit(cache=True, inline="always")
def _number(buf, s, e):
    """``(ok, value)`` of the plain decimal ``buf[s:e]`` the exactly rounded fast path reads
    (:func:`fastmetrics.io._csv._decimal`); not ok for any other spelling or value."""
    value, parsed = parse_decimal(buf, s, e)
    return parsed == EXACT, value


@njit(cache=True, nogil=True)
def _parse_chunk(buf, start, stop, kinds, offsets, data, numbers):
    """One pass over the whole lines ``buf[start:stop]``: ``(status, rows)``.

    ``offsets[s]`` and ``data[s]`` receive string field ``s`` of every row (offsets from 0 in the
    chunk), ``numbers[x]`` number field ``x``. The arrays hold any chunk (a row takes at least
    ``2 * fields - 1`` bytes, a string column at most the chunk's bytes): nothing is checked or
    reallocated in the loop, which copies a string as it finds its end, looking for it 8 bytes at a time.
    """
    cls = _CLASS
    width = data.shape[1]
    at = np.zeros(offsets.shape[0], np.int64)
    n_fields = kinds.size
    row = 0
    i = start
    while i < stop:
        k = cls[buf[np.uint64(i)]]
        if k == BLANK or k == END:
            i += 1
            continue
        if buf[i] == 35:  # '#': a comment line
            while i < stop and cls[buf[np.uint64(i)]] != END:
                i += 1
            continue
        f, s, x = 0, 0, 0
        while i < stop:
            k = cls[buf[np.uint64(i)]]
            if k == END:
                break
            if k == BLANK:
                i += 1
                continue
            if f == n_fields:
                return GIVE_UP, row
            kind = kinds[f]
            j = i
            if kind == STRING:
                j, k = _text_end(buf, j, stop, cls)
                move_bytes(data, s * width + at[s], buf, i, j - i)
                at[s] += j - i
                offsets[s, row + 1] = at[s]
                s += 1
            else:
                while j < stop:
                    k = cls[buf[np.uint64(j)]]
                    if k != TEXT:
                        break
                    j += 1
                if kind == NUMBER:
                    ok, value = _number(buf, i, j)
                    if not ok:
                        return GIVE_UP, row
                    numbers[x, row] = value
                    x += 1
            if k == WIDE:
                return GIVE_UP, row
            f += 1
            i = j
        if f != n_fields:
            return GIVE_UP, row
        row += 1
    return OK, row


@njit(cache=True, nogil=True)
def _join_chunk(offsets, strings, numbers, rows, row, field_at, chunk_at, joined_offsets, joined, joined_numbers):
    """Copy one chunk's columns into the joined ones: its rows from ``row`` on, its bytes of string
    column ``s`` from ``field_at[s] + chunk_at[s]`` on."""
    # unsigned indices: numba wraps a signed index that might be negative, and the wrap turns these loops
    # vector loads and stores into gathers
    first, count, one = np.uint64(row), np.uint64(rows), np.uint64(1)
    for s in range(offsets.shape[0]):
        base = chunk_at[s]
        for r in range(count):
            joined_offsets[s, first + r + one] = offsets[s, r + one] + base
        # memmove: numba compiles a byte loop of element assignments, several times slower
        move_bytes(joined, field_at[s] + base, strings[s], 0, np.int64(offsets[s, rows]))
    for x in range(numbers.shape[0]):
        for r in range(count):
            joined_numbers[x, first + r] = numbers[x, r]


def _chunk_arrays(size: int, kinds, n_strings, n_numbers):
    """``(offsets, data, numbers)`` that hold any chunk of ``size`` bytes."""
    rows = _most_rows(size, kinds)
    # in Arrow's pool, as every large array of the reader (see fastmetrics._memory.empty)
    offsets = _memory.empty((n_strings, rows + 1), np.int32)
    offsets[:, 0] = 0
    return offsets, _memory.empty((n_strings, size), np.uint8), _memory.empty((n_numbers, rows), np.float64)


def _most_rows(size: int, kinds) -> int:
    """The most lines ``size`` bytes can hold (a row takes at least ``2 * fields - 1`` bytes)."""
    return int(size) // max(2 * kinds.size - 1, 1) + 1


class _InTurn:
    """Where each chunk's rows and bytes go in the joined columns, known once the chunks before
    it are in: chunk ``c`` is copied after ``done[c - 1]``."""

    def __init__(self, chunks: int, n_strings: int, width: int):
        import threading

        self.lock = threading.Lock()
        self.next = 0
        self.chunks = chunks
        self.done = [threading.Event() for _ in range(chunks)]
        self.failed = False
        self.row_at = np.zeros(chunks + 1, np.int64)
        self.byte_at = np.zeros((chunks + 1, n_strings), np.int64)
        self.field_at = np.arange(n_strings, dtype=np.int64) * width  # each column's row of `joined`

    def take(self) -> int:
        with self.lock:
            chunk, self.next = self.next, self.next + 1
        return chunk


def _parse_in_turn(buf, bounds, kinds, scratch, joined, turn: _InTurn) -> None:
    """Parse the chunks no thread has taken yet, one at a time, into this thread's ``scratch``
    arrays, and copy each into the ``joined`` ones once the chunks before it are in.

    The joined arrays are sized for the whole file and a thread's scratch for one chunk, so the
    memory a read touches is about its output and a chunk a thread, where every chunk kept its
    own arrays until one copy joined them all: twice the output in new pages, which a virtual
    machine whose host takes freed memory back faults in at a high price.
    """
    offsets, data, numbers = scratch
    while True:
        c = turn.take()
        if c >= turn.chunks:
            return
        try:
            if turn.failed:  # a chunk before gave up: the file is read otherwise
                continue
            status, rows = _parse_chunk(buf, bounds[c], bounds[c + 1], kinds, offsets, data, numbers)
            if c:
                turn.done[c - 1].wait()
            sizes = offsets[:, rows].astype(np.int64)
            at = turn.byte_at[c]
            if status != OK or turn.failed or (at + sizes > _MAX_BYTES).any():
                turn.failed = True
                continue
            _join_chunk(offsets, data, numbers, rows, turn.row_at[c], turn.field_at, at, *joined)
            turn.row_at[c + 1] = turn.row_at[c] + rows
            turn.byte_at[c + 1] = at + sizes
        except BaseException:
            turn.failed = True
            raise
        finally:
            turn.done[c].set()


@njit(cache=True)
def _line_starts(buf, approx):
    """Chunk bounds: each approximate position moved past the next line end."""
    out = approx.copy()
    for k in range(1, approx.size - 1):
        i = max(approx[k], out[k - 1])
        while i < buf.size and not _is_end(buf[i]):
            i += 1
        out[k] = min(i + 1, buf.size)
    return out


@njit(cache=True)
def first_field_count(buf):
    """Number of fields of the first data line (neither blank nor a comment); 0 without one."""
    i = 0
    n = buf.size
    while i < n:
        while i < n and _is_blank(buf[i]):
            i += 1
        if i >= n:
            return 0
        if _is_end(buf[i]):
            i += 1
            continue
        if buf[i] == 35:
            while i < n and not _is_end(buf[i]):
                i += 1
            continue
        f = 0
        while i < n and not _is_end(buf[i]):
            if _is_blank(buf[i]):
                i += 1
                continue
            while i < n and not _is_blank(buf[i]) and not _is_end(buf[i]):
                i += 1
            f += 1
        return f
    return 0


def read_fields(data: bytes, kinds: list) -> list | None:
    """The fields of every data line of ``data`` as Arrow arrays, or None to read it otherwise.

    Parameters
    ----------
    data : bytes or buffer
        The file's bytes, or a memory map of them (a leading UTF-8 byte-order mark is skipped).
    kinds : list of {STRING, NUMBER, IGNORED}
        What each field of a line is; every data line must have exactly this many fields.

    Returns
    -------
    list of pyarrow.Array or None
        One array per field not ``IGNORED``, in file order: strings as ``string``, numbers as
        ``float64``. None when a line does not fit (see the module docstring), a string column
        holds more than 2 GiB, or the system refuses the address space of the joined columns.
    """
    start = 3 if data[:3] == b"\xef\xbb\xbf" else 0
    buf = np.frombuffer(data, np.uint8)[start:]
    kinds = np.asarray(kinds, np.int8)
    n_strings, n_numbers = int((kinds == STRING).sum()), int((kinds == NUMBER).sum())
    # several chunks a thread (they differ in speed), none near the 2 GiB of int32 offsets; one
    # chunk on a pool thread, which parses its file itself (several run files, a file a thread)
    most = 1 if in_pool() else 4 * numba.get_num_threads()
    chunks = max(1, min(most, buf.size // _MIN_CHUNK), buf.size // (1 << 30) + 1)
    bounds = _line_starts(buf, np.linspace(0, buf.size, chunks + 1).astype(np.int64))
    # allocated here, on the calling thread: Arrow's pool keeps a thread's freed blocks for that
    # thread, and the pool's threads would take fresh pages for them at every read
    if chunks == 1:  # parsed where it stays
        offsets, strings, numbers = _chunk_arrays(int(bounds[1] - bounds[0]), kinds, n_strings, n_numbers)
        status, n = _parse_chunk(buf, bounds[0], bounds[1], kinds, offsets, strings, numbers)
        if status != OK:
            return None
        totals = offsets[:, n].astype(np.int64)
        field_at = np.arange(n_strings, dtype=np.int64) * strings.shape[1]
        joined_offsets, joined, joined_numbers = offsets, strings.reshape(-1), numbers
    else:
        widest = int(np.diff(bounds).max())
        threads = min(chunks, numba.get_num_threads())
        scratch = [_chunk_arrays(widest, kinds, n_strings, n_numbers) for _ in range(threads)]
        rows = sum(_most_rows(size, kinds) for size in np.diff(bounds))
        # sized for the whole file (a string column holds at most its bytes): the pages past
        # what the lines fill are never touched
        width = max(int(buf.size), 1)
        try:
            joined_offsets = _memory.empty((n_strings, rows + 1), np.int32)
            joined = _memory.empty(n_strings * width, np.uint8)
            joined_numbers = _memory.empty((n_numbers, rows), np.float64)
        except MemoryError:
            return None  # the system refuses that much address space (several times a large file)
        joined_offsets[:, 0] = 0
        turn = _InTurn(chunks, n_strings, width)
        joined_arrays = (joined_offsets, joined, joined_numbers)
        on_threads(_parse_in_turn, [(buf, bounds, kinds, part, joined_arrays, turn) for part in scratch])
        if turn.failed:
            return None
        n, totals, field_at = int(turn.row_at[-1]), turn.byte_at[-1], turn.field_at
    out, s, x = [], 0, 0
    for kind in kinds:
        if kind == STRING:
            data_s = joined[field_at[s] : field_at[s] + totals[s]]
            offsets_s = pa.py_buffer(joined_offsets[s, : n + 1])
            out.append(pa.Array.from_buffers(pa.string(), n, [None, offsets_s, pa.py_buffer(data_s)]))
            s += 1
        elif kind == NUMBER:
            out.append(pa.Array.from_buffers(pa.float64(), n, [None, pa.py_buffer(joined_numbers[x, :n])]))
            x += 1
    return out
