"""The property checker against the papers' tables (seeds 000, 003, 004) and its own claims."""

import json
import math

import numpy as np
import pytest

import fastmetrics as fm
from fastmetrics.cli import main
from fastmetrics.measures import registry
from fastmetrics.meta import axioms as ax
from fastmetrics.meta.axioms import engines

TABLE2_PROPS = ["max", "min", "csym", "sym", "dist", "mon", "smon", "cb", "acb"]
# seed 003 Table 2, binary verdicts ("✓/✗" is ✓ for binary)
TABLE2 = {
    "f1": "✓✗✗✓✗✓✗✗✗",
    "jaccard": "✓✗✗✓✓✓✗✗✗",
    "mcc": "✓✓✓✓✗✓✓✓✓",
    "accuracy": "✓✓✓✓✓✓✓✗✗",
    "balanced_accuracy": "✓✓✓✗✗✓✓✓✓",
    "cohen_kappa": "✓✗✓✓✗✓✗✓✓",
    "confusion_entropy": "✓✗✓✓✗✗✗✗✗",
    "sba": "✓✓✓✓✗✓✓✓✓",
    "gm(r=1)": "✓✓✓✓✗✓✓✓✓",
    "cd": "✓✓✓✓✓✓✓✗✓",
}
# cells where enumeration finds a counterexample to the paper's own definitions
FOUND = {("f1", "mon"), ("jaccard", "mon"), ("balanced_accuracy", "smon"), ("confusion_entropy", "max")}


def verdicts(measure, props, **kw):
    return {v.property: v for v in ax.check(measure, props, **kw)}


@pytest.fixture(scope="module")
def table2():
    return {m: verdicts(m, TABLE2_PROPS) for m in TABLE2}


@pytest.mark.parametrize("measure", list(TABLE2))
def test_seed003_table2(table2, measure):
    for prop, mark in zip(TABLE2_PROPS, TABLE2[measure]):
        expected = mark == "✓"
        if (measure, prop) in FOUND:
            expected = False
        got = table2[measure][prop]
        assert got.holds is expected, (measure, prop, got)
        if not got.holds:
            assert got.counterexample


def test_the_four_counterexamples_hold_as_stated():
    """The issue's examples, recomputed directly: each really breaks the definition."""
    q = lambda m, *c: float(fm.compute(m, *c, warn=False))  # noqa: E731
    for m in ("f1", "jaccard"):  # Def. 6: fp -> tn with no row/column sum equal to n
        assert q(m, 0, 1, 1, 1) == q(m, 0, 0, 1, 2) == 0.0
    assert q("balanced_accuracy", 1, 1, 0, 1) == q("balanced_accuracy", 2, 1, 0, 1) == 0.75  # Def. 7
    assert q("confusion_entropy", 0, 3, 0, 0) == q("confusion_entropy", 3, 0, 0, 0) == 0.0  # Def. 1


def test_reported_counterexamples_are_the_smallest(table2):
    assert table2["f1"]["mon"].counterexample.startswith("(0, 1, 1, 0) -> (0, 0, 1, 1)")
    assert table2["balanced_accuracy"]["smon"].counterexample.startswith("(1, 1, 0, 1) -> (2, 1, 0, 1)")
    assert table2["confusion_entropy"]["max"].counterexample.startswith("(0, 0, 1, 0)")


SEBASTIANI_2015 = ["MON", "CON", "SDE", "WDE", "FIX", "CHA", "IMB", "SYM"]


def test_seed000_f1_and_k():
    f1 = verdicts("f1", SEBASTIANI_2015)
    for prop in ("MON", "CON", "CHA", "IMB", "SYM"):
        assert f1[prop].holds is False, prop
    assert f1["CON"].numeric
    k = verdicts("k", SEBASTIANI_2015)
    assert all(v.holds is True for v in k.values()), k


@pytest.mark.parametrize(
    "measure, failing",
    [
        ("asp", {"MON", "CON", "SDE", "IMB"}),
        ("dor", {"MON", "WDE"}),
        ("lam", {"MON", "CON", "WDE"}),
        ("mcc", {"CON", "SDE"}),
        ("accuracy", {"IMB"}),
    ],
)
def test_seed000_section_4_1(measure, failing):
    v = verdicts(measure, SEBASTIANI_2015)
    for prop in failing:
        assert v[prop].holds is False, (measure, prop, v[prop])


