"""Drawings of plans and simulations: the SVG's structure, the HTML page, the text form."""

from __future__ import annotations

import html
import itertools
import re
import xml.etree.ElementTree as ET

import pytest

from inev.experiments.scene import aliases, plan_scene
from inev.experiments.scene_figure import element_id, save_scene
from inev.experiments.scene_html import page_data, scene_html
from inev.experiments.scene_simulation import simulation_scene
from inev.experiments.scene_text import scene_text
from inev.planner.inev_graph import save_plan
from inev.planner.planning import plan_workload
from inev.simulator.run import simulate
from inev.simulator.simulation_result import save_result
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.io import save_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.io import save_workload, workload_from_dict

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def multi_node():
    """A 20-node instance whose INEv plan has multi-node placements."""
    for seed in range(1, 20):
        net = generate_network(nodes=20, out_degree=3, event_types=6, skew=1.3, seed=seed)
        wl = generate_workload(net, queries=1, length=6, selectivity=0.1, seed=seed)
        plan = plan_workload(net, wl)
        if plan.multi_node and any(v.forwarding for v in plan.vertices if v.inputs):
            return net, wl, plan
    pytest.fail("no seed gives a multi-node plan")


def _groups(path) -> dict[str, ET.Element]:
    root = ET.parse(path).getroot()
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if g.get("id")}


def _expected_links(plan) -> dict[str, set]:
    """Per forwarded projection: the union of its vertices' forwarding links (undirected)."""
    out: dict[str, set] = {}
    for v in plan.vertices:
        for u, w in v.forwarding:
            out.setdefault(v.projection, set()).add(frozenset((u, w)))
    return out


def test_svg_holds_one_edge_per_forwarding_link_and_a_label_per_placement(multi_node, tmp_path):
    net, _, plan = multi_node
    path = save_scene(plan_scene(plan, net), tmp_path / "plan.svg")
    groups = _groups(path)
    alias = aliases(plan)
    expected = _expected_links(plan)
    assert expected, "the plan forwards something"
    for key, links in expected.items():
        group = groups[element_id("forward", alias.get(key, key))]
        assert len(group.findall(f"{SVG}path")) == len(links)
    forwarded = {g for g in groups if g.startswith("forward-")}
    assert len(forwarded) == len(expected)
    # topology: one path per network link
    assert len(groups["topology"].findall(f"{SVG}path")) == len(net.links)
    hosted: dict[object, set[str]] = {}
    for v in plan.vertices:
        if v.inputs:
            hosted.setdefault(v.node, set()).add(
                alias[v.projection] + (f"/{v.partition}" if v.partition else "")
            )
    labels = {g for g in groups if g.startswith("label-")}
    assert labels == {element_id("label", n) for n in hosted}
    for node, names in hosted.items():
        text = "".join(groups[element_id("label", node)].itertext()).strip()
        assert set(text.split(", ")) == names
    partitioned = [n for names in hosted.values() for n in names if "/" in n]
    assert len(partitioned) == sum(len(plan.vertices_of(k)) for k in plan.multi_node)
    # one star per sink node, one circle per other node, one frame for the centralized node
    sink_nodes = {v.node for k in plan.sinks.values() for v in plan.vertices_of(k)}
    assert len(groups["sinks"].findall(f".//{SVG}path")) == len(sink_nodes)
    assert len(groups["nodes"].findall(f".//{SVG}path")) == len(net.nodes) - len(sink_nodes)
    assert len(groups["centralized"].findall(f".//{SVG}path")) == 1


def test_same_plan_gives_the_same_svg_bytes(multi_node, tmp_path):
    net, _, plan = multi_node
    a = save_scene(plan_scene(plan, net), tmp_path / "a.svg").read_bytes()
    b = save_scene(plan_scene(plan, net), tmp_path / "b.svg").read_bytes()
    assert a == b


def test_links_shared_by_inputs_are_drawn_side_by_side(tmp_path):
    # a path 0-1-2: A (node 0) and B (node 1) both travel to the query's node 2
    document = {
        "format": "inev-workload/1",
        "window": 1.0,
        "queries": [{"name": "q", "pattern": "SEQ(A, B, C)"}],
    }
    net = Network.build(
        [0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (1.0, [1]), "C": (50.0, [2])}
    )
    plan = plan_workload(net, workload_from_dict(document), "centralized")
    path = save_scene(plan_scene(plan, net), tmp_path / "p.svg")
    groups = _groups(path)

    def segment(name: str, index: int) -> tuple[float, ...]:
        d = groups[name].findall(f"{SVG}path")[index].get("d")
        return tuple(float(x) for x in re.findall(r"-?\d+\.?\d*", d))

    a = groups["forward-A"].findall(f"{SVG}path")
    b = groups["forward-B"].findall(f"{SVG}path")
    assert len(a) == 2 and len(b) == 1  # A crosses 0-1 and 1-2, B only 1-2
    # the 1-2 segments of A and B are parallel but not on top of each other
    assert segment("forward-A", 1) != segment("forward-B", 0)


