"""``inev draw FILE``: the command over :mod:`inev.experiments.draw` (which builds and
renders the drawings); it checks its flags, picks the mode and writes or prints.
"""

from __future__ import annotations

import click

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.experiments.draw import FORMS, MODES, DrawOptions


def mode_of(options: DrawOptions) -> str:
    """Which of :data:`MODES` draws ``options``."""
    if sum((options.logical, options.vs is not None, options.timeline)) > 1:
        raise InevError("give one of --logical, --vs and --timeline")
    if options.timeline:
        return "timeline"
    if options.vs:
        return "vs"
    return "logical" if options.logical else "topology"


@click.command(
    "draw",
    epilog=examples(
        "inev draw plan.json --network net.json -o plan.html",
        "inev draw plan.json --logical -o graph.png",
        "inev draw repaired.json --vs plan.json --network net.json -o change.html",
        "inev draw plan.json --network net.json --query q1 --around 7 -o q1.html",
        "inev draw sim.json --network net.json --plan plan.json -o sim.png",
        "inev draw sim.json --timeline -o timeline.png",
        "inev draw plan.json --text",
    ),
)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="The event network (all links; the file's positions and labels place and name nodes).",
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
    help="Drawing: .png, .svg, .pdf or .html (one self-contained, interactive page).",
)
@click.option("--text", is_flag=True, help="Print every placement and link as text instead.")
@click.option(
    "--logical",
    is_flag=True,
    help="Draw the plan's projection graph (which projection feeds which).",
)
@click.option(
    "--vs",
    "vs_file",
    type=click.Path(dir_okay=False),
    help="A second plan: draw what changes from FILE to it (and, in a page, both side by side).",
)
@click.option(
    "--timeline",
    is_flag=True,
    help="With a simulation result: messages, matches and detection latency over time, "
    "changes marked (no --network needed).",
)
@click.option("--query", "queries", multiple=True, help="Keep what this query needs (repeatable).")
@click.option(
    "--input", "inputs", multiple=True, help="Keep this input, e.g. A or P2 (repeatable)."
)
@click.option("--around", default=None, help="Keep the nodes within --hops of this node.")
@click.option(
    "--hops", type=click.IntRange(min=1), default=2, show_default=True, help="Radius of --around."
)
@click.option(
    "--group-above",
    type=click.IntRange(min=0),
    default=None,
    help="Draw groups of nodes above this many nodes (default 300; 0: never).",
)
def draw_command(
    file: str,
    network_file: str | None,
    plan_file: str | None,
    out: str | None,
    text: bool,
    logical: bool,
    vs_file: str | None,
    queries: tuple[str, ...],
    inputs: tuple[str, ...],
    around: str | None,
    hops: int,
    group_above: int | None,
    timeline: bool,
) -> None:
    """Draw a plan, its projection graph, two plans' difference, a simulation or its
    timeline (PNG, SVG, PDF, an interactive HTML page, or --text)."""
    if not out and not text:
        raise InevError("give -o FILE (.png, .svg, .pdf or .html) or --text")
    if out and not out.lower().endswith(FORMS):
        raise InevError(f"{out}: a drawing must end in .png, .svg, .pdf or .html")
    check_paths({"drawn": file, "network": network_file, "plan": plan_file, "vs": vs_file}, out)
    options = DrawOptions(
        file,
        network_file,
        plan_file,
        logical,
        vs_file,
        queries,
        inputs,
        around,
        hops,
        group_above,
        timeline,
    )
    drawn = MODES[mode_of(options)](options)
    if text:
        click.echo(drawn.text())
    if not out:
        return
    if out.lower().endswith(".html"):
        page = drawn.page()
        with atomic_output(out) as handle:
            handle.write(page)
    else:
        drawn.save(out)
    if not text:
        click.echo(f"draw: {drawn.kind} {file} -> {out}")
