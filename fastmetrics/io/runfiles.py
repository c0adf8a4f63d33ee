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

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .. import _memory
from .._errors import InputError, parameter_error
from .native import attempt, enabled
from .native import text as native_text
from .paths import (
    ARROW_ERRORS,
    BOM,
    COMPRESSED_SUFFIXES,
    FALSE_WORDS,
    NUMBER_FIELD,
    TRUE_WORDS,
    arrow_reason,
    read_bytes,
    run_system_name,
    show_line,
)

RUN_COLUMNS = ("topic", "item", "rank", "score", "label")


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


_TO_TAB = bytes.maketrans(b" \x0b\x0c", b"\t\t\t")


_COMMENT = re.compile(rb"(^|[\r\n])#[^\r\n]*")


_NOT_NEWLINE = re.compile(rb"[^\r\n]")


_NEWLINE = re.compile(rb"[\r\n]")


def _normalised(data: bytes) -> tuple[bytes, str]:
    """``(text, delimiter)``: the text with every run of blanks (space, tab, VT, FF) made one
    delimiter, leading and trailing blanks, a byte-order mark and ``#`` comment lines removed:
    what ``line.split()`` sees, in a form a single-delimiter CSV parser reads. Vectorised (numpy
    masks over the bytes); the line breaks are kept, so blank lines stay blank. The delimiter is
    a space for files with spaces only (TREC runs), a tab otherwise."""
    if data.startswith(BOM):
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


def _where(layout: _Layout, path: str, number: int | None = None) -> str:
    return f"Cannot read {layout.what} '{path}'" + (f", line {number}" if number is not None else "")


def _locate_error(data: bytes, path: str, layouts: dict, layout: _Layout) -> InputError | None:
    """The first line that does not fit ``layout`` (the slow path, taken only when Arrow fails),
    as a one-line error naming the file, the line and what was expected."""
    if data.startswith(BOM):
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
                    f"found {len(fields)}: {show_line(line)}."
                )
        if len(fields) != n_fields:
            like = f" (as on line {first})" if len(layouts) > 1 else ""
            return InputError(
                f"{_where(layout, path, number)}: expected {n_fields} fields {layout.expected}{like}, "
                f"found {len(fields)}: {show_line(line)}."
            )
        for (name, kind), value in zip(layout.fields, fields):
            if kind == "string":
                try:
                    value.decode("utf-8")
                except UnicodeDecodeError:
                    return InputError(
                        f"{_where(layout, path, number)}: the {name} {show_line(value)} is not UTF-8 "
                        f"text (expected lines {layout.expected})."
                    )
            elif kind == "number" and NUMBER_FIELD.fullmatch(value) is None:
                return InputError(
                    f"{_where(layout, path, number)}: the {name} {show_line(value)} is not a number "
                    f"(expected lines {layout.expected})."
                )
            elif kind == "bool" and value not in TRUE_WORDS + FALSE_WORDS:
                return InputError(
                    f"{_where(layout, path, number)}: the {name} {show_line(value)} is not true or false "
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
    data = read_bytes(path)
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
            error = InputError(f"{_where(layout, path)}: {arrow_reason(exc)} (expected lines {layout.expected}).")
        raise error from None
    return table, layout


def _read_plain_file(path: str, layouts: dict):
    """:func:`_read_plain_text` of a file: an uncompressed one mapped in memory (the threads read
    its pages, nothing is copied first), a compressed one decompressed."""
    if COMPRESSED_SUFFIXES.get(Path(path).suffix.lower()):
        return _read_plain_text(read_bytes(path), layouts)
    try:
        mapped = _memory.mapped_file(path)
    except (OSError, ValueError):
        return None  # the general reader names the problem
    return None if mapped is None else _read_plain_text(mapped, layouts)


def _read_plain_text(data: bytes, layouts: dict):
    """``(table, layout)`` of a plain text file by :mod:`.native.text`'s reader, or None when the file
    is not plain (or its layout has a boolean field): Arrow's parser then reads it and names any error."""
    first = native_text.first_field_count(np.frombuffer(data, np.uint8)[3 if data[:3] == BOM else 0 :])
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
        table = table.append_column("system", pa.repeat(pa.scalar(run_system_name(path), pa.string()), table.num_rows))
    return table


def read_qrels(path: str, *, relevance_level: float | None = 1, native: bool | None = None) -> pa.Table:
    """Read TREC qrels, ``qid iter docno rel`` per line, as a binary gold table.

    Parameters
    ----------
    path : str
        The qrels file.
    relevance_level : number or None, default 1
        Lowest relevance grade that counts as relevant: ``gold = rel >= relevance_level``
        (graded judgements made binary, as ``trec_eval -l``); None keeps the grades (float64),
        for graded measures such as nDCG.
    native : bool, optional
        False reads the file with pyarrow's CSV parser only (see :func:`open_source`).

    Returns
    -------
    pyarrow.Table
        ``topic, item, gold`` with topic = qid, item = docno and a boolean gold (the grades with
        ``relevance_level=None``).
    """
    level = None if relevance_level is None else checked_level(relevance_level)
    table, _ = _read_text(path, {4: QRELS}, native)
    if level is None:
        grades = pc.cast(table.column("relevance"), pa.float64())
        return pa.table({"topic": table.column("topic"), "item": table.column("item"), "gold": grades})
    gold = pc.greater_equal(table.column("relevance"), pa.scalar(level, pa.float64()))
    return pa.table({"topic": table.column("topic"), "item": table.column("item"), "gold": gold})


def checked_level(level) -> float:
    """A relevance level checked to be a finite number."""
    if (
        isinstance(level, (bool, np.bool_))
        or not isinstance(level, (int, float, np.integer, np.floating))
        or not np.isfinite(level)
    ):
        raise parameter_error("relevance_level", "read_gold", "a finite number (rel >= level is relevant)", level)
    return float(level)


def graded_gold(table: pa.Table, column: str, level: float, names) -> pa.Table:
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
