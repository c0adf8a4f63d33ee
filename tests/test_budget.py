"""The suite's budget (tests/conftest.py, FASTMETRICS_TEST_BUDGET): a test over it fails, naming
its processor time and the way out; one under it passes; the costliest are listed."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

INNER = """
import time

def _busy(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass

def test_costly():
    _busy(0.6)

def test_cheap():
    _busy(0.01)
"""


CONFTEST = (
    "from tests.conftest import pytest_configure, pytest_runtest_protocol, pytest_runtest_makereport, "
    "pytest_runtest_logreport, pytest_terminal_summary, pytest_sessionfinish\n"
)


def _inner(folder: Path, *options: str, **budgets) -> subprocess.CompletedProcess:
    (folder / "conftest.py").write_text(CONFTEST)
    (folder / "test_inner.py").write_text(INNER)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_BUDGET")}
    env.update(budgets, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(folder),
            *options,
            "test_inner.py",
        ],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


# the README's command runs the suite on pytest-xdist workers: the controller lists their tests
@pytest.mark.parametrize("options", [(), ("-n", "2")], ids=["one process", "two workers"])
def test_a_test_over_the_budget_fails(tmp_path, options):
    done = _inner(tmp_path, *options, FASTMETRICS_TEST_BUDGET="0.3", FASTMETRICS_SUITE_BUDGET="0.4")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 1 passed" in done.stdout
    assert re.search(
        r"test_inner\.py::test_costly took 0\.[6-9] s of processor time, over FASTMETRICS_TEST_BUDGET=0\.3 s",
        done.stdout,
    )
    listed = done.stdout.split("processor time:")[1].splitlines()
    assert "test_inner.py::test_costly" in listed[1] and "test_inner.py::test_cheap" in listed[2]
    assert re.search(r"the tests took \d s of processor time, over FASTMETRICS_SUITE_BUDGET=0\.4 s", done.stdout)


def test_the_suite_budget_alone_fails_the_run(tmp_path):
    """Every test passes, and the run fails: together they are over FASTMETRICS_SUITE_BUDGET."""
    done = _inner(tmp_path, FASTMETRICS_SUITE_BUDGET="0.4")
    assert done.returncode == 1 and "2 passed" in done.stdout, done.stdout + done.stderr
    assert "over FASTMETRICS_SUITE_BUDGET=0.4 s" in done.stdout
