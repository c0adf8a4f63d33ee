"""Readers for the formats shared tasks publish: whitespace-separated SemEval run files, TREC runs
and qrels, folders with READMEs and scorer outputs beside the runs, and errors naming file + line."""

from __future__ import annotations

import glob
import gzip
import io
import re

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

import fastmetrics as fm
from fastmetrics._errors import InputError
from fastmetrics.io import list_inputs, read_qrels, read_run_file, read_trec_run
from fastmetrics.io.paths import detect_format, expand_paths
from tests.conftest import shared_dir

ROWS = [
    ("Q1", "Q1_R1", "1", "0.5", "true"),
    ("Q1", "Q1_R2", "2", "-1.25", "false"),
    ("Q2", "Q2_R1", "1", "3e-2", "True"),
    ("Q2", "Q2_R7", "2", "7", "0"),
]


def _expected(rows, label="pred"):
    return {
        "topic": [r[0] for r in rows],
        "item": [r[1] for r in rows],
        "rank": [float(r[2]) for r in rows],
        "score": [float(r[3]) for r in rows],
        label: [r[4] in ("true", "True", "1") for r in rows],
    }


def _write(path, data: bytes):
    path.write_bytes(data)
    return str(path)


# -- whitespace-separated run files ---------------------------------------------------------------
def test_mixed_separators_trailing_blanks_and_leading_blanks(tmp_path):
    text = (
        "Q1\tQ1_R1\t1\t0.5\ttrue\n"  # first line: tabs (as the SemEval files)
        "Q1   Q1_R2 2\t\t-1.25 false   \n"  # runs of spaces and tabs, trailing blanks
        "  Q2 \t Q2_R1  1   3e-2   True\t\n"  # leading blanks, blank runs mixing both
        "Q2 Q2_R7 2 7 0"
    )  # no final line end
    table = read_run_file(_write(tmp_path / "run.txt", text.encode()))
    assert table.to_pydict() == _expected(ROWS)
    assert table.schema.field("rank").type == pa.float64()


def test_spaces_only_file(tmp_path):
    text = "".join(" ".join(r) + "\n" for r in ROWS)
    assert read_run_file(_write(tmp_path / "run.txt", text.encode())).to_pydict() == _expected(ROWS)


@pytest.mark.parametrize("rank, value", [("1", 1.0), ("1.0", 1.0), ("0.00E+00", 0.0), ("3.00E+00", 3.0), ("-2", -2.0)])
def test_rank_written_as_any_number(tmp_path, rank, value):
    path = _write(tmp_path / "run.txt", f"Q1\tQ1_R1\t{rank}\t3.77E+00\ttrue\n".encode())
    table = read_run_file(path)
    assert table.column("rank").to_pylist() == [value]
    assert table.column("score").to_pylist() == [3.77]


def test_comments_and_blank_lines_anywhere(tmp_path):
    text = (
        "\n"  # a blank first line (was: "the run file is empty")
        "# team X, run 1\n"
        "   \t \n"
        "Q1\tQ1_R1\t1\t0.5\ttrue\n"
        "# a comment between data lines\n"
        "\n"
        "   # an indented comment\n"
        "Q1 Q1_R2 2 -1.25 false\n"
        "Q2 Q2_R1 1 3e-2 True\n"
        "\n\n"
        "Q2 Q2_R7 2 7 0\n"
        "# trailing comment\n\n"
    )
    assert read_run_file(_write(tmp_path / "run.txt", text.encode())).to_pydict() == _expected(ROWS)


def test_hash_inside_a_line_is_data(tmp_path):
    path = _write(tmp_path / "run.txt", b"Q1 #item 1 0.5 true\n#Q2 Q2_R1 1 0.5 false\n")
    assert read_run_file(path).column("item").to_pylist() == ["#item"]


def test_bom_and_crlf(tmp_path):
    text = "\ufeff" + "".join("\t".join(r) + "\r\n" for r in ROWS)
    path = _write(tmp_path / "run.txt", text.encode("utf-8"))
    assert read_run_file(path).to_pydict() == _expected(ROWS)
    # BOM before a comment, CRLF with trailing blanks and blank CRLF lines
    text = "\ufeff# header\r\n\r\n" + "".join(" ".join(r) + " \t\r\n\r\n" for r in ROWS)
    path = _write(tmp_path / "run2.txt", text.encode("utf-8"))
    assert read_run_file(path).to_pydict() == _expected(ROWS)


