"""Readers: every supported input becomes an Arrow table or a stream of Arrow record batches.

Supported: ``pyarrow.Table`` / ``RecordBatch``, pandas and polars DataFrames (through the Arrow
interface, neither is a dependency), Parquet files and dataset folders (streamed by record batch),
CSV, Arrow IPC/Feather, and the text formats shared tasks publish:

- ``run``: SemEval-2016-Task-3-style run files, ``topic item rank score label`` per line, one
  system per file, named ``<parent>/<stem>``;
- ``trec``: TREC runs, ``qid Q0 docno rank score tag`` (system = the tag, or the file's name when
  the line has no tag), with a score and no hard label;
- ``qrels``: TREC relevance judgements as gold, ``qid iter docno rel``, graded relevance made
  binary as ``rel >= relevance_level``.

Text files are read as the official SemEval scorer reads them (``line.split()``): fields are
separated by any run of spaces or tabs, leading and trailing blanks, blank lines and lines
starting with ``#`` are skipped, a UTF-8 byte-order mark and CRLF line ends are accepted, and
``.gz``/``.bz2``/``.zst`` files are decompressed. Every error names the file and the line.
"""

from __future__ import annotations

import collections
import concurrent.futures
import dataclasses
import glob
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numba
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .._errors import InputError, parameter_error
from .._formats import INPUT_FORMATS
from .._threads import on_threads
from .labels import not_text_error, not_utf8, value_at
from .native import attempt, enabled
from .native import parquet as native_parquet
from .native import text as native_text
from .native.csv import CONVERT, SAMPLE_BYTES, plain_sample, read_plain_csv

RUN_COLUMNS = ("topic", "item", "rank", "score", "label")
PARQUET_SUFFIXES = {".parquet", ".pq", ".parq"}
CSV_SUFFIXES = {".csv"}
IPC_SUFFIXES = {".arrow", ".feather", ".ipc"}
COMPRESSED_SUFFIXES = {".gz": "gzip", ".bz2": "bz2", ".zst": "zstd"}
FORMATS = INPUT_FORMATS
BATCH_ROWS = 1 << 20
READAHEAD = 4
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


# -- the text layouts --------------------------------------------------------------------------
@dataclass(frozen=True)
class _Layout:
    """One line layout of a text format: field names in file order, their types, the kept ones."""

    what: str  # how messages name the file: "run file", "TREC run", "TREC qrels"
    fields: tuple  # (name, kind) in file order; kind: "string", "number", "bool", None = ignored
    expected: str  # the line as messages describe it

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.fields]

    @property
    def kept(self) -> list[str]:
        return [name for name, kind in self.fields if kind is not None]

    def arrow_types(self) -> dict:
        kinds = {"string": pa.string(), "number": pa.float64(), "bool": pa.bool_()}
        return {name: kinds[kind] for name, kind in self.fields if kind is not None}


SEMEVAL = _Layout(
    "run file",
    (("topic", "string"), ("item", "string"), ("rank", "number"), ("score", "number"), ("label", "bool")),
    "'topic item rank score label'",
)
TREC_RUN = _Layout(
    "TREC run",
    (
        ("topic", "string"),
        ("q0", None),
        ("item", "string"),
        ("rank", "number"),
        ("score", "number"),
        ("system", "string"),
    ),
    "'qid Q0 docno rank score tag'",
)
TREC_RUN_UNTAGGED = _Layout("TREC run", TREC_RUN.fields[:5], "'qid Q0 docno rank score' (no tag)")
QRELS = _Layout(
    "TREC qrels",
    (("topic", "string"), ("iteration", None), ("item", "string"), ("relevance", "number")),
    "'qid iter docno rel'",
)

_NUMBER = re.compile(rb"[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|(?i:inf|infinity|nan))")
_BOM = b"\xef\xbb\xbf"
_TO_TAB = bytes.maketrans(b" \x0b\x0c", b"\t\t\t")
_COMMENT = re.compile(rb"(^|[\r\n])#[^\r\n]*")
_NOT_NEWLINE = re.compile(rb"[^\r\n]")
_NEWLINE = re.compile(rb"[\r\n]")


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
            return f"TREC qrels (gold), not a run: line {number} is {_show(b' '.join(fields))}"
        wanted = "a run" if kind == "runs" else "a gold file"
        return f"not {wanted}: line {number} is {_show(b' '.join(fields))}"
    return None


def _table_suffix(path: str) -> bool:
    suffix = Path(path).suffix.lower()
    return suffix in PARQUET_SUFFIXES or suffix in CSV_SUFFIXES or suffix in IPC_SUFFIXES


def _shape(fields, kind: str) -> str | None:
    """The text format a data line's fields fit (``run``, ``trec``, ``qrels``) for ``kind``."""
    n = len(fields)

    def number(i):
        return _NUMBER.fullmatch(fields[i]) is not None

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


def _read_bytes(path: str) -> bytes:
    try:
        with _open_bytes(path) as fh:
            return fh.read()
    except OSError as exc:
        raise InputError(f"Cannot read '{path}': {getattr(exc, 'strerror', None) or exc}.") from None
    except pa.ArrowException as exc:
        raise InputError(f"Cannot read '{path}': {_arrow_reason(exc)}") from None


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
                    if number == 1 and line.startswith(_BOM):
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
        raise InputError(f"Cannot read '{path}': {_arrow_reason(exc)}") from None


