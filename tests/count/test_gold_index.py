"""Runs with string items joined to a separate gold through its index by topic (:mod:`fastmetrics.count.goldindex`).

Counts are checked against pandas (a merge on (topic, item), then a group-by) on ids spelled as
real collections spell them, with rows in any order, in one batch or several, on the threads. The
errors -- an item the gold lacks, a (system, topic, item) twice, a judgement twice -- name the same
row as the path on coded items (dictionary item columns). Items whose hashes share their low bits
are joined correctly, and give their topic a larger region of the index.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import _strings
from fastmetrics.count import _marks, goldindex
from tests.conftest import boundscheck_env
from tests.test_string_hash import colliding

SPELLED = {
    "trec": lambda t, k: f"LA0{t % 9 + 1}0189-{k:04d}",
    "doc-topic": lambda t, k: f"doc{t}_{k}",
    "clueweb": lambda t, k: f"clueweb09-en00{t:02d}-{k // 100:02d}-{k % 100:05d}",
    "number": lambda t, k: str(8_000_000 + 37 * k + t),
}


def _case(spelling, systems=8, topics=12, items=700, order="runs", seed=0):
    """Runs (every system lists each topic's items in its own order) and their gold, as tables."""
    rng = np.random.default_rng(seed)
    spell = SPELLED[spelling]
    gold = pd.DataFrame(
        [(f"t{t}", spell(t, k)) for t in range(topics) for k in range(items)], columns=["topic", "item"]
    )
    gold["gold"] = rng.random(len(gold)) < 0.3
    rows = []
    for s in range(systems):
        for t in rng.permutation(topics):
            for k in rng.permutation(items):
                rows.append((f"team{s:03d}_run_primary", f"t{t}", spell(t, k)))
    runs = pd.DataFrame(rows, columns=["system", "topic", "item"])
    runs["pred"] = rng.random(len(runs)) < 0.5
    if order == "shuffled":
        runs = runs.sample(frac=1.0, random_state=seed).reset_index(drop=True)
    return pa.Table.from_pandas(runs, preserve_index=False), pa.Table.from_pandas(gold, preserve_index=False)


def _expected(runs: pa.Table, gold: pa.Table) -> dict:
    """Counts by pandas: merge on (topic, item), group by (system, topic, gold, pred)."""
    joined = runs.to_pandas().merge(gold.to_pandas(), on=["topic", "item"], validate="many_to_one")
    sizes = joined.groupby(["system", "topic", "gold", "pred"]).size()
    return {key: int(n) for key, n in sizes.items()}


def _counted(tensor) -> dict:
    counts = np.asarray(tensor.counts)
    systems, topics = (list(tensor.coords[a]) for a in tensor.axes)
    return {
        (s, t, bool(i), bool(j)): int(counts[a, b, i, j])
        for a, s in enumerate(systems)
        for b, t in enumerate(topics)
        for i in range(2)
        for j in range(2)
        if counts[a, b, i, j]
    }


def _coded_items(runs: pa.Table) -> pa.Table:
    """The runs with dictionary items: the path on coded items, which the index path must equal."""
    return runs.set_column(runs.schema.get_field_index("item"), "item", runs.column("item").dictionary_encode())


@pytest.mark.parametrize("spelling", sorted(SPELLED))
@pytest.mark.parametrize("order", ["runs", "shuffled"])
def test_counts_equal_a_merge_in_pandas(spelling, order):
    runs, gold = _case(spelling, order=order)
    assert len(runs) >= 2 << 15  # two calls on the threads at least
    expected = _expected(runs, gold)
    assert _counted(fm.count(runs, gold=gold)) == expected
    assert _counted(fm.count(_coded_items(runs), gold=gold)) == expected


def test_batches_of_any_size_and_string_types():
    runs, gold = _case("trec", systems=3, topics=5, items=300, seed=1)
    expected = _expected(runs, gold)
    for size in (1, 977, 65_536 + 3):
        batches = runs.to_batches(max_chunksize=size)
        assert _counted(fm.count(pa.Table.from_batches(batches), gold=gold)) == expected
    large = runs.set_column(2, "item", runs.column("item").cast(pa.large_string()))
    view = runs.set_column(2, "item", runs.column("item").cast(pa.string_view()))
    for table in (large, view):
        assert _counted(fm.count(table, gold=gold)) == expected
    for item_type in (pa.large_string(), pa.string_view()):
        typed = gold.set_column(1, "item", gold.column("item").cast(item_type))
        assert _counted(fm.count(runs, gold=typed)) == expected
    # the gold's items read in place from a slice of a larger table, in several chunks
    padded = pa.concat_tables([gold.slice(0, 7), gold, gold.slice(0, 5)]).combine_chunks().slice(7, len(gold))
    chunked = pa.Table.from_batches(padded.to_batches(max_chunksize=333))
    assert chunked.column("item").num_chunks > 1 and chunked.column("item").chunk(0).offset == 7
    assert _counted(fm.count(runs, gold=chunked)) == expected


@pytest.mark.parametrize("n_rows, n_cols", [(1, 1), (3, 5), (7, 8), (20, 1001), (64, 64)])
def test_unmarked_pairs_equal_numpy_on_the_unpacked_bits(n_rows, n_cols):
    """A run's lacking gold items (for missing='negative'): the bits of the (run, gold row) bitmap
    left unset, against numpy's unpacking, on bitmaps sparse, dense, full and empty."""
    rng = np.random.default_rng(n_rows * n_cols)
    n = n_rows * n_cols
    for density in (0.0, 0.01, 0.5, 0.99, 1.0):
        bits = rng.random(n) < density
        seen = np.packbits(np.concatenate([bits, rng.random(7) < 0.5]), bitorder="little")  # stray tail bits
        expected = np.nonzero(~bits.reshape(n_rows, n_cols))
        got = _marks.unmarked(seen, n_rows, n_cols)
        assert [g.dtype for g in got] == [np.int64, np.int64]
        assert all(np.array_equal(g, e) for g, e in zip(got, expected))


def test_a_join_on_the_item_alone():
    runs, gold = _case("doc-topic", systems=3, topics=4, items=200, seed=2)
    pooled = fm.count(runs, gold=gold.drop_columns(["topic"]), by="system")
    coded = fm.count(_coded_items(runs), gold=gold.drop_columns(["topic"]), by="system")
    assert np.array_equal(pooled.counts, coded.counts)


def _error(runs, gold, **options) -> str:
    with pytest.raises(fm.InputError) as error:
        fm.count(runs, gold=gold, **options)
    return str(error.value)


@pytest.mark.parametrize("at", [3, 60_000])
def test_a_duplicated_item_is_named_at_its_first_copy(at):
    runs, gold = _case("trec", seed=3)
    copy = runs.slice(at, 1)
    doubled = pa.concat_tables([runs.slice(0, at + 500), copy, runs.slice(at + 500), copy])
    message = _error(doubled, gold)
    assert message.startswith("Duplicated (system, topic, item)") and f"row {at + 500} " in message
    assert message == _error(_coded_items(doubled), gold)


def test_a_duplicate_across_batches_when_the_bitmap_outgrows_a_batch():
    """Batches of 1,000 rows against a (run, gold row) bitmap of 8 x 8,400 bits: marked serially."""
    runs, gold = _case("number", seed=4)
    doubled = pa.concat_tables([runs, runs.slice(10, 1)])
    small = pa.Table.from_batches(doubled.to_batches(max_chunksize=1000))
    message = _error(small, gold)
    assert f"row {len(runs)}" in message
    assert message == _error(_coded_items(small), gold)


def test_an_item_the_gold_lacks_is_named():
    runs, gold = _case("clueweb", systems=2, topics=3, items=100, seed=5)
    wrong = runs.set_column(2, "item", pa.array(runs.column("item").to_pylist()[:-1] + ["clueweb09-en9999-00-00000"]))
    message = _error(wrong, gold)
    assert "clueweb09-en9999-00-00000" in message and "which the gold does not have" in message
    assert message == _error(_coded_items(wrong), gold)


def test_a_judgement_twice_is_named_in_the_golds_own_columns():
    runs, gold = _case("trec", systems=2, topics=3, items=50, seed=6)
    own = gold.rename_columns(["query", "doc", "relevant"])
    twice = pa.concat_tables([own, own.slice(7, 1)])
    message = _error(
        runs.rename_columns(["system", "query", "doc", "pred"]),
        twice,
        topic="query",
        item="doc",
        gold_column="relevant",
    )
    assert message == (
        f"The gold has (query, doc) = (query={twice['query'][7].as_py()!r}, doc={twice['doc'][7].as_py()!r}) "
        f"more than once (rows 7, {len(own)} of the gold table)."
    )


@pytest.mark.parametrize("items", [701, 64])
def test_marks_of_runs_joined_on_several_threads(items):
    """Twelve systems, so each thread's piece holds whole runs and marks most bytes as plain
    bytes (runs sharing a byte: 701 items x 12 topics is not a multiple of 8): the gold items no
    run returned, counted as negatives, equal those of the path on coded items (every mark atomic)."""
    runs, gold = _case("clueweb", systems=12, topics=12, items=items, seed=6)
    keep = np.random.default_rng(6).random(len(runs)) < 0.9  # some judged items never retrieved
    runs = runs.filter(pa.array(keep))
    assert len(runs) >= 2 << 15 or items == 64
    by_index = fm.count(runs, gold=gold, missing="negative")
    by_codes = fm.count(_coded_items(runs), gold=gold, missing="negative")
    np.testing.assert_array_equal(by_index.counts, by_codes.counts)
    assert int(np.asarray(by_index.counts).sum()) == 12 * len(gold)  # every (run, gold item) once


def test_the_first_item_the_gold_lacks_is_named_in_a_large_batch():
    runs, gold = _case("trec", systems=8, seed=7)
    items = runs.column("item").to_pylist()
    items[61_000], items[40_000] = "LA000000-late", "LA000000-first"
    wrong = runs.set_column(2, "item", pa.array(items))
    message = _error(wrong, gold)
    assert "'LA000000-first') at row 40000," in message
    assert message == _error(_coded_items(wrong), gold)


def test_items_of_one_slot_are_joined_and_widen_their_topic():
    ids = colliding(120, 10)
    topics = np.array([0] * 120 + [1] * 3, np.int64)
    index = goldindex.build(topics, 2, pa.array(ids + ["a", "b", "c"]))
    # 512 slots at first (a load of at most 1/4); the probes ran long, so the region grew (up to 8 times)
    assert index.base[1] - index.base[0] > 512 and index.base[2] - index.base[1] == 16
    gold = pa.table({"topic": ["t"] * 120, "item": ids, "gold": [i % 3 == 0 for i in range(120)]})
    runs = pa.table({"system": ["s"] * 240, "topic": ["t"] * 240, "item": ids[::-1] * 2, "pred": [True] * 240})
    runs = runs.set_column(0, "system", pa.array(["s"] * 120 + ["r"] * 120))
    assert _counted(fm.count(runs, gold=gold)) == _expected(runs, gold)


def test_a_large_gold_takes_two_slots_an_item(monkeypatch):
    """Past ``_SPREAD_ROWS`` gold rows the index takes 2 slots an item (a load of 1/2), not 4."""
    runs, gold = _case("number", systems=3, topics=5, items=300, seed=8)
    topics = np.repeat(np.arange(5), 300)
    assert goldindex.build(topics, 5, gold.column("item").combine_chunks()).base[-1] == 5 * 2048
    monkeypatch.setattr(goldindex, "_SPREAD_ROWS", 100)
    assert goldindex.build(topics, 5, gold.column("item").combine_chunks()).base[-1] == 5 * 1024
    assert _counted(fm.count(runs, gold=gold)) == _expected(runs, gold)


def test_a_gold_too_large_for_a_slots_rows_takes_the_coded_path(monkeypatch):
    """A slot holds a gold row in 31 bits: a gold of more rows is joined on coded items instead
    (here the bound is lowered to the test's gold), with the same counts."""
    runs, gold = _case("clueweb", systems=3, topics=4, items=200, seed=9)
    built = []
    monkeypatch.setattr(goldindex, "build", lambda *args: built.append(1) or _build(*args))
    assert _counted(fm.count(runs, gold=gold)) == _expected(runs, gold) and built
    built.clear()
    monkeypatch.setattr(goldindex, "MOST_ROWS", len(gold) - 1)
    assert _counted(fm.count(runs, gold=gold)) == _expected(runs, gold) and not built


_build = goldindex.build


def test_an_empty_batch_joins_to_nothing():
    index = goldindex.build(np.zeros(2, np.int64), 1, pa.array(["x", "y"]))
    empty = np.zeros(0, np.int64)
    err = np.full(8, -1, np.int64)
    rows, classes, twice, missing = goldindex.join(
        index, pa.array([], pa.string()), empty, empty, 1, (0, 1), np.zeros(2, np.int8), np.zeros(0, np.uint8), 2, err
    )
    assert rows.size == 0 and classes.size == 0 and (twice, missing) == (-1, -1)


def test_a_candidate_of_the_same_tag_but_other_bytes_is_passed_over():
    """The join takes each row's first slot of its item's tag as its candidate and compares the
    bytes after: a slot of the same tag holding another item (two hashes agreeing in 31 bits and
    about once in 2**33 look-ups) sends the row to the full look-up, which goes on."""
    items = ["x", "y", "z"]
    index = goldindex.build(np.zeros(3, np.int64), 1, pa.array(items))
    size = int(index.base[1])
    hashes = [int(_strings.string_hash(np.frombuffer(i.encode(), np.uint8), 0, 1)) for i in items]
    tag_of = [h >> 33 for h in hashes]
    slots = np.full(size, -1, np.int64)

    def put(home, value):
        while slots[home % size] >= 0:
            home += 1
        slots[home % size] = value

    put(hashes[1] % size, (tag_of[1] << 31) | 0)  # y's tag, x's row: first on y's probe
    for row, h in enumerate(hashes):
        put(h % size, (tag_of[row] << 31) | row)
    index.slots[:] = slots
    batch = ["y", "z", "x", "y"] * 20  # more than a block of look-ups
    rows, classes, twice, missing = goldindex.join(
        index, pa.array(batch), (np.zeros(1, np.int64),), (np.zeros(1, np.int64),), 1, (0, 1),
        np.array([10, 20, 30], np.int8), np.zeros(0, np.uint8), 3, np.full(8, -1, np.int64),
    )  # fmt: skip
    assert rows.tolist() == [items.index(i) for i in batch] and missing == -1
    assert classes.tolist() == [(items.index(i) + 1) * 10 for i in batch]


def test_the_gold_index_finds_a_judgement_twice():
    assert goldindex.build(np.zeros(3, np.int64), 1, pa.array(["x", "y", "x"])) is None
    assert goldindex.build(np.array([0, 1, 1]), 2, pa.array(["x", "x", "y"])) is not None


BOUNDSCHECK = textwrap.dedent("""
    import os, tempfile
    import numpy as np, pyarrow as pa
    import fastmetrics as fm
    from fastmetrics.count import _marks
    from fastmetrics.count.encoders import SMALL, string_codes
    from tests.test_string_hash import colliding

    ids = colliding(300, 10)
    rng = np.random.default_rng(0)
    gold = pa.table({"topic": ["t"] * 300, "item": ids, "gold": [i % 3 == 0 for i in range(300)]})
    rows = [(s, ids[i]) for s in ("a", "b") for i in rng.permutation(300)]
    runs = pa.table({"system": [s for s, _ in rows], "topic": ["t"] * 600, "item": [i for _, i in rows],
                     "pred": [True, False] * 300})
    assert fm.count(runs, gold=gold).counts.sum() == 600
    for bad in (pa.concat_tables([runs, runs.slice(5, 1)]), runs.set_column(2, "item", pa.array(["x"] * 600))):
        try:
            fm.count(bad, gold=gold)
            raise SystemExit("no error")
        except fm.InputError:
            pass
    seen = np.packbits(rng.random(13 * 7) < 0.9, bitorder="little")
    assert _marks.unmarked(seen, 13, 7)[1].size == (np.unpackbits(seen, bitorder="little")[:91] == 0).sum()
    many = pa.array([ids[i] for i in rng.integers(0, 300, SMALL + 100)])
    assert len(string_codes(many).chunk(0).dictionary) == 300
    with tempfile.TemporaryDirectory() as folder:
        run, qrels = os.path.join(folder, "run"), os.path.join(folder, "qrels")
        with open(qrels, "w") as fh:
            fh.writelines(f"t 0 {d} {i % 2}\\n" for i, d in enumerate(ids[:100]))
        with open(run, "w") as fh:
            fh.writelines(f"t Q0 {d} {r} {300 - r} x\\n" for r, d in enumerate(ids[::-1], 1))
        tensor = fm.count(run, qrels, thresholds="ranks", missing="negative", unjudged="negative")
        assert tensor.counts.shape[0] == 300
    print("ok")
""")


def test_the_string_kernels_with_bounds_checks(tmp_path):
    """The gold index, its join, the string coder and the ranks join on ids of one slot, compiled
    with NUMBA_BOUNDSCHECK=1 (an index outside an array is an IndexError)."""
    root = str(Path(__file__).resolve().parents[2])
    env = boundscheck_env(PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", BOUNDSCHECK], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok" and "IndexError" not in proc.stderr