def test_same_fields_as_line_split(tmp_path):
    """Random layouts read as the official scorer reads them: ``line.strip().split()``."""
    rng = np.random.default_rng(3)
    blanks = [" ", "\t", "  ", " \t ", "\t\t", "\x0b", " \x0c"]
    for trial in range(20):
        lines, rows = [], []
        for i in range(int(rng.integers(1, 40))):
            if rng.random() < 0.15:
                lines.append(str(rng.choice(["", "  ", "# note", " \t# x y z"])))
            row = (
                f"q{rng.integers(5)}",
                f"d{i}",
                str(rng.choice(["1", "2.0", "0.00E+00"])),
                repr(float(rng.normal())),
                str(rng.choice(["true", "false"])),
            )
            rows.append(row)
            seps = rng.choice(blanks, size=4)
            line = row[0] + "".join(str(s) + f for s, f in zip(seps, row[1:]))
            lead, trail = (str(x) for x in rng.choice(["", " ", "\t "], size=2))
            lines.append(lead + line + trail)
        newline = "\r\n" if trial % 2 else "\n"
        data = newline.join(lines) + (newline if trial % 3 else "")
        path = _write(tmp_path / f"r{trial}.txt", data.encode())
        # the scorer's ``for line in open(path)``: lines end at \n, \r\n or \r only (not at VT/FF)
        oracle = [
            ln.split() for ln in io.StringIO(data, newline=None) if ln.split() and not ln.split()[0].startswith("#")
        ]
        assert [tuple(f) for f in oracle] == rows
        assert read_run_file(path).to_pydict() == _expected(rows)


# -- TREC runs and qrels ------------------------------------------------------------------------
@pytest.fixture()
def trec(tmp_path):
    """Three TREC runs (one per tag) over 4 topics x 30 judged documents, graded qrels 0..3."""
    rng = np.random.default_rng(11)
    systems, topics, docs = ["bm25", "dense", "rerank"], ["401", "402", "403", "404"], 30
    rel = rng.integers(0, 4, size=(len(topics), docs))
    score = rng.normal(size=(len(systems), len(topics), docs)).round(3)
    qrels = []
    for t, topic in enumerate(topics):
        for d in rng.permutation(docs):
            qrels.append(f"{topic} 0 DOC-{topic}-{d:03d} {rel[t, d]}\n")
    (tmp_path / "qrels.txt").write_text("".join(qrels))
    folder = tmp_path / "runs"
    folder.mkdir()
    for s, system in enumerate(systems):
        lines = []
        for t, topic in enumerate(topics):
            order = np.argsort(-score[s, t], kind="stable")
            for rank, d in enumerate(order, 1):
                lines.append(f"{topic} Q0 DOC-{topic}-{d:03d} {rank} {score[s, t, d]} {system}\n")
        (folder / f"input.{system}").write_text("".join(lines))
    return {
        "systems": systems,
        "topics": topics,
        "rel": rel,
        "score": score,
        "qrels": str(tmp_path / "qrels.txt"),
        "runs": str(folder),
        "tmp": tmp_path,
    }


def test_trec_run_and_qrels_detected_by_content(trec):
    run = f"{trec['runs']}/input.bm25"
    assert detect_format(run) == "trec"
    assert detect_format(trec["qrels"]) == "qrels"
    table = fm.read_runs(run)
    assert table.column_names == ["topic", "item", "rank", "score", "system"]
    assert set(table.column("system").to_pylist()) == {"bm25"}
    assert table.num_rows == 4 * 30
    assert table.equals(read_trec_run(run))
    assert fm.read_runs(run, format="trec").equals(table)
    gold = fm.read_gold(trec["qrels"])
    assert gold.column_names == ["topic", "item", "gold"]
    assert gold.schema.field("gold").type == pa.bool_()
    assert gold.equals(fm.read_gold(trec["qrels"], format="qrels"))
    assert gold.equals(fm.read_gold(trec["qrels"], format="trec"))  # "trec" as gold means qrels
    assert gold.equals(read_qrels(trec["qrels"]))


