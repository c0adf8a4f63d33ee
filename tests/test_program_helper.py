"""The tests' way of running the program (tests/_program.py) ends as a new interpreter ends."""

import os
import subprocess
import sys

import pytest

from tests import _program
from tests._program import _at_import, run_fastmetrics, shell_env

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


@pytest.fixture
def servers(monkeypatch):
    """Forking servers of the test's own, in place of the session's (which may have reached their
    limit of environments by the time this test runs); closed after it."""
    own = _program._Servers()
    monkeypatch.setattr(_program, "_SERVERS", own)
    yield own
    for server in list(own._by_env.values()):
        server.close()


def test_the_child_has_its_own_folder_and_environment(tmp_path, servers):
    code = "import os; print(os.getcwd()); print(os.environ.get('FASTMETRICS_PROBE'))"
    (tmp_path / "probe_module.py").write_text(code)
    env = dict(os.environ, FASTMETRICS_PROBE="yes")
    done = run_fastmetrics([], cwd=tmp_path, env=env, module="probe_module", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(tmp_path.resolve()), "yes"]
    assert done.args[:2] == [sys.executable, "-m"] and servers.for_env(env)._process is not None, "not forked"


def test_an_environment_read_at_import_gets_a_server_of_its_own(tmp_path, servers):
    """A command run with a numba variable set is forked from a second server started in that
    environment: numba reads it at import, and the child sees it."""
    (tmp_path / "numba_probe.py").write_text("import numba; print(numba.config.NUMBA_NUM_THREADS)")
    env = dict(os.environ, NUMBA_NUM_THREADS="1")
    first = servers.for_env(os.environ)
    server = servers.for_env(env)
    assert server is not None and server is not first
    done = run_fastmetrics([], cwd=tmp_path, env=env, module="numba_probe", timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1"]
    assert server._process is not None and first._process is None, "not forked by its own server"
    for n in range(2, 4):
        assert servers.for_env(dict(env, NUMBA_OPT=str(n))) is not None
    assert servers.for_env(dict(env, NUMBA_OPT="0")) is None  # past four: a new interpreter


def test_a_run_past_its_timeout_is_ended(tmp_path):
    (tmp_path / "sleeper.py").write_text("import time\ntime.sleep(60)\n")
    with pytest.raises(subprocess.TimeoutExpired):
        run_fastmetrics([], cwd=tmp_path, module="sleeper", timeout=1)


SHELL_CASES = [
    "fastmetrics evaluate no-such-file.csv; echo status $?",
    "fastmetrics evaluat 2>&1 >/dev/null | cut -c 1-40",
    "fastmetrics measures 2>&1 | head -n 3",
    "echo ignored | fastmetrics measures | tail -n 2",
]


@pytest.mark.parametrize("line", SHELL_CASES)
def test_a_shell_command_forked_equals_a_new_interpreter(line, tmp_path):
    """The docs' shell examples run ``fastmetrics`` forked (tests._program.shell_env): on the
    shell's own streams, so pipes, redirections, their order and the exit status are a process's."""
    base = dict(os.environ, PATH=f"{os.path.dirname(sys.executable)}{os.pathsep}{os.environ['PATH']}")
    forked_env = shell_env(base)
    assert forked_env["PATH"] != base["PATH"]
    runs = [
        subprocess.run(["bash", "-uo", "pipefail", "-c", line], cwd=tmp_path, env=env, capture_output=True, text=True)
        for env in (forked_env, base)
    ]
    forked, fresh = runs
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert forked.stdout or forked.stderr


def test_a_shell_command_is_forked_by_the_server(tmp_path, servers):
    (tmp_path / "probe.sh").write_text("command -v fastmetrics\nfastmetrics --version\n")
    env = dict(os.environ)
    done = subprocess.run(["bash", "probe.sh"], cwd=tmp_path, env=shell_env(env), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    server = servers.for_env(env)
    assert done.stdout.splitlines() == [str(server._folder / "bin" / "fastmetrics"), fresh_version()]


def fresh_version():
    return subprocess.run(
        [sys.executable, "-m", "fastmetrics", "--version"], capture_output=True, text=True
    ).stdout.strip()


def test_the_processor_time_of_forked_children_is_counted(tmp_path, servers):
    """What tests/conftest.py's budget (FASTMETRICS_TEST_BUDGET) adds for the forked commands."""
    (tmp_path / "busy.py").write_text(
        "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\n"
    )
    before = servers.cpu
    done = run_fastmetrics([], cwd=tmp_path, module="busy", timeout=120)
    assert done.returncode == 0, done.stderr
    assert servers.for_env(os.environ)._process is not None, "not forked"
    assert 0.3 <= servers.cpu - before < 5


def test_what_scikit_learn_sets_at_import_still_forks():
    """scikit-learn sets KMP_* variables in the tests' process when an oracle imports it (only
    Intel's OpenMP runtime reads them); a variable read at import that a test sets (NUMBA_*, OMP_*)
    still means a new interpreter."""
    assert _at_import({"KMP_INIT_AT_FORK": "FALSE", "KMP_DUPLICATE_LIB_OK": "True", "HOME": "/"}) == {}
    assert _at_import({"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}) == {
        "NUMBA_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
    }
