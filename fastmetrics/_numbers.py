"""Numbers as a person reads them: one rule for every table, report, notebook view, message and
counterexample fastmetrics prints (files written for programs -- Parquet, CSV, JSON -- keep the
numbers themselves).

- **Undefined** (NaN) is written ``NaN`` everywhere -- plain text, Markdown, LaTeX, HTML, notebook
  views, counterexamples (:data:`UNDEFINED`): the spelling numpy, pandas and Arrow print, and the
  value the results hold, so the same word means the same thing on every page. A null (no value:
  a baseline has no rank) is an empty cell.
- **Measure values**, and any other real number in a table, have 4 decimals (:func:`value`): the
  columns line up and every value of a table has the same precision. Never ``-0.0000``: a value
  that rounds to zero is ``0.0000``.
- **Counts** are integers (:func:`count`); a weighted count that is not whole has 4 significant
  digits.
- **Parameters** are the shortest text that reads back as the same float (:func:`parameter`):
  ``fbeta(beta=0.5)``, ``[0, inf]``; the measure-spec parser reads them back.
- **Intervals** are ``value [low, high]`` (:func:`interval`, :func:`bounds`), each bound written as
  its value; a rank interval ``3 [1, 5]``.
- **A number inside a sentence** (a counterexample of the property checker, a message) has up to
  6 significant digits and no trailing zeros (:func:`short`): a counterexample must show the
  difference it claims, which 4 decimals can round away.
"""

from __future__ import annotations

import math
from collections.abc import Callable

UNDEFINED = "NaN"
DECIMALS = 4


def value(x, decimals: int = DECIMALS) -> str:
    """A measure value (or any real number of a table) with ``decimals`` decimals.

    Parameters
    ----------
    x : float
    decimals : int, default 4

    Returns
    -------
    str
        ``0.9192``; ``NaN`` when undefined; ``inf``/``-inf``; never a negative zero.

    Examples
    --------
    >>> value(0.91916), value(float("nan")), value(-1e-17)
    ('0.9192', 'NaN', '0.0000')
    """
    x = float(x)
    if math.isnan(x):
        return UNDEFINED
    text = f"{x:.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def count(x) -> str:
    """A count: an integer, or 4 significant digits for a weighted count that is not whole.

    Parameters
    ----------
    x : int or float

    Returns
    -------
    str

    Examples
    --------
    >>> count(12.0), count(2.5), count(float("nan"))
    ('12', '2.5', 'NaN')
    """
    x = float(x)
    if math.isnan(x):
        return UNDEFINED
    if math.isfinite(x) and x.is_integer():
        return str(int(x))
    return f"{x:.4g}"


def parameter(x) -> str:
    """A parameter: the shortest text that reads back as the same float.

    Parameters
    ----------
    x : float
        A parameter's value, or a bound of a measure's range.

    Returns
    -------
    str
        ``0.5``, ``2``, ``1e-06``, ``inf``; ``repr`` where the short form would lose digits.

    Examples
    --------
    >>> parameter(0.5), parameter(2.0), parameter(float("inf")), parameter(0.1 + 0.2)
    ('0.5', '2', 'inf', '0.30000000000000004')
    """
    x = float(x)
    if math.isnan(x):
        return UNDEFINED
    text = f"{x:g}"
    return text if float(text) == x else repr(x)


def short(x) -> str:
    """A number inside a sentence: up to 6 significant digits, no trailing zeros.

    Parameters
    ----------
    x : float
        A value a counterexample or a message quotes.

    Returns
    -------
    str

    Examples
    --------
    >>> short(1 / 3), short(1.0), short(-0.0), short(float("nan"))
    ('0.333333', '1', '0', 'NaN')
    """
    x = float(x)
    if math.isnan(x):
        return UNDEFINED
    return f"{x + 0.0:.6g}"


def bounds(low, high, form: Callable = value) -> str:
    """An interval's bounds: ``[low, high]``.

    Parameters
    ----------
    low, high : float
    form : callable, default :func:`value`
        How each bound is written (:func:`count` for ranks).

    Returns
    -------
    str
    """
    return f"[{form(low)}, {form(high)}]"


def interval(x, low, high, form: Callable = value) -> str:
    """A value with its interval: ``0.9192 [0.9100, 0.9300]``.

    Parameters
    ----------
    x, low, high : float
    form : callable, default :func:`value`
        How the value and its bounds are written (:func:`count` for ranks: ``3 [1, 5]``).

    Returns
    -------
    str

    Examples
    --------
    >>> interval(0.91916, 0.91, 0.93)
    '0.9192 [0.9100, 0.9300]'
    """
    return f"{form(x)} {bounds(low, high, form)}"


def cell(x, decimals: int = DECIMALS) -> str:
    """Any table cell: a null empty, a float as :func:`value`, anything else as written.

    Parameters
    ----------
    x : object
    decimals : int, default 4
        Of floats.

    Returns
    -------
    str
    """
    if x is None:
        return ""
    if isinstance(x, float):
        return value(x, decimals)
    return str(x)
