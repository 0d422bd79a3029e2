"""``inev whatif``: single failures on hand-checked networks, resumption, Spark = serial."""

from __future__ import annotations

import functools
import json
import math

import pyarrow.parquet as pq
import pytest

from inev.common.cli import main
from inev.common.errors import InevError
from inev.experiments.whatif import (
    Study,
    blocker,
    capped,
    failure_cases,
    given_cases,
    repair_row,
    swap_cases,
    with_exposure,
)
from inev.experiments.whatif_report import ranked, summary_lines
from inev.experiments.whatif_run import read_rows, run_whatif
from inev.planner.inev_graph import plan_to_dict, save_plan
from inev.planner.planning import plan_workload
from inev.topologies.io import network_to_dict, save_network
from inev.topologies.network import Network
from inev.workloads.io import save_workload, workload_to_dict
from inev.workloads.workload import Query, Workload

TIMES = ("case_seconds", "replan_seconds", "incremental_seconds")


def path4() -> Network:
    """0 - 1 - 2 - 3; A (rate 1) at both ends, B (rate 2) in the middle."""
    return Network.build(
        range(4), [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0, 3]), "B": (2.0, [1, 2])}
    )


def seq_ab() -> Workload:
    return Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})])


@functools.cache
def path_plan():
    """The plan of :func:`path4` and :func:`seq_ab`, made once (a plan records its planning
    time, and the study of another plan document does not resume)."""
    return plan_workload(path4(), seq_ab())


def study_of(net: Network, wl: Workload, cases=None, simulation=None) -> Study:
    plan = path_plan()
    chosen = with_exposure(cases if cases is not None else failure_cases(net), plan)
    return Study(
        plan_to_dict(plan), network_to_dict(net), workload_to_dict(wl), tuple(chosen), simulation
    )


def without_times(table) -> list[dict]:
    return [{k: v for k, v in r.items() if k not in TIMES} for r in table.to_pylist()]


def test_a_path_of_four_nodes_by_hand(tmp_path):
    net, wl = path4(), seq_ab()
    outcome = run_whatif(study_of(net, wl), tmp_path / "w", master="serial")
    rows = {r["case"]: r for r in outcome.table.to_pylist()}
    assert list(rows) == [
        "link 0-1", "link 1-2", "link 2-3", "node 0", "node 1", "node 2", "node 3"
    ]  # fmt: skip
    # every link of a path is a bridge, and so are its inner nodes
    for case in ("link 0-1", "link 1-2", "link 2-3", "node 1", "node 2"):
        assert rows[case]["cannot_run"] == "disconnects the network"
        assert math.isinf(rows[case]["cost"]) and rows[case]["replanned_psi"] is None
    for end in ("node 0", "node 3"):
        row = rows[end]
        assert row["error"] is None and row["cannot_run"] is None
        # the plan before: A from both ends to the B nodes 1 and 2 (2 links each): ψ = 4,
        # centralized 5 (at node 1: A 1 + 2 hops, B 2 x 1 hop)
        assert row["plan_psi"] == pytest.approx(4.0) and row["plan_ratio"] == pytest.approx(0.8)
        # after: one A source left, 2 links from the other end: ψ = 2; centralized on the
        # 3 nodes left is 3 (at the middle node: A 1 hop, B 2 x 1 hop)
        assert row["broken_psi"] == pytest.approx(2.0)
        assert row["centralized_cost"] == pytest.approx(3.0)
        assert row["local_ratio"] == pytest.approx(row["local_psi"] / 3.0)
        assert row["replanned_psi"] <= 3.0 + 1e-9
        assert row["cost"] == row["local_ratio"]
    # the disconnecting failures rank first, in case order, then the two end nodes
    order = [r["case"] for r in ranked(outcome.table)]
    assert order[:5] == ["link 0-1", "link 1-2", "link 2-3", "node 1", "node 2"]
    assert sorted(order[5:]) == ["node 0", "node 3"]
    assert (tmp_path / "w" / "results.parquet").is_file()
    assert "7 cases: 5 leave no network to plan on" in summary_lines(outcome.table)[0]


