"""Exceptions and warnings shared by every stage.

Every error a user can trigger with bad input is a subclass of :class:`ValueError`, so callers that
already catch ``ValueError`` keep working, and the CLI maps all of them to exit status 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class FastmetricsError(ValueError):
    """Base class of the errors fastmetrics raises on bad input."""


class InputError(FastmetricsError):
    """The input data is malformed.

    A column is missing, a value is out of its domain, a file is unreadable, or the rows do not
    fit together (duplicates, missing gold items). The message names the file, column and row.
    """


class ParameterError(FastmetricsError):
    """An option of a public function has a value outside its documented domain."""


class UnknownMeasureError(FastmetricsError):
    """A measure name matches nothing in the registry; the message lists the closest names."""


class UndefinedMeasureWarning(UserWarning):
    """Some cells of a measure are undefined (e.g. a zero denominator) and were returned as NaN.

    Issued once per call with the number of undefined cells. Pass ``undefined=<number>`` to
    replace them, or ``smoothing=...`` where the measure supports it.
    """


class SignificanceWarning(UserWarning):
    """A family of significance tests cannot reject at the level asked for.

    Too few resamples, or too few topics for an exact test, leave the smallest adjusted p-value
    reachable at or above ``alpha``; the message names it and what to change.
    """


def plain(value):
    """A value as a message shows it: numpy scalars as the Python number they hold (``1.7``, not
    ``np.float64(1.7)``), anything else as it is."""
    item = getattr(value, "item", None)
    return item() if callable(item) and getattr(value, "ndim", None) == 0 else value


def parameter_error(param: str, owner: str, expected: str, got) -> ParameterError:
    """One message template for every invalid option (scikit-learn's wording)."""
    return ParameterError(f"The '{param}' parameter of {owner} must be {expected}. Got {plain(got)!r} instead.")


def suggest(name: str, candidates: Iterable[str], n: int = 4) -> str:
    """A "did you mean" suffix listing the closest candidate names, or '' if none is close."""
    close = difflib.get_close_matches(name, list(candidates), n=n, cutoff=0.5)
    return f" Did you mean: {', '.join(close)}?" if close else ""
