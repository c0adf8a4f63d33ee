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


# set once a ufunc build installs numba's registries itself (_ufuncs_with_registries): only then
# may a cached kernel load without them
_LEAN_LOADS = [False]


def _load_cached_kernels_lean(caching) -> None:
    """Load a cached kernel without installing numba's typing and lowering registries first.

    numba's ``Cache.load_overload`` refreshes the target context before it reads a kernel from
    the cache: it imports some two hundred of numba's modules and installs their templates,
    0.25-0.35 s of a small command, although rebuilding object code needs none of them. What
    the object code links to is set up here instead: the NRT (``rtsys.initialize``), and the hash
    secrets that ``numba.cpython.hashing`` adds to LLVM's symbols when it is imported (the only
    registry module that adds symbols); numba's C helpers come with the context, and a parallel
    kernel starts its threads itself (the cached result's ``reload_init``). A kernel that is not
    in the cache is compiled as before, and the compiler refreshes the context first. A numba
    whose cache or ufunc builder lacks the methods used here keeps its own loading.
    """
    if not all(hasattr(caching.Cache, name) for name in ("_load_overload", "_guard_against_spurious_io_errors")):
        return

    def load_overload(self, sig, target_context):
        if _LEAN_LOADS[0]:
            import numba.cpython.hashing  # noqa: F401  (its LLVM symbols, see above)
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)
        else:
            target_context.refresh()
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload


def _ufuncs_with_registries(ufuncbuilder) -> None:
    """Refresh the target context before a ufunc is built, cached or not: its loop wrapper is
    generated at run time from the context's registries, which cached kernels no longer
    install (:func:`_load_cached_kernels_lean`)."""
    dispatcher = getattr(ufuncbuilder, "UFuncDispatcher", None)
    compile_core = getattr(dispatcher, "_compile_core", None)
    if compile_core is None or not hasattr(dispatcher, "targetdescr"):
        return

    def _compile_core(self, sig, flags, locals):
        self.targetdescr.target_context.refresh()
        return compile_core(self, sig, flags, locals)

    dispatcher._compile_core = _compile_core
    _LEAN_LOADS[0] = True


class _NumbaSetUp(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Loads six of numba's modules in the program's way: four while the optional module each
    probes for cannot be imported, two adjusted once they have run.

    ``numba`` imports scipy to check its version, and ``numba.core.config`` imports yaml to read
    a ``.numba_config.yaml`` (yaml is kept where the working folder has one). numba imports the
    other two when it installs its registries (to compile a kernel):
    ``numba.np.arraymath`` looks for BLAS by importing ``scipy.linalg`` (a large share of a small
    command) and ``numba.core.typing.cffi_utils`` builds a ``cffi.FFI``, for nothing fastmetrics
    calls. Without them numba's ``np.convolve``/``np.correlate`` use their own
    inner-product loop (``np.dot`` and ``np.linalg`` still find scipy when a kernel uses them)
    and jitted code cannot call cffi functions. scipy itself stays importable: only the probe,
    while the probing module runs, is refused.

    ``numba.core.caching`` then loads cached kernels without the registries
    (:func:`_load_cached_kernels_lean`), and ``numba.np.ufunc.ufuncbuilder`` installs them before
    it builds a ufunc (:func:`_ufuncs_with_registries`).
    """

    PROBES = {
        "numba": "scipy",
        "numba.core.config": "yaml",
        "numba.np.arraymath": "scipy.linalg.cython_blas",
        "numba.core.typing.cffi_utils": "cffi",
    }
    ADJUST = {
        "numba.core.caching": _load_cached_kernels_lean,
        "numba.np.ufunc.ufuncbuilder": _ufuncs_with_registries,
    }

    def __init__(self):
        self.loaders = {}

    def find_spec(self, name, path, target=None):
        if name not in self.PROBES and name not in self.ADJUST or name in self.loaders:
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
        blocked = self.PROBES.get(name)
        absent = blocked is not None and blocked not in sys.modules
        if absent:
            sys.modules[blocked] = None  # an ImportError at once, before the package's parents load
        try:
            self.loaders[name].exec_module(module)
        finally:
            if absent and sys.modules.get(blocked, 0) is None:
                del sys.modules[blocked]
        if name in self.ADJUST:
            self.ADJUST[name](module)
        if len(self.loaders) == len(self.PROBES) + len(self.ADJUST) and self in sys.meta_path:
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


def set_up_numba() -> None:
    """Have numba's modules load the program's way (:class:`_NumbaSetUp`).

    That is without numba's probes for optional modules, and cached kernels without its
    registries. It takes effect only where numba is not imported yet.
    """
    if not any(isinstance(f, _NumbaSetUp) for f in sys.meta_path):
        sys.meta_path.insert(0, _NumbaSetUp())


def skip_unused_imports(args) -> None:
    """Keep scipy, cffi, pandas and numba's registries out of the process: no command needs them.

    scipy and cffi are numba's probes, and numba installs its registries before it reads a
    cached kernel (:func:`set_up_numba`); pandas is one of pyarrow's optional uses. Together they
    were most of the start-up of a small command (docs/guides/performance.md). A command that
    compiles a kernel or builds a ufunc still installs numba's registries.

    pyarrow imports pandas where it could meet pandas objects (its first array, ``pyarrow.dataset``,
    which Arrow's group-by and joins load) and goes without it where it is not installed. No
    command converts to or from pandas except the Dask ones (``--scheduler``), whose partitions
    are pandas objects: they keep it.
    """
    set_up_numba()
    if not getattr(args, "scheduler", None) and "pandas" not in sys.modules:
        sys.meta_path.insert(0, _Refuse("pandas"))
