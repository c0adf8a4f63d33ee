"""Notebook views (``_repr_html_``) of Scores, meta-evaluation results and leaderboards: the
first rows of the same table the code reads, numbers rounded, intervals beside their values."""

from html.parser import HTMLParser

import numpy as np
import pyarrow as pa
import pytest

import fastmetrics as fm
from fastmetrics._html import table_html
from fastmetrics._numbers import value


class _Cells(HTMLParser):
    """The header and the rows' cell texts of the one table in a page."""

    def __init__(self):
        super().__init__()
        self.head, self.rows, self._cell, self._in = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag in ("th", "td"):
            self._cell, self._in = [], tag
        elif tag == "tr" and self.head:
            self.rows.append([])

    def handle_endtag(self, tag):
        if tag in ("th", "td"):
            text = "".join(self._cell).strip()
            (self.head if tag == "th" else self.rows[-1]).append(text)
            self._in = None

    def handle_data(self, data):
        if self._in:
            self._cell.append(data)


def _parse(page: str) -> _Cells:
    cells = _Cells()
    cells.feed(page)
    return cells


@pytest.fixture(scope="module")
def tensor():
    rng = np.random.default_rng(1)
    s, t, i = (x.reshape(-1) for x in np.indices((4, 6, 40)))
    gold = rng.random(s.size) < 0.4
    pred = np.where(rng.random(s.size) < 0.75, gold, ~gold)
    return fm.count(pa.table({"system": [f"s{x}" for x in s], "topic": t, "item": i, "gold": gold, "pred": pred}))


def test_scores_show_one_column_per_measure_and_intervals_beside(tensor):
    scores = tensor.evaluate(["f1", "accuracy"], ci=0.95).sel(system="s1")
    page = scores._repr_html_()
    cells = _parse(page)
    assert cells.head == ["topic", "f1", "accuracy"]
    assert len(cells.rows) == 6
    wide = scores.to_arrow(wide=True)
    for row, expected in zip(cells.rows, wide.to_pylist()):
        value, interval = row[1].split(" [")
        assert float(value) == pytest.approx(expected["f1"], rel=1e-3)
        low, high = (float(x) for x in interval.rstrip("]").split(", "))
        assert low == pytest.approx(expected["f1 ci_low"], rel=1e-3)
        assert high == pytest.approx(expected["f1 ci_high"], rel=1e-3)


def test_scores_over_systems_and_topics_show_each_systems_means(tensor):
    scores = tensor.evaluate(["f1", "accuracy"])
    cells = _parse(scores._repr_html_())
    assert cells.head == ["system", "f1", "accuracy"]
    means = np.nanmean(scores.values, axis=2)
    assert cells.rows == [
        [str(s), value(means[0, i]), value(means[1, i])] for i, s in enumerate(scores.coords["system"])
    ]
    assert "means over topic" in repr(scores)


def test_a_long_view_shows_its_first_and_last_rows_and_its_size():
    table = pa.table({"system": [f"s{i:02d}" for i in range(30)], "value": np.linspace(0, 1, 30)})
    page = table_html(table, "t")
    cells = _parse(page)
    assert len(cells.rows) == 21 and cells.rows[10] == ["...", "..."]
    assert cells.rows[0] == ["s00", "0.0000"] and cells.rows[-1] == ["s29", "1.0000"]
    assert "[30 rows x 2 columns]" in page


def test_a_leaderboard_shows_its_summary_with_rank_and_mean_intervals(tensor):
    board = fm.board.leaderboard(tensor, measures=["f1"], ci=0.95, resamples=200)
    page = board._repr_html_()
    cells = _parse(page)
    assert "macro_low" not in cells.head and "rank_high" not in cells.head
    summary = board.summary.to_pylist()
    systems = [r for r in summary if r["kind"] == "system"]
    row = next(r for r in cells.rows if r[cells.head.index("system")] == systems[0]["system"])
    rank = row[cells.head.index("rank")]
    assert rank.startswith(f"{systems[0]['rank']} [{systems[0]['rank_low']}, {systems[0]['rank_high']}]")


def test_meta_results_name_their_detail(tensor):
    result = fm.meta.robustness(tensor.evaluate(["f1", "accuracy"]), pairs="all")
    page = result._repr_html_()
    assert f"detail: {result.detail.num_rows:,} rows" in page
    assert _parse(page).head == result.summary.column_names


def test_undefined_values_and_markup_in_labels():
    table = pa.table({"system": ["<b>a&b</b>"], "value": [float("nan")], "ci_low": [None], "ci_high": [None]})
    cells = _parse(table_html(table, "t"))
    assert cells.rows == [["<b>a&b</b>", "NaN"]]  # the label as text, not markup; NaN as everywhere