def _normalised(data: bytes) -> tuple[bytes, str]:
    """``(text, delimiter)``: the text with every run of blanks (space, tab, VT, FF) made one
    delimiter, leading and trailing blanks, a byte-order mark and ``#`` comment lines removed:
    what ``line.split()`` sees, in a form a single-delimiter CSV parser reads. Vectorised (numpy
    masks over the bytes); the line breaks are kept, so blank lines stay blank. The delimiter is
    a space for files with spaces only (TREC runs), a tab otherwise."""
    if data.startswith(_BOM):
        data = data[3:]
    if not data:
        return data, "\t"
    a = np.frombuffer(data, np.uint8)
    present = [byte[0] for byte in (b"\t", b" ", b"\x0b", b"\x0c") if byte in data]  # memchr each
    blank = a == (present[0] if present else 9)
    for byte in present[1:]:
        blank |= a == byte
    # a file with one kind of blank keeps it as the delimiter; several kinds become tabs
    single = len(present) == 1 and present[0] in (9, 32)
    delimiter, spaced = (chr(present[0]), False) if single else ("\t", bool(present))
    end = (a == 10) | (a == 13)
    # a blank followed by a blank or a line end goes: a run keeps its last blank, trailing blanks vanish
    drop = np.empty_like(blank)
    np.logical_and(blank[:-1], blank[1:] | end[1:], out=drop[:-1])
    drop[-1] = blank[-1]
    leading = bool(blank[0]) or bool((blank[1:] & end[:-1]).any())
    out = a[~drop].tobytes() if drop.any() else data
    if spaced:
        out = out.translate(_TO_TAB)
    if leading:  # rare: what is left of a leading run is one delimiter after a line end
        a = np.frombuffer(out, np.uint8)
        drop = a == ord(delimiter)
        drop[1:] &= (a[:-1] == 10) | (a[:-1] == 13)
        out = a[~drop].tobytes()
    if b"#" in out:
        a = np.frombuffer(out, np.uint8)
        hashes = a == 35
        if hashes[0] or (hashes[1:] & ((a[:-1] == 10) | (a[:-1] == 13))).any():
            out = _COMMENT.sub(rb"\1", out)
    return out, delimiter


def _show(line: bytes, width: int = 60) -> str:
    text = line.decode("utf-8", "replace").strip()
    return repr(text if len(text) <= width else text[:width] + "...")


def _where(layout: _Layout, path: str, number: int | None = None) -> str:
    return f"Cannot read {layout.what} '{path}'" + (f", line {number}" if number is not None else "")


def _locate_error(data: bytes, path: str, layouts: dict, layout: _Layout) -> InputError | None:
    """The first line that does not fit ``layout`` (the slow path, taken only when Arrow fails),
    as a one-line error naming the file, the line and what was expected."""
    if data.startswith(_BOM):
        data = data[3:]
    n_fields = len(layout.fields)
    first = None
    for number, line in enumerate(data.splitlines(), 1):
        fields = line.split()
        if not fields or fields[0].startswith(b"#"):
            continue
        if first is None:
            first = number
            if len(fields) not in layouts:
                counts = " or ".join(str(n) for n in sorted(layouts))
                return InputError(
                    f"{_where(layout, path, number)}: expected {counts} fields {layout.expected}, "
                    f"found {len(fields)}: {_show(line)}."
                )
        if len(fields) != n_fields:
            like = f" (as on line {first})" if len(layouts) > 1 else ""
            return InputError(
                f"{_where(layout, path, number)}: expected {n_fields} fields {layout.expected}{like}, "
                f"found {len(fields)}: {_show(line)}."
            )
        for (name, kind), value in zip(layout.fields, fields):
            if kind == "string":
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    return InputError(
                        f"{_where(layout, path, number)}: the {name} {_show(value)} is not UTF-8 "
                        f"text (expected lines {layout.expected})."
                    )
            elif kind == "number" and _NUMBER.fullmatch(value) is None:
                return InputError(
                    f"{_where(layout, path, number)}: the {name} {_show(value)} is not a number "
                    f"(expected lines {layout.expected})."
                )
            elif kind == "bool" and value not in TRUE_WORDS + FALSE_WORDS:
                return InputError(
                    f"{_where(layout, path, number)}: the {name} {_show(value)} is not true or false "
                    f"(expected lines {layout.expected})."
                )
    return None


