"""The native readers fuzzed: seeded mutants of small Parquet, CSV and run files, each counted in
a worker process with numba's bounds checks on, against pyarrow's reading of the same bytes.

Asserted for every mutant: no crash, no hang, no traceback, and either the counts of pyarrow's
reading or a clear fastmetrics refusal. A mutant on which pyarrow itself crashes or hangs is
reported apart (it is pyarrow's), and fastmetrics must not have counted it. The default run
reads a few hundred mutants; ``--runslow`` reads 10,000 (:func:`test_fuzz_slow`). Each run
prints its outcome counts.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import boundscheck_env

from . import fuzzing

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("fuzzing.py")
CASE_SECONDS = 20  # a case of a few hundred rows reads in milliseconds: this is a hang...
FIRST_SECONDS = 600  # ...unless it compiles kernels (with bounds checks): a worker's first case
RETRY_SECONDS = 120  # a case timed out is read again by a fresh worker, its compiling done
OUTCOMES = (
    "clean",
    "refused",
    "tracebacks",
    "crashes",
    "hangs",
    "wrong counts",
    "pyarrow crashes",
    "pyarrow hangs",
)
# among the refused: those whose columns pyarrow reads (a refusal where pyarrow gives counts)
REFUSED_READ = "refused where pyarrow reads"


class Worker:
    """The worker process, restarted after a crash or a hang; its stdout read by a thread."""

    def __init__(self, cache: str, first: float = FIRST_SECONDS):
        env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        env.pop("FASTMETRICS_NATIVE", None)
        self.stderr = open(os.path.join(cache, f"worker-{os.getpid()}-{time.monotonic_ns()}.err"), "w+b")
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr,
            env=env,
            cwd=str(ROOT),
        )
        self.lines: queue.Queue = queue.Queue()
        self.fresh, self.first = True, first
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:
            self.lines.put(line.decode())
        self.lines.put(None)  # the process ended

    def run(self, case: dict):
        """``(stage, result)``: the stage reached ('start': fastmetrics, 'oracle': pyarrow) and the
        JSON result, None when the process died there, or 'hang'."""
        self.process.stdin.write((json.dumps(case) + "\n").encode())
        self.process.stdin.flush()
        stage = None
        deadline = time.monotonic() + (self.first if self.fresh else CASE_SECONDS)
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return stage, "hang"
            if line is None:
                return stage, None
            if line.startswith("start ") or line.startswith("oracle "):
                stage = line.split()[0]
                if stage == "oracle":
                    self.fresh = False
                    deadline = time.monotonic() + CASE_SECONDS
                continue
            self.fresh = False
            return stage, json.loads(line)

    def close(self):
        self.process.kill()
        self.process.wait()
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace")[-2000:]
        self.stderr.close()
        return text


def classify(stage, result) -> str:
    if result == "hang":
        return "hangs" if stage == "start" or stage is None else "pyarrow hangs"
    if result is None:
        return "crashes" if stage == "start" or stage is None else "pyarrow crashes"
    got, want = result["got"], result["want"]
    if "error" in got:
        return "tracebacks"
    if "refused" in got:
        return "refused"
    if "counts" in want:
        return "clean" if got == want else "wrong counts"
    if "error" in want:  # pyarrow's reading failed where ours counted: whose count is it?
        return "wrong counts"
    return "wrong counts"  # fastmetrics counted bytes whose pyarrow reading it refuses


def campaign(tmp_path: Path, seed: int, count: int) -> tuple[collections.Counter, list]:
    """Count ``count`` mutants; return the outcome counts and the failures (name, outcome, detail)."""
    bases = fuzzing.parquet_bases() + fuzzing.csv_bases() + fuzzing.run_bases()
    for name, data in fuzzing.gold_files().items():
        (tmp_path / name).write_bytes(data)
    cache = boundscheck_env()["NUMBA_CACHE_DIR"]
    outcomes: collections.Counter = collections.Counter({o: 0 for o in OUTCOMES})
    failures, refusals = [], []
    worker = Worker(cache)
    try:
        for k, (name, data, options) in enumerate(fuzzing.mutants(seed, count, bases)):
            suffix = ".parquet" if name.startswith("parquet") else ".csv" if name.startswith("csv") else ".txt"
            path = tmp_path / f"m{k % 64}{suffix}"
            path.write_bytes(data)
            given = {o: (str(tmp_path / v) if o == "gold" else v) for o, v in options.items()}
            case = {"id": k, "path": str(path), "options": given}
            stage, result = worker.run(case)
            if result == "hang":  # a kernel compiled for a path no case took before: once more, at leisure
                worker.close()
                worker = Worker(cache, first=RETRY_SECONDS)
                stage, result = worker.run(case)
            outcome = classify(stage, result)
            outcomes[outcome] += 1
            if outcome == "refused" and "counts" in result["want"]:
                outcomes[REFUSED_READ] += 1
                refusals.append((name, result["got"]["refused"]))
            if outcome in ("hangs", "crashes", "pyarrow crashes", "pyarrow hangs") or result in (None, "hang"):
                detail = worker.close()
                worker = Worker(cache)
                if outcome in ("hangs", "crashes"):
                    (tmp_path / f"failed-{k}{suffix}").write_bytes(data)
                    failures.append((name, outcome, detail))
            elif outcome in ("tracebacks", "wrong counts"):
                (tmp_path / f"failed-{k}{suffix}").write_bytes(data)
                detail = result["got"].get("trace") or json.dumps(result)[:1500]
                failures.append((name, outcome, detail))
    finally:
        worker.close()
    outcomes["cases"] = count
    for name, message in refusals[:10]:
        print(f"refused where pyarrow reads: {name}: {message}")
    return outcomes, failures


def _report(outcomes, failures, label):
    counts = ", ".join(f"{o} {outcomes[o]}" for o in ("cases", *OUTCOMES, REFUSED_READ))
    print(f"\nfuzz ({label}): {counts}")
    for name, outcome, detail in failures[:10]:
        print(f"--- {outcome}: {name}\n{detail}")
    bad = {o: outcomes[o] for o in ("tracebacks", "crashes", "hangs", "wrong counts")}
    assert not any(bad.values()), f"{bad}; first: {failures[:3]}"


def test_fuzz(tmp_path):
    # the first 300 mutants of seed 42 reach 88 of the 90 (file, kind of mutation) pairs of its
    # first 600, at half the processor time; test_fuzz_slow reads 10,000
    outcomes, failures = campaign(tmp_path, seed=42, count=300)
    _report(outcomes, failures, "default")
    assert outcomes["clean"] > 0 and outcomes["refused"] > 0  # both outcomes occur: the test can tell them


@pytest.mark.slow
def test_fuzz_slow(tmp_path):
    outcomes, failures = campaign(tmp_path, seed=2026, count=10_000)
    _report(outcomes, failures, "slow")
