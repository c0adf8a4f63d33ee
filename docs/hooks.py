"""mkdocs hooks: the pages generated from the code, so that they are never written twice.

- ``reference/measures.md``: the measure catalog from the registry (:mod:`fastmetrics.measures.registry`),
  one section per measure: what it is, its formula, range, direction, family, when it is
  undefined, its parameters, its ufunc (``fm.ufuncs``), aliases and the paper it follows; and a
  section on the ufuncs, whose examples ``tests/test_docs.py`` runs as it runs every page's.
- ``reference/cli.md``: the command-line reference from the parser
  (:func:`fastmetrics.cli.build_parser`), one section per command with its help as ``--help``
  prints it.

A renamed measure field, command or option changes these pages (or breaks the strict build that
``tests/test_docs.py`` runs), never leaves them stale.

The math (``$$ ... $$``, ``$...$``, which ``pymdownx.arithmatex`` marks) becomes MathML at build
time (``latex2mathml``, of the docs extra), which browsers render natively: the site loads no
script or font from the network and reads the same offline.
"""

from __future__ import annotations

import argparse
import html
import re

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


# what pymdownx.arithmatex (generic mode) writes around the TeX: \[...\] in a div, \(...\) in a span
_ARITHMATEX = re.compile(
    r'<(?P<tag>div|span) class="arithmatex">\\(?P<open>[\[(])(?P<tex>.*?)\\[\])]</(?P=tag)>', re.DOTALL
)


def on_page_content(content, page, config, files):
    """Render the page's math as MathML, so that no script renders it in the browser."""
    from latex2mathml.converter import convert

    def mathml(match: re.Match) -> str:
        display = "block" if match["open"] == "[" else "inline"
        return convert(html.unescape(match["tex"]).strip(), display=display)

    return _ARITHMATEX.sub(mathml, content)


def _value(x: float) -> str:
    from fastmetrics._numbers import parameter

    return parameter(x)


def measure_catalog() -> str:
    """The catalog page: every registered measure, grouped by kind, in name order, after the
    section on the measures as ufuncs."""
    from fastmetrics.measures import registry

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
        *_ufunc_section(registry),
    ]
    measures = registry.all_measures()
    for kind, title in _KINDS.items():
        group = [m for m in measures if m.kind == kind]
        if not group:
            continue
        lines += [f"## {title}", ""]
        for m in group:
            lines += _measure_section(m)
    return "\n".join(lines) + "\n"


_KINDS = {
    "point": "Measures of one confusion matrix",
    "curve": "Areas under curves",
    "ranking": "Ranking measures",
    "calibration": "Calibration",
    "topk": "Top-k accuracy",
    "graded": "Graded ranking measures",
}
# why a measure of each kind but "point" has no ufunc
_NO_UFUNC = {
    "curve": "one value per group of a threshold sweep (its ROC or precision-recall curve)",
    "ranking": "one value per ranked list (the cells of a sweep in rank order)",
    "calibration": "one value per group of an exact sweep, read with the scores",
    "topk": 'one value per group of class probabilities counted with `thresholds="topk"`',
    "graded": "one value per ranked list, read at every relevance grade (`fm.count_graded`)",
}

