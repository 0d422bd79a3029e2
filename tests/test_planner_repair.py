"""Adaptive repair (§6.6): hand-checked rate changes, harmful projections, topology changes."""

from __future__ import annotations

import json

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.cli import main
from inev.common.errors import InevError
from inev.planner.changes import apply_changes
from inev.planner.checks import check_plan
from inev.planner.combination_model import Combination
from inev.planner.inev_graph import save_plan
from inev.planner.planning import plan_workload
from inev.planner.projections import make_projection, primitive_projection
from inev.planner.repair import _harmful, repair_plan
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload
from inev.workloads.workload import Query, Workload


def path_network() -> Network:
    return Network.build(
        range(5), [(i, i + 1) for i in range(4)], {"A": (1.0, [0]), "B": (100.0, [1, 2, 3, 4])}
    )


def seq_ab() -> Workload:
    return Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})])


def test_multi_node_switches_to_fallback_by_hand():
    net = path_network()
    plan = plan_workload(net, seq_ab())
    assert plan.multi_node == {"SEQ(A, B)": "B"}
    # fall-back: node minimising 1*hops(0, m) + 100*sum hops(n, m) = node 2 (cost 402)
    assert plan.fallback == {"SEQ(A, B)": 2}
    result = repair_plan(plan, net, seq_ab(), [{"kind": "set-rate", "type": "B", "rate": 0.001}])
    # Eq. 1 at B: R(B)·δ = 0.004 * 2 = 0.008 is no longer above h(B)·R(A) = 3.2
    assert result.invalid_multi_node == ("SEQ(A, B)",)
    # broken: A still crosses the 4 links of the path to every B source: 4 * r(A)
    assert result.broken.psi == pytest.approx(4.0)
    # §6.6's local repair: single node 2: A 2 hops * 1 + B 0.001 * (1 + 0 + 1 + 2)
    assert [v.node for v in result.local.sink_vertices("q")] == [2]
    assert result.local.psi == pytest.approx(2.004)
    assert check_plan(result.local, result.network) == []
    # gathering at node 0 costs 0.001 * (1 + 2 + 3 + 4) = 0.01: the repair answers with the
    # centralized plan (never costlier than the broken plan or centralized), and says so
    assert result.repaired.kept == "centralized"
    assert result.repaired.psi == pytest.approx(0.01)
    assert check_plan(result.repaired, result.network) == []
    assert result.replanned.psi <= 0.01 + 1e-12


def test_harmful_projection_is_bypassed():
    rates = {"A": 10.0, "B": 10.0, "C": 1.0}
    q = Query.build("q", "SEQ(A, B, C)", selectivity={"A B": 0.5})
    ab = make_projection(q, {"A", "B"}, rates)  # 0.5 * 100 = 50 > 10 + 10: harmful
    sink = make_projection(q, {"A", "B", "C"}, rates)
    prims = {t: primitive_projection(t, r) for t, r in rates.items()}
    comb = Combination(
        {**prims, ab.key: ab, sink.key: sink},
        {ab.key: ("A", "B"), sink.key: (ab.key, "C")},
        {},
        {"q": sink.key},
    )
    repaired, removed = _harmful(comb)
    assert removed == [ab.key]
    assert sorted(repaired.inputs[sink.key]) == ["A", "B", "C"]
    assert ab.key not in repaired.projections


def test_topology_change_keeps_untouched_forwarding():
    net = generate_network(nodes=20, seed=4)
    wl = generate_workload(net, seed=4)
    plan = plan_workload(net, wl)
    used = {e for v in plan.vertices for e in v.forwarding}
    cut = next(
        (u, v)
        for u, v, _ in net.links
        if (min(u, v), max(u, v)) in used
        and len(list(net.graph.neighbors(u))) > 1
        and len(list(net.graph.neighbors(v))) > 1
        and _still_connected(net, (u, v))
    )
    result = repair_plan(plan, net, wl, [{"kind": "link-down", "link": list(cut)}])
    assert check_plan(result.repaired, result.network) == []
    assert check_plan(result.result, result.network) == []
    assert result.result is result.repaired  # -o is the repaired plan (issue 44)
    old = {(v.projection, v.node): v.forwarding for v in plan.vertices}
    untouched = [
        v
        for v in result.repaired.vertices
        if (v.projection, v.node) in old and tuple(cut) not in old[(v.projection, v.node)]
    ]
    assert any(old[(v.projection, v.node)] == v.forwarding for v in untouched)
    for v in result.repaired.vertices:
        assert tuple(sorted(cut)) not in v.forwarding


def _still_connected(net, link):
    try:
        net.without(links=[link])
    except InevError:
        return False
    return True


def test_bad_changes():
    net = path_network()
    with pytest.raises(InevError, match="unknown kind"):
        apply_changes(net, [{"kind": "explode"}])
    with pytest.raises(InevError, match="disconnected"):
        apply_changes(net, [{"kind": "link-down", "link": [1, 2]}])
    swapped = apply_changes(net, [{"kind": "swap-rates", "types": ["A", "B"]}])
    assert (swapped.rate("A"), swapped.rate("B")) == (100.0, 1.0)


