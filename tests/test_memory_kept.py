"""Large arrays are kept for the next call (fastmetrics._memory.empty), and a kept block is handed
out again only once nothing refers to it any more."""

import gc

import numpy as np
import pyarrow as pa
import pytest

from fastmetrics import _memory
from fastmetrics._errors import ParameterError

BIG = (1 << 20) // 8 + 2  # float64 values: just over the size from which blocks are kept


@pytest.fixture
def kept(monkeypatch):
    """A store of its own, so that arrays other tests hold do not interfere."""
    store = _memory._Kept()
    monkeypatch.setattr(_memory, "_KEPT", store)
    monkeypatch.delenv(_memory.KEEP_ENV, raising=False)
    return store


def address(array) -> int:
    return array.__array_interface__["data"][0]


def test_a_dropped_array_is_handed_out_again(kept):
    first = _memory.empty((2, BIG), np.float64)
    at = address(first)
    del first
    again = _memory.empty((2, BIG), np.int64)
    assert address(again) == at and again.shape == (2, BIG) and again.dtype == np.int64


def _seen(held) -> np.ndarray:
    seen = memoryview(held.buffers()[1]) if isinstance(held, pa.Array) else held
    return np.array(seen, copy=True).view(np.uint8).copy()


@pytest.mark.parametrize(
    "holder",
    [
        lambda a: a[1:],  # a numpy view
        lambda a: a.reshape(-1).view(np.uint8),
        lambda a: pa.Array.from_buffers(pa.float64(), 4, [None, pa.py_buffer(a[0, :4])]),
        lambda a: (
            pa.table({"x": pa.Array.from_buffers(pa.float64(), 9, [None, pa.py_buffer(a[1])])}).slice(3).column(0)
        ),
        lambda a: pa.array(a[0]),  # pyarrow takes numeric numpy arrays without a copy
    ],
)
def test_a_block_in_use_is_not_handed_out(kept, holder):
    first = _memory.empty((2, BIG), np.float64)
    first.fill(1.5)
    at = address(first)
    held = holder(first)
    del first
    before = _seen(held)
    other = _memory.empty((2, BIG), np.float64)
    other.fill(7)  # writes into a new array never reach what the holder sees
    assert address(other) != at
    assert np.array_equal(before, _seen(held))
    del held
    gc.collect()
    assert at in [address(kept.blocks[i]) for i in kept.free()]


def test_the_smallest_free_block_that_fits_is_taken(kept):
    small, large = _memory.empty(BIG, np.float64), _memory.empty(BIG + 20, np.float64)
    at_small, at_large = address(small), address(large)
    del small, large
    assert address(_memory.empty(BIG + 10, np.float64)) == at_large  # the small one does not fit
    assert address(_memory.empty(BIG - 1, np.float64)) == at_small


def test_the_limit_bounds_what_is_kept(kept, monkeypatch):
    monkeypatch.setenv(_memory.KEEP_ENV, "3M")
    blocks = [_memory.empty(1 << 20, np.uint8) for _ in range(5)]
    assert sum(b.size for b in kept.blocks) <= 3 << 20
    del blocks
    gc.collect()
    # freed blocks make room for new ones (least recently used first), never past the limit
    _memory.empty(2 << 20, np.uint8)
    assert sum(b.size for b in kept.blocks) <= 3 << 20


def test_zero_keeps_nothing_and_release_gives_back(kept, monkeypatch):
    monkeypatch.setenv(_memory.KEEP_ENV, "0")
    first = _memory.empty(BIG, np.float64)
    assert kept.blocks == []
    del first
    monkeypatch.setattr(_memory, "_KEPT", _memory._Kept())
    monkeypatch.delenv(_memory.KEEP_ENV)
    held, dropped = _memory.empty(BIG, np.float64), _memory.empty(BIG, np.float64)
    del dropped
    assert _memory.release() == BIG * 8
    assert [b.size for b in _memory._KEPT.blocks] == [BIG * 8]
    del held


def test_a_bad_limit_names_the_variable(kept, monkeypatch):
    monkeypatch.setenv(_memory.KEEP_ENV, "lots")
    with pytest.raises(ParameterError, match=_memory.KEEP_ENV):
        _memory.empty(BIG, np.float64)


def test_the_suite_hands_out_poisoned_arrays():
    # conftest sets it: a kernel reading what it never wrote sees 0xFF bytes
    assert _memory.POISON
    assert np.isnan(_memory.empty(3, np.float64)).all()
    assert (_memory.empty(BIG, np.int64) == -1).all()


def test_a_small_array_does_not_take_a_large_block(kept):
    large = _memory.empty(4 * BIG, np.float64)
    at = address(large)
    del large
    assert address(_memory.empty(BIG, np.float64)) != at  # over twice the request: left for a large one
    assert address(_memory.empty(3 * BIG, np.float64)) == at


def test_blocks_in_use_leave_free_ones_alone(kept, monkeypatch):
    # a new block that cannot be kept beside the busy ones drops no free block for nothing
    monkeypatch.setenv(_memory.KEEP_ENV, "4M")
    busy = _memory.empty(3 << 20, np.uint8)
    free = _memory.empty(1 << 20, np.uint8)
    at = address(free)
    del free
    _memory.empty(2 << 20, np.uint8)  # 3M busy + 2M > 4M: not kept
    assert at in [address(kept.blocks[i]) for i in kept.free()]
    del busy


def test_the_memory_check_counts_kept_blocks_as_available(kept, monkeypatch):
    # a tensor is not refused for memory that only the kept blocks hold
    dropped = _memory.empty(8 * BIG, np.float64)
    del dropped
    available = [1 << 20]
    monkeypatch.setattr(_memory, "limit", lambda: available[0])
    monkeypatch.setattr(_memory, "release", lambda: available.__setitem__(0, 1 << 30) or 1)
    _memory.check(8 << 20, "a tensor", "fewer cells")
    available[0] = 1 << 20
    monkeypatch.setattr(_memory, "release", lambda: 0)  # nothing to give back: refused
    with pytest.raises(ParameterError, match="a tensor would need"):
        _memory.check(8 << 20, "a tensor", "fewer cells")
