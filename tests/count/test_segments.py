"""The segments of a run file: rows where the topic (or the system) changes, found by
``fastmetrics.count._ranks.segment_starts`` chunk by chunk, against numpy's comparison of
neighbouring rows."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastmetrics._strings import string_buffers
from fastmetrics.count import _ranks

# words of equal length that differ in their first, middle or last word of 8 bytes
WORDS = [
    "",
    "q1",
    "q2",
    "q1000",
    "doc0000001",
    "doc0000002",
    "team007/run_primary",
    "team008/run_primary",
    "Q1042_R6",
    "Q1043_R6",
    "abcdefgh",
    "abcdefgi",
    "0123456789abcdef",
    "1123456789abcdef",
    "0123456789abcdefg",
    "0123456789abcdefh",
    "é",
]


def _column(rng, n, p_change):
    values = []
    current = rng.choice(WORDS)
    for _ in range(n):
        if rng.random() < p_change:
            current = rng.choice(WORDS)
        values.append(current)
    return values


def _expected(a, b, two):
    a, b = np.array(a, object), np.array(b, object)
    changed = np.r_[True, a[1:] != a[:-1]]
    if two:
        changed |= np.r_[True, b[1:] != b[:-1]]
    return np.flatnonzero(changed) if len(a) else np.zeros(0, np.int64)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(0, 300), two=st.booleans(), cuts=st.integers(1, 6))
def test_chunks_join_to_the_changes_of_neighbouring_rows(seed, n, two, cuts):
    rng = np.random.default_rng(seed)
    a, b = _column(rng, n, 0.2), _column(rng, n, 0.1)
    off_a, data_a = string_buffers(pa.array(a, pa.string()))
    off_b, data_b = string_buffers(pa.array(b, pa.string()))
    bounds = np.unique(np.r_[0, np.sort(rng.integers(0, n + 1, cuts)), n])
    starts = np.full(max(n, 1), -1, np.int64)
    found = np.zeros(bounds.size - 1, np.int64)
    # the chunks in reverse order (as threads may finish), each writing only its own results
    for c in reversed(range(bounds.size - 1)):
        _ranks._segment_chunk(off_a, data_a, off_b, data_b, two, bounds[c], bounds[c + 1], starts, found, c)
    for c in range(bounds.size - 1):
        assert (starts[bounds[c] + found[c] : bounds[c + 1]] == -1).all()
    got = np.concatenate(
        [starts[bounds[c] : bounds[c] + found[c]] for c in range(found.size)] + [np.zeros(0, np.int64)]
    )
    np.testing.assert_array_equal(got, _expected(a, b, two))


@pytest.mark.parametrize("two", [False, True])
def test_segment_starts_on_threads(two):
    # enough rows for several chunks on the threads (a chunk is at least 2^18 rows)
    rng = np.random.default_rng(7)
    n = 600_000
    topic = np.repeat(np.arange(n // 300), 300).astype(str)
    system = np.where(rng.random(n) < 0.001, "run_b", "run_a").astype(object)
    a, b = pa.array(topic, pa.string()), pa.array(system, pa.string())
    got = _ranks.segment_starts(*string_buffers(a), *string_buffers(b), two)
    np.testing.assert_array_equal(got, _expected(topic.astype(object), system, two))
