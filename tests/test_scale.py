"""Planning without all pairs (issue 17): the sparse helpers against the all-pairs ones."""

from __future__ import annotations

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.planner import progress
from inev.planner.lower_bound import ball_bound
from inev.planner.steiner import exact_steiner, mehlhorn
from inev.topologies.generate import generate_network

instances = st.tuples(st.integers(5, 40), st.integers(0, 10_000), st.integers(2, 8))


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances)
def test_multi_source_hops_equal_the_hop_matrix(case):
    nodes, seed, k = case
    net = generate_network(nodes=nodes, seed=seed)
    rng = np.random.default_rng(seed)
    members = [net.nodes[i] for i in rng.choice(nodes, size=min(k, nodes), replace=False)]
    rows = [net.node_index[m] for m in members]
    assert net.hops_from(members).tolist() == net.hop_matrix[rows].min(axis=0).tolist()
    assert net.hops_row(members[0]).tolist() == net.hop_matrix[rows[0]].tolist()


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances)
def test_mehlhorn_spans_the_terminals_within_twice_the_optimum(case):
    nodes, seed, k = case
    net = generate_network(nodes=nodes, seed=seed)
    rng = np.random.default_rng(seed)
    terminals = [net.nodes[i] for i in rng.choice(nodes, size=min(k, nodes), replace=False)]
    tree = mehlhorn(net, terminals)
    best = exact_steiner(net, terminals)
    graph = nx.Graph(list(tree))
    graph.add_nodes_from(terminals)
    assert nx.is_connected(graph)
    assert all(net.graph.has_edge(u, v) for u, v in tree)
    assert len(best) <= len(tree) <= 2 * len(best)


@settings(derandomize=True, max_examples=40, deadline=None)
@given(instances)
def test_ball_bound_is_below_the_exact_minimum(case):
    nodes, seed, k = case
    net = generate_network(nodes=nodes, seed=seed)
    rng = np.random.default_rng(seed)
    rows = rng.choice(nodes, size=min(k, nodes), replace=False)
    weights = rng.random(len(rows)) * 10
    exact = float((weights @ net.hop_matrix[rows].astype(float)).min())
    assert ball_bound(net, weights) <= exact + 1e-9


def test_ball_bound_on_a_path_by_hand():
    net = generate_network(nodes=4, out_degree=1, seed=0, topology="ring")
    # ring of 4: Δ = 2, within 1 hop at most 3 nodes: distances 0, 1, 1, 2
    assert ball_bound(net, np.array([4.0, 3.0, 2.0, 1.0])) == 0 * 4 + 1 * 3 + 1 * 2 + 2 * 1


def test_progress_reports_stages_of_a_plan():
    from inev.planner.planning import plan_workload
    from inev.workloads.generate import generate_workload

    net = generate_network(seed=1)
    seen = []
    with progress.reporting(lambda name, total, done: seen.append(name)):
        plan_workload(net, generate_workload(net, seed=1))
    assert "placing Alg. 1's designs (Alg. 2)" in seen
    assert any(s.startswith("local search") for s in seen)


def test_sparse_mode_plans_are_valid_and_costed_exactly(monkeypatch):
    """The large-network paths (sites, multi-source searches, Mehlhorn, ball bound) on a
    small network, forced by lowering the threshold: the plan's ψ is the sum of its vertices'
    costs, each forwarding graph reaches its destinations at the recorded hops."""
    import importlib

    lb = importlib.import_module("inev.planner.lower_bound")
    sites_module = importlib.import_module("inev.planner.sites")
    steiner_module = importlib.import_module("inev.planner.steiner")
    network_module = importlib.import_module("inev.topologies.network")
    from inev.planner.checks import check_plan
    from inev.planner.planning import plan_workload
    from inev.planner.steiner import bfs
    from inev.workloads.generate import generate_workload

    for module in (lb, sites_module, steiner_module, network_module):
        monkeypatch.setattr(module, "DENSE_UP_TO", 10)
    monkeypatch.setattr(sites_module, "CENTRAL", 4)
    net = generate_network(nodes=40, event_types=6, seed=3)
    wl = generate_workload(net, queries=3, length=4, seed=3)
    plan = plan_workload(net, wl)
    assert not sites_module.sites(net).dense
    assert check_plan(plan, net) == []
    assert plan.psi <= plan.centralized_cost
    assert 0 <= plan.lower_bound <= plan.psi
    assert abs(plan.psi - sum(v.cost for v in plan.vertices)) <= 1e-9 * plan.psi
    for v in plan.vertices:
        dist = bfs(v.forwarding, v.node) if v.forwarding else {v.node: 0}
        assert tuple(dist[d] for d in v.destinations) == v.hops