def _read_text(path: str, layouts: dict, native: bool | None = None) -> tuple[pa.Table, _Layout]:
    """Read a whitespace-separated text file with the layout whose field count the first data line
    has (``layouts``: {field count: layout}; the first is the default): by the native reader
    unless it is off (``native``, see :func:`fastmetrics.io.native.enabled`) or gives up."""
    fast = attempt(_read_plain_file, path, layouts) if enabled(native) else None
    if fast is not None:
        return fast
    data = _read_bytes(path)
    text, delimiter = _normalised(data)
    default = next(iter(layouts.values()))
    first = _NOT_NEWLINE.search(text)
    if first is None:
        raise InputError(
            f"{_where(default, path)}: the file has no data line (only blank lines and '#' comments); "
            f"expected lines {default.expected}."
        )
    line_end = _NEWLINE.search(text, first.start())
    stop = len(text) if line_end is None else line_end.start()
    layout = layouts.get(text.count(delimiter.encode(), first.start(), stop) + 1, default)
    try:
        table = pacsv.read_csv(
            pa.BufferReader(text),
            read_options=pacsv.ReadOptions(column_names=layout.names),
            parse_options=pacsv.ParseOptions(delimiter=delimiter, quote_char=False, ignore_empty_lines=True),
            convert_options=pacsv.ConvertOptions(
                column_types=layout.arrow_types(),
                include_columns=layout.kept,
                true_values=[w.decode() for w in TRUE_WORDS],
                false_values=[w.decode() for w in FALSE_WORDS],
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except ARROW_ERRORS as exc:
        error = _locate_error(data, path, layouts, layout)
        if error is None:
            error = InputError(f"{_where(layout, path)}: {_arrow_reason(exc)} (expected lines {layout.expected}).")
        raise error from None
    return table, layout


def _read_plain_file(path: str, layouts: dict):
    """:func:`_read_plain_text` of a file: an uncompressed one mapped in memory (the threads read
    its pages, nothing is copied first), a compressed one decompressed."""
    import mmap

    if COMPRESSED_SUFFIXES.get(Path(path).suffix.lower()):
        return _read_plain_text(_read_bytes(path), layouts)
    try:
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                return None
            mapped = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None  # the general reader names the problem
    return _read_plain_text(mapped, layouts)


def _read_plain_text(data: bytes, layouts: dict):
    """``(table, layout)`` of a plain text file by :mod:`.native.text`'s reader, or None when the file
    is not plain (or its layout has a boolean field): Arrow's parser then reads it and names any error."""
    first = native_text.first_field_count(np.frombuffer(data, np.uint8)[3 if data[:3] == _BOM else 0 :])
    layout = layouts.get(first)
    kinds = {"string": native_text.STRING, "number": native_text.NUMBER, None: native_text.IGNORED}
    if layout is None or any(kind not in kinds for _, kind in layout.fields):
        return None
    arrays = native_text.read_fields(data, [kinds[kind] for _, kind in layout.fields])
    return None if arrays is None else (pa.table(dict(zip(layout.kept, arrays))), layout)


def read_run_file(path: str, *, label_name: str = "pred", native: bool | None = None) -> pa.Table:
    """Read one ``topic item rank score label`` run file.

    Fields are separated by any run of spaces or tabs (as the SemEval scorer's ``line.split()``);
    the rank is read as a number (``1``, ``1.0``, ``0.00E+00``) and kept as float64, it counts
    for nothing. The label is ``true``/``false`` (or ``1``/``0``).

    Parameters
    ----------
    path : str
        The file; ``.gz``, ``.bz2`` and ``.zst`` files are decompressed.
    label_name : str, default "pred"
        Name of the label column: ``"pred"`` for a run, ``"gold"`` for a gold file in the same
        layout.
    native : bool, optional
        False reads the file with pyarrow's CSV parser only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, rank, score, <label_name>``.
    """
    layout = replace(SEMEVAL, what="gold file") if label_name == "gold" else SEMEVAL
    table, _ = _read_text(path, {5: layout}, native)
    return table.rename_columns(["topic", "item", "rank", "score", label_name])


def read_trec_run(path: str, *, native: bool | None = None) -> pa.Table:
    """Read one TREC run, ``qid Q0 docno rank score tag`` per line.

    The ``Q0`` field is ignored; a TREC run has scores and no hard label.

    Parameters
    ----------
    path : str
        The run file; lines of 5 fields (no tag) are accepted.
    native : bool, optional
        False reads the file with pyarrow's CSV parser only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, rank, score, system``: topic = qid, item = docno, system = the tag, or
        the file's ``<parent>/<stem>`` when the lines have no tag.
    """
    table, _ = _read_text(path, {6: TREC_RUN, 5: TREC_RUN_UNTAGGED}, native)
    if "system" not in table.column_names:
        table = table.append_column("system", pa.array([run_system_name(path)] * table.num_rows, pa.string()))
    return table


def read_qrels(path: str, *, relevance_level: float = 1, native: bool | None = None) -> pa.Table:
    """Read TREC qrels, ``qid iter docno rel`` per line, as a binary gold table.

    Parameters
    ----------
    path : str
        The qrels file.
    relevance_level : number, default 1
        Lowest relevance grade that counts as relevant: ``gold = rel >= relevance_level``
        (graded judgements made binary, as ``trec_eval -l``).
    native : bool, optional
        False reads the file with pyarrow's CSV parser only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, gold`` with topic = qid, item = docno and a boolean gold.
    """
    level = _relevance_level(relevance_level)
    table, _ = _read_text(path, {4: QRELS}, native)
    gold = pc.greater_equal(table.column("relevance"), pa.scalar(level, pa.float64()))
    return pa.table({"topic": table.column("topic"), "item": table.column("item"), "gold": gold})


def _relevance_level(level) -> float:
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, (int, float, np.integer, np.floating))
        or not np.isfinite(level)
    ):
        raise parameter_error("relevance_level", "read_gold", "a finite number (rel >= level is relevant)", level)
    return float(level)


def _graded_gold(table: pa.Table, column: str, level: float, names) -> pa.Table:
    """A numeric gold column made binary at ``level`` (qrels are made so when read: bool)."""
    if column not in table.column_names or pa.types.is_boolean(table.column(column).type):
        return table
    kind = table.column(column).type
    if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind)):
        raise InputError(
            f"--relevance-level (relevance_level) makes numeric relevance grades binary; column '{column}' of the "
            f"gold {', '.join(names)} has type {kind}. Drop it, or give the grades as numbers."
        )
    binary = pc.greater_equal(pc.cast(table.column(column), pa.float64()), pa.scalar(level, pa.float64()))
    return table.set_column(table.column_names.index(column), column, binary)


def _arrow_reason(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0].rstrip(".") + "."


# CSV is parsed in blocks of this many bytes, one per thread at a time: large blocks keep the
# columns in few chunks, which the count stage codes on every thread.
CSV_BLOCK = SAMPLE_BYTES


class CsvFile:
    """A CSV file opened: its column names and types now, its values when a column is read.

    The types are those pyarrow infers from the file's first block (``SAMPLE_BYTES``). A file the
    plain parser reads (:mod:`fastmetrics.io.native.csv`) has only the columns asked for parsed -- a
    count of hard labels does not parse the scores, as DuckDB's and polars' readers do not -- and
    the last table read is kept, so the passes of one count parse the file once; any other file
    (small, compressed, another dialect) is read whole by pyarrow when opened.

    Parameters
    ----------
    path : str
        The file (uncompressed, or compressed as its suffix says).
    native : bool, default True
        False reads it with pyarrow only.
    """

    def __init__(self, path: str, native: bool = True):
        self.path = path
        plain = native and Path(path).suffix.lower() not in COMPRESSED_SUFFIXES
        self._sample = attempt(plain_sample, path) if plain else None
        self._table = None if self._sample is not None else self._pyarrow(None)
        self.schema = (self._sample if self._sample is not None else self._table).schema

    @property
    def lazy(self) -> bool:
        """Whether columns are parsed when asked for (False: the file was read when opened)."""
        return self._sample is not None

    def to_table(self, columns: Sequence[str] | None = None) -> pa.Table:
        """The ``columns`` (all of them by default) as a table."""
        if columns is None and self._table is not None and self._table.num_columns == len(self.schema):
            return self._table  # as read: columns of one name (refused by the caller) stay apart
        columns = list(self.schema.names if columns is None else columns)
        if self._table is None or not set(columns) <= set(self._table.column_names):
            kept = [] if self._table is None else self._table.column_names
            wanted = [c for c in self.schema.names if c in set(columns) | set(kept)]
            self._table = self._read(wanted or self.schema.names[:1])
        return self._table.select(columns)

    def count_rows(self) -> int:
        """The number of rows (the file is read for it unless a column was read already)."""
        return self.to_table([] if self._table is not None else self.schema.names[:1]).num_rows

    def _read(self, columns: list) -> pa.Table:
        table = attempt(read_plain_csv, self.path, self._sample, columns)
        return table if table is not None else self._pyarrow(columns)

    def _pyarrow(self, columns: list | None) -> pa.Table:
        """pyarrow's reading of the file (``columns`` None: all of them, with the types it infers
        from the first block; else those columns, with the sample's types)."""
        options = CONVERT
        if columns is not None:
            options = pacsv.ConvertOptions(
                strings_can_be_null=CONVERT.strings_can_be_null,
                null_values=CONVERT.null_values,
                check_utf8=CONVERT.check_utf8,
                include_columns=columns,
                column_types=self._sample.schema,
            )
        try:
            table = pacsv.read_csv(self.path, read_options=_CSV_READ, convert_options=options)
        except ARROW_ERRORS as exc:
            raise InputError(f"Cannot read CSV file '{self.path}': {_arrow_reason(exc)}") from None
        for name, column in zip(table.column_names, table.columns):
            bad = not_utf8(column.combine_chunks())
            if bad is not None:
                raise not_text_error(name, self.path, int(np.argmax(bad)), _value(column, int(np.argmax(bad))))
        return table


