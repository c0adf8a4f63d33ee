"""The critical-difference diagram (Demšar 2006): mean ranks on an axis, each system's name at the
end of an elbow from its rank, bars joining the groups of systems no test separates.

One layout -- lines and texts in inches -- is drawn twice: by matplotlib (SVG, PNG, PDF; the
``[report]`` extra) and as a TikZ picture (no dependency). The best half of the systems is named on
the left, the best first from the top, the other half on the right, the worst first from the top,
so that no two elbows cross; every name is written whole, one row each. Group bars (the groups of
:func:`fastmetrics.board.friedman.tiers`, two systems or more) sit between the axis and the names,
packed in as few rows as keep them apart; with Nemenyi's test the critical difference is drawn
above the axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

from .. import _numbers
from .._errors import ParameterError
from . import figures
from .tables import escape_latex, write_bytes, write_text

FORMATS = (".svg", ".png", ".pdf", ".tex")
_AXIS_WIDTH = 6.0  # inches between rank 1 and rank k
_ROW = 0.24  # inches between two names
_BAR_ROW = 0.12  # inches between two rows of group bars
_CHAR = 0.072  # inches a character takes at 9 points (an upper bound for the TikZ sizes)
_FONT = 9


@dataclass
class Layout:
    """What a diagram draws, in inches from its top-left corner (y downwards).

    Attributes
    ----------
    width, height : float
    lines : list of (x1, y1, x2, y2, thickness)
        Thickness in points.
    texts : list of (x, y, text, align, size)
        ``align`` is ``"left"``, ``"right"`` or ``"center"`` (the text's anchor at ``x``),
        vertically centred on ``y``; size in points.
    """

    width: float
    height: float
    lines: list = field(default_factory=list)
    texts: list = field(default_factory=list)


def layout(names, mean_ranks, groups, critical_difference=None, title: str | None = None) -> Layout:
    """The diagram of systems with their mean ranks and groups.

    Parameters
    ----------
    names : sequence of str
        The systems, best (lowest mean rank) first.
    mean_ranks : sequence of float
        Their mean ranks, increasing.
    groups : sequence of (int, int)
        First and last position (in ``names``) of each group of systems no test separates.
    critical_difference : float, optional
        Nemenyi's critical difference, drawn above the axis.
    title : str, optional
        A line above everything.

    Returns
    -------
    Layout
    """
    k = len(names)
    if k < 2:
        raise ParameterError("A critical-difference diagram compares at least two systems.")
    label = max(len(f"{n}  {_numbers.value(r, 2)}") for n, r in zip(names, mean_ranks)) * _CHAR + 0.3
    left, top = label, 0.35 + (0.3 if title else 0.0) + (0.35 if critical_difference else 0.0)
    width = 2 * label + _AXIS_WIDTH
    # the axis spans the whole ranks the systems reach (as scikit-posthocs draws it): crowded ranks spread out
    low = max(1, math.floor(min(mean_ranks)))
    high = max(low + 1, math.ceil(max(mean_ranks)))
    scale = _AXIS_WIDTH / (high - low)

    def x(rank: float) -> float:
        return left + (rank - low) * scale

    out = Layout(width, 0.0)
    if title:
        out.texts.append((width / 2, 0.15, title, "center", _FONT + 1))
    _axis(out, low, high, x, top)
    if critical_difference:
        y, end = top - 0.35, low + critical_difference
        out.lines.append((x(low), y, x(end), y, 1.2))
        out.lines += [(x(low), y - 0.05, x(low), y + 0.05, 1.2), (x(end), y - 0.05, x(end), y + 0.05, 1.2)]
        out.texts.append((x(end) + 0.08, y, f"CD = {_numbers.value(critical_difference, 2)}", "left", _FONT - 1))
    bars = [(mean_ranks[a], mean_ranks[b]) for a, b in groups if b > a]
    levels = _pack(bars)
    for (start, stop), level in zip(bars, levels):
        y = top + 0.2 + level * _BAR_ROW
        out.lines.append((x(start) - 0.04, y, x(stop) + 0.04, y, 3.0))
    first_row = top + 0.2 + (max(levels) + 1 if levels else 0) * _BAR_ROW + 0.15
    half = math.ceil(k / 2)
    for i in range(k):
        rank = mean_ranks[i]
        on_left = i < half
        row = i if on_left else k - 1 - i
        y = first_row + row * _ROW
        end = left - 0.1 if on_left else left + _AXIS_WIDTH + 0.1
        out.lines += [(x(rank), top, x(rank), y, 0.7), (x(rank), y, end, y, 0.7)]
        text = f"{names[i]}  {_numbers.value(rank, 2)}" if on_left else f"{_numbers.value(rank, 2)}  {names[i]}"
        out.texts.append((end - 0.05 if on_left else end + 0.05, y, text, "right" if on_left else "left", _FONT))
    out.height = first_row + (half - 1) * _ROW + 0.25
    return out


def _axis(out: Layout, low: int, high: int, x, top: float) -> None:
    """The rank axis: a line from ``low`` to ``high``, a tick at every rank, a label at every
    ``step``-th."""
    out.lines.append((x(low), top, x(high), top, 1.0))
    step = 1 if high - low <= 40 else 5 if high - low <= 200 else 20
    for r in range(low, high + 1):
        labelled = r == low or r == high or r % step == 0
        out.lines.append((x(r), top - (0.08 if labelled else 0.05), x(r), top, 0.8))
        if labelled:
            out.texts.append((x(r), top - 0.17, str(r), "center", _FONT - 1))


def _pack(bars) -> list:
    """A row for each bar (low, high), the lowest free one: bars of one row are apart."""
    ends: list = []
    rows = []
    for low, high in bars:
        for level, end in enumerate(ends):
            if low > end:
                ends[level] = high
                rows.append(level)
                break
        else:
            ends.append(high)
            rows.append(len(ends) - 1)
    return rows


def figure(drawing: Layout):
    """The layout drawn by matplotlib.

    Parameters
    ----------
    drawing : Layout

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = figures.pyplot()
    fig = plt.figure(figsize=(drawing.width, drawing.height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, drawing.width)
    ax.set_ylim(drawing.height, 0)
    ax.axis("off")
    for x1, y1, x2, y2, thickness in drawing.lines:
        ax.plot([x1, x2], [y1, y2], color="black", linewidth=thickness, solid_capstyle="butt")
    for x, y, text, align, size in drawing.texts:
        ax.text(x, y, figures.label(text, width=10_000), ha=align, va="center", fontsize=size)
    return fig


def tikz(drawing: Layout) -> str:
    """The layout as a TikZ picture (``\\usepackage{tikz}``), names escaped for LaTeX.

    Parameters
    ----------
    drawing : Layout

    Returns
    -------
    str
    """
    anchors = {"left": "west", "right": "east", "center": "center"}
    lines = [r"\begin{tikzpicture}[x=1in,y=-1in]"]
    for x1, y1, x2, y2, thickness in drawing.lines:
        a, b, c, d = (_numbers.short(round(v, 3)) for v in (x1, y1, x2, y2))
        lines.append(f"\\draw[line width={_numbers.short(thickness)}pt] ({a},{b}) -- ({c},{d});")
    for x, y, text, align, size in drawing.texts:
        lines.append(
            f"\\node[anchor={anchors[align]},inner sep=1pt,font=\\fontsize{{{size}}}{{{size + 2}}}\\selectfont] "
            f"at ({_numbers.short(round(x, 3))},{_numbers.short(round(y, 3))}) {{{escape_latex(text)}}};"
        )
    lines.append(r"\end{tikzpicture}")
    return "\n".join(lines) + "\n"


def check_path(path) -> str:
    """The suffix of a diagram's file, checked before anything is computed.

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    str
        One of :data:`FORMATS`.
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in FORMATS:
        raise ParameterError(f"A critical-difference diagram is written as {', '.join(FORMATS)}; got '{path.name}'.")
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise ParameterError(f"Cannot write '{path}': the folder '{folder}' does not exist.")
    return suffix


def write(drawing: Layout, path) -> None:
    """Write the diagram to ``path`` by its suffix (SVG, PNG, PDF or TikZ), atomically.

    Parameters
    ----------
    drawing : Layout
    path : str or os.PathLike
    """
    suffix = check_path(path)
    if suffix == ".tex":
        write_text(tikz(drawing), path)
        return
    write_bytes(figures.save(figure(drawing), (suffix[1:],))[suffix[1:]], path)


def of_comparison(comparison, measure=None, system: str = "system", title: bool = True) -> Layout:
    """The layout of one measure of a :func:`fastmetrics.board.compare` result.

    Parameters
    ----------
    comparison : Comparison
    measure : str, optional
        Default: the first measure compared.
    system : str, default "system"
        The summary's system column.
    title : bool or str, default True
        A title naming the measure, the test and the topics; or the title to write.

    Returns
    -------
    Layout
    """
    rows = comparison.summary.to_pylist()
    measure = measure if measure is not None else rows[0]["measure"]
    mine = [r for r in rows if r["measure"] == measure]
    if not mine:
        raise ParameterError(f"The comparison holds no measure {measure!r}.")
    test = next(t for t in comparison.tests.to_pylist() if t["measure"] == measure)
    groups = comparison.spans[measure]
    nemenyi = comparison.params.get("posthoc") == "nemenyi"
    heading = title if isinstance(title, str) else None
    if title is True:
        test_name = {"nemenyi": "Nemenyi's test", "conover": "Conover's test", "wilcoxon": "Wilcoxon-Holm"}.get(
            comparison.params.get("posthoc"), comparison.params.get("posthoc")
        )
        alpha = _numbers.short(comparison.params["alpha"])
        heading = (
            f"{measure}: mean ranks over {test['topics']} topics; bars join systems "
            f"{test_name} does not separate at alpha {alpha}"
        )
    return layout(
        [str(r[system]) for r in mine],
        [r["mean_rank"] for r in mine],
        groups,
        test["critical_difference"] if nemenyi else None,
        heading,
    )