def _numpy_counts(trec, thresholds, level):
    gold = trec["rel"] >= level  # [topic, doc]
    pred = trec["score"][..., None] >= np.asarray(thresholds)  # [system, topic, doc, threshold]
    g = gold[None, :, :, None]
    return {"tp": (g & pred).sum(2), "fp": (~g & pred).sum(2), "fn": (g & ~pred).sum(2), "tn": (~g & ~pred).sum(2)}


@pytest.mark.parametrize("level", [1, 2])
def test_trec_round_trip_into_count_with_a_grid(trec, level):
    thresholds = np.array([-1.0, -0.25, 0.0, 0.4, 1.5])
    gold = trec["qrels"] if level == 1 else fm.read_gold(trec["qrels"], relevance_level=level)
    tensor = fm.count(trec["runs"], gold=gold, thresholds=thresholds)
    assert list(tensor.coords["system"]) == trec["systems"]
    assert list(tensor.coords["topic"]) == trec["topics"]
    expected = _numpy_counts(trec, thresholds, level)
    for name in ("tp", "fp", "fn", "tn"):
        np.testing.assert_array_equal(getattr(tensor, name), expected[name])
    # the same through the explicit format and the glob form
    again = fm.count(f"{trec['runs']}/input.*", gold=gold, thresholds=thresholds, format="trec")
    np.testing.assert_array_equal(again.counts, tensor.counts)


@pytest.mark.parametrize(
    "level, positives",
    [
        (1, {"d1", "d2", "d3"}),
        (2, {"d2", "d3"}),
        (3, {"d3"}),
        (0.5, {"d1", "d2", "d3"}),
        (0, {"d0", "d1", "d2", "d3"}),
        (-2, {"d0", "d1", "d2", "d3", "dneg"}),
    ],
)
def test_graded_qrels_levels(tmp_path, level, positives):
    path = _write(tmp_path / "qrels", b"1 0 d0 0\n1 0 d1 1\n1\t0\td2\t2\n1 0 d3 3\n1 0 dneg -2\n")
    gold = fm.read_gold(path, relevance_level=level)
    assert {i for i, g in zip(gold.column("item").to_pylist(), gold.column("gold").to_pylist()) if g} == positives


def test_graded_qrels_change_the_counts(trec):
    one = fm.count(trec["runs"], gold=fm.read_gold(trec["qrels"], relevance_level=1), thresholds=[0.0])
    two = fm.count(trec["runs"], gold=fm.read_gold(trec["qrels"], relevance_level=2), thresholds=[0.0])
    assert one.tp.sum() + one.fn.sum() == (trec["rel"] >= 1).sum() * 3
    assert two.tp.sum() + two.fn.sum() == (trec["rel"] >= 2).sum() * 3
    assert (one.tp + one.fn).sum() > (two.tp + two.fn).sum()


def _truncated_runs(tmp_path, depth=12):
    """Runs as TREC publishes them: each returns its top `depth` documents, some of them unjudged."""
    rng = np.random.default_rng(5)
    topics, judged = ["7", "8"], 10
    rel = {(t, f"J{d}"): bool(rng.integers(0, 2)) for t in topics for d in range(judged)}
    pool = {t: [f"J{d}" for d in range(judged)] + [f"U{d}" for d in range(6)] for t in topics}
    runs = {}
    folder = tmp_path / "runs"
    folder.mkdir()
    for system in ("a", "b", "c"):
        lines = []
        for t in topics:
            docs = rng.permutation(pool[t])[:depth]
            scores = np.sort(rng.normal(size=depth))[::-1].round(3)
            runs[system, t] = dict(zip(docs, scores))
            lines += [f"{t} Q0 {d} {r} {s} {system}\n" for r, (d, s) in enumerate(zip(docs, scores), 1)]
        (folder / f"run.{system}").write_text("".join(lines))
    (tmp_path / "qrels").write_text("".join(f"{t} 0 {d} {int(g)}\n" for (t, d), g in rel.items()))
    return str(folder), str(tmp_path / "qrels"), rel, runs


