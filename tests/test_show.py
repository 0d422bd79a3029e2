"""``inev show``: every kind of inev file as tables."""

from __future__ import annotations

import json

import pytest

from inev.planner.inev_graph import save_plan
from inev.planner.planning import plan_workload
from inev.simulator.run import simulate
from inev.simulator.simulation_result import save_result
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("show")
    net = generate_network(nodes=8, event_types=4, skew=1.9, seed=2)
    wl = generate_workload(net, queries=1, length=3, selectivity=1.0, seed=2)
    net = rescale_rates(net, wl.types, 8.0)
    plan = plan_workload(net, wl)
    save_network(net, folder / "net.json")
    save_workload(wl, folder / "wl.json")
    save_plan(plan, folder / "plan.json")
    save_result(simulate(net, wl, plan, duration=4.0, seed=1), folder / "sim.json")
    (folder / "changes.json").write_text(
        json.dumps(
            {
                "format": "inev-changes/1",
                "changes": [{"time": 2.0, "kind": "swap-rates", "types": list(wl.types[:2])}],
            }
        )
    )
    seq = {
        "format": "inev-workload/1",
        "window": 1.0,
        "queries": [{"name": "q1", "pattern": "SEQ(A, B)"}],
    }
    (folder / "seq.json").write_text(json.dumps(seq))
    (folder / "trace.csv").write_text("time,type,node,id\n0.1,A,0,1\n0.2,B,1,2\n0.3,C,0,3\n")
    return folder, net, wl, plan


def test_each_kind_of_file(files, run_cli):
    folder, net, _, plan = files
    code, out, _ = run_cli("show", folder / "net.json")
    assert code == 0 and "8 nodes" in out and "latency" in out
    assert out.count("-") >= len(net.links)  # every link listed
    code, out, _ = run_cli("show", folder / "wl.json", "--network", folder / "net.json")
    assert code == 0 and "q1" in out and "R(q)" in out
    code, out, _ = run_cli("show", folder / "plan.json")
    assert code == 0 and "transmission cost ψ" in out and "forwarding" in out
    for name in plan.type_rates:
        if any(v.forwarding for v in plan.vertices if v.projection == name):
            assert f"{name} events" in out
    code, out, _ = run_cli("show", folder / "sim.json")
    assert code == 0 and "detection latency p99" in out and "links" in out
    assert "messages by vertex" not in out
    code, out, _ = run_cli("show", folder / "sim.json", "--plan", folder / "plan.json")
    assert code == 0 and "messages by vertex" in out
    code, out, _ = run_cli("show", folder / "changes.json")
    assert code == 0 and "1 change" in out and "swap-rates" in out
    code, out, _ = run_cli("show", folder / "trace.csv")
    assert code == 0 and "3 events" in out and "first" in out
    code, _, err = run_cli(
        "match", folder / "seq.json", folder / "trace.csv", "-o", folder / "m.jsonl"
    )
    assert code == 0, err
    code, out, _ = run_cli("show", folder / "m.jsonl")
    assert code == 0 and "│ q1    │ 1  " in out


def test_unknown_plan_keys_are_listed_not_refused(files, run_cli, tmp_path):
    folder = files[0]
    document = json.loads((folder / "plan.json").read_text())
    document["kept"] = "inev"
    document["psi_over_bound"] = 1.25
    (tmp_path / "newer.json").write_text(json.dumps(document))
    code, out, _ = run_cli("show", tmp_path / "newer.json")
    assert code == 0 and "kept" in out and "psi_over_bound" in out and "1.25" in out


def test_a_sweep_folder(run_cli, tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text('seeds = 2\n[axes]\nskew = [1.2, 1.6]\n[plot]\ny = "projections"\n')
    assert run_cli("sweep", spec, "-o", tmp_path / "r", "--master", "serial")[0] == 0
    code, out, _ = run_cli("show", tmp_path / "r")
    assert code == 0 and "4 tasks with results" in out and "projections placed" in out


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("missing.json", None, "no such file or folder"),
        ("x.json", '{"a": 1}', "no 'format' key"),
        ("y.json", '{"format": "other/1"}', "cannot show other/1 files"),
    ],
)
def test_errors(run_cli, tmp_path, name, content, message):
    if content is not None:
        (tmp_path / name).write_text(content)
    code, _, err = run_cli("show", tmp_path / name)
    assert code == 1 and message in err and err.count("\n") == 1
