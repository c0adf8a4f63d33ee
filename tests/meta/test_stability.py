"""Split-half stability (seed 001 §5): the resampling kernel and the job's aggregation."""

import importlib
import itertools
import warnings

import numba
import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics import meta
from fastmetrics.count import draws, itemmasks, resample
from fastmetrics.count.plan import plan
from fastmetrics.count.resample import split_half_counts
from fastmetrics.io import open_source
from fastmetrics.meta._half_kernels import half_means


def _runs(seed=0, systems=4, topics=3, items=(9, 10, 4)):
    rng = np.random.default_rng(seed)
    rows = {k: [] for k in ("system", "topic", "item", "gold", "pred")}
    for t, n in zip(range(topics), items):
        gold = rng.random(n) < 0.4
        for s in range(systems):
            pred = np.where(rng.random(n) < 0.7, gold, ~gold)
            for i in range(n):
                for k, v in (
                    ("system", f"s{s}"),
                    ("topic", f"t{t}"),
                    ("item", i),
                    ("gold", bool(gold[i])),
                    ("pred", bool(pred[i])),
                ):
                    rows[k].append(v)
    return pa.table(rows)


def test_halves_partition_the_items_the_same_way_for_every_system():
    runs = _runs()
    whole = fm.count(runs)
    halves = split_half_counts(runs, replicates=40, seed=3)
    assert halves.axes == ("replicate", "half", "system", "topic")
    assert np.array_equal(halves.counts.sum(axis=1), np.broadcast_to(whole.counts, (40,) + whole.counts.shape))
    n = halves.counts.sum(axis=(-1, -2))  # items per (replicate, half, system, topic)
    assert np.array_equal(n[:, 0], np.broadcast_to([[4, 5, 2]] * 4, n[:, 0].shape))  # floor(n/2)
    gold_pos = halves.counts[..., 1, :].sum(-1)
    assert np.all(gold_pos == gold_pos[:, :, :1, :])  # same split: every system sees the same gold
    again = split_half_counts(runs, replicates=40, seed=3)
    assert np.array_equal(again.counts, halves.counts)
    assert not np.array_equal(split_half_counts(runs, replicates=40, seed=4).counts, halves.counts)


def test_each_item_lands_in_either_half_evenly():
    runs = _runs(items=(50, 50, 50), systems=1)
    halves = split_half_counts(runs, replicates=2000, seed=0)
    share = halves.counts[:, 0].sum(axis=(-1, -2)) / 25.0
    assert np.allclose(share, 1.0)
    positives = halves.counts[:, 0, 0, :, 1, :].sum(-1)  # gold positives in half 0, per topic
    total = fm.count(runs).counts[0, :, 1, :].sum(-1)
    assert np.allclose(positives.mean(axis=0), total / 2, rtol=0.05)  # hypergeometric mean


def _reference(halves, name, tolerance=1e-5):
    scores = halves.evaluate([name])[name]  # [R, 2, S, T]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        macro = np.nanmean(scores, axis=-1) if "topic" in halves.axes else scores  # [R, 2, S]
    sign = 1.0 if name != "error_rate" else -1.0
    swaps = comparisons = 0
    for r in range(macro.shape[0]):
        for i, j in itertools.combinations(range(macro.shape[2]), 2):
            d0, d1 = sign * (macro[r, 0, i] - macro[r, 0, j]), sign * (macro[r, 1, i] - macro[r, 1, j])
            if np.isnan(d0) or np.isnan(d1):
                continue
            s0 = 0 if abs(d0) <= tolerance else np.sign(d0)
            s1 = 0 if abs(d1) <= tolerance else np.sign(d1)
            comparisons += 1
            swaps += s0 != s1
    std = [np.nanstd(macro[:, :, s].reshape(-1), ddof=1) for s in range(macro.shape[2])]
    return swaps, comparisons, std


