"""The drawing page, the projection graph, groups, filters and comparisons (issue 48).

The page's data is checked against the scene it was made from; where a headless Chromium is
on the machine (``tests/browser.py``), the page's script is run and what it drew is read
back: one line per overlay link, every label clear of every marker and of the centralized
node's frame.
"""

from __future__ import annotations

import math
import re

import networkx as nx
import pytest
from browser import dump_dom, marks, overlap
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.experiments.scene import aliases, plan_scene
from inev.experiments.scene_diff import comparison_scene, comparison_scenes, link_rates
from inev.experiments.scene_html import page_data, scene_html
from inev.experiments.scene_layout import layout
from inev.experiments.scene_logical import logical_scene
from inev.experiments.scene_scale import filter_scene, grouped_scene, groups_of
from inev.planner.inev_graph import save_plan
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.topologies.network_entries import link_key
from inev.workloads.generate import generate_workload

QUICK = PlanOptions(effort=0.0, exact_steps=0)
"""The paper's single pass: these tests look at drawings of plans, not at their quality."""


def _instance(seed: int, nodes: int = 20, queries: int = 2):
    net = generate_network(nodes=nodes, out_degree=3, event_types=6, skew=1.3, seed=seed)
    wl = generate_workload(net, queries=queries, length=4, selectivity=0.1, seed=seed)
    return net, wl, plan_workload(net, wl, options=QUICK)


@pytest.fixture(scope="module")
def planned():
    """A 20-node plan with a multi-node placement and forwarding on several inputs."""
    for seed in range(1, 30):
        net, wl, plan = _instance(seed)
        if plan.multi_node and sum(1 for v in plan.vertices if v.forwarding) > 5:
            return net, wl, plan
    pytest.fail("no seed gives a multi-node plan")


# ---------------------------------------------------------------------- the page's data
def test_page_data_is_the_scene_and_the_page_loads_nothing(planned):
    net, _, plan = planned
    scene = plan_scene(plan, net)
    page = scene_html(scene, logical_scene(plan))
    assert not re.search(
        r"<(link|img|iframe)\b|\bsrc=|url\((?!#)|@import|https?://(?!www\.w3\.org/2000/svg\b)", page
    )
    data = page_data(page)
    assert [t["name"] for t in data["tabs"]] == ["Topology", "Projection graph"]
    view = data["tabs"][0]["views"][0]
    ids = [n["id"] for n in view["nodes"]]
    drawn = {o.key: o for o in scene.overlays if o.links}
    assert {o["key"] for o in view["overlays"]} == set(drawn)
    for o in view["overlays"]:  # every link with its figure, by node index
        expected = sorted((str(u), str(v), x) for u, v, x in drawn[o["key"]].links)
        assert sorted((ids[i], ids[j], x) for i, j, x in o["links"]) == expected
    local = {o["key"]: o["note"] for o in view["local"]}
    assert local == {o.key: o.note for o in scene.overlays if not o.links}
    alias = aliases(plan)
    for query, key in plan.sinks.items():  # a query highlights its sink's inputs and more
        q = view["queries"][query]
        assert alias[key] in q["projections"]
        inputs = {alias.get(k, k) for k in plan.combination[key]}
        assert inputs <= set(q["inputs"])
        assert sorted(ids[i] for i in q["sinks"]) == sorted(
            str(v.node) for v in plan.vertices_of(key)
        )


def test_the_page_draws_one_line_per_link_and_no_label_over_a_marker(planned, tmp_path):
    net, _, plan = planned
    scene = plan_scene(plan, net)
    path = tmp_path / "plan.html"
    path.write_text(scene_html(scene, logical_scene(plan)), encoding="utf-8")
    dom = dump_dom(path)
    if dom is None:
        pytest.skip("no headless Chromium on this machine")
    drawn = marks(dom)
    assert drawn.body.get("data-ready") == "1"
    assert len(drawn.markers) == len(scene.nodes)  # every node drawn, where it is
    for o in scene.overlays:
        if o.links:
            assert drawn.groups[o.group] == len(o.links)
    assert drawn.groups["topology"] == len(scene.links)
    assert len(drawn.frames) == 1  # the centralized node
    assert drawn.labels, "no label drawn"
    for label in drawn.labels:
        assert not any(overlap(label, f) for f in drawn.frames)
        hidden = [n for n, box in drawn.markers.items() if overlap(label, box)]
        assert hidden == []
    for a, b in zip(drawn.labels, drawn.labels[1:], strict=False):
        assert not overlap(a, b)
    graph = marks(dump_dom(path, address="tab=2"))  # the projection graph's tab
    boxes = logical_scene(plan).boxes
    assert len(graph.boxes) == len(boxes)