def test_arrows_point_the_way_each_input_flows(tmp_path):
    # a path 0-1-2 with the centralized node at 2: A flows 0 -> 1 -> 2, B 1 -> 2
    document = {
        "format": "inev-workload/1",
        "window": 1.0,
        "queries": [{"name": "q", "pattern": "SEQ(A, B, C)"}],
    }
    net = Network.build(
        [0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (1.0, [1]), "C": (50.0, [2])}
    )
    plan = plan_workload(net, workload_from_dict(document), "centralized")
    groups = _groups(save_scene(plan_scene(plan, net), tmp_path / "p.svg"))
    arrows = {g for g in groups if g.startswith("arrow-")}
    assert arrows == {"arrow-A-0-1", "arrow-A-1-2", "arrow-B-1-2"}
    # C is generated at the centralized node: used where it is generated, listed as such
    scene = plan_scene(plan, net)
    local = [o for o in scene.overlays if not o.links]
    assert [(o.key, o.note) for o in local] == [
        ("C", "stays at its sources (used where it is generated)")
    ]
    assert "C events: none sent, stays at its sources" in scene_text(scene)


def test_an_input_partitioning_a_multi_node_projection_is_listed_as_local(multi_node):
    net, _, plan = multi_node
    scene = plan_scene(plan, net)
    alias = aliases(plan)
    sent = {v.projection for v in plan.vertices if v.forwarding}
    used = {plan.vertex(i).projection for v in plan.vertices for i in v.inputs}
    local = {o.key: o.note for o in scene.overlays if not o.links}
    assert set(local) == {alias.get(k, k) for k in used - sent}
    for key, part in plan.multi_node.items():
        if part in local:
            assert f"{alias[key]} partitioned by {part}" in local[part]


def test_text_lists_every_link_and_placement_in_full(multi_node):
    net, _, plan = multi_node
    text = scene_text(plan_scene(plan, net))
    assert "…" not in text and "more" not in text
    alias = aliases(plan)
    paths = {}  # per sending node: its lines' hops, as links
    for line in text.splitlines():
        found = re.match(r"    from node (\S+): (.*)", line)
        if found:
            hops = set()
            for part in found.group(2).split("; "):
                nodes = part.split(": ", 1)[-1].split(" → ")
                hops |= {frozenset(h) for h in itertools.pairwise(nodes)}
            paths.setdefault(found.group(1), set()).update(hops)
    for v in plan.vertices:
        if v.forwarding:  # every link of its tree on a path, written hop by hop
            assert {frozenset((str(u), str(w))) for u, w in v.forwarding} <= paths[str(v.node)]
    for key, short in alias.items():
        assert f"{short} = {key}" in text
    for node in {v.node for v in plan.vertices if v.inputs}:
        assert re.search(rf"^  {node}: ", text, re.MULTILINE)


