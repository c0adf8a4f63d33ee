"""Distributed counting on a LocalCluster of 2 worker processes equals fm.count exactly."""

import os
import subprocess
import sys
import threading
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastmetrics as fm

distributed = pytest.importorskip("distributed")
fmd = pytest.importorskip("fastmetrics.dask")


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0")
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _data(n=80_000, seed=0):
    rng = np.random.default_rng(seed)
    return pa.table(
        {
            "system": [f"s{i}" for i in rng.integers(0, 5, n)],
            "topic": rng.integers(0, 7, n),
            "item": np.arange(n),
            "gold": rng.random(n) < 0.3,
            "pred": rng.random(n) < 0.4,
            "score": rng.random(n),
            "label": np.array(list("abcd"))[rng.integers(0, 4, n)],
            "guess": np.array(list("abcde"))[rng.integers(0, 5, n)],
        }
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    path = tmp_path_factory.mktemp("parts")
    table = _data()
    for i in range(8):
        pq.write_table(table.slice(i * 10_000, 10_000), path / f"part-{i}.parquet")
    return str(path)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"thresholds": 11}, {"thresholds": [0.1, 0.5, 0.9]}, {"pred": "guess", "gold_column": "label"}],
    ids=["hard", "binned-k", "binned-array", "multiclass"],
)
def test_counts_equal_in_process_counting(client, folder, kwargs):
    distributed_ = fmd.count(folder, client=client, **kwargs)
    local = fm.count(folder, **kwargs)
    assert distributed_.axes == local.axes
    assert np.array_equal(distributed_.counts, local.counts)
    for name in local.coords:
        assert list(distributed_.coords[name]) == list(local.coords[name])
    assert list(distributed_.classes) == list(local.classes)


def test_dask_dataframe_input_and_gold_join(client, tmp_path):
    import dask.dataframe as dd

    rng = np.random.default_rng(1)
    topic, item = (x.reshape(-1) for x in np.indices((3, 200)))
    gold = pa.table({"topic": topic, "item": item, "gold": rng.random(600) < 0.3})
    runs = pa.table(
        {
            "system": np.repeat([f"s{i}" for i in range(4)], 600),
            "topic": np.tile(topic, 4),
            "item": np.tile(item, 4),
            "pred": rng.random(2400) < 0.4,
        }
    )
    lacking = runs.filter(
        pa.compute.invert(
            pa.compute.and_(  # s2 lacks (topic 1, item 7)
                pa.compute.equal(runs.column("system"), "s2"),
                pa.compute.and_(pa.compute.equal(runs.column("topic"), 1), pa.compute.equal(runs.column("item"), 7)),
            )
        )
    )
    frame = dd.from_pandas(lacking.to_pandas(), npartitions=4)
    for missing in ("negative", "drop"):
        got = fmd.count(frame, gold=gold, client=client, missing=missing)
        want = fm.count(lacking, gold=gold, missing=missing)
        assert np.array_equal(got.counts, want.counts), missing
    with pytest.raises(fm.InputError, match="Run 's2' lacks 1 of the 600 gold item.*topic 1, item 7"):
        fmd.count(frame, gold=gold, client=client)


def _same_cells(got, want):
    assert got.axes == want.axes == ("cell",)
    assert np.array_equal(got.counts, want.counts)
    for name in want.coords:
        assert np.array_equal(np.asarray(got.coords[name]), np.asarray(want.coords[name])), name


@pytest.mark.parametrize("by", [("system", "topic"), ("system",)], ids=["per-topic", "topics-pooled"])
def test_exact_sweeps_equal_in_process_sweeps(client, folder, by):
    _same_cells(
        fmd.count(folder, thresholds="exact", by=by, client=client), fm.count(folder, thresholds="exact", by=by)
    )


def test_exact_sweep_with_a_separate_gold_and_missing_items(client):
    import dask.dataframe as dd

    rng = np.random.default_rng(3)
    topic, item = (x.reshape(-1) for x in np.indices((5, 60)))
    gold = pa.table({"topic": topic, "item": item, "gold": rng.random(300) < 0.4})
    runs = pa.table(
        {
            "system": np.repeat(["a", "b", "c"], 300),
            "topic": np.tile(topic, 3),
            "item": np.tile(item, 3),
            "score": rng.integers(0, 20, 900) / 4,
        }
    )  # ties
    runs = runs.filter(pa.array(rng.random(900) > 0.05))  # every run lacks a few items
    frame = dd.from_pandas(runs.to_pandas(), npartitions=3)
    for missing in ("negative", "drop"):
        got = fmd.count(frame, gold=gold, thresholds="exact", missing=missing, client=client)
        _same_cells(got, fm.count(runs, gold=gold, thresholds="exact", missing=missing))
        assert np.allclose(
            got.evaluate("roc_auc").values,
            fm.count(runs, gold=gold, thresholds="exact", missing=missing).evaluate("roc_auc").values,
            equal_nan=True,
        )
    with pytest.raises(fm.InputError, match=r"lacks"):
        fmd.count(frame, gold=gold, thresholds="exact", client=client)
    doubled = dd.from_pandas(pa.concat_tables([runs, runs.slice(0, 1)]).to_pandas(), npartitions=3)
    with pytest.raises(fm.InputError, match=r"(?i)duplicat"):
        fmd.count(doubled, gold=gold, thresholds="exact", missing="negative", client=client)


