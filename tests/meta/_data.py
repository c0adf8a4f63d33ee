"""Inputs shared by the meta-evaluation tests: the SemEval-2016 subtask A runs, the Yandex weather
counts, and a small random (system, topic) score set with undefined cells."""

import glob
import os

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

import fastmetrics as fm
from fastmetrics.tensor import Scores
from tests.conftest import external


def semeval_paths():
    root = external("semeval2016-task3-cqa")
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    gold = str(root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy")
    return runs, gold


def meteo_counts() -> pa.Table:
    """One system per threshold file, one topic per (day, horizon): a counts table."""
    folder = external("classification-measures", "data", "meteo")
    rows = {k: [] for k in ("system", "topic", "tp", "fp", "fn", "tn")}
    for path in sorted(glob.glob(str(folder / "*.tsv"))):
        table = pacsv.read_csv(
            path,
            parse_options=pacsv.ParseOptions(delimiter="\t"),
            convert_options=pacsv.ConvertOptions(column_types={c: pa.string() for c in ("tn", "tp", "fn", "fp")}),
        )
        for row in table.to_pylist():
            cells = {k: [int(x) for x in row[k].split(",")] for k in ("tp", "fp", "fn", "tn")}
            for horizon in range(12):
                rows["system"].append(os.path.basename(path)[:-4])
                rows["topic"].append(f"{row['utc_date']}/{horizon:02d}")
                for k in cells:
                    rows[k].append(cells[k][horizon])
    return pa.table(rows)


def random_scores(seed=0, systems=7, topics=12, measures=("accuracy", "f1", "mcc", "confusion_entropy")):
    """Scores of random counts; small topics make ties and undefined values common."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(systems, topics, 2, 2))
    t = fm.ConfusionTensor(
        counts,
        ("system", "topic"),
        {"system": [f"s{i}" for i in range(systems)], "topic": [f"t{j}" for j in range(topics)]},
    )
    return t.evaluate(list(measures))


def oriented(scores: Scores, name: str) -> np.ndarray:
    """values[system, topic] of one measure, negated when lower is better."""
    sign = (
        1.0
        if fm.measures()
        .filter(pa.compute.equal(fm.measures().column("name"), name.split("@")[0]))
        .column("higher_is_better")[0]
        .as_py()
        else -1.0
    )
    return sign * scores[name]


def values_scores(values, measures=("f1", "accuracy", "mcc", "recall")):
    """Scores of given ``values[measure, system, topic]`` (measures higher-is-better, so the values
    are already oriented)."""
    _, n_systems, n_topics = values.shape
    return Scores(
        values,
        measures[: values.shape[0]],
        ("system", "topic"),
        {"system": [f"s{i}" for i in range(n_systems)], "topic": np.arange(n_topics)},
    )


def take_path(monkeypatch, path: str) -> None:
    """Make the meta jobs compute by numpy ("numpy") or by their kernels ("kernels") whatever the
    size (:data:`fastmetrics.meta._common.NUMPY_VALUES`)."""
    from fastmetrics.meta import _common

    monkeypatch.setattr(_common, "NUMPY_VALUES", {"numpy": 1 << 62, "kernels": -1}[path])


def awkward_values(seed, systems, topics, measures=2):
    """Coarse values (ties), some undefined cells (more as the seed grows mod 4), a constant topic,
    a topic of NaN and a system that is NaN or constant everywhere."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, size=(measures, systems, topics)).astype(np.float64)
    values[rng.random(values.shape) < 0.05 * (seed % 4)] = np.nan
    values[0, :, rng.integers(topics)] = 2.0
    values[1, :, rng.integers(topics)] = np.nan
    values[1, rng.integers(systems), :] = np.nan if seed % 2 else 0.0
    return values
