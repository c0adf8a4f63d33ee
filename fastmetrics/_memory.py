"""Memory is checked before it is spent: a tensor that cannot fit is refused with its size and
the ways out, instead of numpy's allocation failure (or the system's OOM killer) after minutes.

The limit is the memory available now (``MemAvailable`` of ``/proc/meminfo``, else the free
physical pages); ``FASTMETRICS_MEMORY_LIMIT`` (bytes, or a number with K, M, G or T) replaces
it, e.g. to try anyway on a machine with swap, or to stay small on a shared one.

The large arrays a call fills and drops come from :func:`empty`, which keeps them for the next call
(:class:`_Kept`; ``FASTMETRICS_KEEP_MEMORY`` bounds what is kept, :func:`release` gives it back).
"""

from __future__ import annotations

import os
import re
import sys

import numpy as np
import pyarrow as pa

from ._errors import ParameterError

ENV = "FASTMETRICS_MEMORY_LIMIT"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    """Bytes from ``"123"``, ``"512M"``, ``"40G"``, ``"1.5T"`` (binary units; a trailing B or iB allowed)."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([KMGT]?)(?:I?B)?\s*", str(text).upper())
    if not match:
        raise ParameterError(
            f"A memory size is a number of bytes or a number with K, M, G or T (e.g. 40G); got {text!r}."
        )
    return int(float(match.group(1)) * _UNITS[match.group(2)])


def _size_from(variable: str) -> int | None:
    """The size an environment variable gives (None when it is not set), its name in the error."""
    given = os.environ.get(variable)
    if not given:
        return None
    try:
        return parse_size(given)
    except ParameterError as exc:
        raise ParameterError(f"{variable}: {exc}") from None


def limit() -> int | None:
    """The number of bytes one tensor may take (None when the system does not say)."""
    given = _size_from(ENV)
    if given is not None:
        return given
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def human(n: float) -> str:
    """Format a number of bytes for messages: ``"512 bytes"``, ``"1.5 GiB"``."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or unit == "TiB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"  # pragma: no cover


def check(nbytes: int, what: str, ways_out: str) -> None:
    """Refuse to allocate ``nbytes`` (described by ``what``) when they exceed :func:`limit`."""
    available = limit()
    if available is not None and nbytes > available and not os.environ.get(ENV) and release():
        available = limit()  # the blocks kept for the next call count as available
    if available is None or nbytes <= available:
        return
    source = f"the limit {ENV} sets" if os.environ.get(ENV) else "the memory available"
    raise ParameterError(
        f"{what} would need about {human(nbytes)}, more than {source} ({human(available)}). "
        f"{ways_out}; or raise the limit: {ENV}=64G in the environment, "
        f"'fastmetrics --memory-limit 64G <command>' on the command line."
    )


def check_replicates(resamples: int, per_replicate: float, what: str, options: str = "--resamples, resamples=") -> None:
    """Refuse a bootstrap whose replicates cannot fit: ``resamples`` of ``per_replicate`` bytes
    each held at once (the replicates of the cells resampled together), checked before any draw.

    Parameters
    ----------
    resamples : int
        The replicates asked for.
    per_replicate : float
        Bytes one replicate takes at the peak, over everything held at once.
    what : str
        The bootstrap, for the message (``"Intervals of 3 measures on 4 cells"``).
    options : str, default "--resamples, resamples="
        The option and the parameter that set ``resamples``, for the message.
    """
    check(
        int(resamples * per_replicate),
        f"{what} with {int(resamples):,} resamples",
        f"Use fewer resamples ({options})",
    )


KEEP_ENV = "FASTMETRICS_KEEP_MEMORY"
_KEEP_FROM = 1 << 20  # smaller arrays come back from the pool's free lists quickly enough
# the test suite sets it: every array :func:`empty` hands out is filled with 0xFF bytes first (NaN
# as floats, -1 as integers), so that code reading an element it did not write fails there
# instead of reading the zeros a fresh page happens to hold
POISON = False