def test_blockers_and_exposure_by_hand():
    net = path4()
    # a ring of 4 has no bridge; node 0 alone is A's only source
    ring = Network.build(range(4), [(0, 1), (1, 2), (2, 3), (3, 0)], {"A": (1.0, [0])})
    assert [blocker(ring, [c]) for c in json.loads(failure_cases(ring)[0].changes)] == [None]
    assert blocker(ring, [{"kind": "node-down", "node": 0}]) == "type A loses every source"
    assert blocker(ring, [{"kind": "node-down", "node": 2}]) is None
    cases = with_exposure(failure_cases(net), path_plan())
    traffic = {c.label: c.exposure for c in cases}
    # A (rate 1) from each end over 2 links: link 1-2 carries both, the end links one each
    assert traffic["link 1-2"] == pytest.approx(2.0)
    assert traffic["link 0-1"] == traffic["link 2-3"] == pytest.approx(1.0)
    kept = capped(cases, 2)  # the most loaded link and the most loaded node
    assert [c.label for c in kept] == ["link 1-2", "node 1"]
    assert [c.index for c in kept] == [0, 1]


def test_given_cases_and_swaps(tmp_path):
    net = path4()
    document = [
        [{"kind": "node-down", "node": 0}],
        {"format": "inev-changes/1", "changes": [{"kind": "set-rate", "type": "A", "rate": 5}]},
    ]
    cases = given_cases(document, "cases.json", net)
    assert [c.label for c in cases] == ["node 0", "set-rate A"]
    with pytest.raises(InevError, match=r"cases.json: case #1: .*unknown node 9"):
        given_cases([[{"kind": "node-down", "node": 9}]], "cases.json", net)
    with pytest.raises(InevError, match="non-empty list"):
        given_cases([], "cases.json", net)
    swaps = swap_cases(net, [1.0])
    assert json.loads(swaps[0].changes) == [
        {"kind": "swap-rates", "time": 0.0, "types": ["B", "A"]}
    ]
    with pytest.raises(InevError, match="no pair"):
        swap_cases(net, [0.2])


def ring5() -> Network:
    """A ring 0-1-2-3-4-0; A (rate 1) at 0, B (rate 2) at 2."""
    links = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0)]
    return Network.build(range(5), links, {"A": (1.0, [0]), "B": (2.0, [2])})


def test_repair_row_holds_the_repair_broken_incremental_and_migration():
    from inev.planner.repair import repair_plan

    net, wl = ring5(), seq_ab()
    plan = plan_workload(net, wl)
    for changes in ([{"kind": "link-down", "link": [0, 1]}], [{"kind": "node-down", "node": 1}]):
        repair = repair_plan(plan, net, wl, changes)
        row = repair_row(repair)
        assert row["local_psi"] == repair.local.psi and row["replanned_psi"] == repair.replanned.psi
        assert row["incremental_psi"] == repair.incremental.psi <= row["local_psi"]
        assert row["incremental_ratio"] == pytest.approx(
            repair.incremental.psi / repair.replanned.centralized_cost
        )
        assert row["incremental_seconds"] == repair.seconds["incremental"] >= 0
        if repair.cannot_run:
            assert row["broken_psi"] is None and row["broken_ratio"] is None
            assert row["cannot_run"] == "; ".join(repair.cannot_run)
        else:
            assert row["broken_psi"] == repair.broken.psi and row["cannot_run"] is None
        moved = json.loads(row["migration"]) if row["migration"] else {}
        assert moved == {k: pytest.approx(v) for k, v in repair.migration.items()}


def test_an_interrupted_study_resumes_with_the_cases_not_done(tmp_path):
    net, wl = path4(), seq_ab()
    folder = tmp_path / "w"
    first = run_whatif(study_of(net, wl), folder, master="serial")
    assert (first.ran, first.skipped) == (7, 0)
    parts = sorted((folder / "parts").glob("part-*.parquet"))
    assert len(parts) == 7  # serial: one part per case
    for lost in parts[2:5]:
        lost.unlink()
    (folder / "results.parquet").unlink()
    again = run_whatif(study_of(net, wl), folder, master="serial")
    assert (again.ran, again.skipped) == (3, 4)
    assert without_times(again.table) == without_times(first.table)
    # another plan's study is refused in that folder; --force starts over
    other = study_of(net, wl, cases=failure_cases(net)[:2])
    with pytest.raises(InevError, match="other cases"):
        run_whatif(other, folder, master="serial")
    forced = run_whatif(other, folder, master="serial", force=True)
    assert (forced.ran, forced.skipped) == (2, 0)
    assert len(read_rows(folder)) == 2


