"""A numba reader of the whitespace-separated text formats, for the plain files that are most of them.

:func:`read_fields` turns a TREC run or qrels file (or a run file) straight into Arrow columns, in
two passes over the bytes on every thread: one counting the lines and the bytes of each string
field, one writing them. It reads what ``line.split()`` reads -- fields separated by runs of
spaces, tabs, vertical tabs or form feeds, ``\\n``, ``\\r`` or ``\\r\\n`` line ends, blank lines and
lines starting with ``#`` skipped -- and gives up (returns None) on anything else: a line of another
field count, a byte outside ASCII, a number that is not plain decimal (``1``, ``-2.50``, ``3e-4``)
or that a double does not hold at once. The caller then reads the file with Arrow's CSV parser,
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

from .._threads import on_threads

STRING, NUMBER, IGNORED = 0, 1, 2
_POW10 = np.array([10.0**i for i in range(23)])
_MAX_EXACT = 1 << 53
_MIN_CHUNK = 1 << 20  # bytes a thread takes at least
_MAX_BYTES = (1 << 31) - 1  # one string column's bytes: int32 offsets
OK, GIVE_UP = 0, 1


@njit(cache=True, inline="always")
def _is_blank(c):
    return c == 32 or c == 9 or c == 11 or c == 12


@njit(cache=True, inline="always")
def _is_end(c):
    return c == 10 or c == 13


@njit(cache=True)
def _number(buf, s, e):
    """``(ok, value)`` of the plain decimal ``buf[s:e]``; not ok for any other spelling."""
    i = s
    negative = False
    if buf[i] == 45:  # '-'
        negative = True
        i += 1
    mantissa = np.int64(0)
    digits = 0  # significant digits so far
    fraction = 0
    whole = False
    while i < e and 48 <= buf[i] <= 57:
        d = buf[i] - 48
        if mantissa != 0 or d != 0:
            digits += 1
            mantissa = mantissa * 10 + d
        whole = True
        i += 1
    if not whole or digits > 18:
        return False, 0.0
    if i < e and buf[i] == 46:  # '.'
        i += 1
        some = False
        while i < e and 48 <= buf[i] <= 57:
            d = buf[i] - 48
            if mantissa != 0 or d != 0:
                digits += 1
                mantissa = mantissa * 10 + d
            fraction += 1
            some = True
            i += 1
        if not some or digits > 18:
            return False, 0.0
    exponent = 0
    if i < e and (buf[i] == 101 or buf[i] == 69):  # 'e', 'E'
        i += 1
        sign = 1
        if i < e and (buf[i] == 45 or buf[i] == 43):
            sign = -1 if buf[i] == 45 else 1
            i += 1
        some = False
        while i < e and 48 <= buf[i] <= 57:
            if exponent < 10000:
                exponent = exponent * 10 + (buf[i] - 48)
            some = True
            i += 1
        if not some:
            return False, 0.0
        exponent *= sign
    if i != e:
        return False, 0.0
    if mantissa == 0:
        return True, -0.0 if negative else 0.0
    power = exponent - fraction
    if mantissa > _MAX_EXACT or power < -22 or power > 22:
        return False, 0.0
    value = float(mantissa)
    value = value * _POW10[power] if power >= 0 else value / _POW10[-power]
    return True, -value if negative else value


@njit(cache=True, nogil=True)
def _count_chunk(buf, start, stop, kinds, lines, nbytes, status, c):
    """Pass 1 over ``buf[start:stop]`` (whole lines): data lines and bytes of each string field."""
    n_fields = kinds.size
    i = start
    n = 0
    while i < stop:
        while i < stop and _is_blank(buf[i]):
            i += 1
        if i >= stop:
            break
        if _is_end(buf[i]):
            i += 1
            continue
        if buf[i] == 35:  # '#': a comment line
            while i < stop and not _is_end(buf[i]):
                i += 1
            continue
        f = 0
        s = 0
        while i < stop and not _is_end(buf[i]):
            if _is_blank(buf[i]):
                i += 1
                continue
            j = i
            while j < stop and not _is_blank(buf[j]) and not _is_end(buf[j]):
                if buf[j] >= 128:
                    status[c] = GIVE_UP
                    return
                j += 1
            if f < n_fields and kinds[f] == STRING:
                nbytes[c, s] += j - i
                s += 1
            f += 1
            i = j
        if f != n_fields:
            status[c] = GIVE_UP
            return
        n += 1
    lines[c] = n


@njit(cache=True, nogil=True)
def _fill_chunk(buf, start, stop, kinds, row, byte_at, offsets, data, numbers, status, c):
    """Pass 2: write the chunk's strings (``offsets``, ``data``) and numbers from row ``row`` on."""
    i = start
    while i < stop:
        while i < stop and _is_blank(buf[i]):
            i += 1
        if i >= stop:
            break
        if _is_end(buf[i]):
            i += 1
            continue
        if buf[i] == 35:
            while i < stop and not _is_end(buf[i]):
                i += 1
            continue
        f = 0
        s = 0
        x = 0
        while i < stop and not _is_end(buf[i]):
            if _is_blank(buf[i]):
                i += 1
                continue
            j = i
            while j < stop and not _is_blank(buf[j]) and not _is_end(buf[j]):
                j += 1
            kind = kinds[f]
            if kind == STRING:
                at = byte_at[s]
                for q in range(j - i):
                    data[s, at + q] = buf[i + q]
                byte_at[s] = at + j - i
                offsets[s, row + 1] = byte_at[s]
                s += 1
            elif kind == NUMBER:
                ok, value = _number(buf, i, j)
                if not ok:
                    status[c] = GIVE_UP
                    return
                numbers[x, row] = value
                x += 1
            f += 1
            i = j
        row += 1


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
    data : bytes
        The file's bytes (a leading UTF-8 byte-order mark is skipped).
    kinds : list of {STRING, NUMBER, IGNORED}
        What each field of a line is; every data line must have exactly this many fields.

    Returns
    -------
    list of pyarrow.Array or None
        One array per field not ``IGNORED``, in file order: strings as ``string``, numbers as
        ``float64``. None when a line does not fit (see the module docstring).
    """
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    buf = np.frombuffer(data, np.uint8)[start:]
    kinds = np.asarray(kinds, np.int8)
    n_strings, n_numbers = int((kinds == STRING).sum()), int((kinds == NUMBER).sum())
    chunks = max(1, min(4 * numba.get_num_threads(), buf.size // _MIN_CHUNK))
    bounds = _line_starts(buf, np.linspace(0, buf.size, chunks + 1).astype(np.int64))
    lines = np.zeros(chunks, np.int64)
    nbytes = np.zeros((chunks, max(n_strings, 1)), np.int64)
    status = np.zeros(chunks, np.int8)
    on_threads(_count_chunk, [(buf, bounds[c], bounds[c + 1], kinds, lines, nbytes, status, c) for c in range(chunks)])
    totals = nbytes.sum(axis=0)
    if status.any() or totals.max() > _MAX_BYTES:
        return None
    n = int(lines.sum())
    rows = np.concatenate([[0], np.cumsum(lines)])
    byte_at = np.vstack([np.zeros((1, nbytes.shape[1]), np.int64), np.cumsum(nbytes, axis=0)])
    offsets = np.zeros((n_strings, n + 1), np.int32)
    data_out = np.empty((n_strings, int(totals.max()) if n_strings else 0), np.uint8)
    numbers = np.empty((n_numbers, n), np.float64)
    calls = [
        (buf, bounds[c], bounds[c + 1], kinds, rows[c], byte_at[c].copy(), offsets, data_out, numbers, status, c)
        for c in range(chunks)
    ]
    on_threads(_fill_chunk, calls)
    if status.any():
        return None
    out, s, x = [], 0, 0
    for kind in kinds:
        if kind == STRING:
            size = int(totals[s])
            out.append(
                pa.Array.from_buffers(
                    pa.string(), n, [None, pa.py_buffer(offsets[s]), pa.py_buffer(data_out[s, :size])]
                )
            )
            s += 1
        elif kind == NUMBER:
            out.append(pa.array(numbers[x]))
            x += 1
    return out
