"""Tables: atomic file output (Parquet, CSV, JSON, Markdown, LaTeX, HTML) and terminal rendering.

Every number a person reads is written by :mod:`fastmetrics._numbers`: 4 decimals, ``NaN`` where
undefined, a null as an empty cell, intervals as ``value [low, high]``.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .. import _numbers
from .._errors import ParameterError
from .._formats import OUTPUT_SUFFIXES
from .._show import notes_of


def escape_md(text: str) -> str:
    """``text`` safe inside a Markdown table cell: pipes and backslashes escaped, and ``<`` as ``\\<``.

    A backslash before ``<`` is Markdown's own escape, so a name such as ``<script>`` shows as
    text without HTML entities, which a terminal would print as they are (``->`` stays ``->``);
    ``>`` alone cannot open a tag.
    """
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("<", "\\<")


def to_markdown(table: pa.Table, digits: int = 4) -> str:
    """A GitHub-flavoured Markdown table; cell text is escaped (names come from users' files).

    Parameters
    ----------
    table : pyarrow.Table
        Any table; floating-point columns are right-aligned.
    digits : int, default 4
        Decimals of floating-point cells (NaN is written ``NaN``, a null as an empty cell).

    Returns
    -------
    str
        The table, one line per row after the header and the alignment line.
    """
    names = table.column_names
    rows = table.to_pylist()
    lines = [
        "| " + " | ".join(escape_md(n) for n in names) + " |",
        "|" + "|".join("---:" if pa.types.is_floating(table.schema.field(n).type) else "---" for n in names) + "|",
    ]
    for row in rows:
        lines.append("| " + " | ".join(escape_md(_numbers.cell(row[n], digits)) for n in names) + " |")
    return "\n".join(lines) + "\n"


def format_table(table: pa.Table, digits: int = 4, max_rows: int | None = None) -> str:
    """Plain aligned text for a terminal.

    Parameters
    ----------
    table : pyarrow.Table
        Any table; numeric columns are right-aligned, the others left-aligned.
    digits : int, default 4
        Decimals of floating-point cells (NaN is written ``NaN``, a null as an empty cell).
    max_rows : int, optional
        Show at most this many rows, then a line saying how many more there are. Default: all.

    Returns
    -------
    str
        The header, a line of dashes and the rows.
    """
    names = table.column_names
    rows = table.to_pylist()
    shown = rows if max_rows is None or len(rows) <= max_rows else rows[:max_rows]
    cells = [[_numbers.cell(r[n], digits) for n in names] for r in shown]
    widths = [max([len(n)] + [len(c[i]) for c in cells]) for i, n in enumerate(names)]
    numeric = [
        pa.types.is_floating(table.schema.field(n).type) or pa.types.is_integer(table.schema.field(n).type)
        for n in names
    ]

    def line(values):
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line(names), line(["-" * w for w in widths])] + [line(c) for c in cells]
    if len(shown) < len(rows):
        out.append(f"... {len(rows) - len(shown)} more rows (use --out FILE for all)")
    return "\n".join(out) + "\n"


def pivot_measures(table: pa.Table) -> pa.Table:
    """Tidy (..., measure, value) -> one row per cell, one column per measure (display only).

    Parameters
    ----------
    table : pyarrow.Table
        Columns ``measure`` and ``value`` and any key columns, e.g. :meth:`Scores.to_arrow`.

    Returns
    -------
    pyarrow.Table
        The key columns, one row per distinct key, then one float64 column per measure; both in
        order of first appearance. A measure missing for a key is null.
    """
    fields = [c for c in ("value", "ci_low", "ci_high") if c in table.column_names]
    keys = [c for c in table.column_names if c not in ("measure", *fields)]
    measures = list(dict.fromkeys(table.column("measure").to_pylist()))
    rows: dict[tuple, dict] = {}
    key_cols = [table.column(k).to_pylist() for k in keys]
    values = {f: table.column(f).to_pylist() for f in fields}
    for i, m in enumerate(table.column("measure").to_pylist()):
        key = tuple(col[i] for col in key_cols)
        rows.setdefault(key, {}).update({(m, f): values[f][i] for f in fields})
    out = {k: [key[i] for key in rows] for i, k in enumerate(keys)}
    for m in measures:
        for f in fields:  # a measure's interval beside it: "f1", "f1 ci_low", "f1 ci_high"
            out[m if f == "value" else f"{m} {f}"] = pa.array([rows[key].get((m, f)) for key in rows], pa.float64())
    return pa.table(out)


def format_board(view: pa.Table, width: int = 120, max_rows: int | None = None) -> str:
    """A leaderboard as terminal text within ``width`` columns.

    Each measure's spec is printed once, over its ``macro``, ``micro`` and ``topics`` columns.
    Measures that do not fit beside the others go to further blocks below, each repeating the
    rank and system columns (a block holds one measure at least, so very long system names may
    still exceed ``width``).

    Parameters
    ----------
    view : pyarrow.Table
        :func:`fastmetrics._show.board_view`'s table (its system column may carry the user's name).
    width : int, default 120
        The widest line wanted.
    max_rows : int, optional
        Show at most this many rows, then a line saying how many more there are. Default: all.

    Returns
    -------
    str
    """
    names = view.column_names
    rows = view.to_pylist()
    shown = rows if max_rows is None or len(rows) <= max_rows else rows[:max_rows]
    cells = {n: [_numbers.cell(r[n]) for r in shown] for n in names}
    n_keys = 3 if "tier" in names else 2  # rank, system (and tier) open every block
    widths = {
        n: max([len(n.rpartition(" ")[2] if i >= n_keys else n)] + [len(c) for c in cells[n]])
        for i, n in enumerate(names)
    }
    groups = [names[i : i + 3] for i in range(n_keys, len(names), 3)]
    for group in groups:  # a spec wider than its columns widens the first of them
        label = group[0].rpartition(" ")[0]
        widths[group[0]] += max(0, len(label) - _span(group, widths))
    keys = names[:n_keys]
    blocks, used = [[]], _span(keys, widths)
    for group in groups:  # a block's line: the keys' span, then 3 spaces and each group's span
        if blocks[-1] and used + 3 + _span(group, widths) > width:
            blocks.append([])
            used = _span(keys, widths)
        blocks[-1].append(group)
        used += 3 + _span(group, widths)
    text = "\n\n".join(_board_block(keys, block, widths, cells, view.schema) for block in blocks) + "\n"
    if len(shown) < len(rows):
        text += f"... {len(rows) - len(shown)} more rows (use --out FILE for all)\n"
    notes = notes_of(view)
    return text + (notes + "\n" if notes else "")


def _span(columns, widths) -> int:
    """The characters ``columns`` take side by side, two spaces apart."""
    return sum(widths[n] for n in columns) + 2 * (len(columns) - 1)


def _board_block(keys, groups, widths, cells, schema) -> str:
    """One block of :func:`format_board`: the specs' line, the columns' line, dashes, the rows."""

    def column(n, value):
        numeric = pa.types.is_integer(schema.field(n).type) or pa.types.is_floating(schema.field(n).type)
        return value.rjust(widths[n]) if numeric else value.ljust(widths[n])

    def line(parts):
        return "   ".join("  ".join(p) for p in parts).rstrip()

    key_part = [[" " * widths[n] for n in keys]]
    spans = [_span(g, widths) for g in groups]
    specs = [[(g[0].rpartition(" ")[0] + " ").ljust(w, "-")[:w]] for g, w in zip(groups, spans)]
    header = [[column(n, n) for n in keys]] + [[column(n, n.rpartition(" ")[2]) for n in g] for g in groups]
    dashes = [["-" * widths[n] for n in keys]] + [["-" * widths[n] for n in g] for g in groups]
    out = [line(key_part + specs), line(header), line(dashes)]
    for i in range(len(cells[keys[0]])):
        out.append(
            line([[column(n, cells[n][i]) for n in keys]] + [[column(n, cells[n][i]) for n in g] for g in groups])
        )
    return "\n".join(out)


def nan_as_null(table: pa.Table) -> pa.Table:
    """The table with NaN in its float columns turned into nulls (undefined values in files).

    Parameters
    ----------
    table : pyarrow.Table

    Returns
    -------
    pyarrow.Table
    """
    for i, field in enumerate(table.schema):
        if pa.types.is_floating(field.type):
            column = table.column(i)
            if pc.any(pc.is_nan(column)).as_py():
                table = table.set_column(i, field.name, pc.if_else(pc.is_nan(column), None, column))
    return table


def output_path(path: str | os.PathLike) -> tuple[str, Path]:
    """Check an output path of :func:`write_table` before anything is computed.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    suffix : str
        The lower-case suffix, one of :data:`OUTPUT_SUFFIXES`.
    folder : pathlib.Path
        The existing folder the file goes to.

    Raises
    ------
    ParameterError
        ``path`` is a folder, has another suffix or lies in a folder that does not exist.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if path.is_dir():
        raise ParameterError(f"Cannot write '{path}': it is a folder; give a file name such as '{path / 'out.csv'}'.")
    if suffix not in OUTPUT_SUFFIXES:
        raise ParameterError(f"The output file must end in one of {', '.join(OUTPUT_SUFFIXES)}. Got '{path.name}'.")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ParameterError(f"Cannot write '{path}': the folder '{folder}' does not exist.")
    return suffix, folder


