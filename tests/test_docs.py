"""The documentation: the site builds with warnings as errors, its generated pages cover the
registry and the parser, and every example of the README and the docs runs.

Examples: every fenced ``python`` and ``bash`` block of ``README.md`` and ``docs/**/*.md`` runs, a
page's blocks in order, in one folder holding the demo data (``data/demo/``: what ``fastmetrics
demo`` writes) and one Python namespace, so a block may use what an earlier one made. A ``text``
block right after a code block is its printed output and is compared line by line (trailing
blanks ignored; a line ``...`` stands for any number of lines). A block that must not run -- the
set-up commands, which make a virtual environment -- is marked by the line ``<!-- not run:
<why> -->`` before it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from fastmetrics import demo
from tests._program import shell_env

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
RUN = ("python", "bash")
NOT_RUN = re.compile(r"<!--\s*not run:\s*(\S.*?)\s*-->")
FENCE = re.compile(r"^(\s*)```+\s*([\w-]*)")


@dataclass
class Block:
    lang: str
    code: str
    line: int  # of the opening fence, 1-based
    output: str | None = None
    not_run: str | None = None


def blocks(page: Path) -> list[Block]:
    """The fenced blocks of ``page`` that run, each with its expected output, if shown."""
    lines = page.read_text().splitlines()
    found, i, pending, last = [], 0, None, None
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            note = NOT_RUN.search(lines[i])
            if note:
                pending = note.group(1)
            elif lines[i].strip():
                pending, last = None, None
            i += 1
            continue
        indent, lang, start = match.group(1), match.group(2), i
        i += 1
        body = []
        while i < len(lines) and not lines[i].strip().startswith("```"):
            body.append(lines[i][len(indent) :])
            i += 1
        i += 1
        if lang in RUN:
            last = Block(lang, "\n".join(body) + "\n", start + 1, not_run=pending)
            found.append(last)
        elif lang == "text" and last is not None and last.output is None:
            last.output = "\n".join(body)
            last = None
        else:
            last = None
        pending = None
    return found


def _matches(expected: str, got: str) -> bool:
    want = [line.rstrip() for line in expected.strip("\n").splitlines()]
    have = [line.rstrip() for line in got.strip("\n").splitlines()]
    pattern = "".join("(?:.*\n)*?" if w == "..." else re.escape(w) + "\n" for w in want)
    return re.fullmatch(pattern, "\n".join(have) + "\n") is not None


def test_expected_output_is_matched_line_by_line():
    """The comparison itself: every line in order, ``...`` for any number of lines (none too)."""
    assert _matches("a\nb", "a\nb  \n")
    assert _matches("\na\n...\nd\n", "a\nb\nc\nd\n")
    assert _matches("a\n...\nb", "a\nb\n")
    assert not _matches("a\nb", "a\nc\n")
    assert not _matches("a\nb", "a\nb\nc\n")
    assert not _matches("a\n...\nb", "a\nc\n")


@pytest.fixture(scope="module")
def demo_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("docs")
    demo.write(folder / "data" / "demo")
    return folder


def _run(block: Block, folder: Path, namespace: dict, where: str) -> str:
    if block.lang == "python":
        out = io.StringIO()
        previous = Path.cwd()
        os.chdir(folder)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(block.code, where, "exec"), namespace)
        finally:
            os.chdir(previous)
        return out.getvalue()
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", COLUMNS="120")
    env = shell_env(env)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", block.code], cwd=folder, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, f"{where} exited with {done.returncode}:\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_runs(page, demo_folder, tmp_path):
    """Each page's examples in order, in a copy of the demo folder of its own."""
    _run_examples(blocks(page), str(page.relative_to(ROOT)), demo_folder, tmp_path)


@pytest.mark.parametrize("builder", ["measure_catalog"])
def test_every_example_of_a_generated_page_runs(builder, demo_folder, tmp_path):
    """The pages docs/hooks.py generates run their examples the same way (the catalog's section on
    the ufuncs: numpy, dask and xarray inputs)."""
    page = tmp_path / f"{builder}.md"
    page.write_text(getattr(_hooks(), builder)())
    _run_examples(blocks(page), f"docs/hooks.py {builder}()", demo_folder, tmp_path)


