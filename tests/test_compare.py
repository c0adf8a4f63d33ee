"""Many systems at once against scipy and scikit-posthocs (Friedman, Nemenyi, Conover, Wilcoxon-Holm),
the Bayesian signed-rank test against baycomp and the paper's double sum, tiers, the
critical-difference diagram, and the command line."""

import warnings

import numpy as np
import pyarrow as pa
import pyarrow.csv  # noqa: F401  (pa.csv)
import pytest
import scikit_posthocs as sp
from scipy import stats

import fastmetrics as fm
from fastmetrics.board import bayes, friedman
from fastmetrics.meta.corrections import adjust
from fastmetrics.report import cd
from fastmetrics.tensor import Scores
from tests._program import run_fastmetrics


def _scores(values, measure="accuracy"):
    systems, topics = values.shape
    coords = {"system": [f"s{i:02d}" for i in range(systems)], "topic": [f"t{j}" for j in range(topics)]}
    return Scores(values[None], [measure], ("system", "topic"), coords)


def _blocks(seed, k, n, ties):
    rng = np.random.default_rng(seed)
    values = rng.normal(0, 1, (k, n)) + np.linspace(0, 1.5, k)[:, None]
    return np.round(values, 1) if ties else values


@pytest.mark.parametrize("seed", range(6))
def test_friedman_and_post_hoc_tests_equal_scipy_and_scikit_posthocs(seed):
    k, n = 3 + 2 * seed, 5 + 6 * seed
    values = _blocks(seed, k, n, ties=seed % 2 == 1)
    result = fm.board.compare(_scores(values), posthoc="nemenyi")
    test = result.tests.to_pylist()[0]
    expected = stats.friedmanchisquare(*values)
    assert test["chi2"] == pytest.approx(expected.statistic, rel=1e-12)
    assert test["p_value"] == pytest.approx(expected.pvalue, rel=1e-9, abs=1e-300)
    f = (n - 1) * expected.statistic / (n * (k - 1) - expected.statistic)  # Iman & Davenport (1980)
    assert test["iman_davenport"] == pytest.approx(f, rel=1e-12)
    assert test["p_iman_davenport"] == pytest.approx(stats.f.sf(f, k - 1, (k - 1) * (n - 1)), rel=1e-9, abs=1e-300)
    first, second = np.triu_indices(k, 1)
    # values are oriented higher-better and ranked 1 = best; the p-values do not depend on the direction
    blocks = values.T
    nemenyi = sp.posthoc_nemenyi_friedman(blocks).to_numpy()[first, second]
    np.testing.assert_allclose(result.detail.column("p_value").to_numpy(), nemenyi, atol=2e-9)
    conover = fm.board.compare(_scores(values), posthoc="conover", correction="holm")
    expected = sp.posthoc_conover_friedman(blocks, p_adjust="holm").to_numpy()[first, second]
    np.testing.assert_allclose(conover.detail.column("p_value").to_numpy(), expected, atol=1e-12)
    wilcoxon = fm.board.compare(_scores(values), posthoc="wilcoxon", correction="holm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        raw = [stats.wilcoxon(values[a], values[b]).pvalue for a, b in zip(first, second)]
    np.testing.assert_allclose(wilcoxon.detail.column("p_value").to_numpy(), adjust(raw, "holm"), atol=1e-12)


def test_critical_difference_is_demsars():
    # Demšar (2006), Table 5: q_0.05 = 2.343 for k = 3 ... 3.164 for k = 10 (the studentized range / sqrt 2)
    for k, q in ((2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850), (7, 2.949), (8, 3.031), (10, 3.164)):
        assert friedman.critical_difference(k, 1, 0.05) / np.sqrt(k * (k + 1) / 6) == pytest.approx(
            q, abs=1e-3
        )  # the table has 3 decimals, cut
    # Demšar's example: four classifiers on 14 data sets, CD = 2.569 sqrt(4 * 5 / (6 * 14)) = 1.25
    assert friedman.critical_difference(4, 14, 0.05) == pytest.approx(1.25, abs=0.005)


def test_the_studentized_range_equals_scipys():
    from scipy.stats import studentized_range

    q = np.linspace(0.05, 9, 60)
    for k in (2, 3, 7, 20, 64):
        np.testing.assert_allclose(friedman.studentized_range_sf(q, k), studentized_range.sf(q, k, np.inf), atol=2e-9)
    # the tail keeps its relative accuracy: k = 2 is |X - Y| of two normals, 2 Φ(-q / sqrt 2)
    tail = np.array([12.0, 20.0, 30.0])
    np.testing.assert_allclose(friedman.studentized_range_sf(tail, 2), 2 * stats.norm.sf(tail / np.sqrt(2)), rtol=1e-8)


def test_tiers_and_groups_are_the_maximal_runs():
    separated = np.zeros((6, 6), bool)
    for a, b in ((0, 2), (0, 3), (1, 3), (0, 4), (1, 4), (2, 4), (0, 5), (1, 5), (2, 5), (3, 5), (4, 5)):
        separated[a, b] = separated[b, a] = True
    tier, groups = friedman.tiers(range(6), separated)
    # maximal runs without a separated pair: 0-1, 1-2, 2-3, 3-4, 5
    assert friedman.group_spans(range(6), separated) == [(0, 1), (1, 2), (2, 3), (3, 4), (5, 5)]
    assert groups == ["a", "ab", "bc", "cd", "d", "e"]
    assert tier.tolist() == [1, 1, 2, 2, 3, 4]
    none = np.zeros((3, 3), bool)
    assert friedman.tiers(range(3), none)[1] == ["a", "a", "a"]


def test_bayesian_thetas_are_the_papers_double_sum():
    """θ_left and θ_right of Benavoli et al. (2017) written out: Σ_i Σ_j w_i w_j H(±(z_i + z_j) - 2r)."""
    rng = np.random.default_rng(0)
    for n, rope in ((1, 0.0), (6, 0.01), (15, 0.05), (9, 0.1)):
        z = np.r_[0.0, np.round(rng.normal(0.02, 0.08, n), 2)]  # rounded: sums on the ROPE's edge
        w = rng.dirichlet(np.r_[0.5, np.ones(n)], size=40)
        sums = z[:, None] + z[None, :]

        def heaviside(x):
            return (x > 0) + 0.5 * (x == 0)

        left = np.einsum("si,sj,ij->s", w, w, heaviside(-sums - 2 * rope))
        right = np.einsum("si,sj,ij->s", w, w, heaviside(sums - 2 * rope))
        np.testing.assert_allclose(bayes.thetas(z, w, rope), np.stack([left, right], 1), atol=1e-13)


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.05])
def test_bayesian_signed_rank_agrees_with_baycomp(rope):
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(int(rope * 100))
    for trial in range(3):
        n = 10 + 10 * trial
        a = rng.normal(0.6, 0.1, n)
        b = a + rng.normal([-0.03, 0.0, 0.02][trial], 0.05, n)
        ours = bayes.signed_rank((a - b)[None], rope=rope, samples=50_000, rng=np.random.default_rng(trial))[0]
        theirs = baycomp.SignedRankTest.probs(b, a, rope=rope, nsamples=50_000, random_state=trial)
        if rope == 0:
            theirs = (theirs[0], 0.0, theirs[1])
        # two independent Monte-Carlo estimates of 50,000 samples: within 5 of their standard errors
        assert np.abs(np.array(theirs) - ours).max() < 5 * np.sqrt(0.5 / 50_000)


