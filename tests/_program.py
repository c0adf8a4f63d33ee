"""Running the ``fastmetrics`` program from the tests, as a process of its own, cheaply.

Most of what a command-line test pays is the start of a new interpreter and the import of numpy,
pyarrow, numba and the stages: about a second and a half of processor time, for commands that
then run in a tenth of that. :func:`run_fastmetrics` forks each command from one server process
that imported those once. The child is still a process of its own (its own working folder,
environment, standard streams, exit status and signals), runs the module the way ``python -m``
runs it, and ends the way the interpreter ends: an exception that escapes prints its traceback
and exits 1, so a test that asserts "one line, exit 2, no traceback" checks what a user sees.

An environment that changes what is read at import time (``NUMBA_*``, ``PYTHON*``,
thread-library variables) gets a server of its own, started in that environment. What a fork
cannot reproduce goes through a new interpreter as before: a command prefix (such as ``setpriv``,
which changes the child's capabilities). ``FASTMETRICS_TEST_FORK=0`` turns the servers off for
the whole run.

The server forks only before it ran any of the program's kernels: numba's and pyarrow's thread
pools start in each child, after the fork, never in the parent. Its numba loads the program's way
(:func:`fastmetrics.cli.process.set_up_numba`): a child loads cached kernels, and builds numba's
typing and target contexts only when it compiles one, as the program does.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# read when numba, numpy's BLAS or the interpreter start: a forked child would keep the server's
_AT_IMPORT = ("NUMBA_", "PYTHON", "OMP_", "MKL_", "OPENBLAS_", "NUMEXPR_", "KMP_")
# ...except these, which scikit-learn sets in the tests' own process when a test imports it, and
# which only Intel's OpenMP runtime reads (none of the program's libraries loads it): left in, every
# command after the first scikit-learn oracle of a session would start a new interpreter
_SET_BY_IMPORTS = ("KMP_DUPLICATE_LIB_OK", "KMP_INIT_AT_FORK")

_SERVER_CODE = r"""
import json, os, runpy, select, signal, socket, sys, traceback
# commands of a shell (the docs' examples) arrive on a socket with their standard streams; bound
# before the imports, so that a command sent while they run waits for them
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
if os.path.exists(sys.argv[1]):
    os.unlink(sys.argv[1])
listener.bind(sys.argv[1])
listener.listen(64)
# numba's modules load as in the program's own process (no probes for scipy or cffi, cached
# kernels loaded without numba's registries): the children run the program's code path
from fastmetrics.cli.process import set_up_numba
set_up_numba()
for name in ("fastmetrics.cli", "fastmetrics.cli.program", "fastmetrics.io", "fastmetrics.count",
             "fastmetrics.measures", "fastmetrics.board", "fastmetrics.meta", "fastmetrics.report"):
    try:
        __import__(name)
    except ImportError:
        pass
# the report's libraries, most of a report command's imports (neither starts a thread at import;
# the report selects the same Agg backend)
try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot, scipy.interpolate, scipy.special, scipy.stats
except ImportError:
    pass
out = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
running = {}
requests = os.fdopen(0, "r", buffering=1)
buffer = ""
callers = {}

def child(request, streams=None):
    os.close(out.fileno())
    listener.close()
    for caller in callers.values():
        caller.close()
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if streams is None:
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(os.open(request["stdout"], os.O_WRONLY | os.O_TRUNC), 1)
        os.dup2(os.open(request["stderr"], os.O_WRONLY | os.O_TRUNC), 2)
    else:
        for target, fd in enumerate(streams):
            os.dup2(fd, target)
            os.close(fd)
    sys.stdin = open(0, "r", closefd=False)
    sys.stdout = open(1, "w", closefd=False)
    sys.stderr = open(2, "w", closefd=False)
    sys.argv = [request["module"], *request["argv"]]
    code = 0
    try:
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
    except SystemExit as end:
        code = end.code if isinstance(end.code, int) else (0 if end.code is None else 1)
        if not isinstance(end.code, (int, type(None))):
            print(end.code, file=sys.stderr)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)

def call(caller):
    # a shell's command: one JSON line (argv, cwd, env) and its three standard streams
    data, streams = b"", []
    while not data.endswith(b"\n"):
        chunk, fds, _, _ = socket.recv_fds(caller, 1 << 20, 3)
        if not chunk:
            caller.close()
            for fd in streams + fds:
                os.close(fd)
            return
        data, streams = data + chunk, streams + fds
    request = json.loads(data)
    pid = os.fork()
    if pid == 0:
        caller.close()
        child(request, streams)
    for fd in streams:
        os.close(fd)
    callers[pid] = caller

