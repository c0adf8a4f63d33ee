"""Confidence intervals per cell: Wilson and Jeffreys against statsmodels, the multinomial
bootstrap against scipy.stats.bootstrap on the items, and coverage by simulation."""

from __future__ import annotations

import warnings

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fastmetrics as fm
from fastmetrics import _threads
from fastmetrics.measures import _resample_kernels, intervals

proportion = pytest.importorskip("statsmodels.stats.proportion")
scipy_stats = pytest.importorskip("scipy.stats")


@pytest.fixture(autouse=True)
def _shared_draws_on_small_calls(monkeypatch):
    """The calls here are small: let them take the shared draw that large calls take."""
    monkeypatch.setattr(intervals, "_SHARED_VALUES", 0)


def _spy(function, calls):
    def spied(*args, **kwargs):
        calls.append(args)
        return function(*args, **kwargs)

    return spied


def _per_cell(monkeypatch):
    monkeypatch.setattr(intervals, "_SHARED_DRAWS_PER_CELL", 0)  # no size is shared: a draw per cell


PROPORTIONS = {
    "accuracy": ("tp+tn", "n"),
    "precision": ("tp", "tp+fp"),
    "recall": ("tp", "tp+fn"),
    "specificity": ("tn", "fp+tn"),
    "npv": ("tn", "fn+tn"),
    "error_rate": ("fp+fn", "n"),
    "fdr": ("fp", "tp+fp"),
    "fallout": ("fp", "fp+tn"),
}


def _counts(tp, fp, fn, tn):
    return np.array([[tn, fp], [fn, tp]])


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.tuples(*[st.integers(0, 40)] * 4), min_size=1, max_size=6),
    level=st.sampled_from([0.8, 0.9, 0.95, 0.99]),
    method=st.sampled_from(["wilson", "jeffreys"]),
)
def test_analytic_intervals_equal_statsmodels(cells, level, method):
    tensor = fm.ConfusionTensor(np.array([_counts(*c) for c in cells]), ["cell"])
    scores = tensor.evaluate(list(PROPORTIONS), ci=level, method=method)
    for i, (name, (num, den)) in enumerate(PROPORTIONS.items()):
        for j, (tp, fp, fn, tn) in enumerate(cells):
            env = {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "n": tp + fp + fn + tn}
            x, n = eval(num, {}, env), eval(den, {}, env)  # noqa: S307 - the fixed formulas above
            if n == 0:
                assert np.isnan(scores.low[i, j]) and np.isnan(scores.high[i, j])
                continue
            low, high = proportion.proportion_confint(x, n, alpha=1 - level, method=method)
            assert scores.low[i, j] == pytest.approx(low, abs=1e-12), (name, method)
            assert scores.high[i, j] == pytest.approx(high, abs=1e-12), (name, method)


def _items(tp, fp, fn, tn):
    gold = np.repeat([1, 0, 1, 0], [tp, fp, fn, tn])
    pred = np.repeat([1, 1, 0, 0], [tp, fp, fn, tn])
    return gold, pred


def _f1(gold, pred, axis=-1):
    tp = ((gold == 1) & (pred == 1)).sum(axis)
    return 2 * tp / (2 * tp + ((gold == 0) & (pred == 1)).sum(axis) + ((gold == 1) & (pred == 0)).sum(axis))


@pytest.mark.parametrize("counts", [(40, 10, 15, 135), (8, 3, 4, 25), (120, 30, 20, 330)])
def test_bootstrap_agrees_with_scipy_on_the_items(counts):
    gold, pred = _items(*counts)
    tensor = fm.ConfusionTensor(_counts(*counts)[None], ["cell"])
    scores = tensor.evaluate(["accuracy", "f1"], ci=0.9, resamples=4000, seed=1)
    for i, statistic in enumerate([lambda g, p, axis=-1: (g == p).mean(axis), _f1]):
        ref = scipy_stats.bootstrap(
            (gold, pred),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=4000,
            confidence_level=0.9,
            method="percentile",
            random_state=2,
        ).confidence_interval
        se = np.std([statistic(*_resample(gold, pred, s)) for s in range(300)])
        # two Monte-Carlo estimates of the same quantiles: within a fraction of the standard error
        assert abs(scores.low[i, 0] - ref.low) < 0.25 * se + 1e-9
        assert abs(scores.high[i, 0] - ref.high) < 0.25 * se + 1e-9


def _resample(gold, pred, seed):
    pick = np.random.default_rng(seed).integers(0, gold.size, gold.size)
    return gold[pick], pred[pick]


