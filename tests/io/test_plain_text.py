"""The numba reader of plain TREC runs and qrels (:mod:`fastmetrics.io._text`) against Arrow's parser.

Each file is read by both (the numba reader switched off for the second) and the tables must be
equal; files the numba reader does not cover must come back as None from it, and still read.
"""

from __future__ import annotations

import numpy as np
import pytest

from fastmetrics.io import runfiles
from fastmetrics.io import source as io_source
from fastmetrics.io.native import text as _text
from fastmetrics.io.runfiles import QRELS, TREC_RUN, TREC_RUN_UNTAGGED

RUN_LAYOUTS = {6: TREC_RUN, 5: TREC_RUN_UNTAGGED}


def _both(tmp_path, monkeypatch, text: bytes, layouts=RUN_LAYOUTS):
    path = tmp_path / "file"
    path.write_bytes(text)
    fast = runfiles._read_plain_text(text, layouts)
    with monkeypatch.context() as m:
        m.setattr(runfiles, "_read_plain_text", lambda data, layouts: None)
        slow = runfiles._read_text(str(path), layouts)
    return fast, slow


def _random_run(seed: int, lines: int = 3000) -> bytes:
    rng = np.random.default_rng(seed)
    blanks = [" ", "\t", "  ", " \t ", "\x0b", "\x0c"]
    ends = ["\n", "\r\n", "\r"]
    out = []
    for i in range(lines):
        fields = [
            f"q{rng.integers(0, 50)}",
            "Q0",
            f"doc-{rng.integers(0, 10**6)}",
            str(i + 1),
            rng.choice(["1", "-2.5", "0.000123", "3e-4", "12345678.125", "-0", "7E+2", "0.1", "250.00"]),
            f"tag{rng.integers(0, 3)}",
        ]
        out.append(rng.choice(blanks) * int(rng.random() < 0.1) + str(rng.choice(blanks)).join(fields))
        out.append(rng.choice(blanks) * int(rng.random() < 0.1) + str(rng.choice(ends)))
        if rng.random() < 0.02:
            out.append("# a comment line\n" if rng.random() < 0.5 else "   \n")
    return "".join(out).encode()


@pytest.mark.parametrize("seed", range(4))
def test_random_runs_equal_arrow(tmp_path, monkeypatch, seed):
    text = _random_run(seed)
    if seed == 1:
        text = b"\xef\xbb\xbf" + text
    fast, slow = _both(tmp_path, monkeypatch, text)
    assert fast is not None
    assert fast[1] is slow[1]
    assert fast[0].equals(slow[0])


def test_many_chunks_and_small_guesses(tmp_path, monkeypatch):
    # long lines after a short first one: the chunks' arrays are too small at first and grow
    text = b"1 Q0 d 1 1 t\n" + b"".join(
        b"%d Q0 %s %d %d.5 tagtagtagtag\n" % (i % 7, b"x" * (1 + i % 300), i, i) for i in range(20000)
    )
    monkeypatch.setattr(_text, "_MIN_CHUNK", 1 << 12)
    fast, slow = _both(tmp_path, monkeypatch, text)
    assert fast is not None
    assert fast[0].equals(slow[0])


def test_untagged_runs_and_qrels(tmp_path, monkeypatch):
    fast, slow = _both(tmp_path, monkeypatch, b"1 Q0 a 1 0.5\n1 Q0 b 2 0.25\n")
    assert fast[1] is slow[1] is TREC_RUN_UNTAGGED and fast[0].equals(slow[0])
    fast, slow = _both(tmp_path, monkeypatch, b"1 0 a 1\n1 0 b 0\n\n2 0 a 3\n", {4: QRELS})
    assert fast[0].equals(slow[0])


