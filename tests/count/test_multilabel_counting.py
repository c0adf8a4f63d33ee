"""Multilabel counting and measures (seed 001 §4) against scikit-learn and written-out formulas."""

import itertools
import math
import warnings

import numpy as np
import pyarrow as pa
import pytest
from sklearn import metrics
from sklearn.preprocessing import MultiLabelBinarizer

import fastmetrics as fm

CATS = ["arts", "cars", "food", "law", "news", "sport"]


def _sets(seed, n=300, k=len(CATS), max_labels=3):
    rng = np.random.default_rng(seed)
    gold, pred = [], []
    for _ in range(n):
        g = list(rng.choice(CATS[:k], size=rng.integers(0, max_labels + 1), replace=False))
        keep = [c for c in g if rng.random() < 0.6]
        extra = list(rng.choice(CATS[:k], size=rng.integers(0, 2), replace=False))
        gold.append(g)
        pred.append(sorted(set(keep + extra)))
    return gold, pred


def _binarize(gold, pred):
    mlb = MultiLabelBinarizer(classes=sorted(set().union(*gold, *pred)))
    return mlb.fit_transform(gold), mlb.transform(pred), list(mlb.classes_)


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@pytest.fixture(scope="module")
def data():
    gold, pred = _sets(0)
    table = pa.table({"item": range(len(gold)), "gold": gold, "pred": pred})
    return gold, pred, fm.count(table)


def test_per_category_counts_equal_scikit_learn(data):
    gold, pred, t = data
    Y, P, classes = _binarize(gold, pred)
    assert isinstance(t, fm.MultilabelTensor) and list(t.categories) == classes
    expected = metrics.multilabel_confusion_matrix(Y, P)  # [[tn, fp], [fn, tp]] per category
    assert np.array_equal(t.counts, expected)


@pytest.mark.parametrize("average", ["micro", "macro", "weighted", "samples"])
@pytest.mark.parametrize(
    "name, oracle", [("precision", metrics.precision_score), ("recall", metrics.recall_score), ("f1", metrics.f1_score)]
)
def test_averages_match_scikit_learn(data, average, name, oracle):
    """samples: per-object means over the objects where defined = scikit-learn's zero_division=nan."""
    gold, pred, t = data
    Y, P, _ = _binarize(gold, pred)
    expected = _quiet(oracle, Y, P, average=average, zero_division=np.nan if average == "samples" else 0.0)
    got = t.evaluate([name], average=average, undefined=0.0 if average != "samples" else None)
    assert float(got.values[0]) == pytest.approx(expected, abs=1e-12)


def test_micro_is_the_default_and_equals_seed_001_sums(data):
    gold, pred, t = data
    both = sum(len(set(g) & set(p)) for g, p in zip(gold, pred))
    s = t.evaluate(["precision", "recall"])
    assert s["precision"] == pytest.approx(both / sum(len(set(p)) for p in pred))
    assert s["recall"] == pytest.approx(both / sum(len(set(g)) for g in gold))


def _mi_bits(x, y):
    return metrics.mutual_info_score(x, y) / math.log(2)


def _entropy_bits(x):
    p = np.bincount(x) / len(x)
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def test_proficiency_written_out(data):
    """alpha = sum_i I(Pc_i; Ac_i) / sum_i H(Ac_i), seed 001 §4.3."""
    gold, pred, t = data
    Y, P, _ = _binarize(gold, pred)
    expected = sum(_mi_bits(Y[:, i], P[:, i]) for i in range(Y.shape[1])) / sum(
        _entropy_bits(Y[:, i]) for i in range(Y.shape[1])
    )
    assert float(t.evaluate(["proficiency"]).values[0]) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_permuted_proficiency_is_the_best_permutation(seed):
    """alpha' by brute force over every one-to-one matching of predicted to gold categories."""
    gold, pred = _sets(seed, n=120, k=5)
    t = fm.count(pa.table({"gold": gold, "pred": pred}), classes=CATS[:5])
    Y, P = (MultiLabelBinarizer(classes=CATS[:5]).fit_transform(x) for x in (gold, pred))
    h = sum(_entropy_bits(Y[:, i]) for i in range(5))
    info = np.array([[_mi_bits(Y[:, i], P[:, j]) for j in range(5)] for i in range(5)])
    best = max(sum(info[i, perm[i]] for i in range(5)) for perm in itertools.permutations(range(5)))
    s = t.evaluate(["proficiency", "permuted_proficiency"])
    assert s["permuted_proficiency"] == pytest.approx(best / h, abs=1e-12)
    assert s["permuted_proficiency"] >= s["proficiency"] - 1e-15


def test_permuted_proficiency_detects_relabelling():
    """A labeler who uses the wrong names consistently: alpha is low, alpha' is 1 (seed 001 §4.3)."""
    gold, _ = _sets(5, n=200)
    rename = dict(zip(CATS, CATS[1:] + CATS[:1]))
    pred = [[rename[c] for c in g] for g in gold]
    s = fm.count(pa.table({"gold": gold, "pred": pred})).evaluate(["proficiency", "permuted_proficiency"])
    assert s["permuted_proficiency"] == pytest.approx(1.0)
    assert s["proficiency"] < 0.2


def test_groups_long_form_and_duplicates():
    gold, pred = _sets(7, n=240)
    system = [f"s{i % 3}" for i in range(240)]
    table = pa.table({"system": system, "item": range(240), "gold": gold, "pred": pred})
    t = fm.count(table)
    assert t.axes == ("system", "category")
    for s in ("s0", "s1", "s2"):
        rows = [i for i in range(240) if system[i] == s]
        one = fm.count(
            pa.table({"gold": [gold[i] for i in rows], "pred": [pred[i] for i in rows]}), classes=list(t.categories)
        )
        assert np.array_equal(t.sel(system=s).counts, one.counts)
        assert t.sel(system=s).evaluate(["permuted_proficiency"]).values[0] == pytest.approx(
            one.evaluate(["permuted_proficiency"]).values[0]
        )
    # long form: one row per (item, category) with gold/pred flags
    long = {"system": [], "item": [], "category": [], "gold": [], "pred": []}
    for i in range(240):
        for c in sorted(set(gold[i]) | set(pred[i])):
            for key, value in (
                ("system", system[i]),
                ("item", i),
                ("category", c),
                ("gold", c in gold[i]),
                ("pred", c in pred[i]),
            ):
                long[key].append(value)
    t_long = fm.count(pa.table(long), category="category")
    assert np.array_equal(t_long.counts[..., 1, 1], t.counts[..., 1, 1])
    assert np.array_equal(t_long.counts[..., 0, 1], t.counts[..., 0, 1])
    # items with no category at all exist only in list form: they add true negatives there
    assert np.all(t_long.counts[..., 0, 0] <= t.counts[..., 0, 0])
    dup = fm.count(pa.table({"gold": [["a", "a", "b"]], "pred": [["a", "a"]]}))
    assert dup.counts[..., 1, 1].tolist() == [1, 0]


def test_multilabel_errors():
    with pytest.raises(fm.InputError, match="missing \\(null\\) list at row 1"):
        fm.count(pa.table({"gold": [["a"], None], "pred": [["a"], []]}))
    with pytest.raises(fm.InputError, match="needs a list of categories"):
        fm.count(pa.table({"gold": ["a", "b"], "pred": ["a", "b"]}), task="multilabel")
    with pytest.raises(fm.ParameterError, match="samples"):
        fm.count(pa.table({"gold": [["a"]], "pred": [["a"]]})).evaluate(["mcc"], average="samples")
