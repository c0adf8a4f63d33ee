"""Cost-sensitive and ordinal K (seed 000 §6.2) and the cost matrices it takes.

The other native multiclass definitions (accuracy, balanced accuracy, K eq. 10, kappa, R_K, SBA,
confusion entropy, proficiency, mutual information) live in ``_multiclass_kernels`` and hang off
the binary records' ``multiclass`` field; ``k_cost`` is the one measure that exists only because
of the multiclass case, so its record is here.
"""

from __future__ import annotations

import numpy as np

from .._errors import InputError
from . import _multiclass_kernels as _mc
from ._kernels import binary_ufunc
from .binary import CLASS_SYMMETRIC, SCALE_INVARIANT, SEED000, _k_kernel, _props
from .registry import Measure, Param, register


def ordinal_costs(classes, steps=None) -> np.ndarray:
    """The cost matrix of ordinal classification (seed 000 eq. 7).

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
    largest cost per true class (seed 000 eq. 11 divides by it); anything else is an
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


def unit_costs(m: int) -> np.ndarray:
    """Δ = 1 between every pair of distinct classes: eq. 11 reduces to eq. 9 and k_cost to K."""
    return 1.0 - np.eye(m)


@binary_ufunc(1)
def _k_cost_kernel(tp, fp, fn, tn, power):
    # With two classes max(E_j) is the one off-diagonal error: every error credits 0, eq. 5.
    return _k_kernel(tp, fp, fn, tn)


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
        reference=SEED000 + ", eq. 11 and Example 6.1",
        properties=_props(CLASS_SYMMETRIC, SCALE_INVARIANT),
    )
)
