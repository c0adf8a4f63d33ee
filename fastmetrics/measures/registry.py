"""The measure registry: one :class:`Measure` record per measure.

Dispatch (:func:`fastmetrics.compute`), the catalog (:func:`fastmetrics.measures`), the CLI, the
error messages and the common test suite all read this registry; nothing keeps a list of its own.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from .._errors import ParameterError, UnknownMeasureError, parameter_error, suggest
from .._numbers import parameter
from . import scorers  # scikit-learn's scorer strings
from ._kernels import POINT_TYPES, LazyUfunc, float_signatures
from .names import external_spec, split_specs  # noqa: F401 (split_specs: read as registry.split_specs)

FAMILIES = ("utility", "informativeness", "class-oriented", "none", "descriptive")
# point: one value per confusion matrix; curve: one value per group of a threshold sweep (its ROC
# or precision-recall curve); ranking: one value per ranked list (a sweep with thresholds="ranks");
# calibration: one value per group of an exact sweep, read with the scores (the cells' thresholds);
# topk: one value per group of class probabilities counted with thresholds="topk"
KINDS = ("point", "curve", "ranking", "calibration", "topk", "graded")


# where each cell of a binary matrix ``[[tn, fp], [fn, tp]]`` lies: the names a record's
# ``proportion`` uses
MATRIX_CELLS = {"tn": (0, 0), "fp": (0, 1), "fn": (1, 0), "tp": (1, 1)}


@dataclass(frozen=True)
class Param:
    """A numeric parameter of a measure, with its domain.

    ``low``/``high`` bound the domain; ``low_open``/``high_open`` say whether the bound itself is
    excluded. ``None`` means unbounded on that side.

    Parameters
    ----------
    name : str
        The keyword the parameter is passed by (``beta`` of ``fbeta``).
    default : float
        Its value when the caller gives none.
    doc : str
        What it means, in a few words.
    low, high : float or None, default None
        Lower and upper bound of the domain; ``None``: unbounded on that side.
    low_open, high_open : bool, default False
        Whether ``low`` / ``high`` itself is excluded from the domain.
    infinite : bool, default False
        Whether ``inf`` is a valid value (a cutoff ``inf`` means no cutoff).
    integer : bool, default False
        Whether the value must be a whole number (a number of bins).
    """

    name: str
    default: float
    doc: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    high_open: bool = False
    infinite: bool = False
    integer: bool = False

    def describe(self) -> str:
        """The domain in words, for error messages (``"a float > 0"``, ``"a finite float"``)."""
        if self.infinite:
            return f"{'a whole number' if self.integer else 'a float'} >= {parameter(self.low)}, or inf"
        if self.integer:
            high = f" and <= {parameter(self.high)}" if self.high is not None else ""
            return f"a whole number >= {parameter(self.low)}" + high
        if self.low is None and self.high is None:
            return "a finite float"
        parts = []
        if self.low is not None:
            parts.append(f"{'>' if self.low_open else '>='} {parameter(self.low)}")
        if self.high is not None:
            parts.append(f"{'<' if self.high_open else '<='} {parameter(self.high)}")
        return "a float " + " and ".join(parts)

    def validate(self, value, owner: str) -> float:
        """A value of the parameter as a float, checked against the domain.

        Parameters
        ----------
        value : object
            The value given; anything :class:`float` accepts, except a bool, NaN or infinity.
        owner : str
            Who takes the parameter (the measure's name), for the error message.

        Returns
        -------
        float

        Raises
        ------
        ParameterError
            The value is not a finite number or lies outside the domain.
        """
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise parameter_error(self.name, owner, self.describe(), value) from None
        if isinstance(value, bool) or math.isnan(x) or (math.isinf(x) and not (self.infinite and x > 0)):
            raise parameter_error(self.name, owner, self.describe(), value)
        if self.low is not None and (x < self.low or (self.low_open and x == self.low)):
            raise parameter_error(self.name, owner, self.describe(), value)
        if self.high is not None and (x > self.high or (self.high_open and x == self.high)):
            raise parameter_error(self.name, owner, self.describe(), value)
        if self.integer and math.isfinite(x) and x != math.floor(x):
            raise parameter_error(self.name, owner, self.describe(), value)
        return x


@dataclass(frozen=True)
class Measure:
    """Metadata and kernel of one measure.

    Parameters
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
        Amigó et al. (2019, §3.3) family: "utility", "informativeness", "class-oriented", "none", or
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
        How ``smoothing=`` (Amigó et al. 2019, §5) applies. ``"joint"``: the measure depends on the joint
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
    kind : {"point", "curve", "ranking", "calibration", "topk"}, default "point"
        ``point``: ``kernel`` is a ufunc over one matrix's ``(tp, fp, fn, tn)``. ``curve``:
        ``kernel`` is a numba function over the cells of one group of a threshold sweep, in
        decreasing threshold order (see :mod:`fastmetrics.measures.curves`), giving one value per
        group. ``ranking``: the same over the positions of a ranked list (``thresholds="ranks"``);
        ``graded``: over the ranked lists at every relevance grade (:mod:`.graded`).
        ``calibration``: a numba function over one group's cells of an exact sweep and their
        scores (see :mod:`fastmetrics.measures.calibration`). ``topk``: a function of the counts
        at one depth of a ``thresholds="topk"`` count of class probabilities.
    proportion : tuple or None
        ``(numerator cells, denominator cells)`` -- e.g. ``(("tp",), ("tp", "fp"))`` for
        precision -- when the measure is a proportion of items: it then has the analytic Wilson
        and Jeffreys intervals (:mod:`fastmetrics.measures.intervals`).
    properties : frozenset of str
        Flags checked by the common tests (e.g. ``"class_symmetric"``, ``"bounded"``).
    pooled : callable or None
        A ranking measure defined over all topics at once (SemEval-2016's AvgRec, a ratio of sums
        over the questions): ``pooled(ranks, spec, system, evaluate)`` gives each system's value
        (the leaderboard's micro column), ``ranks`` the ranks tensor; None: no pooled value.
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
    kind: str = "point"
    proportion: tuple | None = None
    pooled: Callable | None = None

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"measure {self.name}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.family not in FAMILIES:
            raise ValueError(f"measure {self.name}: family must be one of {FAMILIES}, got {self.family!r}")
        if not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(f"measure name must be snake_case, got {self.name!r}")

    @property
    def smoothable(self) -> bool:
        """Whether ``smoothing=`` applies to the measure (it has a :attr:`smoothed` form)."""
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
    """Add a measure to the registry.

    Parameters
    ----------
    measure : Measure
        The record; its name and aliases must be new (neither a registered name nor an alias).

    Returns
    -------
    Measure
        The same record.

    Raises
    ------
    ValueError
        The name or an alias is already registered.
    """
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


def is_known(name: str) -> bool:
    """Whether ``name`` is a registered name or alias (as :func:`get` reads it)."""
    return _normalize(name) in _REGISTRY or _normalize(name) in _ALIASES


def get(name: str) -> Measure:
    """The measure registered under ``name`` or one of its aliases.

    Parameters
    ----------
    name : str or Measure
        A name or alias: case-insensitive, surrounding blanks ignored, ``-`` and spaces read as
        ``_``. A :class:`Measure` is returned as it is.

    Returns
    -------
    Measure
        The registry record.

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
        f"Unknown measure {name!r}."
        + suggest(key, list(_REGISTRY) + list(_ALIASES))
        + " Run `fastmetrics measures` for the catalog."
    )


def register_function(
    name: str,
    function: Callable,
    *,
    higher_is_better: bool = True,
    summary: str = "",
    formula: str = "",
    range=(-math.inf, math.inf),
    family: str = "none",
    undefined_when: str = "see its definition",
    reference: str = "user-defined",
) -> Measure:
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
    # not cached: the function may live in a notebook or a test, where numba cannot cache; built
    # now, so that a function numba cannot compile is refused here
    kernel = LazyUfunc(function, float_signatures(4, POINT_TYPES), name=name, cache=False)
    kernel.ufunc  # noqa: B018
    return register(
        Measure(
            name=name,
            kernel=kernel,
            summary=summary or f"user-defined measure {name}",
            formula=formula or name,
            latex=formula or name,
            range=tuple(range),
            higher_is_better=higher_is_better,
            family=family,
            undefined_when=undefined_when,
            reference=reference,
        )
    )


def names(kind: str | None = None) -> list[str]:
    """Canonical names of all registered measures, sorted.

    Parameters
    ----------
    kind : {None, "point", "curve", "ranking", "calibration", "topk"}
        Only the measures of this kind (default: all).

    Returns
    -------
    list of str
        The names (aliases left out).
    """
    return sorted(n for n, m in _REGISTRY.items() if kind is None or m.kind == kind)


def all_measures() -> list[Measure]:
    """The records of all registered measures, sorted by name."""
    return [_REGISTRY[n] for n in names()]


# ---------------------------------------------------------------------------------------------
# Measure specs: "fbeta(beta=0.5)@macro" -- the one string form of the library, the CLI, the
# report and the result tables; parse_spec is its only parser.

AVERAGES = ("none", "micro", "macro", "weighted", "samples")
_SPEC = re.compile(r"^\s*([A-Za-z][\w\-]*)\s*(?:\((.*)\))?\s*(?:@\s*([^@]*?))?\s*$")


@dataclass(frozen=True)
class MeasureSpec:
    """A measure with bound parameter values and, optionally, its averaging over classes.

    Parameters
    ----------
    measure : Measure
        The registry record: every fact about the measure (direction, range, kernels) is read
        from it.
    params : tuple of float
        Parameter values in the order of ``measure.params``.
    average : {None, "none", "micro", "macro", "weighted", "samples"}
        ``None`` when the spec does not say (the caller's ``average`` applies); ``"none"`` asks
        for the native multiclass (or per-class) values explicitly.

    ``str(spec)`` is its label in result tables, and ``parse_spec(str(spec)) == spec``.
    """

    measure: Measure
    params: tuple[float, ...]
    average: str | None = None

    @property
    def base_label(self) -> str:
        """The label without the averaging suffix.

        The name, then the parameters that differ from their defaults (``"fbeta(beta=2)"``).
        """
        changed = [f"{p.name}={parameter(v)}" for p, v in zip(self.measure.params, self.params) if v != p.default]
        return self.measure.name + (f"({','.join(changed)})" if changed else "")

    @property
    def label(self) -> str:
        """The label in result tables: :attr:`base_label`, then ``@average`` if the spec sets it."""
        return self.base_label + (f"@{self.average}" if self.average is not None else "")

    @property
    def higher_is_better(self) -> bool:
        """The measure's direction, from its record."""
        return self.measure.higher_is_better

    def averaged(self, default: str | None) -> str | None:
        """The averaging that applies: the spec's own, else ``default`` (``None``: native)."""
        average = self.average if self.average is not None else default
        return None if average == "none" else average

    def __str__(self) -> str:
        return self.label


def _check_average(average, text) -> str | None:
    if average is None:
        return None
    key = str(average).strip().lower()
    if key not in AVERAGES:
        raise ParameterError(
            f"Unknown averaging {average!r} in measure spec {text!r}; expected one of "
            f"{', '.join(AVERAGES)} (e.g. 'f1@macro')."
        )
    return key


def make_spec(measure, params: Mapping[str, object] | None = None) -> MeasureSpec:
    """A :class:`MeasureSpec` from a name or a spec string and keyword parameters.

    Parameters
    ----------
    measure : str, Measure or MeasureSpec
        A name or alias, a spec string (``"fbeta(beta=0.5)@macro"``), a record or a spec.
    params : mapping, optional
        Parameter values, merged over those of the spec string.

    Returns
    -------
    MeasureSpec
    """
    if isinstance(measure, MeasureSpec):
        if params:
            raise ParameterError("Parameters given twice: in the spec and as keywords.")
        return measure
    if isinstance(measure, str):
        # trec_eval's and ir_measures' names ("P_10", "nDCG@10"), then scikit-learn's scorer strings
        measure = external_spec(measure) or scorers.as_spec(measure, is_known)
    if isinstance(measure, str) and ("(" in measure or "@" in measure):
        spec = parse_spec(measure)
        if params:
            merged = dict(zip((p.name for p in spec.measure.params), spec.params))
            merged.update(params)
            return MeasureSpec(spec.measure, spec.measure.bind(merged), spec.average)
        return spec
    m = get(measure)
    return MeasureSpec(m, m.bind(params))


def parse_spec(text: str) -> MeasureSpec:
    """Parse ``"name"``, ``"name(p=v, q=w)"`` or either with ``@average`` into a :class:`MeasureSpec`.

    Parameters
    ----------
    text : str
        The spec; names are case-insensitive, ``-`` and ``_`` are the same.

    Returns
    -------
    MeasureSpec
        ``parse_spec(str(spec)) == spec`` for every spec.

    Raises
    ------
    ParameterError
        The text is not a spec, a parameter is unknown or out of its domain, or the averaging is
        not one of :data:`AVERAGES`.
    """
    if not isinstance(text, str):
        raise UnknownMeasureError(f"A measure spec must be a string. Got {text!r}.")
    match = _SPEC.match(external_spec(text) or text)  # trec_eval's and ir_measures' names too
    if not match:
        raise ParameterError(
            f"Cannot parse measure spec {text!r}; expected 'name', 'name(param=value, ...)', "
            "either followed by '@average'."
        )
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
    return MeasureSpec(measure, measure.bind(params), _check_average(match.group(3), text))


def parse_specs(measures) -> list[MeasureSpec]:
    """A list of measures, in any of the forms it takes, as a list of :class:`MeasureSpec`.

    The forms: one spec string, a comma-separated string (commas inside parentheses kept, see
    :func:`split_specs`), or a sequence of strings and specs.

    Parameters
    ----------
    measures : str, MeasureSpec or iterable of them
        Names, aliases or spec strings (``"fbeta(beta=0.5)@macro"``), or specs.

    Returns
    -------
    list of MeasureSpec
        In the given order; at least one.

    Raises
    ------
    ParameterError
        ``measures`` is of another type, holds something other than strings and specs, or is
        empty; or a spec is invalid (:func:`parse_spec`).
    UnknownMeasureError
        A name matches no registered measure.
    """
    if isinstance(measures, (str, MeasureSpec)):
        measures = split_specs(measures) if isinstance(measures, str) else [measures]
    elif not isinstance(measures, (list, tuple)) and hasattr(measures, "__iter__"):
        measures = list(measures)
    if not isinstance(measures, (list, tuple)) or not all(isinstance(m, (str, MeasureSpec)) for m in measures):
        raise ParameterError(
            "measures must be a name, a comma-separated string of names or specs, or a list "
            f"of them (e.g. ['f1', 'mcc']); got {measures!r}."
        )
    specs = [make_spec(m) for m in measures]
    if not specs:
        raise ParameterError("At least one measure is needed.")
    return specs
