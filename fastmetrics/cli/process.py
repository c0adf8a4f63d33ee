"""The command line's process: Ctrl-C and SIGTERM (one line, exit 130 or 143, no partial output)
and the imports a command never uses, kept out of the ``fastmetrics`` program's own process."""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import signal
import sys


class Terminated(KeyboardInterrupt):
    """SIGTERM as a :class:`KeyboardInterrupt`.

    Raised where the process is so that the same clean-up as Ctrl-C runs (no partial output:
    :func:`fastmetrics.report.tables.write_table` removes its temporary file).
    """


UNWIND = [False]  # a Dask cluster is up: its processes are shut down by unwinding, not os._exit


def on_signal(signum, frame):
    """Stop on Ctrl-C or SIGTERM.

    While an output file is written, unwind so that its temporary file is removed; otherwise
    nothing is on disk yet, so stop at once (an exception raised here could be swallowed by a
    callback from numba's compiler and the job would run on).
    """
    # looked up, not imported: a signal that lands while a module imports (numpy, say) must not
    # start other imports, which then meet the half-imported module and end in a traceback; a
    # command that has not imported the writer writes no file
    # (and a module still importing may not define `writing` yet)
    writing = getattr(sys.modules.get(f"{__name__.rsplit('.', 2)[0]}.report.tables"), "writing", None)
    if (writing is not None and writing()) or UNWIND[0]:
        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()
    sys.stderr.write("fastmetrics: terminated\n" if signum == signal.SIGTERM else "fastmetrics: interrupted\n")
    sys.stderr.flush()
    os._exit(128 + signum)


def install_handlers() -> dict:
    """Route SIGINT and SIGTERM to :func:`on_signal`; returns the previous handlers.

    SIGINT is left alone where the caller ignores it, as ``nohup`` does.
    """
    previous = {}
    for signum in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, on_signal)
    return previous


def main_thread() -> bool:
    """Whether this is the main thread, the only one that may install signal handlers."""
    import threading

    return threading.current_thread() is threading.main_thread()


class _NumbaWithout(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads four of numba's modules while the optional module each probes for cannot be imported.

    ``numba`` imports scipy to check its version, and ``numba.core.config`` imports yaml to read
    a ``.numba_config.yaml`` (yaml is kept where the working folder has one). numba imports the
    other two when its first kernel runs (compiled or read from the cache):
    ``numba.np.arraymath`` looks for BLAS by importing ``scipy.linalg`` (a large share of a small
    command) and ``numba.core.typing.cffi_utils`` builds a ``cffi.FFI``, for nothing fastmetrics
    calls. Without them numba's ``np.convolve``/``np.correlate`` use their own
    inner-product loop (``np.dot`` and ``np.linalg`` still find scipy when a kernel uses them)
    and jitted code cannot call cffi functions. scipy itself stays importable: only the probe,
    while the probing module runs, is refused.
    """

    PROBES = {
        "numba": "scipy",
        "numba.core.config": "yaml",
        "numba.np.arraymath": "scipy.linalg.cython_blas",
        "numba.core.typing.cffi_utils": "cffi",
    }

    def __init__(self):
        self.loaders = {}

    def find_spec(self, name, path, target=None):
        if name not in self.PROBES or name in self.loaders:
            return None
        if name == "numba.core.config" and os.path.isfile(".numba_config.yaml"):
            return None  # numba reads the file there with yaml
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is not None and spec.loader is not None:
            self.loaders[name], spec.loader = spec.loader, self
        return spec

    def create_module(self, spec):
        return self.loaders[spec.name].create_module(spec)

    def exec_module(self, module) -> None:
        name = module.__spec__.name
        blocked = self.PROBES[name]
        absent = blocked not in sys.modules
        if absent:
            sys.modules[blocked] = None  # an ImportError at once, before the package's parents load
        try:
            self.loaders[name].exec_module(module)
        finally:
            if absent and sys.modules.get(blocked, 0) is None:
                del sys.modules[blocked]
        if len(self.loaders) == len(self.PROBES) and self in sys.meta_path:
            sys.meta_path.remove(self)


class _Refuse(importlib.abc.MetaPathFinder):
    """Fails the import of one top-level module (``None`` in ``sys.modules`` does not stop Cython's
    imports)."""

    def __init__(self, name: str):
        self.name = name

    def find_spec(self, name, path, target=None):
        if name == self.name:
            raise ImportError(f"{name} is not imported here", name=name)
        return None


def skip_unused_imports(args) -> None:
    """Keep scipy, cffi and pandas out of the process: no command calls them.

    scipy and cffi are numba's probes (:class:`_NumbaWithout`), pandas pyarrow's optional uses:
    together most of the start-up of a small command (docs/guides/performance.md).

    pyarrow imports pandas where it could meet pandas objects (its first array, ``pyarrow.dataset``,
    which Arrow's group-by and joins load) and goes without it where it is not installed. No
    command converts to or from pandas except the Dask ones (``--scheduler``), whose partitions
    are pandas objects: they keep it.
    """
    if not any(isinstance(f, _NumbaWithout) for f in sys.meta_path):
        sys.meta_path.insert(0, _NumbaWithout())
    if not getattr(args, "scheduler", None) and "pandas" not in sys.modules:
        sys.meta_path.insert(0, _Refuse("pandas"))
