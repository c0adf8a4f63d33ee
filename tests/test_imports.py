"""What a process imports: ``import fastmetrics`` and the ``evaluate`` command load nothing they do
not use (issue 27: most of a small command's time was imports). Checked in fresh interpreters by
the names in ``sys.modules``, not by timing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.csv as pacsv
import pytest

ROOT = Path(__file__).resolve().parents[1]
# optional dependencies no evaluation needs, and the stages after the measures
NEVER = ("matplotlib", "pandas", "cffi", "dask", "sklearn")
LATER_STAGES = ("fastmetrics.meta", "fastmetrics.board", "fastmetrics.pipeline", "fastmetrics.dask")
REPORT_ONLY = ("fastmetrics.report.html", "fastmetrics.report.figures")


def _modules(code: str, tmp_path: Path) -> set[str]:
    out = tmp_path / "modules.json"
    script = f"{code}\nimport json, sys\njson.dump(sorted(sys.modules), open({str(out)!r}, 'w'))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=_env(), check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(out.read_text()))


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def _loaded(modules: set[str], names) -> list[str]:
    return sorted(m for m in modules for n in names if m == n or m.startswith(n + "."))


def test_import_fastmetrics_loads_no_stage(tmp_path):
    modules = _modules("import fastmetrics", tmp_path)
    assert not _loaded(modules, ("numba", "scipy", *NEVER, "fastmetrics.count", "fastmetrics.measures"))
    assert not _loaded(modules, (*LATER_STAGES, "fastmetrics.report"))


def test_public_names_load_on_first_use(tmp_path):
    code = "import fastmetrics as fm\nassert callable(fm.count)\nfm.measures()"
    modules = _modules(code, tmp_path)
    assert "fastmetrics.count.api" in modules and "fastmetrics.measures.registry" in modules
    # pandas may come: pyarrow imports it, where installed, to recognise pandas inputs
    assert not _loaded(modules, ("matplotlib", "dask", "sklearn", "scipy.linalg", *LATER_STAGES, "fastmetrics.report"))


def test_stage_packages_import_in_every_form_and_stay_callable(tmp_path):
    """``fm.count`` and ``fm.measures`` are the stage packages, callable as their functions: every
    import form reaches their modules, before or after the functions are called (issue 29)."""
    code = (
        "import inspect, pyarrow as pa\n"
        "import fastmetrics as fm\n"
        "import fastmetrics.measures.intervals as iv\n"
        "from fastmetrics.measures import intervals\n"
        "import fastmetrics.count.plan as plan\n"
        "from fastmetrics.count import plan as plan_from\n"
        "assert iv is intervals and plan is plan_from and iv.__name__ == 'fastmetrics.measures.intervals'\n"
        "catalog = fm.measures()\n"
        "assert catalog.num_rows > 40 and 'f1' in catalog.column('name').to_pylist()\n"
        "assert str(fm.measures.parse_spec('f1@macro')) == 'f1@macro'\n"
        "t = pa.table({'gold': [True, False, True], 'pred': [True, True, False]})\n"
        "assert fm.count(t).evaluate('precision').values.item() == 0.5\n"
        "from fastmetrics import count, measures\n"
        "assert count(t).counts.sum() == 3 and measures().num_rows == catalog.num_rows\n"
        "assert 'weight' in inspect.signature(fm.count).parameters\n"
        "import fastmetrics.count.api\n"
        "assert callable(fm.count) and fm.count(t).counts.sum() == 3\n"
    )
    for first in ("", "import fastmetrics.measures.intervals\nimport fastmetrics.count.plan\n"):
        _modules(first + code, tmp_path)


def test_a_count_evaluates_with_nothing_else_imported(tmp_path):
    # the measures stage loads when a tensor is first evaluated, not only when fm.measures is named
    code = (
        "import fastmetrics as fm, pyarrow as pa\n"
        "t = pa.table({'gold': [True, False, True], 'pred': [True, True, False]})\n"
        "assert fm.count(t).evaluate(['f1']).values.item() == 0.5\n"
        "from fastmetrics import count\n"
        "assert count(t).evaluate('precision').values.item() == 0.5"
    )
    assert "fastmetrics.measures.registry" in _modules(code, tmp_path)


def test_help_and_usage_mistakes_load_no_stage(tmp_path):
    """The help of the program and of a command, --version and a usage mistake only parse the
    command line: neither pyarrow, numpy, numba nor a stage is imported (0.43 s -> 0.04 s)."""
    heavy = ("numpy", "pyarrow", "numba", "fastmetrics.io", "fastmetrics.count", "fastmetrics.tensor")
    for argv in (["--help"], ["evaluate", "--help"], ["report", "--help"], ["--version"], ["evaluate"]):
        code = f"from fastmetrics.cli import main\ntry:\n    main({argv!r})\nexcept SystemExit:\n    pass"
        modules = _modules(code, tmp_path)
        assert "fastmetrics.cli" in modules
        assert not _loaded(modules, (*heavy, "fastmetrics.measures", *LATER_STAGES, "fastmetrics.report"))


def _run_command(argv: list[str]) -> str:
    return f"import sys\nfrom fastmetrics.cli import run\nsys.argv = ['fastmetrics', *{argv!r}]\nassert run() == 0"


def test_evaluate_loads_what_it_uses(tmp_path):
    data = tmp_path / "runs.csv"
    pacsv.write_csv(
        pa.table(
            {
                "system": ["a", "a", "b", "b"] * 3,
                "topic": [1] * 12,
                "item": list(range(12)),
                "gold": [1, 0] * 6,
                "pred": [1, 1, 0, 0] * 3,
                "score": [0.9, 0.2, 0.4, 0.7] * 3,
            }
        ),
        data,
    )
    for options in ([], ["--thresholds", "3"]):
        modules = _modules(_run_command(["evaluate", str(data), *options]), tmp_path)
        assert "fastmetrics.count.api" in modules  # the command ran
        # numba's probes of scipy (its version, BLAS) and yaml (a config file) are refused too
        assert not _loaded(modules, (*NEVER, "scipy", "yaml", *LATER_STAGES, *REPORT_ONLY))


def test_refused_probes_leave_scipy_and_numba_config_files_usable(tmp_path):
    """Only numba's probes are refused: scipy imports afterwards, in the same process, and a
    ``.numba_config.yaml`` in the working folder is still read (with yaml) when there is one."""
    data = tmp_path / "runs.csv"
    data.write_text("gold,pred\n1,1\n0,1\n")
    code = _run_command(["evaluate", str(data)]) + "\nimport scipy.stats\nassert scipy.stats.norm.cdf(0) == 0.5"
    modules = _modules(code, tmp_path)
    assert "numba" in modules and "scipy.stats" in modules and "yaml" not in modules
    (tmp_path / ".numba_config.yaml").write_text("debug_cache: 0\n")
    code = _run_command(["evaluate", str(data)]) + "\nimport numba.core.config as c\nassert c._HAVE_YAML"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=_env())
    assert done.returncode == 0, done.stderr


def test_the_program_sets_the_collector_pace_and_blas_wait_but_keeps_the_users(tmp_path):
    code = (
        "import gc, os\nfrom fastmetrics import __main__ as program\nprogram._set_up()\n"
        "assert gc.get_threshold() == program._COLLECT_AFTER\nprint(os.environ['OPENBLAS_THREAD_TIMEOUT'])"
    )
    for given, expected in ((None, "4"), ("12", "12")):
        env = {k: v for k, v in _env().items() if k != "OPENBLAS_THREAD_TIMEOUT"}
        if given is not None:
            env["OPENBLAS_THREAD_TIMEOUT"] = given
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected


def _thp_enabled(env: dict, code: str) -> str:
    code += "\nprint([l.split()[1] for l in open('/proc/self/status') if l.startswith('THP_enabled')][0])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[-1]


@pytest.mark.skipif(
    not Path("/proc/self/status").exists() or "THP_enabled" not in Path("/proc/self/status").read_text(),
    reason="the system does not say whether transparent huge pages are on (Linux 5.0 and later do)",
)
def test_the_program_turns_huge_pages_off_unless_asked_and_the_library_leaves_them(tmp_path):
    ours = [line.split()[1] for line in Path("/proc/self/status").read_text().splitlines() if "THP_enabled" in line]
    if ours != ["1"]:  # the setting is inherited: a process that started this one turned them off
        pytest.skip("transparent huge pages are off for this process already")
    env = {k: v for k, v in _env().items() if k != "FASTMETRICS_HUGE_PAGES"}
    set_up = "from fastmetrics import __main__ as program\nprogram._set_up()"
    assert _thp_enabled(env, "import fastmetrics") == "1"
    assert _thp_enabled(env, set_up) == "0"
    assert _thp_enabled({**env, "FASTMETRICS_HUGE_PAGES": "1"}, set_up) == "1"


def test_evaluate_run_files_loads_what_it_uses(tmp_path):
    run = "\n".join(f"{t}\t{t}_{i}\t{i}\t{0.1 * i}\t{'true' if i % 2 else 'false'}" for t in (1, 2) for i in range(4))
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "subtask_A_primary.txt").write_text(run + "\n")
    (tmp_path / "gold.relevancy").write_text(run.replace("true", "x").replace("false", "true").replace("x", "false"))
    argv = ["evaluate", str(tmp_path / "team" / "subtask_A_primary.txt"), "--gold", str(tmp_path / "gold.relevancy")]
    modules = _modules(_run_command([*argv, "--by", "system"]), tmp_path)
    assert "fastmetrics.count.api" in modules
    # Arrow's group-by loads pyarrow.dataset, which imports pandas where it can: refused here
    assert not _loaded(modules, (*NEVER, "scipy.linalg", "scipy.stats", *LATER_STAGES, *REPORT_ONLY))


def test_the_library_keeps_pandas_for_its_callers(tmp_path):
    # only the fastmetrics program refuses pandas; main() called in a process of one's own does not
    code = (
        "import sys\nfrom fastmetrics.cli import main\nimport pyarrow as pa\n"
        "assert main(['measures', '--format', 'csv']) == 0\npa.table({'a': [1]}).to_pandas()"
    )
    assert "pandas" in _modules(code, tmp_path)


def _trec_run_and_qrels(tmp_path: Path) -> tuple[str, str]:
    """Two systems' runs of three topics and their qrels, with ids spelled as on the TREC disks."""
    run, qrels = [], []
    for topic in (301, 302, 303):
        for n in range(30):
            doc = f"LA0{topic}89-{n:04d}"
            qrels.append(f"{topic} 0 {doc} {int(n % 3 == topic % 3 or n % 7 == 0)}")
            for system, score in (("team_a", 30 - n), ("team_b", (n * 7919) % 31)):
                run.append(f"{topic} Q0 {doc} 0 {score} {system}")
    (tmp_path / "run.txt").write_text("\n".join(run) + "\n")
    (tmp_path / "qrels.txt").write_text("\n".join(qrels) + "\n")
    return str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt")