PROVENANCE_KEY = b"fastmetrics.provenance"


def write_table(table: pa.Table, path: str | os.PathLike, provenance: dict | None = None) -> None:
    """Write ``table`` by suffix (.parquet, .csv, .json, .md, .tex, .html), atomically.

    The data goes to a temporary file in the target folder, which is renamed over the target
    only once complete: a failure leaves no partial output behind.

    Parameters
    ----------
    table : pyarrow.Table
        The table; an undefined value (NaN) is written as null -- an empty CSV field, a Parquet
        null, JSON null -- so that pandas, polars and DuckDB read numeric columns; ``.tex`` is
        :func:`to_latex`, ``.html`` :func:`to_html`, ``.md`` :func:`to_markdown`.
    path : str or os.PathLike
        The output file, in an existing folder.
    provenance : dict, optional
        How the numbers were made (:func:`fastmetrics.cli.output.provenance`): kept as JSON under
        the key ``fastmetrics.provenance`` of a Parquet file's key-value metadata, and beside a
        CSV file as ``<file>.provenance.json`` (written atomically before the table).

    Raises
    ------
    ParameterError
        ``path`` is a folder, has another suffix, lies in a folder that does not exist, or no
        file can be created there.
    """
    path = Path(path)
    suffix, folder = output_path(path)
    if suffix in (".parquet", ".csv"):
        table = nan_as_null(table)
    if provenance is not None:
        record = json.dumps(provenance, indent=1, sort_keys=True, default=str)
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), PROVENANCE_KEY: record.encode()})
        if suffix == ".csv":
            sidecar = path.with_name(path.name + ".provenance.json")
            _atomic_write(sidecar, folder, lambda fh: fh.write(record.encode()))

    def write(fh):
        if suffix == ".parquet":
            import pyarrow.parquet as pq  # a module of its own to import: paid only by Parquet output

            pq.write_table(table, fh)
        elif suffix == ".csv":
            pacsv.write_csv(table, fh)
        elif suffix == ".json":
            rows = [
                {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in r.items()}
                for r in table.to_pylist()
            ]
            fh.write(json.dumps(rows, indent=1, allow_nan=False).encode())
        elif suffix == ".tex":
            fh.write(to_latex(table).encode())
        elif suffix == ".html":
            fh.write(to_html(table).encode())
        else:
            fh.write(to_markdown(table).encode())

    _atomic_write(path, folder, write)


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically.

    Parameters
    ----------
    text : str
        The content, whatever the suffix of ``path``.
    path : str or os.PathLike
        The output file, in an existing folder (see :func:`write_table` for the atomic write).
    """
    write_bytes(text.encode(), path)


def write_bytes(payload: bytes, path: str | os.PathLike) -> None:
    """Write ``payload`` to ``path`` atomically."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ParameterError(f"Cannot write '{path}': the folder '{folder}' does not exist.")
    _atomic_write(path, folder, lambda fh: fh.write(payload))


