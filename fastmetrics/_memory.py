"""Memory is checked before it is spent: a tensor that cannot fit is refused with its size and
the ways out, instead of numpy's allocation failure (or the system's OOM killer) after minutes.

The limit is the memory available now (``MemAvailable`` of ``/proc/meminfo``, else the free
physical pages); ``FASTMETRICS_MEMORY_LIMIT`` (bytes, or a number with K, M, G or T) replaces
it, e.g. to try anyway on a machine with swap, or to stay small on a shared one.
"""

from __future__ import annotations

import os
import re

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


def limit() -> int | None:
    """The number of bytes one tensor may take (None when the system does not say)."""
    given = os.environ.get(ENV)
    if given:
        try:
            return parse_size(given)
        except ParameterError as exc:
            raise ParameterError(f"{ENV}: {exc}") from None
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


def empty(shape, dtype) -> np.ndarray:
    """An uninitialised array in Arrow's memory pool, for the large arrays one call fills and drops.

    numpy takes an array over 32 MiB (glibc's largest ``mmap`` threshold) from the system and
    gives it back when it is dropped, so the next call faults every page in again; on a virtual
    machine whose host reclaims freed memory that can cost more than the count that fills the
    array (docs/guides/performance.md). Arrow's pool (mimalloc or jemalloc) keeps freed pages for the next
    allocation, as DuckDB's buffer manager and polars' allocator do;
    ``pyarrow.default_memory_pool().release_unused()`` hands them back.
    """
    dtype = np.dtype(dtype)
    count = int(np.prod(shape, dtype=np.int64))
    buffer = pa.allocate_buffer(max(count * dtype.itemsize, 1))
    return np.frombuffer(buffer, dtype, count=count).reshape(shape)


def zeros(shape, dtype) -> np.ndarray:
    """:func:`empty`, filled with zeros."""
    out = empty(shape, dtype)
    out.fill(0)
    return out
