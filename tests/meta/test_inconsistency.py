"""Inconsistency between measures (seed 003 §5): the Yandex weather acceptance numbers and a
Python-loop reference."""

import itertools

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.cli import main

from ._data import awkward_values, meteo_counts, oriented, random_scores, take_path, values_scores

MEASURES = ["accuracy", "balanced_accuracy", "f1", "cohen_kappa", "confusion_entropy", "gm", "mcc", "sba"]
# % of the 2160 comparisons, by the paper's definition (a win against a tie is an inconsistency)
EXPECTED = {
    ("accuracy", "balanced_accuracy"): 96.57,
    ("accuracy", "f1"): 41.02,
    ("accuracy", "cohen_kappa"): 37.69,
    ("accuracy", "confusion_entropy"): 3.19,
    ("accuracy", "gm"): 38.84,
    ("accuracy", "mcc"): 44.54,
    ("accuracy", "sba"): 56.16,
    ("balanced_accuracy", "f1"): 55.56,
    ("balanced_accuracy", "cohen_kappa"): 58.98,
    ("balanced_accuracy", "confusion_entropy"): 99.72,
    ("balanced_accuracy", "gm"): 57.82,
    ("balanced_accuracy", "mcc"): 52.22,
    ("balanced_accuracy", "sba"): 40.60,
    ("f1", "cohen_kappa"): 3.43,
    ("f1", "confusion_entropy"): 44.17,
    ("f1", "gm"): 2.27,
    ("f1", "mcc"): 3.61,
    ("f1", "sba"): 15.23,
    ("cohen_kappa", "confusion_entropy"): 40.83,
    ("cohen_kappa", "gm"): 1.25,
    ("cohen_kappa", "mcc"): 6.94,
    ("cohen_kappa", "sba"): 18.56,
    ("confusion_entropy", "gm"): 41.99,
    ("confusion_entropy", "mcc"): 47.69,
    ("confusion_entropy", "sba"): 59.31,
    ("gm", "mcc"): 5.79,
    ("gm", "sba"): 17.41,
    ("mcc", "sba"): 11.81,
}


def test_yandex_weather_from_the_command_line(tmp_path):
    counts = tmp_path / "meteo.parquet"
    pq.write_table(meteo_counts(), counts)
    out = tmp_path / "inconsistency.csv"
    assert main(["meta", "inconsistency", str(counts), "--measures", ",".join(MEASURES), "--out", str(out)]) == 0
    rows = pacsv.read_csv(out).to_pylist()
    got = {(r["measure_a"], r["measure_b"]): r for r in rows}
    assert len(got) == 8 * 7
    for (a, b), value in EXPECTED.items():
        for key in ((a, b), (b, a)):
            assert got[key]["comparisons"] == 2160
            assert got[key]["value"] == pytest.approx(value, abs=0.05), key


def _reference(scores, a, b, tolerance=1e-5):
    """Loop over every (topic, system pair): the sign of the oriented difference, with ties."""
    va, vb = oriented(scores, a), oriented(scores, b)
    bad = total = 0
    for t in range(va.shape[1]):
        for i, j in itertools.combinations(range(va.shape[0]), 2):
            da, db = va[i, t] - va[j, t], vb[i, t] - vb[j, t]
            if np.isnan(da) or np.isnan(db):
                continue
            sa = 0 if abs(da) <= tolerance else (1 if da > 0 else -1)
            sb = 0 if abs(db) <= tolerance else (1 if db > 0 else -1)
            total += 1
            bad += sa != sb
    return bad, total


@pytest.mark.parametrize("seed", [0, 1])
def test_against_a_python_loop(seed):
    scores = random_scores(seed)
    table = meta.inconsistency(scores).summary.to_pylist()
    assert len(table) == 4 * 3
    for row in table:
        bad, total = _reference(scores, row["measure_a"], row["measure_b"])
        assert (row["inconsistent"], row["comparisons"]) == (bad, total)
        assert row["value"] == pytest.approx(100 * bad / total)


def test_tolerance_and_errors():
    scores = random_scores(2)
    loose = meta.inconsistency(scores, tolerance=10.0).summary.column("value").to_pylist()
    assert all(v == 0.0 for v in loose)  # every difference is a tie for every measure
    with pytest.raises(Exception, match="at least two"):
        meta.inconsistency(random_scores(0, measures=("f1",)))


@pytest.mark.parametrize("tolerance", [0.0, 1e-5, 1.0])
@pytest.mark.parametrize("seed", range(6))
def test_undefined_ties_and_constant_columns_against_the_loop(seed, tolerance):
    """Coarse values (ties, and differences equal to the tolerance), undefined cells, a constant
    topic and a system NaN or constant everywhere, four measures: every ordered pair counted as
    the loop counts it."""
    values = awkward_values(seed, systems=2 + seed, topics=3 + seed, measures=4)
    scores = values_scores(values)
    for row in meta.inconsistency(scores, tolerance=tolerance).summary.to_pylist():
        bad, total = _reference(scores, row["measure_a"], row["measure_b"], tolerance)
        assert (row["inconsistent"], row["comparisons"]) == (bad, total)
        assert row["value"] == pytest.approx(100 * bad / total) if total else np.isnan(row["value"])


def test_a_threshold_sweep_is_judged_at_each_threshold_in_one_call():
    """Scores of a threshold grid: one block of rows per threshold, each the loop's count on the
    (system, topic) scores at that threshold."""
    rng = np.random.default_rng(3)
    n = 4 * 5 * 10
    runs = pa.table(
        {
            "system": np.repeat([f"s{i}" for i in range(4)], 50),
            "topic": np.tile(np.repeat([f"t{j}" for j in range(5)], 10), 4),
            "item": np.tile(np.arange(10), 20),
            "gold": rng.random(n) < 0.4,
            "score": rng.random(n),
        }
    )
    grid = [0.25, 0.5, 0.75]
    scores = fm.count(runs, thresholds=grid).evaluate(["f1", "accuracy", "mcc"])
    result = meta.inconsistency(scores).summary
    assert result.column_names[:3] == ["threshold", "measure_a", "measure_b"]
    assert result.num_rows == len(grid) * 6
    for row in result.to_pylist():
        one = scores.sel(threshold=row["threshold"])
        assert (row["inconsistent"], row["comparisons"]) == _reference(one, row["measure_a"], row["measure_b"])


@pytest.mark.parametrize("path", ["kernels", "numpy"])
@pytest.mark.parametrize("systems", [8, 9, 64, 65, 130])
def test_many_systems_infinities_and_clean_topics_against_the_loop(systems, path, monkeypatch):
    """Systems across the eight-system chunks and the 64-bit words the comparisons are packed
    in; topics where every value is finite (no undefined comparison is looked for) beside topics
    with NaN and infinities (inf - inf is undefined, inf - 1 is a win), three measures; by the
    kernels and by numpy."""
    take_path(monkeypatch, path)
    rng = np.random.default_rng(systems)
    values = rng.integers(0, 5, size=(3, systems, 4)).astype(np.float64) / 4
    values[0, rng.integers(systems), 1] = np.nan
    values[1, rng.choice(systems, 3), 2] = np.inf
    values[2, rng.choice(systems, 2), 3] = -np.inf
    scores = values_scores(values)
    for row in meta.inconsistency(scores, tolerance=0.25).summary.to_pylist():
        with np.errstate(invalid="ignore"):  # the loop's own inf - inf
            expected = _reference(scores, row["measure_a"], row["measure_b"], 0.25)
        assert (row["inconsistent"], row["comparisons"]) == expected
