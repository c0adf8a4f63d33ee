"""The string hash spreads ids as a random hash would, whatever their spelling.

Every hash table of the package takes a slot from the low bits of ``fastmetrics._strings.string_hash``.
Ids of real collections differ mostly in a few characters -- a counter at the end
(``LA010189-0001``, ``doc42_7``), at the start (``0457-LA000123``), in the middle
(``clueweb09-en0000-00-00000``) -- so each family below is hashed into tables of ``2**k`` slots at
a load of 1/2 and compared with uniformly random 64-bit hashes of as many values (a seeded
baseline computed here): the longest linear probe, the fullest home slot and the share of empty
home slots must stay near the random hash's. A second test checks the avalanche directly: flipping
any input bit flips every output bit about half the time.
"""

from __future__ import annotations

import functools
import uuid

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from numba import njit

from fastmetrics import _strings


@njit(cache=True)
def _hash_all(offsets, data, out):
    for i in range(out.size):
        out[i] = _strings.string_hash(data, np.int64(offsets[i]), np.int64(offsets[i + 1]))


@njit(cache=True)
def _longest_probe(hashes, bits):
    """The longest run of slots probed past an id's own, inserting ``hashes`` in order."""
    size = np.uint64(1) << np.uint64(bits)
    mask = size - np.uint64(1)
    taken = np.zeros(np.int64(size), np.bool_)
    longest = 0
    for h in hashes:
        slot, steps = h & mask, 0
        while taken[slot]:
            slot = (slot + np.uint64(1)) & mask
            steps += 1
        taken[slot] = True
        longest = max(longest, steps)
    return longest


def hashes(ids: list[str]) -> np.ndarray:
    offsets, data = _strings.string_buffers(pa.array(ids, pa.string()))
    out = np.empty(len(ids), np.uint64)
    _hash_all(offsets, data, out)
    return out


def table_stats(values: np.ndarray, bits: int) -> tuple[int, int, float]:
    """(longest probe, most ids in one home slot, share of empty home slots) in ``2**bits`` slots."""
    home = (values & np.uint64((1 << bits) - 1)).astype(np.int64)
    load = np.bincount(home, minlength=1 << bits)
    return _longest_probe(values, bits), int(load.max()), float((load == 0).mean())


@functools.cache
def random_bounds(n: int, bits: int, trials: int = 40) -> tuple[int, int, float, float]:
    """The random hash's worst longest probe and fullest slot over ``trials`` seeded draws, and
    the mean and standard deviation of its share of empty slots."""
    rng = np.random.default_rng(1000 * bits + n)
    top = np.iinfo(np.uint64).max
    stats = [table_stats(rng.integers(0, top, n, dtype=np.uint64, endpoint=True), bits) for _ in range(trials)]
    probes, fullest, empty = zip(*stats)
    return max(probes), max(fullest), float(np.mean(empty)), float(np.std(empty))


def _uuids(n: int) -> list[str]:
    rng = np.random.default_rng(7)
    return [str(uuid.UUID(bytes=rng.bytes(16), version=4)) for _ in range(n)]


def _one_byte_apart(length: int, seed: int) -> list[str]:
    """Ids of ``length`` characters equal but for one character, at every position in turn."""
    rng = np.random.default_rng(seed)
    base = list(rng.choice(list("abcdefghijklmnopqrstuvwxyz0123456789"), length))
    ids = set()
    for at in range(length):
        for c in range(33, 127):
            ids.add("".join(base[:at] + [chr(c)] + base[at + 1 :]))
    out = sorted(ids)
    rng.shuffle(out)
    return out


N = 1 << 15  # ids of each counted family: tables up to 2**16 slots

