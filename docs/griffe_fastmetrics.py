"""A griffe extension for the API page (mkdocs.yml loads it into mkdocstrings' python handler).

- Sphinx roles in the docstrings (``:func:`count```, ``:mod:`fastmetrics.meta.paired```,
  ``:class:`~fastmetrics.count.tally.Tally```) become cross-references: a link where the target is
  on the site, its name in code font elsewhere, never the raw markup. A target is looked up as
  written, then relative to the docstring's module, its package, its classes and ``fastmetrics``.
- Parameters documented together (``pred, score : str``) each show their own default from the
  signature: griffe gives all of them the first one's (``score``'s default read as ``'pred'``).
"""

from __future__ import annotations

import pydoc
import re

import griffe

# a numpydoc entry that documents several parameters at once: "pred, score : str"
_SHARED_ENTRY = re.compile(r"^\s*\w+(?:,\s*\w+)+\s*:", re.MULTILINE)
_ROLE = re.compile(r":(?:py:)?(?:mod|func|class|meth|attr|data|exc|obj|const):`(?P<tilde>~?)(?P<target>[^`<>]+)`")


def _lookup(collection, path: str):
    try:
        return collection[path]
    except (KeyError, ValueError, griffe.AliasResolutionError, griffe.CyclicAliasError):
        return None


def _scopes(obj) -> list[str]:
    """The paths a relative name in ``obj``'s docstring may be relative to, innermost first."""
    scopes = []
    node = obj
    while node is not None:
        if not node.is_function:
            scopes.append(node.path)
        node = node.parent
    return scopes


def _resolve(obj, target: str, collection) -> str:
    """The identifier of ``target`` as the site knows it (its canonical path), or ``target``."""
    name = target.lstrip(".")
    candidates = [name] if not target.startswith(".") else []
    candidates += [f"{scope}.{name}" for scope in _scopes(obj)]
    candidates.append(f"fastmetrics.{name}")
    for path in candidates:
        found = _lookup(collection, path)
        if found is not None:
            try:
                return found.canonical_path
            except (griffe.AliasResolutionError, griffe.CyclicAliasError):
                return path
    # names the package makes at run time (``fastmetrics.evaluate``, loaded on first use)
    for path in candidates:
        found = pydoc.locate(path)
        if getattr(found, "__qualname__", None) and getattr(found, "__module__", None):
            return f"{found.__module__}.{found.__qualname__}"
    return name


def _crossrefs(obj, text: str, collection) -> str:
    def link(match: re.Match) -> str:
        target = match["target"].strip()
        title = target.lstrip(".").rsplit(".", 1)[-1] if match["tilde"] else target
        identifier = _resolve(obj, target, collection)
        # optional: a target the site does not show renders as its name, without a build warning
        return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'

    return _ROLE.sub(link, text)


class _OwnDefaults(griffe.Docstring):
    """A docstring whose parsed parameters carry their own signature defaults."""

    def parse(self, parser=None, **options):
        sections = super().parse(parser, **options)
        parameters = getattr(self.parent, "parameters", None)
        for section in sections:
            if parameters is None or section.kind is not griffe.DocstringSectionKind.parameters:
                continue
            for entry in section.value:
                if entry.name in parameters and parameters[entry.name].default is not None:
                    entry.value = parameters[entry.name].default
        return sections


class FastmetricsDocstrings(griffe.Extension):
    """Cross-references and per-parameter defaults for every docstring of the package."""

    def on_package(self, *, pkg, loader, **kwargs) -> None:
        collection = loader.modules_collection
        stack = [pkg]
        while stack:
            obj = stack.pop()
            if obj.is_alias:
                continue
            if obj.docstring is not None:
                obj.docstring.value = _crossrefs(obj, obj.docstring.value, collection)
                if (obj.is_function or obj.is_class) and _SHARED_ENTRY.search(obj.docstring.value):
                    # parsed when (and as) mkdocstrings renders it, with the site's options and warnings
                    obj.docstring.__class__ = _OwnDefaults
            stack.extend(obj.members.values())
