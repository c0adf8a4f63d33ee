"""Registry-driven common tests: every registered measure gets every check unless a named set
excludes it, and every property flag of a record is checked both ways.
"""

import itertools
import warnings

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.measures import registry
from fastmetrics.measures.binary import CLASS_SYMMETRIC, SCALE_INVARIANT, TRANSPOSE_SYMMETRIC

from ._undefined import UNDEFINED

ALL = registry.names(kind="point")  # curve and ranking measures: tests/measures/test_curves.py
# perfect counts do not reach the range bound: raw counts, priors, unbounded or diverging measures,
# and mutual information (its maximum is H(gold), 1 bit only for balanced gold)
NOT_BEST_WHEN_PERFECT = {
    "tp",
    "fp",
    "fn",
    "tn",
    "n",
    "prevalence",
    "predicted_positive_rate",
    "dor",
    "f_prime",
    "utility",
    "mutual_information",
}
GRID = np.array(list(itertools.product(range(4), repeat=4)), dtype=np.int64).T  # all counts 0..3


def quiet(name, *counts, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
        return fm.compute(name, *counts, **kw)


def random_counts(seed, size=400, high=30):
    return np.random.default_rng(seed).integers(0, high, size=(4, size))


def equal_nan(a, b, rtol=1e-12, atol=1e-12):
    return np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def holds_flag(name, flag, seed=0) -> bool:
    """Whether a measure shows the property on random counts (a checker the meta-tests break)."""
    tp, fp, fn, tn = random_counts(seed)
    base = quiet(name, tp, fp, fn, tn)
    if flag == CLASS_SYMMETRIC:
        other = quiet(name, tn, fn, fp, tp)
    elif flag == TRANSPOSE_SYMMETRIC:
        other = quiet(name, tp, fn, fp, tn)
    elif flag == SCALE_INVARIANT:
        other = quiet(name, 3 * tp, 3 * fp, 3 * fn, 3 * tn)
    else:
        raise ValueError(flag)
    return equal_nan(base, other)


def test_undefined_table_covers_registry():
    assert set(UNDEFINED) == set(ALL)
    assert NOT_BEST_WHEN_PERFECT <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_nan_exactly_where_documented(name):
    values = quiet(name, *GRID)
    expected = np.array([UNDEFINED[name](*c) for c in GRID.T])
    assert np.array_equal(np.isnan(values), expected), GRID.T[np.isnan(values) != expected][:5]


@pytest.mark.parametrize("name", ALL)
def test_undefined_option_and_warning(name):
    values = quiet(name, *GRID, undefined=-7.0)
    expected = np.array([UNDEFINED[name](*c) for c in GRID.T])
    assert not np.isnan(values).any()
    assert np.all(values[expected] == -7.0)
    if expected.any():
        with pytest.warns(fm.UndefinedMeasureWarning, match=f"in {expected.sum()} of {expected.size}"):
            fm.compute(name, *GRID)


@pytest.mark.parametrize("flag", [CLASS_SYMMETRIC, TRANSPOSE_SYMMETRIC, SCALE_INVARIANT])
@pytest.mark.parametrize("name", ALL)
def test_property_flags_both_ways(name, flag):
    claimed = flag in registry.get(name).properties
    assert holds_flag(name, flag) == claimed or (
        not claimed and any(not holds_flag(name, flag, seed) for seed in range(1, 4))
    ), f"{name}: {flag} claimed={claimed}"


@pytest.mark.parametrize("name", sorted(set(ALL) - NOT_BEST_WHEN_PERFECT))
def test_perfect_counts_give_the_best_value(name):
    m = registry.get(name)
    best = m.range[1] if m.higher_is_better else m.range[0]
    tp, tn = np.array([1, 5, 40, 1000]), np.array([1, 45, 3, 7])
    # 1e-7: arccos amplifies the last-bit rounding of MCC = 1 (CD, CD')
    np.testing.assert_allclose(quiet(name, tp, 0, 0, tn), best, atol=1e-7)


@pytest.mark.parametrize("name", ALL)
def test_values_within_declared_range(name):
    m = registry.get(name)
    values = quiet(name, *random_counts(1, size=2000))
    values = values[~np.isnan(values)]
    assert np.all(values >= m.range[0] - 1e-12) and np.all(values <= m.range[1] + 1e-12)


@pytest.mark.parametrize("name", ALL)
def test_float64_broadcast_out_and_cell_loop(name):
    tp, fp, fn, tn = random_counts(2, size=24)
    tp, fp, fn = tp.reshape(2, 3, 4), fp[:12], fn[:12]
    batched = quiet(name, tp, fp.reshape(3, 4), fn.reshape(1, 3, 4), tn[:4])
    assert batched.dtype == np.float64 and batched.shape == (2, 3, 4)
    for idx in np.ndindex(2, 3, 4):
        _, j, k = idx
        cell = quiet(name, int(tp[idx]), int(fp.reshape(3, 4)[j, k]), int(fn.reshape(1, 3, 4)[0, j, k]), int(tn[k]))
        assert equal_nan(batched[idx], cell)
    out = np.empty((2, 3, 4))
    returned = quiet(name, tp, fp.reshape(3, 4), fn.reshape(1, 3, 4), tn[:4], out=out)
    assert returned is out and equal_nan(out, batched)


@pytest.mark.parametrize("name", ALL)
def test_int_float_and_counts_layout_agree(name):
    c = random_counts(3, size=50)
    ints = quiet(name, *c)
    floats = quiet(name, *c.astype(np.float64))
    matrix = np.empty((50, 2, 2), np.int64)
    matrix[:, 1, 1], matrix[:, 0, 1], matrix[:, 1, 0], matrix[:, 0, 0] = c
    assert equal_nan(ints, floats) and equal_nan(ints, quiet(name, counts=matrix))


@pytest.mark.parametrize("name", ALL)
def test_no_overflow_at_1e9_counts(name):
    c = random_counts(4, size=50, high=10)
    small = quiet(name, *c)
    big = quiet(name, *(c * 1_000_000_000))
    m = registry.get(name)
    if SCALE_INVARIANT in m.properties:
        assert equal_nan(small, big, rtol=1e-9, atol=1e-7)  # atol: arccos near CC = +-1 (cd)
    else:
        assert np.all(np.isfinite(big) == np.isfinite(small))


@pytest.mark.parametrize("name", sorted(n for n in ALL if registry.get(n).smoothable))
def test_laplace_equals_measure_on_counts_plus_one(name):
    """Laplace's correction adds one item per cell (seed 004 §5.1): an independent route."""
    c = random_counts(5, size=300, high=8)
    assert equal_nan(quiet(name, *c, smoothing="laplace"), quiet(name, *(c + 1)), rtol=1e-9)


@pytest.mark.parametrize("name", sorted(n for n in ALL if not registry.get(n).smoothable))
def test_not_smoothable_measures_refuse_smoothing(name):
    with pytest.raises(fm.ParameterError, match="cannot be smoothed"):
        fm.compute(name, 1, 2, 3, 4, smoothing="laplace")


# --- the ufuncs (fm.ufuncs.<name>): every point measure, numpy's protocol -------------------

# float32 loops against float64 ones, counts below 2^24 (exact in float32): |f32 - f64| <=
# FLOAT32_TOLERANCE * max(1, |f64|); the catalog (docs/hooks.py) and fm.ufuncs' docstring quote
# it (the largest seen is 8e-7, cd_prime; proficiency computes in float64 in its float32 loop)
FLOAT32_TOLERANCE = 1e-5
# a ufunc, as numpy's own division, may raise numpy's floating-point warning on undefined cells
QUIET = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")


def ufunc_inputs(name, seed=6, size=300):
    """Counts of every undefined case (GRID) and random ones, int64, with the measure's default
    parameters as further broadcasting inputs: (inputs, the same as fm.compute's keywords)."""
    c = np.concatenate([GRID, random_counts(seed, size=size, high=1000)], axis=1)
    params = {p.name: p.default for p in registry.get(name).params}
    return (*c, *params.values()), params


def within_float32_tolerance(single, double) -> bool:
    """NaN in the same cells, and the float32 values within FLOAT32_TOLERANCE of the float64 ones."""
    single = np.asarray(single, dtype=np.float64)
    same_nan = np.array_equal(np.isnan(single), np.isnan(double))
    bound = FLOAT32_TOLERANCE * np.maximum(1.0, np.abs(double))
    return same_nan and bool(np.all(~(np.abs(single - double) > bound)))


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_is_a_numpy_ufunc_reached_by_name_and_alias(name):
    m = registry.get(name)
    u = fm.ufunc(name)
    assert isinstance(u, np.ufunc) and u.__name__ == name
    assert u is getattr(fm.ufuncs, name) and all(fm.ufunc(a) is u for a in m.aliases)
    assert (u.nin, u.nout) == (4 + len(m.params), 1)
    assert u.types == ["f" * u.nin + "->f", "d" * u.nin + "->d"]
    assert fm.ufuncs.inputs(name) == ("tp", "fp", "fn", "tn", *(p.name for p in m.params))


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_equals_compute_exactly_in_float64(name):
    """Including every undefined cell (NaN in both); int64 counts take the float64 loop."""
    args, params = ufunc_inputs(name)
    values = fm.ufunc(name)(*args)
    assert values.dtype == np.float64
    np.testing.assert_array_equal(values, quiet(name, *args[:4], **params))


def lopsided_counts(seed=7, size=100):
    """Cells with one count large (up to a total just below 2^24, float32's last exact integer)
    and the other three 0 to 3: every count in turn, where a formula is a ratio of two quantities
    near 0 (the entropies of proficiency) and float32's rounding counts most."""
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 4, size=(4, 4 * size))
    for i in range(4):
        c[i, i * size : (i + 1) * size] = rng.integers(1_000, 2**24 - 16, size=size)
    return c


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_float32_loop_within_tolerance(name):
    args, _ = ufunc_inputs(name)
    single = fm.ufunc(name)(*(np.float32(a) for a in args))
    assert single.dtype == np.float32
    assert within_float32_tolerance(single, fm.ufunc(name)(*args))
    lopsided = (*lopsided_counts(), *args[4:])
    assert within_float32_tolerance(fm.ufunc(name)(*lopsided, dtype=np.float32), fm.ufunc(name)(*lopsided))
    # dtype= picks the loop whatever the inputs are; int32 counts are cast to float64 as numpy's
    # own float ufuncs cast them
    np.testing.assert_array_equal(fm.ufunc(name)(*args, dtype=np.float32), single)
    assert fm.ufunc(name)(*(np.int32(a) for a in args)).dtype == np.float64


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_broadcasts_its_parameters_with_the_counts(name):
    args, _ = ufunc_inputs(name, size=20)
    counts, params = args[:4], args[4:]
    grid = [np.reshape(counts[0], (1, -1)), counts[1], counts[2][None, :], counts[3]]
    stacked = fm.ufunc(name)(*grid, *(np.full((3, 1), p) for p in params))
    expected = fm.ufunc(name)(*counts, *params)
    assert stacked.shape == ((3, expected.size) if params else (1, expected.size))
    np.testing.assert_array_equal(stacked, np.broadcast_to(expected, stacked.shape))


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_out_and_where_as_numpy_defines_them(name):
    """out= and where= give what np.add gives with the same out and where on the full values:
    cells where `where` is False keep what `out` held, a float32 out takes the float64 loop's
    values cast, a 1-d mask broadcasts over 2-d inputs."""
    args, _ = ufunc_inputs(name, size=62)  # 256 + 62 cells: 2 x 159
    args = [np.reshape(a, (2, -1)) if np.ndim(a) else a for a in args]
    u = fm.ufunc(name)
    values = u(*args)
    where = np.random.default_rng(7).random(values.shape[1]) < 0.5
    for dtype in (np.float64, np.float32):
        expected = np.full(values.shape, -7.0, dtype)
        np.add(values, 0.0, out=expected, where=where)
        out = np.full(values.shape, -7.0, dtype)
        returned = u(*args, out=out, where=where)
        assert returned is out
        np.testing.assert_array_equal(out, expected)
    out = np.empty(values.shape)
    assert u(*args, out=(out,)) is out and np.array_equal(out, values, equal_nan=True)


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_keeps_dask_arrays_lazy(name):
    da = pytest.importorskip("dask.array")
    args, _ = ufunc_inputs(name, size=44)  # 300 cells
    reads = []
    lazy = [da.from_array(Counted(a, reads), chunks=100) for a in args[:4]]
    before = len(reads)
    result = fm.ufunc(name)(*lazy, *args[4:])
    assert isinstance(result, da.Array) and len(reads) == before, "computed before .compute()"
    np.testing.assert_array_equal(result.compute(), fm.ufunc(name)(*args))
    assert len(reads) > before