_CSV_READ = pacsv.ReadOptions(block_size=CSV_BLOCK)


def _value(column, row: int):
    return value_at(column.combine_chunks(), row)[0]


def _read_ipc(path: str) -> pa.Table:
    import pyarrow.feather as feather

    try:
        return feather.read_table(path)
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Arrow file '{path}': {_arrow_reason(exc)}") from None


@dataclass
class Source:
    """A table to be read once or several times, possibly streamed by record batch.

    A Parquet dataset is never loaded whole: :meth:`batches` and :meth:`record_batches` stream it
    with only the requested columns. Built by :func:`open_source`.

    Parameters
    ----------
    parts : list of pyarrow.Table, CsvFile or pyarrow.dataset.Dataset
        The input's parts, all with the same column names: in-memory tables, CSV files (parsed
        when their columns are read) or Parquet datasets.
    names : list of str
        One name per part, used in error messages (a file's path, ``"<table>"`` for an object).
    native : bool, default True
        Whether Parquet files are decoded by fastmetrics' own reader (and their footers'
        statistics used), or by pyarrow only.

    Columns are read by the names the input gives them: the count stage takes the columns
    playing each part by those names and never renames an input.
    """

    parts: list
    names: list[str]
    native: bool = True
    # the reading's state: False once statistics were found to lie (none used again); the
    # statistics handed out, checked as batches pass; each file's footer read natively (or None);
    # the ranges of hinted columns found on the decoding threads, by batch
    trust_statistics: bool = dataclasses.field(default=True, init=False)
    hints: dict = dataclasses.field(default_factory=dict, init=False)
    footers: dict = dataclasses.field(default_factory=dict, init=False, repr=False)
    ranges: dict = dataclasses.field(default_factory=dict, init=False, repr=False)

    @property
    def column_names(self) -> list[str]:
        """Column names of the input (those of its first part)."""
        return list(self.schema.names)

    def batches(self, columns: Sequence[str] | None = None) -> Iterator[tuple[str, pa.Table]]:
        """Yield ``(part name, table)`` chunks holding only ``columns``.

        Dictionary-encoded columns (pandas categoricals, fastmetrics' own tidy outputs) are
        decoded; ``None`` reads every column.
        """
        for name, _, batch in self.record_batches(self.column_names if columns is None else columns):
            yield name, _decoded(pa.Table.from_batches([batch]))

    def read_all(self, columns: Sequence[str] | None = None) -> pa.Table:
        """Read the whole input (or only ``columns``) into one table; an empty input is an error."""
        tables = [t for _, t in self.batches(columns)]
        if not tables:
            raise InputError("The input has no rows.")
        return pa.concat_tables(tables, promote_options="default")

    @property
    def schema(self) -> pa.Schema:
        """Arrow schema of the input (that of its first part)."""
        return self.parts[0].schema

    def count_rows(self) -> int:
        """Number of rows over all parts (Parquet: from the metadata, without reading the data)."""
        total = 0
        for name, part in zip(self.names, self.parts):
            try:
                total += part.num_rows if isinstance(part, pa.Table) else part.count_rows()
            except ARROW_ERRORS as exc:
                raise InputError(f"Cannot read Parquet data '{name}': {_arrow_reason(exc)}") from None
        return total

    def encode_strings(self, columns: Sequence[str]) -> None:
        """Dictionary-encode the string ``columns`` of in-memory parts, in place.

        The survey then reads their dictionaries and the counting their indices, so each string is
        hashed once.
        """
        for i, part in enumerate(self.parts):
            if not isinstance(part, pa.Table):
                continue
            for name in columns:
                field = part.schema.field(name)
                if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
                    part = part.set_column(
                        part.schema.get_field_index(name), name, pc.dictionary_encode(part.column(name))
                    )
            self.parts[i] = part

    def statistics(self, columns: Sequence[str]) -> dict:
        """Return ``{column: (min, max)}`` from Parquet row-group statistics, without reading data.

        Only the ``columns`` every row group of every part describes (with min/max and no nulls)
        are given; in-memory parts, CSV files and the pyarrow-only reading (``native=False``)
        give an empty dict. The footers are read by :class:`fastmetrics.io.native.parquet.Footer`.

        Statistics are hints: the values given are kept in :attr:`hints`, and
        :meth:`record_batches` checks each batch of those columns against them, raising
        :class:`StatisticsMismatch` when the data's range is not the one stated.
        """
        self.hints = {}
        if not self.native or not self.trust_statistics or any(isinstance(p, (pa.Table, CsvFile)) for p in self.parts):
            return {}
        found = attempt(self._statistics, set(columns))
        self.hints = dict(found or {})
        return dict(self.hints)

    def verified(self, read):
        """``read()``, run again without statistics when it met statistics that lie.

        A count planned from :meth:`statistics` reads its batches through
        :meth:`record_batches`, which raises :class:`StatisticsMismatch` where the data leaves
        the range stated; the whole job (plan and count) is then done again from the data.
        """
        try:
            return read()
        except StatisticsMismatch:
            self.trust_statistics = False
            return read()

    def _statistics(self, wanted: set) -> dict:
        out = {}
        for part in self.parts:
            for fragment in part.get_fragments():
                metadata = fragment.metadata
                footer = self._footer(fragment)
                if footer is None:
                    return {}
                leaves = [metadata.schema.column(j).path for j in range(metadata.num_columns)]
                for group in range(metadata.num_row_groups):
                    seen = set()
                    for j, name in enumerate(leaves):
                        stated = footer.statistic(group, j) if name in wanted else None
                        if stated is None:
                            continue
                        seen.add(name)
                        old = out.get(name)
                        out[name] = stated if old is None else (min(old[0], stated[0]), max(old[1], stated[1]))
                    wanted &= seen  # a column some row group does not describe is read instead
        return {c: v for c, v in out.items() if c in wanted}

    def _footer(self, fragment):
        """The native reading of a local file's footer (kept for its row groups), or None."""
        path = fragment.path
        if path not in self.footers:
            self.footers[path] = attempt(_native_footer, fragment) if _is_local(fragment) else None
        return self.footers[path]

    def loaded(self, columns: Sequence[str], budget: int) -> Source:
        """The same input with its Parquet parts read into memory (only ``columns``), once.

        A count reads its columns twice (the survey, then the counting); a Parquet file small
        enough is decoded once instead, and a CSV file's columns are parsed (only those).
        Dictionary-encoded columns stay encoded, and each file stays a part of its own (errors
        still name it and its rows).

        Parameters
        ----------
        columns : sequence of str
            The columns to read (the others are dropped).
        budget : int
            Bytes the columns may take in memory, reckoned at 8 bytes a value; a larger input is
            returned as it is, to be streamed.

        Returns
        -------
        Source
        """
        parquet = [p for p in self.parts if not isinstance(p, (pa.Table, CsvFile))]
        decode = bool(parquet) and sum(p.count_rows() for p in parquet) * 8 * len(columns) <= budget
        if not decode and not any(isinstance(p, CsvFile) for p in self.parts):
            return self
        parts, names = [], []
        for name, part in zip(self.names, self.parts):
            if isinstance(part, pa.Table):
                parts.append(part.select(list(columns)))
            elif isinstance(part, CsvFile):  # its columns parsed now, the others never
                parts.append(part.to_table(columns))
            elif not decode:
                parts.append(part)
            else:
                read: dict = {}
                for file, _, batch in self._part_batches(name, part, columns):
                    read.setdefault(file, []).append(batch)
                parts += [pa.Table.from_batches(batches) for batches in read.values()]
                names += list(read)
                continue
            names.append(name)
        self.ranges.clear()  # found for hints this reading does not check
        return Source(parts, names, native=self.native) if parts else self

    def record_batches(self, columns: Sequence[str]) -> Iterator[tuple[str, int, pa.RecordBatch]]:
        """Yield ``(file or part name, first row's index in it, batch)`` holding ``columns``.

        Columns stay as stored: dictionary-encoded columns stay encoded (the count stage reads
        their indices). A Parquet dataset is read file by file, so rows are numbered within their
        file. A column whose range :meth:`statistics` stated is checked batch by batch against
        it: a value outside it raises :class:`StatisticsMismatch` before its batch is yielded,
        and so does a range the data does not fill, once the last batch has passed.
        """
        hinted = {c: self.hints[c] for c in columns if c in self.hints}
        found: dict = {}
        self.ranges.clear()
        for name, part in zip(self.names, self.parts):
            for item in self._part_batches(name, part, list(columns)):
                if hinted:
                    batch, ranges = self.ranges.pop(id(item[2]), (None, None))
                    _check_hints(item[2], hinted, found, item[0], ranges if batch is item[2] else None)
                yield item
        for column, (low, high) in found.items():
            if (low, high) != hinted[column]:
                raise StatisticsMismatch(column, hinted[column], (low, high), self.names)

    def _part_batches(self, name, part, columns):
        if isinstance(part, pa.Table):
            yield from _numbered(name, part.select(columns).to_batches())
        elif isinstance(part, CsvFile):
            yield from _numbered(name, part.to_table(columns).to_batches())
        else:
            for fragment in part.get_fragments():
                batches = _parquet_batches(fragment, part.schema, list(columns), self)
                yield from _numbered(fragment.path, batches)


