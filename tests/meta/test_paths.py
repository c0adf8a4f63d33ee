"""The meta-evaluation jobs compute by numpy on a few values and by their kernels, on ranges of
rows over the threads, on many (:data:`fastmetrics.meta._common.NUMPY_VALUES`): every path
gives the same result, whatever the thread count."""

import importlib

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import _threads, meta
from fastmetrics.meta import _common

from ._data import awkward_values, values_scores

# the kernels each job calls, by the module it reads them from
KERNELS = {
    "_common": ("last_axis_first",),
    "_strictness_kernels": ("gather_outputs", "row_levels", "level_minima", "lowest_ranks"),
    "_inconsistency_kernels": ("inconsistency_counts",),
    "robustness": ("unit_ranks", "spearman_pairs", "upper_rows"),
}


def _swept():
    rng = np.random.default_rng(2)
    runs = pa.table(
        {
            "system": np.repeat([f"s{i}" for i in range(5)], 60),
            "topic": np.tile(np.repeat([f"t{j}" for j in range(6)], 10), 5),
            "item": np.tile(np.arange(10), 30),
            "gold": rng.random(300) < 0.4,
            "pred": rng.random(300) < 0.5,
            "score": rng.random(300),
        }
    )
    return runs, fm.count(runs, thresholds=[0.2, 0.5, 0.8]).evaluate(["f1", "accuracy", "mcc"])


def _jobs(values, tolerance):
    """Every job's table on ``values[measure, system, topic]`` (awkward: ties, undefined cells,
    constant topics and systems), and on a threshold sweep."""
    plain = values_scores(values)
    runs, swept = _swept()
    return [
        meta.strictness(plain, thresholds=[0.3, 0.5, 0.77, 0.9, 1.0]).detail,
        meta.strictness(swept).detail,
        meta.inconsistency(plain, tolerance=tolerance).summary,
        meta.inconsistency(swept).summary,
        meta.robustness(plain, pairs="all").detail,
        meta.stability(runs, measures=["f1", "mcc"], replicates=6, seed=1).detail,
    ]


def _assert_same(first, second):
    for a, b in zip(first, second):
        assert a.schema == b.schema
        for name in a.column_names:  # NaN equal to NaN
            np.testing.assert_array_equal(a[name].to_numpy(), b[name].to_numpy(), err_msg=name)


@pytest.mark.parametrize("seed, tolerance", [(0, 0.0), (1, 1.0), (2, 1e-5), (3, 0.0), (5, 1.0), (6, 0.0)])
def test_numpy_and_the_kernels_agree_on_every_thread_count(seed, tolerance, monkeypatch):
    values = awkward_values(seed, systems=3 + seed, topics=4 + 2 * seed, measures=4)
    monkeypatch.setattr(_common, "NUMPY_VALUES", 1 << 40)
    by_numpy = _jobs(values, tolerance)
    monkeypatch.setattr(_common, "NUMPY_VALUES", -1)
    for threads in (1, 3, 8):
        monkeypatch.setattr(_threads.numba, "get_num_threads", lambda n=threads: n)
        _assert_same(by_numpy, _jobs(values, tolerance))


def test_a_few_values_take_numpy_and_many_the_kernels(monkeypatch):
    """The size rule itself: below it the kernels are not called (a first call compiles none)."""
    called = []
    for where, kernels in KERNELS.items():
        module = importlib.import_module(f"fastmetrics.meta.{where}")  # the package exports the jobs' functions
        for name in kernels:
            kernel = getattr(module, name)
            monkeypatch.setattr(module, name, lambda *args, k=kernel, n=name: called.append(n) or k(*args))
    scores = values_scores(awkward_values(1, systems=6, topics=9, measures=3))
    jobs = (meta.strictness, meta.inconsistency, lambda s: meta.robustness(s, pairs="all"))
    for job in jobs:
        job(scores)
    assert called == []
    monkeypatch.setattr(_common, "NUMPY_VALUES", 10)
    for job in jobs:
        job(scores)
    assert set(called) == {name for kernels in KERNELS.values() for name in kernels}


@pytest.mark.parametrize("outputs, slices", [(1, 1), (63, 3), (64, 2), (65, 5), (300, 7)])
def test_the_transpose_kernel_equals_numpy(outputs, slices, monkeypatch):
    """``slices_first`` by numpy and by the one transpose kernel (tiles of 64 outputs over the
    threads, the signs applied, a slice from any first one), and the NaN it reports per slice."""
    rng = np.random.default_rng(outputs)
    rows = rng.normal(size=(3, outputs, 1, slices))
    rows[rng.random(rows.shape) < 0.02] = np.nan
    signs = np.array([1.0, -1.0, 1.0])
    monkeypatch.setattr(_common, "NUMPY_VALUES", 1 << 40)
    expected = _common.slices_first(rows, signs)
    monkeypatch.setattr(_common, "NUMPY_VALUES", -1)
    for threads in (1, 3):
        monkeypatch.setattr(_threads.numba, "get_num_threads", lambda n=threads: n)
        np.testing.assert_array_equal(_common.slices_first(rows, signs), expected)
        flat = rows.reshape(3, outputs, slices)
        part = np.empty((slices - slices // 2, 3, outputs))
        whole = _common.transpose_slices(flat, slices // 2, signs, part)
        np.testing.assert_array_equal(part, expected[slices // 2 :, :, :, 0])
        np.testing.assert_array_equal(whole, ~np.isnan(part).any(axis=(1, 2)))
