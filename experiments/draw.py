"""``inev draw``: a plan, a simulation result or a network on its topology.

The file's ``format`` key says what it is. A plan is drawn with its projections per node
and its forwarding trees (``--network`` adds the links the plan does not use); a simulation
result needs ``--network`` and takes ``--plan`` for its sinks and vertices. The output's
suffix picks the form: ``.png``, ``.svg``, ``.pdf`` (matplotlib) or ``.html`` (one
self-contained page); ``--text`` prints everything in full instead.
"""

from __future__ import annotations

import os
from typing import Any

import click

from inev.common.errors import InevError
from inev.common.files import atomic_output, read_json, read_json_document
from inev.common.help_text import examples
from inev.common.paths import check_paths

KINDS = {
    "inev-plan/1": "plan",
    "inev-sim/1": "simulation",
    "inev-network/1": "network",
}


def file_format(path: str | os.PathLike[str]) -> str:
    """The ``format`` key of a JSON file (one-line error if it has none)."""
    name = os.fspath(path)
    document = read_json(name)  # bounded: size, depth, UTF-8, no NaN (common.files)
    found = document.get("format") if isinstance(document, dict) else None
    if not isinstance(found, str):
        raise InevError(f"{name}: no 'format' key, not an inev file")
    return found


def positions_of(network_file: str | None) -> dict[str, Any] | None:
    """The optional ``positions`` (``{node: [x, y]}``) of a network file."""
    if not network_file:
        return None
    document = read_json_document(network_file, "inev-network/1")
    positions = document.get("positions")
    if positions is None:
        return None
    if not isinstance(positions, dict) or not all(
        isinstance(xy, list) and len(xy) == 2 and all(isinstance(c, int | float) for c in xy)
        for xy in positions.values()
    ):
        raise InevError(f"{network_file}: positions must map nodes to [x, y]")
    return positions


def build_scene(path: str, network_file: str | None, plan_file: str | None) -> Any:
    """The :class:`~inev.experiments.scene.Scene` of any drawable inev file."""
    from inev.experiments.scene import network_scene, plan_scene, simulation_scene
    from inev.planner.inev_graph import load_plan
    from inev.topologies.io import load_network

    kind = KINDS.get(file_format(path))
    if kind is None:
        raise InevError(
            f"{path}: cannot draw {file_format(path)} files (plans, simulation "
            "results and networks can be drawn)"
        )
    network = load_network(network_file) if network_file else None
    positions = positions_of(network_file)
    if kind == "network":
        return network_scene(load_network(path), positions_of(path))
    if kind == "plan":
        return plan_scene(load_plan(path), network, positions, title=os.path.basename(path))
    if network is None:
        raise InevError("drawing a simulation result needs --network (the simulated network)")
    from inev.simulator.simulation_result import load_result

    plan = load_plan(plan_file) if plan_file else None
    return simulation_scene(
        load_result(path), network, plan, positions, title=os.path.basename(path)
    )


@click.command(
    "draw",
    epilog=examples(
        "inev draw plan.json --network net.json -o plan.html",
        "inev draw sim.json --network net.json --plan plan.json -o sim.png",
        "inev draw plan.json --text",
    ),
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="The event network (all links, and the layout's positions if the file has them).",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False),
    help="With a simulation result: the plan it ran (sinks, vertices).",
)
@click.option(
    "-o",
    "--out",
    type=click.Path(dir_okay=False),
    help="Drawing: .png, .svg, .pdf or .html (one self-contained page).",
)
@click.option("--text", is_flag=True, help="Print every placement and link as text instead.")
def draw_command(
    file: str, network_file: str | None, plan_file: str | None, out: str | None, text: bool
) -> None:
    """Draw a plan or a simulation result on its topology (PNG, SVG, HTML or --text)."""
    if not out and not text:
        raise InevError("give -o FILE (.png, .svg, .pdf or .html) or --text")
    if out and not out.lower().endswith((".png", ".svg", ".pdf", ".html")):
        raise InevError(f"{out}: a drawing must end in .png, .svg, .pdf or .html")
    check_paths({"drawn": file, "network": network_file, "plan": plan_file}, out or None)
    scene = build_scene(file, network_file, plan_file)
    if text:
        from inev.experiments.scene_text import scene_text

        click.echo(scene_text(scene))
    if not out:
        return
    if out.lower().endswith(".html"):
        from inev.experiments.scene_html import scene_html

        page = scene_html(scene)
        with atomic_output(out) as handle:
            handle.write(page)
    else:
        from inev.experiments.scene_figure import save_scene

        save_scene(scene, out)
    if not text:
        click.echo(f"draw: {scene.kind} {file} -> {out}")