def test_unjudged_run_documents_count_as_non_relevant(tmp_path):
    folder, qrels, rel, runs = _truncated_runs(tmp_path)
    thresholds = np.array([-0.5, 0.0, 0.7])
    with pytest.raises(InputError, match=r"which the gold does not have"):
        fm.count(folder, gold=qrels, thresholds=thresholds, missing="negative")
    tensor = fm.count(folder, gold=qrels, thresholds=thresholds, missing="negative", unjudged="negative")
    for s, system in enumerate(tensor.coords["system"]):
        for t, topic in enumerate(tensor.coords["topic"]):
            # trec_eval's reading: the topic's items are the judged ones and every one any run returned
            items = {d for (tt, d) in rel if tt == topic} | {
                d for (ss, tt), r in runs.items() if tt == topic for d in r
            }
            gold = np.array([rel.get((topic, d), False) for d in sorted(items)])
            score = np.array([runs[system, topic].get(d, -np.inf) for d in sorted(items)])
            pred = score[:, None] >= thresholds
            expected = np.stack(
                [
                    (gold[:, None] & pred).sum(0),
                    (~gold[:, None] & pred).sum(0),
                    (gold[:, None] & ~pred).sum(0),
                    (~gold[:, None] & ~pred).sum(0),
                ],
                -1,
            )
            got = np.stack([tensor.tp[s, t], tensor.fp[s, t], tensor.fn[s, t], tensor.tn[s, t]], -1)
            np.testing.assert_array_equal(got, expected)


def test_unjudged_on_the_command_line(tmp_path, capsys):
    from fastmetrics.cli import main

    folder, qrels, _, _ = _truncated_runs(tmp_path)
    out = tmp_path / "counts.csv"
    argv = ["evaluate", folder, "--gold", qrels, "--thresholds", "0.0", "--measures", "tp,fp,fn,tn", "--out", str(out)]
    assert main(argv + ["--missing", "negative", "--unjudged", "negative"]) == 0
    expected = fm.count(folder, gold=qrels, thresholds=[0.0], missing="negative", unjudged="negative")
    table = pacsv.read_csv(out).sort_by([("system", "ascending"), ("topic", "ascending")]).to_pydict()
    for name in ("tp", "fp", "fn", "tn"):
        got = [v for m, v in zip(table["measure"], table["value"]) if m == name]
        np.testing.assert_array_equal(got, getattr(expected, name).ravel())
    capsys.readouterr()
    assert main(argv) == 2
    assert "which the gold does not have" in capsys.readouterr().err
    assert main(["meta", "stability", folder, "--gold", qrels, "--unjudged", "negative"]) == 2
    assert "--unjudged negative is not available" in capsys.readouterr().err


def test_unjudged_is_checked(tmp_path):
    folder, qrels, _, _ = _truncated_runs(tmp_path)
    with pytest.raises(ValueError, match="unjudged"):
        fm.count(folder, gold=qrels, thresholds=3, unjudged="zero")
    labels = pa.table({"topic": ["7"], "item": ["J0"], "gold": ["yes"]})
    with pytest.raises(ValueError, match="binary gold"):
        fm.count(folder, gold=labels, thresholds=3, unjudged="negative", missing="negative")


@pytest.mark.parametrize("bad", [True, "2", None, float("nan")])
def test_relevance_level_must_be_a_number(trec, bad):
    with pytest.raises(ValueError, match="relevance_level"):
        fm.read_gold(trec["qrels"], relevance_level=bad)


