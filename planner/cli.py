"""``inev plan`` and ``inev repair``: thin command-line layers over the planner (INEv paper §6)."""

from __future__ import annotations

import click

from inev.common.figures import echo_summary
from inev.common.words import listing, plural
from inev.planner.figures import plan_figures
from inev.planner.latency import DEFAULT_XI
from inev.planner.plan import Plan, save_plan
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
@click.option(
    "--strict-latency",
    is_flag=True,
    help="Enforce latency <= tau on the placed plan (else centralized).",
)
@click.option("--explain", is_flag=True, help="Print the combination, placements and why.")
def plan_command(
    network_file: str,
    workload_file: str,
    out: str,
    method: str,
    latency_factor: float,
    xi: float,
    strict_latency: bool,
    explain: bool,
) -> None:
    """Plan a workload on an event network and write an inev-plan/1 file."""
    network = load_network(network_file)
    workload = load_workload(workload_file)
    plan = plan_workload(
        network,
        workload,
        method,
        latency_factor=latency_factor,
        xi=xi,
        strict_latency=strict_latency,
    )
    save_plan(plan, out)
    echo_summary(plan_figures(plan), title=f"plan -> {out}")
    if explain:
        for line in explain_lines(plan):
            click.echo(f"  {line}")


def explain_lines(plan: Plan) -> list[str]:
    """``inev plan --explain``: the planner's notes, each placement and each type's cost, in full."""
    lines = list(plan.notes) or ["(no split: every query is evaluated at one node)"]
    for key in plan.projections:
        vertices = plan.vertices_of(key)
        if not vertices or not vertices[0].inputs:
            continue
        nodes = [v.node for v in vertices]
        part = plan.multi_node.get(key)
        how = f"partitioned by {part} at" if part else "at"
        cost = sum(v.cost for v in vertices)
        where = plural(len(nodes), "node")
        lines.append(f"place {key} {how} {where} ({listing(nodes)}); cost {cost:.6g}")
    events: dict[str, float] = {}
    for v in plan.vertices:
        if not v.inputs:
            events[v.projection] = events.get(v.projection, 0.0) + v.cost
    for name, cost in events.items():
        lines.append(f"forward {name} events: cost {cost:.6g}")
    return lines


@click.command("repair")
@click.argument("plan_file", type=click.Path(dir_okay=False))
@click.argument("network_file", type=click.Path(dir_okay=False))
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.option(
    "--changes",
    "changes_file",
    required=True,
    type=click.Path(dir_okay=False),
    help="inev-changes/1.",
)
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="Repaired plan.")
@click.option("--latency-factor", default=1.0, show_default=True, help="τ factor for re-planning.")
def repair_command(
    plan_file: str,
    network_file: str,
    workload_file: str,
    changes_file: str,
    out: str,
    latency_factor: float,
) -> None:
    """Repair a plan after rate or topology changes (section 6.6); print broken/repaired/re-planned costs."""
    from inev.planner.plan import load_plan
    from inev.planner.repair import load_changes, repair_plan

    plan = load_plan(plan_file)
    network = load_network(network_file)
    workload = load_workload(workload_file)
    changes = load_changes(changes_file)
    result = repair_plan(plan, network, workload, changes, latency_factor=latency_factor)
    save_plan(result.result, out)
    click.echo(result.summary())