class _Kept:
    """The large arrays :func:`empty` handed out, kept after their callers drop them so that the
    next call of the same size writes into pages already mapped.

    Arrow's pool (mimalloc) hands a freed block of this size back to the system within
    milliseconds, and the next call faults every page in again: on a virtual machine whose host
    reclaims freed memory that can cost as much as the work that fills them, and it grows with
    the bytes of the ids, so runs with long ids were slowed the most (docs/guides/performance.md).
    A kept block is free again when nothing but this list refers to it: every view numpy makes of
    it, and every Arrow buffer made of those views, holds a reference to it. At most
    :func:`keep_limit` bytes are kept (``FASTMETRICS_KEEP_MEMORY``, read at the first large
    array; 0 keeps none); :func:`release` gives them back.
    """

    def __init__(self):
        import threading

        self.blocks: list[np.ndarray] = []
        self.lock = threading.Lock()
        self.limit: int | None = None

    def free(self) -> list[int]:
        # two references: the list's and getrefcount's argument
        return [i for i in range(len(self.blocks)) if sys.getrefcount(self.blocks[i]) <= 2]

    def take(self, nbytes: int) -> np.ndarray:
        with self.lock:
            if self.limit is None:
                self.limit = keep_limit()
            free = self.free()
            # the smallest free block that fits, and the most recently used of those sizes; none
            # more than twice the request (a small array would keep a large block busy)
            fits = [i for i in free if nbytes <= self.blocks[i].size <= 2 * nbytes]
            if fits:
                best = min(fits, key=lambda i: (self.blocks[i].size, -i))
                block = self.blocks[best]
                self.blocks = [b for i, b in enumerate(self.blocks) if i != best] + [block]
                return block
            block = np.frombuffer(pa.allocate_buffer(nbytes), np.uint8)
            sizes = [b.size for b in self.blocks]
            busy = sum(sizes) - sum(sizes[i] for i in free)
            if busy + nbytes > self.limit:
                return block  # kept blocks in use leave no room: nothing is dropped for it
            dropped, kept = set(), sum(sizes)
            for i in free:  # the least recently used first
                if kept + nbytes <= self.limit:
                    break
                dropped.add(i)
                kept -= sizes[i]
            # one assignment: an interrupt leaves the list whole
            self.blocks = [b for i, b in enumerate(self.blocks) if i not in dropped] + [block]
            return block

    def release(self) -> int:
        with self.lock:
            free = set(self.free())
            released = sum(self.blocks[i].size for i in free)
            self.blocks = [b for i, b in enumerate(self.blocks) if i not in free]
            return released


_KEPT = _Kept()


def keep_limit() -> int:
    """Bytes of large arrays kept for the next call: ``FASTMETRICS_KEEP_MEMORY`` when set (0
    keeps none), else a quarter of the memory available, at most 4 GiB."""
    given = _size_from(KEEP_ENV)
    if given is not None:
        return given
    return min(4 << 30, (limit() or 0) // 4)


def release() -> int:
    """Give the large arrays kept for the next call (see :func:`empty`) back to Arrow's pool,
    which returns them to the system; the number of bytes released."""
    released = _KEPT.release()
    pa.default_memory_pool().release_unused()
    return released


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array for the large arrays one call fills and drops.

    numpy takes an array over 32 MiB (glibc's largest ``mmap`` threshold) from the system and
    gives it back when it is dropped, and Arrow's pool does the same within milliseconds, so
    the next call faults every page in again; on a virtual machine whose host reclaims freed
    memory that can cost more than the count that fills the array (docs/guides/performance.md).
    Arrays of 1 MiB and more are therefore views of blocks kept for the next call (:class:`_Kept`,
    as DuckDB's buffer manager and polars' allocator keep theirs); :func:`release` hands
    them back.
    """
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * dtype.itemsize
    if nbytes < _KEEP_FROM:
        block = np.frombuffer(pa.allocate_buffer(max(nbytes, 1)), np.uint8)
    else:
        block = _KEPT.take(nbytes)
    if POISON:
        block[:nbytes] = 0xFF
    return block[:nbytes].view(dtype).reshape(shape)


def zeros(shape, dtype) -> np.ndarray:
    """:func:`empty`, filled with zeros."""
    out = empty(shape, dtype)
    out.fill(0)
    return out


def mapped_file(path: str):
    """A read-only memory map of the file at ``path``, or None (empty, or not mappable).

    Its pages are mapped in one call where the system can (``MAP_POPULATE``): mapped lazily, a
    page costs a fault on its first read, and in a virtual machine whose host took idle memory
    back a fault costs tens of microseconds -- a 100 MB file read half a second slower after the
    machine sat idle, measured. Raises OSError as ``open`` does.
    """
    import mmap

    with open(path, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size == 0:
            return None
        try:
            flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)
            return mmap.mmap(fh.fileno(), size, flags=flags, prot=mmap.PROT_READ)
        except AttributeError:  # no MAP_SHARED or PROT_READ (Windows)
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