def test_bayesian_tests_of_a_leaderboard_orient_the_measures():
    values = np.array([[0.9, 0.8, 0.85, 0.95, 0.9], [0.5, 0.4, 0.45, 0.55, 0.5]])
    for measure, better in (("accuracy", "p_a_better"), ("error_rate", "p_b_better")):
        row = fm.board.bayesian_tests(_scores(values, measure), samples=2000).summary.to_pylist()[0]
        assert row[better] > 0.99 and row["topics"] == 5  # the prior at 0 keeps a little mass


def test_leaderboard_tiers_from_its_tests():
    t = fm.count(_demo_table())
    board = fm.board.leaderboard(t, ["f1"], significance="t", correction="holm")
    rows = [r for r in board.summary.to_pylist() if r["kind"] == "system"]
    tests = board.detail.to_pylist()
    by_rank = sorted(rows, key=lambda r: r["rank"])
    separated = {(t["system_a"], t["system_b"]) for t in tests if t["p_adjusted"] < 0.05}
    separated |= {(b, a) for a, b in separated}
    for upper, lower in zip(by_rank, by_rank[1:]):
        if lower["tier"] == upper["tier"]:  # a tier holds no separated pair
            mates = [r["system"] for r in by_rank if r["tier"] == upper["tier"]]
            assert not any((x, y) in separated for x in mates for y in mates)
    assert [r for r in board.summary.to_pylist() if r["kind"] == "baseline"][0]["tier"] is None