def test_html_is_one_self_contained_page(multi_node):
    net, _, plan = multi_node
    scene = plan_scene(plan, net)
    page = scene_html(scene)
    assert page.startswith("<!DOCTYPE html>") and page.count("<script>") == 1
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|url\((?!#)|@import", page)
    assert not re.search(r'href="(?!#)', page)
    view = page_data(page)["tabs"][0]["views"][0]
    drawn = [o for o in scene.overlays if o.links]
    assert [o["group"] for o in view["overlays"]] == [element_id("forward", o.key) for o in drawn]
    for overlay in scene.overlays:  # inputs that stay local: listed with why, in the details
        if not overlay.links:
            assert html.escape(f"{overlay.name}: none sent, {overlay.note}") in page


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("sim")
    net = generate_network(nodes=10, event_types=5, skew=1.9, seed=3)
    wl = generate_workload(net, queries=2, length=3, selectivity=0.5, seed=3)
    net = rescale_rates(net, wl.types, 10.0)
    plan = plan_workload(net, wl)
    result = simulate(net, wl, plan, duration=5.0, seed=1)
    save_network(net, folder / "net.json")
    save_workload(wl, folder / "wl.json")
    save_plan(plan, folder / "plan.json")
    save_result(result, folder / "sim.json")
    return folder, net, plan, result


def test_simulation_drawing_colours_each_type_with_widths_on_one_scale(simulated, tmp_path):
    _, net, plan, result = simulated
    path = save_scene(simulation_scene(result, net, plan), tmp_path / "sim.svg")
    groups = _groups(path)
    alias = aliases(plan)
    per_type: dict[str, dict[frozenset, int]] = {}
    for key, kinds in result.messages_by_link_and_type.items():
        u, v = key.split(" ")
        for kind, count in kinds.items():
            link = frozenset((int(u), int(v)))
            per_type.setdefault(kind, {})[link] = per_type.get(kind, {}).get(link, 0) + count
    assert len(per_type) > 1  # several types and projections travel
    largest = max(c for links in per_type.values() for c in links.values())
    for kind, links in per_type.items():
        paths = groups[element_id("messages", alias.get(kind, kind))].findall(f"{SVG}path")
        assert len(paths) == len(links)
        widths = [
            float(re.search(r"stroke-width: ([\d.]+)", p.get("style")).group(1)) for p in paths
        ]
        assert sorted(widths) == pytest.approx(
            sorted(0.6 + 7 * c / largest for c in links.values())
        )
    counted: dict[frozenset, int] = {}
    for key, count in result.messages_by_link.items():
        u, v = key.split(" ")
        link = frozenset((int(u), int(v)))
        counted[link] = counted.get(link, 0) + count
    assert counted == {  # the split adds up to the links' counts
        link: sum(links.get(link, 0) for links in per_type.values()) for link in counted
    }
    for link, count in counted.items():  # each link labelled with its total
        u, v = sorted(link)
        label = groups[element_id("value-messages", f"{u}-{v}")]
        assert "".join(label.itertext()).strip() == f"{count:.3g}"
    for node, count in result.events_processed.items():
        text = "".join(groups[element_id("label", node)].itertext())
        assert f"{count} event" in text


def test_a_simulation_without_the_split_is_drawn_in_one_colour(simulated, tmp_path):
    from dataclasses import replace

    _, net, plan, result = simulated
    old = replace(result, messages_by_link_and_type={})  # a file from before the split
    groups = _groups(save_scene(simulation_scene(old, net, plan), tmp_path / "old.svg"))
    assert len(groups["messages"].findall(f"{SVG}path")) == len(
        {frozenset(k.split(" ")) for k in result.messages_by_link}
    )


def test_draw_command(simulated, run_cli, tmp_path):
    folder, _, _, _ = simulated
    code, out, _ = run_cli(
        "draw", folder / "plan.json", "--network", folder / "net.json", "-o", tmp_path / "p.html"
    )
    assert code == 0 and "-> " in out and (tmp_path / "p.html").is_file()
    code, out, _ = run_cli(
        "draw",
        folder / "sim.json",
        "--network",
        folder / "net.json",
        "--plan",
        folder / "plan.json",
        "--text",
    )
    assert code == 0 and "messages per link" in out and "messages by vertex" in out
    code, _, _ = run_cli("draw", folder / "net.json", "-o", tmp_path / "n.png")
    assert code == 0 and (tmp_path / "n.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["plan.json"], "give -o FILE"),
        (["plan.json", "-o", "x.jpg"], "must end in"),
        (["sim.json", "-o", "x.png"], "needs --network"),
        (["wl.json", "-o", "x.png"], "cannot draw inev-workload/1"),
        (["missing.json", "-o", "x.png"], "no such file"),
    ],
)
def test_draw_errors_are_one_line_without_output(simulated, run_cli, args, message):
    folder = simulated[0]
    before = set(folder.iterdir())
    code, _, err = run_cli("draw", *(str(folder / a) if a.endswith(".json") else a for a in args))
    assert code == 1 and message in err and err.count("\n") == 1
    assert set(folder.iterdir()) == before and not any(p.name.startswith("x.") for p in before)


def test_draw_refuses_to_overwrite_its_own_input(simulated, run_cli, tmp_path):
    folder = simulated[0]
    plan = tmp_path / "plan.svg"  # a plan file under a drawing's name
    plan.write_bytes((folder / "plan.json").read_bytes())
    code, _, err = run_cli("draw", plan, "--network", folder / "net.json", "-o", plan)
    assert code == 1 and "is also the drawn input" in err and err.count("\n") == 1
    assert plan.read_bytes() == (folder / "plan.json").read_bytes()
    code, _, err = run_cli(
        "draw", plan, "--network", folder / "net.json", "-o", folder / "net.json"
    )
    assert code == 1 and "must end in" in err