def test_seed000_property_4_3_numbers_and_the_random_model():
    assert ax.expected_random("f1", 1, 0) == pytest.approx(0.5)
    # 0.61257: the paper's "≈ 0.612" keeps three digits without rounding
    assert 0.612 <= ax.expected_random("f1", 100, 0) < 0.613
    # the other model -- every labeling equally likely -- does not give the paper's number
    assert round(ax.expected_random("f1", 100, 0, model="uniform"), 3) == 0.665
    assert ax.expected_random("k", 7, 3) == pytest.approx(0.0)


def test_seed004_families():
    props = ["strict_mon", "nonin_fixed", "nonin_growing", "abs_weighting"]
    profile = {
        m: verdicts(m, props)
        for m in [
            "utility",
            "weighted_accuracy",
            "lam",
            "mcc",
            "dor",
            "balanced_accuracy",
            "cohen_kappa",
            "chi",
            "mutual_information",
            "f1",
            "f_rs",
        ]
    }
    for m in ("utility", "weighted_accuracy"):
        assert profile[m]["abs_weighting"].holds is True
    for m in ("lam", "mcc", "dor", "balanced_accuracy", "cohen_kappa", "chi", "mutual_information"):
        assert profile[m]["nonin_fixed"].holds is True, m
        assert profile[m]["nonin_growing"].holds is False
    assert profile["f1"]["nonin_growing"].holds is True
    assert profile["f1"]["nonin_fixed"].holds is False
    for prop in ("nonin_fixed", "nonin_growing", "abs_weighting"):
        assert profile["f_rs"][prop].holds is False, prop
    assert profile["f1"]["strict_mon"].holds is False and profile["lam"]["strict_mon"].holds is False


def test_seed004_smoothing_and_strict_monotonicity():
    """Laplace restores strict monotonicity of F1 and LAM%. The non-informative prior does not:
    on a test set with no positive F1 stays 0, LAM% is undefined at the zero and placebo outputs,
    and even with both classes present F1 drops when the last false positive becomes a true
    negative (the smoothed recall uses P(S), which falls to 0)."""
    for m in ("f1", "lam"):
        assert verdicts(m, ["strict_mon"], smoothing="laplace")["strict_mon"].holds is True
    f1 = verdicts("f1", ["strict_mon"], smoothing="noninformative")["strict_mon"]
    assert f1.holds is False and f1.counterexample.startswith("(0, 1, 0, 0) -> (0, 0, 0, 1)")  # AP = 0
    lam = verdicts("lam", ["strict_mon"], smoothing="noninformative")["strict_mon"]
    assert lam.holds is False and "NaN" in lam.counterexample  # undefined values are written NaN
    space = ax.BinarySpace(ax.BinaryMeasure(registry.make_spec("f1"), "noninformative"), 10)
    C = space.C
    both = (C[:, 1, 1] + C[:, 1, 0] > 0) & (C[:, 0, 1] + C[:, 0, 0] > 0)
    found = engines.moves(space, engines.corrections(space), allowed=both, strict_defined=True)
    assert found[1] == "(0, 1, 1, 0) -> (0, 0, 1, 1) (fp -> tn): 0.333333 -> 0"
    assert fm.compute("f1", 0, 1, 1, 0, smoothing="noninformative") == pytest.approx(1 / 3)
    assert fm.compute("f1", 0, 0, 1, 1, smoothing="noninformative") == 0.0


TABLE3 = {
    2: {"accuracy", "balanced_accuracy", "f1", "cohen_kappa", "confusion_entropy", "gm", "mcc", "sba"},
    3: {"accuracy", "balanced_accuracy", "cohen_kappa", "gm", "mcc", "sba"},
    4: {"balanced_accuracy", "cohen_kappa", "gm", "mcc", "sba"},
    5: {"balanced_accuracy", "cohen_kappa", "gm", "mcc", "sba"},
    6: {"gm", "mcc", "sba"},
    7: {"gm", "mcc", "sba"},
    8: {"mcc", "sba"},
    9: set(),
    10: set(),
}
MEASURES3 = ["accuracy", "balanced_accuracy", "f1", "cohen_kappa", "confusion_entropy", "gm", "mcc", "sba"]


def _table3(n):
    pairs = ax.indistinguishable(MEASURES3, n)
    members = set().union(*pairs) if pairs else set()
    assert members == TABLE3[n], n
    # each listed set is one class of mutually indistinguishable measures
    assert len(pairs) == len(members) * (len(members) - 1) // 2


@pytest.mark.parametrize("n", range(2, 8))
def test_seed003_table3(n):
    _table3(n)


@pytest.mark.slow
@pytest.mark.parametrize("n", [8, 9, 10])
def test_seed003_table3_large(n):
    _table3(n)


