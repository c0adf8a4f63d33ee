"""Readers: every supported input becomes an Arrow table or a stream of Arrow record batches.

Supported: ``pyarrow.Table`` / ``RecordBatch``, pandas and polars DataFrames (through the Arrow
interface, neither is a dependency), Parquet files and dataset folders (streamed by record batch),
CSV, Arrow IPC/Feather, and SemEval-2016-Task-3-style text run files
(``topic item rank score label`` per line, one system per file, named ``<parent>/<stem>``).
"""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .._errors import InputError

RUN_COLUMNS = ("topic", "item", "rank", "score", "label")
PARQUET_SUFFIXES = {".parquet", ".pq", ".parq"}
CSV_SUFFIXES = {".csv"}
IPC_SUFFIXES = {".arrow", ".feather", ".ipc"}
FORMATS = ("auto", "parquet", "csv", "ipc", "run")
BATCH_ROWS = 1 << 20
READAHEAD = 4


def run_system_name(path: str | os.PathLike) -> str:
    """System name of a run file: ``<parent folder>/<file stem>``."""
    p = Path(path)
    return f"{p.parent.name}/{p.stem}" if p.parent.name else p.stem


def expand_paths(paths) -> list[str]:
    """Expand a path, a folder of run files, a glob, or a sequence of those, in sorted order."""
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[str] = []
    for item in paths:
        item = os.fspath(item)
        if any(ch in item for ch in "*?["):
            matches = sorted(glob.glob(item, recursive=True))
            if not matches:
                raise InputError(f"No file matches the pattern '{item}'.")
            out.extend(m for m in matches if os.path.isfile(m))
        elif os.path.isdir(item) and not _is_parquet_dir(item):
            files = sorted(
                os.path.join(root, f) for root, _, names in os.walk(item) for f in names
                if not f.startswith(".") and not f.endswith((".score", ".md", ".pdf", ".tab", ".tex"))
            )
            if not files:
                raise InputError(f"The folder '{item}' holds no input file.")
            out.extend(files)
        elif os.path.exists(item):
            out.append(item)
        else:
            raise InputError(f"Cannot read '{item}': no such file or folder.")
    return out


def _is_parquet_dir(path: str) -> bool:
    for root, _, names in os.walk(path):
        if any(Path(n).suffix in PARQUET_SUFFIXES for n in names):
            return True
    return False


def detect_format(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if os.path.isdir(path) or suffix in PARQUET_SUFFIXES:
        return "parquet"
    if suffix in CSV_SUFFIXES:
        return "csv"
    if suffix in IPC_SUFFIXES:
        return "ipc"
    return "run"


def read_run_file(path: str, *, label_name: str = "pred") -> pa.Table:
    """Read one ``topic item rank score label`` file; ``label`` becomes ``label_name``.

    Fields are separated by tabs (SemEval) or, if a line has no tab, by single spaces.
    """
    try:
        with open(path, "rb") as fh:
            first = fh.readline()
    except OSError as exc:
        raise InputError(f"Cannot read '{path}': {exc.strerror or exc}.") from None
    if not first.strip():
        raise InputError(f"Cannot read '{path}': the run file is empty.")
    delimiter = "\t" if b"\t" in first else " "
    types = {"topic": pa.string(), "item": pa.string(), "rank": pa.int64(), "score": pa.float64(),
             "label": pa.bool_()}
    try:
        table = pacsv.read_csv(
            path,
            read_options=pacsv.ReadOptions(column_names=list(RUN_COLUMNS)),
            parse_options=pacsv.ParseOptions(delimiter=delimiter),
            convert_options=pacsv.ConvertOptions(column_types=types, true_values=["true", "True", "1"],
                                                 false_values=["false", "False", "0"]),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"Cannot read run file '{path}': {_arrow_reason(exc)} "
                         f"(expected lines 'topic item rank score label').") from None
    return table.rename_columns(["topic", "item", "rank", "score", label_name])


def _arrow_reason(exc: Exception) -> str:
    return str(exc).strip().splitlines()[0].rstrip(".") + "."


def _read_csv(path: str) -> pa.Table:
    try:
        return pacsv.read_csv(path)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OSError) as exc:
        raise InputError(f"Cannot read CSV file '{path}': {_arrow_reason(exc)}") from None


