"""``inev workload …``: generate query workloads, estimate their selectivities on a trace, and
inspect them."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from inev.common.click_options import seed_option
from inev.common.display import show_view
from inev.common.files import write_json_document
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.words import plural
from inev.topologies.io import load_network
from inev.workloads.estimate import EXACT_LIMIT, SAMPLE, estimate_selectivities
from inev.workloads.generate import generate_workload
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.io import load_workload, save_workload, workload_to_dict
from inev.workloads.tables import workload_view


@click.group(
    "workload",
    epilog=examples(
        "inev workload generate --network net.json --queries 2 --length 4 -o wl.json",
        "inev workload show wl.json --network net.json",
    ),
)
def workload_group() -> None:
    """Generate and inspect query workloads (inev-workload/1 JSON)."""


@workload_group.command(
    "generate",
    epilog=examples(
        "inev workload generate --network net.json --queries 1 --length 6 --selectivity 0.1 --seed 1 -o wl.json",
        "inev workload generate --network net.json --queries 5 --length 4 --kleene 1 --negation 1 -o wl.json",
    ),
)
@click.option(
    "--network",
    "network_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="Event network the queries are drawn for.",
)
@click.option(
    "--queries", default=WORKLOAD_DEFAULTS.queries, show_default=True, help="Number of queries."
)
@click.option(
    "--length", default=WORKLOAD_DEFAULTS.length, show_default=True, help="Event types per query."
)
@click.option(
    "--kleene", default=WORKLOAD_DEFAULTS.kleene, show_default=True, help="KL operators per query."
)
@click.option(
    "--negation",
    default=WORKLOAD_DEFAULTS.negation,
    show_default=True,
    help="NSEQ operators per query.",
)
@click.option(
    "--selectivity",
    default=WORKLOAD_DEFAULTS.selectivity,
    show_default=True,
    help="Selectivity scale: pairwise selectivities in [scale/10, scale].",
)
@click.option(
    "--window",
    default=WORKLOAD_DEFAULTS.window,
    show_default=True,
    help="Time window of every query.",
)
@seed_option("the queries")
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Output JSON file."
)
def generate_command(
    network_file: str,
    queries: int,
    length: int,
    kleene: int,
    negation: int,
    selectivity: float,
    window: float,
    seed: int,
    out: str,
) -> None:
    """Generate a random workload as in the INEv paper (section 7.1)."""
    check_paths({"network": network_file}, out)
    network = load_network(network_file)
    workload = generate_workload(
        network, queries, length, kleene, negation, selectivity, window, seed
    )
    save_workload(workload, out)
    click.echo(
        f"workload: {plural(len(workload.queries), 'query', 'queries')} over "
        f"{plural(len(workload.types), 'event type')} -> {out}"
    )


@workload_group.command(
    "show",
    epilog=examples(
        "inev workload show wl.json --network net.json",
    ),
)
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="Network for the rates (r(q) with local, R(q) with global rates).",
)
def show_command(workload_file: str, network_file: str | None) -> None:
    """List each query with its pattern and, given a network, its rate."""
    check_paths({"workload": workload_file, "network": network_file})
    show_view(workload_view(workload_file, network_file))


@click.command(
    "estimate",
    epilog=examples(
        "inev workload estimate queries.json trips.parquet -o workload.json",
    ),
)
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.argument("trace_file", type=click.Path(dir_okay=False))
@click.option(
    "--sample",
    default=SAMPLE,
    show_default=True,
    help=f"Pairs checked per type pair when there are more than {EXACT_LIMIT:,} candidates.",
)
@seed_option("the sample")
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Output workload JSON."
)
def estimate_command(workload_file: str, trace_file: str, sample: int, seed: int, out: str) -> None:
    """Measure each query's pairwise where-selectivities on a trace, within the window.

    The result is the workload with a "where_selectivity" per query, which planning uses;
    "estimated_from" records how each pair was measured (exact, or the sample size)."""
    check_paths({"workload": workload_file, "trace": trace_file}, out)
    workload = load_workload(workload_file)
    result = estimate_selectivities(workload, trace_file, sample=sample, seed=seed)
    document = workload_to_dict(result.workload)
    document["estimated_from"] = result.provenance(trace_file)
    write_json_document(out, document)
    table = Table("query", "pair", "pairs in window", "same key", "checked", "held", "σ", "how")
    for p in result.pairs:
        table.add_row(
            p.query,
            f"{p.pair[0]} {p.pair[1]}",
            f"{p.candidates:,}",
            "–" if p.keyed is None else f"{p.keyed:,}",
            f"{p.checked:,}",
            f"{p.held:,}",
            "–" if p.selectivity is None else f"{p.selectivity:.4g}",
            p.method,
        )
    console = Console()
    console.print(table)
    for note in result.notes:
        console.print(f"note: {note}")
    measured = sum(1 for p in result.pairs if p.selectivity is not None)
    click.echo(
        f"workload: {measured} selectivities measured on {result.events:,} events of "
        f"{trace_file} (window {workload.window:g}) -> {out}"
    )


# measured on a trace
workload_group.add_command(estimate_command)
