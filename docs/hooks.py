"""mkdocs hooks: the pages generated from the code, so that they are never written twice.

- ``reference/measures.md``: the measure catalog from the registry (:mod:`fastmetrics.measures.registry`),
  one section per measure: what it is, its formula, range, direction, family, when it is
  undefined, its parameters, aliases and the paper it follows.
- ``reference/cli.md``: the command-line reference from the parser
  (:func:`fastmetrics.cli.build_parser`), one section per command with its help as ``--help``
  prints it.

A renamed measure field, command or option changes these pages (or breaks the strict build that
``tests/test_docs.py`` runs), never leaves them stale.
"""

from __future__ import annotations

import argparse

_GENERATED = {
    "reference/measures.md": "measure_catalog",
    "reference/cli.md": "cli_reference",
}


def on_files(files, config):
    """Add the generated pages to the site's files."""
    from mkdocs.structure.files import File

    for path, builder in _GENERATED.items():
        files.append(File.generated(config, path, content=globals()[builder]()))
    return files


def _value(x: float) -> str:
    from fastmetrics._numbers import parameter

    return parameter(x)


def measure_catalog() -> str:
    """The catalog page: every registered measure, grouped by kind, in name order."""
    from fastmetrics.measures import registry

    kinds = {
        "point": "Measures of one confusion matrix",
        "curve": "Areas under curves",
        "ranking": "Ranking measures",
        "calibration": "Calibration",
        "topk": "Top-k accuracy",
    }
    lines = [
        "# Measures",
        "",
        "Every measure of the catalog, generated from its record in the registry",
        "(`fastmetrics.measures.registry`); `fm.measures()` returns the same as a table and",
        "`fastmetrics measures` prints it. Notation: `n = tp + fp + fn + tn`, actual positives",
        "`AP = tp + fn`, actual negatives `AN = fp + tn`, predicted positives `PP = tp + fp`,",
        "predicted negatives `PN = fn + tn`; `c_ij` counts items of true class `i` predicted `j`.",
        "A measure is undefined (NaN, never a silent 0) exactly where its record says;",
        "`undefined=` and smoothing are the ways to choose a number there.",
        "",
    ]
    measures = registry.all_measures()
    for kind, title in kinds.items():
        group = [m for m in measures if m.kind == kind]
        if not group:
            continue
        lines += [f"## {title}", ""]
        for m in group:
            lines += _measure_section(m)
    return "\n".join(lines) + "\n"


def _measure_section(m) -> list:
    direction = "higher is better" if m.higher_is_better else "lower is better"
    rows = [
        ("formula", f"`{m.formula}`"),
        ("range", f"[{_value(m.range[0])}, {_value(m.range[1])}], {direction}"),
        ("family", m.family),
        ("undefined when", m.undefined_when),
    ]
    if m.params:
        rows.append(("parameters", ", ".join(f"`{p.name}` (default {_value(p.default)})" for p in m.params)))
    if m.multiclass_formula:
        rows.append(("multiclass", f"`{m.multiclass_formula}`"))
    if m.aliases:
        rows.append(("aliases", ", ".join(f"`{a}`" for a in m.aliases)))
    rows.append(("reference", m.reference))
    out = [f"### `{m.name}`", "", m.summary, ""]
    if m.latex:
        out += ["$$", m.latex, "$$", ""]
    out += ["| | |", "|---|---|"]
    out += [f"| {k} | {str(v).replace('|', '&#124;')} |" for k, v in rows]
    return out + [""]


def cli_reference() -> str:
    """The command-line page: the program's options, then every command's help."""
    from fastmetrics.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {c.dest: c.help for c in commands._choices_actions}
    lines = [
        "# Command line",
        "",
        "Generated from the program's parser: each section is what `fastmetrics <command> --help` prints.",
        "A mistake in the input, the options or the paths ends with one line `fastmetrics: error: ...`",
        "and exit status 2; Ctrl-C with 130, SIGTERM with 143; 1 only for a bug of ours.",
        "",
        "## fastmetrics",
        "",
        "```text",
        parser.format_help().rstrip(),
        "```",
        "",
    ]
    for name, sub in commands.choices.items():
        # str.capitalize would lower the rest of the help: "HTML or Markdown" became "html or markdown"
        summary = helps.get(name, "")
        lines += [f"## {name}", "", f"{summary[:1].upper()}{summary[1:]}.", "", "```text", sub.format_help().rstrip()]
        lines += ["```", ""]
    return "\n".join(lines) + "\n"
