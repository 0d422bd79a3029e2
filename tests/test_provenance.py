"""Which code computed a sweep's rows, and plans shared between a seed's tasks."""

from __future__ import annotations

import sweep_helpers

from inev.experiments import plan_cache
from inev.experiments.provenance import (
    PROVENANCE_FILE,
    UNRECORDED,
    code_version,
    describe_versions,
    record_run,
    task_versions,
    version_counts,
)
from inev.experiments.spec import expand, parse_spec
from inev.experiments.sweep import run_sweep, seed_major
from inev.planner.options import PlanOptions
from inev.topologies.generate import generate_network
from inev.workloads.workload import Query, Workload


def spec(seeds=2):
    return parse_spec(
        {"name": "t", "seeds": seeds, "methods": ["inev"], "axes": {"skew": [1.2, 1.8]}}
    )


def ids(s):
    return {t.task_id for t in expand(s)}


def test_a_sweep_records_the_code_that_finished_each_task(tmp_path):
    run_sweep(spec(), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    versions = task_versions(tmp_path)
    assert set(versions) == ids(spec()) and set(versions.values()) == {code_version()}


def test_a_resumed_sweep_shows_the_mix_of_codes(tmp_path):
    run_sweep(spec(2), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    # pretend the first run was older code: rewrite its record
    (tmp_path / PROVENANCE_FILE).unlink()
    record_run(tmp_path, ids(spec(2)), code="old")
    run_sweep(spec(3), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    counts = version_counts(task_versions(tmp_path), ids(spec(3)))
    assert counts == {"old": 4, code_version(): 2}
    assert describe_versions(counts).startswith("**mixed code**: 4 tasks computed by old, 2 by")
    # a rerun that finishes nothing records nothing
    before = (tmp_path / PROVENANCE_FILE).read_text()
    assert run_sweep(spec(3), tmp_path, master="serial", measure=sweep_helpers.toy_measure).ran == 0
    assert (tmp_path / PROVENANCE_FILE).read_text() == before


def test_force_starts_the_record_over_and_unknown_tasks_are_unrecorded(tmp_path):
    run_sweep(spec(), tmp_path, master="serial", measure=sweep_helpers.toy_measure)
    record_run(tmp_path, ["stale"], code="old")
    other = parse_spec({"name": "t", "seeds": 1, "methods": ["inev"], "axes": {"skew": [1.5]}})
    run_sweep(other, tmp_path, master="serial", measure=sweep_helpers.toy_measure, force=True)
    assert set(task_versions(tmp_path)) == ids(other)
    assert version_counts({}, ["x", "y"]) == {UNRECORDED: 2}


def test_a_torn_last_line_is_skipped(tmp_path):
    record_run(tmp_path, ["a"], code="c1")
    with open(tmp_path / PROVENANCE_FILE, "a") as out:
        out.write('{"code": "c2", "tas')
    assert task_versions(tmp_path) == {"a": "c1"}


def test_seed_major_order_keeps_every_task_and_the_rows_come_back_in_task_order(tmp_path):
    s = spec(3)
    ordered = seed_major(expand(s))
    assert [t.seed for t in ordered] == [0, 0, 1, 1, 2, 2]
    assert sorted(t.index for t in ordered) == list(range(s.size))
    rows = run_sweep(s, tmp_path, master="serial", measure=sweep_helpers.toy_measure).table
    assert rows.column("task_index").to_pylist() == sorted(rows.column("task_index").to_pylist())


def test_the_plan_cache_returns_the_planners_plan_and_tells_instances_apart():
    plan_cache._PLANS.clear()
    net = generate_network(8, 2.0, 4, 1.3, 0.5, seed=3)
    load = Workload.build(1.0, [Query.build("q", "AND(A, B, C)")])
    options = PlanOptions(effort=0.0)
    first = plan_cache.cached_plan(net, load, "inev", options)
    assert plan_cache.cached_plan(net, load, "inev", options) is first
    other_net = generate_network(8, 2.0, 4, 1.3, 0.5, seed=4)
    other = plan_cache.cached_plan(other_net, load, "inev", options)
    assert other is not first
    from inev.planner.planning import plan_workload

    fresh = plan_workload(other_net, load, "inev", options)
    assert (other.psi, other.vertices) == (fresh.psi, fresh.vertices)
    assert plan_cache.cached_plan(net, load, "centralized", options) is not first
    for seed in range(plan_cache.SIZE + 2):  # bounded: the oldest plans go
        plan_cache.cached_plan(
            generate_network(6, 2.0, 4, 1.3, 0.5, seed=seed), load, "inev", options
        )
    assert len(plan_cache._PLANS) == plan_cache.SIZE