def _native_footer(fragment):
    metadata = fragment.metadata
    return native_parquet.Footer(fragment.path, metadata.num_row_groups, metadata.num_columns)


class StatisticsMismatch(InputError):
    """A Parquet footer's statistics state a range its data does not have.

    Raised by :meth:`Source.record_batches` on the column whose statistics shaped a plan; the
    count stage then plans again from the data, with the statistics distrusted.
    """

    def __init__(self, column: str, stated, found, names):
        self.column = column
        super().__init__(
            f"The Parquet statistics of column '{column}' in {', '.join(map(str, names))} state the range "
            f"{list(stated)}, which its data does not have ({list(found)}): the footer is damaged."
        )


def _check_hints(batch: pa.RecordBatch, hinted: dict, found: dict, name: str, ranges: dict | None) -> None:
    """Add a batch's range of each hinted column to ``found`` (``ranges``: those found already,
    on the thread that decoded it); a value outside its hint raises."""
    for column, (low, high) in hinted.items():
        bounds = ranges[column] if ranges and column in ranges else _value_range(batch.column(column))
        if bounds is None:
            continue
        lo, hi = bounds
        if not low <= lo <= hi <= high:  # NaN and nulls fail this too
            raise StatisticsMismatch(column, (low, high), (lo, hi), [name])
        old = found.get(column)
        found[column] = (lo, hi) if old is None else (min(old[0], lo), max(old[1], hi))


def _value_range(values) -> tuple | None:
    """``(min, max)`` of a column of numbers (None when it is empty; NaN for a null or a NaN).
    numpy's reductions over the buffer in place: several times faster than Arrow's min_max."""
    if len(values) == 0:
        return None
    if values.null_count:
        return (np.nan, np.nan)
    array = values.to_numpy(zero_copy_only=False)
    return array.min().item(), array.max().item()  # NaN propagates


