"""Figures of the report (matplotlib, the optional ``[report]`` extra).

Each function takes tidy tables or Scores and returns a matplotlib Figure; :func:`save` turns one
into the bytes of every format asked for (PNG to embed, SVG to save) and closes it. Labels come
from users' files, so every text passes through :func:`label` (matplotlib would read ``$...$`` as
math).
"""

from __future__ import annotations

import io
import re

import numpy as np

from .._errors import ParameterError
from .._numbers import value
from ..measures import parse_spec


def _plt():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - exercised only without the extra
        raise ParameterError("Figures need matplotlib: pip install 'fastmetrics[report]'.") from None
    return plt


def pyplot():
    """``matplotlib.pyplot`` on the Agg backend, or a one-line error saying which extra brings it."""
    return _plt()


# where a long name may break: after a path separator, an underscore, a hyphen, a dot or a blank
_BREAK_AFTER = re.compile(r"(?<=[/_\-. ])")


def label(text, width: int = 40) -> str:
    """A user-supplied name made safe for matplotlib text, whole, on lines of at most ``width``.

    Safe: no mathtext (a ``$`` is escaped).

    A figure shows the full name (two runs of one team differ only at the end:
    ``MTE-NN/subtask_A_contrastive1`` and ``..._contrastive2``), broken after ``/``, ``_``, ``-``,
    ``.`` or a blank where it is longer than ``width``, and inside a part only where one part is.
    """
    text = str(text).replace("\\", "\\\\").replace("$", r"\$")
    lines, line = [], ""
    for part in _BREAK_AFTER.split(text):
        while len(part) > width:  # a part longer than a line: cut it
            room = width - len(line)
            lines.append(line + part[:room])
            line, part = "", part[room:]
        if len(line) + len(part) > width:
            lines.append(line.rstrip())
            line = ""
        line += part
    return "\n".join([*lines, line] if line or not lines else lines)


def _legend_beside(ax, entries, **options) -> None:
    """The legend to the right of the axes, where it hides no curve and has room for whole names.

    ``entries`` are (artist, text) pairs, given explicitly: matplotlib leaves out of a legend it
    collects itself every label that starts with ``_``, as SemEval's ``_baseline/...`` runs do.
    """
    handles, texts = zip(*entries) if entries else ((), ())
    ax.legend(
        handles,
        texts,
        fontsize=7,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
        **options,
    )


def save(fig, formats=("png",)) -> dict:
    """Save one drawn figure in every format asked, then close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    formats : sequence of {"png", "svg"}

    Returns
    -------
    dict
        Format → bytes.
    """
    out = {}
    try:
        for fmt in formats:
            buf = io.BytesIO()
            fig.savefig(buf, format=fmt, bbox_inches="tight", **({"dpi": 110} if fmt == "png" else {}))
            out[fmt] = buf.getvalue()
    finally:
        _plt().close(fig)
    return out


