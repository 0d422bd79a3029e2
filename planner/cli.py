"""``inev plan`` and ``inev repair``: thin command-line layers over the planner (INEv paper §6)."""

from __future__ import annotations

import click

from inev.planner.latency import DEFAULT_XI
from inev.planner.plan import save_plan
from inev.planner.planning import METHODS, plan_workload
from inev.topologies.io import load_network
from inev.workloads.io import load_workload


@click.command("plan")
@click.argument("network_file", type=click.Path(dir_okay=False))
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="Plan JSON.")
@click.option(
    "--method", type=click.Choice(METHODS), default="inev", show_default=True, help="Planner."
)
@click.option(
    "--latency-factor",
    default=1.0,
    show_default=True,
    help="Latency bound τ as a multiple of the centralized latency.",
)
@click.option("--xi", default=DEFAULT_XI, show_default=True, help="Weight ξ of processing latency.")
@click.option("--explain", is_flag=True, help="Print the combination, placements and why.")
def plan_command(
    network_file: str,
    workload_file: str,
    out: str,
    method: str,
    latency_factor: float,
    xi: float,
    explain: bool,
) -> None:
    """Plan a workload on an event network and write an inev-plan/1 file."""
    network = load_network(network_file)
    workload = load_workload(workload_file)
    plan = plan_workload(network, workload, method, latency_factor=latency_factor, xi=xi)
    save_plan(plan, out)
    click.echo(plan.summary())
    if explain:
        for line in plan.notes:
            click.echo(f"  {line}")
        if not plan.notes:
            click.echo("  (no split: every query is evaluated at one node)")
        for v in plan.vertices:
            if v.inputs:
                click.echo(
                    f"  vertex {v.id}: {v.projection} at node {v.node}"
                    + (f" (partitioned by {v.partition})" if v.partition else "")
                    + f", {len(v.forwarding)} links, cost {v.cost:.6g}"
                )
