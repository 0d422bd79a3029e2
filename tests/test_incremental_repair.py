"""Issue 44 item 3: the incremental repair (planner/repair_search.py): never above the local
repair, a valid plan, migration figures by hand, moves restricted to a focus."""

from __future__ import annotations

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner import repair_search
from inev.planner.checks import check_plan
from inev.planner.improve import Budget, Evaluator, improve
from inev.planner.inev_graph import Plan, Vertex
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import Space, paper_designs
from inev.planner.planning import plan_workload
from inev.planner.repair import repair_plan
from inev.planner.repair_search import affected_projections, migration_cost, replans, weighed
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload


def ring() -> Network:
    """0-1-2-3-4-5-0; A (rate 1) at 0, B (rate 100) at 3."""
    return Network.build(
        range(6), [(i, (i + 1) % 6) for i in range(6)], {"A": (1.0, [0]), "B": (100.0, [3])}
    )


def sink_at(node) -> Plan:
    sink = Vertex(0, "SEQ(A, B)", node, inputs=(1, 2))
    return Plan("inev", (sink,), {}, {"SEQ(A, B)": ("A", "B")}, {}, {}, {})


def test_migration_by_hand():
    # the sink moves from 0 to 3: a window (2 time units) of A (1) and B (100) is handed
    # over, 202 items, each over delta = (1 + 1 + 2 + 2 + 3) / 5 = 1.8 links of the ring
    figures = migration_cost(sink_at(0), sink_at(3), ring(), 2.0)
    assert figures["projections_moved"] == 1.0
    assert figures["vertices_moved"] == 1.0
    assert figures["partial_matches_shipped"] == pytest.approx(202.0)
    assert figures["migration_messages"] == pytest.approx(202.0 * 1.8)
    assert migration_cost(sink_at(3), sink_at(3), ring(), 2.0)["projections_moved"] == 0.0
    # weighed over a horizon of 101 time units: psi + 363.6 / 101
    assert weighed(replace_psi(sink_at(3), 5.0), figures, 101.0) == pytest.approx(5.0 + 3.6)


def replace_psi(plan: Plan, psi: float) -> Plan:
    from dataclasses import replace

    return replace(plan, psi=psi)


def test_rerouted_link_moves_nothing():
    wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)", selectivity={"A B": 0.01})])
    plan = plan_workload(ring(), wl)
    (a,) = [v for v in plan.vertices if v.projection == "A"]
    middle = sorted(a.forwarding)[1]
    result = repair_plan(plan, ring(), wl, [{"kind": "link-down", "link": list(middle)}])
    # A goes the other way round (3 links); the sink stays at node 3: nothing handed over
    assert result.incremental.psi == pytest.approx(3.0)
    assert result.migration["projections_moved"] == 0.0
    assert result.migration["partial_matches_shipped"] == 0.0
    assert result.affected == ("SEQ(A, B)",)  # A's consumer: its input's graph is touched


def test_affected_by_a_rate_change_are_the_projections_over_the_type():
    net = generate_network(nodes=10, event_types=5, seed=7)
    wl = generate_workload(net, queries=2, length=3, seed=7)
    plan = plan_workload(net, wl)
    a = net.types[0]
    after = net.with_rates({a: net.rate(a) * 3})
    expected = {
        k for k, info in plan.projections.items() if a in info.types and k in plan.combination
    }
    assert affected_projections(plan, net, after) == expected
    assert affected_projections(plan, net, net) == frozenset()


def test_an_empty_focus_moves_nothing():
    net = generate_network(nodes=10, event_types=5, seed=3)
    wl = generate_workload(net, queries=2, length=3, seed=3).or_free
    space = Space()
    central = plan_workload(net, wl, "centralized")
    designs = paper_designs(net, wl, float("inf"), PlanOptions(), central.centralized_node, space)
    evaluate = Evaluator(net, space.pool)
    start = evaluate.variant(designs[0])
    found, cost = improve(evaluate, space.options, start, Budget(50), focus=frozenset())
    assert found.signature() == start.signature() and cost == evaluate(start)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), kind=st.sampled_from(["swap", "link", "node"]))
