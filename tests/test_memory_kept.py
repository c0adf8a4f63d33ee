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
