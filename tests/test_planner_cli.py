"""``inev plan`` from the command line: output file, summary line, errors."""

from __future__ import annotations

import json

import pytest

from inev.common.cli import main
from inev.planner.checks import check_plan
from inev.planner.inev_graph import load_plan
from inev.topologies.generate import generate_network
from inev.topologies.io import load_network, save_network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload


@pytest.fixture
def files(tmp_path):
    net = generate_network(seed=3)
    save_network(net, tmp_path / "net.json")
    save_workload(generate_workload(net, queries=2, seed=3), tmp_path / "wl.json")
    return tmp_path


@pytest.mark.parametrize("method", ["inev", "centralized", "isolated", "ppop"])
def test_plan_command_writes_plan(files, capsys, method):
    out = files / "plan.json"
    main(
        [
            "plan",
            str(files / "net.json"),
            str(files / "wl.json"),
            "-o",
            str(out),
            "--method",
            method,
        ]
    )
    line = capsys.readouterr().out.strip().splitlines()[0]
    doc = json.loads(out.read_text())
    assert doc["format"] == "inev-plan/1" and doc["method"] == method
    assert line.startswith(f"method={method} psi=")
    assert f"ratio={doc['ratio']:.6g}" in line
    plan = load_plan(out)
    if method != "ppop":
        assert check_plan(plan, load_network(files / "net.json")) == []
    assert plan.psi == pytest.approx(sum(v["cost"] for v in doc["vertices"]))


def test_plan_explain_names_multi_node(files, capsys):
    main(
        [
            "plan",
            str(files / "net.json"),
            str(files / "wl.json"),
            "-o",
            str(files / "p.json"),
            "--explain",
        ]
    )
    text = capsys.readouterr().out
    doc = json.loads((files / "p.json").read_text())
    for key, part in doc["multi_node"].items():
        assert f"{key} <- " in text and f"sources of {part}" in text and "Eq. 1" in text


def test_plan_bad_input_leaves_no_file(files, capsys):
    (files / "bad.json").write_text('{"format": "inev-workload/1", "window": 1, "queries": []}')
    with pytest.raises(SystemExit) as exc:
        main(
            ["plan", str(files / "net.json"), str(files / "bad.json"), "-o", str(files / "x.json")]
        )
    assert exc.value.code == 1
    assert capsys.readouterr().err.startswith("error: ")
    assert not (files / "x.json").exists()


def test_large_plan_file_round_trip(tmp_path):
    from inev.planner.cost_model import vertex_cost_from_plan
    from inev.planner.inev_graph import save_plan
    from inev.planner.planning import plan_workload

    net = generate_network(nodes=150, event_types=8, skew=1.1, seed=1)
    wl = generate_workload(net, queries=3, length=5, selectivity=0.01, seed=1)
    plan = plan_workload(net, wl)
    assert plan.multi_node, "the instance should use multi-node placements"
    save_plan(plan, tmp_path / "p.json")
    doc = json.loads((tmp_path / "p.json").read_text())
    assert any(isinstance(v["inputs"], dict) for v in doc["vertices"])
    assert any(isinstance(v["forwarding"], dict) for v in doc["vertices"])
    back = load_plan(tmp_path / "p.json")
    assert len(back.vertices) == len(plan.vertices)
    for a, b in zip(plan.vertices, back.vertices, strict=True):
        assert (a.id, a.projection, a.node, a.output, a.partition) == (
            b.id,
            b.projection,
            b.node,
            b.output,
            b.partition,
        )
        assert a.inputs[:1] == b.inputs[:1] and sorted(a.inputs) == sorted(b.inputs)
        assert sorted(a.forwarding) == sorted(b.forwarding)
        assert vertex_cost_from_plan(back, b) == pytest.approx(a.cost)
    assert check_plan(back, net) == []


def test_a_latency_bound_no_plan_meets_is_one_error_line_and_no_file(files, run_cli):
    out = files / "plan.json"
    args = ("plan", files / "net.json", files / "wl.json", "-o", out)
    code, _, err = run_cli(*args, "--latency-factor", "0.01")
    assert code == 1 and len(err.splitlines()) == 1
    assert err.startswith("error: no plan meets the latency bound tau = ")
    assert not out.exists()
    code, stdout, err = run_cli(*args, "--latency-factor", "0.01", "--estimated-latency")
    assert code == 0 and out.exists()  # the paper's pruning on estimates alone
    code, stdout, _ = run_cli(*args, "--latency-factor", "1")
    plan = load_plan(out)
    assert code == 0 and stdout.startswith("method=inev ")
    assert plan.latency <= plan.centralized_latency * (1 + 1e-9)
