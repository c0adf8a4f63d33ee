"""The layout of docs/architecture.md, kept true: import directions between stages, no stage
importing another from inside a function, short functions -- and, between modules, no import of
another module's private name, no import circle and no module over 600 lines.

Data flows one way -- io → count → tensor → measures → meta / board → pipeline → report -- and a
stage may import only the stages before it (``ALLOWED``). The command line and the package root
sit on top and may import anything.

What counts as an import: ``import x`` and ``from x import y`` anywhere in a module, and a call
``importlib.import_module("fastmetrics....")`` with the name written out (a module reached by
name is imported all the same). The rules that read imports at *module level* (the circles)
leave out the imports inside functions (a lazy import runs after every module has loaded, so it
cannot make a partly initialised module) and those under ``if TYPE_CHECKING:``; lazy imports of
our own modules are themselves allowed only to the command line and the package root
(:func:`test_own_modules_are_imported_at_the_top`).

Each rule has a test that feeds it a small module which breaks it (the checker can fail).
"""

from __future__ import annotations

import ast
import textwrap
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
    "fastmetrics._show": "base",
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
MAX_MODULE_LINES = 600


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


def _from_base(node, module: str, is_package: bool) -> str | None:
    """The absolute module a ``from ... import`` reads from, if it is one of ours."""
    if node.level == 0:
        base = node.module or ""
        return base if base.split(".")[0] == "fastmetrics" else None
    package = module.split(".") if is_package else module.split(".")[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def _imported(node, module: str, is_package: bool) -> list[str]:
    """Absolute names of the fastmetrics modules an import statement reads."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "fastmetrics"]
    base = _from_base(node, module, is_package)
    if base is None:
        return []
    if node.module is None:  # from . import a, b: each name may be a module
        return [f"{base}.{a.name}" for a in node.names]
    return [base]


def _named_import(node) -> str | None:
    """The module of ``importlib.import_module("fastmetrics....")`` written out, else None."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or not isinstance(node.args[0], ast.Constant):
        return None
    f = node.func
    called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    name = node.args[0].value
    if called == "import_module" and isinstance(name, str) and name.split(".")[0] == "fastmetrics":
        return name
    return None


def _imports(tree) -> list:
    """Every import statement and ``import_module`` call of a module (the nodes)."""
    return [
        n
        for n in ast.walk(tree)
        if isinstance(n, (ast.Import, ast.ImportFrom)) or (isinstance(n, ast.Call) and _named_import(n))
    ]


def _targets(node, module: str, is_package: bool) -> list[str]:
    """What an import node reads: :func:`_imported`, or the module an ``import_module`` names."""
    if isinstance(node, ast.Call):
        return [_named_import(node)]
    return _imported(node, module, is_package)


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path, _module_name(path), ast.parse(path.read_text(), str(path))


SOURCES = list(_sources())
MODULES = {module for _, module, _ in SOURCES}


@pytest.mark.parametrize("path, module, tree", SOURCES, ids=[m for _, m, _ in SOURCES])
def test_imports_point_down_the_flow(path, module, tree):
    stage = _stage(module)
    wrong = []
    for node in _imports(tree):
        for target in _targets(node, module, path.name == "__init__.py"):
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
            for node in _imports(function):
                if _targets(node, module, path.name == "__init__.py"):
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


# --- private names, import circles, long modules ---------------------------------------------------


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _module_aliases(tree, module: str, is_package: bool, modules: set) -> dict:
    """The names a module binds to our modules (``from . import registry``, ``import x.y as z``,
    ``import fastmetrics.x`` binding ``fastmetrics``)."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = _from_base(node, module, is_package)
            for a in node.names if base is not None else ():
                if f"{base}.{a.name}" in modules:
                    aliases[a.asname or a.name] = f"{base}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name in modules or a.name.split(".")[0] == "fastmetrics":
                    aliases[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
    return aliases


def _dotted(node) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None for anything but names and attributes."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def private_imports(module: str, tree, is_package: bool, modules: set) -> list[str]:
    """Where ``module`` reads another module's private name (a name with one leading underscore).

    Counted: ``from .x import _y`` / ``from ..x import _y`` where ``_y`` is not a module, and an
    attribute ``x._y`` (or ``fastmetrics.x._y``) of a name bound to another of our modules.
    Allowed: a module's own private names; a package's ``__init__`` importing from its own
    modules (its re-exports); importing a private *module* (``from . import _memory``): a
    private module is the package's own, and what it offers others are its public names.
    """
    found = []
    own_package = module + "." if is_package else None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            target = _from_base(node, module, is_package)
            if target is None or target == module or (own_package and target.startswith(own_package)):
                continue
            found += [
                f"{node.lineno}: from {target} import {a.name}"
                for a in node.names
                if _private(a.name) and f"{target}.{a.name}" not in modules
            ]
    aliases = _module_aliases(tree, module, is_package, modules)
    for node in ast.walk(tree):
        parts = _dotted(node) if isinstance(node, ast.Attribute) else None
        if not parts or parts[0] not in aliases:
            continue
        path = aliases[parts[0]]
        for i, attr in enumerate(parts[1:], 1):
            if f"{path}.{attr}" in modules:
                path = f"{path}.{attr}"
                continue
            if _private(attr) and path != module and path in modules:
                found.append(f"{node.lineno}: {'.'.join(parts[: i + 1])} ({path}.{attr})")
            break
    return sorted(set(found))


def _top_level_imports(tree) -> list:
    """The import nodes a module runs as it loads: not inside functions, not under ``if
    TYPE_CHECKING:`` (inside class bodies, ``if`` and ``try`` they run)."""
    out = []

    def visit(body):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                visit(node.orelse)
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                out.append(node)
            elif isinstance(node, ast.Expr) and _named_import(node.value):
                out.append(node.value)
            for field in ("body", "orelse", "finalbody", "handlers"):
                visit(getattr(node, field, None) or [])

    visit(tree.body)
    return out


def import_graph(sources) -> dict:
    """Module → the modules it imports as it loads. An edge goes to the module an import names
    (a package's ``__init__`` when it names the package or a name defined there), not to the
    parent packages Python initialises on the way (a package importing its own modules, which
    import one another, is how packages are built, not a circle)."""
    modules = {module for module, _, _ in sources}
    graph = {}
    for module, tree, is_package in sources:
        edges = set()
        for node in _top_level_imports(tree):
            for target in _targets(node, module, is_package):
                while target not in modules and "." in target:  # from x import a_name: the module x
                    target = target.rpartition(".")[0]
                if target in modules and target != module:
                    edges.add(target)
        graph[module] = edges
    return graph


def circles(graph: dict) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def long_modules(sources_text: dict) -> list[str]:
    """The modules over :data:`MAX_MODULE_LINES` lines, with their length."""
    return [
        f"{module}: {len(text.splitlines())} lines"
        for module, text in sorted(sources_text.items())
        if len(text.splitlines()) > MAX_MODULE_LINES
    ]


@pytest.mark.parametrize("path, module, tree", SOURCES, ids=[m for _, m, _ in SOURCES])
def test_no_module_reads_another_modules_private_names(path, module, tree):
    found = private_imports(module, tree, path.name == "__init__.py", MODULES)
    assert not found, f"{path.relative_to(PACKAGE.parent)} reads private names of other modules:\n" + "\n".join(found)


def test_no_import_circle():
    graph = import_graph([(m, t, p.name == "__init__.py") for p, m, t in SOURCES])
    assert not circles(graph), circles(graph)


def test_no_module_is_over_600_lines():
    texts = {m: p.read_text() for p, m, _ in SOURCES}
    assert not long_modules(texts), "split these by job:\n" + "\n".join(long_modules(texts))


# --- each rule fails on a small module that breaks it ---------------------------------------------


def _parsed(text: str):
    return ast.parse(textwrap.dedent(text))


def test_the_private_name_rule_can_fail():
    modules = {
        "fastmetrics",
        "fastmetrics.a",
        "fastmetrics.b",
        "fastmetrics._c",
        "fastmetrics.pkg",
        "fastmetrics.pkg.sub",
    }
    tree = _parsed(
        """
        from .b import _hidden, shown
        from . import b, _c
        from fastmetrics import pkg
        import fastmetrics.b
        from ._c import helper

        b._other()
        _c.fine()
        fastmetrics.b._deep
        pkg.sub._private_of_sub
        """
    )
    found = private_imports("fastmetrics.a", tree, False, modules)
    assert sorted(f.split(": ", 1)[1] for f in found) == [
        "b._other (fastmetrics.b._other)",
        "fastmetrics.b._deep (fastmetrics.b._deep)",
        "from fastmetrics.b import _hidden",
        "pkg.sub._private_of_sub (fastmetrics.pkg.sub._private_of_sub)",
    ]
    # allowed: a module's own private names, a package's re-exports of its modules' names
    assert private_imports("fastmetrics.b", _parsed("from .b import _own\n"), False, modules) == []
    assert private_imports("fastmetrics.pkg", _parsed("from .sub import _x\n"), True, modules) == []


def test_the_circle_rule_can_fail():
    sources = [
        ("fastmetrics.a", _parsed("from . import b\n"), False),
        ("fastmetrics.b", _parsed("from .c import thing\n"), False),
        ("fastmetrics.c", _parsed("import importlib\nimportlib.import_module('fastmetrics.a')\n"), False),
        ("fastmetrics.d", _parsed("from . import a\n"), False),
    ]
    assert circles(import_graph(sources)) == [["fastmetrics.a", "fastmetrics.b", "fastmetrics.c"]]
    # inside a function or under TYPE_CHECKING an import does not run as the module loads
    sources[2] = (
        "fastmetrics.c",
        _parsed(
            """
            from typing import TYPE_CHECKING
            if TYPE_CHECKING:
                from . import a
            def later():
                from . import a
            """
        ),
        False,
    )
    assert circles(import_graph(sources)) == []


def test_the_length_rule_can_fail():
    assert long_modules({"fastmetrics.x": "pass\n" * 600}) == []
    assert long_modules({"fastmetrics.x": "pass\n" * 601}) == ["fastmetrics.x: 601 lines"]


def test_an_import_by_name_is_an_import():
    """The tensor stage reaching the measures by ``importlib.import_module`` (what an earlier
    ConfusionTensor.evaluate did) is an import of a later stage, and a lazy one."""
    tree = _parsed(
        """
        import importlib

        def evaluator():
            importlib.import_module("fastmetrics.measures")
        """
    )
    targets = [t for n in _imports(tree) for t in _targets(n, "fastmetrics.tensor.counts", False)]
    assert targets == ["fastmetrics.measures"] and "measures" not in ALLOWED[_stage("fastmetrics.tensor.counts")]