def test_ids_of_every_length_and_byte_read_as_split_reads_them():
    """Ids read 8 bytes at a time: ids of 1 to 40 bytes (words and tails), with control bytes, the
    printable bounds (``!``, ``~``, DEL) anywhere in them, each blank and line end right after,
    and the file's last id ending at its last byte -- the strings ``bytes.split`` gives."""
    rng = np.random.default_rng(5)
    alphabet = np.frombuffer(b"abcXYZ019-_./:!~\x7f\x01\x08\x0e\x1f", np.uint8)
    lines = []
    for n in range(1, 41):
        for _ in range(3):
            doc = bytes(rng.choice(alphabet, n))
            blank = [b" ", b"\t", b"\x0b", b"\x0c"][rng.integers(4)]
            lines.append(b"7" + blank + b"Q0 " + doc + blank + b"1 2.5 " + doc[::-1] + [b"\n", b"\r\n", b"\r"][n % 3])
    text = b"".join(lines) + b"8 Q0 last 1 1 ends-at-the-last-byte"
    fields = _text.read_fields(
        text, [_text.STRING, _text.IGNORED, _text.STRING, _text.IGNORED, _text.NUMBER, _text.STRING]
    )
    expected = [line.split() for line in text.splitlines()]
    assert fields[1].to_pylist() == [f[2].decode() for f in expected]
    assert fields[3].to_pylist() == [f[5].decode() for f in expected]
    for at in range(24):  # a byte outside ASCII anywhere in a long id: left to Arrow's parser
        doc = bytearray(b"http://www.example.com/articles/")
        doc[at] = 0xE9
        assert _text.read_fields(b"1 Q0 " + bytes(doc) + b" 1 1 t\n", [0, 2, 0, 2, 1, 0]) is None


@pytest.mark.parametrize(
    "line",
    [
        b"1 Q0 a 1 1. t",  # numbers spelled otherwise: Arrow's parser reads them
        b"1 Q0 a 1 .5 t",
        b"1 Q0 a 1 +1 t",
        b"1 Q0 a 1 inf t",
        b"1 Q0 a 1 1e30 t",
        b"1 Q0 a 1 12345678901234567890 t",
        b"1 Q0 a 1 0.30000000000000004441 t",
        b"1 Q0 \xc3\xa9 1 1 t",  # UTF-8 outside ASCII
    ],
)
def test_what_it_leaves_to_arrow(tmp_path, monkeypatch, line):
    fast, slow = _both(tmp_path, monkeypatch, b"1 Q0 a 1 2 t\n" + line + b"\n")
    assert fast is None
    assert slow[0].num_rows == 2


@pytest.mark.parametrize("line", [b"1 Q0 a 1 x t", b"1 Q0 a 1 2", b"1 Q0 a 1 2 t extra"])
def test_bad_lines_are_named_by_the_general_reader(tmp_path, line):
    path = tmp_path / "run"
    path.write_bytes(b"1 Q0 a 1 2 t\n" + line + b"\n")
    assert runfiles._read_plain_text(path.read_bytes(), RUN_LAYOUTS) is None
    with pytest.raises(ValueError, match=r"line 2"):
        runfiles._read_text(str(path), RUN_LAYOUTS)


@pytest.mark.parametrize(
    "text, value",
    [
        (b"0.1", 0.1),
        (b"-2.50", -2.5),
        (b"3e-4", 3e-4),
        (b"7E+2", 700.0),
        (b"9007199254740992", 2.0**53),
        (b"-0.0", -0.0),
    ],
)
def test_numbers_are_exact(text, value):
    ok, got = _text._number(np.frombuffer(text, np.uint8), 0, len(text))
    assert ok and got == value and np.signbit(got) == np.signbit(value)


def test_many_run_files_read_at_once_equal_one_by_one(tmp_path):
    """Several run files are read a file a thread (io_source._run_files_at_once): the same parts,
    in the order given, as each file read alone -- TREC runs and SemEval-style run files."""
    paths = []
    for i in range(5):
        path = tmp_path / f"team{i}.trec"
        path.write_bytes(_random_run(10 + i, lines=400 + 37 * i))
        paths.append(str(path))
    source = io_source.open_source(paths, format="trec")
    assert source.names == paths
    for part, path in zip(source.parts, paths):
        assert part.equals(runfiles.read_trec_run(path))
    runs = []
    for i in range(3):
        path = tmp_path / f"run{i}.txt"
        path.write_text(
            "".join(
                f"q{t} d{d} {d + 1} {0.5 - d / 100:.2f} {'true' if d % 3 else 'false'}\n"
                for t in range(4)
                for d in range(6 + i)
            )
        )
        runs.append(str(path))
    source = io_source.open_source(runs, format="run")
    for part, path in zip(source.parts, runs):
        alone = runfiles.read_run_file(path)
        assert part.drop_columns(["system"]).equals(alone)
        assert set(part.column("system").to_pylist()) == {io_source.run_system_name(path)}


