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

    Issued once per call, as scikit-learn's ``UndefinedMetricWarning``, naming the measures and
    how many of their cells are undefined. Pass ``undefined=<number>`` to replace them
    (``undefined=0`` is scikit-learn's ``zero_division=0``), or ``smoothing=...`` where the
    measure supports it; ``warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)`` keeps
    the NaNs without the warning.
    """


class SignificanceWarning(UserWarning):
    """A family of significance tests cannot reject at the level asked for.

    Too few resamples, or too few topics for an exact test, leave the smallest adjusted p-value
    reachable at or above ``alpha``; the message names it and what to change.
    """


# scikit-learn's options that fastmetrics spells otherwise, and what to write instead
_SKLEARN_OPTIONS = {
    "zero_division": "its option is undefined=, the value where a measure is undefined: undefined=0 is "
    "zero_division=0 (with an averaging it replaces each undefined per-class value before the mean, as "
    "zero_division does); the default, None, returns NaN (zero_division=np.nan) with one "
    "UndefinedMeasureWarning that counts the cells",
    "labels": "its option is classes=, the class labels in order",
}


def refuse_sklearn_options(options, owner: str) -> None:
    """Raise a :class:`ParameterError` that points to fastmetrics's name of a scikit-learn option."""
    for name in options:
        if name in _SKLEARN_OPTIONS:
            raise ParameterError(f"{owner} takes no {name}= (scikit-learn's option); {_SKLEARN_OPTIONS[name]}.")


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