@pytest.mark.parametrize("name", ["accuracy", "mcc", "error_rate"])
def test_job_against_a_loop(name):
    runs = _runs(seed=2)
    result = meta.stability(runs, measures=[name], replicates=30, seed=5)
    halves = split_half_counts(runs, replicates=30, seed=5)
    swaps, comparisons, std = _reference(halves, name)
    row = result.summary.to_pylist()[0]
    assert (row["swaps"], row["comparisons"]) == (swaps, comparisons)
    assert row["swap_rate"] == pytest.approx(swaps / comparisons)
    assert [r["std"] for r in result.detail.to_pylist()] == pytest.approx(std, nan_ok=True)


def test_stability_errors():
    scores_only = pa.table({"system": ["a", "a"], "item": [1, 2], "gold": [True, False], "score": [0.2, 0.8]})
    with pytest.raises(fm.InputError, match="hard predictions"):
        meta.stability(scores_only, measures=["f1"], replicates=2)
    with pytest.raises(fm.ParameterError, match="replicates"):
        meta.stability(_runs(), measures=["f1"], replicates=0)


def test_split_halves_count_lacking_items_as_negative():
    """--missing negative: the gold defines the items; a run's lacking items are predicted
    negative in whichever half they fall, so the halves still add up to fm.count's counts."""
    gold = pa.table({"topic": ["t"] * 6, "item": list(range(6)), "gold": [True, False, True, True, False, False]})
    runs = pa.table(
        {
            "system": ["a"] * 6 + ["b"] * 4,
            "topic": ["t"] * 10,
            "item": list(range(6)) + [0, 1, 2, 3],
            "pred": [True, True, False, True, False, True, True, False, True, True],
        }
    )
    halves = split_half_counts(runs, gold, replicates=7, seed=3, missing="negative")
    whole = fm.count(runs, gold, missing="negative")
    np.testing.assert_array_equal(halves.counts.sum(axis=1), np.broadcast_to(whole.counts, (7,) + whole.counts.shape))
    assert whole.counts[1, 0, 0, 0] == 3  # item 1, and the lacking items 4 and 5 (gold negative)
    result = meta.stability(runs, gold, measures=["accuracy"], replicates=3, missing="negative")
    assert result.summary.num_rows == 1


# -- blocks of replicates against plain counting ----------------------------------------------


_WORD = 2**64 - 1


def _mix(z):
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _WORD
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _WORD
    return z ^ (z >> 31)