while True:
    ready, _, _ = select.select([0, listener], [], [], 0.02 if running or callers else None)
    if listener in ready:
        call(listener.accept()[0])
    if 0 in ready:
        chunk = os.read(0, 65536).decode()
        if not chunk:
            for pid in [*running, *callers]:
                os.killpg(pid, signal.SIGKILL)
            break
        buffer += chunk
        while "\n" in buffer:
            line, buffer = buffer.split("\n", 1)
            request = json.loads(line)
            if "kill" in request:
                for pid, key in running.items():
                    if key == request["kill"]:
                        os.killpg(pid, signal.SIGKILL)
                continue
            pid = os.fork()
            if pid == 0:
                child(request)
            running[pid] = request["id"]
    while running or callers:
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid == 0:
            break
        code = os.waitstatus_to_exitcode(status)
        cpu = usage.ru_utime + usage.ru_stime  # the child's processor time, for the tests' budget
        if pid in callers:
            out.write(json.dumps({"cpu": cpu}) + "\n")
            caller = callers.pop(pid)
            try:
                caller.sendall(f"{code}\n".encode())
            except OSError:
                pass
            caller.close()
        else:
            out.write(json.dumps({"id": running.pop(pid), "code": code, "cpu": cpu}) + "\n")
"""


def _at_import(env) -> dict:
    """The variables of ``env`` read at import time; this checkout on ``PYTHONPATH`` is left out,
    since the server imports it first whatever the path says (it starts in the checkout)."""
    found = {k: v for k, v in env.items() if k.startswith(_AT_IMPORT) and k not in _SET_BY_IMPORTS}
    if "PYTHONPATH" in found:
        rest = [p for p in found.pop("PYTHONPATH").split(os.pathsep) if p and Path(p).resolve() != REPO]
        if rest:
            found["PYTHONPATH"] = os.pathsep.join(rest)
    return found


class _Server:
    """One forking server for the test session, started on first use."""

    def __init__(self):
        self._lock = threading.Lock()
        self._process = None
        self._env = None
        self._waiting: dict[int, list] = {}
        self._next = 0
        self._folder = None
        self.cpu = 0.0  # processor seconds of the children ended so far (children of the server)

    def _start(self, env: dict):
        self._env = dict(env)
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="fastmetrics-fork-"))
        self._process = subprocess.Popen(
            [sys.executable, "-c", _SERVER_CODE, str(self._folder / "shell.sock")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=REPO,
        )
        threading.Thread(target=self._read, daemon=True).start()
        atexit.register(self.close)

    def _read(self):
        for line in self._process.stdout:
            answer = json.loads(line)
            with self._lock:
                self.cpu += answer["cpu"]
                if "id" not in answer:
                    continue
                slot = self._waiting.pop(answer["id"])
            slot.append(answer["code"])
            slot[0].set()
        with self._lock:  # the server ended: nobody waits forever
            for slot in self._waiting.values():
                slot.append(None)
                slot[0].set()
            self._waiting.clear()

    def run(self, module: str, argv: list, cwd, env: dict, timeout) -> subprocess.CompletedProcess:
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start(env)
            self._next += 1
            key = self._next
            done = threading.Event()
            slot = [done]
            self._waiting[key] = slot
            stdout, stderr = self._folder / f"{key}.out", self._folder / f"{key}.err"
            stdout.touch()
            stderr.touch()
            request = {
                "id": key,
                "module": module,
                "argv": argv,
                "cwd": str(Path(cwd or os.getcwd()).resolve()),
                "env": env,
                "stdout": str(stdout),
                "stderr": str(stderr),
            }
            self._process.stdin.write(json.dumps(request) + "\n")
            self._process.stdin.flush()
        args = [sys.executable, "-m", module, *argv]
        if not done.wait(timeout):
            with self._lock:
                self._process.stdin.write(json.dumps({"kill": key}) + "\n")
                self._process.stdin.flush()
            done.wait(10)
            raise subprocess.TimeoutExpired(args, timeout, stdout.read_bytes(), stderr.read_bytes())
        code = slot[1]
        if code is None:
            raise RuntimeError("the test's fork server ended")
        result = subprocess.CompletedProcess(
            args, code, stdout.read_text(errors="replace"), stderr.read_text(errors="replace")
        )
        stdout.unlink()
        stderr.unlink()
        return result

    def commands(self, env: dict) -> Path:
        """A folder holding a ``fastmetrics`` command, for the ``PATH`` of a shell whose
        environment is ``env``: it sends its arguments, folder, environment and standard streams
        to the server, and the forked child runs on those streams (pipes and redirections as for
        a process of its own); it exits as the child did. Run in an environment that changes
        what is read at import, or with ``FASTMETRICS_TEST_FORK=0``, it is ``python -m
        fastmetrics``."""
        with self._lock:
            if self._process is None or self._process.poll() is not None:
                self._start(env)
            # a shell may run the command at once: the server binds its socket as it starts, and a
            # command that came first found no socket (FileNotFoundError)
            socket_path, deadline = self._folder / "shell.sock", time.monotonic() + 60
            while not socket_path.exists() and self._process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)
            folder = self._folder / "bin"
            command = folder / "fastmetrics"
            if not command.exists():
                folder.mkdir(exist_ok=True)
                base = json.dumps(_at_import(self._env))
                command.write_text(
                    f"#!{sys.executable} -S\n"
                    "import sys\n"
                    f"sys.path.insert(0, {str(REPO)!r})\n"
                    "from tests._program import _shell_command\n"
                    f"_shell_command({str(self._folder / 'shell.sock')!r}, {base!r})\n"
                )
                command.chmod(0o755)
        return folder

    def close(self):
        if self._process is not None and self._process.poll() is None:
            self._process.stdin.close()
            self._process.wait(10)


class _Servers:
    """A forking server for each environment read at import (``NUMBA_*``, ``PYTHON*``, ...) that
    commands run in, started on first use, at most ``limit`` of them: a command whose import-time
    environment differs from the first command's is forked too, from a server of its own."""

    def __init__(self, limit: int = 4):
        self._lock = threading.Lock()
        self._by_env: dict[tuple, _Server] = {}
        self._limit = limit

    def for_env(self, env) -> _Server | None:
        """The server for commands run in ``env``; None past the limit (a new interpreter then)."""
        key = tuple(sorted(_at_import(env).items()))
        with self._lock:
            server = self._by_env.get(key)
            if server is None and len(self._by_env) < self._limit:
                server = self._by_env[key] = _Server()
        return server

    @property
    def cpu(self) -> float:
        """Processor seconds of every server's children ended so far."""
        return sum(server.cpu for server in list(self._by_env.values()))