def threshold_curves(curves, measures, per_row: int = 4):
    """Small multiples of threshold curves, one panel per system.

    Each panel draws each measure against the system's own threshold grid (systems score on
    different scales), the best threshold of each measure marked.

    Parameters
    ----------
    curves : sequence of (system, ndarray, dict)
        Per system: its label, its thresholds, and ``{measure: values over the thresholds}``
        (:func:`fastmetrics.pipeline.threshold_curves`).
    measures : sequence of str
        The measures to draw, keys of the dicts.
    per_row : int, default 4
        Panels per row.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    n = len(curves)
    rows = (n + per_row - 1) // per_row
    fig, axes = plt.subplots(rows, per_row, figsize=(3.2 * per_row, 2.6 * rows), squeeze=False)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, (system, grid, values) in enumerate(curves):
        ax = axes[k // per_row][k % per_row]
        for j, m in enumerate(measures):
            line = values[m]
            color = colors[j % len(colors)]
            ax.plot(grid, line, lw=1.4, color=color, label=label(m, 20))
            if np.isfinite(line).any():
                b = int(np.nanargmax(line if parse_spec(m).higher_is_better else -line))
                ax.plot([grid[b]], [line[b]], "o", color=color, ms=5)
        ax.set_title(label(system, 34), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        if k == 0:
            ax.legend(fontsize=7)
    for k in range(n, rows * per_row):
        axes[k // per_row][k % per_row].axis("off")
    fig.supxlabel("threshold on the system's own scores (predicted positive iff score >= threshold)", fontsize=9)
    fig.tight_layout()
    return fig


def rank_intervals(rows, measure, system="system"):
    """Each system's rank (dot) and its 95 % rank interval (bar), best first.

    Parameters
    ----------
    rows : list of dict
        Leaderboard rows of one measure with ``system, rank, rank_low, rank_high,
        tied_with_leader``, in rank order.
    measure : str
    system : str, default "system"
        The rows' system key (the leaderboard's column named after the column playing the system).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    names = [label(r[system], 36) for r in rows]
    lines = max((n.count("\n") + 1 for n in names), default=1)  # a wrapped name needs a taller row
    fig, ax = plt.subplots(figsize=(7.5, (0.16 + 0.12 * lines) * len(rows) + 1.2))
    for y, r in enumerate(rows):
        color = "#c44e52" if r["tied_with_leader"] else "#4c72b0"
        ax.plot([r["rank_low"], r["rank_high"]], [y, y], lw=4, color=color, alpha=0.5, solid_capstyle="butt")
        ax.plot([r["rank"]], [y], "o", color=color, ms=4)
    ax.set_yticks(range(len(rows)), names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel(f"rank by {label(measure)} (red: cannot be separated from the leader)")
    ax.grid(axis="x", alpha=0.3)
    return fig


def roc_curves(curves):
    """Exact ROC curves of the best systems, their ROC AUC in the legend.

    Parameters
    ----------
    curves : list of (system, fpr, tpr, auc)
        Points in decreasing threshold order (:class:`fastmetrics.pipeline.Curves`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    entries = []
    for system, fpr, tpr, area in curves:
        (line,) = ax.plot(
            np.concatenate([[0.0], fpr, [1.0]]),
            np.concatenate([[0.0], tpr, [1.0]]),
            lw=1.3,
        )
        entries.append((line, f"{label(system, 32)} (AUC {value(area)})"))
    ax.plot([0, 1], [0, 1], ls=":", color="grey", lw=1)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    _legend_beside(ax, entries)
    ax.grid(alpha=0.3)
    return fig


def pr_curves(curves):
    """Exact precision-recall curves of the best systems, their average precision in the legend.

    Parameters
    ----------
    curves : list of (system, recall, precision, average_precision)
        Points in decreasing threshold order.

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    entries = []
    for system, recall, precision, area in curves:
        (line,) = ax.step(
            np.concatenate([[0.0], recall]),
            np.concatenate([[1.0], precision]),
            where="post",
            lw=1.3,
        )
        entries.append((line, f"{label(system, 32)} (AP {value(area)})"))
    ax.set_xlabel("recall")
    ax.set_ylabel("precision")
    ax.set_ylim(0, 1.02)
    _legend_beside(ax, entries)
    ax.grid(alpha=0.3)
    return fig


def reliability_diagram(points):
    """Reliability diagrams of the best systems: observed frequency against mean score per bin.

    Parameters
    ----------
    points : list of (system, mean_score, frequency, weight, ece, brier)
        Ten equal-width bins per system (:class:`fastmetrics.pipeline.Curves`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.2, 4.6))
    entries = []
    for system, mean_score, frequency, weight, ece, brier in points:
        filled = weight > 0
        (line,) = ax.plot(
            mean_score[filled],
            frequency[filled],
            marker="o",
            ms=3,
            lw=1.2,
        )
        entries.append((line, f"{label(system, 32)}\n(ECE {value(ece)}, Brier {value(brier)})"))
    ax.plot([0, 1], [0, 1], ls=":", color="grey", lw=1)
    ax.set_xlabel("mean score in the bin")
    ax.set_ylabel("share of positives in the bin")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    _legend_beside(ax, entries, labelspacing=0.9)
    ax.grid(alpha=0.3)
    return fig


def scatter(scores, measure_x: str, measure_y: str):
    """Every (system, topic) output placed by two measures."""
    plt = _plt()
    x = np.asarray(scores[measure_x]).reshape(-1)
    y = np.asarray(scores[measure_y]).reshape(-1)
    keep = np.isfinite(x) & np.isfinite(y)
    fig, ax = plt.subplots(figsize=(4.6, 4.2))
    ax.scatter(x[keep], y[keep], s=6, alpha=0.35)
    ax.set_xlabel(label(measure_x))
    ax.set_ylabel(label(measure_y))
    ax.set_title(f"each (system, topic) output: {keep.sum()} points", fontsize=9)
    ax.grid(alpha=0.3)
    return fig


def strictness_curves(summary):
    """Strictness of each measure against the share of top outputs kept (Amigó et al. 2019, Fig. 8)."""
    plt = _plt()
    rows = summary.to_pylist()
    fig, ax = plt.subplots(figsize=(7, 4.4), layout="constrained")
    entries = []
    for m in dict.fromkeys(r["measure"] for r in rows):
        pts = [(r["level"], r["value"]) for r in rows if r["measure"] == m]
        (line,) = ax.plot([p[0] for p in pts], [p[1] for p in pts], lw=1.5)
        entries.append((line, label(m, 24)))
    ax.set_xlabel("top share th (outputs ranked at or above th by the measure)", fontsize=9)
    ax.set_ylabel("strictness\n(lowest rank any other measure gives them)", fontsize=9)
    ax.set_title("Strictness: higher means the measure's top outputs\nare top for every other measure", fontsize=10)
    ax.grid(alpha=0.3)
    _legend_beside(ax, entries)
    return fig


def robustness_bars(summary):
    """Mean Spearman correlation between topics per measure, with its standard deviation."""
    plt = _plt()
    rows = summary.to_pylist()
    names = [label(r["measure"], 24) for r in rows]
    mean = [r["mean"] if r["mean"] is not None else np.nan for r in rows]
    std = [r["std"] if r["std"] is not None else 0.0 for r in rows]
    fig, ax = plt.subplots(figsize=(7, 3.8), layout="constrained")
    ax.bar(range(len(names)), mean, yerr=std, capsize=3, color="#4c72b0")
    ax.set_xticks(range(len(names)), names, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel("Spearman correlation\nbetween topic pairs", fontsize=9)
    ax.set_title("Robustness across topics (mean ± standard deviation)", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return fig


def inconsistency_heatmap(summary):
    """Percent of comparisons where two measures order a pair of systems differently."""
    plt = _plt()
    rows = summary.to_pylist()
    names = list(dict.fromkeys([r["measure_a"] for r in rows] + [r["measure_b"] for r in rows]))
    grid = np.full((len(names), len(names)), np.nan)
    for r in rows:
        grid[names.index(r["measure_a"]), names.index(r["measure_b"])] = r["value"]
    fig, ax = plt.subplots(figsize=(5.5, 4.8))
    im = ax.imshow(grid, cmap="magma_r", vmin=0, vmax=max(1.0, np.nanmax(grid)))
    ax.set_xticks(range(len(names)), [label(n, 18) for n in names], rotation=45, ha="right", fontsize=8)
    ax.set_yticks(range(len(names)), [label(n, 18) for n in names], fontsize=8)
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(grid[i, j]):
                ax.text(
                    j,
                    i,
                    value(grid[i, j], decimals=0),  # a whole percent: the cell is small
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if grid[i, j] > 0.6 * np.nanmax(grid) else "black",
                )
    fig.colorbar(im, ax=ax, label="% of comparisons ordered differently")
    ax.set_title("Inconsistency between measures (Gösgens et al. 2021, §5)", fontsize=9)
    return fig
