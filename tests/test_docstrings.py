"""Docstring rules of the package, checked on the source with :mod:`ast`.

1. Every module under ``fastmetrics/`` has a module docstring.
2. In a public module (file name not starting with ``_``; ``__init__.py`` counts as public), every
   public top-level function and class, and every public method or property of such a class, has
   a docstring whose first line is a one-line summary ending with a period (followed by a blank
   line when the docstring goes on).
3. The public API -- the names in the ``__all__`` of :mod:`fastmetrics` and of its stage packages --
   is documented the numpydoc way: a ``Parameters`` section naming every parameter (for a class,
   the constructor's, in the class docstring) and, for a function that returns or yields
   something, a ``Returns`` or ``Yields`` section.

Rules 1 and 2 read the files only; rule 3 imports the packages to read ``__all__`` and find the
module that defines each name, then checks that definition in the source.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "fastmetrics"
MODULES = sorted(PACKAGE.rglob("*.py"))
API_PACKAGES = (
    "fastmetrics",
    "fastmetrics.measures",
    "fastmetrics.meta",
    "fastmetrics.count",
    "fastmetrics.io",
    "fastmetrics.report",
    "fastmetrics.sklearn",
)

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DASHES = re.compile(r"^\s*-{3,}\s*$")


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _is_public_module(path: Path) -> bool:
    return path.name == "__init__.py" or not path.name.startswith("_")


def _top_level(body):
    """Definitions at module level, including those inside top-level ``if``/``try``/``with`` blocks."""
    for node in body:
        if isinstance(node, (*_DEFS, ast.ClassDef)):
            yield node
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            for block in ("body", "orelse", "finalbody"):
                yield from _top_level(getattr(node, block, []))
            for handler in getattr(node, "handlers", []):
                yield from _top_level(handler.body)


def _decorator_names(node) -> list[str]:
    names = []
    for dec in node.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        names.append(ast.unparse(target))
    return names


def _is_accessor_or_overload(node) -> bool:
    """``@x.setter``/``@x.deleter`` (documented on the getter) and ``@overload`` stubs."""
    return any(
        n.endswith((".setter", ".deleter")) or n in ("overload", "typing.overload") for n in _decorator_names(node)
    )


def _summary_problem(node) -> str | None:
    doc = ast.get_docstring(node, clean=True)
    if not doc or not doc.strip():
        return "has no docstring"
    lines = doc.splitlines()
    first = lines[0].strip()
    if not first.endswith("."):
        return f"docstring's first line is not a one-line summary ending with a period: {first!r}"
    if len(lines) > 1 and lines[1].strip():
        return f"docstring's summary is not one line (no blank line after {first!r})"
    return None


def _where(path: Path, node) -> str:
    return f"{_rel(path)}:{node.lineno}"


# -- rule 1 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", MODULES, ids=_rel)
def test_module_docstring(path):
    tree = _tree(path)
    doc = ast.get_docstring(tree)
    assert doc and doc.strip(), f"{_rel(path)}:1 module {_rel(path)} has no module docstring"


# -- rule 2 ------------------------------------------------------------------------------------


def _public_definition_problems(path: Path) -> list[str]:
    problems = []
    for node in _top_level(_tree(path).body):
        if node.name.startswith("_") or _is_accessor_or_overload(node):
            continue
        kind = "class" if isinstance(node, ast.ClassDef) else "function"
        problem = _summary_problem(node)
        if problem:
            problems.append(f"{_where(path, node)} {kind} {node.name} {problem}")
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if not isinstance(item, _DEFS) or item.name.startswith("_") or _is_accessor_or_overload(item):
                    continue
                kind = "property" if any(n.endswith("property") for n in _decorator_names(item)) else "method"
                problem = _summary_problem(item)
                if problem:
                    problems.append(f"{_where(path, item)} {kind} {node.name}.{item.name} {problem}")
    return problems


@pytest.mark.parametrize("path", [p for p in MODULES if _is_public_module(p)], ids=_rel)
def test_public_definitions_have_summary(path):
    problems = _public_definition_problems(path)
    assert not problems, f"{len(problems)} undocumented definition(s):\n" + "\n".join(problems)


# -- rule 3 ------------------------------------------------------------------------------------


def _sections(doc: str) -> dict[str, list[str]]:
    """numpydoc sections: a title line underlined by dashes, then its lines up to the next title."""
    lines = doc.splitlines()
    starts = [
        i
        for i in range(len(lines) - 1)
        if lines[i].strip() and not _DASHES.match(lines[i]) and _DASHES.match(lines[i + 1])
    ]
    sections = {}
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        indent = len(lines[i]) - len(lines[i].lstrip())
        body = [line for line in lines[i + 2 : end] if line.strip() and len(line) - len(line.lstrip()) == indent]
        sections[lines[i].strip()] = body
    return sections


def _documented_names(lines: list[str]) -> set[str]:
    """Names on the entry lines of a Parameters section (``tp, fp : array_like`` gives tp and fp)."""
    names = set()
    for line in lines:
        head = line.split(" : ", 1)[0] if " : " in line else line.split(":", 1)[0]
        names.update(n.strip() for n in head.split(",") if n.strip())
    return names


def _arguments(args: ast.arguments, *, method: bool) -> list[str]:
    """Parameter names as the docstring must write them (``*args``, ``**kwargs``), without self/cls."""
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    if method and positional and positional[0] in ("self", "cls"):
        positional = positional[1:]
    names = positional + [a.arg for a in args.kwonlyargs]
    if args.vararg:
        names.append("*" + args.vararg.arg)
    if args.kwarg:
        names.append("**" + args.kwarg.arg)
    return names


def _own_scope(node):
    """The nodes of a function body, not descending into nested functions, lambdas or classes."""
    stack = list(node.body)
    while stack:
        item = stack.pop()
        yield item
        for child in ast.iter_child_nodes(item):
            if not isinstance(child, (*_DEFS, ast.Lambda, ast.ClassDef)):
                stack.append(child)


def _returns_something(node) -> bool:
    for item in _own_scope(node):
        if isinstance(item, (ast.Yield, ast.YieldFrom)):
            return True
        if (
            isinstance(item, ast.Return)
            and item.value is not None
            and not (isinstance(item.value, ast.Constant) and item.value.value is None)
        ):
            return True
    return False


def _classes_by_name(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {n.name: n for n in _top_level(tree.body) if isinstance(n, ast.ClassDef)}


def _constructor_arguments(cls: ast.ClassDef, classes: dict[str, ast.ClassDef], seen=()) -> list[str] | None:
    """The constructor's parameters: ``__init__``'s, or a dataclass's / NamedTuple's fields.

    ``None`` when the class inherits its constructor from outside the module (an exception
    subclass, say): there is nothing of its own to document.
    """
    for item in cls.body:
        if isinstance(item, _DEFS) and item.name == "__init__":
            return _arguments(item.args, method=True)
    bases = [ast.unparse(b) for b in cls.bases]
    fielded = any(n.split(".")[-1] == "dataclass" for n in _decorator_names(cls)) or any(
        b.split(".")[-1] == "NamedTuple" for b in bases
    )
    inherited: list[str] | None = None
    for base in bases:
        if base in classes and base not in seen:
            inherited = _constructor_arguments(classes[base], classes, (*seen, cls.name))
            if inherited is not None:
                break
    if not fielded:
        return inherited
    fields = list(inherited or [])
    for item in cls.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        annotation = ast.unparse(item.annotation)
        if "ClassVar" in annotation or "KW_ONLY" in annotation:
            continue
        value = item.value
        if (
            isinstance(value, ast.Call)
            and ast.unparse(value.func).split(".")[-1] == "field"
            and any(
                k.arg == "init" and isinstance(k.value, ast.Constant) and k.value.value is False for k in value.keywords
            )
        ):
            continue
        if item.target.id not in fields:
            fields.append(item.target.id)
    return fields


def _find(tree: ast.Module, qualname: str):
    scope, node = tree.body, None
    for part in qualname.split("."):
        node = next((n for n in _top_level(scope) if n.name == part), None)
        if node is None:
            return None
        scope = node.body
    return node


def _api_problems(path: Path, qualname: str, exported_as: list[str]) -> list[str]:
    tree = _tree(path)
    node = _find(tree, qualname)
    label = f"{qualname} (exported as {', '.join(exported_as)})"
    if node is None:
        return [f"{_rel(path)}:? {label} is not defined at the top level of this file"]
    where = f"{_where(path, node)} {label}"
    problems = []
    summary = _summary_problem(node)
    if summary:
        problems.append(f"{where} {summary}")
    doc = ast.get_docstring(node, clean=True) or ""
    sections = _sections(doc)
    if isinstance(node, ast.ClassDef):
        arguments = _constructor_arguments(node, _classes_by_name(tree)) or []
        returns = False
        what = "constructor parameter"
    else:
        arguments = _arguments(node.args, method=False)
        returns = _returns_something(node)
        what = "parameter"
    if arguments:
        if "Parameters" not in sections:
            problems.append(f"{where} has no numpydoc 'Parameters' section (expected: {', '.join(arguments)})")
        else:
            missing = [a for a in arguments if a not in _documented_names(sections["Parameters"])]
            if missing:
                problems.append(f"{where} 'Parameters' does not document {what}(s) {', '.join(missing)}")
    if returns and "Returns" not in sections and "Yields" not in sections:
        problems.append(f"{where} returns a value but has no numpydoc 'Returns' (or 'Yields') section")
    return problems


def _api() -> tuple[dict[Path, dict[str, list[str]]], list[str]]:
    """{defining file: {qualname: [exported names]}} for every function and class in the API."""
    found: dict[Path, dict[str, list[str]]] = {}
    errors = []
    for package_name in API_PACKAGES:
        try:
            package = importlib.import_module(package_name)
        except Exception as exc:  # reported by the test, not at collection
            errors.append(f"cannot import {package_name}: {exc!r}")
            continue
        for name in getattr(package, "__all__", []):
            obj = inspect.unwrap(getattr(package, name))
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants and ufunc objects have no definition to read
            module = sys.modules.get(obj.__module__)
            source = getattr(module, "__file__", None)
            if source is None or PACKAGE not in Path(source).resolve().parents:
                continue  # re-exported from outside fastmetrics
            found.setdefault(Path(source).resolve(), {}).setdefault(obj.__qualname__, []).append(
                f"{package_name}.{name}"
            )
    return found, errors


API, API_ERRORS = _api()


def test_api_packages_import():
    assert not API_ERRORS, "\n".join(API_ERRORS)


@pytest.mark.parametrize("path", sorted(API), ids=_rel)
def test_api_numpydoc(path):
    problems = [p for qualname, exported in sorted(API[path].items()) for p in _api_problems(path, qualname, exported)]
    assert not problems, f"{len(problems)} API docstring problem(s):\n" + "\n".join(problems)
