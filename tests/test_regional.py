"""Regional placements (issue 28): regions, exact costs, the search, files, repair, execution."""

from __future__ import annotations

import json
import math
import random
import xml.etree.ElementTree as ET
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.experiments.scene import plan_scene
from inev.experiments.scene_figure import save_scene
from inev.experiments.scene_text import scene_text
from inev.planner.alg2_placement import place
from inev.planner.assemble import build_plan
from inev.planner.checks import check_plan
from inev.planner.cost_model import vertex_cost_from_plan
from inev.planner.inev_graph import plan_from_dict, plan_to_dict
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import combine_workload
from inev.planner.planning import plan_workload
from inev.planner.regional import estimates, listed_destinations
from inev.planner.regions import ladder, most_sites, regions
from inev.planner.repair import repair_plan
from inev.simulator.run import simulate
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.pattern import kleene_types
from inev.workloads.workload import Query, Workload

# Two stars of five A sources (hubs 0 and 6, joined over 12 and 13), B at node 12.
STARS = Network.build(
    range(14),
    [(0, leaf) for leaf in range(1, 6)]
    + [(6, leaf) for leaf in range(7, 12)]
    + [(0, 12), (12, 13), (13, 6)],
    {"A": (1.0, [*range(1, 6), *range(7, 12)]), "B": (2.0, [12])},
)
AND_AB = Workload.build(1.0, [Query.build("q", "AND(A, B)", {"A B": 0.1})])


def test_two_stars_are_evaluated_at_their_hubs_for_16_events_per_time_unit():
    # by hand: each A event crosses its leaf link to its hub (10 x 1 x 1); B crosses the
    # three links between the hubs once (3 x 2): 16. Centralized at node 12: A 5 x 2 + 5 x 3
    # = 25; INEv's multi-node placement at the ten sources: B over 13 links, 26
    plan = plan_workload(STARS, AND_AB)
    assert plan.psi == pytest.approx(16.0)
    assert plan.centralized_cost == pytest.approx(25.0)
    sink = plan.vertices_of(plan.sinks["q"])
    assert [(v.node, v.region, v.partition) for v in sink] == [
        (0, (1, 2, 3, 4, 5), "A"),
        (6, (7, 8, 9, 10, 11), "A"),
    ]
    assert check_plan(plan, STARS) == []
    # the cost model of the k search says the same, and the paper's placements cannot
    assert dict(estimates(STARS, "A", [("B", 2.0)], [], [1, 2, 10])) == {1: 27, 2: 16, 10: 26}
    alone = plan_workload(STARS, AND_AB, options=PlanOptions(regional=False))
    assert alone.psi == pytest.approx(25.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(8, 60), st.sampled_from([0.2, 0.5, 1.0]))
def test_regions_partition_the_sources_nearest_site_first(seed, nodes, ratio):
    net = generate_network(nodes=nodes, event_types=3, skew=1.5, node_ratio=ratio, seed=seed)
    for name in net.types:
        found = ladder(net, name)
        hops = net.hop_matrix
        index = net.node_index
        sources = net.sources(name)
        weights = np.asarray(net.source_rates(name))
        # each prefix cost is Σ r · hops to the nearest of the first k sites, never rising
        for k in range(1, most_sites(net, name) + 1):
            rows = [index[s] for s in found.sites[:k]]
            near = hops[np.ix_(rows, [index[n] for n in sources])].min(axis=0)
            assert found.cost[k - 1] == pytest.approx(float(near @ weights))
            cells = regions(net, name, k)
            members = [n for group in cells.members for n in group]
            assert sorted(members, key=index.get) == list(sources)
            assert set(cells.sites) <= set(found.sites[:k]) and all(cells.members)
            for site, group, rate in zip(cells.sites, cells.members, cells.rates, strict=True):
                assert rate == pytest.approx(sum(net.rate_at(name, n) for n in group))
                for n in group:  # no other site is nearer
                    assert hops[index[n], index[site]] == min(hops[index[n], rows])
        assert np.all(np.diff(found.cost) <= 1e-9)


def test_regions_refuse_counts_outside_their_ladder():
    with pytest.raises(InevError, match="1 to 10 sites"):
        regions(STARS, "A", 11)


def _regionalised(net: Network, wl: Workload, k: int):
    """Alg. 1's combination with every projection that can be partitioned regionally so
    partitioned at ``k`` sites (a multi-node one at its type; a single-node one at a direct
    event-type input that no other input holds, neither negated nor Kleene at a sink)."""
    combination, _ = combine_workload(net, wl)
    multi = dict(combination.multi_node)
    sinks = set(combination.sinks.values())
    for key, inputs in combination.inputs.items():
        if key in multi:
            continue
        p = combination.projections[key]
        kleene = kleene_types(p.pattern) if key in sinks else frozenset()
        for e in inputs:
            others = [i for i in inputs if i != e]
            if (
                combination.projections[e].is_primitive
                and e not in p.negated
                and e not in kleene
                and not any(e in combination.projections[i].types for i in others)
            ):
                multi[key] = e
                break
    regional = {
        key: regions(net, part, min(k, most_sites(net, part)))
        for key, part in multi.items()
        if len(net.sources(part)) > 1
    }
    combination = replace(combination, multi_node=multi, regional=regional)
    return build_plan(net, combination, place(net, combination), "inev"), regional