def _documented_half(key, topic, replicate, n):
    """The places in half 0 of ``n >= 2`` items, drawn step by step as the docstring of
    fastmetrics.count.draws says, in plain Python integers."""
    state = _mix((_mix((key + topic) & _WORD) + replicate) & _WORD)

    def word():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & _WORD
        return _mix(state)

    words = [word() for _ in range((n + 63) // 64)]
    half = {i for i in range(n) if words[i // 64] >> (i % 64) & 1}
    while len(half) != n // 2:
        u = word() >> 32
        if u * n % 2**32 < 2**32 % n:
            continue
        j = u * n >> 32
        if (j in half) == (len(half) > n // 2):
            half ^= {j}
    return half


def _key(seed):
    return int(np.random.SeedSequence(seed).generate_state(1, np.uint64)[0])


def _plain_halves(topic_items, replicates, seed):
    """``half0[r, topic, item]``: the documented draw of every topic (``topic_items``: every
    topic in the order of its code, with its items in the order of their keys)."""
    half0 = {}
    for code, (t, items) in enumerate(topic_items):
        if len(items) < 2:
            continue
        for r in range(replicates):
            for place in _documented_half(_key(seed), code, r, len(items)):
                half0[r, t, items[place]] = True
    return half0


def _plain_counts(rows, systems, topics, m, half0, replicates):
    """counts[replicate, half, system, topic, gold, pred], one row at a time."""
    out = np.zeros((replicates, 2, len(systems), len(topics), m, m), np.int64)
    for s, t, item, g, p in rows:
        for r in range(replicates):
            h = 0 if half0.get((r, t, item)) else 1
            out[r, h, systems.index(s), topics.index(t), g, p] += 1
    return out


def _random_runs(seed, m=2, items=(9, 10, 4, 1), systems=3, lacking=0.0):
    """Rows of ``systems`` runs (some items lacking at rate ``lacking``) and the gold."""
    rng = np.random.default_rng(seed)
    runs, gold = [], []
    for t, n in enumerate(items):
        labels = rng.integers(0, m, n)
        gold += [(f"t{t}", i, int(labels[i])) for i in range(n)]
        for s in range(systems):
            pred = np.where(rng.random(n) < 0.6, labels, rng.integers(0, m, n))
            runs += [(f"s{s}", f"t{t}", i, int(labels[i]), int(pred[i])) for i in range(n) if rng.random() >= lacking]
    return runs, gold


def _table(rows, m):
    cast = (lambda v: bool(v)) if m == 2 else (lambda v: f"c{v}")
    s, t, i, g, p = zip(*rows)
    return pa.table({"system": s, "topic": t, "item": i, "gold": [cast(v) for v in g], "pred": [cast(v) for v in p]})


@pytest.mark.parametrize("m", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_split_half_counts_against_plain_counting(m, seed, monkeypatch):
    runs, _ = _random_runs(seed, m=m)
    topics = sorted({r[1] for r in runs})
    topic_items = [(t, sorted({r[2] for r in runs if r[1] == t})) for t in topics]
    half0 = _plain_halves(topic_items, 7, seed + 10)
    expected = _plain_counts(runs, sorted({r[0] for r in runs}), topics, m, half0, 7)
    for size in (None, 2, 3):  # one pass, and blocks cut across the kernel's passes
        if size:
            monkeypatch.setattr(resample, "KERNEL_REPLICATES", size)
            monkeypatch.setattr(resample, "BLOCK_ENTRIES", 2 * size * len(topics) * 3 * m * m)
        halving = resample.split_halves(_table(runs, m), replicates=7, seed=seed + 10)
        got = np.concatenate([b.counts for b in halving.blocks()])
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(split_half_counts(_table(runs, m), replicates=7, seed=seed + 10).counts, expected)


@pytest.mark.parametrize("missing", ["negative", "drop"])
def test_split_halves_of_a_separate_gold_against_plain_counting(missing):
    """The gold's items are drawn in the gold's order; lacking items are negative or left out."""
    runs, gold = _random_runs(4, lacking=0.2)
    gold_table = pa.table({k: v for k, v in zip(("topic", "item", "gold"), zip(*gold))})
    gold_table = gold_table.set_column(2, "gold", pa.array([bool(v) for v in gold_table["gold"].to_pylist()]))
    run_table = _table(runs, 2).drop_columns(["gold"])
    seen = {(r[1], r[2]) for r in runs}
    kept = [(t, i) for t, i, _ in gold if missing == "negative" or (t, i) in seen]
    topics = sorted({t for t, _ in kept})
    topic_items = [(t, [i for u, i in kept if u == t]) for t in topics]
    half0 = _plain_halves(topic_items, 6, 3)
    label = {(t, i): g for t, i, g in gold}
    rows = [(s, t, i, label[t, i], p) for s, t, i, _, p in runs]
    if missing == "negative":
        present = {(r[0], r[1], r[2]) for r in runs}
        rows += [(s, t, i, g, 0) for s in sorted({r[0] for r in runs}) for t, i, g in gold if (s, t, i) not in present]
    expected = _plain_counts(rows, sorted({r[0] for r in runs}), topics, 2, half0, 6)
    got = split_half_counts(run_table, gold_table, replicates=6, seed=3, missing=missing)
    np.testing.assert_array_equal(got.counts, expected)


@pytest.mark.parametrize("seed", [0, 5])
def test_halves_are_the_documented_draws(seed):
    """The same seed gives the same halves, drawn as documented: both forms of the draw
    (bytes an item, masks a topic) against a plain reference, with topics of 0, 1, odd and more
    than 64 items, and any block of replicates equal to the same replicates of a longer run."""
    rng = np.random.default_rng(seed)
    item_topic = rng.integers(0, 6, 300)
    item_topic[item_topic == 3] = 4  # topic 3 has no item
    item_topic[np.flatnonzero(item_topic == 2)[1:]] = 5  # topic 2 has one
    item_topic[np.flatnonzero(item_topic == 0)[:1]] = 1  # topic 0 an odd number
    topic_items = [(t, list(np.flatnonzero(item_topic == t))) for t in range(6)]
    half0 = _plain_halves(topic_items, 9, seed)
    expected = np.array([[bool(half0.get((r, item_topic[i], i))) for r in range(9)] for i in range(300)], np.uint8)
    key = _key(seed)
    np.testing.assert_array_equal(draws.half_bytes(key, item_topic, 0, 9), expected)
    np.testing.assert_array_equal(draws.half_bytes(key, item_topic, 4, 7), expected[:, 4:7])
    sizes = np.bincount(item_topic, minlength=6)
    words, offsets = draws.half_masks(key, sizes, 2, 9)
    for t, items in topic_items:
        bits = np.unpackbits(words[offsets[t] : offsets[t + 1]].T.copy().view(np.uint8), axis=1, bitorder="little")
        np.testing.assert_array_equal(bits[:, : len(items)].T, expected[items, 2:9])
        assert not bits[:, len(items) :].any()
    assert not np.array_equal(draws.half_bytes(key + 1, item_topic, 0, 9), expected)


def test_every_half_is_equally_likely():
    """Each of the C(5, 2) = 10 halves of five items comes up about as often as the others, and
    each of 7 items is in the smaller half 3/7 of the time: the fixing up of the first guess
    favours no item (a draw that did would be off by far more than these bounds)."""
    for n, k in ((5, 2), (7, 3)):
        words, _ = draws.half_masks(_key(11), np.array([n]), 0, 20_000)
        bits = np.unpackbits(words.T.copy().view(np.uint8), axis=1, bitorder="little")[:, :n]
        assert np.all(bits.sum(axis=1) == k)
        share = bits.mean(axis=0)
        np.testing.assert_allclose(share, k / n, atol=0.02)
        if n == 5:
            _, counts = np.unique(np.packbits(bits, axis=1, bitorder="little"), return_counts=True)
            assert counts.size == 10 and np.all(np.abs(counts / 2_000 - 1) < 0.1)


@pytest.mark.parametrize("aggregate", ["macro", "micro"])
def test_stability_in_blocks_against_plain_halves(aggregate, monkeypatch):
    """The job a few replicates at a time equals its definition on plainly counted halves, with
    undefined values (a topic of one class, a constant system)."""
    runs, _ = _random_runs(7, items=(8, 6, 5, 2), systems=4)
    runs = [(s, t, i, g if t != "t3" else 1, p if s != "s2" else 1) for s, t, i, g, p in runs]
    topics = sorted({r[1] for r in runs})
    topic_items = [(t, sorted({r[2] for r in runs if r[1] == t})) for t in topics]
    half0 = _plain_halves(topic_items, 11, 2)
    systems = sorted({r[0] for r in runs})
    counts = _plain_counts(runs, systems, topics, 2, half0, 11)
    monkeypatch.setattr(resample, "KERNEL_REPLICATES", 4)
    monkeypatch.setattr(resample, "BLOCK_ENTRIES", 2 * 3 * len(systems) * len(topics) * 4)
    names = ["mcc", "f1", "error_rate", "k"]
    result = meta.stability(_table(runs, 2), measures=names, replicates=11, seed=2, aggregate=aggregate)
    plain = fm.ConfusionTensor(counts, ("replicate", "half", "system", "topic"), {"system": np.array(systems)})
    if aggregate == "micro":
        plain = plain.sum("topic")
    for row, name in zip(result.summary.to_pylist(), names):
        swaps, comparisons, std = _reference(plain, name)
        assert (row["swaps"], row["comparisons"]) == (swaps, comparisons)
        got = [r["std"] for r in result.detail.to_pylist() if r["measure"] == name]
        np.testing.assert_allclose(got, std, rtol=0, atol=1e-12)


def _labelled(table, labels):
    """The table with gold and pred mapped onto two other labels (False, True -> labels)."""
    for name in ("gold", "pred"):
        values = np.where(table[name].to_numpy(zero_copy_only=False), labels[1], labels[0])
        table = table.set_column(table.column_names.index(name), name, pa.array(values))
    return table


@pytest.mark.parametrize("aggregate", ["macro", "micro"])
@pytest.mark.parametrize("labels", [(False, True), (2, 1), (0, 1)])
def test_fused_kernels_equal_the_tensor_path(aggregate, labels, monkeypatch):
    """The per-measure kernels give the values of evaluating the tensor of every half: the same
    positive class (1 is the first of the labels {1, 2}), undefined values, parameters."""
    runs, _ = _random_runs(9, items=(8, 6, 5, 2), systems=5)
    runs = [(s, t, i, g if t != "t3" else 1, p if s != "s2" else 1) for s, t, i, g, p in runs]
    table = _labelled(_table(runs, 2), labels)
    names = ["mcc", "f1", "fbeta(beta=2)", "lam", "precision", "k"]
    stability = importlib.import_module("fastmetrics.meta.stability")
    monkeypatch.setattr(resample, "KERNEL_REPLICATES", 5)
    kernels = []
    monkeypatch.setattr(stability, "half_means", lambda *args: kernels.append(args) or half_means(*args))
    fused = meta.stability(table, measures=names, replicates=13, seed=4, aggregate=aggregate)
    assert len(kernels) == len(names)  # the kernels' path, not the fallback
    monkeypatch.setattr(stability, "_fused_scores", lambda *args: None)
    plain = meta.stability(table, measures=names, replicates=13, seed=4, aggregate=aggregate)
    assert fused.summary.column("measure").to_pylist() == plain.summary.column("measure").to_pylist()
    for result in ("summary", "detail"):
        got, want = getattr(fused, result), getattr(plain, result)
        assert got.column_names == want.column_names
        for name in want.column_names:
            if name in ("measure", "system"):
                assert got[name].to_pylist() == want[name].to_pylist()
            else:
                np.testing.assert_allclose(got[name].to_numpy(), want[name].to_numpy(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("masks", [True, False])
@pytest.mark.parametrize("shape", ["shuffled", "strings", "one topic", "in order"])
def test_binary_halves_against_plain_counting(shape, masks, monkeypatch):
    """Binary rows kept as item masks, or as rows where masks are refused, give the counts of
    the documented halves counted row by row: rows in any order, item ids with gaps (renumbered
    by their place among the topic's items), runs lacking items (a topic's groups then differ),
    string ids, no topic column; and rows in item order (a run's bits set 64 at a time from the
    bitmaps) in record batches of 37 rows (bitmaps at any bit offset, runs cut by batches; the
    forms of large batches)."""
    rng = np.random.default_rng(len(shape))
    runs = []
    ids = {t: np.sort(rng.choice(500, n, replace=False)) for t, n in enumerate((9, 70, 4, 1, 130))}
    if shape == "in order":
        ids = {t: np.arange(n) for t, n in enumerate((9, 70, 4, 1, 130))}
    for t, items in ids.items():
        gold = rng.random(items.size) < 0.4
        for s in range(3):
            kept = rng.random(items.size) >= (0.15 if t % 2 else 0.0)
            pred = np.where(rng.random(items.size) < 0.7, gold, ~gold)
            runs += [(f"s{s}", f"t{t}", int(i), int(g), int(p)) for i, g, p, k in zip(items, gold, pred, kept) if k]
    if shape == "one topic":
        runs = [(s, "t", i + 1000 * int(t[1:]), g, p) for s, t, i, g, p in runs]
    if shape == "strings":
        runs = [(s, t, f"doc{i:04d}", g, p) for s, t, i, g, p in runs]
    if shape != "in order":
        runs = [runs[i] for i in rng.permutation(len(runs))]
    topics = sorted({r[1] for r in runs})
    topic_items = [(t, sorted({r[2] for r in runs if r[1] == t})) for t in topics]
    expected = _plain_counts(runs, ["s0", "s1", "s2"], topics, 2, _plain_halves(topic_items, 9, 6), 9)
    table = _table(runs, 2)
    if shape == "in order":
        table = pa.Table.from_batches(table.to_batches(max_chunksize=37))
        # the column forms of large batches (bitmaps), which a few rows are not given
        monkeypatch.setattr(importlib.import_module("fastmetrics.count.encoders"), "SMALL", 8)
    if shape == "one topic":
        table, expected = table.drop_columns(["topic"]), expected[:, :, :, 0]
    monkeypatch.setattr(itemmasks.ItemMasks, "fits", staticmethod(lambda plan, rows: masks))
    halving = resample.split_halves(table, replicates=9, seed=6)
    assert isinstance(halving.rows, itemmasks.ItemMasks if masks else resample.KeptRows)
    np.testing.assert_array_equal(halving.block(0, 9).counts, expected)


def test_item_masks_only_where_they_fit(monkeypatch):
    """Binary hard labels with an item column and no separate gold are kept as masks while the
    masks take no more than the budget or 16 bytes a row of the input; more classes or a
    separate gold keep the rows."""
    runs, gold = _random_runs(3, items=(6, 5))
    fits = itemmasks.ItemMasks.fits
    binary = plan(open_source(_table(runs, 2)))  # 3 systems x 2 topics: 6 groups of one word
    assert fits(binary, 30)
    assert not fits(plan(open_source(_table(_random_runs(3, m=3)[0], 3))), 30)
    topic, item, label = zip(*gold)
    gold_table = pa.table({"topic": topic, "item": item, "gold": [g == 1 for g in label]})
    assert not fits(plan(open_source(_table(runs, 2).drop_columns(["gold"])), gold_table), 30)
    monkeypatch.setattr(itemmasks, "_BUDGET", 0)
    assert fits(binary, 9) and not fits(binary, 8)  # 3 masks x 6 groups x 8 bytes = 16 bytes x 9 rows


def test_half_block_past_a_byte_and_many_classes():
    """Groups of more than 255 rows (the uint8 tally is added in every 255 rows) and 6 classes
    (36 cells: only the cells a chunk touched are added), against a plain sum."""
    rng = np.random.default_rng(3)
    n_rows, n_cells, width = 700, 36, 40
    group_start = np.array([0, 300, 301, 301, 700])
    cell = rng.integers(0, n_cells, n_rows).astype(np.int32)
    item = rng.integers(0, 50, n_rows).astype(np.int32)
    chosen = (rng.random((50, width)) < 0.5).astype(np.uint8)
    out = np.full((4, n_cells, width), -1, np.int32)
    resample.half_block(group_start, cell, item, chosen, out)
    expected = np.zeros_like(out)
    group = np.repeat(np.arange(4), np.diff(group_start))
    np.add.at(expected, (group, cell), chosen[item])
    np.testing.assert_array_equal(out, expected)


def test_binary_element_is_the_plain_binary_kernel_or_none():
    """The kernels' path takes a spec's element function only where it alone evaluates the spec:
    F1 = 2 tp / (2 tp + fp + fn) on one cell; None for an averaged spec or a curve measure, which
    stability evaluates on the tensor of every half."""
    from fastmetrics.measures.api import binary_element
    from fastmetrics.measures.registry import parse_specs

    f1, macro, auc = parse_specs(["f1", "f1@macro", "roc_auc"])
    element = binary_element(f1)
    call = numba.njit(lambda tp, fp, fn, tn: element(tp, fp, fn, tn))  # numba code calls it, not Python
    assert call(3.0, 1.0, 2.0, 4.0) == pytest.approx(6 / 9, abs=1e-15)
    assert np.isnan(call(0.0, 0.0, 0.0, 5.0))
    assert binary_element(macro) is None and binary_element(auc) is None
