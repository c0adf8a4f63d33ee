"""Paths and formats: folders and globs expanded to input files (what is not a run skipped, with the
reason), and each file's format told by its suffix or its first data line."""

from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import pyarrow as pa

from .._errors import InputError
from .._formats import INPUT_FORMATS

PARQUET_SUFFIXES = {".parquet", ".pq", ".parq"}


CSV_SUFFIXES = {".csv"}


IPC_SUFFIXES = {".arrow", ".feather", ".ipc"}


COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}


FORMATS = INPUT_FORMATS


# What pyarrow raises when it cannot read a file: every error of its own (ArrowInvalid,
# ArrowNotImplementedError for a damaged embedded schema, ...) and the operating system's.
ARROW_ERRORS = (pa.ArrowException, OSError)


# What a folder holds beside its runs: skipped when a folder (or a glob) is expanded.
SKIPPED_SUFFIXES = {
    ".md",
    ".rst",
    ".pdf",
    ".score",
    ".tab",
    ".tex",
    ".html",
    ".htm",
    ".log",
    ".json",
    ".yaml",
    ".yml",
    ".xml",
    ".py",
    ".pyc",
    ".sh",
    ".pl",
    ".ipynb",
    ".png",
    ".jpg",
    ".jpeg",
    ".gif",
    ".svg",
    ".doc",
    ".docx",
    ".zip",
    ".tar",
    ".tgz",
    ".7z",
}


SKIPPED_STEMS = ("license", "licence", "copying", "notice", "changelog", "changes", "authors")


TRUE_WORDS = (b"true", b"True", b"1")


FALSE_WORDS = (b"false", b"False", b"0")


NUMBER_FIELD = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|(?i:inf|infinity|nan))")


BOM = b"\xef\xbb\xbf"


def run_system_name(path: str | os.PathLike) -> str:
    """Name the system of a run file after its folder and file stem.

    Parameters
    ----------
    path : str or os.PathLike
        Path of a run file.

    Returns
    -------
    str
        ``<parent folder>/<file stem>``, or the stem alone when the path has no parent folder
        (``runs/teamA.txt`` gives ``runs/teamA``).
    """
    p = Path(path)
    return f"{p.parent.name}/{p.stem}" if p.parent.name else p.stem


# -- paths ---------------------------------------------------------------------------------------
def expand_paths(paths, skipped: list | None = None, *, kind: str = "runs") -> list[str]:
    """Expand a path, a folder of run files, a glob, or a sequence of those, in sorted order.

    A folder keeps its input files and skips the rest: hidden files and folders, README and
    licence files, documents and scorer outputs (``.md``, ``.pdf``, ``.score``, ``.tab``, ...),
    and text files whose first data line is not a line of a run (``kind="runs"``) or of a gold
    file (``kind="gold"``), e.g. the official score tables. A glob skips by name only; a file
    given by name is always read. ``skipped``, if given, receives one ``(path, reason)`` per
    skipped file (see :func:`list_inputs`).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    skipped = [] if skipped is None else skipped
    out: list[str] = []
    for item in paths:
        item = os.fspath(item)
        if any(ch in item for ch in "*?["):
            matches = sorted(m for m in glob.glob(item, recursive=True) if os.path.isfile(m))
            if not matches:
                raise InputError(f"No file matches the pattern '{item}'.")
            kept = _keep(matches, skipped, kind, by_content=False)
            if not kept:
                raise InputError(f"No input file matches the pattern '{item}': {_skip_summary(skipped, matches)}.")
            out.extend(kept)
        elif os.path.isdir(item) and not _is_parquet_dir(item):
            files = []
            for root, dirs, names in os.walk(item):
                for d in sorted(dirs):
                    if d.startswith("."):
                        skipped.append((os.path.join(root, d), "hidden folder"))
                dirs[:] = [d for d in dirs if not d.startswith(".")]
                files.extend(os.path.join(root, f) for f in names)
            files.sort()
            kept = _keep(files, skipped, kind, by_content=True)
            if not kept:
                detail = f": {_skip_summary(skipped, files)}" if files else ""
                raise InputError(f"The folder '{item}' holds no input file{detail}.")
            out.extend(kept)
        elif os.path.exists(item):
            out.append(item)
        else:
            raise InputError(f"Cannot read '{item}': no such file or folder.")
    return out


def list_inputs(paths, *, kind: str = "runs") -> tuple[list[str], list[tuple[str, str]]]:
    """List the input files a path, folder or glob expands to, and the files it leaves out.

    The same expansion as every reader (:func:`expand_paths`), with the reason each skipped file
    was skipped, e.g. for a verbose listing.

    Parameters
    ----------
    paths : str, path, or sequence of them
        Files, folders or glob patterns.
    kind : {"runs", "gold"}, default "runs"
        What a text file found in a folder must look like to be kept: a run or a gold file.

    Returns
    -------
    kept : list of str
        The files that are read, in sorted order per path given.
    skipped : list of (str, str)
        ``(path, reason)`` of each file or hidden folder left out.
    """
    skipped: list = []
    kept = expand_paths(paths, skipped, kind=kind)
    return kept, skipped


def _keep(files, skipped, kind, by_content):
    kept = []
    for path in files:
        reason = _skip_reason(path, kind, by_content)
        if reason is None:
            kept.append(path)
        else:
            skipped.append((path, reason))
    return kept


def _skip_summary(skipped, files, shown=3) -> str:
    files = set(files)
    mine = [(p, r) for p, r in skipped if p in files]
    text = "; ".join(f"{os.path.basename(p)} ({r})" for p, r in mine[:shown])
    more = f"; {len(mine) - shown} more" if len(mine) > shown else ""
    return f"skipped {text}{more}"


def _skip_reason(path: str, kind: str, by_content: bool) -> str | None:
    """Why a file found in a folder (or by a glob) is not an input, or None."""
    name = os.path.basename(path)
    if name.startswith("."):
        return "hidden file"
    stem = name.lower().split(".")[0]
    if stem.startswith("readme") or stem in SKIPPED_STEMS:
        return "README or licence"
    suffix = Path(name).suffix.lower()
    if suffix in SKIPPED_SUFFIXES:
        return f"'{suffix}' file"
    if not by_content or _table_suffix(path):
        return None
    first = _first_data_line(path)  # an unreadable file is an error, not a skip
    if first is None:
        return "no data line"
    number, fields = first
    if b"\0" in b"".join(fields):
        return "binary file"
    if _shape(fields, kind) is None:
        if kind == "runs" and _shape(fields, "gold") == "qrels":
            return f"TREC qrels (gold), not a run: line {number} is {show_line(b' '.join(fields))}"
        wanted = "a run" if kind == "runs" else "a gold file"
        return f"not {wanted}: line {number} is {show_line(b' '.join(fields))}"
    return None


def _table_suffix(path: str) -> bool:
    suffix = Path(path).suffix.lower()
    return suffix in PARQUET_SUFFIXES or suffix in CSV_SUFFIXES or suffix in IPC_SUFFIXES


def _shape(fields, kind: str) -> str | None:
    """The text format a data line's fields fit (``run``, ``trec``, ``qrels``) for ``kind``."""
    n = len(fields)

    def number(i):
        return NUMBER_FIELD.fullmatch(fields[i]) is not None

    if kind == "runs":
        if n == 6 and number(3) and number(4):
            return "trec"
        if (
            n == 5
            and number(3)
            and number(4)
            and fields[1].lower() == b"q0"
            and fields[4] not in TRUE_WORDS + FALSE_WORDS
        ):
            return "trec"
        if n == 5 and number(2) and number(3):
            return "run"
        return None
    if n == 5 and number(2) and number(3):
        return "run"
    if n == 4 and number(3):
        return "qrels"
    return None


