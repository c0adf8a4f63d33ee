"""Deterministic benchmark workloads (see issue "Performance").

W1: 100 systems x 100 topics x 1000 items = 10M rows, float32 scores, binary gold with 20 %
prevalence (shared by all systems of a topic), 101 thresholds -> 1.01M (system, topic, threshold)
cells. W0: the same with 10 systems x 10 topics, for slow peers.

:data:`SPELLINGS`: the ids of real collections (TREC disks, ClueWeb09, MS MARCO, UUIDs, URLs,
per-topic counters, SemEval-2016), for benchmarks whose speed must not depend on how ids are
spelled; :func:`runs_and_gold` makes a runs table and a separate gold table in any of them.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable
from dataclasses import dataclass

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


# -- ids as real collections spell them ------------------------------------------------------------
# A run's documents are drawn from a collection of COLLECTION numbered documents; each spelling
# turns (topic id, the document's place among the topic's candidates, its number) into the id
# the collection publishes, and a topic number into its topic id.
COLLECTION = 1_000_000


@dataclass(frozen=True)
class Spelling:
    """How one collection spells its topic and document ids."""

    name: str  # an example document id, as the tables print it
    source: str
    topic: Callable[[int], str]
    doc: Callable[[str, int, int], str]


@functools.lru_cache(maxsize=1)
def _la_days() -> list[str]:
    """``MMDDYY`` of the LA Times' days from 1 January 1989 on (TREC disk 5)."""
    first = datetime.date(1989, 1, 1)
    return [(first + datetime.timedelta(days=i)).strftime("%m%d%y") for i in range(COLLECTION // 400 + 1)]


def _la_times(topic: str, local: int, number: int) -> str:
    return f"LA{_la_days()[number // 400]}-{number % 400 + 1:04d}"


def _uuid(topic: str, local: int, number: int) -> str:
    """A version-4 UUID, one a document number (a bijection of the number, not random draws)."""
    x = (number * 0x9E3779B97F4A7C15F39CC0605CEDC835 + 0x2545F4914F6CDD1D) % (1 << 128)
    h = f"{x:032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[x & 3]}{h[17:20]}-{h[20:]}"


SPELLINGS = [
    Spelling("doc123456", "the benchmarks' own ids", lambda q: f"q{1000 + q}", lambda t, k, d: f"doc{d:06d}"),
    Spelling("LA010189-0001", "TREC disk 5, LA Times", lambda q: f"{301 + q}", _la_times),
    Spelling(
        "FBIS3-10082", "TREC disk 5, FBIS", lambda q: f"{301 + q}", lambda t, k, d: f"FBIS{3 + d % 2}-{d // 2 + 1}"
    ),
    Spelling(
        "clueweb09-en0000-00-00000",
        "ClueWeb09",
        lambda q: f"{1 + q}",
        lambda t, k, d: f"clueweb09-en{d // 2_500_000:04d}-{d // 25_000 % 100:02d}-{d % 25_000:05d}",
    ),
    # MS MARCO's 8.8M passages are numbered 0 ... 8,841,822; its query ids are numbers too
    Spelling("7067032", "MS MARCO passages", lambda q: str((q * 7919 + 2) % 1_100_000), lambda t, k, d: str(8 * d + 3)),
    Spelling("2c1b6f0e-...", "UUIDs", lambda q: f"q{1000 + q}", _uuid),
    Spelling(
        "http://www.site042.example.com/...",
        "web pages by URL",
        lambda q: f"{1 + q}",
        lambda t, k, d: f"http://www.site{d % 1000:03d}.example.com/articles/{d // 1000}/story.html",
    ),
    Spelling("doc{topic}_{n}", "a counter per topic", lambda q: f"{1000 + q}", lambda t, k, d: f"doc{t}_{k}"),
    Spelling(
        "Q268_R4_C1",
        "SemEval-2016 Task 3",
        lambda q: f"Q{268 + q // 10}_R{q % 10 + 1}",
        lambda t, k, d: f"{t}_C{k + 1}",
    ),
]
SPELLING = {s.name: s for s in SPELLINGS}


def run_name(system: int) -> str:
    """A run's name as tracks publish them: ``team007_run_primary``, ``team007_run_bm25``, ..."""
    kinds = ("primary", "contrastive1", "contrastive2", "bm25", "baseline")
    return f"team{system // len(kinds):03d}_run_{kinds[system % len(kinds)]}"


def runs_and_gold(spelling: Spelling, n_systems: int, n_topics: int, n_items: int, seed: int = 1):
    """A runs table and a separate gold table keyed by (topic, item), with string ids.

    Every system returns each topic's ``n_items`` judged items, each system in its own order (by
    its own scores, as a run lists them); the gold judges 20 % of them relevant. The runs table has
    ``system`` (:func:`run_name`), ``topic``, ``item``, a float32 ``score`` and ``pred = score >=
    0.5``; the gold ``topic``, ``item`` and a bool ``gold``.

    Returns
    -------
    (pyarrow.Table, pyarrow.Table)
    """
    rng = np.random.default_rng(seed)
    numbers = np.stack([rng.choice(COLLECTION, n_items, replace=False) for _ in range(n_topics)])
    topics = [spelling.topic(q) for q in range(n_topics)]
    items = pa.array([spelling.doc(topics[q], k, int(numbers[q, k])) for q in range(n_topics) for k in range(n_items)])
    relevant = rng.random(n_topics * n_items) < 0.2
    gold = pa.table(
        {
            "topic": pa.array(topics).take(pa.array(np.repeat(np.arange(n_topics), n_items))),
            "item": items,
            "gold": relevant,
        }
    )
    # row r of system s, topic q: the topic's item order[s, q, r]
    order = np.argsort(rng.random((n_systems, n_topics, n_items)), axis=2)
    key = (np.arange(n_topics)[None, :, None] * n_items + order).reshape(-1)
    skill = rng.uniform(0.0, 2.0, n_systems)
    score = (rng.standard_normal(key.size) + np.repeat(skill, n_topics * n_items) * relevant[key]).astype(np.float32)
    systems = pa.array([run_name(s) for s in range(n_systems)])
    runs = pa.table(
        {
            "system": systems.take(pa.array(np.repeat(np.arange(n_systems), n_topics * n_items))),
            "topic": gold.column("topic").take(pa.array(key)),
            "item": items.take(pa.array(key)),
            "score": pa.array(score),
            "pred": pa.array(score >= 0.5),
        }
    )
    return runs.combine_chunks(), gold