def _decoded_group(groups, group: int, columns, hinted) -> tuple:
    """``(batch, ranges)``: row group ``group`` decoded natively (None: pyarrow reads it), and
    the range of each ``hinted`` column, found here, on the decoding thread, off the counting's."""
    batch = attempt(groups.read, group, columns)
    if batch is None or not hinted:
        return batch, None
    return batch, {column: _value_range(batch.column(column)) for column in hinted}


def _parquet_batches(fragment, schema, columns, src):
    """A Parquet file's batches: each row group decoded by :mod:`fastmetrics.io.native.parquet`
    (on numba's threads, a few groups ahead), or by pyarrow where that reader does not decode it
    or fails in any way (:func:`fastmetrics.io.native.attempt`), or when ``src.native`` is off."""
    groups = None
    if src.native and _is_local(fragment):
        footer = src._footer(fragment)
        groups = footer and attempt(native_parquet.RowGroups, fragment.path, fragment.metadata, schema, footer)
    if groups is None:
        yield from _arrow_batches(fragment, schema, columns)
        return
    count = len(groups.rows)
    hinted = [c for c in columns if c in src.hints]
    pieces = None
    with concurrent.futures.ThreadPoolExecutor(max(1, numba.get_num_threads())) as pool:
        ahead = collections.deque(
            pool.submit(_decoded_group, groups, g, columns, hinted) for g in range(min(count, READAHEAD))
        )
        for g in range(count):
            batch, ranges = ahead.popleft().result()
            if g + READAHEAD < count:
                ahead.append(pool.submit(_decoded_group, groups, g + READAHEAD, columns, hinted))
            if batch is None:
                pieces = pieces or _pieces(fragment)
                yield from _arrow_batches(pieces[g], schema, columns)
            else:
                if ranges is not None:
                    src.ranges[id(batch)] = (batch, ranges)  # the batch kept: its id is not reused meanwhile
                yield batch


def _pieces(fragment) -> list:
    """A fragment's row groups, one fragment each (for pyarrow to read the groups it is handed)."""
    try:
        return fragment.split_by_row_group()
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Parquet data '{fragment.path}': {_arrow_reason(exc)}") from None


def _is_local(fragment) -> bool:
    import pyarrow.fs as pafs

    return isinstance(fragment.filesystem, pafs.LocalFileSystem) and os.path.isfile(fragment.path)


def _numbered(name, batches):
    offset = 0
    for batch in batches:
        if batch.num_rows:
            yield name, offset, batch
            offset += batch.num_rows


def _arrow_batches(fragment, schema, columns):
    """pyarrow's reading of a Parquet file (or row group), string columns as dictionaries; where
    that fails and the columns read hold dictionaries (pyarrow builds none from
    ``DELTA_BYTE_ARRAY`` pages: "Not yet implemented"), the rest is read as strings and
    dictionary-encoded after. Any failure of that reading is an InputError naming the file."""
    done = 0
    plain = pa.schema([f.with_type(f.type.value_type) if pa.types.is_dictionary(f.type) else f for f in schema])
    try:
        for batch in _scan(fragment, schema, columns):
            yield _indices_in_range(batch, fragment.path)
            done += batch.num_rows
        return
    except ARROW_ERRORS as exc:
        if all(plain.field(c).equals(schema.field(c)) for c in columns):
            raise InputError(f"Cannot read Parquet data '{fragment.path}': {_arrow_reason(exc)}") from None
    try:
        import pyarrow.dataset as pads  # imported on use: it costs 0.2 s at start-up

        groups = [group.id for group in fragment.row_groups]
        strings = pads.ParquetFileFormat().make_fragment(fragment.path, fragment.filesystem, row_groups=groups)
        for batch in _scan(strings, plain, columns):
            if done >= batch.num_rows:  # yielded already, as dictionaries
                done -= batch.num_rows
                continue
            batch, done = batch.slice(done), 0
            names = batch.schema.names
            arrays = [
                pc.dictionary_encode(c) if schema.field(n).type != c.type else c for n, c in zip(names, batch.columns)
            ]
            yield pa.RecordBatch.from_arrays(arrays, names=names)
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Parquet data '{fragment.path}': {_arrow_reason(exc)}") from None


def _scan(fragment, schema, columns):
    # decoding runs on Arrow's threads, ahead of the counting; a small readahead keeps memory
    # at a few batches whatever the file's size
    batches = fragment.to_batches(
        schema=schema, columns=columns, batch_size=BATCH_ROWS, batch_readahead=READAHEAD, use_threads=True
    )
    for i, batch in enumerate(batches):
        yield batch
        if i % 16 == 15:
            # Arrow's allocator keeps freed pages; handing them back now and then is what
            # keeps a 100M-row stream at a flat peak
            pa.default_memory_pool().release_unused()


def _indices_in_range(batch: pa.RecordBatch, path: str) -> pa.RecordBatch:
    """The batch, once its dictionary indices are known to point into their dictionaries:
    pyarrow's reader does not check them, and a damaged file's would fail far from their read."""
    for name, column in zip(batch.schema.names, batch.columns):
        if pa.types.is_dictionary(column.type) and len(column) and column.indices.null_count < len(column):
            bounds = pc.min_max(column.indices).as_py()
            if bounds["min"] < 0 or bounds["max"] >= len(column.dictionary):
                raise InputError(
                    f"Cannot read Parquet data '{path}': column '{name}' has a dictionary index out of "
                    f"range (the file is damaged)."
                )
    return batch


def _decoded(table: pa.Table) -> pa.Table:
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(field.type.value_type))
    return table


def _parquet_dataset(path):
    """A Parquet dataset whose string columns are read as dictionaries: their dictionary pages
    are kept instead of being expanded to one string per row (the count stage reads indices)."""
    import pyarrow.dataset as pads  # imported on use: it costs 0.2 s at start-up

    schema = pads.dataset(path, format="parquet").schema
    try:
        schema.names  # noqa: B018 (read once here: a damaged name that is not UTF-8 fails here)
    except UnicodeDecodeError:
        raise InputError(f"Cannot read Parquet data '{path}': a column name is not UTF-8 text.") from None
    strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    if not strings:
        return pads.dataset(path, format="parquet")
    options = pads.ParquetReadOptions(dictionary_columns=strings)
    return pads.dataset(path, format=pads.ParquetFileFormat(read_options=options))