_WRITING = [0]  # output files being written now (see :func:`writing`)


def writing() -> bool:
    """Whether an output file is being written now.

    The command line's signal handler then unwinds (so that the temporary file is removed)
    instead of exiting at once.
    """
    return _WRITING[0] > 0


def _atomic_write(path: Path, folder: Path, write) -> None:
    """Write to a temporary file in the target folder, renamed over the target only once
    complete: a failure, Ctrl-C or SIGTERM leaves no partial output behind. Where the system
    offers unnamed files (Linux ``O_TMPFILE``) the data is written to one and only named at the
    end, so even SIGKILL leaves nothing but freed space."""
    if path.is_dir():
        raise ParameterError(f"Cannot write '{path}': it is a folder; give a file name such as '{path / 'out.csv'}'.")
    _WRITING[0] += 1
    try:
        _write_via_temporary(path, folder, write)
    finally:
        _WRITING[0] -= 1


def _write_via_temporary(path: Path, folder: Path, write) -> None:
    try:
        fd, tmp = _temporary(path, folder)
    except OSError as exc:
        raise ParameterError(f"Cannot write '{path}': {exc.strerror or exc} (creating a file in '{folder}').") from None
    try:
        with os.fdopen(fd, "wb", closefd=False) as fh:
            write(fh)
        if tmp is None:
            tmp = _name_unnamed(fd, path, folder)
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)  # temporary files are 0600; an output file gets the usual mode
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _temporary(path: Path, folder: Path):
    """``(fd, None)`` for an unnamed file in ``folder``, else ``(fd, name)`` of a hidden temp file."""
    flag = getattr(os, "O_TMPFILE", 0)
    if flag:
        try:
            return os.open(folder, flag | os.O_WRONLY, 0o600), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT):
                raise
    return tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)


