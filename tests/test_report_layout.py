"""The report's figures lay out: whole names on lines of bounded width, and no text drawn over
other text or over the curves (titles, axis labels, legends), measured on the drawn figures."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

pytest.importorskip("matplotlib")

from fastmetrics.report import figures  # noqa: E402

NAMES = [
    "MTE-NN/subtask_A_contrastive1",
    "_baseline/subtask_A_baseline_random",
    "a-system-name-with-hyphens-that-goes-on-and-on",
    "x" * 95,
    "short",
    "team $alpha$ / run 1",
]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("width", [10, 24, 36])
def test_a_label_is_the_whole_name_on_lines_of_bounded_width(name, width):
    text = figures.label(name, width)
    lines = text.split("\n")
    assert all(len(line.replace("\\$", "$")) <= width for line in lines), lines
    # nothing dropped: the lines put together give the name back (blanks at a break trimmed)
    joined = "".join(lines).replace("\\$", "$")
    assert joined.replace(" ", "") == name.replace(" ", "")
    if len(name) <= width:
        assert text.replace("\\$", "$") == name


def _boxes(fig, *artists):
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    return [a.get_window_extent(renderer) for a in artists]


def _apart(a, b) -> bool:
    return not a.overlaps(b)


def test_the_strictness_figure_keeps_title_labels_and_legend_apart():
    measures = ["f1", "mcc", "k", "accuracy", "precision", "fbeta(beta=0.5)@macro"]
    levels = np.linspace(0.5, 0.99, 20)
    rows = [(m, float(t), float(t**i)) for i, m in enumerate(measures, 1) for t in levels]
    summary = pa.table({k: list(v) for k, v in zip(("measure", "level", "value"), zip(*rows))})
    fig = figures.strictness_curves(summary)
    ax = fig.axes[0]
    title, ylabel, xlabel, legend = _boxes(fig, ax.title, ax.yaxis.label, ax.xaxis.label, ax.get_legend())
    plot = ax.get_window_extent()
    assert _apart(title, ylabel) and _apart(title, legend) and _apart(xlabel, ylabel)
    assert _apart(legend, plot)  # beside the curves, not over them
    fig_box = fig.bbox
    assert all(b.x0 >= fig_box.x0 - 1 and b.x1 <= fig_box.x1 + 1 for b in (title, ylabel, xlabel, legend))
    figures.pyplot().close(fig)


@pytest.mark.parametrize("draw", ["roc_curves", "pr_curves"])
def test_curve_legends_name_systems_whole_beside_the_axes(draw):
    rng = np.random.default_rng(0)
    curves = []
    for name in NAMES:
        x = np.sort(rng.random(30))
        curves.append((name, x, np.sort(rng.random(30)) if draw == "roc_curves" else 1 - x / 2, 0.5))
    fig = getattr(figures, draw)(curves)
    ax = fig.axes[0]
    legend = ax.get_legend()
    shown = [t.get_text().replace("\n", "").replace("\\$", "$") for t in legend.get_texts()]
    for name, text in zip(NAMES, shown):
        assert text.replace(" ", "").startswith(name.replace(" ", ""))
    (box,) = _boxes(fig, legend)
    assert _apart(box, ax.get_window_extent())
    figures.pyplot().close(fig)