def test_untagged_trec_run_is_named_after_its_file(tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    path = _write(folder / "run1.res", b"401 Q0 D1 1 2.5\n401 Q0 D2 2 1.5\n")
    assert detect_format(path) == "trec"
    table = fm.read_runs(path)
    assert table.column("system").to_pylist() == ["team/run1", "team/run1"]
    assert table.column("score").to_pylist() == [2.5, 1.5]


def test_compressed_trec_run(trec):
    path = trec["tmp"] / "input.bm25.gz"
    with open(f"{trec['runs']}/input.bm25", "rb") as fh:
        path.write_bytes(gzip.compress(fh.read()))
    assert detect_format(str(path)) == "trec"
    assert fm.read_runs(str(path)).equals(fm.read_runs(f"{trec['runs']}/input.bm25"))


def test_qrels_as_runs_and_run_as_gold_are_errors(trec):
    with pytest.raises(InputError, match=r"qrels.*gold"):
        fm.read_runs(trec["qrels"])
    with pytest.raises(InputError, match=r"TREC run.*expected TREC qrels"):
        fm.read_gold(f"{trec['runs']}/input.bm25")


def test_semeval_run_file_stays_a_run_and_a_gold(tmp_path):
    path = _write(tmp_path / "run.txt", "".join("\t".join(r) + "\n" for r in ROWS).encode())
    assert detect_format(path) == "run"
    gold = fm.read_gold(path)
    assert gold.column_names == ["topic", "item", "rank", "score", "gold"]
    assert gold.to_pydict() == _expected(ROWS, label="gold")


# -- folders --------------------------------------------------------------------------------------
def test_folder_skips_what_is_not_a_run(tmp_path):
    team = tmp_path / "team"
    (team / ".git").mkdir(parents=True)
    run = "".join("\t".join(r) + "\n" for r in ROWS)
    for name in ("subtask_A_primary.txt", "subtask_A_contrastive1.txt", "run.pred"):
        (team / name).write_text(run)
    (team / "subtask_A_primary.txt.score").write_text("MAP: 0.79\n")
    (team / "README.txt").write_text("Team X: our system uses ...\n")
    (team / "readme").write_text("again\n")
    (team / ".hidden.txt").write_text(run)
    (team / ".git" / "config.txt").write_text(run)
    (team / "NOTES.md").write_text("# notes\n")
    (team / "paper.pdf").write_bytes(b"%PDF-1.4\n")
    (team / "results_subtask_A_all.txt").write_text("Kelp\tsubtask_A_primary\t 0.7919\n")  # a score table
    (team / "empty.txt").write_text("\n# nothing\n")
    (team / "qrels.txt").write_text("Q1 0 Q1_R1 1\n")

    kept, skipped = list_inputs(str(team))
    assert [p.rsplit("/", 1)[1] for p in kept] == ["run.pred", "subtask_A_contrastive1.txt", "subtask_A_primary.txt"]
    reasons = {p.rsplit("/", 1)[1]: r for p, r in skipped}
    assert set(reasons) == {
        ".git",
        ".hidden.txt",
        "NOTES.md",
        "README.txt",
        "empty.txt",
        "paper.pdf",
        "qrels.txt",
        "readme",
        "results_subtask_A_all.txt",
        "subtask_A_primary.txt.score",
    }
    assert reasons[".git"] == "hidden folder" and reasons[".hidden.txt"] == "hidden file"
    assert reasons["README.txt"] == reasons["readme"] == "README or licence"
    assert reasons["subtask_A_primary.txt.score"] == "'.score' file"
    assert reasons["results_subtask_A_all.txt"].startswith("not a run: line 1 is")
    assert reasons["qrels.txt"].startswith("TREC qrels (gold), not a run")
    assert reasons["empty.txt"] == "no data line"
    # the same list through expand_paths' optional argument, and read_runs / count read only the runs
    into: list = []
    assert expand_paths(str(team), into) == kept and into == skipped
    table = fm.read_runs(str(team))
    assert table.num_rows == 3 * len(ROWS)
    assert sorted(set(table.column("system").to_pylist())) == [
        "team/run",
        "team/subtask_A_contrastive1",
        "team/subtask_A_primary",
    ]
    gold = _write(tmp_path / "gold.txt", run.encode())  # gold = the run's own labels: no errors
    tensor = fm.count(str(team), gold=gold)
    assert tensor.counts.shape[:2] == (3, 2)
    assert tensor.fp.sum() == tensor.fn.sum() == 0


def test_glob_skips_by_name_and_a_named_file_is_always_read(tmp_path):
    run = "".join("\t".join(r) + "\n" for r in ROWS)
    (tmp_path / "subtask_A_primary.txt").write_text(run)
    (tmp_path / "subtask_A_primary.txt.score").write_text("MAP: 0.79\n")
    (tmp_path / "README.txt").write_text("about\n")
    kept, skipped = list_inputs(str(tmp_path / "*"))
    assert [p.rsplit("/", 1)[1] for p in kept] == ["subtask_A_primary.txt"]
    assert sorted(p.rsplit("/", 1)[1] for p, _ in skipped) == ["README.txt", "subtask_A_primary.txt.score"]
    with pytest.raises(InputError, match=r"No input file matches .*README.txt \(README or licence\)"):
        list_inputs(str(tmp_path / "READ*"))
    with pytest.raises(InputError, match=r"README.txt', line 1: expected 5 fields"):
        fm.read_runs(str(tmp_path / "README.txt"))


def test_folder_with_nothing_to_read(tmp_path):
    (tmp_path / "README.md").write_text("x\n")
    (tmp_path / "a.score").write_text("x\n")
    with pytest.raises(InputError, match=r"holds no input file: skipped README.md .*a.score"):
        fm.read_runs(str(tmp_path))


def test_gold_folder_keeps_qrels(tmp_path):
    (tmp_path / "qrels.test").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "README").write_text("qrels of ...\n")
    kept, skipped = list_inputs(str(tmp_path), kind="gold")
    assert [p.rsplit("/", 1)[1] for p in kept] == ["qrels.test"]
    assert [(p.rsplit("/", 1)[1], r) for p, r in skipped] == [("README", "README or licence")]
    assert fm.read_gold(str(tmp_path)).column("gold").to_pylist() == [True, False]


