"""``inev workload estimate``: a workload's ``where`` selectivities measured on a trace."""

from __future__ import annotations

import click
from rich.console import Console
from rich.table import Table

from inev.common.click_options import seed_option
from inev.common.files import write_json_document
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.workloads.estimate import EXACT_LIMIT, SAMPLE, estimate_selectivities
from inev.workloads.io import load_workload, workload_to_dict


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