@pytest.mark.parametrize("path", ["shared", "per cell"])
def test_coverage_by_simulation(path, monkeypatch):
    """95 % intervals of accuracy, F1 and MCC on 1000 test sets of 200 items cover the true value
    (the measure on the population's confusion probabilities) at least 93 % of the time."""
    rng = np.random.default_rng(7)
    prevalence, tpr, fpr = 0.4, 0.8, 0.15
    p = np.array([(1 - prevalence) * (1 - fpr), (1 - prevalence) * fpr, prevalence * (1 - tpr), prevalence * tpr])
    draws = rng.multinomial(200, p, size=1000)  # tn, fp, fn, tp
    if path == "per cell":
        _per_cell(monkeypatch)
    tensor = fm.ConfusionTensor(draws.reshape(1000, 2, 2), ["test_set"])
    truth = fm.ConfusionTensor(p.reshape(1, 2, 2) * 1e6, ["x"]).evaluate(["accuracy", "f1", "mcc"]).values[:, 0]
    for method in ("bootstrap", "wilson"):
        names = ["accuracy", "f1", "mcc"] if method == "bootstrap" else ["accuracy"]
        scores = tensor.evaluate(names, ci=0.95, method=method, resamples=1000, seed=3)
        for i, name in enumerate(names):
            covered = (scores.low[i] <= truth[i]) & (truth[i] <= scores.high[i])
            assert covered.mean() >= 0.93, (method, name, covered.mean())