@pytest.mark.slow
def test_key_claims_hold_at_larger_n():
    assert all(v.holds for v in ax.check("k", SEBASTIANI_2015, n_max=30))
    big = {m: verdicts(m, TABLE2_PROPS, n_max=20) for m in ("mcc", "sba", "gm(r=1)", "accuracy")}
    for m, v in big.items():
        for prop, mark in zip(TABLE2_PROPS, TABLE2[m]):
            assert v[prop].holds is (mark == "✓"), (m, prop)


def test_a_user_defined_measure_is_checked_like_a_registered_one():
    def youden(tp, fp, fn, tn):
        return tp / (tp + fn) + tn / (fp + tn) - 1.0

    ax.register_function("user_youden", youden, range=(-1.0, 1.0), summary="Youden's J, written by a user")
    try:
        assert fm.compute("user_youden", tp=3, fp=1, fn=1, tn=3) == pytest.approx(0.5)
        mine = {v.property: v.holds for v in ax.check("user_youden")}
        builtin = {v.property: v.holds for v in ax.check("informedness")}
        assert mine == builtin
        assert mine["MON"] is True and mine["SDE"] is False
    finally:
        registry.unregister("user_youden")


def test_cli_json_and_markdown(tmp_path):
    out = tmp_path / "profile.json"
    assert main(["axioms", "f1", "k", "--n-max", "6", "--format", "json", "--out", str(out)]) == 0
    records = json.loads(out.read_text())
    assert {tuple(sorted(r)) for r in records} == {
        ("counterexample", "holds", "measure", "note", "numeric", "property")
    }
    f1_mon = next(r for r in records if r["measure"] == "f1" and r["property"] == "MON")
    assert f1_mon["holds"] is False and "->" in f1_mon["counterexample"]
    md = tmp_path / "profile.md"
    assert main(["axioms", "sba", "--properties", "max,min,mon", "--out", str(md)]) == 0
    assert md.read_text().splitlines()[2] == "| sba | ✓ | ✓ | ✓ |"


def test_errors():
    with pytest.raises(fm.ParameterError, match="Unknown property"):
        ax.check("f1", ["MONO"])
    with pytest.raises(fm.ParameterError, match="n_max"):
        ax.check("f1", n_max=1)
    with pytest.raises(fm.UnknownMeasureError):
        ax.check("f2")
    assert not math.isnan(ax.expected_random("accuracy", 3, 4))
    assert np.isclose(ax.expected_random("accuracy", 3, 4), 0.5)


def test_docs_profile_rows_come_from_the_checker(capsys):
    """A few measures' rows and counterexamples of docs/axioms.md, each from the checker (the
    whole profile, every measure, is compared by the slow test below)."""
    from tests.conftest import REPO

    doc = (REPO / "docs" / "axioms.md").read_text(encoding="utf-8")
    checked = 0
    for argv in (["axioms", "f1", "jaccard", "balanced_accuracy"], ["axioms", "confusion_entropy", "--classes", "3"]):
        assert main([*argv, "--format", "md"]) == 0
        for line in capsys.readouterr().out.splitlines():
            if line.startswith(("| f1 ", "| jaccard ", "| balanced_accuracy ", "| confusion_entropy ", "- ")):
                assert line in doc, line
                checked += 1
    assert checked > 20


@pytest.mark.slow
def test_docs_profile_is_generated_from_the_checker(capsys):
    """docs/axioms.md ends with `fastmetrics axioms --format md`; regenerate it when measures change."""
    from tests.conftest import REPO

    doc = (REPO / "docs" / "axioms.md").read_text(encoding="utf-8")
    binary = "<!-- generated: fastmetrics axioms --format md -->\n"
    multiclass = "<!-- generated: fastmetrics axioms --classes 3 --format md -->\n"
    assert binary in doc and multiclass in doc
    assert main(["axioms"]) == 0
    section = doc.split(binary, 1)[1].split("\n## The multiclass profile", 1)[0]
    assert section == capsys.readouterr().out
    assert main(["axioms", "--classes", "3"]) == 0
    assert doc.split(multiclass, 1)[1] == capsys.readouterr().out
    for cell in FOUND:
        assert f"| {cell[0]} | {cell[1]}" in doc


