"""Mutants of small Parquet, CSV and run files, and the worker process that reads them.

The mutants (:func:`mutants`) are seeded: byte and bit flips, truncations, deleted and repeated
slices anywhere; and, found by walking the file's Thrift (an independent walker, :func:`walk`),
integer fields of the page headers and the footer rewritten (huge, negative, bit 63 set, off by
one), list and string sizes, the bit width and run headers of dictionary-index pages, a page
copied over the next one, and the footer's statistics made to lie. CSV and run files get line
ends (lone CR, CR LF), quotes, fields and numbers edited.

The worker (``python fuzzing.py``) reads one case a line on stdin and, before reading it,
writes ``start <id>`` on stdout, so that a crash or a hang is put down to its case; then it
counts the file with fastmetrics (native readers on, their unexpected exceptions raised:
``fastmetrics.io.native._STRICT``), writes ``oracle <id>``, counts pyarrow's reading of the same
bytes, and writes the outcome as one JSON line.
"""

from __future__ import annotations

import io
import json
import sys
import traceback

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

# -- an independent Thrift compact walker --------------------------------------------------------


def _varint(data: bytes, at: int):
    value, shift, start = 0, 0, at
    while True:
        if at >= len(data) or shift > 70:
            raise ValueError("varint past the end")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, start, at


def walk(data: bytes, at: int, events: list, path: tuple = ()) -> int:
    """Walk one struct from ``at``; append ``(path, kind, start, stop)`` for every integer
    (``int``), size (``size``: of a list or a string) and string (``bytes``); return the end."""
    last = 0
    while True:
        head = data[at]
        at += 1
        if head == 0:
            return at
        kind, delta = head & 0x0F, head >> 4
        if delta:
            field = last + delta
        else:
            raw, _, at = _varint(data, at)
            field = (raw >> 1) ^ -(raw & 1)
        last = field
        at = _value(data, at, kind, events, path + (field,))


def _value(data, at, kind, events, path):
    if kind in (1, 2):
        return at
    if kind == 3:
        return at + 1
    if kind in (4, 5, 6):
        _, start, end = _varint(data, at)
        events.append((path, "int", start, end))
        return end
    if kind == 7:
        return at + 8
    if kind == 8:
        size, start, end = _varint(data, at)
        events.append((path, "size", start, end))
        events.append((path, "bytes", end, end + size))
        return end + size
    if kind in (9, 10):
        head = data[at]
        size, start, at = head >> 4, at, at + 1
        if size == 15:
            size, _, at = _varint(data, at)
        events.append((path, "size", start, at))
        for i in range(size):
            if head & 0x0F in (1, 2):
                at += 1
            else:
                at = _value(data, at, head & 0x0F, events, path + (i,))
        return at
    if kind == 12:
        return walk(data, at, events, path)
    raise ValueError(f"type {kind}")


def _uleb(value: int) -> bytes:
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | 0x80 if value else byte)
        if not value:
            return bytes(out)


def _zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


# the footer's fields that hold a position in the file, and those that hold a chunk's size
_OFFSETS = {(4, "chunk", 2), (4, "chunk", 4), (4, "chunk", 6), (4, "meta", 9), (4, "meta", 10), (4, "meta", 11)}
_OFFSETS |= {(4, "meta", 14), (4, "group", 5)}
_SIZES = {(4, "meta", 6), (4, "meta", 7), (4, "group", 2), (4, "group", 6)}


def _footer_role(path: tuple):
    """``(4, level, field)`` of a footer integer: level 'group', 'chunk' or 'meta'."""
    if len(path) == 3 and path[0] == 4:
        return (4, "group", path[2]), path[1], None
    if len(path) == 5 and path[:1] == (4,) and path[2] == 1:
        return (4, "chunk", path[4]), path[1], path[3]
    if len(path) == 6 and path[:1] == (4,) and path[2] == 1 and path[4] == 3:
        return (4, "meta", path[5]), path[1], path[3]
    return None, None, None


