"""The measures as ufuncs against the numpy expression a user would write, on 10^7 cells.

    python benchmarks/ufuncs.py [--cells 10000000] [--repeat 11]

One run, every peer in the same process, interleaved: for each repetition, each measure (f1, mcc,
Sebastiani's K) and each type of counts (int64, as ``fm.count`` gives them; float64; float32),
three calls on the same four arrays of counts (uniform in [0, 1000)), the two calls of each ratio
back to back (``ORDER``):

- ``numpy``: the expression a user would write (``2 * tp / (2 * tp + fp + fn)``; MCC's quotient
  with ``np.sqrt``; K as recall + specificity - 1 with ``np.where`` for the absent classes of
  Sebastiani (2015), eq. 5), NaN where undefined, under ``np.errstate(all="ignore")``;
- ``fm.compute``: the validating entry point (counts checked, undefined cells counted, float64);
- ``fm.ufuncs``: the measure's ufunc, its loop for the counts' type (float64 for int64 counts).

Each call allocates its result, as a user's call does. The ufunc is built (and the values of the
three checked equal) before the timings. Medians of ``--repeat`` runs are printed, with ns a
cell, and ``TARGET`` lines for issue 47's targets, each the median of the repetitions' ratios of
two calls run back to back: the ufunc >= 1.5x faster than the numpy expression (int64 and float64
counts), and its float32 loop >= 1.7x faster than its float64 one.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import warnings

import numpy as np

import fastmetrics as fm

MEASURES = ("f1", "mcc", "k")
TYPES = (np.int64, np.float64, np.float32)
PEERS = ("numpy", "fm.compute", "fm.ufuncs")
TARGET_VS_NUMPY = 1.5
TARGET_FLOAT32 = 1.7


def numpy_f1(tp, fp, fn, tn):
    return 2 * tp / (2 * tp + fp + fn)


def numpy_mcc(tp, fp, fn, tn):
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def numpy_k(tp, fp, fn, tn):
    ap, an = tp + fn, fp + tn
    recall, specificity = tp / ap, tn / an
    return np.where(ap == 0, 2 * specificity - 1, np.where(an == 0, 2 * recall - 1, recall + specificity - 1))


NUMPY = {"f1": numpy_f1, "mcc": numpy_mcc, "k": numpy_k}


def calls(name: str, counts) -> dict:
    """The three peers' calls on ``counts``, each returning its values."""

    def numpy_call():
        with np.errstate(all="ignore"):
            return NUMPY[name](*counts)

    def compute_call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", fm.UndefinedMeasureWarning)
            return fm.compute(name, *counts)

    ufunc = getattr(fm.ufuncs, name)

    def ufunc_call():
        with np.errstate(all="ignore"):
            return ufunc(*counts)

    return {"numpy": numpy_call, "fm.compute": compute_call, "fm.ufuncs": ufunc_call}


def check(name: str, dtype, peers: dict) -> None:
    """The three give the same values (float32: within float32's precision)."""
    values = {peer: np.asarray(call(), dtype=np.float64) for peer, call in peers.items()}
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    for peer in ("numpy", "fm.compute"):
        if not np.allclose(values[peer], values["fm.ufuncs"], rtol=tolerance, atol=tolerance, equal_nan=True):
            raise SystemExit(f"{name} on {np.dtype(dtype).name} counts: {peer} differs from fm.ufuncs.{name}")


# The calls of one measure in one repetition, in this order: each pair a ratio compares (numpy and
# the ufunc on the same counts; the ufunc's float64 and float32 loops) runs back to back, so that
# what other processes do to the machine falls on both sides alike.
ORDER = (
    ("numpy", np.int64),
    ("fm.ufuncs", np.int64),
    ("fm.compute", np.int64),
    ("numpy", np.float64),
    ("fm.ufuncs", np.float64),
    ("fm.ufuncs", np.float32),
    ("numpy", np.float32),
    ("fm.compute", np.float64),
    ("fm.compute", np.float32),
)


def run(cells: int, repeat: int) -> tuple[dict, dict]:
    """(median seconds of each (measure, type, peer), the repetitions' times of each)."""
    rng = np.random.default_rng(0)
    base = rng.integers(0, 1000, size=(4, cells))
    counts = {dtype: tuple(np.ascontiguousarray(c, dtype=dtype) for c in base) for dtype in TYPES}
    table = {(name, dtype): calls(name, counts[dtype]) for name in MEASURES for dtype in TYPES}
    for (name, dtype), peers in table.items():
        check(name, dtype, peers)
    times: dict = {}
    for _ in range(repeat):
        for name in MEASURES:
            for peer, dtype in ORDER:
                call = table[(name, dtype)][peer]
                start = time.perf_counter()
                call()
                times.setdefault((name, dtype, peer), []).append(time.perf_counter() - start)
    return {key: float(np.median(values)) for key, values in times.items()}, times


def paired(times: dict, slower: tuple, faster: tuple) -> float:
    """The median over repetitions of one call's time over the other's, run back to back."""
    return float(np.median(np.array(times[slower]) / np.array(times[faster])))


def report(median: dict, times: dict, cells: int) -> None:
    print("| measure | counts | peer | median (ms) | ns a cell | numpy / peer |")
    print("|---|---|---|---:|---:|---:|")
    for name in MEASURES:
        for dtype in TYPES:
            kind = np.dtype(dtype).name
            for peer in PEERS:
                seconds = median[(name, dtype, peer)]
                ratio = median[(name, dtype, "numpy")] / seconds
                print(f"| {name} | {kind} | {peer} | {seconds * 1e3:.1f} | {seconds / cells * 1e9:.2f} | {ratio:.2f} |")
    print("Ratios: the median over repetitions of the two calls' times, run back to back.")
    for name in MEASURES:
        for dtype in (np.int64, np.float64):
            ms = {peer: median[(name, dtype, peer)] * 1e3 for peer in PEERS}
            ratio = paired(times, (name, dtype, "numpy"), (name, dtype, "fm.ufuncs"))
            verdict = "met" if ratio >= TARGET_VS_NUMPY else "MISSED"
            print(
                f"TARGET fm.ufuncs.{name} vs the numpy expression, {np.dtype(dtype).name} counts "
                f">= {TARGET_VS_NUMPY}x: {ratio:.2f}x {verdict} (numpy {ms['numpy']:.1f} ms, "
                f"fm.compute {ms['fm.compute']:.1f} ms, ufunc {ms['fm.ufuncs']:.1f} ms)"
            )
    for name in MEASURES:
        ratio = paired(times, (name, np.float64, "fm.ufuncs"), (name, np.float32, "fm.ufuncs"))
        verdict = "met" if ratio >= TARGET_FLOAT32 else "MISSED"
        ms = [median[(name, dtype, "fm.ufuncs")] * 1e3 for dtype in (np.float64, np.float32)]
        print(
            f"TARGET fm.ufuncs.{name} float32 vs float64 >= {TARGET_FLOAT32}x: {ratio:.2f}x {verdict} "
            f"({ms[0]:.1f} ms vs {ms[1]:.1f} ms)"
        )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cells", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=11, help="timed runs of each call (the median is shown)")
    args = parser.parse_args(argv)
    print(
        f"# fm.ufuncs vs numpy vs fm.compute -- {args.cells:,} cells, median of {args.repeat} interleaved runs; "
        f"{time.strftime('%Y-%m-%d')} | {platform.platform()} | {os.cpu_count()} cores | numpy {np.__version__} | "
        f"load {os.getloadavg()[0]:.1f}"
    )
    report(*run(args.cells, args.repeat), args.cells)
    print(f"# load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
