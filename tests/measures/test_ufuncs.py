"""fm.ufuncs and fm.ufunc beyond the registry-driven checks of test_common.py: the names it
resolves and refuses, measures a user registers, scikit-learn as an independent oracle, the
validating fm.compute around the same loops, laziness of the build, labelled and lazy inputs.
"""

import gc
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.measures import registry
from fastmetrics.measures._kernels import POINT_TYPES, LazyUfunc, float_signatures

pytestmark = pytest.mark.filterwarnings("ignore:.*encountered in:RuntimeWarning")


def test_unknown_names_get_the_registry_error_with_close_names():
    with pytest.raises(fm.UnknownMeasureError, match="Did you mean: precision"):
        fm.ufunc("precison")
    with pytest.raises(AttributeError, match="Did you mean: .*precision"):
        fm.ufuncs.precison  # noqa: B018
    assert not hasattr(fm.ufuncs, "nope") and not hasattr(fm.ufuncs, "_private")


@pytest.mark.parametrize("kind", ["curve", "ranking", "calibration", "topk"])
def test_measures_of_groups_have_no_ufunc_and_say_why(kind):
    name = registry.names(kind=kind)[0]
    with pytest.raises(fm.ParameterError, match=f"is a {kind} measure: one value per group of cells"):
        fm.ufunc(name)
    with pytest.raises(AttributeError, match=f"is a {kind} measure"):
        getattr(fm.ufuncs, name)
    assert name not in dir(fm.ufuncs)


def test_dir_lists_every_point_measure_and_names_resolve_case_insensitively():
    assert set(registry.names(kind="point")) <= set(dir(fm.ufuncs))
    assert fm.ufunc(" F1 ") is fm.ufuncs.f1 is fm.ufunc(registry.get("dice"))


def test_a_measure_a_user_registers_gets_a_ufunc_until_it_is_unregistered():
    def youden(tp, fp, fn, tn):
        return tp / (tp + fn) + tn / (fp + tn) - 1.0

    registry.register_function("user_youden_u", youden, range=(-1.0, 1.0))
    try:
        u = fm.ufunc("user_youden_u")
        assert isinstance(u, np.ufunc) and u.__name__ == "user_youden_u" and u.types == ["ffff->f", "dddd->d"]
        assert fm.ufuncs.user_youden_u is u
        tp, fp, fn, tn = np.array([[5, 1], [2, 3], [0, 7], [9, 4]])
        np.testing.assert_allclose(u(tp, fp, fn, tn), tp / (tp + fn) + tn / (fp + tn) - 1.0, rtol=1e-15)
        assert u(*(np.float32([tp, fp, fn, tn]))).dtype == np.float32
    finally:
        registry.unregister("user_youden_u")
    with pytest.raises(AttributeError, match="no measure 'user_youden_u'"):
        fm.ufuncs.user_youden_u  # noqa: B018


def test_the_ufunc_outlives_the_object_that_built_it():
    """numpy keeps pointers to numba's loops: the ufunc holds what owns them."""

    def difference(tp, fp, fn, tn):
        return tp - fp

    lazy = LazyUfunc(difference, float_signatures(4, POINT_TYPES), name="difference", cache=False)
    u = lazy.ufunc
    del lazy
    gc.collect()
    junk = [np.ones(1000) for _ in range(1000)]
    assert u.__name__ == "difference" and len(junk) == 1000
    np.testing.assert_array_equal(u(np.arange(5), 1, 0, 0), np.arange(5) - 1.0)


def _cells(seed, n_cells=60, items=40):
    """Random labellings, one row per cell, with both classes in gold and in prediction."""
    rng = np.random.default_rng(seed)
    gold = rng.random((n_cells, items)) < 0.4
    pred = np.where(rng.random((n_cells, items)) < 0.7, gold, ~gold)
    gold[:, :2], pred[:, :2] = [True, False], [False, True]
    tp, fp = (gold & pred).sum(1), (~gold & pred).sum(1)
    fn, tn = (gold & ~pred).sum(1), (~gold & ~pred).sum(1)
    return gold, pred, (tp, fp, fn, tn)