def test_repair_command(tmp_path, capsys):
    net = generate_network(seed=2)
    wl = generate_workload(net, seed=2)
    save_network(net, tmp_path / "net.json")
    save_workload(wl, tmp_path / "wl.json")
    save_plan(plan_workload(net, wl), tmp_path / "plan.json")
    a, b = net.types[:2]
    (tmp_path / "ch.json").write_text(
        json.dumps(
            {
                "format": "inev-changes/1",
                "changes": [{"time": 5, "kind": "swap-rates", "types": [a, b]}],
            }
        )
    )
    main(
        [
            "repair",
            str(tmp_path / "plan.json"),
            str(tmp_path / "net.json"),
            str(tmp_path / "wl.json"),
            "--changes",
            str(tmp_path / "ch.json"),
            "-o",
            str(tmp_path / "r.json"),
        ]
    )
    line = capsys.readouterr().out.strip()
    assert line.startswith("broken=") and "repaired=" in line and "replanned=" in line
    assert json.loads((tmp_path / "r.json").read_text())["format"] == "inev-plan/1"


def test_repair_refuses_a_plan_of_another_network():
    net = path_network()
    plan = plan_workload(net, seq_ab())
    other = net.with_rates({"A": 2.0})
    with pytest.raises(InevError, match="does not fit the network"):
        repair_plan(plan, other, seq_ab(), [])


def _rate_swap_repairs_well_formed(plan, net, wl, pair: int) -> None:
    """One swap of two types' rates: the repaired plan is well formed and the replanned one
    never costs more than centralized."""
    types = list(net.types)
    change = [{"kind": "swap-rates", "types": [types[pair], types[(pair + 2) % 6]]}]
    result = repair_plan(plan, net, wl, change)
    assert check_plan(result.repaired, result.network) == []
    assert result.replanned.psi <= result.replanned.centralized_cost * (1 + 1e-9)


# The single swap had a test of its own (25 instances, seeds below 5000), planning the same
# kind of instance anew: it runs here on each of these 30 planned instances instead.
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), share=st.sampled_from([0.4, 0.8, 1.0]), pair=st.integers(0, 5))
def test_repair_after_rate_changes_never_costs_more_than_keeping_the_plan(seed, share, pair):
    net = generate_network(nodes=15, event_types=6, seed=seed)
    wl = generate_workload(net, queries=2, length=4, seed=seed)
    plan = plan_workload(net, wl)
    _rate_swap_repairs_well_formed(plan, net, wl, pair)
    names = list(net.types)
    count = int(share * len(names)) // 2 * 2
    changes = [
        {"kind": "swap-rates", "types": [names[i], names[i + 1]]} for i in range(0, count, 2)
    ]
    result = repair_plan(plan, net, wl, changes)
    # §6.6's local rules may cost more than they save; the repair never does
    assert result.repaired.psi <= result.broken.psi * (1 + 1e-9) + 1e-9
    assert result.repaired.psi <= result.repaired.centralized_cost * (1 + 1e-9) + 1e-9
    assert result.repaired.psi <= result.local.psi * (1 + 1e-9) + 1e-9
    assert result.result.psi <= result.repaired.psi * (1 + 1e-9) + 1e-9
    assert result.repaired.kept in ("local", "old", "centralized")
    assert check_plan(result.result, result.network) == []


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_repair_after_a_lost_link_never_costs_more_than_centralized(seed):
    net = generate_network(nodes=15, event_types=6, seed=seed)
    wl = generate_workload(net, queries=2, length=4, seed=seed)
    plan = plan_workload(net, wl)
    bridges = set(nx.bridges(net.graph))
    removable = [(u, v) for u, v, _ in net.links if (u, v) not in bridges and (v, u) not in bridges]
    if not removable:
        return
    u, v = removable[seed % len(removable)]
    result = repair_plan(plan, net, wl, [{"kind": "link-down", "link": [u, v]}])
    assert result.repaired.psi <= result.repaired.centralized_cost * (1 + 1e-9) + 1e-9
    assert check_plan(result.result, result.network) == []


@pytest.mark.parametrize("method", ["centralized", "isolated", "ppop"])
def test_baselines_are_replanned_with_their_own_method(method):
    net = generate_network(nodes=10, event_types=4, skew=1.5, seed=3)
    wl = generate_workload(net, queries=2, length=3, selectivity=0.2, seed=3)
    plan = plan_workload(net, wl, method)
    a, b = wl.types[:2]
    result = repair_plan(plan, net, wl, [{"kind": "swap-rates", "types": [a, b]}])
    fresh = plan_workload(apply_changes(net, [{"kind": "swap-rates", "types": [a, b]}]), wl, method)
    assert result.result.method == method
    assert result.result.psi == pytest.approx(fresh.psi)
    # the old placement on the swapped rates: not cheaper than the fresh optimum of the method
    if method != "isolated":
        assert result.broken.psi >= fresh.psi * (1 - 1e-9)
