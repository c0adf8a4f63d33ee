"""The first call after a fresh install: a new virtual environment with fastmetrics installed
from this checkout (not editable, runtime dependencies only) and an empty numba cache.

    python benchmarks/cold_start.py [--venv /tmp/fastmetrics-fresh] [--keep]

Times, as whole processes, ``fastmetrics evaluate`` on a small CSV and ``fastmetrics report`` on
the same file: first with no numba cache (every kernel the path needs is compiled), then again
(the cache written by the first run, in site-packages, is found). The report needs matplotlib,
installed into the venv with the ``[report]`` extra. Targets: evaluate <= 2 s, report <= 5 s.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def small_csv(path: str) -> None:
    """3 systems x 4 topics x 20 items: string systems, int topics and items, 0/1 labels."""
    rng = np.random.default_rng(0)
    s, t, i = (x.reshape(-1) for x in np.indices((3, 4, 20)))
    pacsv.write_csv(
        pa.table(
            {
                "system": [f"s{x}" for x in s],
                "topic": t,
                "item": i,
                "gold": (rng.random(s.size) < 0.4).astype(int),
                "pred": (rng.random(s.size) < 0.5).astype(int),
                "score": rng.random(s.size),
            }
        ),
        path,
    )


def fresh_venv(folder: str) -> str:
    if not os.path.exists(os.path.join(folder, "bin", "python")):
        subprocess.run([sys.executable, "-m", "venv", folder], check=True)
    pip = os.path.join(folder, "bin", "pip")
    subprocess.run([pip, "install", "-q", "--force-reinstall", "--no-deps", REPO], check=True)
    subprocess.run([pip, "install", "-q", f"{REPO}[report]"], check=True)
    return os.path.join(folder, "bin", "fastmetrics")


def clear_cache(folder: str) -> int:
    files = glob.glob(
        os.path.join(folder, "lib", "python*", "site-packages", "fastmetrics", "**", "*.nb[ic]"), recursive=True
    )
    for f in files:
        os.remove(f)
    return len(files)


def timed(cmd) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venv", default=os.path.join(tempfile.gettempdir(), "fastmetrics-fresh"))
    args = parser.parse_args(argv)
    exe = fresh_venv(args.venv)
    with tempfile.TemporaryDirectory() as work:
        data = os.path.join(work, "small.csv")
        small_csv(data)
        commands = {
            "evaluate": [exe, "evaluate", data, "--measures", "f1,mcc"],
            "report": [exe, "report", data, "--out", os.path.join(work, "r.html"), "--quiet"],
        }
        targets = {"evaluate": 2.0, "report": 5.0}
        for name, cmd in commands.items():
            clear_cache(args.venv)
            cold = timed(cmd)
            written = len(
                glob.glob(
                    os.path.join(args.venv, "lib", "python*", "site-packages", "fastmetrics", "**", "*.nbi"),
                    recursive=True,
                )
            )
            warm = timed(cmd)
            print(
                f"cold {name}: {cold:.2f} s (target <= {targets[name]:.0f} s); warm {warm:.2f} s; "
                f"{written} numba cache index files written in site-packages"
            )


if __name__ == "__main__":
    main()
