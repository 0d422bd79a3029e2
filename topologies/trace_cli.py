"""``inev trace …``: synthetic traces for tests and demos."""

from __future__ import annotations

import click

from inev.common.click_options import seed_option
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.topologies.io import load_network
from inev.topologies.trace_generator import (
    PROFILES,
    TRACE_DEFAULTS,
    TraceOptions,
    generate_trace_file,
)


@click.group(
    "trace",
    epilog=examples(
        "inev trace generate --nodes 4 --types 3 --events 40 --duration 20 --seed 1 -o trace.csv",
    ),
)
def trace_group() -> None:
    """Generate event traces (CSV or Parquet: time, type, node, id, attributes)."""


@trace_group.command(
    "generate",
    epilog=examples(
        "inev trace generate --nodes 4 --types 3 --events 40 --duration 20 --keys 3 --key-name v --seed 1 -o trace.csv",
        "inev trace generate --nodes 20 --types 4 --events 100000 --duration 30 --period 1 --profile diurnal --keys 5000 --key-name bid --seed 1 -o trips.parquet",
    ),
)
@click.option("--nodes", default=TRACE_DEFAULTS.nodes, show_default=True, help="Number of nodes.")
@click.option(
    "--types",
    "types_",
    default=TRACE_DEFAULTS.types,
    show_default=True,
    help="Number of event types.",
)
@click.option(
    "--events", default=TRACE_DEFAULTS.events, show_default=True, help="Expected number of events."
)
@click.option(
    "--duration",
    default=TRACE_DEFAULTS.duration,
    show_default=True,
    help="Time span of the trace (time units; the default is 30 days in seconds).",
)
@click.option(
    "--skew",
    default=TRACE_DEFAULTS.skew,
    show_default=True,
    help="Type i gets a share 1/(i+1)^skew of events.",
)
@click.option(
    "--node-ratio",
    default=TRACE_DEFAULTS.node_ratio,
    show_default=True,
    help="Chance that a node is a source of a type.",
)
@click.option(
    "--spread",
    default=TRACE_DEFAULTS.spread,
    show_default=True,
    help="Log-normal spread (sigma) of the per-source rates of a type; 0 makes them equal.",
)
@click.option(
    "--profile",
    type=click.Choice(PROFILES),
    default=TRACE_DEFAULTS.profile,
    show_default=True,
    help="Rates over time: constant (poisson), following the day (diurnal: 1 + 0.8 sin), "
    "or diurnal with busy and quiet phases per source (bursty).",
)
@click.option(
    "--period",
    default=TRACE_DEFAULTS.period,
    show_default=True,
    help="Day length of diurnal/bursty profiles.",
)
@click.option(
    "--keys",
    default=TRACE_DEFAULTS.keys,
    show_default=True,
    help="Key pool size (0: no key attribute).",
)
@click.option(
    "--key-name",
    default=TRACE_DEFAULTS.key_name,
    show_default=True,
    help="Name of the key attribute.",
)
@click.option(
    "--key-skew",
    default=TRACE_DEFAULTS.key_skew,
    show_default=True,
    help="Key popularity 1/(k+1)^skew (0: uniform).",
)
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="Use this network's nodes, types and per-source rates (--nodes, --types, --events, "
    "--skew, --node-ratio and --spread are then ignored).",
)
@seed_option("the trace")
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Trace (.csv or .parquet)."
)
def generate_command(
    nodes: int,
    types_: int,
    events: int,
    duration: float,
    skew: float,
    node_ratio: float,
    spread: float,
    profile: str,
    period: float,
    keys: int,
    key_name: str,
    key_skew: float,
    network_file: str | None,
    seed: int,
    out: str,
) -> None:
    """Draw a trace of per-node sources with heterogeneous rates and key attributes."""
    check_paths({"network": network_file}, out)
    options = TraceOptions(
        nodes=nodes,
        types=types_,
        events=events,
        duration=duration,
        skew=skew,
        node_ratio=node_ratio,
        spread=spread,
        profile=profile,
        period=period,
        keys=keys,
        key_name=key_name,
        key_skew=key_skew,
        seed=seed,
    )
    network = load_network(network_file) if network_file else None
    table = generate_trace_file(options, out, network)
    kinds = len(set(table.column("type").to_pylist())) if table.num_rows else 0
    click.echo(
        f"trace: {table.num_rows} events of {kinds} types over {duration:g} time units "
        f"({profile}" + (f", {keys} keys in '{key_name}'" if keys else "") + f") -> {out}"
    )