def test_the_first_bad_run_file_in_order_is_named(tmp_path):
    """Read at once, the files' errors are raised in the order given: the second file's, not the
    third's, whichever thread finished first."""
    good, second, third = (tmp_path / name for name in ("a.trec", "b.trec", "c.trec"))
    good.write_bytes(_random_run(1, lines=200))
    second.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 b 2 x t\n")
    third.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t extra\n")
    with pytest.raises(ValueError, match=r"b\.trec"):
        io_source.open_source([str(good), str(second), str(third)], format="trec")
    with pytest.raises(ValueError, match=r"c\.trec"):
        io_source.open_source([str(good), str(third), str(second)], format="trec")


def test_arrays_from_a_used_pool_read_the_same(tmp_path):
    """The reader's arrays come from Arrow's pool uninitialised: every offset and number it
    returns is written first (the pool is filled with garbage before the read)."""
    from fastmetrics import _memory

    text = _random_run(3, lines=2000)
    expected = runfiles._read_plain_text(text, RUN_LAYOUTS)[0]
    for _ in range(3):
        dirty = _memory.empty(1 << 24, np.uint8)
        dirty.fill(0xAB)
        del dirty
        got = runfiles._read_plain_text(text, RUN_LAYOUTS)[0]
        got.validate(full=True)
        assert got.equals(expected)


def test_an_earlier_bad_input_is_named_before_a_later_one(tmp_path):
    """The formats are detected and the run files read ahead, but the error raised is the first
    in the order given: a qrels-shaped run before a bad TREC run, a bad TREC run before a file
    that cannot even be detected (a corrupt gzip)."""
    good = tmp_path / "a.trec"
    good.write_bytes(_random_run(2, lines=200))
    qrels_shaped = tmp_path / "b.txt"
    qrels_shaped.write_bytes(b"1 0 d1 1\n1 0 d2 0\n")
    bad = tmp_path / "c.trec"
    bad.write_bytes(b"1 Q0 a 1 2 t\n1 Q0 b 2 x t\n")
    corrupt = tmp_path / "d.trec.gz"
    corrupt.write_bytes(b"\x1f\x8b\x08\x00not gzip at all")
    with pytest.raises(ValueError, match=r"b\.txt"):
        io_source.open_source([str(good), str(qrels_shaped), str(bad)])
    with pytest.raises(ValueError, match=r"c\.trec"):
        io_source.open_source([str(good), str(bad), str(corrupt)])
    with pytest.raises(ValueError, match=r"d\.trec\.gz"):
        io_source.open_source([str(good), str(corrupt), str(bad)])


def test_no_file_after_a_bad_one_is_read(tmp_path, monkeypatch):
    """The first bad run file ends the call: the files after it are not parsed (each good file
    takes 20 ms here, the bad one fails at once, so the other thread reads one or two meanwhile)."""
    import time

    paths = [str(tmp_path / "a.trec")] + [str(tmp_path / f"r{i:02d}.trec") for i in range(20)]
    for path in paths:
        with open(path, "w") as handle:
            handle.write("1 Q0 d 1 1.0 t\n")
    read = []

    def read_trec_run(path, native=True):
        read.append(path)
        if path == paths[0]:
            raise io_source.InputError(f"Cannot read TREC run '{path}', line 2")
        time.sleep(0.02)
        return io_source.pa.table({"topic": ["1"], "item": ["d"], "rank": [1.0], "score": [1.0], "system": ["t"]})

    monkeypatch.setattr(io_source, "read_trec_run", read_trec_run)
    with pytest.raises(ValueError, match=r"Cannot read TREC run '.*a\.trec', line 2"):
        io_source.open_source(paths, format="trec")
    assert paths[0] in read and len(read) <= 3