def _table_from_object(obj) -> pa.Table:
    return _without_views(_arrow_table(obj))


def _without_views(table: pa.Table) -> pa.Table:
    """String views (polars' strings, DuckDB's) as large strings: Arrow's sort, join and group
    kernels do not all take views."""
    for i, field in enumerate(table.schema):
        if pa.types.is_string_view(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(pa.large_string()))
        elif pa.types.is_binary_view(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(pa.large_binary()))
    return table


def _arrow_table(obj) -> pa.Table:
    if isinstance(obj, pa.Table):
        return obj
    if isinstance(obj, pa.RecordBatch):
        return pa.Table.from_batches([obj])
    if hasattr(obj, "to_arrow") and callable(obj.to_arrow):  # polars
        return obj.to_arrow()
    if hasattr(obj, "__arrow_c_stream__") or type(obj).__module__.startswith("pandas"):
        try:
            return pa.table(obj)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
            raise InputError(f"Cannot convert the {type(obj).__name__} to Arrow: {_arrow_reason(exc)}") from None
    raise InputError(
        f"Unsupported input of type {type(obj).__name__}; expected a path, a list of paths, a pyarrow "
        "Table, or a pandas/polars DataFrame."
    )


def open_source(
    source,
    *,
    format: str = "auto",
    label_name: str = "pred",
    kind: str = "runs",
    relevance_level: float = 1,
    native: bool | None = None,
) -> Source:
    """Open any supported input as a :class:`Source`, without reading Parquet data yet.

    Run files get a ``system`` column named after the file, TREC runs the tag; other formats must
    carry their own.

    Parameters
    ----------
    source : str, path, sequence of them, or table
        Files, folders or glob patterns (see :func:`list_inputs`), or an in-memory table: a
        ``pyarrow.Table`` or ``RecordBatch``, a pandas or polars DataFrame.
    format : {"auto", "parquet", "csv", "ipc", "run", "trec", "qrels"}, default "auto"
        Format of the files; ``auto`` decides per file (see :func:`detect_format`).
    label_name : str, default "pred"
        Name given to the label column of ``topic item rank score label`` files.
    kind : {"runs", "gold"}, default "runs"
        Whether the files are runs or gold files. For gold, ``trec`` and ``qrels`` read TREC
        qrels, and run-format files get no ``system`` column.
    relevance_level : number, default 1
        TREC qrels: ``gold = rel >= relevance_level``.
    native : bool, optional
        Whether fastmetrics' own readers of Parquet, CSV and run files are used (they read what
        pyarrow reads, faster, and leave to pyarrow whatever they do not decode); False reads
        every file with pyarrow only, and takes nothing from Parquet statistics. None (the
        default): the setting in force, ``FASTMETRICS_NATIVE`` (1 or 0) in the environment.

    Returns
    -------
    Source
        One part per file (or one for an in-memory table).
    """
    if format not in FORMATS:
        raise InputError(f"The 'format' parameter must be one of {', '.join(FORMATS)}. Got {format!r} instead.")
    if kind not in ("runs", "gold"):
        raise parameter_error("kind", "open_source", "'runs' or 'gold'", kind)
    if isinstance(source, Source):
        return source  # opened once by the caller (the pipeline reads it for counts, then for curves)
    if not isinstance(source, (str, os.PathLike, list, tuple)):
        table = _table_from_object(source)
        _unique_names(table.schema, "the table")
        return Source([table], ["<table>"])
    parts, names = [], []
    paths = list(expand_paths(source, kind=kind))
    formats, problems = _formats_of(paths, format)
    native = enabled(native)
    read_ahead = _run_files_at_once(paths, formats, kind, label_name, native)
    for i, (path, fmt) in enumerate(zip(paths, formats)):
        table, error = read_ahead.pop(i, (None, problems.get(i)))
        if error is not None:
            read_ahead.clear()
            raise error
        if table is not None:
            parts.append(table)
        elif fmt == "parquet":
            try:
                parts.append(_parquet_dataset(path))
            except ARROW_ERRORS as exc:
                raise InputError(f"Cannot read Parquet data '{path}': {_arrow_reason(exc)}") from None
        elif fmt == "csv":
            csv = CsvFile(path, native)
            parts.append(csv if csv.lazy else csv.to_table())
        elif fmt == "ipc":
            parts.append(_read_ipc(path))
        elif kind == "gold" and (fmt == "qrels" or (fmt == "trec" and format == "trec")):
            parts.append(read_qrels(path, relevance_level=relevance_level, native=native))
        elif kind == "gold" and fmt == "trec":
            raise InputError(
                f"Cannot read gold file '{path}': its lines look like a TREC run "
                f"('qid Q0 docno rank score tag'); expected TREC qrels 'qid iter docno rel' or "
                f"'topic item rank score label'."
            )
        elif fmt == "qrels":
            raise InputError(
                f"Cannot read run '{path}': its lines look like TREC qrels ('qid iter docno rel'), "
                f"which are gold: give the file as the gold (read_gold, --gold)."
            )
        elif fmt == "trec":
            parts.append(read_trec_run(path, native=native))
        else:
            parts.append(_run_file(path, label_name, kind, native))
        names.append(path)
        _unique_names(parts[-1].schema, f"'{path}'")
    schemas = {tuple(sorted(p.schema.names)) for p in parts}
    if len(schemas) > 1:
        raise InputError(
            "The input files do not share one schema: "
            + "; ".join(f"{n}: {', '.join(p.schema.names)}" for n, p in zip(names, parts))
        )
    return Source(parts, names, native=native)


def _formats_of(paths: list, format: str) -> tuple[list, dict]:
    """``(formats, {position: error})``: each file's format (None where it could not be told, its
    error kept to be raised in the file's turn, after the errors of the files before it)."""
    formats, problems = [], {}
    for i, path in enumerate(paths):
        try:
            formats.append(detect_format(path) if format == "auto" else format)
        except Exception as error:  # noqa: BLE001 (raised by open_source in the file's turn)
            formats.append(None)
            problems[i] = error
    return formats, problems


