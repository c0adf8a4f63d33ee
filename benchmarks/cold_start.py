"""The first call after a fresh install: a new virtual environment with fastmetrics installed
from this checkout (not editable, runtime dependencies only) and an empty numba cache.

    python benchmarks/cold_start.py [--venv /tmp/fastmetrics-fresh] [--semeval DIR] [--warm 3] [--only a,b]

Times, as whole processes of the installed ``fastmetrics`` script, each command first with no
numba cache (every kernel its path needs is compiled; the cache is emptied before each command,
so no command profits from another's kernels) and then warm (the cache the first run wrote in
site-packages is found; best of ``--warm`` runs):

- ``hard``: ``evaluate`` of hard labels on a 240-row CSV (``--measures f1,mcc``);
- ``grid``: ``evaluate --thresholds 11`` on a 20,000-row CSV (the default binary measures);
- ``exact``: ``evaluate --thresholds exact --measures roc_auc,average_precision`` on it;
- ``report``: ``report`` on it (matplotlib comes with the ``[report]`` extra);
- ``runs``: ``evaluate`` of the 32 SemEval-2016 Task 3 subtask A run files with their gold,
  copied to a temporary folder (``--semeval``: the data's folder; skipped when absent);
- ``runs_report``: ``report`` on that folder of run files (team folders) with the gold.

``TARGET`` lines compare with issue 27's targets: cold ``grid`` <= 2 s, cold ``report`` <= 5 s,
warm ``runs`` <= 1.2 s.

matplotlib builds a font cache on its first import, once per user and matplotlib version (in
``MPLCONFIGDIR``, by default ``~/.cache/matplotlib``), whatever program imports it: not part of
fastmetrics' first call. The commands run with an ``MPLCONFIGDIR`` of the fresh environment's
own, whose cache is built (and its time printed) before anything is timed, so the cold reports
measure the same thing on a machine that has a cache and on one that has none.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEMEVAL = "/work/shared/data/external/semeval2016-task3-cqa"
GOLD_A = "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy"
# (command, cold or warm) -> seconds
TARGETS = {("grid", "cold"): 2.0, ("report", "cold"): 5.0, ("runs", "warm"): 1.2}


def labels_csv(path: str, systems: int, topics: int, items: int) -> None:
    """``systems x topics x items`` rows: string systems, int topics and items, 0/1 gold and
    predictions, a score in [0, 1) that agrees with the gold more often than not."""
    rng = np.random.default_rng(0)
    s, t, i = (x.reshape(-1) for x in np.indices((systems, topics, items)))
    gold = (rng.random(s.size) < 0.4).astype(int)
    score = np.clip(0.35 * gold + 0.65 * rng.random(s.size), 0.0, 0.999)
    pacsv.write_csv(
        pa.table(
            {
                "system": [f"s{x}" for x in s],
                "topic": t,
                "item": i,
                "gold": gold,
                "pred": (rng.random(s.size) < 0.5).astype(int),
                "score": score,
            }
        ),
        path,
    )


def semeval_runs(source: str, folder: str) -> tuple[list[str], str] | None:
    """The subtask A runs copied under ``folder`` (team folder / file) and the gold beside it:
    ``(run files, gold)``, or None without the data."""
    runs = sorted(glob.glob(os.path.join(source, "*", "subtask_A_*.txt")))
    gold = os.path.join(source, "_gold", GOLD_A)
    if not runs or not os.path.exists(gold):
        return None
    copies = []
    for run in runs:
        team = os.path.join(folder, os.path.basename(os.path.dirname(run)))
        os.makedirs(team, exist_ok=True)
        copies.append(shutil.copy(run, team))
    return copies, shutil.copy(gold, os.path.dirname(folder))


def fresh_venv(folder: str) -> str:
    if not os.path.exists(os.path.join(folder, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", folder], check=True)
    pip = os.path.join(folder, "bin", "pip")
    subprocess.run([pip, "install", "-q", "--force-reinstall", "--no-deps", REPO], check=True)
    subprocess.run([pip, "install", "-q", f"{REPO}[report]"], check=True)
    return os.path.join(folder, "bin", "fastmetrics")


def installed_package(folder: str) -> str:
    return glob.glob(os.path.join(folder, "lib", "python*", "site-packages", "fastmetrics"))[0]


def cache_files(folder: str, suffix: str = "nb[ic]") -> list[str]:
    return glob.glob(os.path.join(installed_package(folder), "**", f"*.{suffix}"), recursive=True)


def clear_cache(folder: str) -> int:
    files = cache_files(folder)
    for f in files:
        os.remove(f)
    return len(files)


def timed(cmd, env=None) -> tuple[float, float]:
    """(wall, CPU) seconds of one run: on a shared machine the CPU time (user + system of the
    process and its threads) is the steadier figure."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr}")
    return elapsed, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def commands(exe: str, work: str, semeval: str) -> dict:
    small, grid = os.path.join(work, "small.csv"), os.path.join(work, "grid.csv")
    labels_csv(small, 3, 4, 20)
    labels_csv(grid, 5, 20, 200)
    runs = semeval_runs(semeval, os.path.join(work, "runs"))
    found = {
        "hard": [exe, "evaluate", small, "--measures", "f1,mcc"],
        "grid": [exe, "evaluate", grid, "--thresholds", "11"],
        "exact": [exe, "evaluate", grid, "--thresholds", "exact", "--measures", "roc_auc,average_precision"],
        "report": [exe, "report", grid, "--out", os.path.join(work, "r.html"), "--quiet"],
    }
    if runs is None:
        print(f"runs, runs_report: skipped, no SemEval-2016 subtask A runs under {semeval}")
    else:
        files, gold = runs
        measures = ["--measures", "precision,recall,f1,accuracy"]
        found["runs"] = [exe, "evaluate", *files, "--gold", gold, *measures, "--by", "system"]
        report = os.path.join(work, "runs.html")
        found["runs_report"] = [exe, "report", os.path.join(work, "runs"), "--gold", gold, "--out", report, "--quiet"]
    return found


