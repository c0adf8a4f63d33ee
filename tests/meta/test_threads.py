"""The meta-evaluation jobs give the same result however many threads share their rows (their
kernels run on ranges of rows, :func:`fastmetrics._threads.in_ranges`)."""

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import _threads, meta

from ._data import awkward_values, values_scores


def _jobs():
    # undefined cells send robustness's pairs to the per-pair kernel; a threshold axis sends the
    # values through the tiled transposition
    values = awkward_values(5, systems=9, topics=13, measures=4)
    plain = values_scores(values)
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
    swept = fm.count(runs, thresholds=[0.2, 0.5, 0.8]).evaluate(["f1", "accuracy", "mcc"])
    return [
        meta.strictness(plain).detail,
        meta.strictness(swept).detail,
        meta.inconsistency(plain).summary,
        meta.inconsistency(swept).summary,
        meta.robustness(plain, pairs="all").detail,
        meta.stability(runs, measures=["f1", "mcc"], replicates=6, seed=1).detail,
    ]


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_meta_jobs_do_not_depend_on_the_thread_count(threads, monkeypatch):
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 1)  # one range, on this thread
    one = _jobs()
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: threads)
    for a, b in zip(one, _jobs()):
        assert a.schema == b.schema
        for name in a.column_names:  # NaN equal to NaN
            np.testing.assert_array_equal(a[name].to_numpy(), b[name].to_numpy(), err_msg=name)