@pytest.mark.parametrize("name", ALL)
@QUIET
def test_ufunc_keeps_xarray_dimensions_and_coordinates(name):
    xr = pytest.importorskip("xarray")
    args, _ = ufunc_inputs(name, size=44)
    dims = ("system", "topic")
    coords = {"system": [f"s{i}" for i in range(3)], "topic": np.arange(100)}
    labelled = [xr.DataArray(np.reshape(a, (3, 100)), dims=dims, coords=coords) for a in args[:4]]
    result = fm.ufunc(name)(*labelled, *args[4:])
    assert isinstance(result, xr.DataArray) and result.dims == dims
    assert all(result.coords[d].equals(labelled[0].coords[d]) for d in dims)
    np.testing.assert_array_equal(result.values, fm.ufunc(name)(*args).reshape(3, 100))


class Counted:
    """An array-like that records every read, to see when dask reads its input."""

    def __init__(self, array, reads):
        self.array, self.reads = np.asarray(array), reads
        self.shape, self.dtype, self.ndim = self.array.shape, self.array.dtype, self.array.ndim

    def __getitem__(self, key):
        self.reads.append(key)
        return self.array[key]


# --- meta-tests: the checkers above can fail ------------------------------------------------


def test_meta_flag_checker_detects_violations():
    assert not holds_flag("precision", CLASS_SYMMETRIC)
    assert not holds_flag("k", TRANSPOSE_SYMMETRIC)
    assert not holds_flag("utility", SCALE_INVARIANT)
    assert holds_flag("mcc", CLASS_SYMMETRIC)


