"""Reports: sweep, LaTeX/Markdown/HTML escaping, the self-contained HTML report and its check in a
real (headless Chromium) browser."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm
from fastmetrics.board import one_sided
from fastmetrics.cli import main
from fastmetrics.report.tables import escape_latex, to_latex, to_markdown
from tests.meta._data import semeval_paths

EVIL = "<script>alert(1)</script>"


def test_sweep_on_the_demo_prints_the_best_threshold_per_system_and_measure(tmp_path, capsys):
    from sklearn.metrics import f1_score

    from fastmetrics import demo

    path = demo.write(tmp_path / "demo")
    out = tmp_path / "best.csv"
    argv = ["sweep", str(path), "--measures", "f1,k", "--thresholds", "21", "--grid", "global"]
    assert main(argv + ["--out", str(out)]) == 0
    assert main(["sweep", str(path), "--measures", "f1,k", "--thresholds", "21"]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("Sweep over 21 thresholds on each system's own range (--grid system, chosen by auto).\n")
    assert "value_pooled: each measure on the counts pooled over topics (micro; --by system,topic" in printed
    best = pacsv.read_csv(out).to_pylist()
    assert {r["measure"] for r in best} == {"f1", "k"} and len(best) == 2 * demo.N_SYSTEMS
    assert all(r["system"] in printed for r in best)
    raw = pq.read_table(path).to_pandas()
    grid = np.linspace(raw.score.min(), raw.score.max(), 21)
    row = next(r for r in best if r["measure"] == "f1")
    rows = raw[raw.system == row["system"]]
    values = [f1_score(rows.gold, rows.score >= t) for t in grid]
    assert row["value_pooled"] == pytest.approx(max(values))  # topics pooled: the default --by
    assert row["threshold"] == pytest.approx(grid[int(np.argmax(values))])
    # each system's own grid (--grid system, the default when ranges differ): 21 points over its own scores
    own = tmp_path / "own.csv"
    assert (
        main(["sweep", str(path), "--measures", "f1", "--thresholds", "21", "--grid", "system", "--out", str(own)]) == 0
    )
    row = next(r for r in pacsv.read_csv(own).to_pylist() if r["system"] == row["system"])
    grid = np.linspace(rows.score.min(), rows.score.max(), 21)
    values = [f1_score(rows.gold, rows.score >= t) for t in grid]
    assert row["value_pooled"] == pytest.approx(max(values))
    assert row["threshold"] == pytest.approx(grid[int(np.argmax(values))])


def test_escaping_in_latex_and_markdown():
    table = pa.table({"system": [EVIL, "a_b & c|d $x$ 100%"], "f1": [0.5, 0.25]})
    tex = to_latex(table)
    assert r"\textless{}script\textgreater{}" in tex and r"a\_b \& c|d \$x\$ 100\%" in tex
    assert escape_latex("{}~^\\") == r"\{\}\textasciitilde{}\textasciicircum{}\textbackslash{}"
    md = to_markdown(table)
    # every "<" escaped the Markdown way, no HTML entities (shown as they are in a terminal)
    assert "\\<script>" in md and md.count("<") == md.count("\\<") and "&lt;" not in md and "c\\|d" in md


def test_tables_export_to_latex_from_the_cli(tmp_path):
    runs, gold = semeval_paths()
    out = tmp_path / "board.tex"
    assert main(["leaderboard", *runs, "--gold", gold, "--measures", "f1,mcc", "--out", str(out)]) == 0
    tex = out.read_text()
    assert (
        tex.startswith("\\begin{table}") and "\\toprule" in tex and "\\_baseline/subtask\\_A\\_baseline\\_true" in tex
    )


@pytest.fixture(scope="module")
def semeval_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    runs, gold = semeval_paths()
    out = folder / "semeval.html"
    assert (
        main(
            [
                "report",
                *runs,
                "--gold",
                gold,
                "--measures",
                "f1,accuracy,mcc,k,precision,recall",
                "--out",
                str(out),
                "--figures",
                str(folder / "figs"),
                "--resamples",
                "500",
                "--title",
                "SemEval-2016 Task 3 subtask A",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_semeval_report_is_self_contained(semeval_report):
    page = semeval_report.read_text(encoding="utf-8")
    images = re.findall(r"<img src='([^']*)'", page)
    assert len(images) >= 4 and all(src.startswith("data:image/png;base64,") for src in images)
    assert not re.search(r"(src|href)=['\"]?(https?:|//|file:)", page)
    assert "Content-Security-Policy" in page
    for section in ("Leaderboard", "Best thresholds", "Figures", "The measures", "How to read this report"):
        assert section in page
    figs = sorted(p.name for p in (semeval_report.parent / "figs").iterdir())
    assert any(n.endswith(".png") for n in figs) and any(n.endswith(".svg") for n in figs)
    # intervals in the table, rank intervals as a figure, ROC and PR curves with their areas
    assert re.search(r"0\.\d{4} <small>\[0\.\d{4}, 0\.\d{4}\]</small>", page)
    assert re.search(r"<td>1 <small>\[1, \d+\]</small></td>", page)
    for name in ("rank_intervals", "roc_curves", "pr_curves", "critical_difference"):
        assert f"{name}.png" in figs and f"{name}.svg" in figs
    # the critical-difference diagram of the first measure names all 32 runs
    assert "Critical-difference diagram" in page and "Nemenyi" in page
    svg = (semeval_report.parent / "figs" / "critical_difference.svg").read_text()
    assert all(name in svg for name in ("ConvKN/subtask_A_primary", "_baseline/subtask_A_baseline_random"))


def test_report_figures_name_every_system_in_full(semeval_report):
    """No name is cut: the rank-interval figure names all 32 runs whole and the curves' legends
    tell the two MTE-NN contrastive runs apart (they used to read ``MTE-NN/subtask_A_contrastiv…``
    twice); the leaderboard's intervals stay on one line."""
    runs = [f"{Path(r).parent.name}/{Path(r).stem}" for r in semeval_paths()[0]]
    figs = semeval_report.parent / "figs"
    svgs = {p.stem: p.read_text(encoding="utf-8") for p in figs.glob("*.svg")}
    assert not [name for name, svg in svgs.items() if "…" in svg]
    assert all(run in svgs["rank_intervals"] for run in runs), [r for r in runs if r not in svgs["rank_intervals"]]
    for figure in ("roc_curves", "pr_curves"):
        assert "MTE-NN/subtask_A_contrastive1 (" in svgs[figure] and "MTE-NN/subtask_A_contrastive2 (" in svgs[figure]
    page = semeval_report.read_text(encoding="utf-8")
    assert "…" not in page
    assert re.search(r"th,td\{[^}]*white-space:nowrap", page)