def _run_file(path: str, label_name: str, kind: str, native: bool = True) -> pa.Table:
    """A ``topic item rank score label`` file; a run's rows get the system named after the file."""
    table = read_run_file(path, label_name=label_name, native=native)
    if kind == "runs":
        table = table.append_column("system", pa.array([run_system_name(path)] * table.num_rows, pa.string()))
    return table


def _run_files_at_once(paths: list, formats: list, kind: str, label_name: str, native: bool = True) -> dict:
    """``{position: (table, error)}`` of the run files among ``paths``, a file a thread.

    A track's runs come as many files of a few MB: each parsed on both threads cost a thread
    hand-off per chunk and ran at 1.4x the time a line of one large file. Each file is now read
    whole by one thread (its parse runs serially there). A file's error is kept and raised in its
    turn, so the first bad input in the order given is the one named, as when they are read one
    by one.
    """
    jobs = [
        (i, path, fmt) for i, (path, fmt) in enumerate(zip(paths, formats)) if kind == "runs" and fmt in ("trec", "run")
    ]
    if len(jobs) < 2:
        return {}
    first_bad = [len(paths)]  # no file after a bad one is read: its error ends the call

    def read(i, path, fmt):
        if i > first_bad[0]:
            return None, None
        try:
            table = read_trec_run(path, native=native) if fmt == "trec" else _run_file(path, label_name, kind, native)
            return table, None
        except Exception as error:  # noqa: BLE001 (raised by open_source in the file's turn)
            first_bad[0] = min(first_bad[0], i)
            return None, error

    results = zip((i for i, _, _ in jobs), on_threads(read, jobs))
    return {i: (table, error) for i, (table, error) in results if table is not None or error is not None}


def _unique_names(schema: pa.Schema, where: str) -> None:
    """Refuse an input with two columns of one name: no option could say which one is meant."""
    seen = set()
    for name in schema.names:
        if name in seen:
            raise InputError(f"The input {where} has two columns named '{name}': rename one of them.")
        seen.add(name)


def read_runs(paths, format: str = "auto", *, native: bool | None = None) -> pa.Table:
    """Read run files, Parquet, CSV or Arrow files into one Arrow table.

    Parameters
    ----------
    paths : str, path, or sequence of them
        Files, folders (every run file below; READMEs, documents, ``.score`` files, hidden files
        and text files that are not runs are skipped, see :func:`list_inputs`) or glob patterns.
    format : {"auto", "parquet", "csv", "ipc", "run", "trec"}, default "auto"
        ``auto`` decides by suffix: ``.parquet``/folders of Parquet, ``.csv``, ``.arrow``/
        ``.feather``; any other file by its first data line: a TREC run (``qid Q0 docno rank
        score tag``, 6 fields) or a ``topic item rank score label`` run file (5 fields). Text
        fields are separated by any run of spaces or tabs; ``#`` lines and blank lines are skipped.
    native : bool, optional
        False reads every file with pyarrow only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        For run files: ``topic, item, rank, score, pred, system``; for TREC runs: ``topic, item,
        rank, score, system`` (system = the run's tag). ``rank`` is float64 and unused.
    """
    return open_source(paths, format=format, native=native).read_all()


# schema metadata of a gold read from one file: the file (rows of the table are its rows)
GOLD_FILE = b"fastmetrics.gold_file"


def gold_table(gold) -> pa.Table:
    """Read a separate gold given as a path or as an in-memory table.

    A path is read by :func:`read_gold` (run-format file, TREC qrels or table file); a table has
    its dictionary-encoded columns decoded. A text column holding a value that is not UTF-8 is
    refused, naming its row.
    """
    if isinstance(gold, (str, list, tuple)) or hasattr(gold, "__fspath__"):
        table = read_gold(gold)
    else:
        table = _decoded(_table_from_object(gold))
    part = (table.schema.metadata or {}).get(GOLD_FILE, b"<table>").decode("utf-8", "replace")
    for name, column in zip(table.column_names, table.columns):
        bad = not_utf8(column.combine_chunks())
        if bad is not None:
            raise not_text_error(name, part, int(np.argmax(bad)), _value(column, int(np.argmax(bad))))
    return table


QRELS_LEVEL = object()  # read_gold's default level: 1 for TREC qrels, other gold read as it is


def read_gold(
    source, *, format: str = "auto", relevance_level=QRELS_LEVEL, gold_column: str = "gold", native: bool | None = None
) -> pa.Table:
    """Read a gold table from run-format files, TREC qrels or table files.

    A run-format file's ``label`` is the gold; a table file carries ``topic, item, gold`` columns.

    Parameters
    ----------
    source : str, path, or sequence of them
        Files, folders or glob patterns (see :func:`list_inputs` with ``kind="gold"``).
    format : {"auto", "parquet", "csv", "ipc", "run", "qrels", "trec"}, default "auto"
        ``auto`` decides by suffix, then by the first data line: 4 fields (``qid iter docno
        rel``) are TREC qrels, 5 fields a ``topic item rank score label`` file. ``trec`` and
        ``qrels`` both read TREC qrels.
    relevance_level : number, optional
        Graded relevance made binary, ``gold = grade >= relevance_level``: TREC qrels' ``rel``
        (default 1, as ``trec_eval -l``) and, when given, a numeric gold column of any other
        gold file (``gold_column``, else ``gold``; grades 0/1/2 are otherwise three classes).
    gold_column : str, default "gold"
        The gold column of a table file (the runs' ``--gold-column``).
    native : bool, optional
        False reads every file with pyarrow only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, gold`` (bool) for qrels; ``topic, item, rank, score, gold`` for a
        run-format file; the table's own columns otherwise.
    """
    given = relevance_level is not QRELS_LEVEL
    level = _relevance_level(relevance_level if given else 1)
    src = open_source(source, format=format, label_name="gold", kind="gold", relevance_level=level, native=native)
    table = src.read_all()
    if given:
        table = _graded_gold(table, gold_column if gold_column in table.column_names else "gold", level, src.names)
    if "rank" in table.column_names and "system" in table.column_names:
        table = table.drop_columns(["system"])  # a gold file is not a system
    if len(src.names) == 1:  # its rows are that file's: an error about them names it
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), GOLD_FILE: src.names[0]})
    return table
