"""The tests' way of running the program (tests/_program.py) ends as a new interpreter ends."""

import os
import subprocess
import sys

import pytest

from tests._program import _SERVER, run_fastmetrics

CASES = [
    ("fastmetrics", ["--version"]),
    ("fastmetrics", ["evaluate", "no-such-file.csv"]),
    ("fastmetrics.cli", ["evaluat"]),
    # an exception that escapes: its traceback and exit status 1, as the interpreter prints them
    ("zipfile", ["-l", "no-such-file.zip"]),
]


@pytest.mark.parametrize("module, argv", CASES, ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_forked_run_equals_a_new_interpreter(module, argv, tmp_path):
    forked = run_fastmetrics(argv, cwd=tmp_path, module=module, timeout=120)
    fresh = subprocess.run(
        [sys.executable, "-m", module, *argv], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert forked.returncode == fresh.returncode
    assert forked.stdout == fresh.stdout
    assert forked.stderr.splitlines()[-1:] == fresh.stderr.splitlines()[-1:]
    assert ("Traceback" in forked.stderr) == ("Traceback" in fresh.stderr)


def test_the_child_has_its_own_folder_and_environment(tmp_path):
    code = "import os; print(os.getcwd()); print(os.environ.get('FASTMETRICS_PROBE'))"
    (tmp_path / "probe_module.py").write_text(code)
    env = dict(os.environ, FASTMETRICS_PROBE="yes")
    done = run_fastmetrics([], cwd=tmp_path, env=env, module="probe_module", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(tmp_path.resolve()), "yes"]
    assert done.args[:2] == [sys.executable, "-m"] and _SERVER._process is not None, "not forked"


def test_a_run_past_its_timeout_is_ended(tmp_path):
    (tmp_path / "sleeper.py").write_text("import time\ntime.sleep(60)\n")
    with pytest.raises(subprocess.TimeoutExpired):
        run_fastmetrics([], cwd=tmp_path, module="sleeper", timeout=1)