@pytest.mark.parametrize(
    "name, oracle",
    [
        ("f1", "f1_score"),
        ("precision", "precision_score"),
        ("recall", "recall_score"),
        ("accuracy", "accuracy_score"),
        ("balanced_accuracy", "balanced_accuracy_score"),
        ("jaccard", "jaccard_score"),
        ("mcc", "matthews_corrcoef"),
        ("cohen_kappa", "cohen_kappa_score"),
    ],
)
def test_ufunc_against_scikit_learn(name, oracle):
    metrics = pytest.importorskip("sklearn.metrics")
    gold, pred, counts = _cells(sum(map(ord, name)))
    expected = [getattr(metrics, oracle)(g, p) for g, p in zip(gold, pred)]
    np.testing.assert_allclose(fm.ufunc(name)(*counts), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(fm.ufunc(name)(*(np.float32(c) for c in counts)), expected, rtol=1e-5, atol=1e-6)


def test_fbeta_parameter_broadcasts_against_scikit_learn():
    metrics = pytest.importorskip("sklearn.metrics")
    gold, pred, counts = _cells(3)
    betas = np.array([0.5, 1.0, 2.0])[:, None]
    expected = [[metrics.fbeta_score(g, p, beta=b) for g, p in zip(gold, pred)] for b in betas[:, 0]]
    np.testing.assert_allclose(fm.ufuncs.fbeta(*counts, betas), expected, rtol=1e-12)


@pytest.mark.parametrize("name", ["f1", "mcc", "k", "fbeta"])
def test_compute_runs_the_same_float64_loop_on_any_counts(name):
    """Beyond 65,536 cells fm.compute runs the ufunc (dtype=float64): the same values as its
    small-call loop on the same cells, and as the ufunc itself; float32 or int16 counts are
    computed in float64 by fm.compute."""
    rng = np.random.default_rng(4)
    c = rng.integers(0, 50, size=(4, 70_000))
    c[:, :256] = np.indices((4, 4, 4, 4)).reshape(4, -1)
    fm.ufunc(name)  # built: fm.compute takes the ufunc for calls over 65,536 cells
    params = {p.name: p.default for p in registry.get(name).params}
    with np.errstate(all="ignore"), pytest.warns(fm.UndefinedMeasureWarning):
        large = fm.compute(name, *c, **params)
        small = np.concatenate([fm.compute(name, *part, **params) for part in np.array_split(c, 4, axis=1)])
        narrow = fm.compute(name, *c.astype(np.int16), **params)
        single = fm.compute(name, *c.astype(np.float32), **params)
    np.testing.assert_array_equal(large, small)
    np.testing.assert_array_equal(large, fm.ufunc(name)(*c, *params.values()))
    assert narrow.dtype == single.dtype == np.float64
    np.testing.assert_array_equal(narrow, large)
    np.testing.assert_array_equal(single, large)


def test_compute_before_the_ufunc_exists_gives_the_ufuncs_values():
    """A large first call of fm.compute builds the float64 loop alone (the public ufunc, with its
    float32 loop, is built when asked for): the same kernel, the same values."""
    code = textwrap.dedent(
        """
        import numpy as np, warnings
        import fastmetrics as fm
        from fastmetrics.measures import registry
        c = np.random.default_rng(8).integers(0, 9, size=(4, 600_000))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            first = fm.compute("k", *c)
            print(registry.get("k").kernel.built)
            print(np.array_equal(first, fm.ufuncs.k(*c), equal_nan=True), np.isnan(first).any())
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "True", "True"]


def test_xarray_inputs_of_different_dimensions_align_and_broadcast():
    xr = pytest.importorskip("xarray")
    counts = np.random.default_rng(5).integers(0, 30, size=(4, 2, 3))
    coords = {"system": ["a", "b"], "topic": [10, 11, 12]}
    tp, fp, fn, tn = (xr.DataArray(c, dims=("system", "topic"), coords=coords) for c in counts)
    beta = xr.DataArray([0.5, 2.0], dims="beta", coords={"beta": [0.5, 2.0]})
    result = fm.ufuncs.fbeta(tp, fp, fn.isel(topic=[2, 0, 1]), tn, beta)  # fn's topics in another order
    assert result.dims == ("system", "topic", "beta") and list(result.topic) == [10, 11, 12]
    expected = fm.ufuncs.fbeta(*counts[..., None], np.array([0.5, 2.0]))
    np.testing.assert_array_equal(result.values, expected)


def test_dask_inputs_with_numpy_parameters_and_out_of_a_result():
    da = pytest.importorskip("dask.array")
    counts = np.random.default_rng(6).integers(0, 30, size=(4, 10, 7))
    lazy = [da.from_array(c, chunks=(5, 7)) for c in counts]
    result = fm.ufuncs.fbeta(*lazy, np.array([0.5] * 7))
    assert isinstance(result, da.Array) and result.chunks == ((5, 5), (7,))
    np.testing.assert_array_equal(result.compute(), fm.ufuncs.fbeta(*counts, 0.5))


def test_import_builds_no_ufunc_and_an_access_builds_one():
    code = textwrap.dedent(
        """
        import fastmetrics as fm
        from fastmetrics.measures import registry
        def built():
            return sorted(n for n in registry.names(kind="point") if registry.get(n).kernel.built)
        fm.ufuncs
        print(built())
        fm.ufuncs.f1, fm.ufunc("phi")
        print(built())
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[]", "['f1', 'mcc']"]


def test_a_ufunc_pickles_by_name_for_another_process():
    """Distributed dask workers and multiprocessing receive a ufunc pickled: numpy pickles it as
    its module's attribute, which the loading process builds on first access."""
    blob = pickle.dumps(fm.ufunc("sensitivity"))
    code = "import pickle, sys; u = pickle.loads(sys.stdin.buffer.read()); print(u.__name__, u(3, 1, 1, 5))"
    done = subprocess.run([sys.executable, "-c", code], input=blob, capture_output=True, check=True)
    assert done.stdout.decode().split() == ["recall", "0.75"]