def test_a_study_interrupted_midway_resumes(tmp_path, monkeypatch):
    import inev.experiments.whatif as whatif

    net, wl = path4(), seq_ab()
    real, calls = whatif.evaluate_case, []

    def interrupted_at_the_fifth(case, study):
        calls.append(case.label)
        if len(calls) == 5:
            raise KeyboardInterrupt
        return real(case, study)

    monkeypatch.setattr(whatif, "evaluate_case", interrupted_at_the_fifth)
    folder = tmp_path / "w"
    cut = run_whatif(study_of(net, wl), folder, master="serial")
    assert cut.interrupted and (cut.finished, cut.ran) == (4, 4)
    assert not (folder / "results.parquet").exists() and cut.path == folder / "parts"
    monkeypatch.setattr(whatif, "evaluate_case", real)
    again = run_whatif(study_of(net, wl), folder, master="serial")
    assert not again.interrupted and (again.ran, again.skipped) == (3, 4)
    assert [r["case"] for r in again.table.to_pylist()][4:] == ["node 1", "node 2", "node 3"]
    # interrupted before the first case finished: the folder it made is not kept
    monkeypatch.setattr(whatif, "evaluate_case", interrupted_at_the_fifth)
    calls[:] = range(4)  # the next case is the fifth call
    empty = run_whatif(study_of(net, wl), tmp_path / "new", master="serial")
    assert empty.interrupted and empty.finished == 0 and not (tmp_path / "new").exists()


def test_simulated_cases_match_a_direct_simulation(tmp_path):
    from inev.experiments.whatif import SimSettings
    from inev.simulator import simulate

    net, wl = path4(), seq_ab()
    cases = failure_cases(net)[3:4]  # node 0 goes down
    study = study_of(net, wl, cases, SimSettings(duration=6.0, seed=3))
    row = run_whatif(study, tmp_path / "w", master="serial").table.to_pylist()[0]
    plan = path_plan()
    direct = simulate(
        net, wl, plan, duration=6.0, seed=3, changes=[{"time": 3.0, "kind": "node-down", "node": 0}]
    )
    assert row["sim_error"] is None
    assert row["sim_messages"] == direct.messages
    assert row["sim_missing"] == direct.missing
    assert row["sim_centralized_matches"] == sum(direct.centralized_matches.values())


@pytest.fixture
def files(tmp_path):
    net, wl = path4(), seq_ab()
    save_network(net, tmp_path / "net.json")
    save_workload(wl, tmp_path / "wl.json")
    save_plan(plan_workload(net, wl), tmp_path / "plan.json")
    return [str(tmp_path / n) for n in ("plan.json", "net.json", "wl.json")]


def test_the_command_writes_results_and_plots(tmp_path, files, capsys):
    out = tmp_path / "w"
    with pytest.raises(SystemExit) as stopped:
        main(["whatif", *files, "-o", str(out), "--master", "serial", "--max-cases", "6"])
    assert stopped.value.code == 1
    error = capsys.readouterr().err
    assert "7 cases (3 link-down, 4 node-down) are more than --max-cases 6" in error
    assert not out.exists()
    main(["whatif", *files, "-o", str(out), "--master", "serial", "--worst", "3"])
    printed = capsys.readouterr().out
    assert "whatif: 7 cases (3 link-down, 4 node-down)" in printed
    assert "link 0-1" in printed and "disconnects the network" in printed
    assert "7 cases (7 run, 0 already done)" in printed
    assert pq.read_table(out / "results.parquet").num_rows == 7
    assert (out / "ranking.png").stat().st_size > 0 and (out / "topology.png").stat().st_size > 0
    main(["whatif", *files, "-o", str(out), "--master", "serial"])
    assert "7 cases (0 run, 7 already done)" in capsys.readouterr().out


@pytest.mark.spark
def test_spark_gives_the_serial_rows(tmp_path, spark):
    net, wl = path4(), seq_ab()
    serial = run_whatif(study_of(net, wl), tmp_path / "serial", master="serial")
    on_spark = run_whatif(study_of(net, wl), tmp_path / "spark", master="local[2]", parallelism=2)
    assert (on_spark.ran, on_spark.skipped) == (7, 0)
    assert without_times(on_spark.table) == without_times(serial.table)
