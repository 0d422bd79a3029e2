"""The sweep machinery: grids, Parquet rows, failures, resume, Spark, determinism, plots."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import sweep_helpers
from pyspark import cloudpickle

from inev.common.errors import InevError
from inev.experiments.plot import plot, series
from inev.experiments.results import SCHEMA, TIMING_COLUMNS, read_results, rows_to_table
from inev.experiments.spec import expand, parse_spec
from inev.experiments.sweep import run_sweep

cloudpickle.register_pickle_by_value(sweep_helpers)
TESTS = Path(__file__).parent


def small_spec(**changes):
    document = {
        "name": "t",
        "seeds": 3,
        "methods": ["inev", "centralized"],
        "base": {"nodes": 10},
        "axes": {"skew": [1.2, 1.8], "nodes": [10, 13]},
    }
    document.update(changes)
    return parse_spec(document)


def test_grid_expansion_order_ranges_and_ids():
    spec = parse_spec(
        {
            "seeds": 2,
            "first_seed": 5,
            "axes": {"skew": {"start": 1.1, "stop": 1.5, "step": 0.2}, "nodes": [10, 20]},
        }
    )
    tasks = expand(spec)
    assert spec.size == len(tasks) == 3 * 2 * 2
    assert [(t.point["skew"], t.point["nodes"], t.seed) for t in tasks[:5]] == [
        (1.1, 10, 5),
        (1.1, 10, 6),
        (1.1, 20, 5),
        (1.1, 20, 6),
        (1.3, 10, 5),
    ]
    assert [t.point["skew"] for t in tasks[::4]] == [1.1, 1.3, 1.5]
    assert len({t.task_id for t in tasks}) == len(tasks)
    assert [t.task_id for t in expand(spec)] == [t.task_id for t in tasks]
    assert parse_spec({"axes": {"nodes": {"start": 10, "stop": 30, "step": 10}}}).axes["nodes"] == [
        10,
        20,
        30,
    ]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"axes": {"colour": [1]}}, "unknown parameter 'colour'"),
        ({"base": {"nodes": "many"}}, "nodes must be an integer"),
        ({"axes": {"skew": {"start": 1.1}}}, "needs start, stop and step"),
        ({"axes": {"skew": []}}, "has no values"),
        ({"methods": ["magic"]}, "unknown method 'magic'"),
        ({"seeds": 0}, "seeds must be a positive integer"),
        ({"sedes": 3}, "unknown key 'sedes'"),
    ],
)
def test_bad_specs(document, message):
    with pytest.raises(InevError) as info:
        parse_spec(document)
    assert message in str(info.value)


def test_rows_follow_the_schema():
    table = rows_to_table(
        [{"task_id": "x", "task_index": 0, "seed": 1, "method": "inev", "ratio": 0.5}]
    )
    assert table.schema == SCHEMA
    assert table.column("cost").to_pylist() == [None]
    with pytest.raises(InevError, match="unknown column 'bogus'"):
        rows_to_table([{"task_id": "x", "bogus": 1}])


def test_serial_sweep_records_failures_without_stopping(tmp_path):
    spec = small_spec()
    outcome = run_sweep(spec, tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    table = pq.read_table(tmp_path / "results.parquet")
    assert table.num_rows == spec.size * 2 == outcome.table.num_rows
    rows = table.to_pylist()
    failed = [r for r in rows if r["error"] is not None]
    assert {r["nodes"] for r in failed} == {13}
    assert all("unlucky" in r["error"] and r["ratio"] is None for r in failed)
    ok = [r for r in rows if r["error"] is None]
    assert {r["ratio"] for r in ok if r["method"] == "inev"} == {1.0}
    assert [r["task_index"] for r in rows] == sorted(r["task_index"] for r in rows)


def test_rerun_skips_finished_tasks(tmp_path):
    spec = small_spec()
    first = run_sweep(spec, tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    again = run_sweep(spec, tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    assert again.ran == 0 and again.skipped == spec.size
    assert again.table.equals(first.table)


@pytest.mark.parametrize(
    ("changes", "difference"),
    [
        ({"first_seed": 2}, "first_seed: 0 there, 2 here"),
        ({"methods": ["inev", "lower_bound"]}, "methods:"),
        ({"axes": {"skew": [1.2, 1.8], "nodes": [10, 14]}}, "axis nodes: [10, 13] there"),
        ({"base": {"nodes": 10, "length": 4}}, "base length: absent there, 4 here"),
    ],
)
def test_a_folder_refuses_another_sweep_unless_forced(tmp_path, changes, difference):
    first = run_sweep(small_spec(), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    other = small_spec(**changes)
    with pytest.raises(InevError, match="holds results of a different sweep") as info:
        run_sweep(other, tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    assert difference in str(info.value) and "; force starts over" in str(info.value)
    assert read_results(tmp_path).equals(first.table)  # nothing touched
    again = run_sweep(
        other, tmp_path, master="serial", measure=sweep_helpers.toy_measure, force=True
    )
    assert again.skipped == 0 and again.ran == other.size
    assert set(again.table.column("method").to_pylist()) == set(other.methods)
    # name and [plot] are not part of the sweep's identity
    renamed = small_spec(**changes, name="renamed", plot={"x": "skew"})
    assert run_sweep(renamed, tmp_path, master="serial", measure=sweep_helpers.toy_measure).ran == 0


def test_another_number_of_seeds_resumes_the_seeds_both_runs_share(tmp_path):
    def run(seeds):
        return run_sweep(
            small_spec(seeds=seeds), tmp_path, master="serial", measure=sweep_helpers.toy_measure
        )

    points = 4
    assert run(3).ran == 3 * points
    grown = run(5)
    assert (grown.skipped, grown.ran) == (3 * points, 2 * points)
    fresh = run_sweep(
        small_spec(seeds=5), tmp_path / "fresh", master="serial", measure=sweep_helpers.toy_measure
    )
    assert grown.table.equals(fresh.table)
    shrunk = run(2)
    assert shrunk.ran == 0 and set(shrunk.table.column("seed").to_pylist()) == {0, 1}
    assert read_results(tmp_path).equals(shrunk.table)
    assert run(5).ran == 0  # the parts of seeds 2-4 were kept


def test_a_folder_with_results_of_an_unknown_sweep_is_refused(tmp_path):
    run_sweep(small_spec(), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    (tmp_path / "spec.json").unlink()
    with pytest.raises(InevError, match="unknown sweep"):
        run_sweep(small_spec(), tmp_path, master="serial", measure=sweep_helpers.toy_measure)


def test_resume_after_killing_the_driver(tmp_path):
    script = (
        "import sys, sweep_helpers\n"
        "from inev.experiments.spec import parse_spec\n"
        "from inev.experiments.sweep import run_sweep\n"
        "spec = parse_spec({'seeds': 4, 'axes': {'skew': [1.2, 1.4, 1.6]}})\n"
        "run_sweep(spec, sys.argv[1], master='serial', measure=sweep_helpers.toy_measure)\n"
    )
    env = {**__import__("os").environ, "PYTHONPATH": str(TESTS), "INEV_TEST_TASK_DELAY": "0.15"}
    interrupted = tmp_path / "interrupted"
    process = subprocess.Popen([sys.executable, "-c", script, str(interrupted)], env=env)
    deadline = time.time() + 60
    while (
        time.time() < deadline
        and process.poll() is None
        and len(list((interrupted / "parts").glob("part-*.parquet"))) < 3
    ):
        time.sleep(0.05)
    process.kill()
    process.wait()
    finished = len(list((interrupted / "parts").glob("part-*.parquet")))
    assert 3 <= finished < 12
    assert not (interrupted / "results.parquet").exists()
    env["INEV_TEST_TASK_DELAY"] = "0"
    subprocess.run([sys.executable, "-c", script, str(interrupted)], env=env, check=True)
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "whole")], env=env, check=True)
    resumed = read_results(interrupted).drop_columns(list(TIMING_COLUMNS))
    whole = read_results(tmp_path / "whole").drop_columns(list(TIMING_COLUMNS))
    assert resumed.num_rows == 12 * 2
    assert resumed.equals(whole)


@pytest.mark.spark
def test_spark_results_are_identical_for_any_parallelism(tmp_path, spark):
    spec = small_spec()
    serial = run_sweep(
        spec, tmp_path / "serial", master="serial", measure=sweep_helpers.toy_measure
    )
    tables = [serial.table]
    for parallelism in (1, 2, 3):
        outcome = run_sweep(
            spec,
            tmp_path / f"p{parallelism}",
            master="local[2]",
            parallelism=parallelism,
            measure=sweep_helpers.toy_measure,
        )
        tables.append(outcome.table)
    for table in tables[1:]:
        assert table.drop_columns(list(TIMING_COLUMNS)).equals(
            tables[0].drop_columns(list(TIMING_COLUMNS))
        )
    assert len(list((tmp_path / "p2" / "parts").glob("*.parquet"))) >= 2


@pytest.mark.parametrize("master", ["serial", pytest.param("local[2]", marks=pytest.mark.spark)])
def test_an_estimate_comes_from_the_first_task_whose_rows_are_kept(tmp_path, master, request):
    if master != "serial":
        request.getfixturevalue("spark")
    spec = small_spec()
    plain = run_sweep(spec, tmp_path / "plain", master="serial", measure=sweep_helpers.toy_measure)
    heard, advanced = [], []

    def progress(total, done):
        return lambda n: advanced.append((n, len(heard)))

    outcome = run_sweep(
        spec,
        tmp_path / "estimated",
        master=master,
        measure=sweep_helpers.toy_measure,
        progress=progress,
        estimate=heard.append,
    )
    assert len(heard) == 1 and heard[0].remaining == spec.size - 1
    assert heard[0].workers == (1 if master == "serial" else 2) and heard[0].first_seconds >= 0
    # the first task is counted alone, before the estimate; the others after it; each once
    assert advanced[0] == (1, 0) and all(heard_by == 1 for _, heard_by in advanced[1:])
    assert sum(n for n, _ in advanced) == spec.size
    assert outcome.ran == spec.size
    columns = list(TIMING_COLUMNS)
    assert outcome.table.drop_columns(columns).equals(plain.table.drop_columns(columns))
    # resumed with nothing left to run: no task, no estimate
    again = run_sweep(
        spec,
        tmp_path / "estimated",
        master="serial",
        measure=sweep_helpers.toy_measure,
        estimate=heard.append,
    )
    assert again.ran == 0 and len(heard) == 1


def test_plot_series_medians_and_files(tmp_path):
    rows = []
    for i, (x, value) in enumerate([(1, 1.0), (1, 2.0), (1, 3.0), (1, 4.0), (2, 10.0), (2, 20.0)]):
        rows.append(
            {
                "task_id": str(i),
                "task_index": i,
                "seed": i,
                "method": "inev",
                "skew": float(x),
                "selectivity": 0.1,
                "ratio": value,
            }
        )
    rows.append(
        {
            "task_id": "e",
            "task_index": 9,
            "seed": 9,
            "method": "inev",
            "skew": 1.0,
            "selectivity": 0.1,
            "ratio": None,
            "error": "boom",
        }
    )
    table = rows_to_table(rows)
    data = series(table, "skew", "ratio", "selectivity")
    assert data == {
        "selectivity scale = 0.1": [(1.0, 1.75, 2.5, 3.25, 4), (2.0, 12.5, 15.0, 17.5, 2)]
    }
    for suffix in (".png", ".svg", ".pdf"):
        path = plot(table, tmp_path / f"f{suffix}", x="skew", lines="selectivity")
        assert path.stat().st_size > 1000
    with pytest.raises(InevError, match="must end in"):
        plot(table, tmp_path / "f.gif", x="skew")
    with pytest.raises(InevError, match="no column 'colour'"):
        plot(table, tmp_path / "g.png", x="colour")
    assert not (tmp_path / "g.png").exists()


@pytest.mark.spark
def test_an_interrupted_spark_sweep_keeps_its_finished_parts_and_resumes(tmp_path, spark):
    spec = parse_spec({"seeds": 10, "axes": {"skew": [1.2, 1.4, 1.6, 1.8]}})

    def interrupt_at_first_progress(total: int, done: int):
        def advance(n: int) -> None:
            raise KeyboardInterrupt  # what Ctrl-C raises in the driver's wait loop

        return advance

    outcome = run_sweep(
        spec,
        tmp_path,
        master="local[2]",
        parallelism=2,
        measure=sweep_helpers.toy_measure,
        progress=interrupt_at_first_progress,
    )
    assert outcome.interrupted and 0 < outcome.finished < spec.size
    assert not (tmp_path / "results.parquet").exists()
    parts = list((tmp_path / "parts").glob("part-*.parquet"))
    assert all(pq.read_table(p).num_rows <= 4 * len(spec.methods) for p in parts)
    assert outcome.table.num_rows == outcome.finished * len(spec.methods)
    resumed = run_sweep(
        spec, tmp_path, master="local[2]", parallelism=2, measure=sweep_helpers.toy_measure
    )
    assert not resumed.interrupted and resumed.skipped >= outcome.finished
    assert resumed.table.num_rows == spec.size * len(spec.methods)