@pytest.mark.parametrize("seed", range(6))
def test_regional_execution_finds_the_centralized_matches(seed):
    # every operator: SEQ, AND, Kleene closure (seeds 1, 3, 5) and negation (seeds 0, 3)
    net = generate_network(nodes=14, event_types=5, skew=1.3, node_ratio=0.6, seed=seed)
    wl = generate_workload(
        net, queries=2, length=3, selectivity=0.3, kleene=seed % 2, negation=seed % 3 == 0,
        seed=seed,
    )  # fmt: skip
    wl = Workload.build(wl.window, list(wl.queries))
    net = rescale_rates(net, wl.types, 8.0)
    plan, regional = _regionalised(net, wl, 2)
    assert regional, "the instance has a regional placement"
    assert check_plan(plan, net) == []
    result = simulate(net, wl, plan, duration=20.0, seed=seed)
    assert result.equal_to_centralized


def _scaled_down() -> tuple[Network, Workload]:
    """200 nodes (mean degree 3): A at 100 sources (0.3 per time unit each), B, C and D at
    a few; AND(A, B) and AND(A, C, D) with selectivity 0.5 (issue 28's simulable instance)."""
    top = generate_network(nodes=200, out_degree=3, event_types=1, skew=1.3, seed=4)
    rng = random.Random(4)
    nodes = list(top.nodes)

    def pick(k: int) -> list:
        return sorted(rng.sample(nodes, k), key=top.node_index.get)

    types = {"A": (0.3, pick(100)), "B": (0.5, pick(4)), "C": (0.3, pick(3)), "D": (0.2, pick(5))}
    net = Network.build(nodes, [(u, v) for u, v, _ in top.links], types)
    wl = Workload.build(
        1.0,
        [
            Query.build("q1", "AND(A, B)", {"A B": 0.5}),
            Query.build("q2", "AND(A, C, D)", {"A C": 0.5, "A D": 0.5, "C D": 0.5}),
        ],
    )
    return net, wl


def test_a_regional_plan_of_200_nodes_simulates_as_modelled():
    # INEv's own placements find nothing better than centralized (1.000); the ladder's
    # regional plan evaluated both queries at four sites near A's sources (0.814 of
    # centralized, 3.7 % under ψ · duration simulated); the sites searched for the whole cost
    # (inev.planner.site_search) are cheaper still, and simulate as modelled too
    net, wl = _scaled_down()
    plan = plan_workload(net, wl)
    alone = plan_workload(net, wl, options=PlanOptions(regional=False))
    assert alone.ratio > 0.999
    assert plan.ratio < 0.8
    assert all(len(plan.vertices_of(k)) > 1 for k in plan.multi_node)
    assert all(v.region for k in plan.multi_node for v in plan.vertices_of(k))
    result = simulate(net, wl, plan, duration=60.0, seed=1)
    assert result.equal_to_centralized
    assert abs(result.model_deviation) <= 0.1


def test_plan_files_keep_regions_and_plans_without_them_are_unchanged():
    plan = plan_workload(STARS, AND_AB)
    document = json.loads(json.dumps(plan_to_dict(plan)))
    written = [v for v in document["vertices"] if "region" in v]
    assert [v["region"] for v in written] == [[1, 2, 3, 4, 5], [7, 8, 9, 10, 11]]
    back = plan_from_dict(document)
    assert back.vertices == plan.vertices
    assert sum(vertex_cost_from_plan(back, v) for v in back.vertices) == pytest.approx(16.0)
    paper = plan_to_dict(plan_workload(STARS, AND_AB, options=PlanOptions(regional=False)))
    assert all("region" not in v for v in paper["vertices"])
    # a region needs a partitioning type
    bad = json.loads(json.dumps(document))
    sink = next(v for v in bad["vertices"] if "region" in v)
    sink["partition"] = None
    with pytest.raises(InevError, match="has a region but no partitioning type"):
        plan_from_dict(bad)


def test_checks_catch_regions_that_do_not_partition_the_sources():
    plan = plan_workload(STARS, AND_AB)
    _, second = plan.vertices_of(plan.sinks["q"])
    broken = replace(
        plan,
        vertices=tuple(
            replace(v, region=v.region[:-1]) if v.id == second.id else v for v in plan.vertices
        ),
    )
    assert any("do not partition f(A)" in p for p in check_plan(broken, STARS))
    assert any(f"vertex {second.id}: its A inputs are not" in p for p in check_plan(broken, STARS))