def _read_ipc(path: str) -> pa.Table:
    import pyarrow.feather as feather
    try:
        return feather.read_table(path)
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"Cannot read Arrow file '{path}': {_arrow_reason(exc)}") from None


@dataclass
class Source:
    """A table to be read once or several times, possibly streamed by record batch.

    ``parts`` are either in-memory tables or Parquet datasets; a Parquet dataset is never loaded
    whole: :meth:`batches` streams it with only the requested columns.
    """

    parts: list
    names: list[str]

    @property
    def column_names(self) -> list[str]:
        return list(self.parts[0].schema.names)

    def batches(self, columns: Sequence[str] | None = None) -> Iterator[tuple[str, pa.Table]]:
        """Yield ``(part name, table)`` chunks holding only ``columns`` (dictionary-encoded
        columns, e.g. pandas categoricals or fastmetrics' own tidy outputs, decoded)."""
        for name, _, batch in self.record_batches(self.column_names if columns is None else columns):
            yield name, _decoded(pa.Table.from_batches([batch]))

    def read_all(self, columns: Sequence[str] | None = None) -> pa.Table:
        tables = [t for _, t in self.batches(columns)]
        if not tables:
            raise InputError("The input has no rows.")
        return pa.concat_tables(tables, promote_options="default")

    @property
    def schema(self) -> pa.Schema:
        return self.parts[0].schema

    def count_rows(self) -> int:
        return sum(p.num_rows if isinstance(p, pa.Table) else p.count_rows() for p in self.parts)

    def encode_strings(self, columns: Sequence[str]) -> None:
        """Dictionary-encode the string columns of in-memory parts, in place: the survey reads
        their dictionaries and the counting their indices, so each string is hashed once."""
        for i, part in enumerate(self.parts):
            if not isinstance(part, pa.Table):
                continue
            for name in columns:
                field = part.schema.field(name)
                if pa.types.is_string(field.type) or pa.types.is_large_string(field.type):
                    part = part.set_column(part.schema.get_field_index(name), name,
                                           pc.dictionary_encode(part.column(name)))
            self.parts[i] = part

    def statistics(self, columns: Sequence[str]) -> dict:
        """``{column: (min, max)}`` from Parquet row-group statistics, for the columns every row
        group of every part describes (with min/max, no nulls); nothing for in-memory parts."""
        if any(isinstance(p, pa.Table) for p in self.parts):
            return {}
        out = {}
        wanted = set(columns)
        for part in self.parts:
            for fragment in part.get_fragments():
                metadata = fragment.metadata
                for rg in range(metadata.num_row_groups):
                    group = metadata.row_group(rg)
                    seen = set()
                    for j in range(group.num_columns):
                        chunk = group.column(j)
                        name = chunk.path_in_schema
                        stats = chunk.statistics
                        if name not in wanted or stats is None or not stats.has_min_max or stats.null_count:
                            continue
                        seen.add(name)
                        low, high = stats.min, stats.max
                        old = out.get(name)
                        out[name] = (low, high) if old is None else (min(old[0], low), max(old[1], high))
                    wanted &= seen  # a column some row group does not describe is read instead
        return {c: v for c, v in out.items() if c in wanted}

    def record_batches(self, columns: Sequence[str]) -> Iterator[tuple[str, int, pa.RecordBatch]]:
        """Yield ``(file or part name, first row's index in it, batch)`` holding ``columns`` as
        stored: dictionary-encoded columns stay encoded (the count stage reads their indices).
        A Parquet dataset is read file by file, so rows are numbered within their file."""
        columns = list(columns)
        for name, part in zip(self.names, self.parts):
            if isinstance(part, pa.Table):
                yield from _numbered(name, part.select(columns).to_batches())
            else:
                for fragment in part.get_fragments():
                    yield from _numbered(fragment.path, _parquet_batches(fragment, part.schema, columns))