_SERVERS = _Servers()
# the server of the tests' own environment
_SERVER = _SERVERS.for_env(os.environ)


def run_fastmetrics(
    argv, cwd=None, env: dict | None = None, timeout: float | None = None, prefix=(), module: str = "fastmetrics"
) -> subprocess.CompletedProcess:
    """Run ``python -m <module> *argv`` as its own process; a :class:`subprocess.CompletedProcess`
    with text ``stdout`` and ``stderr``, as ``subprocess.run(..., capture_output=True, text=True)``.

    ``env`` is the child's whole environment (default: this process's). Forked from the server
    of ``env``'s import-time variables unless ``prefix`` is given, more than four such
    environments were used, or ``FASTMETRICS_TEST_FORK=0``.
    """
    argv = [str(a) for a in argv]
    env = dict(os.environ if env is None else env)
    server = None if prefix or os.environ.get("FASTMETRICS_TEST_FORK", "1") == "0" else _SERVERS.for_env(env)
    if server is not None:
        return server.run(module, argv, cwd, env, timeout)
    return subprocess.run(
        [*prefix, sys.executable, "-m", module, *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def shell_env(env: dict) -> dict:
    """``env`` for a shell whose ``fastmetrics`` commands are forked from the server (pipes,
    redirections and exit statuses as for a process of their own); unchanged with
    ``FASTMETRICS_TEST_FORK=0``."""
    server = None if os.environ.get("FASTMETRICS_TEST_FORK", "1") == "0" else _SERVERS.for_env(env)
    if server is None:
        return dict(env)
    return {**env, "PATH": f"{server.commands(env)}{os.pathsep}{env.get('PATH', os.defpath)}"}


def _shell_command(path: str, base: str) -> None:
    """The ``fastmetrics`` command of :meth:`_Server.commands` (``base``: the server's variables
    read at import, as JSON)."""
    import signal
    import socket

    argv = sys.argv[1:]
    if os.environ.get("FASTMETRICS_TEST_FORK", "1") == "0" or _at_import(os.environ) != json.loads(base):
        os.execv(sys.executable, [sys.executable, "-m", "fastmetrics", *argv])
    request = {"module": "fastmetrics", "argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}
    request = json.dumps(request).encode() + b"\n"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.connect(path)
        sent = socket.send_fds(server, [request], [0, 1, 2])
        server.sendall(request[sent:])
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = server.recv(64)
            if not chunk:
                sys.exit("the tests' fork server ended before the command did")
            reply += chunk
    code = int(reply)
    if code < 0:  # ended by a signal (a closed pipe, say): end by it too, as the shell expects
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code)