def splice(data: bytes, at: int, old: int, new: bytes) -> bytes:
    """``data`` with ``data[at:at + old]`` replaced by ``new``, the file kept consistent: in the
    data, every offset the footer holds past ``at`` and the sizes of the chunk (and row group)
    holding it moved by the difference; in the footer, its length. So a page header can be given
    a longer field, or a page inserted, and the file still reads up to the change."""
    lo, hi = _footer_span(data)
    delta = len(new) - old
    if at >= lo:
        footer = data[lo:at] + new + data[at + old : hi]
        return data[:lo] + footer + len(footer).to_bytes(4, "little") + b"PAR1"
    events = []
    walk(data, lo, events)
    chunks = {}  # (group, column) -> (start, size) of every chunk
    values = {}
    for path, kind, s, e in events:
        role, g, c = _footer_role(path)
        if kind == "int" and role is not None:
            raw = _varint(data, s)[0]
            values[(role, g, c)] = ((raw >> 1) ^ -(raw & 1), s, e)
    for (role, g, c), (value, _, _) in values.items():
        if role in ((4, "meta", 9), (4, "meta", 11)) and value > 0:
            start = min(value, chunks.get((g, c), (value, 0))[0])
            size = values.get(((4, "meta", 7), g, c), (0,))[0]
            chunks[(g, c)] = (start, size)
    home = next(((g, c) for (g, c), (start, size) in chunks.items() if start <= at < start + size), None)
    edits = []
    for (role, g, c), (value, s, e) in values.items():
        moved = value + delta if role in _OFFSETS and value > at else value
        if role in _SIZES and home is not None and g == home[0] and (c is None or c == home[1]):
            moved += delta
        if moved != value:
            edits.append((s, e, _uleb(_zigzag(moved))))
    footer = bytearray(data[lo:hi])
    for s, e, value in sorted(edits, reverse=True):
        footer[s - lo : e - lo] = value
    body = data[:at] + new + data[at + old : lo]
    return body + bytes(footer) + len(footer).to_bytes(4, "little") + b"PAR1"


# -- base files ----------------------------------------------------------------------------------


def base_table(rows: int, seed: int, string_ids: bool = True) -> pa.Table:
    rng = np.random.default_rng(seed)
    system = np.sort(rng.integers(0, 4, rows))
    topic = rng.integers(0, 3, rows)
    item = np.arange(rows)
    columns = {
        "system": [f"s{s}" for s in system] if string_ids else system.astype(np.int32),
        "topic": [f"t{t}" for t in topic] if string_ids else topic.astype(np.int64),
        "item": [f"d{i}" for i in item] if string_ids else item.astype(np.int32),
        "gold": rng.random(rows) < 0.4,
        "pred": rng.random(rows) < 0.5,
        "score": np.round(rng.random(rows), 3).astype(np.float32 if seed % 2 else np.float64),
    }
    return pa.table(columns)


PARQUET_OPTIONS = [
    {},
    {"compression": "none"},
    {"data_page_version": "2.0"},
    {"compression": "none", "data_page_version": "2.0", "data_page_size": 64, "write_batch_size": 16},
    {"use_dictionary": False},
    {"compression": "zstd"},
]