def _run_examples(found: list, name: str, demo_folder: Path, tmp_path: Path) -> None:
    if not found:
        pytest.skip("no example on this page")
    folder = tmp_path / "work"
    subprocess.run(["cp", "-r", str(demo_folder), str(folder)], check=True)
    namespace: dict = {"__name__": "__docs__"}
    for block in found:
        where = f"{name}:{block.line}"
        if block.not_run:
            continue
        got = _run(block, folder, namespace, where)
        if block.output is not None:
            assert _matches(block.output, got), f"{where} printed:\n{got}\nexpected:\n{block.output}"


def _hooks():
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import hooks
    finally:
        sys.path.remove(str(ROOT / "docs"))
    return hooks


def test_few_examples_are_not_run():
    """Only the set-up commands are exempt, each with its reason."""
    exempt = [(page.name, b.line, b.not_run) for page in PAGES for b in blocks(page) if b.not_run]
    assert len(exempt) <= 3, exempt


def test_the_generated_pages_cover_the_registry_and_the_parser():
    hooks = _hooks()
    from fastmetrics.cli import build_parser
    from fastmetrics.measures import registry

    catalog = hooks.measure_catalog()
    for measure in registry.all_measures():
        assert f"### `{measure.name}`" in catalog
        assert measure.undefined_when in catalog
        if measure.kind == "point":
            assert f"| ufunc | `fm.ufuncs.{measure.name}(tp, fp, fn, tn" in catalog
        else:
            assert f"`{measure.name}`" in catalog.split("## Measures of one confusion matrix")[0]
    reference = hooks.cli_reference()
    commands = next(a for a in build_parser()._actions if hasattr(a, "choices") and isinstance(a.choices, dict))
    for name in commands.choices:
        assert f"## {name}\n" in reference


def test_the_site_builds_with_warnings_as_errors(tmp_path):
    """``mkdocs build --strict``: a renamed function, a broken link or a docstring that does not
    parse fails it. Skipped without the docs extra (``pip install -e '.[docs]'``), required with
    ``CI=true`` (``.ci/run`` installs the extra)."""
    for module in ("mkdocs", "mkdocstrings", "material", "latex2mathml"):
        if importlib.util.find_spec(module) is None:
            need = f"the docs extra ({module} is not installed): pip install -e '.[docs]'"
            if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
                pytest.fail(f"CI is set, so the strict build is required: it needs {need}")
            pytest.skip(f"the strict build needs {need}; with CI=true it fails instead")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert done.returncode == 0, done.stderr[-4000:]
    site = tmp_path / "site"
    assert (site / "reference" / "measures" / "index.html").exists()
    _offline(site)
    _api_page((site / "reference" / "api" / "index.html").read_text(encoding="utf-8"))


# a script, stylesheet, font, image or frame that the browser would fetch from the network
_FETCHED = re.compile(r"<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)=[\"']?(?:https?:)?//", re.IGNORECASE)


def _offline(site: Path) -> None:
    """The site reads the same without network: nothing fetched from elsewhere (no CDN script, no
    web font), and the catalog's math is MathML made at build time, not TeX left for a script."""
    fetched = {
        str(page.relative_to(site)): _FETCHED.findall(page.read_text(encoding="utf-8")) for page in site.rglob("*.html")
    }
    assert not {page: hits for page, hits in fetched.items() if hits}
    catalog = (site / "reference" / "measures" / "index.html").read_text(encoding="utf-8")
    assert catalog.count('<math xmlns="http://www.w3.org/1998/Math/MathML" display="block">') >= 40
    assert "arithmatex" not in catalog and "\\frac" not in catalog


def _api_page(page: str) -> None:
    """Docstrings' Sphinx roles are cross-references, never raw markup, and parameters documented
    together (``pred, score : str``) each show their own default."""
    assert not re.findall(r":(?:mod|func|class|meth|attr|exc):`", page)
    assert page.count('class="autorefs autorefs-internal"') >= 20
    rows = re.sub(r"\s+", " ", page.split('id="fastmetrics.count.api.count"')[1])
    for name in ("pred", "score"):
        row = re.search(rf"<td> <code>{name}</code> </td>.*?</tr>", rows)
        assert row and row.group(0).endswith(f"<code>&#39;{name}&#39;</code> </td> </tr>"), row