# ---------------------------------------------------------------------- the projection graph
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(1, 400), queries=st.integers(1, 3))
def test_the_projection_graph_is_the_plans_combination(seed, queries):
    _, _, plan = _instance(seed, nodes=12, queries=queries)
    view = logical_scene(plan)
    alias = aliases(plan)
    by_key = {b.key: b for b in view.boxes}
    assert {b.key for b in view.boxes if b.kind == "projection"} == set(alias)
    expected = {(i, key) for key in alias for i in plan.combination[key]}
    assert {(a.source, a.target) for a in view.arrows} == expected
    for a in view.arrows:
        assert by_key[a.target].layer > by_key[a.source].layer
        vertices = plan.vertices_of(a.source)
        assert a.rate == pytest.approx(
            sum(v.rate for v in vertices) if vertices else plan.type_rates[a.source][1]
        )
        assert a.local == (not any(v.forwarding for v in vertices))
    for key in alias:
        b = by_key[key]
        assert b.multi == (
            key in plan.multi_node and not any(v.region for v in plan.vertices_of(key))
        )
        assert b.sinks == tuple(sorted(q for q, k in plan.sinks.items() if k == key))
    for query, key in plan.sinks.items():
        upstream = set(view.queries[query])
        assert key in upstream
        assert all(i in upstream for k in upstream for i in plan.combination.get(k, ()))


def test_the_projection_graph_of_a_hand_made_chain():
    from inev.planner.inev_graph import Plan, ProjectionInfo, Vertex

    info = {
        "SEQ(A, B)": ProjectionInfo("SEQ(A, B)", "SEQ(A, B)", ("A", "B"), (), 0.5, ()),
        "SEQ(A, B, C)": ProjectionInfo(
            "SEQ(A, B, C)", "SEQ(A, B, C)", ("A", "B", "C"), (), 0.1, ()
        ),
    }
    vertices = (
        Vertex(0, "A", 0, forwarding=((0, 1),), rate=2.0, cost=2.0),
        Vertex(1, "B", 1, rate=1.0),
        Vertex(2, "C", 2, rate=3.0),
        Vertex(3, "SEQ(A, B)", 1, inputs=(0, 1), forwarding=((1, 2),), output=("A",), rate=0.4,
               cost=0.4),
        Vertex(4, "SEQ(A, B, C)", 2, inputs=(3, 2), rate=0.1),
    )  # fmt: skip
    plan = Plan(
        "inev",
        vertices,
        info,
        {"SEQ(A, B)": ("A", "B"), "SEQ(A, B, C)": ("SEQ(A, B)", "C")},
        {},
        {"q": "SEQ(A, B, C)"},
        {"A": (2.0, 2.0), "B": (1.0, 1.0), "C": (3.0, 3.0)},
    )
    view = logical_scene(plan)
    assert [(b.title, b.layer) for b in view.boxes] == [
        ("A", 0), ("B", 0), ("C", 0), ("P1", 1), ("P2", 2)
    ]  # fmt: skip
    arrow = next(a for a in view.arrows if a.source == "SEQ(A, B)")
    assert (arrow.rate, arrow.forwarded, arrow.local) == (0.4, "A events of P1 matches", False)
    assert view.box("SEQ(A, B, C)").sinks == ("q",)
    assert view.queries["q"] == ("SEQ(A, B, C)", "C", "SEQ(A, B)", "B", "A")