def parquet_bases(rows: int = 300) -> list:
    """``(name, bytes, count options)`` of small Parquet files of several writers' options."""
    out = []
    for k, options in enumerate(PARQUET_OPTIONS):
        sink = io.BytesIO()
        pq.write_table(base_table(rows, k, string_ids=k % 3 != 1), sink, row_group_size=rows // 2, **options)
        out.append((f"parquet{k}", sink.getvalue(), {"thresholds": 5 if k % 2 else None}))
    return out


def csv_bases(rows: int = 300) -> list:
    out = []
    for k, end in enumerate((b"\n", b"\r\n")):
        table = base_table(rows, 10 + k)
        lines = [b"system,topic,item,gold,pred,score"]
        for s, t, i, g, p, v in zip(*(table.column(c).to_pylist() for c in table.column_names)):
            lines.append(f"{s},{t},{i},{int(g)},{str(p).lower()},{v}".encode())
        out.append((f"csv{k}", end.join(lines) + end, {"thresholds": 5 if k else None}))
    return out


def run_bases(rows: int = 300) -> list:
    table = base_table(rows, 20)
    topics, items = table.column("topic").to_pylist(), table.column("item").to_pylist()
    scores, preds = table.column("score").to_pylist(), table.column("pred").to_pylist()
    semeval = "".join(
        f"{t}\t{i}\t{r}\t{s}\t{str(p).lower()}\n" for r, (t, i, s, p) in enumerate(zip(topics, items, scores, preds))
    )
    trec = "".join(f"{t} Q0 {i} {r} {s} sysA\n" for r, (t, i, s) in enumerate(zip(topics, items, scores)))
    return [
        ("run0", semeval.encode(), {"format": "run", "gold": "gold.txt"}),
        ("trec0", trec.encode(), {"thresholds": 5, "format": "trec", "gold": "qrels.txt"}),
    ]


def gold_files(rows: int = 300) -> dict:
    """The gold files the run files are counted against (not mutated): name -> bytes."""
    table = base_table(rows, 20)
    topics, items, gold = (table.column(c).to_pylist() for c in ("topic", "item", "gold"))
    return {
        "gold.txt": "".join(f"{t}\t{i}\t0\t0\t{str(g).lower()}\n" for t, i, g in zip(topics, items, gold)).encode(),
        "qrels.txt": "".join(f"{t} 0 {i} {int(g)}\n" for t, i, g in zip(topics, items, gold)).encode(),
    }


# -- mutations -----------------------------------------------------------------------------------


def _generic(rng, data: bytes) -> tuple[str, bytes]:
    b = bytearray(data)
    n = len(b)
    op = rng.integers(0, 6)
    if op == 0:
        for _ in range(rng.integers(1, 4)):
            b[rng.integers(0, n)] = rng.integers(0, 256)
        return "bytes", bytes(b)
    if op == 1:
        at = rng.integers(0, n)
        b[at] ^= 1 << rng.integers(0, 8)
        return "bit", bytes(b)
    if op == 2:
        return "truncate", bytes(b[: rng.integers(0, n)])
    if op == 3:
        at = rng.integers(0, n)
        return "delete", bytes(b[:at] + b[at + rng.integers(1, 16) :])
    if op == 4:
        at = rng.integers(0, n)
        size = rng.integers(1, 64)
        return "repeat", bytes(b[: at + size] + b[at : at + size] + b[at + size :])
    at = rng.integers(0, n)
    return "insert", bytes(b[:at] + bytes(rng.integers(0, 256, rng.integers(1, 8)).astype(np.uint8)) + b[at:])


_HUGE = [0, 1, -1, 2**31 - 1, 2**31, 2**32 + 3, 2**40, 2**62 + 1, 2**63 + 5, 2**64 - 1, -(2**62)]


def _footer_span(data: bytes):
    length = int.from_bytes(data[-8:-4], "little")
    return len(data) - 8 - length, len(data) - 8


def pages(data: bytes) -> list:
    """``(column, header start, body start, body end, header events, codec)`` of every page of
    the file, from the footer's offsets (read by pyarrow: the base files are sound)."""
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    out = []
    for g in range(meta.num_row_groups):
        for c in range(meta.num_columns):
            chunk = meta.row_group(g).column(c)
            at = chunk.dictionary_page_offset if chunk.has_dictionary_page else chunk.data_page_offset
            stop = at + chunk.total_compressed_size
            while at < stop:
                header = []
                body = walk(data, at, header)
                raw = next(_varint(data, s)[0] for p, k, s, e in header if p == (3,))
                end = body + ((raw >> 1) ^ -(raw & 1))
                out.append((chunk.path_in_schema, at, body, end, header, chunk.compression))
                at = end
    return out


def _page_events(data: bytes) -> tuple:
    """``(events, bodies)``: every page header's integers and sizes, and each page's
    ``(header start, body start, body end, codec)``."""
    found = pages(data)
    events = [(("page",) + p, k, s, e) for *_, header, _ in found for p, k, s, e in header]
    return events, [(start, body, end, codec) for _, start, body, end, _, codec in found]


def _rewrite_int(data: bytes, start: int, end: int, value: int, footer: bool) -> bytes:
    new = _uleb(_zigzag(value))
    out = data[:start] + new + data[end:]
    if footer and len(new) != end - start:
        length = int.from_bytes(data[-8:-4], "little") + len(new) - (end - start)
        out = out[:-8] + length.to_bytes(4, "little") + out[-4:]
    return out


def _parquet(rng, data: bytes) -> tuple[str, bytes]:
    op = rng.integers(0, 7)
    lo, hi = _footer_span(data)
    footer_events = []
    walk(data, lo, footer_events)
    footer_events = [(p, k, s + 0, e) for p, k, s, e in footer_events]
    page_events, bodies = _page_events(data)
    if op == 0:  # an integer or a size of the footer
        path, kind, s, e = footer_events[rng.integers(0, len(footer_events))]
        if kind == "bytes":
            return "footer bytes", _generic(rng, data)[1]
        return f"footer {kind} {path}", _rewrite_int(data, s, e, int(rng.choice(_HUGE)), True)
    if op == 1:  # an integer or a size of a page header
        path, kind, s, e = page_events[rng.integers(0, len(page_events))]
        if kind == "bytes":
            return "page bytes", _generic(rng, data)[1]
        value = int(rng.choice(_HUGE))
        if kind == "size" and data[s] & 0x0F and data[s] >> 4 != 15:  # a list's short header: its size in 4 bits
            return "page list size", splice(data, s, e - s, bytes([0xF0 | (data[s] & 0x0F)]) + _uleb(value))
        new = _uleb(value if kind == "size" else _zigzag(value))
        return f"page {kind} {path}", splice(data, s, e - s, new)
    if op == 2:  # the bit width or the first run header of an uncompressed dictionary-index page
        plain = [b for b in bodies if b[3] == "UNCOMPRESSED" and b[2] > b[1] + 2]
        if not plain:
            return _generic(rng, data)
        _, body, stop, _ = plain[rng.integers(0, len(plain))]
        b = bytearray(data)
        if rng.integers(0, 2):
            b[body + rng.integers(0, min(8, stop - body))] = int(rng.choice([0, 1, 7, 31, 32, 33, 64, 255]))
            return "bit width", bytes(b)
        at = body + rng.integers(0, min(12, stop - body - 1))
        header = _uleb(int(rng.choice([2**62 + 1, 2**63 | 2, 2**62 << 1, 2**40 + 1, 2**33, 17, 3])))
        return "run header", bytes(b[:at] + header + b[at + len(header) :])
    if op == 3:  # a page repeated: inserted again after itself, or copied over the next one
        k = rng.integers(0, len(bodies))
        a, _, end, _ = bodies[k]
        if rng.integers(0, 2) or k + 1 == len(bodies):
            return "duplicated page", splice(data, end, 0, data[a:end])
        b2, _, end2, _ = bodies[k + 1]
        return "page over the next", splice(data, b2, end2 - b2, data[a:end])
    if op == 4:  # lying statistics: a min or max value rewritten
        stats = [ev for ev in footer_events if ev[1] == "bytes" and len(ev[0]) >= 4 and ev[0][-2] == 12]
        if not stats:
            return _generic(rng, data)
        _, _, s, e = stats[rng.integers(0, len(stats))]
        value = bytearray(data[s:e])
        if value:
            value[rng.integers(0, len(value))] = rng.integers(0, 256)
        return "statistics", data[:s] + bytes(value) + data[e:]
    if op == 5:  # a Snappy block's stated length or first elements (native/snappy.py decodes them)
        snappy = [b for b in bodies if b[3] == "SNAPPY" and b[2] > b[1] + 2]
        if not snappy:
            return _generic(rng, data)
        _, body, stop, _ = snappy[rng.integers(0, len(snappy))]
        b = bytearray(data)
        for _ in range(rng.integers(1, 3)):
            b[body + rng.integers(0, min(24, stop - body))] = rng.integers(0, 256)
        return "snappy block", bytes(b)
    return _generic(rng, data)


def _text(rng, data: bytes) -> tuple[str, bytes]:
    lines = data.split(b"\n")
    k = rng.integers(1, max(2, len(lines) - 1))
    op = rng.integers(0, 6)
    edits = {
        0: lambda line: b"\r" + line,
        1: lambda line: line[: len(line) // 2] + b"\r" + line[len(line) // 2 :],
        2: lambda line: line.replace(b",", b'","', 1).replace(b"\t", b'"\t', 1),
        3: lambda line: line + b"," + line[:3],
        4: lambda line: line.replace(b"0.", b"1e999", 1).replace(b"s", b"\xff", 1),
        5: lambda line: b"",
    }
    if op < 6 and len(lines) > 2:
        lines[k] = edits[op](lines[k])
        return f"line edit {op}", b"\n".join(lines)
    return _generic(rng, data)


def mutants(seed: int, count: int, bases: list) -> list:
    """``count`` seeded mutants ``(name, bytes, options)`` of the base files, half of them of the
    structured kinds of their format."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(count):
        name, data, options = bases[k % len(bases)]
        try:
            structured = _parquet if name.startswith("parquet") else _text
            how, mutant = structured(rng, data) if rng.integers(0, 2) else _generic(rng, data)
        except (ValueError, IndexError, OSError, pa.ArrowException):
            how, mutant = _generic(rng, data)
        out.append((f"{name}/{how}/{k}", mutant, options))
    return out


# -- the worker ----------------------------------------------------------------------------------


def _counts(read):
    try:
        tensor = read()
    except ValueError as error:  # fastmetrics' errors are ValueErrors; so are many of pyarrow's
        import fastmetrics as fm

        if isinstance(error, fm.FastmetricsError):
            return {"refused": str(error)}
        return {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()[-1500:]}
    except Exception as error:  # noqa: BLE001 (every other failure is reported, by its type)
        return {"error": f"{type(error).__name__}: {error}", "trace": traceback.format_exc()[-1500:]}
    return {"counts": np.asarray(tensor.counts).tolist(), "shape": list(np.asarray(tensor.counts).shape)}


def _oracle(path: str, suffix: str, options: dict):
    """pyarrow's reading of the file, counted (run files: fastmetrics' pyarrow-only reading)."""
    import pyarrow.csv as pacsv

    import fastmetrics as fm
    from fastmetrics.io.native.csv import CONVERT

    # the columns the count reads: pyarrow's refusal of a column it does not read is no answer
    wanted = ["system", "topic", "item", "gold", "pred" if options.get("thresholds") is None else "score"]
    if suffix == ".parquet":
        return lambda: fm.count(pq.read_table(path, columns=_present(pq.read_schema(path).names, wanted)), **options)
    if suffix == ".csv":

        def read():
            names = pacsv.read_csv(path, convert_options=CONVERT).column_names
            convert = pacsv.ConvertOptions(
                strings_can_be_null=True,
                null_values=[""],
                check_utf8=CONVERT.check_utf8,
                include_columns=_present(names, wanted),
            )
            return fm.count(pacsv.read_csv(path, convert_options=convert), **options)

        return read
    return lambda: fm.count(path, native=False, **options)


def _present(names, wanted) -> list:
    """The columns a count reads, among those the file has (a damaged name is a column it lacks)."""
    return [c for c in wanted if c in names]


def serve() -> None:
    import fastmetrics as fm
    from fastmetrics.io import native
    from fastmetrics.io.native import csv

    native._STRICT = True
    csv.MIN_BYTES = 0  # small files too are parsed natively
    for line in sys.stdin:
        case = json.loads(line)
        print(f"start {case['id']}", flush=True)
        options = case["options"]
        got = _counts(lambda path=case["path"], options=options: fm.count(path, **options))
        print(f"oracle {case['id']}", flush=True)
        suffix = "." + case["path"].rsplit(".", 1)[-1]
        table_options = {k: v for k, v in options.items() if k != "format" or suffix not in (".parquet", ".csv")}
        want = _counts(_oracle(case["path"], suffix, table_options))
        print(json.dumps({"id": case["id"], "got": got, "want": want}), flush=True)


if __name__ == "__main__":
    serve()