def test_a_file_parsed_on_a_pool_thread_as_one_chunk_equals_it_in_chunks():
    """A file read on a pool thread (several run files, a file a thread) is parsed as one chunk,
    on the calling thread as several joined: the same arrays."""
    from fastmetrics import _threads

    text = _random_run(4, lines=40_000)
    kinds = [_text.STRING, _text.IGNORED, _text.STRING, _text.NUMBER, _text.NUMBER, _text.STRING]
    assert len(text) > 4 * _text._MIN_CHUNK  # cut in several chunks off the pool
    chunked = _text.read_fields(text, kinds)
    whole, again = _threads.on_threads(_text.read_fields, [(text, kinds), (text, kinds)])
    for arrays in (whole, again):
        assert len(arrays) == len(chunked) and all(a.equals(b) for a, b in zip(arrays, chunked))


@pytest.mark.parametrize("where", [0.0, 0.5, 0.999])
def test_a_chunk_that_gives_up_stops_the_read_in_chunks(monkeypatch, where):
    """A line the reader does not take (here a number spelled ``1.``) in the first, a middle or
    the last of many chunks: the whole read gives up (Arrow's parser then reads the file), and the
    chunks after it are not waited for in vain."""
    monkeypatch.setattr(_text, "_MIN_CHUNK", 1 << 12)
    lines = [b"%d Q0 doc%d %d %d.25 tag\n" % (i % 9, i, i, i) for i in range(20000)]
    lines[int(where * (len(lines) - 1))] = b"3 Q0 bad 1 1. tag\n"
    kinds = [_text.STRING, _text.IGNORED, _text.STRING, _text.NUMBER, _text.NUMBER, _text.STRING]
    assert _text.read_fields(b"".join(lines), kinds) is None
    lines[int(where * (len(lines) - 1))] = b"3 Q0 good 1 1.5 tag\n"
    fields = _text.read_fields(b"".join(lines), kinds)
    assert fields[1].to_pylist() == [line.split()[2].decode() for line in lines]
    assert fields[3].to_numpy().tolist() == [float(line.split()[4]) for line in lines]


def test_an_error_in_one_chunk_is_raised_after_the_others_end(monkeypatch):
    """A chunk whose copy fails (a bug, or MemoryError) raises from the read, and the threads
    waiting for that chunk's turn end instead of waiting for ever."""
    monkeypatch.setattr(_text, "_MIN_CHUNK", 1 << 12)
    copies = []
    original = _text._join_chunk

    def failing(*args):
        copies.append(args[4])
        if len(copies) == 3:
            raise MemoryError("no room")
        return original(*args)

    monkeypatch.setattr(_text, "_join_chunk", failing)
    text = b"".join(b"%d Q0 doc%d %d 1.5 tag\n" % (i % 9, i, i) for i in range(20000))
    with pytest.raises(MemoryError):
        _text.read_fields(text, [_text.STRING, _text.IGNORED, _text.STRING, _text.NUMBER, _text.NUMBER, _text.STRING])
    assert len(copies) == 3  # no chunk after the failed one was copied


def test_a_file_whose_joined_columns_the_system_refuses_is_read_by_arrow(tmp_path, monkeypatch):
    """The joined columns take several times a file's bytes of address space (each string column
    sized for the whole file): where the system refuses that, the native reader gives up and
    Arrow's parser reads the file, the same table."""
    monkeypatch.setattr(_text, "_MIN_CHUNK", 1 << 12)
    run = tmp_path / "run.txt"
    run.write_bytes(b"".join(b"%d Q0 doc%d %d %d.5 tag\n" % (i % 9, i, i, i) for i in range(20000)))
    expected = runfiles.read_trec_run(str(run))
    size = run.stat().st_size
    original = _text._memory.empty

    def refusing(shape, dtype):
        if int(np.prod(shape)) * np.dtype(dtype).itemsize >= 2 * size:  # the joined strings only
            raise MemoryError("address space")
        return original(shape, dtype)

    monkeypatch.setattr(_text._memory, "empty", refusing)
    kinds = [_text.STRING, _text.IGNORED, _text.STRING, _text.NUMBER, _text.NUMBER, _text.STRING]
    assert _text.read_fields(run.read_bytes(), kinds) is None
    assert runfiles.read_trec_run(str(run)).equals(expected)
