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