def _numbered(name, batches):
    offset = 0
    for batch in batches:
        if batch.num_rows:
            yield name, offset, batch
            offset += batch.num_rows


def _parquet_batches(fragment, schema, columns):
    try:
        # decoding runs on Arrow's threads, ahead of the counting; a small readahead keeps memory
        # at a few batches whatever the file's size
        batches = fragment.to_batches(schema=schema, columns=columns, batch_size=BATCH_ROWS, batch_readahead=READAHEAD,
                                      use_threads=True)
        for i, batch in enumerate(batches):
            yield batch
            if i % 16 == 15:
                # Arrow's allocator keeps freed pages; handing them back now and then is what
                # keeps a 100M-row stream at a flat peak
                pa.default_memory_pool().release_unused()
    except (pa.ArrowInvalid, OSError) as exc:
        raise InputError(f"Cannot read Parquet data '{fragment.path}': {_arrow_reason(exc)}") from None


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
    strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    if not strings:
        return pads.dataset(path, format="parquet")
    options = pads.ParquetReadOptions(dictionary_columns=strings)
    return pads.dataset(path, format=pads.ParquetFileFormat(read_options=options))


def _table_from_object(obj) -> pa.Table:
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


def open_source(source, *, format: str = "auto", label_name: str = "pred") -> Source:
    """Open any supported input as a :class:`Source`.

    Run files get a ``system`` column named after the file; other formats must carry their own.
    """
    if format not in FORMATS:
        raise InputError(f"The 'format' parameter must be one of {', '.join(FORMATS)}. Got {format!r} instead.")
    if not isinstance(source, (str, os.PathLike, list, tuple)):
        return Source([_table_from_object(source)], ["<table>"])
    parts, names = [], []
    for path in expand_paths(source):
        fmt = detect_format(path) if format == "auto" else format
        if fmt == "parquet":
            try:
                parts.append(_parquet_dataset(path))
            except (pa.ArrowInvalid, OSError) as exc:
                raise InputError(f"Cannot read Parquet data '{path}': {_arrow_reason(exc)}") from None
        elif fmt == "csv":
            parts.append(_read_csv(path))
        elif fmt == "ipc":
            parts.append(_read_ipc(path))
        else:
            table = read_run_file(path, label_name=label_name)
            system = run_system_name(path)
            parts.append(table.append_column("system", pa.array([system] * table.num_rows, pa.string())))
        names.append(path)
    schemas = {tuple(sorted(p.schema.names)) for p in parts}
    if len(schemas) > 1:
        raise InputError("The input files do not share one schema: " + "; ".join(
            f"{n}: {', '.join(p.schema.names)}" for n, p in zip(names, parts)))
    return Source(parts, names)


def read_runs(paths, format: str = "auto") -> pa.Table:
    """Read run files, Parquet, CSV or Arrow files into one Arrow table.

    Parameters
    ----------
    paths : str, path, or sequence of them
        Files, folders (every run file below) or glob patterns.
    format : {"auto", "parquet", "csv", "ipc", "run"}, default "auto"
        ``auto`` decides by suffix: ``.parquet``/folders of Parquet, ``.csv``, ``.arrow``/
        ``.feather``; anything else is read as a ``topic item rank score label`` run file.

    Returns
    -------
    pyarrow.Table
        For run files: ``topic, item, rank, score, pred, system``.
    """
    return open_source(paths, format=format).read_all()


def gold_table(gold) -> pa.Table:
    """A separate gold given as a path (run-format file or table file) or as an in-memory table."""
    if isinstance(gold, (str, list, tuple)) or hasattr(gold, "__fspath__"):
        return read_gold(gold)
    return _decoded(_table_from_object(gold))


def read_gold(source, *, format: str = "auto") -> pa.Table:
    """Read a gold table: a run-format file (its ``label`` is the gold), or a table with
    ``topic, item, gold`` columns."""
    table = open_source(source, format=format, label_name="gold").read_all()
    if "rank" in table.column_names and "system" in table.column_names:
        table = table.drop_columns(["system"])  # a run-format gold file is not a system
    return table
