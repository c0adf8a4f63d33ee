"""The report: a ranked table with marks, figures and the measures' definitions, in one file.

HTML reports are self-contained: figures are embedded as data URIs, styles are inline, there is
no external file or network access, and a Content-Security-Policy allows only the report's own
small script (which records that every figure loaded). Every name taken from the users' files --
systems, topics, measures -- is escaped (HTML here, Markdown and LaTeX in :mod:`.tables`).
"""

from __future__ import annotations

import base64
import datetime
import functools
import hashlib
import html
import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import __version__
from ..measures import registry
from . import figures as figs
from .tables import _escape_md, write_bytes, write_text

_SCRIPT = ("window.addEventListener('load',function(){var m=document.images,k=0;"
           "for(var i=0;i<m.length;i++){if(m[i].complete&&m[i].naturalWidth>0){k++;}}"
           "document.body.setAttribute('data-figures-loaded',k+'/'+m.length);});")
_CSP = ("default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
        f"script-src 'sha256-{base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()}'")

_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.85em;margin:1em 0}th,td{padding:.25em .6em;border-bottom:1px solid #eee;
text-align:right}th{background:#f6f6f6}td.name,th.name{text-align:left}tr.baseline td{font-style:italic;color:#666}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.9em;color:#444}
.note{font-size:.9em;color:#444;background:#fafafa;border-left:3px solid #bbb;padding:.5em 1em}
code{background:#f3f3f3;padding:0 .2em}
"""


@dataclass
class Figure:
    """One figure of the report: its PNG (embedded in the HTML page) and, drawn only when figure
    files are written (:func:`save_figures`), its SVG."""

    name: str
    title: str
    caption: str
    png: bytes
    svg: bytes | None = None
    draw_svg: Callable[[], bytes] | None = field(default=None, repr=False, compare=False)

    def svg_bytes(self) -> bytes | None:
        """The SVG, drawn on first use (half of a report's drawing time is the SVG, which an HTML
        report without ``--figures`` never shows)."""
        if self.svg is None and self.draw_svg is not None:
            self.svg = self.draw_svg()
            self.draw_svg = None
        return self.svg


@dataclass
class ReportData:
    """Everything a report shows, computed once (:func:`collect`)."""

    title: str
    measures: list[str]
    board: object            # MetaResult of the leaderboard (summary, detail = significance)
    scores: object           # Scores over (system, topic)
    strictness: object
    robustness: object
    inconsistency: object
    curves: list | None = None           # (system, thresholds, {measure: values}) on each system's own grid
    best: object | None = None           # best-threshold table
    figures: list[Figure] = field(default_factory=list)
    n_topics: int = 0
    scatter: list | None = None
    adjacent: dict = field(default_factory=dict)  # (measure, system) -> Holm-adjusted p vs the next system


def collect(tensor, measures, *, runs=None, gold=None, thresholds: int = 51, seed: int = 0, resamples: int = 2000,
            pairs=1000, title: str = "fastmetrics report", max_curves: int = 8, scatter=None) -> ReportData:
    """Compute the leaderboard, the meta-evaluation, the threshold curves and the figures.

    ``runs`` (an Arrow table with a ``score`` column) gives the curves: each of the best
    ``max_curves`` systems is swept over ``thresholds`` points of its own score range, all topics
    pooled (systems score on different scales, so one shared grid would flatten most curves).
    ``scatter``: the measure pairs to plot output by output (default: the first measure against
    the second and the third)."""
    from .. import meta
    from ..board import leaderboard

    measures = list(measures)
    board = leaderboard(tensor, measures)
    scores = tensor.evaluate(measures)
    n_topics = len(tensor.coords.get("topic", [0]))
    multi = len(measures) >= 2
    strict = meta.strictness(scores) if multi else None
    robust = meta.robustness(scores, pairs=pairs, seed=seed) if n_topics >= 2 else None
    incons = meta.inconsistency(scores) if multi else None
    data = ReportData(title, measures, board, scores, strict, robust, incons, n_topics=n_topics)
    if scatter is not None:
        for a, b in scatter:
            for name in (a, b):
                if name not in measures:
                    from .._errors import ParameterError
                    raise ParameterError(f"Scatter pair {a}:{b}: {name!r} is not among the report's measures "
                                         f"({', '.join(measures)}).")
        data.scatter = [tuple(p) for p in scatter]
    data.adjacent = _adjacent_tests(data, resamples, seed)
    if runs is not None:
        _curves(data, runs, gold, thresholds, max_curves)
    data.figures = _figures(data)
    return data


def _curves(data, runs, gold, thresholds, max_curves):
    import pyarrow as pa
    import pyarrow.compute as pc

    from ..board import best_thresholds
    from ..count import count

    data.curves = []
    best = []
    shown = data.measures[:2]
    # the leaderboard's system column is text (baselines share it); the runs' may be numbers
    names = pc.cast(runs.column("system"), pa.string())
    for system in _ranked_systems(data, data.measures[0])[:max_curves]:
        rows = runs.filter(pc.equal(names, pa.scalar(str(system), pa.string())))
        t = count(rows, gold, by=("system",), thresholds=thresholds, missing="negative" if gold is not None else "error")
        s = t.evaluate(shown)
        data.curves.append((system, np.asarray(t.coords["threshold"]), {m: s[m][0] for m in shown}))
        best.append(best_thresholds(s))
    data.best = pa.concat_tables(best) if best else None


def _ranked_systems(data, measure):
    rows = [r for r in data.board.summary.to_pylist() if r["measure"] == measure and r["kind"] == "system"]
    return [r["system"] for r in sorted(rows, key=lambda r: (r["rank"] is None, r["rank"] or 0))]


def _make(name, title, caption, draw, *args) -> Figure:
    """Draw a figure for the PNG now; the SVG is drawn again only if it is saved (matplotlib closes
    a figure after saving it)."""
    return Figure(name, title, caption, figs.png(draw(*args)), draw_svg=functools.partial(_svg, draw, *args))


def _svg(fn, *args) -> bytes:
    fig = fn(*args)
    data = figs.svg(fig)
    figs._plt().close(fig)
    return data


def _figures(data) -> list[Figure]:
    out = []
    first = data.measures[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if data.curves:
            shown = data.measures[:2]
            out.append(_make("threshold_curves", "Threshold curves of the best systems",
                             f"{' and '.join(shown)} (all topics pooled) when a system's scores are cut at a "
                             "threshold, on a grid over that system's own score range; dots mark each measure's "
                             "best threshold. A flat stretch is a range of thresholds that changes no decision.",
                             figs.threshold_curves, data.curves, shown))
        pairs = data.scatter if data.scatter is not None else [(first, o) for o in data.measures[1:3]]
        for x, y in pairs:
            out.append(_make(f"scatter_{x}_{y}", f"{x} against {y}",
                             f"Every (system, topic) output placed by {x} and {y}. Points off a "
                             "monotone curve are outputs the two measures rank differently.",
                             figs.scatter, data.scores, x, y))
        meta_figures = (
            (data.strictness, "strictness", "Strictness of each measure",
             "For the outputs a measure ranks in its top share th, the lowest rank that any other measure gives "
             "them (seed 004 §6.3). A strict measure keeps this high: what it ranks top, every other measure "
             "ranks top too.", figs.strictness_curves),
            (data.robustness, "robustness", "Robustness across topics",
             "Mean Spearman correlation between the systems' scores on two random topics (seed 004 §6.4): high "
             "means the measure ranks systems the same way whatever the topic.", figs.robustness_bars),
            (data.inconsistency, "inconsistency", "Inconsistency between measures",
             "For each pair of measures, the percentage of (topic, system pair) comparisons they order "
             "differently (a win against a tie counts; seed 003 §5).", figs.inconsistency_heatmap),
        )
        for result, name, title, caption, draw in meta_figures:
            if result is not None:
                out.append(_make(name, title, caption, draw, result.summary))
    return out


def _adjacent_tests(data, resamples, seed) -> dict:
    """Paired bootstrap tests of each system against the next one in the ranking, per measure,
    Holm-corrected over those len(systems) - 1 comparisons (testing every pair would make the
    correction too strict for any resampling budget to reach)."""
    from .._seeding import rng_of
    from ..meta._common import system_topic_values
    from ..meta.significance import holm, paired_p_values

    values, systems, _ = system_topic_values(data.scores, oriented=False)
    names = [str(x) for x in systems.tolist()]
    rng = rng_of(seed)
    out = {}
    for i, m in enumerate(data.measures):
        ranked = [names.index(str(s)) for s in _ranked_systems(data, m)]
        if len(ranked) < 2:
            continue
        diff = np.array([values[i, a] - values[i, b] for a, b in zip(ranked, ranked[1:])])
        _, p = paired_p_values(diff, "bootstrap", resamples, rng)
        for (a, _), q in zip(zip(ranked, ranked[1:]), holm(p)):
            out[(m, names[a])] = q
    return out


def _marks(data):
    """Marks per (system, measure): † beats every non-informative baseline, * significantly better
    than the next system in the ranking (Holm-adjusted p < 0.05, :func:`_adjacent_tests`)."""
    marks = {}
    for r in data.board.summary.to_pylist():
        if r["beats_baselines"]:
            marks[(r["system"], r["measure"])] = "†"
    for (m, s), q in data.adjacent.items():
        if q == q and q < 0.05:
            marks[(s, m)] = marks.get((s, m), "") + "*"
    return marks


def _fmt(v) -> str:
    return "–" if v is None or (isinstance(v, float) and np.isnan(v)) else f"{v + 0.0:.4f}"


def _board_rows(data):
    rows = data.board.summary.to_pylist()
    first = data.measures[0]
    order = _ranked_systems(data, first)
    value = {(r["system"], r["measure"]): r for r in rows}
    baselines = list(dict.fromkeys(r["system"] for r in rows if r["kind"] == "baseline"))
    return order, baselines, value


def render_html(data: ReportData) -> str:
    """The report as one self-contained HTML page."""
    e = html.escape
    order, baselines, value = _board_rows(data)
    marks = _marks(data)
    head = "".join(f"<th>{e(m)}</th>" for m in data.measures)
    body = []
    for i, s in enumerate(order, 1):
        cells = "".join(f"<td>{_fmt(value[(s, m)]['macro'])}{e(marks.get((s, m), ''))}</td>" for m in data.measures)
        body.append(f"<tr><td>{i}</td><td class='name'>{e(str(s))}</td>{cells}</tr>")
    for b in baselines:
        cells = "".join(f"<td>{_fmt(value[(b, m)]['macro'])}</td>" for m in data.measures)
        body.append(f"<tr class='baseline'><td></td><td class='name'>{e(str(b))} (baseline)</td>{cells}</tr>")
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>",
        f"<meta http-equiv='Content-Security-Policy' content=\"{_CSP}\">",
        f"<title>{e(data.title)}</title><style>{_STYLE}</style>",
        f"<script>{_SCRIPT}</script></head><body>",
        f"<h1>{e(data.title)}</h1>",
        f"<p>{len(order)} systems, {data.n_topics} topic(s), {len(data.measures)} measure(s): "
        f"{e(', '.join(data.measures))}. Generated by fastmetrics {e(__version__)} on "
        f"{datetime.date.today().isoformat()}.</p>",
        "<div class='note'><b>How to read this report.</b> Each system is scored on every topic separately and "
        "the leaderboard shows the mean over topics (topics where a measure is undefined, e.g. precision with no "
        "predicted positive, are left out). Systems are ranked by the first measure. <b>†</b>: the system beats "
        "every non-informative baseline for that measure — <i>placebo</i> (everything positive), <i>zero</i> "
        "(everything negative) and <i>random</i> (each item positive with probability ½). <b>*</b>: the system is "
        "significantly better than the next one in the ranking (paired bootstrap over topics, Holm-corrected "
        "p &lt; 0.05). The figures then ask whether the measures agree, and which one to trust.</div>",
        "<h2>Leaderboard</h2>",
        f"<table><thead><tr><th>rank</th><th class='name'>system</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table>",
    ]
    if data.best is not None:
        parts.append("<h2>Best thresholds</h2><p>Each system's scores cut at every point of a grid over its own "
                     "score range, all topics pooled: the threshold where each measure is best, and the value there "
                     "(compare with the leaderboard, which uses the systems' own decisions).</p>")
        bt = data.best.to_pylist()
        rows = "".join(f"<tr><td class='name'>{e(str(r['system']))}</td><td class='name'>{e(r['measure'])}</td>"
                       f"<td>{_fmt(r['threshold'])}</td><td>{_fmt(r['value'])}</td></tr>" for r in bt)
        parts.append("<table><thead><tr><th class='name'>system</th><th class='name'>measure</th><th>best threshold"
                     f"</th><th>value</th></tr></thead><tbody>{rows}</tbody></table>")
    parts.append("<h2>Figures</h2>")
    for f in data.figures:
        uri = "data:image/png;base64," + base64.b64encode(f.png).decode()
        parts.append(f"<figure><img src='{uri}' alt='{e(f.title)}'><figcaption><b>{e(f.title)}.</b> "
                     f"{e(f.caption)}</figcaption></figure>")
    parts.append("<h2>The measures</h2><table><thead><tr><th class='name'>measure</th><th class='name'>definition"
                 "</th><th class='name'>range, direction</th><th class='name'>reference</th></tr></thead><tbody>")
    for label in data.measures:
        m = registry.make_spec(label.rpartition("@")[0] if "@" in label else label).measure
        direction = "higher is better" if m.higher_is_better else "lower is better"
        parts.append(f"<tr><td class='name'>{e(label)}</td><td class='name'>{e(m.summary)}<br><code>"
                     f"{e(m.formula)}</code></td><td class='name'>[{m.range[0]:g}, {m.range[1]:g}], {direction}</td>"
                     f"<td class='name'>{e(m.reference)}</td></tr>")
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts) + "\n"


def render_markdown(data: ReportData, figure_dir: str) -> str:
    """The report as Markdown; figures are referenced from ``figure_dir`` (written beside it)."""
    order, baselines, value = _board_rows(data)
    marks = _marks(data)
    lines = [f"# {_escape_md(data.title)}", "",
             f"{len(order)} systems, {data.n_topics} topic(s), measures: {_escape_md(', '.join(data.measures))}. "
             "† beats every non-informative baseline; * significantly better than the next system (paired "
             "bootstrap over topics, Holm-corrected p < 0.05).", "", "## Leaderboard", "",
             "| rank | system | " + " | ".join(_escape_md(m) for m in data.measures) + " |",
             "|---:|---|" + "---:|" * len(data.measures)]
    for i, s in enumerate(order, 1):
        lines.append(f"| {i} | {_escape_md(str(s))} | " + " | ".join(
            _fmt(value[(s, m)]["macro"]) + _escape_md(marks.get((s, m), "")) for m in data.measures) + " |")
    for b in baselines:
        lines.append(f"|  | *{_escape_md(str(b))} (baseline)* | " + " | ".join(
            _fmt(value[(b, m)]["macro"]) for m in data.measures) + " |")
    lines += ["", "## Figures", ""]
    for f in data.figures:
        lines += [f"![{_escape_md(f.title)}]({figure_dir}/{_safe_name(f.name)}.png)", "",
                  f"*{_escape_md(f.title)}.* {_escape_md(f.caption)}", ""]
    lines += ["## The measures", "", "| measure | definition | reference |", "|---|---|---|"]
    for label in data.measures:
        m = registry.make_spec(label.rpartition("@")[0] if "@" in label else label).measure
        lines.append(f"| {_escape_md(label)} | {_escape_md(m.summary)} `{m.formula}` | {_escape_md(m.reference)} |")
    return "\n".join(lines) + "\n"


def save_figures(data: ReportData, folder: str | os.PathLike) -> list[Path]:
    """Write every figure as PNG and SVG into ``folder``."""
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        from .._errors import ParameterError

        raise ParameterError(f"Cannot write the figures into '{folder}': it is a file, not a folder.")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for f in data.figures:
        for suffix, payload in (("png", f.png), ("svg", f.svg_bytes())):
            if payload is None:
                continue
            path = folder / f"{_safe_name(f.name)}.{suffix}"
            write_bytes(payload, path)
            written.append(path)
    return written


def _safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def check_report_paths(path, figures_dir=None) -> None:
    """Refuse a report path that is a folder or has another suffix than .html/.md, and a figures
    folder that is a file -- before anything is computed or written."""
    from .._errors import ParameterError

    path = Path(path)
    if path.is_dir():
        raise ParameterError(f"Cannot write the report to '{path}': it is a folder; give a file name such as "
                             f"'{path / 'report.html'}'.")
    if path.suffix.lower() not in (".html", ".md"):
        raise ParameterError(f"A report is written as .html or .md; got '{path.name}'.")
    if not (path.parent if str(path.parent) else Path(".")).is_dir():
        raise ParameterError(f"Cannot write '{path}': the folder '{path.parent}' does not exist.")
    if figures_dir is not None and Path(figures_dir).exists() and not Path(figures_dir).is_dir():
        raise ParameterError(f"Cannot write the figures into '{figures_dir}': it is a file, not a folder.")


def write_report(data: ReportData, path: str | os.PathLike, figures_dir=None) -> None:
    """Write the report by suffix (``.html`` or ``.md``) atomically, figures to ``figures_dir``."""
    check_report_paths(path, figures_dir)
    path = Path(path)
    if path.suffix.lower() == ".html":
        if figures_dir:
            save_figures(data, figures_dir)
        write_text(render_html(data), path)
    elif path.suffix.lower() == ".md":
        folder = Path(figures_dir) if figures_dir else path.with_name(path.stem + "_figures")
        save_figures(data, folder)
        rel = os.path.relpath(folder, path.parent)
        write_text(render_markdown(data, rel), path)
    else:
        from .._errors import ParameterError

        raise ParameterError(f"A report is written as .html or .md; got '{path.name}'.")