def test_incremental_never_above_the_repair(seed, kind):
    net = generate_network(nodes=12, event_types=5, seed=seed)
    wl = generate_workload(net, queries=2, length=3, seed=seed)
    plan = plan_workload(net, wl)
    if kind == "swap":
        a, b = net.types[0], net.types[-1]
        changes = [{"kind": "swap-rates", "types": [a, b]}]
    elif kind == "link":
        bridges = {frozenset(e) for e in nx.bridges(net.graph)}
        links = [(u, v) for u, v, _ in net.links if frozenset((u, v)) not in bridges]
        if not links:
            return
        changes = [{"kind": "link-down", "link": list(links[seed % len(links)])}]
    else:
        changes = [{"kind": "node-down", "node": _removable(net)}]
        if changes[0]["node"] is None:
            return
    result = repair_plan(plan, net, wl, changes)
    inc = result.incremental
    assert inc is not None
    assert inc.psi <= result.local.psi * (1 + 1e-9) + 1e-9
    assert inc.psi <= result.repaired.psi * (1 + 1e-9) + 1e-9
    assert check_plan(inc, result.network) == []
    assert set(result.migration) == {
        "projections_moved",
        "vertices_moved",
        "partial_matches_shipped",
        "migration_messages",
    }
    best = repair_plan(plan, net, wl, changes, choose="best")
    assert best.result.psi == min(best.repaired.psi, best.incremental.psi, best.replanned.psi)


def test_replans_counts_the_read_types_whose_rate_changed():
    net = generate_network(nodes=10, event_types=6, seed=5)
    wl = Workload.build(1.0, [Query.build("q", f"SEQ({net.types[0]}, {net.types[1]})")])
    a, c = net.types[0], net.types[2]
    assert replans(net, net, wl) == (0, 2)
    assert replans(net, net.with_rates({c: net.rate(c) * 5}), wl) == (0, 2)  # not read
    assert replans(net, net.with_rates({a: net.rate(a) * 5}), wl) == (1, 2)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_change_of_most_types_rates_is_re_planned(seed):
    """Every type's rate changed: the incremental repair is the cheaper
    of the re-plan and the repaired plan, says so, and counts the re-plan's time."""
    net = generate_network(nodes=12, event_types=4, seed=seed)
    wl = generate_workload(net, queries=2, length=3, seed=seed)
    plan = plan_workload(net, wl)
    shifted = {t: net.rate(t) * (3 + i) for i, t in enumerate(net.types)}
    changes = [{"kind": "set-rate", "type": t, "rate": r} for t, r in shifted.items()]
    result = repair_plan(plan, net, wl, changes)
    assert result.incremental.psi == pytest.approx(min(result.replanned.psi, result.repaired.psi))
    if result.incremental.psi < result.repaired.psi:
        assert any("re-planned" in note for note in result.incremental.notes)
    assert result.seconds["incremental"] >= result.seconds["replanned"]


def test_below_the_share_the_search_runs(monkeypatch):
    """One type of five changes: below REPLAN_SHARE, the search runs (not the re-plan); with
    the share lowered to 0.1 the same change re-plans."""
    net = generate_network(nodes=12, event_types=5, seed=4)
    wl = generate_workload(net, queries=2, length=3, seed=4)
    plan = plan_workload(net, wl)
    t = next(iter(sorted({x for q in wl.queries for x in q.types})))
    changes = [{"kind": "set-rate", "type": t, "rate": net.rate(t) * 20}]
    calls = []
    real = repair_search.replanned_increment

    def spy(*args, **kwargs):
        calls.append(found := real(*args, **kwargs))
        return found

    monkeypatch.setattr("inev.planner.repair.replanned_increment", spy)
    repair_plan(plan, net, wl, changes)
    assert calls == [None]
    monkeypatch.setattr(repair_search, "REPLAN_SHARE", 0.1)
    result = repair_plan(plan, net, wl, changes)
    assert calls[-1] is not None and calls[-1].replanned
    assert result.incremental.psi == pytest.approx(min(result.replanned.psi, result.repaired.psi))


def _removable(net: Network):
    for node in net.nodes:
        rest = net.graph.subgraph([n for n in net.nodes if n != node])
        if nx.is_connected(rest) and all(set(net.sources(t)) - {node} for t in net.types):
            return node
    return None


def test_the_regional_step_follows_the_plan_options(monkeypatch):
    """The incremental repair runs the planner's regional pass only where the options allow
    regional placements, as the planner does (it ran it with ``regional=False`` too)."""
    net = generate_network(nodes=12, event_types=5, seed=4)
    wl = generate_workload(net, queries=2, length=3, seed=4)
    t = next(iter(sorted({x for q in wl.queries for x in q.types})))
    changes = [{"kind": "set-rate", "type": t, "rate": net.rate(t) * 20}]
    calls = []
    real = repair_search._regional

    def spy(*args, **kwargs):
        calls.append(args[4].regional)
        return real(*args, **kwargs)

    monkeypatch.setattr(repair_search, "_regional", spy)
    for regional in (True, False):
        options = PlanOptions(regional=regional)
        repair_plan(plan_workload(net, wl, options=options), net, wl, changes, options=options)
    assert calls == [True]
