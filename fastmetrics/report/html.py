"""The report: a ranked table with marks, figures and the measures' definitions, in one file.

HTML reports are self-contained: figures are embedded as data URIs, styles are inline, there is
no external file or network access, and a Content-Security-Policy allows only the report's own
small script (which records that every figure loaded). Every name taken from the users' files --
systems, topics, measures -- is escaped (HTML here, Markdown and LaTeX in :mod:`.tables`).
"""

from __future__ import annotations

import base64
import datetime
import hashlib
import html
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from .. import _numbers
from .._errors import ParameterError
from .._progress import Progress
from .._version import __version__
from ..measures import registry
from ..pipeline import ReportData
from . import cd
from . import figures as figs
from .tables import escape_md, write_bytes, write_text

_SCRIPT = (
    "window.addEventListener('load',function(){var m=document.images,k=0;"
    "for(var i=0;i<m.length;i++){if(m[i].complete&&m[i].naturalWidth>0){k++;}}"
    "document.body.setAttribute('data-figures-loaded',k+'/'+m.length);});"
)
_CSP = (
    "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    f"script-src 'sha256-{base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()}'"
)

# numbers and intervals keep to one line (an interval broken after its comma reads as two numbers; a wide
# table scrolls in its .wide box); text cells (names, definitions) wrap
_STYLE = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1280px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}.wide{overflow-x:auto}
h1{font-size:1.6em}h2{margin-top:2em;border-bottom:1px solid #ddd;padding-bottom:.2em}
table{border-collapse:collapse;font-size:.85em;margin:1em 0}th,td{padding:.25em .6em;border-bottom:1px solid #eee;
text-align:right;white-space:nowrap}th{background:#f6f6f6}td.name,th.name{text-align:left;white-space:normal}
tr.baseline td{font-style:italic;color:#666}
figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}figcaption{font-size:.9em;color:#444}
.note{font-size:.9em;color:#444;background:#fafafa;border-left:3px solid #bbb;padding:.5em 1em}
code{background:#f3f3f3;padding:0 .2em}
"""


@dataclass
class Figure:
    """One figure of the report, drawn once and saved in every format the output needs.

    Parameters
    ----------
    name, title, caption : str
        The figure's identifier (its files are named after it), title (the image's alt text and the
        caption's lead) and caption.
    files : dict
        Format (``"png"``, ``"svg"``) → bytes.
    """

    name: str
    title: str
    caption: str
    files: dict = field(default_factory=dict)

    @property
    def png(self) -> bytes:
        """The PNG (embedded in the HTML page)."""
        return self.files["png"]


def draw_figures(data: ReportData, formats=("png",), progress: bool = False) -> list[Figure]:
    """Draw each figure of the report once and save it in every format of ``formats``.

    Parameters
    ----------
    data : ReportData
    formats : sequence of {"png", "svg"}
    progress : bool, default False
        A progress bar with the time left on stderr (on a terminal, after about a second).

    Returns
    -------
    list of Figure
    """
    out = []
    plan = _figure_plan(data)
    with warnings.catch_warnings(), Progress(len(plan), "figures", quiet=not progress) as bar:
        warnings.simplefilter("ignore")
        for name, title, caption, draw, args in plan:
            out.append(Figure(name, title, caption, figs.save(draw(*args), formats)))
            bar.advance()
    return out


def _figure_plan(data: ReportData) -> list[tuple]:
    """(name, title, caption, draw, args) of every figure the data has."""
    plan = []
    if data.curves:
        shown = data.measures[:2]
        plan.append(
            (
                "threshold_curves",
                "Threshold curves of the best systems",
                f"{' and '.join(shown)} (all topics pooled) when a system's scores are cut at a threshold, on "
                "a grid over that system's own score range; dots mark each measure's best threshold. A flat "
                "stretch is a range of thresholds that changes no decision.",
                figs.threshold_curves,
                (data.curves, shown),
            )
        )
    ranked = _rank_rows(data)
    if ranked:
        plan.append(
            (
                "rank_intervals",
                "Rank intervals",
                f"Each system's rank by {data.measures[0]} (dot) and its 95 % interval over topic resamples "
                "(bar; the same topics drawn for every system). Red: the interval reaches the leader's, so the "
                "data cannot separate the system from the first.",
                figs.rank_intervals,
                (ranked, data.measures[0], data.roles.system),
            )
        )
    plan += _curve_figures(data)
    if data.comparison is not None:
        test = data.comparison.tests.to_pylist()[0]
        plan.append(
            (
                "critical_difference",
                "Critical-difference diagram",
                f"Each system's mean rank by {test['measure']} over the {test['topics']} topics where every system is "
                f"defined (1: the best on a topic; Demšar 2006). Bars join systems Nemenyi's test does not separate at "
                f"alpha 0.05 (critical difference {_numbers.short(test['critical_difference'])} mean ranks); "
                f"Friedman's test: {_p_text(test['p_value'])}.",
                _cd_figure,
                (data,),
            )
        )
    for x, y in data.scatter:
        plan.append(
            (
                f"scatter_{x}_{y}",
                f"{x} against {y}",
                f"Every (system, topic) output placed by {x} and {y}. Points off a monotone curve are outputs "
                "the two measures rank differently.",
                figs.scatter,
                (data.scores, x, y),
            )
        )
    plan += _meta_figures(data)
    return plan


def _cd_figure(data: ReportData):
    """The critical-difference diagram of the report's first measure."""
    return cd.figure(cd.of_comparison(data.comparison, system=data.roles.system, title=False))


def _p_text(p: float) -> str:
    return "p < 1e-300" if p == 0 else f"p = {_numbers.short(p)}"


def _curve_figures(data: ReportData) -> list[tuple]:
    """The exact ROC and precision-recall figures (reports with scores only)."""
    plan = []
    if data.roc:
        plan.append(
            (
                "roc_curves",
                "ROC curves of the best systems",
                "True against false positive rate at every distinct score of each system (all topics pooled), "
                "exact; the legend gives the area under each curve (ROC AUC, ties counted 1/2).",
                figs.roc_curves,
                (data.roc,),
            )
        )
        plan.append(
            (
                "pr_curves",
                "Precision-recall curves of the best systems",
                "Precision against recall at every distinct score of each system (all topics pooled), exact; "
                "the legend gives the average precision (scikit-learn's step definition).",
                figs.pr_curves,
                (data.pr,),
            )
        )
    if data.reliability:
        plan.append(
            (
                "reliability",
                "Reliability diagrams of the best systems",
                "Share of positives against mean score in ten equal-width bins of the score (all topics "
                "pooled); the diagonal is perfect calibration. The legend gives the expected calibration error "
                "over these bins and the Brier score.",
                figs.reliability_diagram,
                (data.reliability,),
            )
        )
    return plan


def _rank_rows(data: ReportData) -> list[dict]:
    """The first measure's system rows with rank intervals, in rank order."""
    rows = {
        r[data.roles.system]: r
        for r in data.board.summary.to_pylist()
        if r["kind"] == "system" and r["measure"] == data.measures[0] and r.get("rank_low") is not None
    }
    return [rows[s] for s in data.order[data.measures[0]] if s in rows]


def _meta_figures(data: ReportData) -> list[tuple]:
    """The figures of the meta-evaluation jobs the data has."""
    plan = []
    meta_figures = (
        (
            data.strictness,
            "strictness",
            "Strictness of each measure",
            "For the outputs a measure ranks in its top share th, the lowest rank that any other measure gives "
            "them (Amigó et al. 2019, §6.3). A strict measure keeps this high: what it ranks top, every other measure "
            "ranks top too.",
            figs.strictness_curves,
        ),
        (
            data.robustness,
            "robustness",
            "Robustness across topics",
            "Mean Spearman correlation between the systems' scores on two random topics "
            "(Amigó et al. 2019, §6.4): high "
            "means the measure ranks systems the same way whatever the topic.",
            figs.robustness_bars,
        ),
        (
            data.inconsistency,
            "inconsistency",
            "Inconsistency between measures",
            "For each pair of measures, the percentage of (topic, system pair) comparisons they order "
            "differently (a win against a tie counts; Gösgens et al. (2021, §5)).",
            figs.inconsistency_heatmap,
        ),
    )
    for result, name, title, caption, draw in meta_figures:
        if result is not None:
            plan.append((name, title, caption, draw, (result.summary,)))
    return plan


def _marks(data):
    """Marks per (system, measure): † beats every non-informative baseline, * significantly better
    than the next system in the ranking (Holm-adjusted p < 0.05, :func:`_adjacent_tests`)."""
    marks = {}
    system = data.roles.system
    for r in data.board.summary.to_pylist():
        if r["beats_baselines"]:
            marks[(r[system], r["measure"])] = "†"
    for (m, s), q in data.adjacent.items():
        if q == q and q < 0.05:
            marks[(s, m)] = marks.get((s, m), "") + "*"
    rows = [r for r in data.board.summary.to_pylist() if r["kind"] == "system"]
    most = {m: max((r["topics"] for r in rows if r["measure"] == m), default=0) for m in data.measures}
    for r in rows:  # a mean over fewer topics than the others' is not the same average
        if r["topics"] < most.get(r["measure"], 0):
            marks[(r[system], r["measure"])] = marks.get((r[system], r["measure"]), "") + "°"
    return marks


def _with_interval(row) -> str:
    """``0.6084 [0.5840, 0.6330]``: the macro mean with its 95 % interval (topics resampled)."""
    if row.get("macro_low") is None:
        return _numbers.cell(row["macro"])
    return f"{_numbers.cell(row['macro'])} <small>{_numbers.bounds(row['macro_low'], row['macro_high'])}</small>"


def _rank_text(row, position: int) -> str:
    """The position, and the rank interval when it is wider than one rank."""
    low, high = row.get("rank_low"), row.get("rank_high")
    if low is None or low == high:
        return str(position)
    return f"{position} <small>{_numbers.bounds(low, high, _numbers.count)}</small>"


def _board_rows(data):
    rows = data.board.summary.to_pylist()
    first = data.measures[0]
    order = data.order[first]
    system = data.roles.system
    value = {(r[system], r["measure"]): r for r in rows}
    baselines = list(dict.fromkeys(r[system] for r in rows if r["kind"] == "baseline"))
    return order, baselines, value


def render_html(data: ReportData, figures: list[Figure]) -> str:
    """The report as one self-contained HTML page.

    Parameters
    ----------
    data : ReportData
    figures : list of Figure
        Drawn by :func:`draw_figures` with at least the PNG format.

    Returns
    -------
    str
    """
    e = html.escape
    order, baselines, value = _board_rows(data)
    marks = _marks(data)
    head = "".join(f"<th>{e(m)}</th>" for m in data.measures)
    body = []
    for i, s in enumerate(order, 1):
        cells = "".join(f"<td>{_with_interval(value[(s, m)])}{e(marks.get((s, m), ''))}</td>" for m in data.measures)
        body.append(
            f"<tr><td>{_rank_text(value[(s, data.measures[0])], i)}</td><td class='name'>{e(str(s))}</td>{cells}</tr>"
        )
    for b in baselines:
        cells = "".join(f"<td>{_numbers.cell(value[(b, m)]['macro'])}</td>" for m in data.measures)
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
        "p &lt; 0.05). <b>°</b>: the mean covers fewer topics than other systems' (the measure is undefined on some). "
        "Brackets: 95 % intervals of the mean (topics resampled, the same draw for every system); beside the rank, "
        "the 95 % interval of the rank. The figures then ask whether the measures agree, and which one to trust.</div>",
        "<h2>Leaderboard</h2>",
        f"<div class='wide'><table><thead><tr><th>rank</th><th class='name'>system</th>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>",
    ]
    parts += _html_best(data) + _html_figures(figures) + _html_measures(data)
    parts.append("</tbody></table></body></html>")
    return "\n".join(parts) + "\n"


def _html_best(data: ReportData) -> list[str]:
    """The best-thresholds section (reports with threshold curves only)."""
    if data.best is None:
        return []
    e = html.escape
    rows = "".join(
        f"<tr><td class='name'>{e(str(r[data.roles.system]))}</td><td class='name'>{e(r['measure'])}</td>"
        f"<td>{_numbers.cell(r['threshold'])}</td><td>{_numbers.cell(r['value'])}</td></tr>"
        for r in data.best.to_pylist()
    )
    return [
        "<h2>Best thresholds</h2><p>Each system's scores cut at every point of a grid over its own "
        "score range, all topics pooled: the threshold where each measure is best, and the value there "
        "(compare with the leaderboard, which uses the systems' own decisions). Measures that read one side "
        "of the decisions (precision, recall, specificity, ...) are left out: their best threshold is an end "
        "of the range.</p>",
        "<table><thead><tr><th class='name'>system</th><th class='name'>measure</th><th>best threshold"
        f"</th><th>value</th></tr></thead><tbody>{rows}</tbody></table>",
    ]


def _html_figures(figures: list[Figure]) -> list[str]:
    """The figures, embedded as PNG data URIs."""
    e = html.escape
    parts = ["<h2>Figures</h2>"]
    for f in figures:
        uri = "data:image/png;base64," + base64.b64encode(f.png).decode()
        parts.append(
            f"<figure><img src='{uri}' alt='{e(f.title)}'><figcaption><b>{e(f.title)}.</b> "
            f"{e(f.caption)}</figcaption></figure>"
        )
    return parts


def _html_measures(data: ReportData) -> list[str]:
    """The measures' definitions, read from their records."""
    e = html.escape
    parts = [
        "<h2>The measures</h2><table><thead><tr><th class='name'>measure</th><th class='name'>definition"
        "</th><th class='name'>range, direction</th><th class='name'>reference</th></tr></thead><tbody>"
    ]
    for label in data.measures:
        m = registry.parse_spec(label).measure
        direction = "higher is better" if m.higher_is_better else "lower is better"
        span = _numbers.bounds(*m.range, _numbers.parameter)
        parts.append(
            f"<tr><td class='name'>{e(label)}</td><td class='name'>{e(m.summary)}<br><code>"
            f"{e(m.formula)}</code></td><td class='name'>{span}, {direction}</td>"
            f"<td class='name'>{e(m.reference)}</td></tr>"
        )
    return parts


def render_markdown(data: ReportData, figures: list[Figure], figure_dir: str) -> str:
    """The report as Markdown; figures are referenced from ``figure_dir`` (written beside it).

    Parameters
    ----------
    data : ReportData
    figures : list of Figure
    figure_dir : str
        The figures' folder relative to the Markdown file.

    Returns
    -------
    str
    """
    order, baselines, value = _board_rows(data)
    marks = _marks(data)
    measures = data.measures
    lines = [
        f"# {escape_md(data.title)}",
        "",
        f"{len(order)} systems, {data.n_topics} topic(s), measures: {escape_md(', '.join(data.measures))}. "
        "† beats every non-informative baseline; * significantly better than the next system (paired "
        "bootstrap over topics, Holm-corrected p < 0.05).",
        "",
        "## Leaderboard",
        "",
        "| rank | system | " + " | ".join(escape_md(m) for m in data.measures) + " |",
        "|---:|---|" + "---:|" * len(data.measures),
    ]
    for i, s in enumerate(order, 1):
        lines.append(
            f"| {i} | {escape_md(str(s))} | "
            + " | ".join(_numbers.cell(value[(s, m)]["macro"]) + escape_md(marks.get((s, m), "")) for m in measures)
            + " |"
        )
    for b in baselines:
        lines.append(
            f"|  | *{escape_md(str(b))} (baseline)* | "
            + " | ".join(_numbers.cell(value[(b, m)]["macro"]) for m in data.measures)
            + " |"
        )
    lines += ["", "## Figures", ""]
    for f in figures:
        lines += [
            f"![{escape_md(f.title)}]({figure_dir}/{_safe_name(f.name)}.png)",
            "",
            f"*{escape_md(f.title)}.* {escape_md(f.caption)}",
            "",
        ]
    lines += ["## The measures", "", "| measure | definition | reference |", "|---|---|---|"]
    for label in data.measures:
        m = registry.parse_spec(label).measure
        lines.append(f"| {escape_md(label)} | {escape_md(m.summary)} `{m.formula}` | {escape_md(m.reference)} |")
    return "\n".join(lines) + "\n"


def save_figures(figures: list[Figure], folder: str | os.PathLike) -> list[Path]:
    """Write every drawn format of every figure into ``folder`` (created if needed).

    Parameters
    ----------
    figures : list of Figure
    folder : path

    Returns
    -------
    list of Path
        The files written.
    """
    folder = Path(folder)
    if folder.exists() and not folder.is_dir():
        raise ParameterError(f"Cannot write the figures into '{folder}': it is a file, not a folder.")
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for f in figures:
        for suffix, payload in f.files.items():
            path = folder / f"{_safe_name(f.name)}.{suffix}"
            write_bytes(payload, path)
            written.append(path)
    return written


def _safe_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)


def check_report_paths(path, figures_dir=None) -> None:
    """Refuse a bad report path or figures folder, before anything is computed or written.

    Refused: a report path that is a folder, has another suffix than .html/.md or lies in a
    folder that does not exist, and a figures folder that is a file.

    Raises
    ------
    ParameterError
        One of the paths is refused.
    """
    path = Path(path)
    if path.is_dir():
        raise ParameterError(
            f"Cannot write the report to '{path}': it is a folder; give a file name such as '{path / 'report.html'}'."
        )
    if path.suffix.lower() not in (".html", ".md"):
        raise ParameterError(f"A report is written as .html or .md; got '{path.name}'.")
    if not (path.parent if str(path.parent) else Path(".")).is_dir():
        raise ParameterError(f"Cannot write '{path}': the folder '{path.parent}' does not exist.")
    if figures_dir is not None and Path(figures_dir).exists() and not Path(figures_dir).is_dir():
        raise ParameterError(f"Cannot write the figures into '{figures_dir}': it is a file, not a folder.")


def write_report(
    data: ReportData, path: str | os.PathLike, figures_dir=None, progress: bool = False, provenance: dict | None = None
) -> list[Figure]:
    """Write the report by suffix (``.html`` or ``.md``) atomically, figures to ``figures_dir``.

    Each figure is drawn once, as PNG and -- where figure files are written -- SVG.

    Parameters
    ----------
    data : ReportData
        From :func:`fastmetrics.pipeline.report_data`.
    path : path
        The report file, ``.html`` (self-contained) or ``.md``.
    figures_dir : path, optional
        Where figure files go; a Markdown report defaults to ``<stem>_figures`` beside it.
    progress : bool, default False
        A progress bar of the figures drawn on stderr (on a terminal, after about a second).
    provenance : dict, optional
        How the numbers were made (:func:`fastmetrics.cli.output.provenance`: version, command,
        options, the inputs' names, sizes and SHA-256), shown as the report's last section.

    Returns
    -------
    list of Figure
    """
    check_report_paths(path, figures_dir)
    path = Path(path)
    markdown = path.suffix.lower() == ".md"
    folder = Path(figures_dir) if figures_dir else (path.with_name(path.stem + "_figures") if markdown else None)
    figures = draw_figures(data, ("png", "svg") if folder is not None else ("png",), progress=progress)
    if folder is not None:
        save_figures(figures, folder)
    if markdown:
        text = render_markdown(data, figures, os.path.relpath(folder, path.parent))
    else:
        text = render_html(data, figures)
    write_text(text if provenance is None else _with_provenance(text, provenance, markdown), path)
    return figures


def _with_provenance(text: str, provenance: dict, markdown: bool) -> str:
    """``text`` with a last section saying how its numbers were made."""
    record = json.dumps(provenance, indent=1, sort_keys=True, default=str)
    title = "How these numbers were made"
    if markdown:
        return f"{text.rstrip()}\n\n## {title}\n\n```json\n{record}\n```\n"
    block = f"<h2>{title}</h2><pre class='provenance'>{html.escape(record)}</pre>"
    head, end, tail = text.rpartition("</body></html>")
    return head + block + end + tail