def test_repair_keeps_regions_and_chooses_them_anew_when_a_site_is_lost():
    net, wl = _scaled_down()
    plan = plan_workload(net, wl)
    site = plan.vertices_of(plan.sinks["q1"])[0].node
    for changes in (
        [{"kind": "set-rate", "type": "B", "rate": 0.6}],
        [{"kind": "node-down", "node": site}],
    ):
        result = repair_plan(plan, net, wl, changes)
        local = result.local
        assert check_plan(local, result.network) == []
        sites = [v.node for v in local.vertices_of(local.sinks["q1"])]
        assert all(v.region for v in local.vertices_of(local.sinks["q1"]))
        assert (site in sites) == (changes[0]["kind"] == "set-rate")


def test_listed_destinations_count_every_vertex_of_a_partitioned_input():
    _, regional = _regionalised(STARS, AND_AB, 2)
    combination, _ = combine_workload(STARS, AND_AB)
    combination = replace(combination, multi_node={"AND(A, B)": "A"}, regional=regional)
    assert listed_destinations(STARS, combination) == 2  # B's one vertex lists the two sites
    assert listed_destinations(STARS, replace(combination, regional={})) == 10


def test_a_best_count_that_cannot_be_written_out_gives_way_to_the_largest_that_can(monkeypatch):
    # A at the ten nodes of a path 0-9 (rate 1 each), B at node 10 past 9 (rate 0.3). INEv's
    # placement at all ten sources is cheapest (B over 9 + 1 links: 3.0) and B lists ten
    # destinations; allowed five (as the 10,000-node plans are allowed 20 million), the ladder's
    # largest count below ten listing at most five is 4: sites 1, 4, 7, 8. By hand: A's events
    # 2 + 2 + 1 + 1 = 6 hops, B 0.3 x (7 tree links + 2 to reach it) = 2.7; 8.7 against the
    # centralized 26.8 (before, the unlistable design was kept, and at scale its plan then
    # gave way to the centralized one)
    net = Network.build(
        range(11), [(i, i + 1) for i in range(10)], {"A": (1.0, list(range(10))), "B": (0.3, [10])}
    )
    assert plan_workload(net, AND_AB).psi == pytest.approx(3.0)
    monkeypatch.setattr("inev.planner.regional.MAX_DESTINATIONS", 5)
    # the limit is lowered for the regional pass alone; the exact search that ends the search
    # on small networks checks the real one, and would keep the 3.0 design: left out here
    plan = plan_workload(net, AND_AB, options=PlanOptions(exact_steps=0))
    assert plan.psi == pytest.approx(8.7)
    sink = plan.vertices_of(plan.sinks["q"])
    assert sorted((v.node, v.region) for v in sink) == [
        (1, (0, 1, 2)),
        (4, (3, 4, 5)),
        (7, (6, 7)),
        (8, (8, 9)),
    ]
    assert check_plan(plan, net) == []


@settings(max_examples=20, deadline=None)
@given(
    st.integers(0, 10_000),
    st.integers(10, 40),
    st.sampled_from([1.1, 1.3, 1.6]),
    st.integers(1, 3),
    st.sampled_from([0.1, 0.01]),
)
def test_regional_placements_never_make_a_plan_worse(seed, nodes, skew, queries, selectivity):
    net = generate_network(nodes=nodes, event_types=8, skew=skew, node_ratio=0.5, seed=seed)
    wl = generate_workload(net, queries=queries, length=4, selectivity=selectivity, seed=seed)
    plan = plan_workload(net, wl)
    paper = plan_workload(net, wl, options=PlanOptions(regional=False))
    assert plan.psi <= paper.psi * (1 + 1e-9)
    assert check_plan(plan, net) == []
    assert math.isclose(sum(v.cost for v in plan.vertices), plan.psi, rel_tol=1e-9)


def test_drawings_ring_each_region_in_its_colour(tmp_path):
    plan = plan_workload(STARS, AND_AB)
    scene = plan_scene(plan, STARS)
    assert {m.node: m.region for m in scene.nodes if m.region is not None} == {
        **dict.fromkeys([0, 1, 2, 3, 4, 5], 0),
        **dict.fromkeys([6, 7, 8, 9, 10, 11], 1),
    }
    root = ET.parse(save_scene(scene, tmp_path / "plan.svg")).getroot()
    groups = {g.get("id"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert len(groups["regions"].findall(".//{http://www.w3.org/2000/svg}use")) == 12
    text = scene_text(scene)
    assert "P1 = AND(A, B) (partitioned by A regionally at 2 sites)" in text
    assert "A events to site 6 (P1 region 1)" in text
    assert "regions:" in text