# seed 003 Table 2, multiclass reading of the "✓/✗" cells (✗ in the multiclass case)
TABLE2_MULTICLASS = {
    "mcc": "✓✗✓✓✗✗✗✓✓",
    "accuracy": "✓✓✓✓✓✓✓✗✗",
    "balanced_accuracy": "✓✓✓✗✗✓✓✓✓",
    "cohen_kappa": "✓✗✓✓✗✗✗✓✓",
    "confusion_entropy": "✓✗✓✓✗✗✗✗✗",
    "sba": "✓✓✓✓✗✓✓✓✓",
}
FOUND_MULTICLASS = {
    ("balanced_accuracy", "mon"),
    ("balanced_accuracy", "smon"),
    ("sba", "smon"),
    ("confusion_entropy", "max"),
}


@pytest.mark.parametrize("measure", list(TABLE2_MULTICLASS))
def test_seed003_table2_multiclass(measure):
    got = {v.property: v for v in ax.check_multiclass(measure, m=3, n_max=5)}
    for prop, mark in zip(TABLE2_PROPS, TABLE2_MULTICLASS[measure]):
        expected = mark == "✓" and (measure, prop) not in FOUND_MULTICLASS
        assert got[prop].holds is expected, (measure, prop, got[prop])


def test_multiclass_counterexamples_recomputed():
    q = lambda m, c: float(fm.compute(m, counts=np.array(c, float), warn=False))  # noqa: E731
    assert q("sba", [[1, 0, 0], [0, 0, 1], [0, 1, 0]]) == q("sba", [[2, 0, 0], [0, 0, 1], [0, 1, 0]])
    assert q("balanced_accuracy", [[0, 1, 1], [0, 1, 0], [0, 0, 1]]) == pytest.approx(
        q("balanced_accuracy", [[0, 0, 1], [0, 2, 0], [0, 0, 1]])
    )


# --- the property registry -----------------------------------------------------------------------

IDS = [
    "MON",
    "CON",
    "SDE",
    "WDE",
    "FIX",
    "CHA",
    "CHA_uniform",
    "IMB",
    "SYM",
    "max",
    "min",
    "csym",
    "sym",
    "dist",
    "mon",
    "smon",
    "cb",
    "acb",
    "strict_mon",
    "nonin_fixed",
    "nonin_growing",
    "abs_weighting",
]


def test_property_ids_are_kept_and_each_record_says_whose_it_is():
    assert list(ax.PROPERTIES) == list(ax.REGISTRY) == IDS
    assert ax.MULTICLASS_PROPERTIES == tuple(TABLE2_PROPS)
    for pid, record in ax.REGISTRY.items():
        assert record.id == pid and record.seed in ax.AUTHORS and record.definition and callable(record.binary)
        assert ax.PROPERTIES[pid] == record.summary and record.summary.startswith(
            record.author.split(",")[0].split(" (")[0]
        )
        assert (record.multiclass is not None) == (pid in ax.MULTICLASS_PROPERTIES)
    assert ax.PROPERTIES["SYM"] == "Sebastiani (2015, Axiom 8): symmetry (class swap)"
    assert ax.PROPERTIES["CHA_uniform"] == "Sebastiani (2015, Axiom 6) with the uniform random labeling"
    sym, SYM = ax.REGISTRY["sym"], ax.REGISTRY["SYM"]
    assert (sym.seed, SYM.seed) == ("003", "000") and sym.title != SYM.title
    assert sym.binary.__name__ == "goesgens_sym" and SYM.binary.__name__ == "sebastiani_sym"


def test_register_function_lives_in_the_measures_registry():
    assert ax.register_function is registry.register_function


def test_the_enumerator_is_one_for_every_number_of_classes():
    from math import comb

    binary = ax.BinarySpace(ax.BinaryMeasure(registry.make_spec("f1")), 5).C
    assert len(binary) == sum(comb(n + 3, 3) for n in range(1, 6))
    assert {c.tobytes() for c in binary} == {c.tobytes() for c in ax.all_class_matrices(2, 5)}
    rows = ax.all_matrices(5)  # (tp, fp, fn, tn) rows, the same order
    assert np.array_equal(rows, np.stack([binary[:, 1, 1], binary[:, 0, 1], binary[:, 1, 0], binary[:, 0, 0]]))
    assert len(ax.all_class_matrices(3, 3)) == sum(comb(n + 8, 8) for n in range(1, 4))


def test_binary_and_multiclass_checks_share_one_definition():
    """Where a measure's multiclass definition equals its binary one on 2 x 2 matrices (MCC), the
    seed 003 verdicts of the binary checker and of check_multiclass(m=2) agree."""
    binary = {v.property: v.holds for v in ax.check("mcc", TABLE2_PROPS, n_max=6)}
    multi = {v.property: v.holds for v in ax.check_multiclass("mcc", m=2, n_max=6)}
    assert binary == multi