def test_the_program_loads_cached_kernels_without_numba_registries(tmp_path):
    """The program's process reads cached kernels without installing numba's typing and lowering
    registries first (some two hundred of numba's modules, 0.25-0.35 s of a small command:
    ``fastmetrics.cli.process``), and ranks as a process that installed them does."""
    run, qrels = _trec_run_and_qrels(tmp_path)
    argv = ["leaderboard", run, "--gold", qrels, "--thresholds", "ranks", "--no-baselines", "--quiet"]
    argv += ["--measures", "ranked_ap,reciprocal_rank(cutoff=10),precision_at_k(k=5)"]
    lean, full = tmp_path / "lean.csv", tmp_path / "full.csv"
    for _ in range(2):  # the first may compile kernels into the cache: the second reads every one
        modules = _modules(_run_command([*argv, "--out", str(lean)]), tmp_path)
    assert "fastmetrics.count.api" in modules and "numba.np.ufunc.parallel" in modules  # the kernels ran
    # modules numba imports only to install its registries
    assert not _loaded(modules, ("numba.np.arraymath", "numba.np.polynomial", "numba.cpython.setobj"))
    from fastmetrics.cli import main

    assert main([*argv, "--out", str(full)]) == 0
    assert lean.read_text() == full.read_text() and len(lean.read_text().splitlines()) == 3


def test_a_ufunc_builds_after_kernels_were_loaded_without_numba_registries(tmp_path):
    """A measure's ufunc has its loop wrapper generated from numba's registries: where cached
    kernels were read without them, building a ufunc installs them first (without that, numba
    fails with ``NumbaNotImplementedError``)."""
    code = (
        "from fastmetrics.cli.process import set_up_numba\nset_up_numba()\n"
        "import numpy as np, pyarrow as pa, fastmetrics as fm\n"
        "from fastmetrics.measures import binary\n"
        "t = pa.table({'gold': [True, False, True], 'pred': [True, True, False]})\n"
        "assert fm.count(t).evaluate('f1').values.item() == 0.5\n"
        "tp, fp, fn = (np.arange(1.0, 9.0) * k for k in (1, 2, 3))\n"
        "f1 = binary._f1_kernel.ufunc(tp, fp, fn, 4 * tp)\n"
        "assert np.allclose(f1, 2 * tp / (2 * tp + fp + fn)), f1\n"
    )
    _modules(code, tmp_path)
    assert "numba.np.arraymath" in _modules(code, tmp_path)  # installed for the build
