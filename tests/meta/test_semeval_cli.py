"""Every meta-evaluation job and the leaderboard run end to end from the command line on
SemEval-2016 Task 3 subtask A (32 runs incl. the 3 baselines, 327 topics), and the same seed
gives byte-identical output files."""

import pyarrow.parquet as pq
import pytest

from fastmetrics.cli import main

from ._data import semeval_paths

MEASURES = "accuracy,f1,mcc,k,precision,recall"
JOBS = {
    "leaderboard": ["leaderboard", "--significance", "fisher", "--holm", "--resamples", "200", "--long"],
    "strictness": ["meta", "strictness"],
    "robustness": ["meta", "robustness", "--pairs", "300"],
    "stability": ["meta", "stability", "--splits", "40"],
    "inconsistency": ["meta", "inconsistency"],
    "power": ["meta", "power", "--resamples", "200"],
}
ROWS = {
    "leaderboard": (32 + 3) * 6,
    "strictness": 6 * 50,
    "robustness": 6,
    "stability": 6,
    "inconsistency": 6 * 5,
    "power": 6,
}


@pytest.mark.parametrize("job", list(JOBS))
def test_job_runs_and_is_reproducible(tmp_path, job):
    runs, gold = semeval_paths()
    outputs = []
    for attempt in range(2):
        out, detail = tmp_path / f"{job}{attempt}.parquet", tmp_path / f"{job}{attempt}-detail.csv"
        args = JOBS[job] + runs + ["--gold", gold, "--measures", MEASURES, "--seed", "11", "--out", str(out), "--quiet"]
        if job not in ("inconsistency",):
            args += ["--detail", str(detail)]
        assert main(args) == 0
        outputs.append((out.read_bytes(), detail.read_bytes() if detail.exists() else b""))
    assert outputs[0] == outputs[1]
    assert pq.read_table(tmp_path / f"{job}0.parquet").num_rows == ROWS[job]


def test_a_different_seed_changes_the_random_jobs(tmp_path):
    runs, gold = semeval_paths()
    files = []
    for seed in ("1", "2"):
        out = tmp_path / f"robustness{seed}.csv"
        assert (
            main(
                [
                    "meta",
                    "robustness",
                    *runs,
                    "--gold",
                    gold,
                    "--measures",
                    "f1",
                    "--pairs",
                    "50",
                    "--seed",
                    seed,
                    "--out",
                    str(out),
                ]
            )
            == 0
        )
        files.append(out.read_bytes())
    assert files[0] != files[1]