def test_same_seed_same_intervals_and_options_checked():
    tensor = fm.ConfusionTensor(np.array([_counts(20, 5, 7, 60), _counts(3, 1, 2, 9)]), ["cell"])
    a = tensor.evaluate(["f1", "mcc"], ci=0.9, seed=5).to_arrow()
    assert a.equals(tensor.evaluate(["f1", "mcc"], ci=0.9, seed=5).to_arrow())
    assert not a.equals(tensor.evaluate(["f1", "mcc"], ci=0.9, seed=6).to_arrow())
    assert a.column_names[-2:] == ["ci_low", "ci_high"]
    basic = tensor.evaluate("f1", ci=0.9, seed=5, interval="basic")
    percentile = tensor.evaluate("f1", ci=0.9, seed=5)
    np.testing.assert_allclose(basic.low, 2 * percentile.values - percentile.high)
    with pytest.raises(fm.ParameterError, match="ci"):
        tensor.evaluate("f1", ci=95)
    with pytest.raises(fm.ParameterError, match="f1 is not one"):
        tensor.evaluate("f1", ci=0.95, method="wilson")
    with pytest.raises(fm.ParameterError, match="resamples"):
        tensor.evaluate("f1", ci=0.95, resamples=3)
    with pytest.raises(fm.ParameterError, match="method"):
        tensor.evaluate("f1", ci=0.95, method="bca")
    table = pa.table(
        {"system": [0] * 6, "item": range(6), "gold": [True, False] * 3, "score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]}
    )
    sweep = fm.count(table, by="system", thresholds="exact")
    with pytest.raises(fm.ParameterError, match="ranked_ap"):  # a ranking measure's interval is refused
        fm.count(table, by="system", thresholds="ranks").evaluate("ranked_ap", ci=0.95)
    auc = sweep.evaluate("roc_auc", ci=0.95, resamples=200)  # a curve measure's: the items' bootstrap
    assert auc.values[0, 0] == pytest.approx(1 / 3) and auc.low[0, 0] <= 1 / 3 <= auc.high[0, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.one_of(st.integers(10, 400), st.integers(512, 3000)),  # below and beyond the pilot's reach
    st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]),
    st.sampled_from(["normal", "few", "skewed"]),
    st.sampled_from(["kernel", "numpy"]),
)
def test_quantiles_equal_numpy(seed, resamples, level, shape, path):
    rng = np.random.default_rng(seed)
    if shape == "normal":  # ties, an inf and some undefined rows among continuous values
        values = rng.choice(np.r_[rng.normal(size=6), 0.0, 1.0, np.inf], size=(30, resamples))
        values[:, : resamples // 2] = rng.normal(size=(30, resamples // 2))
    elif shape == "few":  # a handful of values: order statistics inside long runs of ties
        values = rng.integers(0, rng.integers(1, 5, (30, 1)) + 1, (30, resamples)) / 4
    else:  # a long tail beyond the pilot: its bounds miss, the whole row is read
        values = rng.standard_exponential((30, resamples)) ** 4 * rng.choice([-1, 1], (30, 1))
    values[rng.random((30, resamples)) < 0.05 * rng.integers(0, 2, (30, 1))] = np.nan  # some rows undefined
    values[0] = np.nan
    values[1, : max(1, resamples - 300)] = np.nan  # fewer defined values than the pilot
    q = np.array([(1 - level) / 2, (1 + level) / 2])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        expected = np.nanquantile(values, q, axis=1)
        if path == "kernel":
            mine = np.empty((2, values.shape[0]))
            _resample_kernels.row_quantiles(values, q, mine)
        else:
            mine = intervals._partition_quantiles(values, q)
    np.testing.assert_array_equal(mine, expected)  # the same order statistics, numpy's interpolation


@pytest.mark.parametrize("side", ["low", "high"])
def test_quantile_kernel_reads_the_whole_row_when_the_candidates_end_at_the_order_statistic(side):
    """2000 values, q = 0.025: order statistics 49 and 50 are read. A pilot (the first 128
    values) whose 11th least is 49 puts exactly 50 values (0 .. 49) below the filter bound: the
    candidates hold statistic 49 but not 50, so the row must be read whole."""
    rng = np.random.default_rng(0)
    pilot = np.r_[np.arange(10), 49, np.arange(1000, 1117)]
    rest = np.setdiff1d(np.arange(2000), pilot)
    row = np.r_[rng.permutation(pilot), rng.permutation(rest)].astype(np.float64)
    values = (row if side == "low" else -row)[None]
    q = np.array([0.025, 0.975])
    mine = np.empty((2, 1))
    _resample_kernels.row_quantiles(values, q, mine)
    np.testing.assert_array_equal(mine[:, 0], np.quantile(values[0], q))


def _sweep(n_groups=6, n_items=60, thresholds=7, seed=0):
    """Counts of a threshold sweep from items: [group, threshold, 2, 2], rising thresholds."""
    rng = np.random.default_rng(seed)
    gold = rng.random((n_groups, n_items)) < 0.3
    score = rng.normal(size=(n_groups, n_items)) + gold
    grid = np.linspace(-1.5, 2.5, thresholds)
    predicted = score[:, None, :] >= grid[None, :, None]
    counts = np.empty((n_groups, thresholds, 2, 2), np.int64)
    for i, truth in enumerate((~gold, gold)):
        counts[:, :, i, 1] = (predicted & truth[:, None, :]).sum(axis=2)
        counts[:, :, i, 0] = truth.sum(axis=1)[:, None] - counts[:, :, i, 1]
    return counts


def _shared(counts, resamples, key=11):
    """The replicates ``[cell, resample, m, m]`` the shared draw gives cells of one size."""
    flat = counts.reshape(len(counts), -1)
    n = int(flat[0].sum())
    prefix = np.empty((n + 1, resamples), np.int32)
    _resample_kernels.item_prefix(np.uint64(key), prefix)
    ends = np.zeros((len(flat), flat.shape[1] + 1), np.int64)
    np.cumsum(flat, axis=1, out=ends[:, 1:])
    return intervals._shared_draws(prefix, ends, counts.shape[-1]).astype(np.int64)


def _chi_square_multinomial(draws, counts):
    """Replicates of one cell against the exact Multinomial(n, counts / n) pmf."""
    n, flat = counts.sum(), counts.reshape(-1)
    outcomes, observed = np.unique(draws.reshape(len(draws), -1), axis=0, return_counts=True)
    pmf = scipy_stats.multinomial.pmf(outcomes, n, flat / n)
    assert pmf.sum() == pytest.approx(1.0, abs=0.01)  # (nearly) every outcome seen
    return scipy_stats.chisquare(observed, pmf / pmf.sum() * len(draws)).pvalue


def test_shared_replicates_are_each_cells_multinomial():
    """Cells of n items read from one draw of n items' weights: every cell's replicates follow
    Multinomial(n, counts / n) (chi-square against the exact pmf), binary and 3 x 3."""
    counts = _sweep(n_groups=1, n_items=7, thresholds=4, seed=3)[0]
    draws = _shared(counts, 40_000)
    for cell in range(len(counts)):
        assert _chi_square_multinomial(draws[cell], counts[cell]) > 1e-3, cell
    classes = np.array([[[2, 0, 1], [0, 1, 0], [1, 0, 1]], [[0, 0, 0], [3, 0, 0], [0, 0, 3]]])
    draws = _shared(classes, 40_000, key=5)
    for cell in range(2):
        assert _chi_square_multinomial(draws[cell], classes[cell]) > 1e-3, cell


def test_cells_spread_evenly_over_the_shared_tables():
    """The tables are picked by a hash of the counts: 6400 distinct cells -- neighbours along
    sweeps, nearly equal counts -- fall on the 64 tables evenly, neighbours mostly apart."""
    counts = _sweep(n_groups=100, n_items=300, thresholds=101, seed=4).reshape(-1, 4)
    counts = np.unique(counts, axis=0)[:6400]
    table = intervals._table_of(counts)
    assert table.min() == 0 and table.max() == intervals._TABLES - 1
    assert scipy_stats.chisquare(np.bincount(table, minlength=intervals._TABLES)).pvalue > 1e-3
    assert (table[1:] != table[:-1]).mean() > 0.95  # lexicographic neighbours: nearly equal counts


def test_a_shared_interval_is_its_tables_replicates_quantiles():
    """End to end: a cell's interval is np.nanquantile of the measure on the replicates read
    from the table its counts pick, whose weights come from the seed's key for that table."""
    counts = _sweep(n_groups=4, n_items=50, thresholds=9, seed=6)
    scores = fm.ConfusionTensor(counts, ("group", "threshold")).evaluate("accuracy", ci=0.9, resamples=500, seed=7)
    keys = np.random.SeedSequence(7).generate_state(intervals._TABLES, np.uint64)
    flat = counts.reshape(-1, 4)
    tables = intervals._table_of(flat)
    assert np.unique(tables).size > 10  # the cells read many tables
    for cell in (0, 13, 35):
        prefix = np.empty((51, 500), np.int32)
        _resample_kernels.item_prefix(keys[tables[cell]], prefix)
        tn, fp, fn, tp = (prefix[e + c] - prefix[e] for e, c in zip(np.cumsum(np.r_[0, flat[cell][:3]]), flat[cell]))
        expected = np.nanquantile((tp + tn) / 50, [0.05, 0.95])
        np.testing.assert_allclose([scores.low[0].reshape(-1)[cell], scores.high[0].reshape(-1)[cell]], expected)


def test_shared_replicates_of_more_than_65536_items():
    """Beyond 2**16 items a draw takes 32 bits (two a step): the replicates' means and
    variances are the multinomial's."""
    n = 70_001
    counts = np.array([[[n // 2, n // 4], [n // 8, n - n // 2 - n // 4 - n // 8]], [[n // 3, 5], [n - n // 3 - 7, 2]]])
    resamples = 400
    draws = _shared(counts, resamples, key=3)
    for cell in range(2):
        p = counts[cell] / n
        assert (draws[cell].sum(axis=(1, 2)) == n).all()
        z = (draws[cell].mean(axis=0) - n * p) / np.sqrt(n * p * (1 - p) / resamples)
        assert np.abs(z).max() < 4.5, z
        np.testing.assert_allclose(draws[cell].var(axis=0), n * p * (1 - p), rtol=0.3)


def test_shared_intervals_agree_with_per_cell_intervals(monkeypatch):
    counts = _sweep(n_groups=4, n_items=80, thresholds=9, seed=5)
    names = ["accuracy", "f1", "mcc"]
    tensor = fm.ConfusionTensor(counts, ("group", "threshold"))
    shared = tensor.evaluate(names, ci=0.9, resamples=4000, seed=1)
    _per_cell(monkeypatch)
    cells = tensor.evaluate(names, ci=0.9, resamples=4000, seed=1)
    np.testing.assert_array_equal(np.isnan(shared.low), np.isnan(cells.low))
    # two Monte-Carlo estimates of the same quantiles, on 80 items: within a few replicates' steps
    assert np.nanmax(np.abs(shared.low - cells.low)) < 0.08
    assert np.nanmedian(np.abs(shared.high - cells.high)) < 0.01
    assert not np.array_equal(shared.low, cells.low, equal_nan=True)  # the paths differ


def test_on_the_shared_path_a_cells_interval_depends_on_its_counts_only(monkeypatch):
    """Shared draws: a cell's interval is the same in any layout, chunking, slice or company
    and for any type of whole counts -- equal cells have equal intervals wherever they are."""
    counts = _sweep(n_groups=5, n_items=40, thresholds=12, seed=2)
    names = ["precision", "mcc"]
    base = fm.ConfusionTensor(counts, ("group", "threshold")).evaluate(names, ci=0.95, resamples=300, seed=4)
    flat = counts.reshape(-1, 4)
    _, first, back = np.unique(flat, axis=0, return_index=True, return_inverse=True)
    low = base.low.reshape(2, -1)
    np.testing.assert_array_equal(low, low[:, first][:, back.reshape(-1)])
    assert len(first) < len(flat)  # (the sweep has equal cells)
    falling = fm.ConfusionTensor(counts[:, ::-1], ("group", "threshold")).evaluate(
        names, ci=0.95, resamples=300, seed=4
    )
    np.testing.assert_array_equal(falling.low[:, :, ::-1], base.low)
    first_axis = fm.ConfusionTensor(counts.transpose(1, 0, 2, 3), ("threshold", "group"))
    np.testing.assert_array_equal(
        first_axis.evaluate(names, ci=0.95, resamples=300, seed=4).high, base.high.transpose(0, 2, 1)
    )
    for kind in (np.uint8, np.uint64, np.int32, np.float64):
        typed = fm.ConfusionTensor(counts.astype(kind), ("group", "threshold"))
        np.testing.assert_array_equal(typed.evaluate(names, ci=0.95, resamples=300, seed=4).low, base.low)
    others = np.concatenate([counts[2:4], _sweep(n_groups=3, n_items=40, thresholds=12, seed=8)])
    company = fm.ConfusionTensor(others, ("group", "threshold")).evaluate(names, ci=0.95, resamples=300, seed=4)
    np.testing.assert_array_equal(company.low[:, :2], base.low[:, 2:4])
    monkeypatch.setattr(intervals, "_SHARED_CHUNK_VALUES", 1)  # a chunk a cell, on 4 threads
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 4)
    chunked = fm.ConfusionTensor(counts, ("group", "threshold")).evaluate(names, ci=0.95, resamples=300, seed=4)
    np.testing.assert_array_equal(chunked.low, base.low)
    np.testing.assert_array_equal(chunked.high, base.high)


def test_sizes_few_cells_share_weighted_counts_large_tables_and_small_calls_draw_per_cell(monkeypatch):
    """A size shared by too few cells for its draw to pay, a table beyond its cap, weighted
    counts and a call too small to pay the shared draw's compile take a multinomial per cell;
    several sizes and paths mix in one call."""
    counts = _sweep(n_groups=3, n_items=30, thresholds=5, seed=1).reshape(-1, 2, 2)
    lone = np.array([[[500, 120], [80, 300]]])  # n = 1000 > 75 x 1 cell x 3 categories
    names = ["f1", "mcc"]

    def bounds(c, **patch):
        with monkeypatch.context() as patched:
            for name, value in patch.items():
                patched.setattr(intervals, name, value)
            return fm.ConfusionTensor(c, ("cell",)).evaluate(names, ci=0.9, resamples=200, seed=2).low

    per_cell = {"_SHARED_DRAWS_PER_CELL": 0}
    got = bounds(np.concatenate([counts, lone]))
    np.testing.assert_array_equal(got[:, :-1], bounds(counts))
    assert not np.array_equal(got[:, :-1], bounds(counts, **per_cell))
    np.testing.assert_array_equal(got[:, -1:], bounds(lone, **per_cell))  # the lone size drew its own
    np.testing.assert_array_equal(bounds(counts, _PREFIX_VALUES=31 * 200 - 1), bounds(counts, **per_cell))
    np.testing.assert_array_equal(bounds(counts, _SHARED_VALUES=len(counts) * 200 + 1), bounds(counts, **per_cell))
    weights = counts + np.random.default_rng(8).random(counts.shape) / 4  # no positions to lay out
    weighted = fm.ConfusionTensor(weights, ("cell",), squares=weights / 2)  # Kish: n_eff = 2 x the weights' sum
    assert np.isfinite(weighted.evaluate(names, ci=0.9, resamples=200, seed=2).low[0]).all()
    for huge in (np.full((2, 2, 2), 2**61), np.full((1, 2, 2), 2**63, np.uint64)):  # totals beyond int64
        with pytest.raises(fm.InputError, match=r"cell \(0,\) holds .*2\*\*62.*wilson"):
            fm.ConfusionTensor(huge, ("cell",)).evaluate("f1", ci=0.9, resamples=20)
    empty = fm.ConfusionTensor(np.ones((4, 0, 2, 2), np.int64), ("group", "threshold"))
    assert empty.evaluate("f1", ci=0.9, resamples=20).low.shape == (1, 4, 0)


@pytest.mark.parametrize("path", ["shared", "per cell"])
def test_sweep_coverage_by_simulation(path, monkeypatch):
    """95 % intervals of accuracy and F1 at every threshold of 1000 simulated sweeps of 200
    items cover the population's value at least 92 % of the time (3.8 standard errors below
    95 %: a seed's luck does not decide it)."""
    if path == "per cell":
        _per_cell(monkeypatch)
    rng = np.random.default_rng(12)
    n_sets, n_items, grid = 1000, 200, np.array([-0.5, 0.25, 1.0])
    gold = rng.random((n_sets, n_items)) < 0.4
    score = rng.normal(size=(n_sets, n_items)) + 1.2 * gold
    predicted = score[:, None, :] >= grid[None, :, None]
    counts = np.empty((n_sets, grid.size, 2, 2), np.int64)
    for i, truth in enumerate((~gold, gold)):
        counts[:, :, i, 1] = (predicted & truth[:, None, :]).sum(axis=2)
        counts[:, :, i, 0] = truth.sum(axis=1)[:, None] - counts[:, :, i, 1]
    tpr, fpr = scipy_stats.norm.sf(grid - 1.2), scipy_stats.norm.sf(grid)
    population = np.stack([0.6 * (1 - fpr), 0.6 * fpr, 0.4 * (1 - tpr), 0.4 * tpr], axis=1).reshape(-1, 2, 2)
    truth = fm.ConfusionTensor(population, ("threshold",)).evaluate(["accuracy", "f1"]).values
    scores = fm.ConfusionTensor(counts, ("test_set", "threshold")).evaluate(
        ["accuracy", "f1"], ci=0.95, resamples=1000, seed=3
    )
    covered = (scores.low <= truth[:, None, :]) & (truth[:, None, :] <= scores.high)
    assert (covered.mean(axis=1) >= 0.92).all(), covered.mean(axis=1)


@pytest.mark.parametrize("path", ["shared", "per cell"])
def test_intervals_do_not_depend_on_the_thread_count(path, monkeypatch):
    if path == "per cell":
        _per_cell(monkeypatch)
    rng = np.random.default_rng(3)
    # one size with many cells (the shared tables, ~31 cells each) and sizes of one cell each
    counts = np.concatenate([rng.multinomial(40, [0.4, 0.1, 0.2, 0.3], 2000), rng.integers(0, 40, (300, 4))])
    tensor = fm.ConfusionTensor(counts.reshape(-1, 2, 2), ("cell",))
    monkeypatch.setattr(intervals, "_CHUNK_VALUES", 20 * 100)  # 20 cells a chunk
    monkeypatch.setattr(intervals, "_SHARED_CHUNK_VALUES", 2 * 100)  # 2 cells a chunk: ~16 chunks a table
    shared = []
    monkeypatch.setattr(intervals, "_shared_bounds", _spy(intervals._shared_bounds, shared))
    filters = list(warnings.filters)
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 4)  # threads even on a one-core runner
    several = tensor.evaluate(["f1", "mcc"], ci=0.95, resamples=100, seed=4)
    assert warnings.filters == filters  # set and restored around the threads, not inside them
    monkeypatch.setattr(_threads.numba, "get_num_threads", lambda: 1)  # every chunk on this thread
    one = tensor.evaluate(["f1", "mcc"], ci=0.95, resamples=100, seed=4)
    np.testing.assert_array_equal(several.low, one.low)
    np.testing.assert_array_equal(several.high, one.high)
    assert bool(shared) == (path == "shared")
    empty = fm.ConfusionTensor(np.zeros((0, 2, 2), np.int64), ("cell",)).evaluate("f1", ci=0.9, resamples=10)
    assert empty.low.shape == (1, 0)


def test_quantile_kernel_and_numpy_give_the_same_intervals(monkeypatch):
    tensor = fm.ConfusionTensor(_sweep(n_groups=3, n_items=50, thresholds=6, seed=9), ("group", "threshold"))
    names = ["accuracy", "precision", "mcc"]
    for shared in (True, False):
        if not shared:
            _per_cell(monkeypatch)
        monkeypatch.setattr(intervals, "_KERNEL_QUANTILES", 1 << 40)
        by_numpy = tensor.evaluate(names, ci=0.9, resamples=700, seed=2)
        monkeypatch.setattr(intervals, "_KERNEL_QUANTILES", 0)
        by_kernel = tensor.evaluate(names, ci=0.9, resamples=700, seed=2)
        np.testing.assert_array_equal(by_kernel.low, by_numpy.low)
        np.testing.assert_array_equal(by_kernel.high, by_numpy.high)