def font_cache(folder: str) -> dict:
    """The environment of the timed commands: ``MPLCONFIGDIR`` in ``folder``, its font cache
    built here (the time it took printed: matplotlib's, once per user and version)."""
    env = dict(os.environ, MPLCONFIGDIR=os.path.join(folder, "mplconfig"))
    shutil.rmtree(env["MPLCONFIGDIR"], ignore_errors=True)
    python = os.path.join(folder, "bin", "python")
    wall, cpu = timed([python, "-c", "import matplotlib.pyplot"], env)
    again = timed([python, "-c", "import matplotlib.pyplot"], env)
    print(
        f"matplotlib's font cache, built once per user and matplotlib version (not in the times below): "
        f"{wall - again[0]:.2f} s (CPU {cpu - again[1]:.2f} s)"
    )
    return env


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "fastmetrics-fresh"))
    parser.add_argument("--semeval", default=SEMEVAL, help="the SemEval-2016 Task 3 folder (runs in team folders)")
    parser.add_argument("--warm", type=int, default=3, help="warm runs of each command (the best is shown)")
    parser.add_argument("--only", help="comma-separated commands to time (default: all)")
    args = parser.parse_args(argv)
    exe = fresh_venv(args.venv)
    cache = os.path.join(installed_package(args.venv), "count", "__pycache__")
    print(f"numba cache in site-packages: {cache} (writable: {os.access(os.path.dirname(cache), os.W_OK)})")
    env = font_cache(args.venv)
    with tempfile.TemporaryDirectory() as work:
        for name, cmd in commands(exe, work, args.semeval).items():
            if args.only and name not in args.only.split(","):
                continue
            clear_cache(args.venv)
            cold = timed(cmd, env)
            written = len(cache_files(args.venv, "nbi"))
            warm = min(timed(cmd, env) for _ in range(args.warm))
            seconds = {"cold": cold, "warm": warm}
            print(
                f"{name}: cold {cold[0]:.2f} s (CPU {cold[1]:.2f} s), warm {warm[0]:.2f} s (CPU {warm[1]:.2f} s); "
                f"{written} kernels cached; load {os.getloadavg()[0]:.1f}"
            )
            for (target, when), limit in TARGETS.items():
                if target == name:
                    wall, cpu = seconds[when]
                    verdict = "met" if wall <= limit else "MISSED"
                    print(f"TARGET {when} {name} <= {limit:g} s: {wall:.2f} s {verdict} (CPU {cpu:.2f} s)")


if __name__ == "__main__":
    main()