_UFUNC_TEXT = """\
## The measures as ufuncs

Every measure of one confusion matrix is a numpy ufunc, `fm.ufuncs.<name>` (or
`fm.ufunc("name or alias")`), over its counts `tp, fp, fn, tn` followed by its parameters, all
broadcasting together: `fm.ufuncs.fbeta(tp, fp, fn, tn, beta)`. It has a float32 and a float64
loop (integer counts are cast by numpy's type resolution, as for `np.sqrt`: int64 and int32 to
float64, int16 and narrower to float32; `dtype=` chooses) and returns NaN where the measure is
undefined. Being a real `numpy.ufunc`, it takes `out=`, `where=`, `dtype=` and inputs that
implement numpy's `__array_ufunc__`. It does no validation and gives no `UndefinedMeasureWarning`:
`fm.compute` is the validating entry point around the same float64 loop. The float32 loop computes
in float32 where the formula allows (proficiency, a ratio of two entropies that may both be near 0,
computes in float64 inside it), within 1e-5 of the float64 value (relative to
max(1, |value|)) for counts below 2^24, which float32 holds exactly. As numpy's own division does,
an undefined cell may raise numpy's floating-point warning (`invalid value encountered in f1`);
`np.errstate` silences it.

```python
import numpy as np
import fastmetrics as fm

# three cells: counts in rows tp, fp, fn, tn; the middle one has no positive at all
tp, fp, fn, tn = np.array([[8, 0, 5], [2, 0, 1], [1, 0, 3], [89, 100, 91]])
with np.errstate(invalid="ignore"):
    print(fm.ufuncs.f1(tp, fp, fn, tn))
    print(fm.ufuncs.fbeta(tp, fp, fn, tn, [[0.5], [2.0]]).round(4))  # one row per beta
print(fm.ufuncs.k(tp, fp, fn, tn))  # Sebastiani's K is defined without positives (eq. 5)
print(fm.ufunc("phi") is fm.ufuncs.mcc, fm.ufuncs.mcc.types)
```

```text
[0.84210526        nan 0.71428571]
[[0.8163    nan 0.7812]
 [0.8696    nan 0.6579]]
[0.86691087 1.         0.61413043]
True ['ffff->f', 'dddd->d']
```

A `dask.array` of counts stays lazy: the ufunc adds one task per chunk, and nothing is read or
computed before `.compute()`.

```python
import dask.array as da

lazy = [da.from_array(c, chunks=2) for c in (tp, fp, fn, tn)]
mcc = fm.ufuncs.mcc(*lazy)
print(type(mcc).__name__, mcc.chunks)
with np.errstate(invalid="ignore"):
    print(mcc.compute().round(4))
```

```text
Array ((2, 1),)
[0.827     nan 0.7016]
```

An xarray `DataArray` keeps its dimensions and coordinates, and arrays of other dimensions
(here a parameter) align and broadcast by name.

```python
import xarray as xr

coords = {"system": ["a", "b"], "threshold": [0.3, 0.5, 0.7]}
tp, fp, fn, tn = (
    xr.DataArray(c, dims=("system", "threshold"), coords=coords)
    for c in np.array([[[40, 31, 20], [38, 35, 25]], [[30, 12, 5], [20, 9, 2]],
                       [[10, 19, 30], [12, 15, 25]], [[120, 138, 145], [130, 141, 148]]])
)
f = fm.ufuncs.fbeta(tp, fp, fn, tn, xr.DataArray([0.5, 2.0], dims="beta", coords={"beta": [0.5, 2.0]}))
print(f.dims)
print(f.sel(system="b", beta=2.0).round(4).values)
```

```text
('system', 'threshold', 'beta')
[0.7364 0.7172 0.5507]
```
"""


def _ufunc_section(registry) -> list:
    """The section on ``fm.ufuncs``: what a ufunc is, examples, and the measures without one."""
    lines = _UFUNC_TEXT.splitlines() + [
        "",
        "Measures without a ufunc, as they are not functions of one cell's counts:",
        "",
    ]
    for kind, reason in _NO_UFUNC.items():
        names = registry.names(kind=kind)
        if names:
            lines.append(f"- {_KINDS[kind].lower()}, {reason}: {', '.join(f'`{n}`' for n in names)};")
    native = [m.name for m in registry.all_measures() if m.kind == "point" and m.multiclass is not None]
    lines += [
        "- the native multiclass definitions of "
        + ", ".join(f"`{n}`" for n in native)
        + " read the whole matrix `C[..., m, m]`: they are generalized ufuncs that",
        '  `fm.compute(name, counts=C)` runs (their binary form is the ufunc; `"@macro"` and the other',
        "  averages combine the binary ufunc's one-vs-rest values).",
        "",
    ]
    return lines


def _ufunc_call(m) -> str:
    from fastmetrics.measures import ufuncs

    return f"`fm.ufuncs.{m.name}({', '.join(ufuncs.inputs(m))})`"


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
    rows.append(("ufunc", _ufunc_call(m) if m.kind == "point" else f"none: {_NO_UFUNC[m.kind]}"))
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