def _demo_table():
    from fastmetrics import demo

    return demo.generate()


def test_cd_diagram_layout_has_every_name_whole_and_no_overlap(tmp_path):
    names = [f"team{i:02d}/a_rather_long_run_name_{i}" for i in range(12)]
    ranks = np.sort(np.random.default_rng(0).uniform(1, 12, 12))
    drawing = cd.layout(names, ranks, [(0, 3), (2, 6), (7, 11)], critical_difference=2.1, title="t")
    texts = [t[2] for t in drawing.texts]
    for name in names:
        assert sum(name in t for t in texts) == 1
    rows = sorted((t[0] > drawing.width / 2, t[1]) for t in drawing.texts if "team" in t[2])
    for (side_a, y_a), (side_b, y_b) in zip(rows, rows[1:]):
        assert side_a != side_b or y_b - y_a >= 0.2  # one row a name on each side
    tikz = cd.tikz(drawing)
    assert tikz.startswith("\\begin{tikzpicture}") and "a\\_rather\\_long" in tikz
    for suffix in (".svg", ".png", ".tex"):
        cd.write(drawing, tmp_path / f"cd{suffix}")
        assert (tmp_path / f"cd{suffix}").stat().st_size > 500
    with pytest.raises(fm.ParameterError, match=r"\.svg, \.png, \.pdf, \.tex"):
        cd.check_path(tmp_path / "cd.jpg")


def test_compare_command(tmp_path):
    from fastmetrics import demo

    folder = tmp_path / "demo"
    demo.write(folder)
    run = ["compare", str(folder / "runs.parquet"), "--measures", "f1,k"]
    done = run_fastmetrics(run + ["--cd", str(tmp_path / "cd.svg"), "--detail", str(tmp_path / "pairs.csv")])
    assert done.returncode == 0, done.stderr
    assert "Friedman's chi2" in done.stdout and "Nemenyi's critical difference" in done.stdout
    assert (tmp_path / "cd.svg").read_text().startswith("<?xml")
    pairs = pa.csv.read_csv(tmp_path / "pairs.csv")
    assert pairs.num_rows == 2 * 190 and "separated" in pairs.column_names
    bad = run_fastmetrics(run + ["--cd", str(tmp_path / "cd.gif")])
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "critical-difference" in bad.stderr


def test_compare_refuses_too_little():
    with pytest.raises(fm.ParameterError, match="at least two systems on at least two topics"):
        fm.board.compare(_scores(np.ones((1, 4))))
    with pytest.raises(fm.ParameterError, match="posthoc"):
        fm.board.compare(_scores(np.ones((3, 4))), posthoc="tukey")


def test_compare_command_ranks_a_sweep_by_a_ranking_measure(tmp_path):
    """--thresholds ranks counts each topic's ranked list, as the leaderboard does: the mean ranks
    are scipy's Friedman ranks of the leaderboard's per-topic average precision."""
    from fastmetrics import demo
    from fastmetrics.cli import main

    folder = tmp_path / "demo"
    demo.write(folder)
    spec = "ranked_ap_retrieved(cutoff=10)"
    out = tmp_path / "ranks.csv"
    args = [str(folder / "runs.parquet"), "--thresholds", "ranks", "--measures", spec, "--undefined", "0", "--quiet"]
    assert main(["compare", *args, "--out", str(out)]) == 0
    mean_rank = dict(zip(*pa.csv.read_csv(out).select(["system", "mean_rank"]).to_pydict().values(), strict=True))
    scores = fm.count(str(folder / "runs.parquet"), thresholds="ranks").evaluate(spec, undefined=0)
    values, systems = scores.values[0], scores.coords["system"]
    expected = stats.rankdata(-values, axis=0).mean(axis=1)  # rank 1 the best on each topic
    assert [mean_rank[s] for s in systems] == pytest.approx(expected.tolist(), abs=1e-12)