def _star(c_rate: float):
    """A star: hub 0, leaves 1-4; A and B at rate 100 at every leaf, C at the hub at
    ``c_rate``; one query AND(A, B, C)."""
    from inev.topologies.network import Network
    from inev.workloads.workload import Query, Workload

    leaves = [1, 2, 3, 4]
    net = Network.build(
        range(5),
        [(0, leaf) for leaf in leaves],
        {"A": (100.0, leaves), "B": (100.0, leaves), "C": (c_rate, [0])},
    )
    return net, Workload.build(1.0, [Query.build("q", "AND(A, B, C)")])


def test_a_plan_no_better_than_centralized_says_which_types_must_meet_and_what_else_costs():
    """A star: A and B (rate 100) at the four leaves, C (rate 100) at the hub. At the hub (the
    centralized node) A and B events travel one link each: 400 + 400 + 0 = 800. Sending A over
    the tree spanning B's sources (the four spokes, 4 links) costs R(A) · 4 = 1600, B over A's
    the same; AND(A, C) has 2 · 400 · 100 matches per window, more than A's 400 events, so no
    projection thins A or B. The plan costs the centralized 800 and says why, with these numbers."""
    from inev.planner.planning import plan_workload

    net, wl = _star(c_rate=100.0)
    plan = plan_workload(net, wl)
    assert plan.psi == 800.0  # kept inev: its plan here is the centralized one
    assert "share of the centralized cost by type: A 50.0%, B 50.0%" in plan.notes
    # keeping A at the leaves needs B (R 400) and C (R 100) over A's 4-link tree: 2000 > 400
    assert (
        "keeping A at its 4 sources: in 1 of its 1 queries no projection thins it, so their "
        "other types must reach its sources' Steiner tree (4 links): >= 2e+03, against A's "
        "whole centralized cost 400"
    ) in plan.notes
    assert (
        "A and B meet in query q: at the centralized node 800 (100.0% of it), A over B's "
        "sources' Steiner tree >= 1.6e+03, B over A's >= 1.6e+03; no projection thins "
        "either, so the centralized way is the cheapest"
    ) in plan.notes


def test_a_rare_type_thins_the_dominant_streams_and_the_plan_goes_in_network():
    """The same star with C at 0.01 per time unit: AND(A, C) carries A at 2 · 400 · 0.01 = 8
    of 400 (0.02), so A and B need not meet raw, and inev beats the centralized 800."""
    from inev.planner.baselines import centralized_plan
    from inev.planner.dominant_pairs import dominance
    from inev.planner.planning import plan_workload, prepare

    net, wl = _star(c_rate=0.01)
    (meeting,) = dominance(net, wl, centralized_plan(net, prepare(net, wl))).meetings
    assert [round(x, 9) for x in meeting.thinned] == [0.02, 0.02]
    assert plan_workload(net, wl).psi < 800.0


def test_a_plan_too_large_to_write_out_is_refused_and_the_next_candidate_kept(monkeypatch):
    """The star with the rare C. The centralized plan lists 9 (vertex, destination) pairs:
    8 leaf vertices and C, each sending to the hub. inev's plan (AND(A, C) and AND(B, C)
    partitioned at the four leaves, the sink also taking C) lists 21: C to the 4 leaves and
    the hub, each A and B vertex to its own leaf (8), and the 8 multi-node vertices to the
    sink. With the limit at 12 its
    placement refuses before writing anything, and the search keeps the centralized plan,
    saying which plan it could not keep and why."""
    from inev.planner import alg2_placement
    from inev.planner.planning import plan_workload

    net, wl = _star(c_rate=0.01)
    assert plan_workload(net, wl).kept == "inev"
    monkeypatch.setattr(alg2_placement, "MAX_DESTINATIONS", 12)
    plan = plan_workload(net, wl)
    assert plan.kept == "centralized" and plan.psi == plan.centralized_cost
    (note,) = [n for n in plan.notes if "was not kept" in n]
    assert "would list about 21 destinations (at most 12 can be written out)" in note
