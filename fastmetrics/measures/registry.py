"""The measure registry: one :class:`Measure` record per measure.

Dispatch (:func:`fastmetrics.compute`), the catalog (:func:`fastmetrics.measures`), the CLI, the
error messages and the common test suite all read this registry; nothing keeps a list of its own.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Callable, Mapping

from .._errors import UnknownMeasureError, parameter_error, suggest, ParameterError

FAMILIES = ("utility", "informativeness", "class-oriented", "none", "descriptive")


@dataclass(frozen=True)
class Param:
    """A numeric parameter of a measure, with its domain.

    ``low``/``high`` bound the domain; ``low_open``/``high_open`` say whether the bound itself is
    excluded. ``None`` means unbounded on that side.
    """

    name: str
    default: float
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False

    def describe(self) -> str:
        if self.low is None and self.high is None:
            return "a finite float"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {self.low:g}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {self.high:g}")
        return "a float " + " and ".join(parts)

    def validate(self, value, owner: str) -> float:
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise parameter_error(self.name, owner, self.describe(), value) from None
        if isinstance(value, bool) or math.isnan(x) or math.isinf(x):
            raise parameter_error(self.name, owner, self.describe(), value)
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            raise parameter_error(self.name, owner, self.describe(), value)
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            raise parameter_error(self.name, owner, self.describe(), value)
        return x


@dataclass(frozen=True)
class Measure:
    """Metadata and kernel of one measure.

    Attributes
    ----------
    name : str
        Canonical snake_case identifier.
    kernel : callable
        A float64 numba ufunc over ``(tp, fp, fn, tn, *params)``; never validates or warns.
    summary : str
        One line saying what the measure is.
    formula : str
        Plain-text formula in tp/fp/fn/tn (or c_ij) notation.
    latex : str
        The same formula in LaTeX.
    range : tuple of float
        Lowest and highest attainable value (``-inf``/``inf`` when unbounded).
    higher_is_better : bool
        Direction of the measure.
    family : str
        Seed 004 §3.3 family: "utility", "informativeness", "class-oriented", "none", or
        "descriptive" for raw counts.
    undefined_when : str
        When the measure is undefined (returned as NaN); "never" if always defined for n > 0.
    reference : str
        Paper and equation the definition follows.
    aliases : tuple of str
        Other accepted names.
    params : tuple of Param
        Numeric parameters, passed to the kernel after the four counts, in this order.
    smoothed : "joint", callable or None
        How ``smoothing=`` (seed 004 §5) applies. ``"joint"``: the measure depends on the joint
        distribution only, rebuilt from the smoothed P(S|G), P(S|¬G) and the prior P(G), and the
        count kernel is applied to it; a callable: a ufunc over the smoothed
        ``(recall, specificity, precision, npv, P(G), P(S), *params)``; ``None``: not smoothable.
    multiclass : callable or None
        Native definition over ``counts[..., m, m]`` (a gufunc ``(m,m)[...]->()``), if the
        measure has one; without it a multiclass matrix needs ``average=`` (one-vs-rest).
    multiclass_formula : str
        The native multiclass formula (plain text), shown in the catalog.
    matrix_params : tuple of str
        Names of array parameters of the multiclass kernel (e.g. ``cost`` of ``k_cost``), passed
        after the counts and before the numeric parameters.
    multilabel : callable or None
        Definition over multilabel statistics (see :mod:`fastmetrics.measures.multilabel`) where
        it differs from averaging the per-category binary values.
    properties : frozenset of str
        Flags checked by the common tests (e.g. ``"class_symmetric"``, ``"bounded"``).
    """

    name: str
    kernel: Callable
    summary: str
    formula: str
    latex: str
    range: tuple[float, float]
    higher_is_better: bool
    family: str
    undefined_when: str
    reference: str
    aliases: tuple[str, ...] = ()
    params: tuple[Param, ...] = ()
    smoothed: object = None
    multiclass: Callable | None = None
    multiclass_formula: str = ""
    matrix_params: tuple[str, ...] = ()
    multilabel: Callable | None = None
    properties: frozenset = field(default_factory=frozenset)

    def __post_init__(self):
        if self.family not in FAMILIES:
            raise ValueError(f"measure {self.name}: family must be one of {FAMILIES}, got {self.family!r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"measure name must be snake_case, got {self.name!r}")

    @property
    def smoothable(self) -> bool:
        return self.smoothed is not None

    def bind(self, params: Mapping[str, object] | None = None) -> tuple[float, ...]:
        """Validate ``params`` against the declared parameters; return them in kernel order."""
        params = dict(params or {})
        known = {p.name for p in self.params}
        unknown = sorted(set(params) - known)
        if unknown:
            expected = ", ".join(sorted(known)) if known else "no parameters"
            raise ParameterError(
                f"Measure '{self.name}' got unexpected parameter(s) {', '.join(unknown)}; it takes {expected}."
            )
        return tuple(p.validate(params.get(p.name, p.default), self.name) for p in self.params)


_REGISTRY: dict[str, Measure] = {}
_ALIASES: dict[str, str] = {}


def register(measure: Measure) -> Measure:
    """Add a measure to the registry. Names and aliases must be new."""
    for key in (measure.name, *measure.aliases):
        if key in _REGISTRY or key in _ALIASES:
            raise ValueError(f"measure name or alias {key!r} is already registered")
    _REGISTRY[measure.name] = measure
    for alias in measure.aliases:
        _ALIASES[alias] = measure.name
    return measure


def unregister(name: str) -> None:
    """Remove a measure (used for measures a user registered at run time)."""
    measure = _REGISTRY.pop(name)
    for alias in measure.aliases:
        _ALIASES.pop(alias, None)


def _normalize(name: str) -> str:
    return name.strip().lower().replace("-", "_").replace(" ", "_")


def get(name: str) -> Measure:
    """The measure registered under ``name`` or one of its aliases.

    Raises
    ------
    UnknownMeasureError
        If nothing matches; the message suggests the closest registered names.
    """
    if isinstance(name, Measure):
        return name
    if not isinstance(name, str):
        raise UnknownMeasureError(f"A measure name must be a string. Got {name!r}.")
    key = _normalize(name)
    if key in _REGISTRY:
        return _REGISTRY[key]
    if key in _ALIASES:
        return _REGISTRY[_ALIASES[key]]
    raise UnknownMeasureError(
        f"Unknown measure {name!r}." + suggest(key, list(_REGISTRY) + list(_ALIASES))
        + " Run `fastmetrics measures` for the catalog."
    )


def register_function(name: str, function: Callable, *, higher_is_better: bool = True, summary: str = "",
                      formula: str = "", range=(-math.inf, math.inf), family: str = "none",
                      undefined_when: str = "see its definition", reference: str = "user-defined") -> Measure:
    """Compile a Python function of ``(tp, fp, fn, tn)`` into a measure and register it.

    The measure can then be computed, put in leaderboards and checked
    (:func:`fastmetrics.meta.axioms.check`) like any built-in one.

    Parameters
    ----------
    name : str
        Its snake_case name (must be new).
    function : callable
        Numba-compatible scalar code of ``(tp, fp, fn, tn)``, returning NaN where undefined.
    higher_is_better : bool, default True
    summary, formula : str, optional
        One line and a plain-text formula for the catalog (default: from ``name``).
    range : tuple of float, default (-inf, inf)
        Lowest and highest attainable value.
    family : str, default "none"
        One of :data:`FAMILIES`.
    undefined_when, reference : str
        When it is undefined, and where it comes from.

    Returns
    -------
    Measure
        The registered record; :func:`unregister` removes it.

    Examples
    --------
    >>> from fastmetrics.measures.registry import register_function
    >>> def youden(tp, fp, fn, tn):
    ...     return tp / (tp + fn) + tn / (fp + tn) - 1.0
    >>> m = register_function("my_youden", youden)
    """
    from numba import vectorize

    # not cached: the function may live in a notebook or a test, where numba cannot cache
    kernel = vectorize(["float64(float64, float64, float64, float64)"])(function)
    return register(Measure(
        name=name, kernel=kernel, summary=summary or f"user-defined measure {name}", formula=formula or name,
        latex=formula or name, range=tuple(range), higher_is_better=higher_is_better, family=family,
        undefined_when=undefined_when, reference=reference,
    ))


def names() -> list[str]:
    """Canonical names of all registered measures, sorted."""
    return sorted(_REGISTRY)


def all_measures() -> list[Measure]:
    return [_REGISTRY[n] for n in names()]


# ---------------------------------------------------------------------------------------------
# Measure specs: "fbeta(beta=0.5)" -- the one string form used by the CLI and in result tables.

_SPEC = re.compile(r"^\s*([A-Za-z][\w\-]*)\s*(?:\((.*)\))?\s*$")


@dataclass(frozen=True)
class MeasureSpec:
    """A measure with bound parameter values; ``str(spec)`` is its label in result tables."""

    measure: Measure
    params: tuple[float, ...]

    @property
    def label(self) -> str:
        changed = [
            f"{p.name}={_fmt(v)}" for p, v in zip(self.measure.params, self.params) if v != p.default
        ]
        return self.measure.name + (f"({','.join(changed)})" if changed else "")

    def __str__(self) -> str:
        return self.label


def _fmt(v: float) -> str:
    return f"{v:g}" if float(v) == float(f"{v:g}") else repr(float(v))


def make_spec(measure, params: Mapping[str, object] | None = None) -> MeasureSpec:
    """A :class:`MeasureSpec` from a name (or a spec string) and keyword parameters."""
    if isinstance(measure, MeasureSpec):
        if params:
            raise ParameterError("Parameters given twice: in the spec and as keywords.")
        return measure
    if isinstance(measure, str) and "(" in measure:
        spec = parse_spec(measure)
        if params:
            merged = dict(zip((p.name for p in spec.measure.params), spec.params))
            merged.update(params)
            return MeasureSpec(spec.measure, spec.measure.bind(merged))
        return spec
    m = get(measure)
    return MeasureSpec(m, m.bind(params))


def parse_spec(text: str) -> MeasureSpec:
    """Parse ``"name"`` or ``"name(p=v, q=w)"`` into a :class:`MeasureSpec`.

    ``parse_spec(str(spec)) == spec`` for every spec.
    """
    match = _SPEC.match(text)
    if not match:
        raise ParameterError(f"Cannot parse measure spec {text!r}; expected 'name' or 'name(param=value, ...)'.")
    measure = get(match.group(1))
    params: dict[str, object] = {}
    body = match.group(2)
    if body is not None and body.strip():
        for part in body.split(","):
            if "=" not in part:
                raise ParameterError(
                    f"Cannot parse parameter {part.strip()!r} in measure spec {text!r}; expected param=value."
                )
            key, value = (s.strip() for s in part.split("=", 1))
            params[key] = value
    return MeasureSpec(measure, measure.bind(params))


def split_specs(text: str) -> list[str]:
    """Split a comma-separated list of specs, keeping commas inside parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    out.append("".join(cur).strip())
    return [s for s in out if s]
