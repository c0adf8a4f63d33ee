"""The source: any supported input opened as parts (a file each, or one in-memory table) that are
read whole, in record batches, or kept lazy (Parquet datasets, CSV files read by the native reader)."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

from .._errors import InputError, parameter_error
from .._threads import on_threads
from .csvfile import CsvFile
from .labels import text_names
from .native import attempt, enabled
from .paths import (
    ARROW_ERRORS,
    FORMATS,
    arrow_reason,
    detect_format,
    expand_paths,
    run_system_name,
)
from .readahead import (
    StatisticsMismatch,
    check_hints,
    dictionary_key,
    is_local,
    native_footer,
    numbered_batches,
    parquet_batches,
)
from .runfiles import read_qrels, read_run_file, read_trec_run


def _read_ipc(path: str) -> pa.Table:
    import pyarrow.feather as feather

    try:
        return feather.read_table(path)
    except ARROW_ERRORS as exc:
        raise InputError(f"Cannot read Arrow file '{path}': {arrow_reason(exc)}") from None


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
    # the ranges of hinted columns found on the decoding threads, by batch; the distinct values of
    # dictionary columns found while decoding them (see known_distinct)
    trust_statistics: bool = dataclasses.field(default=True, init=False)
    hints: dict = dataclasses.field(default_factory=dict, init=False)
    footers: dict = dataclasses.field(default_factory=dict, init=False, repr=False)
    ranges: dict = dataclasses.field(default_factory=dict, init=False, repr=False)
    distinct: dict = dataclasses.field(default_factory=dict, init=False, repr=False)

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
            yield name, decode_dictionaries(pa.Table.from_batches([batch]))

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
                raise InputError(f"Cannot read Parquet data '{name}': {arrow_reason(exc)}") from None
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
                footer = self.footer(fragment)
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

    def footer(self, fragment):
        """The native reading of a local file's footer (kept for its row groups), or None."""
        path = fragment.path
        if path not in self.footers:
            self.footers[path] = attempt(native_footer, fragment) if is_local(fragment) else None
        return self.footers[path]

    def loaded(self, columns: Sequence[str], budget: int, distinct: Sequence[str] = ()) -> Source:
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
        distinct : sequence of str, optional
            Columns whose distinct values a survey will want: where the native reader decodes
            them as dictionaries, it notes the values their indices use as it decodes them, and
            :meth:`known_distinct` of the returned source gives them.

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
                for file, _, batch in self._part_batches(name, part, columns, distinct):
                    read.setdefault(file, []).append(batch)
                parts += [pa.Table.from_batches(batches) for batches in read.values()]
                names += list(read)
                continue
            names.append(name)
        self.ranges.clear()  # found for hints this reading does not check
        if not parts:
            return self
        loaded = Source(parts, names, native=self.native)
        # the arrays noted are the loaded source's own (kept alive by it, so are their addresses)
        loaded.distinct, self.distinct = self.distinct, {}
        return loaded

    def known_distinct(self, array) -> pa.Array | None:
        """Return a batch column's distinct values where the decoding found them, else None.

        The column is one of this source's batches' (see :meth:`loaded`)."""
        if not self.distinct or not pa.types.is_dictionary(array.type):
            return None
        key = dictionary_key(array)
        noted = self.distinct.get(key) if key is not None else None
        return None if noted is None else noted[1]

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
                    check_hints(item[2], hinted, found, item[0], ranges if batch is item[2] else None)
                yield item
        for column, (low, high) in found.items():
            if (low, high) != hinted[column]:
                raise StatisticsMismatch(column, hinted[column], (low, high), self.names)

    def _part_batches(self, name, part, columns, distinct=()):
        if isinstance(part, pa.Table):
            yield from numbered_batches(name, part.select(columns).to_batches())
        elif isinstance(part, CsvFile):
            yield from numbered_batches(name, part.to_table(columns).to_batches())
        else:
            for fragment in part.get_fragments():
                batches = parquet_batches(fragment, part.schema, list(columns), self, distinct)
                yield from numbered_batches(fragment.path, batches)


def decode_dictionaries(table: pa.Table) -> pa.Table:
    """The table with its dictionary-encoded columns decoded."""
    for i, field in enumerate(table.schema):
        if pa.types.is_dictionary(field.type):
            table = table.set_column(i, field.name, table.column(i).cast(field.type.value_type))
    return table


def _parquet_dataset(path):
    """A Parquet dataset whose string columns are read as dictionaries: their dictionary pages
    are kept instead of being expanded to one string per row (the count stage reads indices)."""
    import pyarrow.dataset as pads  # imported on use: it weighs on start-up

    schema = pads.dataset(path, format="parquet").schema
    text_names(schema, f"Cannot read Parquet data '{path}'")  # a damaged name fails here, not later
    strings = [f.name for f in schema if pa.types.is_string(f.type) or pa.types.is_large_string(f.type)]
    if not strings:
        return pads.dataset(path, format="parquet")
    options = pads.ParquetReadOptions(dictionary_columns=strings)
    return pads.dataset(path, format=pads.ParquetFileFormat(read_options=options))


def table_from_object(obj) -> pa.Table:
    """An in-memory input (Arrow table or batch, pandas or polars DataFrame) as an Arrow table."""
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
            raise InputError(f"Cannot convert the {type(obj).__name__} to Arrow: {arrow_reason(exc)}") from None
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
        table = table_from_object(source)
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
                raise InputError(f"Cannot read Parquet data '{path}': {arrow_reason(exc)}") from None
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
        table = table.append_column("system", pa.repeat(pa.scalar(run_system_name(path), pa.string()), table.num_rows))
    return table


def _run_files_at_once(paths: list, formats: list, kind: str, label_name: str, native: bool = True) -> dict:
    """``{position: (table, error)}`` of the run files among ``paths``, a file a thread.

    A track's runs come as many files of a few MB: each parsed on both threads cost a thread
    hand-off per chunk and took longer a line than one large file. Each file is now read
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
    """Refuse an input with two columns of one name: no option could say which one is meant (and
    one whose column names are not UTF-8 text, which no option could name)."""
    seen = set()
    for name in text_names(schema, f"Cannot read the input {where}"):
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
