"""Running the property registry: one measure (:func:`check`, :func:`check_multiclass`) or several
as a tidy table (:func:`axioms`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..._errors import ParameterError
from ...measures import registry
from .evaluators import BinaryMeasure, MatrixMeasure
from .properties import MULTICLASS_PROPERTIES, PROPERTIES, REGISTRY
from .spaces import BinarySpace, MatrixSpace

DEFAULT_N_MAX = 12


@dataclass
class Verdict:
    """One (measure, property) decision.

    Attributes
    ----------
    measure : str
        The measure's label (with ``[smoothing]`` or `` (m=3)`` where it applies).
    property : str
        The property id (see :data:`.properties.REGISTRY`).
    holds : bool or None
        None where the property does not apply or cannot be decided.
    counterexample : str or None
        The smallest counterexample found, when ``holds`` is False.
    note : str
        How the property was read or why it could not be decided.
    numeric : bool
        Decided by finite differences rather than exactly.
    """

    measure: str
    property: str
    holds: bool | None
    counterexample: str | None = None
    note: str = ""
    numeric: bool = False


def _requested(properties, known, what: str) -> list[str]:
    props = list(known) if properties is None else list(properties)
    unknown = [p for p in props if p not in known]
    if unknown:
        raise ParameterError(f"Unknown {what}{unknown[0]!r}; known: {', '.join(known)}.")
    return props


def check(measure, properties=None, *, n_max: int = DEFAULT_N_MAX, smoothing=None) -> list[Verdict]:
    """Decide ``properties`` (default: all of :data:`PROPERTIES`) for one binary measure.

    Parameters
    ----------
    measure : str or MeasureSpec
        A registered measure (name, alias or spec such as ``"gm(r=1)"``).
    properties : sequence of str, optional
        Property ids (see :data:`.properties.REGISTRY`).
    n_max : int, default 12
        Largest test-set size enumerated (``CON`` uses n <= 6, ``dist`` labelings of n <= 6).
    smoothing : {None, "laplace", "noninformative"}
        Check the smoothed measure (Amigó et al. 2019, §5).

    Returns
    -------
    list of Verdict

    Raises
    ------
    ParameterError
        For an unknown property, ``n_max`` that is not an integer >= 2 or a measure that is not a
        function of counts (curve, ranking, calibration, top-k).
    UnknownMeasureError
        For an unknown measure.
    """
    if isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or n_max < 2:
        raise ParameterError(f"n_max must be an integer >= 2; got {n_max!r}.")
    f = BinaryMeasure(registry.make_spec(measure), smoothing)
    props = _requested(properties, PROPERTIES, "property ")
    space = BinarySpace(f, int(n_max))
    out = []
    for p in props:
        record = REGISTRY[p]
        holds, cex, note = record.binary(space)
        out.append(Verdict(f.label, p, holds, cex, "" if record.numeric else note, record.numeric))
    return out


def check_multiclass(measure, properties=None, *, m: int = 3, n_max: int = 6) -> list[Verdict]:
    """Decide Gösgens et al.'s (2021) properties for a measure's native multiclass definition with ``m`` classes.

    Every m x m matrix with n <= ``n_max`` is enumerated (``dist``: labelings of n <= 4). The
    readings are the binary checker's; ``cb``/``acb`` take true labelings with every class
    present and non-unary predicted class sizes, the constant baseline being exact (a sum over
    all contingency tables with the given margins) for ``cb``.

    Parameters
    ----------
    measure : str or MeasureSpec
        A registered measure with a native multiclass definition.
    properties : sequence of str, optional
        Ids among :data:`MULTICLASS_PROPERTIES` (default: all of them).
    m : int, default 3
        Number of classes.
    n_max : int, default 6
        Largest number of items enumerated.

    Returns
    -------
    list of Verdict
        Measures labelled ``"<label> (m=<m>)"``.

    Raises
    ------
    ParameterError
        For a measure without a multiclass definition (and no ``@average``), a measure that is not
        a function of counts (curve, ranking, calibration, top-k) or an unknown property.
    """
    spec = registry.make_spec(measure)
    f = MatrixMeasure(spec)
    props = _requested(properties, MULTICLASS_PROPERTIES, "multiclass property ")
    space = MatrixSpace(f, m, n_max)
    out = []
    for p in props:
        holds, cex, note = REGISTRY[p].multiclass(space)
        out.append(Verdict(f"{spec.label} (m={m})", p, holds, cex, note))
    return out


def axioms(measures=None, properties=None, *, n_max: int = DEFAULT_N_MAX, smoothing=None, classes: int = 2) -> pa.Table:
    """The property profile of several measures as a tidy table.

    With ``classes`` = m > 2 the native multiclass definitions are checked on m x m matrices
    (:func:`check_multiclass`; ``n_max`` then defaults to 6; without ``measures`` the catalog's
    measures without a multiclass definition are left out, a named one is refused unless it
    names an average, ``f1@macro``).

    Parameters
    ----------
    measures : sequence of str, optional
        Measures or specs (default: the whole catalog).
    properties : sequence of str, optional
        Property ids (default: all that apply).
    n_max : int, default 12
        Largest test-set size enumerated.
    smoothing : {None, "laplace", "noninformative"}
        Binary only: check the smoothed measures.
    classes : int, default 2
        2: the binary properties; m > 2: Gösgens et al.'s (2021) properties of the multiclass definitions.

    Returns
    -------
    pyarrow.Table
        ``measure, property, holds, counterexample, note, numeric``; ``holds`` is null where
        the property does not apply (``abs_weighting`` of a measure without parameters) or
        cannot be decided (``IMB`` when the trivial classifiers are undefined).
    """
    names = registry.names(kind="point") if measures is None else list(measures)
    if classes > 2:
        if smoothing is not None:
            raise ParameterError("Smoothing applies to binary counts; check it with classes=2.")
        if measures is None:  # the catalog: its measures with a native multiclass definition
            names = [m for m in names if registry.make_spec(m).measure.multiclass is not None]
        n = min(n_max, 6) if n_max == DEFAULT_N_MAX else n_max
        rows = [v for m in names for v in check_multiclass(m, properties, m=classes, n_max=n)]
    else:
        rows = [v for m in names for v in check(m, properties, n_max=n_max, smoothing=smoothing)]
    return pa.table(
        {
            "measure": [v.measure for v in rows],
            "property": [v.property for v in rows],
            "holds": pa.array([v.holds for v in rows], pa.bool_()),
            "counterexample": pa.array([v.counterexample for v in rows], pa.string()),
            "note": [v.note for v in rows],
            "numeric": [v.numeric for v in rows],
        }
    )
