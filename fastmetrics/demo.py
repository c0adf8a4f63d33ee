"""The demo leaderboard: a deterministic synthetic benchmark the project generates itself.

20 systems x 30 topics x 300 items. Topic prevalence varies from 0 (two topics have no positive
item, where precision, recall, F1 and MCC are undefined but K is not) to 0.6. Each system has a
skill (how far its scores separate the classes), a bias (its decision threshold) and a noise
level, so measures disagree about the ranking in the ways the papers discuss.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

N_SYSTEMS, N_TOPICS, N_ITEMS = 20, 30, 300
SEED = 20151027  # ICTIR 2015, where K was proposed


def generate(seed: int = SEED) -> pa.Table:
    """The demo runs in the long input schema: system, topic, item, gold, pred, score."""
    rng = np.random.default_rng(seed)
    prevalence = np.concatenate([[0.0, 0.0], rng.uniform(0.02, 0.6, N_TOPICS - 2)])
    gold = rng.random((N_TOPICS, N_ITEMS)) < prevalence[:, None]
    skill = np.linspace(0.2, 3.0, N_SYSTEMS)[rng.permutation(N_SYSTEMS)]
    bias = rng.normal(0.0, 0.8, N_SYSTEMS)
    noise = rng.uniform(0.6, 1.4, N_SYSTEMS)
    score = (
        skill[:, None, None] * gold[None] + noise[:, None, None] * rng.standard_normal((N_SYSTEMS, N_TOPICS, N_ITEMS))
    ).astype(np.float32)
    pred = score >= (0.5 * skill + bias)[:, None, None]
    systems = np.array([f"sys{i:02d}" for i in range(N_SYSTEMS)])
    topics = np.array([f"t{j:02d}" for j in range(N_TOPICS)])
    s_idx, t_idx, i_idx = np.indices((N_SYSTEMS, N_TOPICS, N_ITEMS)).reshape(3, -1)
    return pa.table(
        {
            "system": pa.array(systems[s_idx]),
            "topic": pa.array(topics[t_idx]),
            "item": pa.array(i_idx.astype(np.int32)),
            "gold": pa.array(np.broadcast_to(gold, score.shape).reshape(-1)),
            "pred": pa.array(pred.reshape(-1)),
            "score": pa.array(score.reshape(-1)),
        }
    )


def write(folder: str | os.PathLike = "data/demo", seed: int = SEED) -> Path:
    """Write the demo runs to ``folder/runs.parquet`` and as SemEval-style run files.

    The Parquet file is written atomically; the run files and their gold come from
    :func:`write_run_files`. Returns the Parquet path.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "runs.parquet"
    tmp = folder / ".runs.parquet.tmp"
    table = generate(seed)
    pq.write_table(table, tmp)
    os.replace(tmp, path)
    write_run_files(table, folder)
    return path


def write_run_files(table: pa.Table, folder: Path) -> None:
    """Write the runs as their authors would publish them, one file per system.

    ``folder/runs/<system>.txt`` holds one line ``topic item rank score label`` per item
    (SemEval-2016 Task 3's layout; a topic's items ranked by score), and ``folder/gold.txt`` the
    same layout with the gold labels. Each file is written whole or not at all.
    """
    runs = folder / "runs"
    runs.mkdir(exist_ok=True)
    columns = {name: table.column(name).to_numpy(zero_copy_only=False) for name in table.column_names}
    systems = columns["system"]
    for system in np.unique(systems):
        mine = systems == system
        _write_lines(runs / f"{system}.txt", {name: values[mine] for name, values in columns.items()}, "pred")
    first = systems == systems[0]
    _write_lines(folder / "gold.txt", {name: values[first] for name, values in columns.items()}, "gold")


def _write_lines(path: Path, rows: dict, label: str) -> None:
    order = np.lexsort((-rows["score"], rows["topic"]))
    topic, item, score, flag = (rows[c][order] for c in ("topic", "item", "score", label))
    rank = np.empty(order.size, np.int64)
    starts = np.flatnonzero(np.r_[True, topic[1:] != topic[:-1]])
    rank[:] = np.arange(order.size) - np.repeat(starts, np.diff(np.r_[starts, order.size])) + 1
    lines = [
        f"{t}\ti{i:03d}\t{r}\t{s:.4f}\t{'true' if f else 'false'}\n"
        for t, i, r, s, f in zip(topic, item, rank, score, flag)
    ]
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text("".join(lines))
    os.replace(tmp, path)
