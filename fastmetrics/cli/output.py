"""What a command prints or writes: a table to ``--out`` (atomically) or as a readable table on
stdout, and a job's summary and ``--detail``."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .._errors import ParameterError

if TYPE_CHECKING:
    import pyarrow as pa


# the options that say nothing of the numbers (where and how they are shown)
_NOT_PROVENANCE = {"func", "out", "detail", "quiet", "verbose", "gold_path"}


def _given(args) -> list:
    """The input paths a :func:`provenance` record names: the inputs, then the gold file."""
    gold = getattr(args, "gold_path", None) or getattr(args, "gold", None)
    return list(getattr(args, "inputs", None) or []) + ([gold] if isinstance(gold, str) else [])


def _described_names(path) -> list:
    """The names of the files :func:`_described` describes."""
    import os

    if not isinstance(path, (str, os.PathLike)) or not os.path.exists(path):
        return []
    if os.path.isfile(path):
        return [str(path)]
    # the regular files below a folder: a pipe there is not opened (it would take the reader's data)
    names = sorted(os.path.join(d, f) for d, _, names in os.walk(path) for f in names)
    return [name for name in names if os.path.isfile(name)]


def _described(path) -> list:
    """``[{name, bytes, sha256}]`` of a file, or of every file below a folder; [] for no such path."""
    import hashlib
    import os

    out = []
    for name in _described_names(path):
        digest = hashlib.sha256()
        with open(name, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
        out.append({"name": str(name), "bytes": os.path.getsize(name), "sha256": digest.hexdigest()})
    return out


class _Hashing:
    """The inputs' SHA-256 taken on a thread of their own from the command's start.

    hashlib and file reads release the GIL on blocks this large, so the digests are taken on the
    second core while the command imports its libraries (single-threaded) and counts, instead of
    after the count, where a large input's digest added to the command's time. A path is
    described again, in the caller's thread, when its digest failed, or a file below it changed
    (identity, size, modification or change time) or came or went since.
    """

    def __init__(self, paths: list):
        from .._threads import in_background

        self.paths = [str(p) for p in paths]
        self.done: dict = {}
        self.thread = in_background(self._run, "provenance-sha256")

    @staticmethod
    def _stamps(path) -> list:
        """Each file's name, identity and change time: ``st_ctime_ns`` moves on every write, rename
        or ``utime``, which a copy that keeps the size and the modification time does not hide."""
        import os

        stamps = []
        for name in _described_names(path):
            try:
                stat = os.stat(name)
            except OSError:
                return []
            stamps.append((name, stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns))
        return stamps

    def _run(self) -> None:
        for path in self.paths:
            try:
                before = self._stamps(path)
                records = _described(path)
                if before and before == self._stamps(path):
                    self.done[path] = (records, before)
            except Exception:  # noqa: BLE001 -- the caller's own pass raises it where it can be named
                return

    def described(self, path) -> list:
        self.thread.join()
        records, stamps = self.done.get(str(path), (None, None))
        if records is None or self._stamps(path) != stamps:
            return _described(path)
        return records


_EARLY: list = [None]  # (args, _Hashing) of the last command that started one


def hash_inputs_early(args) -> None:
    """Start taking the inputs' SHA-256 on a thread of its own (:class:`_Hashing`).

    Only for a command that will write a :func:`provenance` record: an ``--out`` file, a report.
    """
    if not (getattr(args, "out", None) or getattr(args, "command", None) == "report"):
        return
    paths = _given(args)
    if paths:
        _EARLY[0] = (args, _Hashing(paths))


def forget_inputs_hashing() -> None:
    """Drop the last command's digests and its arguments.

    The arguments hold the command's gold table once it is read; :func:`fastmetrics.cli.main`
    calls this as a command ends.
    """
    _EARLY[0] = None


def provenance(args) -> dict:
    """How a command's numbers were made.

    The fastmetrics version, the command, its profile and options, and each input's name, size
    and SHA-256 (a folder: each file below it).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line.

    Returns
    -------
    dict
        JSON-ready: ``fastmetrics``, ``command``, ``profile``, ``options``, ``inputs``.
    """
    from .._version import __version__

    early = _EARLY[0]
    describe = early[1].described if early is not None and early[0] is args else _described
    gold = getattr(args, "gold_path", None) or getattr(args, "gold", None)
    options = {k: v for k, v in vars(args).items() if k not in _NOT_PROVENANCE and k != "inputs"}
    options = {k: v for k, v in options.items() if isinstance(v, (str, int, float, bool, type(None), list))}
    if isinstance(gold, str):
        options["gold"] = gold
    return {
        "fastmetrics": __version__,
        "command": getattr(args, "command", None),
        "profile": getattr(args, "profile", None),
        "options": options,
        "inputs": [record for path in _given(args) for record in describe(path)],
    }


def emit(table: pa.Table, out: str | None, wide: bool = True, args=None) -> None:
    """Write ``table`` to ``out`` in the format of its suffix, or print it.

    Printed, a tidy table shows one column per measure when ``wide``; written, with the
    :func:`provenance` of ``args`` when given.
    """
    from ..report import format_table, pivot_measures, write_table

    if out:
        write_table(table, out, provenance=None if args is None else provenance(args))
        print(f"wrote {table.num_rows} rows to {out}", file=sys.stderr)
    else:
        shown = pivot_measures(table) if wide and "measure" in table.column_names else table
        sys.stdout.write(format_table(shown, max_rows=200))


def say(lines: list, out: str | None) -> None:
    """What a command did, above its printed table, or on stderr when the table goes to ``out``."""
    import textwrap

    for line in lines:
        if out:
            print(f"fastmetrics: {line[0].lower()}{line[1:]}", file=sys.stderr)
        else:
            print(textwrap.fill(line, 120, break_on_hyphens=False, break_long_words=False))


def emit_result(result, args) -> None:
    """Write a job's result (its columns named after the user's columns, as the jobs name them)."""
    write_detail(result, args)
    if args.command == "leaderboard" and "kind" in result.summary.column_names:
        emit_board(result, args.out, args.long, args.system, getattr(args, "heading", []), args)
        return
    emit(result.summary, args.out, wide=False, args=args)


def write_detail(result, args) -> None:
    """Write a job's detail table to --detail, if asked."""
    from ..report import write_table

    if args.detail:
        if result.detail is None:
            raise ParameterError("This job has no detail table; drop --detail.")
        write_table(result.detail, args.detail)
        print(f"wrote {result.detail.num_rows} rows to {args.detail}", file=sys.stderr)


def emit_board(result, out: str | None, long: bool, system: str, heading: list, args=None) -> None:
    """Print a leaderboard ranked, or write it to ``out`` in the same layout.

    The ``heading`` lines (what it ranks by, the baselines it adds) go above the printed board, or
    to stderr with ``out``; ``long`` writes the tidy table instead. ``args`` (the parsed command
    line) goes into a Parquet or CSV file's :func:`provenance`.
    """
    from .._show import board_view
    from ..report.boards import write_board
    from ..report.tables import format_board

    summary = result.summary
    if out and long:
        emit(summary, out, wide=False, args=args)
    elif out:
        write_board(summary, out, system, result.params, None if args is None else provenance(args))
        print(f"wrote the leaderboard to {out}", file=sys.stderr)
    say(heading, out)
    if not out:
        sys.stdout.write(format_board(board_view(summary, system), max_rows=200))
