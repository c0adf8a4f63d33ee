"""Cost-sensitive and ordinal K (Sebastiani 2015, §6.2) and the cost matrices it takes.

The other native multiclass definitions (accuracy, balanced accuracy, K eq. 10, kappa, R_K, SBA,
confusion entropy, proficiency, mutual information) live in ``_multiclass_kernels`` and hang off
the binary records' ``multiclass`` field; ``k_cost`` is the one measure that exists only because
of the multiclass case, so its record is here.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from .._errors import InputError
from . import _multiclass_kernels as _mc
from ._binary_kernels import k_kernel
from ._kernels import binary_ufunc
from .binary import CLASS_SYMMETRIC, SCALE_INVARIANT, SEBASTIANI_2015
from .registry import Measure, Param, register


def ordinal_costs(classes, steps=None) -> np.ndarray:
    """The cost matrix of ordinal classification (Sebastiani 2015, eq. 7).

    Parameters
    ----------
    classes : int or sequence
        The number of ordered classes, or the classes themselves in their order.
    steps : sequence of float, optional
        ``steps[k]`` = Δ(c_k, c_{k+1}) > 0, the distance between consecutive classes; default 1.

    Returns
    -------
    cost : ndarray of float64, shape (m, m)
        ``cost[i, j] = |sum of the steps between class i and class j|``: symmetric, additive along
        the order, zero on the diagonal.

    Examples
    --------
    >>> ordinal_costs(3)
    array([[0., 1., 2.],
           [1., 0., 1.],
           [2., 1., 0.]])
    >>> ordinal_costs(["low", "mid", "high"], steps=[1, 3])[0]
    array([0., 1., 4.])
    """
    m = int(classes) if np.ndim(classes) == 0 else len(classes)
    if m < 2:
        raise InputError(f"An ordinal scale needs at least 2 classes; got {m}.")
    steps = np.ones(m - 1) if steps is None else np.asarray(steps, np.float64)
    if steps.shape != (m - 1,) or not np.all(np.isfinite(steps)) or np.any(steps <= 0):
        raise InputError(f"steps must be {m - 1} finite distances > 0 between consecutive classes; got {steps!r}.")
    position = np.concatenate([[0.0], np.cumsum(steps)])
    return np.abs(position[:, None] - position[None, :])


def check_costs(cost, m: int) -> np.ndarray:
    """Validate a cost matrix for ``m`` classes and return it as float64.

    A valid matrix has shape (..., m, m), finite costs >= 0, a zero diagonal, and a positive
    largest cost per true class (Sebastiani 2015, eq. 11 divides by it); anything else is an
    :class:`InputError`.
    """
    c = np.asarray(cost, np.float64)
    if c.ndim < 2 or c.shape[-2:] != (m, m):
        raise InputError(f"The cost matrix must have shape ({m}, {m}) for {m} classes; got {c.shape}.")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise InputError("The cost matrix must hold finite costs >= 0.")
    if np.any(np.diagonal(c, axis1=-2, axis2=-1) != 0):
        raise InputError("The cost matrix must be 0 on the diagonal: a correct decision costs nothing.")
    if np.any(c.max(axis=-1) <= 0):
        row = int(np.argmin(c.max(axis=-1).reshape(-1, m).min(axis=0)))
        raise InputError(f"Row {row} of the cost matrix is all zero: every true class needs a costly error.")
    return c


LONG_COST_COLUMNS = ("true", "pred", "cost")


def cost_matrix(table: pa.Table, classes, name: str = "the cost table") -> np.ndarray:
    """A cost matrix read from a table, its rows and columns matched to ``classes`` by label.

    Two layouts: long, one row per ``true, pred, cost`` (a missing diagonal cell costs 0); or
    square, the first column holding the true classes and one column per predicted class, named
    by its label (a CSV header of class labels). Labels match as text, so ``1`` in a CSV header
    matches the integer class 1.

    Parameters
    ----------
    table : pyarrow.Table
        The cost table (e.g. a CSV or Parquet file read whole).
    classes : sequence
        The class labels in the order of the counts' last two axes (``tensor.classes``).
    name : str, default "the cost table"
        Where the table comes from, for error messages (a file's path).

    Returns
    -------
    ndarray of float64, shape (m, m)
        ``cost[i, j]``: the cost of predicting ``classes[j]`` for true class ``classes[i]``,
        validated as :func:`check_costs` does.

    Raises
    ------
    InputError
        A class without a row or column, a label that is not a class, a cell given twice or
        missing, a cost that is not a number, or a matrix :func:`check_costs` refuses.
    """
    labels = [str(c) for c in np.asarray(classes).tolist()]
    if set(LONG_COST_COLUMNS) <= set(table.column_names):
        cost = _long_costs(table, labels, name)
    else:
        cost = _square_costs(table, labels, name)
    try:
        return check_costs(cost, len(labels))
    except InputError as error:
        raise InputError(f"{name}: {error}") from None


def _numbers(column, what: str, name: str) -> np.ndarray:
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)) or column.null_count:
        raise InputError(f"{name}: {what} must hold a number in every row; found type {column.type}.")
    return np.asarray(column.to_numpy(zero_copy_only=False), np.float64)


def _matched(found: list, labels: list, what: str, name: str) -> list:
    """Positions of ``found`` labels among the classes; every class once, nothing else."""
    classes = f"(the classes are {', '.join(labels)})"
    extra = [f for f in found if f not in labels]
    if extra:
        raise InputError(f"{name}: the {what} hold labels that are not classes: {', '.join(extra)} {classes}.")
    missing = [c for c in labels if c not in found]
    if missing:
        raise InputError(f"{name}: the {what} lack the classes {', '.join(missing)} {classes}.")
    twice = sorted({f for f in found if found.count(f) > 1})
    if twice:
        raise InputError(f"{name}: the {what} name a class twice: {', '.join(twice)}.")
    return [labels.index(f) for f in found]


def _square_costs(table: pa.Table, labels: list, name: str) -> np.ndarray:
    true = [str(v) for v in table.column(0).to_pylist()]
    rows = _matched(true, labels, "rows (first column)", name)
    columns = _matched(table.column_names[1:], labels, "columns (header)", name)
    cost = np.zeros((len(labels), len(labels)))
    for j, column in zip(columns, table.column_names[1:]):
        cost[rows, j] = _numbers(table.column(column), f"column '{column}'", name)
    return cost


def _long_costs(table: pa.Table, labels: list, name: str) -> np.ndarray:
    true = [str(v) for v in table.column("true").to_pylist()]
    pred = [str(v) for v in table.column("pred").to_pylist()]
    values = _numbers(table.column("cost"), "column 'cost'", name)
    cost = np.full((len(labels), len(labels)), np.nan)
    np.fill_diagonal(cost, 0.0)
    given = set()
    for t, p, v in zip(true, pred, values):
        if t not in labels or p not in labels:
            unknown = t if t not in labels else p
            raise InputError(f"{name}: the label {unknown} is not a class (the classes are {', '.join(labels)}).")
        if (t, p) in given:
            raise InputError(f"{name}: the cell true={t}, pred={p} is given twice.")
        given.add((t, p))
        cost[labels.index(t), labels.index(p)] = v
    if np.isnan(cost).any():
        i, j = np.argwhere(np.isnan(cost))[0]
        raise InputError(f"{name}: no cost for true={labels[i]}, pred={labels[j]} (one row per pair of classes).")
    return cost


def unit_costs(m: int) -> np.ndarray:
    """Δ = 1 between every pair of distinct classes: eq. 11 reduces to eq. 9 and k_cost to K."""
    return 1.0 - np.eye(m)


@binary_ufunc(1)
def _k_cost_kernel(tp, fp, fn, tn, power):
    # With two classes max(E_j) is the one off-diagonal error: every error credits 0, eq. 5.
    return k_kernel(tp, fp, fn, tn)


register(
    Measure(
        name="k_cost",
        kernel=_k_cost_kernel,
        aliases=("k_ordinal", "cost_sensitive_k"),
        multiclass=_mc.k_cost_mc,
        matrix_params=("cost",),
        params=(
            Param(
                "power",
                1.0,
                "exponent of the cost in the error E = cost^power: 1 = absolute error AE, 2 = squared error SE",
                low=0.0,
                low_open=True,
            ),
        ),
        summary="Sebastiani's K for cost-sensitive and ordinal classification: K over error-aware recalls.",
        formula="K of eq. 10 with rho_i = sum_j c_ij (1 - E_ij / max_j E_ij) / a_i, E = cost^power; on binary "
        "counts the costs cancel and it is K (eq. 5)",
        multiclass_formula="m/(m-1) * mean_{i: a_i > 0} rho_i - 1/(m-1), "
        "rho_i = sum_j c_ij (1 - E_ij/max_k E_ik) / a_i, "
        "E = cost^power (cost[i, j]: predicting j for true class i; default 1 off the diagonal)",
        latex=r"\rho_j = \frac{1}{AP_j}\sum_{i=1}^{AP_j}\left(1 - \frac{E(d_i)}{\max(E_j)}\right),\quad "
        r"K = \frac{|\mathcal{C}|}{|\mathcal{C}|-1}\frac{\sum_{\xi_j=1}\rho_j}{\sum_j\xi_j} "
        r"- \frac{1}{|\mathcal{C}|-1}",
        range=(-1.0, 1.0),
        higher_is_better=True,
        family="informativeness",
        undefined_when="n = 0 only (classes absent from gold are skipped through xi_j, eq. 8)",
        reference=SEBASTIANI_2015 + ", eq. 11 and Example 6.1",
        properties=frozenset({CLASS_SYMMETRIC, SCALE_INVARIANT}),
    )
)
