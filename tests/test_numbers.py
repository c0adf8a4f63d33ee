"""One formatter for every number a person reads (fastmetrics._numbers), and nothing else formats."""

import doctest
import math
import re
from pathlib import Path

import pyarrow as pa
import pytest

from fastmetrics import _numbers as numbers
from fastmetrics._html import table_html
from fastmetrics.report.tables import format_table, to_html, to_latex, to_markdown

PACKAGE = Path(__file__).resolve().parents[1] / "fastmetrics"
NAN = float("nan")


def test_the_examples_in_the_docstrings():
    failed, tried = doctest.testmod(numbers)
    assert tried >= 5 and failed == 0


@pytest.mark.parametrize(
    "x, text",
    [
        (0.91916, "0.9192"),
        (1.0, "1.0000"),
        (-0.25, "-0.2500"),
        (-0.0, "0.0000"),
        (-1e-17, "0.0000"),  # rounds to zero: no sign
        (-0.00004, "0.0000"),
        (-0.00005001, "-0.0001"),
        (NAN, "NaN"),
        (math.inf, "inf"),
        (-math.inf, "-inf"),
    ],
)
def test_values_have_four_decimals_and_undefined_is_nan(x, text):
    assert numbers.value(x) == text


@pytest.mark.parametrize(
    "x, text", [(3, "3"), (3.0, "3"), (2.5, "2.5"), (1234.5678, "1235"), (4.0e18, "4000000000000000000"), (NAN, "NaN")]
)
def test_counts_are_integers(x, text):
    assert numbers.count(x) == text


@pytest.mark.parametrize("x", [0.5, 2.0, 1e-6, 0.1 + 0.2, 1 / 3, 123456789.0, math.inf, -1.0])
def test_parameters_read_back_as_the_same_float(x):
    text = numbers.parameter(x)
    assert float(text) == x
    assert len(text) <= len(repr(x))


def test_intervals_and_cells():
    assert numbers.interval(0.91916, 0.91, 0.93) == "0.9192 [0.9100, 0.9300]"
    assert numbers.interval(3, 1, 5, numbers.count) == "3 [1, 5]"
    assert numbers.bounds(NAN, 0.5) == "[NaN, 0.5000]"
    assert [numbers.cell(x) for x in (None, NAN, 0.5, 7, "a", True)] == ["", "NaN", "0.5000", "7", "a", "True"]
    assert numbers.short(1 / 3) == "0.333333" and numbers.short(-0.0) == "0" and numbers.short(NAN) == "NaN"


def test_every_table_format_writes_numbers_the_same_way():
    """Plain text, Markdown, LaTeX, HTML and the notebook view: 4 decimals, NaN, a null empty."""
    table = pa.table({"name": ["a", "b"], "value": [0.91916, NAN], "n": [3, None], "rank": [None, 2.0]})
    texts = {
        "text": format_table(table),
        "markdown": to_markdown(table),
        "latex": to_latex(table),
        "html": to_html(table),
        "notebook": table_html(table, "t"),
    }
    for kind, text in texts.items():
        assert "0.9192" in text and "NaN" in text and "2.0000" in text, kind
        assert "–" not in text and "nan" not in text.replace("NaN", ""), kind
    assert "| b | NaN |  | 2.0000 |" in texts["markdown"]


def test_a_notebook_interval_is_written_as_the_reports_are():
    table = pa.table({"measure": ["f1"], "value": [0.91916], "ci_low": [0.91], "ci_high": [0.93]})
    assert "<td>0.9192 [0.9100, 0.9300]</td>" in table_html(table, "t")
    assert numbers.interval(0.91916, 0.91, 0.93) == "0.9192 [0.9100, 0.9300]"


# modules that format other things than the numbers of results: byte sizes and durations (a unit
# of their own), and the demo generator, whose run files hold scores as data
OTHER_NUMBERS = {"_memory.py", "_progress.py", "demo.py"}
FORMAT = re.compile(r":[^{}:]*\.[0-9]+[efg%]\}|:g\}|\"%[-+ 0-9.]*[efg]\"")


def _formatting(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if FORMAT.search(line)]


def test_numbers_are_formatted_in_one_module():
    """No format spec of its own outside fastmetrics/_numbers.py (the exemptions above, each with
    its reason): a second formatter would be a second rule."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name == "_numbers.py" or name in OTHER_NUMBERS:
            continue
        found += [f"{name}: {line}" for line in _formatting(path.read_text())]
    assert not found, "\n".join(found)


def test_the_scan_finds_a_formatter():
    assert _formatting('x = f"{v:.3f}"\ny = f"{v:g}"\nz = "%.2f" % v\nw = f"{v}"') == [
        'x = f"{v:.3f}"',
        'y = f"{v:g}"',
        'z = "%.2f" % v',
    ]
