"""``inev network …``: generate and inspect event networks."""

from __future__ import annotations

import click

from inev.common.click_options import seed_option
from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.words import plural
from inev.topologies.generate import (
    TOPOLOGIES,
    build_topology,
    generate_network,
    network_from_topology,
)
from inev.topologies.io import (
    connected_part,
    drawing_keys,
    load_network,
    read_topology,
    save_network,
)
from inev.topologies.tables import distances_text, network_heading, network_table
from inev.topologies.trace_cli import from_trace_command


@click.group(
    "network",
    epilog=examples(
        "inev network generate --nodes 20 --event-types 6 --seed 1 -o net.json",
        "inev network show net.json",
    ),
)
def network_group() -> None:
    """Generate and inspect event networks (inev-network/1 JSON)."""


@network_group.command(
    "generate",
    epilog=examples(
        "inev network generate --nodes 20 --out-degree 3 --event-types 6 --skew 1.3 --node-ratio 0.5 --seed 1 -o net.json",
        "inev network generate --nodes 100 --topology grid --seed 2 -o grid.json",
        "inev network generate --from-file Geant2011.graphml --largest-component -o geant.json",
    ),
)
@click.option("--nodes", default=20, show_default=True, help="Number of nodes.")
@click.option("--out-degree", default=3.0, show_default=True, help="Average node degree.")
@click.option("--event-types", default=6, show_default=True, help="Number of event types.")
@click.option("--skew", default=1.3, show_default=True, help="Zipf exponent of the rates (> 1).")
@click.option(
    "--node-ratio", default=0.5, show_default=True, help="Share of types each node generates."
)
@click.option(
    "--topology",
    type=click.Choice(TOPOLOGIES),
    default="degree",
    show_default=True,
    help="Topology kind ('ws' is the paper's networkx Watts-Strogatz).",
)
@click.option(
    "--from-file",
    "from_file",
    type=click.Path(dir_okay=False),
    help="Use a real topology (GraphML or edge list) instead of generating one.",
)
@click.option(
    "--largest-component",
    is_flag=True,
    help="With --from-file: keep the largest connected part of a disconnected topology.",
)
@seed_option("the generated network")
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Output JSON file."
)
def generate_command(
    nodes: int,
    out_degree: float,
    event_types: int,
    skew: float,
    node_ratio: float,
    topology: str,
    from_file: str | None,
    largest_component: bool,
    seed: int,
    out: str,
) -> None:
    """Generate a synthetic event network as in the INEv paper (section 7.1)."""
    check_paths({"topology": from_file}, out)
    left_out = 0
    drawing = None
    if from_file:
        import numpy as np

        rng = np.random.default_rng(seed)
        graph, left_out = connected_part(read_topology(from_file), from_file, largest_component)
        network = network_from_topology(graph, event_types, skew, node_ratio, rng)
        drawing = drawing_keys(graph.subgraph(network.nodes))
    else:
        if largest_component:
            raise InevError("--largest-component applies to --from-file topologies only")
        network = generate_network(nodes, out_degree, event_types, skew, node_ratio, seed, topology)
    save_network(network, out, drawing)
    s = network.summary()
    kept = f" (largest component; {plural(left_out, 'node')} left out)" if left_out else ""
    click.echo(
        f"network: {plural(s['nodes'], 'node')}{kept}, {plural(s['links'], 'link')}, mean "
        f"degree {s['mean_degree']:.2f}, {distances_text(s)}, "
        f"{plural(len(network.types), 'event type')} -> {out}"
    )


@network_group.command(
    "show",
    epilog=examples(
        "inev network show net.json",
    ),
)
@click.argument("network_file", type=click.Path(dir_okay=False))
def show_command(network_file: str) -> None:
    """Summarise a network: nodes, links, diameter, types with rates and sources."""
    check_paths({"network": network_file})
    from rich.console import Console

    network = load_network(network_file)
    console = Console()
    console.print(f"[bold]{network_file}[/]: {network_heading(network)}")
    console.print(network_table(network))


# measured from a trace; the command lives with the trace commands
network_group.add_command(from_trace_command)

__all__ = ["build_topology", "network_group"]