def test_markdown_report_with_figure_files(tmp_path):
    runs, gold = semeval_paths()
    out = tmp_path / "report.md"
    assert main(["report", *runs[:6], "--gold", gold, "--measures", "f1,k", "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert refs and all((tmp_path / r).exists() for r in refs)


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    need = "headless Chromium (Debian: apt-get install chromium; .ci/run installs it)"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI is set, so the browser test is required: it needs {need}")
    pytest.skip(f"no browser on this machine: the browser test needs {need}; with CI=true it fails instead")


def _browse(page, screenshot):
    """Load a page in headless Chromium: the DOM after scripts ran, its console output, a screenshot."""
    browser = _chromium()
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--enable-logging=stderr",
        "--v=0",
        "--virtual-time-budget=5000",
        "--window-size=1200,3000",
    ]
    dom = subprocess.run([browser, *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120)
    shot = subprocess.run(
        [browser, *flags, f"--screenshot={screenshot}", page.as_uri()], capture_output=True, text=True, timeout=120
    )
    console = [line for line in (dom.stderr + shot.stderr).splitlines() if "CONSOLE" in line]
    return dom.stdout, console


def _not_blank(png_path):
    import matplotlib.image as mpimg

    pixels = mpimg.imread(png_path)
    return pixels.std() > 0.02


@pytest.mark.browser
def test_report_in_a_real_browser(semeval_report):
    screenshot = semeval_report.parent / "screenshot.png"
    dom, console = _browse(semeval_report, screenshot)
    loaded = re.search(r'data-figures-loaded="(\d+)/(\d+)"', dom)
    assert loaded, "the report's load script did not run"
    assert int(loaded.group(1)) == int(loaded.group(2)) >= 4
    errors = [c for c in console if "error" in c.lower() or "refused" in c.lower() or "uncaught" in c.lower()]
    assert not errors, errors
    assert screenshot.exists() and _not_blank(screenshot)


@pytest.mark.browser
def test_a_hostile_run_name_is_shown_as_text(tmp_path):
    rng = np.random.default_rng(0)
    n = 120
    table = pa.table(
        {
            "system": [EVIL if i % 2 else "plain" for i in range(n)],
            "topic": [f"t{i % 3}" for i in range(n)],
            "item": [i // 2 for i in range(n)],
            "gold": (rng.random(n) < 0.4)[np.arange(n) // 2 * 2],
            "pred": rng.random(n) < 0.5,
            "score": rng.random(n),
        }
    )
    path = tmp_path / "evil.parquet"
    pq.write_table(table, path)
    page = tmp_path / "evil.html"
    assert main(["report", str(path), "--measures", "f1,k", "--out", str(page), "--quiet", "--resamples", "200"]) == 0
    dom, console = _browse(page, tmp_path / "evil.png")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom  # shown as text
    assert "<script>alert(1)" not in dom  # never became an element
    assert not [c for c in console if "alert" in c.lower() or "refused" in c.lower() or "error" in c.lower()]


def test_chosen_scatter_pairs(tmp_path):
    runs, gold = semeval_paths()
    out = tmp_path / "r.html"
    assert (
        main(
            [
                "report",
                *runs[:5],
                "--gold",
                gold,
                "--measures",
                "f1,mcc,k",
                "--scatter",
                "mcc:k",
                "--out",
                str(out),
                "--quiet",
                "--resamples",
                "200",
            ]
        )
        == 0
    )
    page = out.read_text()
    assert "mcc against k" in page and "f1 against mcc" not in page
    assert (
        main(
            [
                "report",
                *runs[:5],
                "--gold",
                gold,
                "--measures",
                "f1,mcc",
                "--scatter",
                "f1:lam",
                "--out",
                str(tmp_path / "x.html"),
            ]
        )
        == 2
    )


def test_probability_scores_get_reliability_diagrams(tmp_path):
    rng = np.random.default_rng(0)
    n = 400
    score = rng.random(2 * n)
    runs = pa.table(
        {
            "system": np.repeat(["sharp", "flat"], n),
            "topic": np.tile(np.arange(n) % 4, 2),
            "item": np.tile(np.arange(n), 2),
            "gold": np.tile(rng.random(n) < 0.4, 2),
            "score": score,
            "pred": score >= 0.5,
        }
    )
    path = tmp_path / "runs.parquet"
    pq.write_table(runs, path)
    out = tmp_path / "report.html"
    folder = tmp_path / "figs"
    assert (
        main(["report", str(path), "--measures", "f1,k", "--out", str(out), "--figures", str(folder), "--quiet"]) == 0
    )
    assert "reliability.png" in {p.name for p in folder.iterdir()}
    assert "Reliability diagrams" in out.read_text(encoding="utf-8")


def _sklearn_macro_f1(runs, gold):
    """Each run's F1 per question by scikit-learn, averaged over the questions that define it.

    One call a run: the questions are the labels of a multilabel indicator matrix (a column
    each, its comments the rows; padding rows are true negatives, which F1 does not read), so
    ``average=None`` gives every question's F1 at once."""
    from sklearn.metrics import f1_score

    truth = {(r["topic"], r["item"]): r["gold"] for r in fm.read_gold(gold).to_pylist()}
    out = {}
    for path in runs:
        rows = fm.read_runs([path]).select(["system", "topic", "item", "pred"]).to_pylist()
        topics = {}
        for r in rows:
            topics.setdefault(r["topic"], ([], []))
            topics[r["topic"]][0].append(truth[(r["topic"], r["item"])])
            topics[r["topic"]][1].append(r["pred"])
        depth = max(len(y) for y, _ in topics.values())
        y_true = np.zeros((depth, len(topics)), np.int8)
        y_pred = np.zeros((depth, len(topics)), np.int8)
        for column, (y, p) in enumerate(topics.values()):
            y_true[: len(y), column], y_pred[: len(p), column] = y, p
        values = f1_score(y_true, y_pred, average=None, zero_division=np.nan)
        out[rows[0]["system"]] = np.nanmean(values)
    return out


def test_report_defaults_rank_by_f1_and_leave_one_sided_optima_out(tmp_path):
    """Issue 29, item 11: without --measures the SemEval-2016 A report ranks by F1 (both kinds of
    error; scikit-learn's per-question F1 picks the same leader) and its best thresholds leave out
    precision and recall, whose optima are the ends of each system's range."""
    runs, gold = semeval_paths()
    out = tmp_path / "report.html"
    assert main(["report", *runs, "--gold", gold, "--out", str(out), "--resamples", "100", "--quiet"]) == 0
    page = out.read_text(encoding="utf-8")
    board = page[page.index("<h2>Leaderboard") :]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", board[: board.index("</tr>")])
    measures = [h for h in headers if h not in ("rank", "system")]
    assert measures[0] == "f1" and {"precision", "recall"} <= set(measures)
    leader = re.search(r"<td class='name'>([^<]*)</td>", board).group(1)
    expected = _sklearn_macro_f1(runs, gold)
    assert leader == max(expected, key=expected.get)
    best = page[page.index("<h2>Best thresholds") :]
    best = best[: best.index("</table>")]
    listed = set(re.findall(r"<td class='name'>([^<]*)</td><td>", best))
    assert listed == {"f1", "mcc"}  # the curves' two measures, neither one-sided


def test_one_sided_measures_are_the_rates_of_one_row_or_column():
    rates = {"precision", "recall", "specificity", "fallout", "fnr", "npv", "fdr", "elusion"}
    rates |= {"predicted_positive_rate", "prevalence", "tpr", "fpr"}
    for name in rates:
        assert one_sided(name), name
    for name in ("f1", "mcc", "k", "accuracy", "error_rate", "balanced_accuracy", "fbeta(beta=2)", "informedness"):
        assert not one_sided(name), name
