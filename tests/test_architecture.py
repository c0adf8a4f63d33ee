"""The layout of docs/architecture.md, kept true: import directions between stages, no stage
importing another from inside a function, and short functions.

Data flows one way -- io → count → tensor → measures → meta / board → pipeline → report -- and a
stage may import only the stages before it (``ALLOWED``). The command line and the package root
sit on top and may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "fastmetrics"

# module prefix -> stage (the longest matching prefix wins)
STAGES = {
    "fastmetrics._errors": "base",
    "fastmetrics._seeding": "base",
    "fastmetrics._memory": "base",
    "fastmetrics._version": "base",
    "fastmetrics._progress": "base",
    "fastmetrics._threads": "base",
    "fastmetrics._strings": "base",
    "fastmetrics._html": "base",
    "fastmetrics._formats": "base",
    "fastmetrics._stages": "base",
    "fastmetrics._numbers": "base",
    "fastmetrics.io": "io",
    "fastmetrics.tensor": "tensor",
    "fastmetrics.count": "count",
    "fastmetrics.measures": "measures",
    "fastmetrics.meta": "meta",
    "fastmetrics.board": "board",
    "fastmetrics.pipeline": "pipeline",
    "fastmetrics.report": "report",
    "fastmetrics.dask": "dask",
    "fastmetrics.demo": "demo",
    "fastmetrics.cli": "cli",
    "fastmetrics": "root",
}
BASE = {"base"}
ALLOWED = {
    "base": BASE,
    "io": BASE,
    "tensor": BASE,
    "count": BASE | {"io", "tensor"},
    "measures": BASE | {"tensor"},
    # split-half stability (seed 001 §5) re-counts halves of the items: meta may count
    "meta": BASE | {"io", "tensor", "count", "measures"},
    "board": BASE | {"tensor", "measures", "meta"},
    "pipeline": BASE | {"io", "tensor", "count", "measures", "meta", "board"},
    # the report renders the pipeline's data; it reads measure records for the definitions table
    "report": BASE | {"measures", "pipeline"},
    "dask": BASE | {"io", "tensor", "count"},
    "demo": BASE,
    "cli": set(STAGES.values()),
    "root": set(STAGES.values()),
}
# imports inside functions: optional or heavy third-party modules only; between our own modules,
# only the command line's per-command loading (``fastmetrics --help`` stays fast) and the
# package's lazy attributes
LAZY_OWN_IMPORTS = {"cli", "root"}
MAX_LINES = 60


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _stage(module: str) -> str:
    for prefix in sorted(STAGES, key=len, reverse=True):
        if module == prefix or module.startswith(prefix + "."):
            return STAGES[prefix]
    raise AssertionError(f"module {module} belongs to no stage: add it to STAGES and docs/architecture.md")


def _imported(node, module: str, is_package: bool) -> list[str]:
    """Absolute names of the fastmetrics modules an import statement reads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "fastmetrics"]
    if node.level == 0:
        base = node.module or ""
        if base.split(".")[0] != "fastmetrics":
            return []
    else:
        package = module.split(".") if is_package else module.split(".")[:-1]
        package = package[: len(package) - (node.level - 1)]
        base = ".".join(package + ([node.module] if node.module else []))
    if node.module is None:  # from . import a, b: each name may be a module
        return [f"{base}.{a.name}" for a in node.names]
    return [base]


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, _module_name(path), ast.parse(path.read_text(), str(path))


SOURCES = list(_sources())


@pytest.mark.parametrize("path, module, tree", SOURCES, ids=[m for _, m, _ in SOURCES])
def test_imports_point_down_the_flow(path, module, tree):
    stage = _stage(module)
    wrong = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _imported(node, module, path.name == "__init__.py"):
                target_stage = _stage(target)
                if target_stage != stage and target_stage not in ALLOWED[stage]:
                    wrong.append(
                        f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {stage} imports {target} ({target_stage})"
                    )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("path, module, tree", SOURCES, ids=[m for _, m, _ in SOURCES])
def test_own_modules_are_imported_at_the_top(path, module, tree):
    if _stage(module) in LAZY_OWN_IMPORTS:
        return
    inside = []
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)) and _imported(
                    node, module, path.name == "__init__.py"
                ):
                    inside.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} in {function.name}")
    assert not inside, "imports of fastmetrics modules inside functions:\n" + "\n".join(inside)


def _code_lines(function) -> int:
    """Lines of a function's body without its docstring (a full numpydoc docstring is welcome,
    and the formatter puts each parameter of a long signature on its own line)."""
    body = function.body
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        body = body[1:] or body
    return function.end_lineno - body[0].lineno + 1


@pytest.mark.parametrize("path, module, tree", SOURCES, ids=[m for _, m, _ in SOURCES])
def test_functions_are_short(path, module, tree):
    long = [
        f"{path.relative_to(PACKAGE.parent)}:{f.lineno} {f.name}: {_code_lines(f)} lines"
        for f in ast.walk(tree)
        if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) and _code_lines(f) > MAX_LINES
    ]
    assert not long, f"functions over {MAX_LINES} lines (docstring excluded):\n" + "\n".join(long)


def test_the_checks_see_every_stage():
    stages = {_stage(m) for _, m, _ in SOURCES}
    assert stages == set(ALLOWED), stages ^ set(ALLOWED)
    # the import walk finds the edges it should: the CLI's command modules import the count stage
    targets = {
        x
        for path, module, tree in SOURCES
        if module.startswith("fastmetrics.cli.")
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom))
        for x in _imported(n, module, path.name == "__init__.py")
    }
    assert "fastmetrics.count" in targets and "fastmetrics.measures" in targets