# ---------------------------------------------------------------------- groups and filters
@settings(max_examples=8, deadline=None)
@given(seed=st.integers(1, 400))
def test_groups_keep_every_figure(seed):
    net, _, plan = _instance(seed, nodes=40)
    scene = plan_scene(plan, net)
    groups, how = groups_of(scene, plan)
    assert sorted(n for g in groups for n in g) == sorted(net.nodes)  # each node once
    small = grouped_scene(scene, groups, how)
    group_of = {n: m.node for m in small.nodes for n in m.members}
    for before, after in zip(scene.overlays, small.overlays, strict=True):
        inside = math.fsum(x for u, v, x in before.links if group_of[u] == group_of[v])
        assert math.fsum(x for _, _, x in after.links) + inside == pytest.approx(before.total)
    for m in small.nodes:
        roles = {r for n in m.members for r in scene.mark(n).roles}
        assert set(m.roles) == roles


def test_filters_keep_a_query_an_input_or_a_neighbourhood(planned):
    net, _, plan = planned
    scene = plan_scene(plan, net)
    query = sorted(plan.sinks)[0]
    kept = filter_scene(scene, queries=[query])
    assert {o.key for o in kept.overlays} == {
        o.key for o in scene.overlays if o.key in scene.queries[query].inputs
    }
    first = next(o.key for o in scene.overlays if o.links)
    assert [o.key for o in filter_scene(scene, inputs=[first]).overlays] == [first]
    centre = plan.centralized_node
    near = filter_scene(scene, around=str(centre), radius=2)
    graph = nx.Graph([(u, v) for u, v, _ in net.links])
    within = {n for n, d in nx.single_source_shortest_path_length(graph, centre).items() if d <= 2}
    assert {m.node for m in near.nodes} == within
    assert all(u in within and v in within for o in near.overlays for u, v, _ in o.links)


@pytest.mark.parametrize(
    ("kind", "value", "message"),
    [("queries", ["nope"], "queries nope: the drawing has no such query"),
     ("inputs", ["Z"], "inputs Z: the drawing has no such input"),
     ("around", "999", "around 999: the drawing has no such node")],
)  # fmt: skip
def test_a_filter_naming_nothing_is_refused(planned, kind, value, message):
    from inev.common.errors import InevError

    net, _, plan = planned
    with pytest.raises(InevError, match="^" + re.escape(message)):
        filter_scene(plan_scene(plan, net), **{kind: value})


def test_a_large_layout_is_seeded_and_grouped():
    net = generate_network(nodes=700, out_degree=3, event_types=3, skew=1.3, seed=5)
    links = [(u, v) for u, v, _ in net.links]
    first, second = layout(net.nodes, links), layout(net.nodes, links)
    assert first == second and set(first) == set(net.nodes)
    assert all(math.isfinite(c) for xy in first.values() for c in xy)


# ---------------------------------------------------------------------- comparisons
def test_a_plan_against_itself_changes_nothing(planned):
    net, _, plan = planned
    scene = comparison_scene(plan, plan, net)
    assert [o.links for o in scene.overlays] == [(), ()]
    assert all(m.label == "" for m in scene.nodes)
    figures = {f.key: f.value for f in scene.figures}
    assert figures["psi_ratio"] == 1.0 and figures["moved"] == 0


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(1, 300))
def test_the_difference_adds_up_to_the_change_in_psi(seed):
    net, wl, plan = _instance(seed, nodes=14)
    other = plan_workload(net, wl, "centralized", QUICK)
    scene = comparison_scene(plan, other, net)
    gains, losses = scene.overlays
    change = math.fsum(x for *_, x in gains.links) - math.fsum(x for *_, x in losses.links)
    assert change == pytest.approx(other.psi - plan.psi, rel=1e-9, abs=1e-9)
    before, after = link_rates(plan), link_rates(other)
    for u, v, x in gains.links:
        assert after.get(link_key(u, v), 0.0) - before.get(link_key(u, v), 0.0) == pytest.approx(x)
    difference, a, b = comparison_scenes(plan, other, net)
    assert [(m.x, m.y) for m in a.nodes] == [(m.x, m.y) for m in b.nodes]  # one layout
    shared = set(aliases(plan)) & set(aliases(other))
    assert all(
        aliases(plan)[k] in {line.split(" ")[0] for line in difference.legend} for k in shared
    )