def _name_unnamed(fd: int, path: Path, folder: Path) -> str:
    """Give the finished unnamed file a hidden name beside the target (then renamed over it)."""
    # linkat(..., AT_SYMLINK_FOLLOW) through /proc/self/fd: os.link's plain link() would link the
    # magic symlink itself; a directory fd makes Python call linkat
    proc = os.open("/proc/self/fd", os.O_RDONLY)
    try:
        for _ in range(100):
            name = str(folder / f".{path.name}.{os.urandom(4).hex()}.tmp")
            try:
                os.link(str(fd), name, src_dir_fd=proc, follow_symlinks=True)
                return name
            except FileExistsError:
                continue
    finally:
        os.close(proc)
    raise FileExistsError(f"no free temporary name beside '{path}'")


def property_matrix_markdown(table: pa.Table) -> str:
    """A property profile as a Markdown matrix of ✓ / ✗ / –, followed by every counterexample.

    Parameters
    ----------
    table : pyarrow.Table
        One row per verdict, columns ``measure, property, holds, counterexample``
        (:func:`fastmetrics.meta.axioms.axioms`): ``holds`` true (✓), false (✗) or null (–: not
        applicable or undecidable).

    Returns
    -------
    str
        One row per measure, one column per property (both in order of first appearance), then
        the counterexamples of the properties that fail.
    """
    rows = table.to_pylist()
    measures = list(dict.fromkeys(r["measure"] for r in rows))
    props = list(dict.fromkeys(r["property"] for r in rows))
    cell = {(r["measure"], r["property"]): r for r in rows}
    mark = {True: "✓", False: "✗", None: "–"}
    lines = ["| measure | " + " | ".join(props) + " |", "|---|" + "---|" * len(props)]
    for m in measures:
        lines.append(
            f"| {escape_md(m)} | "
            + " | ".join(mark[cell[(m, p)]["holds"]] if (m, p) in cell else "" for p in props)
            + " |"
        )
    failures = [r for r in rows if r["holds"] is False and r.get("counterexample")]
    if failures:
        lines += ["", "Counterexamples (smallest test set first):", ""]
        lines += [f"- {escape_md(r['measure'])} / {r['property']}: {escape_md(r['counterexample'])}" for r in failures]
    return "\n".join(lines) + "\n"


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def escape_latex(text: str) -> str:
    """Escape every LaTeX special character (names come from users' files)."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in str(text))


def to_latex(table: pa.Table, digits: int = 4, caption: str | None = None) -> str:
    """A booktabs ``tabular``, cells escaped, numbers right-aligned.

    In a ``table`` float when ``caption`` is given -- the format of ranx's LaTeX reports.
    """
    names = table.column_names
    rows = table.to_pylist()
    numeric = [pa.types.is_integer(f.type) or pa.types.is_floating(f.type) for f in table.schema]
    spec = "".join("r" if n else "l" for n in numeric)
    lines = []
    if caption is not None:
        lines += [r"\begin{table}[t]", r"\centering", f"\\caption{{{escape_latex(caption)}}}"]
    lines += [
        f"\\begin{{tabular}}{{{spec}}}",
        r"\toprule",
        " & ".join(escape_latex(n) for n in names) + r" \\",
        r"\midrule",
    ]
    for row in rows:
        lines.append(" & ".join(escape_latex(_numbers.cell(row[n], digits)) for n in names) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if caption is not None:
        lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def to_html(table: pa.Table, digits: int = 4) -> str:
    """A plain HTML ``<table>``, every cell escaped."""
    import html

    names = table.column_names
    head = "".join(f"<th>{html.escape(n)}</th>" for n in names)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(_numbers.cell(r[n], digits))}</td>" for n in names) + "</tr>"
        for r in table.to_pylist()
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"