def _is_parquet_dir(path: str) -> bool:
    for _root, _, names in os.walk(path):
        if any(Path(n).suffix in PARQUET_SUFFIXES for n in names):
            return True
    return False


def detect_format(path: str) -> str:
    """Detect the format of an input file, by suffix or by its first data line.

    Parquet (and folders), CSV and Arrow go by suffix. A text file goes by its first data line:
    6 fields with a numeric rank and score (or 5 with ``Q0`` second and no label last) is a TREC
    run, 4 fields with a numeric last one TREC qrels, anything else a ``topic item rank score
    label`` run file (whose reader then names the line that does not fit).
    """
    suffix = Path(path).suffix.lower()
    if os.path.isdir(path) or suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in IPC_SUFFIXES:
        return "ipc"
    first = _first_data_line(path)
    if first is None:
        return "run"
    shape = _shape(first[1], "runs") or _shape(first[1], "gold")
    return shape if shape in ("trec", "qrels") else "run"


# -- text files ------------------------------------------------------------------------------------
def _open_bytes(path: str):
    compression = COMPRESSED_SUFFIXES.get(Path(path).suffix.lower())
    if compression:
        return pa.input_stream(path, compression=compression)
    return open(path, "rb")


def read_bytes(path: str) -> bytes:
    """The bytes of a file, decompressed by its suffix; an unreadable file is an ``InputError``."""
    try:
        with _open_bytes(path) as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(f"Cannot read '{path}': {getattr(exc, 'strerror', None) or exc}.") from None
    except pa.ArrowException as exc:
        raise InputError(f"Cannot read '{path}': {arrow_reason(exc)}") from None


def _first_data_line(path: str, chunk: int = 1 << 16):
    """``(line number, fields)`` of the first line that is neither blank nor a ``#`` comment, or
    None; reads only as much of the file as it takes."""
    try:
        with _open_bytes(path) as fh:
            head = b""
            while True:
                block = fh.read(chunk)
                head += block
                lines = head.splitlines()
                if block and lines and not head.endswith((b"\n", b"\r")):
                    lines = lines[:-1]  # the last line may go on in the next block
                for number, line in enumerate(lines, 1):
                    if number == 1 and line.startswith(BOM):
                        line = line[3:]
                    fields = line.split()
                    if fields and not fields[0].startswith(b"#"):
                        return number, fields
                if not block:
                    return None
                chunk *= 2
    except OSError as exc:
        raise InputError(f"Cannot read '{path}': {getattr(exc, 'strerror', None) or exc}.") from None
    except pa.ArrowException as exc:
        raise InputError(f"Cannot read '{path}': {arrow_reason(exc)}") from None


def show_line(line: bytes, width: int = 60) -> str:
    """A line of text as a message quotes it: decoded, stripped, cut at ``width`` characters."""
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= width else text[:width] + "...")


def arrow_reason(exc: Exception) -> str:
    """What a pyarrow error says, as the end of a message."""
    return str(exc).strip().splitlines()[0].rstrip(".") + "."
