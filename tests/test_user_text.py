"""What a user reads cites papers as people cite them (Amigó et al. (2019, §6.3)), never by this
project's shorthand for them ("seed 004") nor by its design notes ("DESIGN.md").

Checked where users read: every string in the package's source (help texts, the catalog's
records, error messages, docstrings, the report's captions -- comments are ours), the README and
the docs pages, and the printed help of every command.
"""

from __future__ import annotations

import io
import pathlib
import re
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SHORTHAND = re.compile(r"\bseeds?[ _-]?0{2}[0-4]\b|\bDESIGN\.md\b", re.IGNORECASE)


def shorthand_in_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string token of Python ``source`` that uses the shorthand."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING and SHORTHAND.search(token.string):
            found.append((token.start[0], SHORTHAND.search(token.string).group(0)))
    return found


def test_the_check_can_fail():
    source = 'x = 1  # seed 004 in a comment is ours\nhelp = "smoothing (seed 004 §5)"\n"""See DESIGN.md."""\n'
    assert shorthand_in_strings(source) == [(2, "seed 004"), (3, "DESIGN.md")]
    assert SHORTHAND.search("Seeds 000, 003") and SHORTHAND.search("SEED_003")
    assert not SHORTHAND.search("seed 0 of the bootstrap; Amigó et al. (2019, §6.3)")


@pytest.mark.parametrize(
    "path", sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "fastmetrics").rglob("*.py")), ids=str
)
def test_package_strings(path):
    found = shorthand_in_strings((ROOT / path).read_text(encoding="utf-8"))
    assert not found, f"{path}: {found} -- cite the paper by authors and year (docs/bibliography.md)"


def test_readme_and_docs():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")), *sorted((ROOT / "docs").rglob("*.py"))]
    found = [
        f"{page.relative_to(ROOT)}:{n}: {m.group(0)}"
        for page in pages
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        for m in [SHORTHAND.search(line)]
        if m
    ]
    assert not found, "\n".join(found)


def test_command_help():
    from fastmetrics.cli.program import build_parser

    parser = build_parser()
    texts = [parser.format_help()]
    for action in parser._subparsers._group_actions:
        texts += [sub.format_help() for sub in action.choices.values()]
    found = [m.group(0) for text in texts for m in [SHORTHAND.search(text)] if m]
    assert not found, found
