"""The report says how its numbers were made: the version, the command's options, and each input's
name, size and SHA-256 (issue 44: every written table and report records its provenance)."""

from __future__ import annotations

import hashlib
import json
import pathlib
import re

import pytest

from fastmetrics import __version__
from fastmetrics.cli import main
from tests.meta._data import semeval_paths


@pytest.mark.parametrize("suffix", [".html", ".md"])
def test_the_report_ends_with_how_its_numbers_were_made(tmp_path, suffix):
    runs, gold = semeval_paths()
    out = tmp_path / f"report{suffix}"
    argv = ["report", *runs[:3], "--gold", gold, "--measures", "f1,k"]
    assert main([*argv, "--resamples", "50", "--out", str(out), "--quiet"]) == 0
    text = out.read_text(encoding="utf-8")
    assert "How these numbers were made" in text
    if suffix == ".md":
        record = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))
    else:
        import html

        record = json.loads(html.unescape(re.search(r"<pre class='provenance'>(.*?)</pre>", text, re.S).group(1)))
    assert record["fastmetrics"] == __version__ and record["command"] == "report"
    assert record["options"]["measures"] == "f1,k" and record["options"]["resamples"] == 50
    digests = {r["name"]: r["sha256"] for r in record["inputs"]}
    assert set(digests) == {*runs[:3], gold}
    assert all(digests[p] == hashlib.sha256(pathlib.Path(p).read_bytes()).hexdigest() for p in digests)


def _record(tmp_path, argv, out):
    """The provenance record of the Parquet file ``main(argv)`` writes (its key-value metadata)."""
    import pyarrow.parquet as pq

    assert main([*argv, "--out", str(out), "--quiet"]) == 0
    return json.loads(pq.read_schema(out).metadata[b"fastmetrics.provenance"])


def test_the_inputs_are_hashed_beside_the_command_and_described_as_read(tmp_path, monkeypatch):
    # the digests are taken on a thread from the command's start; a file whose size changed after
    # its digest (here: before the count reads it) is described again, as it was read
    from fastmetrics.cli import output

    runs, gold = semeval_paths()
    run = tmp_path / "run.txt"
    run.write_bytes(pathlib.Path(runs[0]).read_bytes())
    started = []
    original = output._Hashing.__init__

    def spy(self, paths):
        original(self, paths)
        self.thread.join()
        started.append(list(self.paths))
        with open(run, "ab") as fh:  # the file grows after its digest (a blank line: the same rows)
            fh.write(b"\n")

    monkeypatch.setattr(output._Hashing, "__init__", spy)
    out = tmp_path / "board.parquet"
    record = _record(tmp_path, ["leaderboard", str(run), "--gold", gold, "--measures", "f1"], out)
    assert started == [[str(run), gold]]
    digests = {r["name"]: (r["bytes"], r["sha256"]) for r in record["inputs"]}
    data = run.read_bytes()
    assert digests[str(run)] == (len(data), hashlib.sha256(data).hexdigest())
    assert digests[gold][1] == hashlib.sha256(pathlib.Path(gold).read_bytes()).hexdigest()
    # once the command ends, neither its arguments (which hold its gold table) nor its digests stay
    assert output._EARLY == [None]


def test_no_digest_is_taken_for_a_printed_table(monkeypatch, capsys):
    from fastmetrics.cli import output

    monkeypatch.setattr(output, "_Hashing", lambda paths: pytest.fail("hashed inputs for nothing"))
    runs, gold = semeval_paths()
    assert main(["evaluate", runs[0], "--gold", gold, "--measures", "f1"]) == 0


def test_a_digest_is_taken_again_when_a_file_is_rewritten_unseen_or_a_folder_changes(tmp_path):
    """The same size and modification time (``cp -p``, ``os.utime``) do not hide a rewrite: the
    change time moves; a folder's files are listed again."""
    import os

    from fastmetrics.cli import output

    one, folder = tmp_path / "one.txt", tmp_path / "runs"
    one.write_bytes(b"a b c\n")
    folder.mkdir()
    (folder / "a.txt").write_bytes(b"1\n")
    early = output._Hashing([one, folder])
    early.thread.join()
    stat = one.stat()
    one.write_bytes(b"x y z\n")
    os.utime(one, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    (folder / "b.txt").write_bytes(b"2\n")
    assert early.described(one) == output._described(one)
    assert early.described(one)[0]["sha256"] == hashlib.sha256(b"x y z\n").hexdigest()
    assert [r["name"] for r in early.described(folder)] == [str(folder / "a.txt"), str(folder / "b.txt")]
    os.mkfifo(folder / "pipe")  # a pipe below a folder is not opened (it would take a reader's data)
    assert [r["name"] for r in output._described(folder)] == [str(folder / "a.txt"), str(folder / "b.txt")]