# -- errors: one line, the file, the line number, what was expected ------------------------------
GOOD = "Q1\tQ1_R1\t1\t0.5\ttrue\n"


@pytest.mark.parametrize(
    "reader, text, line, message",
    [
        (
            read_run_file,
            GOOD + "\n# c\nQ1 Q1_R2 2 0.5\n",
            4,
            r"expected 5 fields 'topic item rank score label', found 4: 'Q1 Q1_R2 2 0.5'",
        ),
        (read_run_file, GOOD + "Q1 Q1_R2 2 0.5 true extra\n", 2, r"expected 5 fields .*, found 6"),
        (read_run_file, "# h\n" + GOOD + GOOD.replace("0.5", "abc"), 3, r"the score 'abc' is not a number"),
        (read_run_file, GOOD + GOOD.replace("\ttrue", "\tyes"), 2, r"the label 'yes' is not true or false"),
        (read_run_file, GOOD.replace("\t1\t", "\tfirst\t"), 1, r"the rank 'first' is not a number"),
        (read_run_file, GOOD + GOOD.replace("0.5", "NA"), 2, r"the score 'NA' is not a number"),
        (read_run_file, GOOD + GOOD.replace("0.5", "1_0"), 2, r"the score '1_0' is not a number"),
        (read_run_file, "\ufeff\r\n" + GOOD + "Q1 Q1_R3\r\n", 3, r"found 2: 'Q1 Q1_R3'"),
        (
            read_trec_run,
            "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 1.5\n",
            2,
            r"expected 6 fields 'qid Q0 docno rank score tag' \(as on line 1\), found 5",
        ),
        (read_trec_run, "\n1 Q0 d1 1\n", 2, r"expected 5 or 6 fields 'qid Q0 docno rank score tag', found 4"),
        (read_trec_run, "1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 high tag\n", 2, r"the score 'high' is not a number"),
        (
            fm.read_runs,
            "this line is not a run\n" + GOOD,
            1,
            r"expected 5 fields 'topic item rank score label', found 6",
        ),  # 6 words: not taken for a TREC run
        (fm.read_runs, GOOD + "1 Q0 d1 1 2.5 tag\n", 2, r"run file .*expected 5 fields .*, found 6"),
        (read_qrels, "1 0 d1 1\n1 0 d2 relevant\n", 2, r"the relevance 'relevant' is not a number"),
        (read_qrels, "1 0 d1 1\n\n1 0 d2\n", 3, r"expected 4 fields 'qid iter docno rel', found 3"),
    ],
)
def test_errors_name_file_and_line(tmp_path, reader, text, line, message):
    path = _write(tmp_path / "input.txt", text.encode("utf-8"))
    with pytest.raises(InputError) as info:
        reader(path)
    text = str(info.value)
    assert "\n" not in text
    assert f"'{path}', line {line}: " in text
    assert re.search(message, text), text


def test_error_on_non_utf8_names_the_line(tmp_path):
    path = _write(tmp_path / "run.txt", GOOD.encode() + b"Q\xff1\tQ1_R2\t1\t0.5\ttrue\n")
    with pytest.raises(InputError, match=r"run.txt', line 2: the topic .* is not UTF-8 text"):
        read_run_file(path)


@pytest.mark.parametrize("text", ["", "\n\n", "  \t\r\n# only a comment\r\n"])
def test_file_without_data_lines(tmp_path, text):
    path = _write(tmp_path / "run.txt", text.encode())
    with pytest.raises(InputError, match=r"run.txt': the file has no data line .*'topic item rank score label'"):
        fm.read_runs(path)


