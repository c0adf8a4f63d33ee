"""Deterministic benchmark workloads (see issue "Performance").

W1: 100 systems x 100 topics x 1000 items = 10M rows, float32 scores, binary gold with 20 %
prevalence (shared by all systems of a topic), 101 thresholds -> 1.01M (system, topic, threshold)
cells. W0: the same with 10 systems x 10 topics, for slow peers.
"""

from __future__ import annotations

import functools

import numpy as np
import pyarrow as pa

N_THRESHOLDS = 101


@functools.lru_cache(maxsize=4)
def arrays(n_systems: int = 100, n_topics: int = 100, n_items: int = 1000, seed: int = 1):
    """Columns as numpy arrays: system, topic (int32 codes), gold (int8), score (float32)."""
    rng = np.random.default_rng(seed)
    gold_topic = (rng.random((n_topics, n_items)) < 0.2).astype(np.int8)
    skill = rng.uniform(0.0, 2.0, n_systems).astype(np.float32)
    system = np.repeat(np.arange(n_systems, dtype=np.int32), n_topics * n_items)
    topic = np.tile(np.repeat(np.arange(n_topics, dtype=np.int32), n_items), n_systems)
    gold = np.tile(gold_topic.reshape(-1), n_systems)
    score = rng.standard_normal(system.size, dtype=np.float32)
    score += skill[system] * gold
    return system, topic, gold, score


def table(n_systems: int = 100, n_topics: int = 100, n_items: int = 1000, seed: int = 1) -> pa.Table:
    system, topic, gold, score = arrays(n_systems, n_topics, n_items, seed)
    return pa.table({"system": system, "topic": topic, "gold": gold.astype(bool), "score": score})


def w1():
    return arrays(100, 100, 1000)


def w0():
    return arrays(10, 10, 1000)


def table_with_predictions(n_systems: int = 100, n_topics: int = 100, n_items: int = 1000, seed: int = 1) -> pa.Table:
    """W1 with an item id (shared by the systems of a topic) and hard predictions score >= 0.5:
    the input of split-half stability."""
    system, topic, gold, score = arrays(n_systems, n_topics, n_items, seed)
    item = np.tile(np.arange(n_items, dtype=np.int32), n_systems * n_topics)
    return pa.table({"system": system, "topic": topic, "item": item, "gold": gold.astype(bool), "pred": score >= 0.5})


def best_of(fn, repeat: int = 3) -> float:
    """The fastest of ``repeat`` wall-clock timings of ``fn()``, in seconds."""
    import time

    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def sized_shape(n_groups: int) -> tuple[int, int]:
    """(systems, topics) of ``n_groups`` groups: 10^ceil(e/2) systems for 10^e groups (100 x 100
    for 10,000; 100 x 10 for 1,000); any other count, the largest divisor <= its square root."""
    exponent = len(str(n_groups)) - 1
    if n_groups == 10**exponent:
        n_systems = 10 ** ((exponent + 1) // 2)
    else:
        n_systems = max(d for d in range(1, int(np.sqrt(n_groups)) + 1) if n_groups % d == 0)
    return n_systems, n_groups // n_systems


def table_sized(n_rows: int, n_groups: int, seed: int = 1, pred: bool = True) -> pa.Table:
    """W1-shaped rows in ``n_groups`` (system, topic) groups (see :func:`sized_shape`) of
    ``n_rows // n_groups`` items each, deterministic for a seed: int32 system/topic, bool gold
    (20 % prevalence), float32 score (standard normal + 1 for positives) and, with ``pred``, the
    hard prediction ``score >= 0.5``."""
    _, n_topics = sized_shape(n_groups)
    items = n_rows // n_groups
    rng = np.random.default_rng(seed)
    group = np.repeat(np.arange(n_groups, dtype=np.int32), items)
    gold = rng.random(group.size) < 0.2
    score = rng.standard_normal(group.size, dtype=np.float32) + gold.astype(np.float32)
    columns = {"system": group // np.int32(n_topics), "topic": group % np.int32(n_topics), "gold": gold, "score": score}
    if pred:
        columns["pred"] = score >= 0.5
    return pa.table(columns)


def table_with_string_ids(n_systems: int = 100, n_topics: int = 100, n_items: int = 1000, seed: int = 1) -> pa.Table:
    """W1 as users have it: ids as strings (``team007/run_primary``, ``Q1042_R6``, ``doc123``, the
    same item ids under every system of a topic), bool gold, a hard prediction ``score >= 0.5`` and
    the float32 score. Rows come grouped by system, then topic, as runs are usually written."""
    system, topic, gold, score = arrays(n_systems, n_topics, n_items, seed)
    item = np.tile(np.arange(n_items, dtype=np.int32), n_systems * n_topics)
    systems = pa.array([f"team{i:03d}/run_primary" for i in range(n_systems)])
    topics = pa.array([f"Q{1000 + i}_R{i % 10}" for i in range(n_topics)])
    items = pa.array([f"doc{i}" for i in range(n_items)])
    return pa.table(
        {
            "system": systems.take(pa.array(system)),
            "topic": topics.take(pa.array(topic)),
            "item": items.take(pa.array(item)),
            "gold": pa.array(gold.astype(bool)),
            "pred": pa.array(score >= 0.5),
            "score": pa.array(score),
        }
    )