def test_meta_undefined_check_detects_a_wrong_table():
    values = quiet("f1", *GRID)
    wrong = np.array([UNDEFINED["precision"](*c) for c in GRID.T])
    assert not np.array_equal(np.isnan(values), wrong)


@QUIET
def test_meta_float32_checker_detects_a_wrong_value_or_nan():
    double = fm.ufuncs.f1(*random_counts(8))
    assert within_float32_tolerance(double.astype(np.float32), double)
    assert not within_float32_tolerance((double * (1 + 1e-4)).astype(np.float32), double)
    moved = double.copy()
    moved[0] = np.nan
    assert not within_float32_tolerance(moved, double)


def test_meta_dask_laziness_check_detects_a_computation():
    """fm.compute validates its counts with numpy: a dask array is read at once (the check sees
    it), where the ufunc leaves it lazy."""
    da = pytest.importorskip("dask.array")
    reads = []
    lazy = [da.from_array(Counted(a, reads), chunks=100) for a in random_counts(9)]
    before = len(reads)
    quiet("f1", *lazy)
    assert len(reads) > before


def test_unknown_measure_suggests_close_names():
    with pytest.raises(fm.UnknownMeasureError, match="Did you mean: precision"):
        fm.compute("precison", 1, 1, 1, 1)


@pytest.mark.parametrize("text", ["fbeta(beta=0.5)", "gm(r=-1)", "utility(a1=3,a3=0.5)", "k", "f_rs(alpha=0.25)"])
def test_spec_round_trip(text):
    spec = registry.parse_spec(text)
    assert registry.parse_spec(str(spec)) == spec
    assert str(spec) == text


def test_parameter_errors_name_the_parameter():
    with pytest.raises(fm.ParameterError, match="The 'beta' parameter of fbeta must be a float > 0. Got -1"):
        fm.compute("fbeta", 1, 1, 1, 1, beta=-1)
    with pytest.raises(fm.ParameterError, match="unexpected parameter"):
        fm.compute("f1", 1, 1, 1, 1, beta=2)