FAMILIES = {
    "prefix+counter": lambda: [f"document-{i}" for i in range(N)],
    "counter+suffix": lambda: [f"{i}-document" for i in range(N)],
    "counter first": lambda: [f"{i:04d}-LA{i // 7:06d}" for i in range(N)],
    "TREC LA": lambda: [
        f"LA{m:02d}{d:02d}89-{i:04d}" for m in range(1, 13) for d in range(1, 29) for i in range(1, 99)
    ][:N],
    "TREC FBIS": lambda: [f"FBIS{d}-{i}" for d in (3, 4) for i in range(1, N // 2 + 1)],
    "TREC FT": lambda: [
        f"FT{9 + y // 10}{y % 10}{m}-{i}" for y in range(1, 5) for m in range(1, 10) for i in range(1, 1000)
    ][:N],
    "doc{topic}_{n}": lambda: [f"doc{t}_{i}" for t in range(301, 301 + N // 100 + 1) for i in range(100)][:N],
    "SemEval Q_R_C": lambda: [f"Q{q}_R{r}_C{c}" for q in range(1, 400) for r in range(1, 11) for c in range(1, 11)][:N],
    "ClueWeb": lambda: [
        f"clueweb09-en{i // 5000:04d}-{i // 100 % 50:02d}-{i % 100 * 331 % 99999:05d}" for i in range(N)
    ],
    "numbers": lambda: [str(i) for i in range(N)],
    "MS MARCO passages": lambda: [str(i) for i in range(8_000_000, 8_000_000 + 7 * N, 7)],
    "UUIDs": lambda: _uuids(N),
    "URL paths": lambda: [f"http://www.example.com/news/2009/{i // 1000:03d}/story-{i}.html" for i in range(N)],
    "run names": lambda: [
        f"team{i // 10:03d}_run_{['primary', 'contrastive1', 'contrastive2'][i % 3]}{i % 10}" for i in range(N)
    ],
    "one byte apart, 13 bytes": lambda: _one_byte_apart(13, 1),
    "one byte apart, 40 bytes": lambda: _one_byte_apart(40, 2),
}


@functools.cache
def family(name: str) -> tuple[str, ...]:
    ids = FAMILIES[name]()
    assert len(set(ids)) == len(ids), name
    return tuple(ids)


def _sizes(n: int) -> list[int]:
    """Table bits from 8 up to the largest table the family fills to 1/2."""
    top = (n.bit_length() - 1) + 1
    return sorted({8, (8 + top) // 2, top})


def _verdict(name: str, bits: int) -> str | None:
    """None if the family fills a table of ``2**bits`` slots as a random hash does, else why not."""
    ids = family(name)
    n = 1 << (bits - 1)
    probe, fullest, empty = table_stats(hashes(list(ids[:n])), bits)
    worst_probe, worst_fullest, mean_empty, sd_empty = random_bounds(n, bits)
    problems = []
    if probe > 2 * worst_probe + 4:
        problems.append(f"longest probe {probe} (random: at most {worst_probe})")
    if fullest > worst_fullest + 3:
        problems.append(f"fullest slot {fullest} ids (random: at most {worst_fullest})")
    if abs(empty - mean_empty) > 8 * sd_empty + 0.01:
        problems.append(f"empty slots {empty:.3f} (random: {mean_empty:.3f} +- {sd_empty:.3f})")
    return f"{name!r} in 2**{bits} slots: " + ", ".join(problems) if problems else None


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_each_family_fills_tables_as_a_random_hash(name):
    problems = [_verdict(name, bits) for bits in _sizes(len(family(name)))]
    problems = [p for p in problems if p]
    assert not problems, "\n".join(problems)


def test_the_check_can_fail():
    """A hash of only the first bytes (what a product's low bits keep of a word) piles the ids of
    counter-last families into a few slots, and the same bounds catch it."""
    ids = family("TREC LA")[: 1 << 11]
    weak = np.array([int.from_bytes(s.encode()[:8].ljust(8, b"\0"), "little") for s in ids], np.uint64)
    probe, fullest, _ = table_stats(weak * np.uint64(0x9E3779B97F4A7C15), 12)
    worst_probe, worst_fullest, _, _ = random_bounds(1 << 11, 12)
    assert probe > 2 * worst_probe + 4 and fullest > worst_fullest + 3


@njit(cache=True)
def _flips(data, length, counts):
    """``counts[i, j]`` += 1 for each string of ``data`` (rows of ``length`` bytes) whose hash
    changes output bit ``j`` when input bit ``i`` flips."""
    for s in range(data.shape[0]):
        row = data[s].copy()
        h = _strings.string_hash(row, 0, length)
        for i in range(8 * length):
            row[i // 8] ^= np.uint8(1 << (i % 8))
            diff = h ^ _strings.string_hash(row, 0, length)
            row[i // 8] ^= np.uint8(1 << (i % 8))
            for j in range(64):
                counts[i, j] += (diff >> np.uint64(j)) & np.uint64(1)


@pytest.mark.parametrize("length", [1, 5, 8, 13, 16, 24, 40])
def test_every_input_bit_reaches_every_output_bit(length):
    """Full avalanche: over 400 random strings, flipping input bit i flips output bit j in 25-75 %
    of them for every (i, j) (a random function: 50 % +- 2.5 %; the bounds are 10 standard
    deviations off). A product alone fails it: its low bits never see the high bits of a word."""
    rng = np.random.default_rng(length)
    samples = 400
    # a zero byte after each string: the hash reads whole words, the padding must not matter
    data = np.zeros((samples, length + 8), np.uint8)
    data[:, :length] = rng.integers(0, 256, (samples, length))
    counts = np.zeros((8 * length, 64), np.int64)
    _flips(data, length, counts)
    share = counts / samples
    worst = np.unravel_index(np.argmax(np.abs(share - 0.5)), share.shape)
    assert share.min() >= 0.25 and share.max() <= 0.75, (
        f"input bit {worst[0]} flips output bit {worst[1]} in {share[worst]:.0%} of strings"
    )


# -- probing stays bounded: a table whose probe runs long grows ----------------------------------


def colliding(n: int, bits: int, prefix: str = "id") -> list[str]:
    """``n`` ids ``prefix`` + 9 digits whose hashes share their low ``bits`` bits (found by trying
    every number in turn), as an adversary would spell them."""
    found, start, size = [], 0, 1 << (bits + 6)
    head = np.frombuffer(prefix.encode(), np.uint8)
    width = head.size + 9
    while len(found) < n:
        numbers = np.arange(start, start + size, dtype=np.int64)
        digits = (numbers[:, None] // 10 ** np.arange(8, -1, -1)) % 10 + 48
        data = np.concatenate([np.broadcast_to(head, (size, head.size)), digits.astype(np.uint8)], axis=1).ravel()
        out = np.empty(size, np.uint64)
        _hash_all(np.arange(size + 1, dtype=np.int64) * width, data, out)
        hits = numbers[(out & np.uint64((1 << bits) - 1)) == 0]
        found += [f"{prefix}{x:09d}" for x in hits]
        start += size
    return found[:n]


def test_the_probe_bound_grows_with_the_table():
    assert not _strings.long_probe(16, 1 << 30)
    assert not _strings.long_probe(48, 256) and _strings.long_probe(49, 256)
    assert not _strings.long_probe(96, 1 << 20) and _strings.long_probe(97, 1 << 20)


def test_a_long_probe_doubles_a_table_up_to_its_largest():
    rng = np.random.default_rng(0)
    hashes = rng.integers(0, 2**63, 40, dtype=np.int64).astype(np.uint64)
    table = _strings._rehash(hashes, 40, 128)
    assert _strings._roomier(table, hashes, 40, 10) is table  # a short probe: as it was
    assert _strings._roomier(table, hashes, 40, 60).size == 256  # a long one: twice as large
    assert _strings._roomier(table, hashes, 65, 0).size == 512  # over half full: four times
    big = _strings._rehash(hashes, 40, int(_strings.most_slots(40)))
    assert _strings._roomier(big, hashes, 40, 500) is big  # as large as it may grow


def test_ids_of_one_slot_are_coded_as_arrow_codes_them():
    """3,000 ids whose hashes share their low 12 bits (every table up to 4,096 slots puts them in
    one), repeated in random order past the size where the kernels take over."""
    from fastmetrics.count.encoders import SMALL, string_codes

    ids = np.array(colliding(3000, 12), dtype=object)
    rows = pa.array(ids[np.random.default_rng(1).integers(0, ids.size, SMALL + 5000)].tolist())
    coded = string_codes(rows).chunk(0)
    expected = pc.index_in(rows, value_set=coded.dictionary).to_numpy()
    assert coded.dictionary.equals(pa.array(sorted(ids.tolist())))
    assert np.array_equal(coded.indices.to_numpy(), expected)