def test_error_through_count_names_the_file_and_line(tmp_path):
    path = _write(tmp_path / "run.txt", (GOOD + "Q1 Q1_R2 2 0,5 false\n").encode())
    with pytest.raises(InputError, match=r"run.txt', line 2: the score '0,5' is not a number"):
        fm.count(path)


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"nope.txt': No such file"):
        read_run_file(str(tmp_path / "nope.txt"))
    with pytest.raises(InputError, match=r"nope.txt': no such file"):
        fm.read_runs(str(tmp_path / "nope.txt"))


# -- the published SemEval-2016 Task 3 runs ----------------------------------------------------
def _semeval_root():
    root = shared_dir() / "data" / "external" / "semeval2016-task3-cqa"
    if not root.exists():
        pytest.skip(f"SemEval-2016 Task 3 data not found at {root} (set FASTMETRICS_SHARED)")
    return root


def _reader_before(path, label_name="pred"):
    """The run-file reader as it was before whitespace-separated files: a tab (or single-space)
    delimited CSV with an int64 rank."""
    with open(path, "rb") as fh:
        first = fh.readline()
    delimiter = "\t" if b"\t" in first else " "
    table = pacsv.read_csv(
        path,
        read_options=pacsv.ReadOptions(column_names=["topic", "item", "rank", "score", "label"]),
        parse_options=pacsv.ParseOptions(delimiter=delimiter),
        convert_options=pacsv.ConvertOptions(
            column_types={
                "topic": pa.string(),
                "item": pa.string(),
                "rank": pa.int64(),
                "score": pa.float64(),
                "label": pa.bool_(),
            },
            true_values=["true", "True", "1"],
            false_values=["false", "False", "0"],
        ),
    )
    return table.rename_columns(["topic", "item", "rank", "score", label_name])


def test_semeval_subtask_a_runs_read_as_before():
    root = _semeval_root()
    runs = sorted(glob.glob(str(root / "*" / "subtask_A_*.txt")))
    assert len(runs) == 32  # 29 team runs + 3 baselines
    for path in runs:
        before = _reader_before(path)
        now = read_run_file(path)
        assert before.column("rank").to_pylist() == [int(x) for x in now.column("rank").to_pylist()]
        before = before.set_column(2, "rank", before.column("rank").cast(pa.float64()))
        assert now.equals(before), path
    # and the table read_runs / count build from them: the same rows, system named <team>/<stem>
    table = fm.read_runs(runs)
    assert table.num_rows == 32 * 3270
    old = pa.concat_tables(
        [
            _reader_before(p).append_column("system", pa.array([f"{p.split('/')[-2]}/{p.split('/')[-1][:-4]}"] * 3270))
            for p in runs
        ]
    )
    assert table.drop_columns(["rank"]).equals(old.drop_columns(["rank"]))
    gold = str(root / "_gold" / "SemEval2016-Task3-CQA-QL-test-subtaskA.xml.subtaskA.relevancy")
    before = _reader_before(gold, "gold")
    assert fm.read_gold(gold).equals(before.set_column(2, "rank", before.column("rank").cast(pa.float64())))


def test_every_published_semeval_run_reads():
    """The two layouts the old reader refused: runs of spaces (overfitting, subtask B) and ranks
    written 0.00E+00 (RDI_team, subtask D); every file has as many rows as data lines."""
    root = _semeval_root()
    for path in sorted(glob.glob(str(root / "*" / "subtask_*.txt"))):
        with open(path, "rb") as fh:
            data_lines = sum(1 for line in fh if line.split())
        assert read_run_file(path).num_rows == data_lines, path
    spaced = read_run_file(str(root / "overfitting" / "subtask_B_primary.txt"))
    with open(root / "overfitting" / "subtask_B_primary.txt") as fh:
        first = fh.readline().split()
    assert spaced.slice(0, 1).to_pylist()[0] == {
        "topic": first[0],
        "item": first[1],
        "rank": float(first[2]),
        "score": float(first[3]),
        "pred": first[4] == "true",
    }
    exponent = read_run_file(str(root / "RDI_team" / "subtask_D_contrastive1.txt"))
    assert exponent.schema.field("rank").type == pa.float64()
    kept, skipped = list_inputs(str(root / "Kelp"))
    assert all(p.endswith(".txt") and "/subtask_" in p for p in kept)
    assert any(p.endswith("README.txt") for p, _ in skipped)