@pytest.mark.parametrize(
    "spell",
    [lambda t: f"LA0101{t:02d}-0001", lambda t: f"{t:04d}-LA010189", lambda t: f"doc{t}_7", lambda t: 1000 * t + 7],
    ids=["counter-last", "counter-first", "doc-topic", "integers"],
)
def test_an_exact_sweep_deals_the_topics_evenly_whatever_their_spelling(client, spell):
    """Each topic's rows land in one partition, and 8 partitions get 2 or 3 of 20 topics each
    (Dask's own shuffle, by a hash of the topic, gave these partitions of 0 to 6 topics)."""
    import dask.dataframe as dd

    from fastmetrics.count.encoders import Encoder

    topics = [spell(t) for t in range(20)]
    rows = pa.table({"topic": np.repeat(topics, 50), "score": np.arange(1000) / 7.0})
    frame = dd.from_pandas(rows.to_pandas(), npartitions=8)
    labels = pa.array(sorted(topics))
    parts = client.gather(client.compute(fmd.dealt(frame, Encoder("topic", labels), "topic").to_delayed()))
    held = [set(p["topic"]) for p in parts]
    assert sorted(len(h) for h in held) == [2] * 4 + [3] * 4
    assert sum(len(p) for p in parts) == 1000 and set().union(*held) == set(topics)


def test_a_worker_killed_mid_job_does_not_change_the_counts(client, tmp_path):
    table = _data(1_600_000, seed=2)
    for i in range(8):
        pq.write_table(table.slice(i * 200_000, 200_000), tmp_path / f"part-{i}.parquet")
    expected = fm.count(str(tmp_path), thresholds=51)
    killed = []

    def killer():
        deadline = time.time() + 60
        while time.time() < deadline and not killed:
            processing = client.processing()
            for address, keys in processing.items():
                if any("_count_partition" in str(k) for k in keys):
                    try:
                        client.run(os._exit, 1, workers=[address])
                    except Exception:  # the worker dies while answering: expected
                        pass
                    killed.append(address)
                    return
            time.sleep(0.005)

    thread = threading.Thread(target=killer)
    thread.start()
    got = fmd.count(str(tmp_path), thresholds=51, client=client)
    thread.join()
    assert killed, "the job finished before a worker could be killed"
    assert np.array_equal(got.counts, expected.counts)


def test_importing_fastmetrics_does_not_import_dask():
    code = "import sys, fastmetrics; fastmetrics.count; print('dask' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_cli_scheduler_gives_the_same_table(folder, tmp_path):
    from fastmetrics.cli import main

    outputs = []
    for extra in ([], ["--scheduler", "local:2"]):
        out = tmp_path / f"board{len(extra)}.csv"
        assert main(["leaderboard", folder, "--measures", "f1,mcc,k", "--no-baselines", "--out", str(out)] + extra) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert main(["meta", "stability", folder, "--scheduler", "local:2"]) == 2


@pytest.fixture(scope="module")
def renamed(tmp_path_factory):
    """The folder's data with the user's own names: 'annotator' plays the system, 'batch' the
    topic, and a column called 'topic' holds the items."""
    path = tmp_path_factory.mktemp("renamed")
    table = _data(20_000).rename_columns(["annotator", "batch", "topic", "gold", "pred", "score", "label", "guess"])
    for i in range(4):
        pq.write_table(table.slice(i * 5_000, 5_000), path / f"part-{i}.parquet")
    return str(path)


@pytest.mark.parametrize("thresholds", [None, 11, "exact"], ids=["hard", "grid", "exact"])
def test_columns_playing_system_and_topic_on_dask(client, renamed, thresholds):
    roles = dict(system="annotator", topic="batch", item="topic")
    got = fmd.count(renamed, thresholds=thresholds, client=client, **roles)
    want = fm.count(renamed, thresholds=thresholds, **roles)
    assert got.axes == want.axes and set(got.coords) == set(want.coords) and "annotator" in got.coords
    np.testing.assert_array_equal(got.counts, want.counts)
    for name in want.coords:
        np.testing.assert_array_equal(np.asarray(got.coords[name]), np.asarray(want.coords[name]))


def test_cli_scheduler_takes_the_column_options(renamed, tmp_path):
    from fastmetrics.cli import main

    outputs = []
    for extra in ([], ["--scheduler", "local:2"]):
        out = tmp_path / f"board{len(extra)}.csv"
        args = ["leaderboard", renamed, "--system", "annotator", "--topic", "batch", "--item", "topic"]
        assert main(args + ["--measures", "f1,mcc", "--no-baselines", "--out", str(out)] + extra) == 0
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].startswith(b'"rank","annotator"')


def test_a_missing_column_playing_the_system_is_refused_on_dask(client, renamed):
    with pytest.raises(fm.InputError, match="'judge'.*play the system"):
        fmd.count(renamed, system="judge", topic="batch", client=client)
