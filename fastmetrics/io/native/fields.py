"""Text fields parsed in place by numba kernels: booleans in pyarrow's default spellings, integers,
and decimals by Clinger's exactly rounded fast path (``EXACT``), any other well-formed decimal
left to pyarrow's parser (``SLOW``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..._strings import last_word

EXACT, SLOW, MALFORMED = 0, 1, 2


_POWERS = np.array([10.0**k for k in range(23)])


_MAX_MANTISSA = 1 << 53


# pyarrow's default spellings of booleans (ConvertOptions.true_values / false_values) besides
# 1 and 0, as little-endian words
_TRUE_LOWER, _TRUE_TITLE, _TRUE_UPPER = (np.uint64(int.from_bytes(w, "little")) for w in (b"true", b"True", b"TRUE"))


_FALSE_LOWER, _FALSE_TITLE, _FALSE_UPPER = (
    np.uint64(int.from_bytes(w, "little")) for w in (b"false", b"False", b"FALSE")
)


@njit(cache=True, nogil=True, inline="always")
def parse_boolean(buf, a, b):
    """1, 0, or -1 for a field that is none of pyarrow's default spellings of a boolean."""
    size = b - a
    if size == 1:
        return 1 if buf[a] == 49 else 0 if buf[a] == 48 else -1
    if size != 4 and size != 5:
        return -1
    word = last_word(buf, a, b)
    if size == 4:
        return 1 if word == _TRUE_LOWER or word == _TRUE_TITLE or word == _TRUE_UPPER else -1
    return 0 if word == _FALSE_LOWER or word == _FALSE_TITLE or word == _FALSE_UPPER else -1


@njit(cache=True, nogil=True)
def parse_integer(buf, a, b):
    """(value, ok) of ``-?digits`` (at most 18 digits)."""
    negative = buf[a] == 45
    at = a + 1 if negative else a
    if at >= b or b - at > 18:
        return np.int64(0), False
    value = np.int64(0)
    for i in range(at, b):
        d = np.int64(buf[i]) - 48
        if d < 0 or d > 9:
            return np.int64(0), False
        value = value * 10 + d
    return (-value if negative else value), True


@njit(cache=True, nogil=True)
def parse_decimal(buf, a, b):
    """A decimal parsed in place, and how.

    ``(value, status)`` of ``-?d+(.d+)?([eE][+-]?d+)?``: ``EXACT`` when the fast path rounds it
    exactly, ``SLOW`` for a well-formed decimal it does not (read by pyarrow afterwards),
    ``MALFORMED`` otherwise."""
    at = a
    negative = buf[at] == 45
    if negative:
        at += 1
    mantissa = np.uint64(0)
    digits = 0  # significant digits taken
    exponent = 0
    whole = 0
    # each byte loaded once, by an unsigned index (numba wraps a signed one, a cost a byte)
    while at < b:
        c = buf[np.uint64(at)]
        if c < 48 or c > 57:
            break
        if digits or c != 48:
            digits += 1
            mantissa = mantissa * np.uint64(10) + np.uint64(c - 48)
        whole += 1
        at += 1
    if whole == 0:
        return 0.0, MALFORMED
    if at < b and buf[np.uint64(at)] == 46:
        at += 1
        fraction = 0
        while at < b:
            c = buf[np.uint64(at)]
            if c < 48 or c > 57:
                break
            if digits or c != 48:
                digits += 1
                mantissa = mantissa * np.uint64(10) + np.uint64(c - 48)
            exponent -= 1
            fraction += 1
            at += 1
        if fraction == 0:
            return 0.0, MALFORMED
    if at < b and (buf[at] == 101 or buf[at] == 69):
        at += 1
        sign = 1
        if at < b and (buf[at] == 45 or buf[at] == 43):
            sign = -1 if buf[at] == 45 else 1
            at += 1
        power, n_digits = 0, 0
        while at < b and 48 <= buf[at] <= 57 and n_digits < 4:
            power = power * 10 + (buf[at] - 48)
            n_digits += 1
            at += 1
        if n_digits == 0:
            return 0.0, MALFORMED
        exponent += sign * power
    if at != b:
        return 0.0, MALFORMED
    if digits > 19 or mantissa > np.uint64(_MAX_MANTISSA) or exponent > 22 or exponent < -22:
        return 0.0, SLOW
    value = np.float64(mantissa)
    value = value * _POWERS[exponent] if exponent >= 0 else value / _POWERS[-exponent]
    return (-value if negative else value), EXACT