# ---------------------------------------------------------------------- the command
def test_draw_logical_vs_and_filters_from_the_command_line(planned, run_cli, tmp_path):
    net, wl, plan = planned
    save_network(net, tmp_path / "net.json")
    save_plan(plan, tmp_path / "plan.json")
    save_plan(plan_workload(net, wl, "centralized"), tmp_path / "central.json")
    code, out, _ = run_cli("draw", tmp_path / "plan.json", "--logical", "--text")
    assert code == 0 and "layer 0:" in out and "arrows (events / time unit):" in out
    for suffix in ("png", "svg", "html"):
        code, out, _ = run_cli(
            "draw", tmp_path / "plan.json", "--logical", "-o", tmp_path / f"g.{suffix}"
        )
        assert code == 0 and f"-> {tmp_path / f'g.{suffix}'}" in out
    assert "projection graph" in (tmp_path / "g.svg").read_text(encoding="utf-8")
    code, out, _ = run_cli(
        "draw", tmp_path / "plan.json", "--vs", tmp_path / "central.json", "--network",
        tmp_path / "net.json", "-o", tmp_path / "vs.html",
    )  # fmt: skip
    assert code == 0
    tabs = page_data((tmp_path / "vs.html").read_text(encoding="utf-8"))["tabs"]
    assert [t["name"] for t in tabs] == ["Difference", "Side by side"]
    assert [v["name"] for v in tabs[1]["views"]] == ["plan.json", "central.json"]
    query = sorted(plan.sinks)[0]
    code, out, _ = run_cli(
        "draw", tmp_path / "plan.json", "--network", tmp_path / "net.json", "--query", query,
        "--around", str(plan.centralized_node), "--text",
    )  # fmt: skip
    assert code == 0 and f"(queries {query})" in out and "(around node " in out
    code, _, err = run_cli("draw", tmp_path / "plan.json", "--query", "nope", "--text")
    assert code == 1 and "--query nope" in err and err.count("\n") == 1


def test_a_graphml_topology_keeps_its_coordinates_and_city_names(run_cli, tmp_path):
    graphml = tmp_path / "t.graphml"
    nodes = "".join(
        f'<node id="{i}"><data key="lat">{lat}</data><data key="lon">{lon}</data>'
        f'<data key="name">{name}</data></node>'
        for i, (lat, lon, name) in enumerate(
            [(47.6, -122.3, "Seattle"), (39.7, -105.0, "Denver"), (40.7, -74.0, "New York")]
        )
    )
    graphml.write_text(
        '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key attr.name="Latitude" attr.type="double" for="node" id="lat"/>'
        '<key attr.name="Longitude" attr.type="double" for="node" id="lon"/>'
        '<key attr.name="label" attr.type="string" for="node" id="name"/>'
        f'<graph edgedefault="undirected">{nodes}<edge source="0" target="1"/>'
        '<edge source="1" target="2"/></graph></graphml>',
        encoding="utf-8",
    )
    code, _, _ = run_cli(
        "network", "generate", "--from-file", graphml, "--event-types", "2", "-o",
        tmp_path / "net.json",
    )  # fmt: skip
    assert code == 0
    import json

    document = json.loads((tmp_path / "net.json").read_text(encoding="utf-8"))
    assert document["labels"] == {"0": "Seattle", "1": "Denver", "2": "New York"}
    scale = math.cos(math.radians((47.6 + 39.7 + 40.7) / 3))
    assert document["positions"]["0"] == pytest.approx([-122.3 * scale, 47.6])
    code, _, _ = run_cli("draw", tmp_path / "net.json", "-o", tmp_path / "net.html")
    assert code == 0
    names = [
        n["name"]
        for n in page_data((tmp_path / "net.html").read_text("utf-8"))["tabs"][0]["views"][0][
            "nodes"
        ]
    ]
    assert names == ["Seattle", "Denver", "New York"]
