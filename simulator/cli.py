"""``inev simulate``: execute a plan in the SimPy network simulator."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import click

from inev.common.errors import InevError
from inev.common.figures import echo_summary
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.progress import time_progress
from inev.planner.fingerprint import check_plan_for
from inev.planner.inev_graph import load_plan
from inev.planner.planning import METHODS, plan_workload
from inev.planner.repair import apply_changes, load_changes
from inev.simulator.aggregation import size_workload
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.engine.cli import engine_options, shedding_options, size_check_option
from inev.simulator.engine.processing import shedding_strategy
from inev.simulator.engine.replay import absent_types, ordered_chunks, prepare
from inev.simulator.figures import simulation_figures
from inev.simulator.options import SimulationOptions
from inev.simulator.run import TraceStream, simulate
from inev.simulator.simulation_result import save_result
from inev.simulator.sources import rescale_rates
from inev.simulator.tables import query_table
from inev.topologies.io import load_network
from inev.workloads.io import load_workload


def simulation_options(command: Any) -> Any:
    """How to simulate (:class:`~inev.simulator.options.SimulationOptions`) as click options;
    :func:`options_of` turns their values into the options object."""
    options = [
        click.option(
            "--duration",
            default=100.0,
            show_default=True,
            help="Simulated time units (with --trace: the trace's last time, unless given).",
        ),
        click.option("--seed", default=0, show_default=True, help="Seed of the Poisson sources."),
        click.option(
            "--bandwidth", type=float, help="Messages per time unit a link carries (queueing)."
        ),
        engine_options,
        size_check_option,
        click.option(
            "--capacity",
            multiple=True,
            help="Processing capacity: work units per time unit of every node, auto:F (F times "
            "what the busiest node needs in an unlimited run), or NODE=C / NODE=auto:F for one "
            "node (repeatable).",
        ),
        shedding_options,
        click.option(
            "--stage-slack",
            type=float,
            default=None,
            help="Extra watermark wait per upstream processing stage (default: 2x the bound, "
            "else one window).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def options_of(knobs: dict[str, Any]) -> SimulationOptions:
    """The :class:`SimulationOptions` of :func:`simulation_options`' flag values."""
    return SimulationOptions(
        duration=knobs["duration"],
        seed=knobs["seed"],
        bandwidth=knobs["bandwidth"],
        engine_plan=knobs["engine_plan"],
        adaptation=knobs["adaptive"],
        check=not knobs["no_size_check"],
        capacity=capacity_options(
            knobs["capacity"],
            knobs["latency_bound"],
            knobs["shed"],
            knobs["cost_per_unit"],
            knobs["safety"],
            knobs["stage_slack"],
            seed=knobs["seed"],
        ),
    )


@click.command(
    "simulate",
    epilog=examples(
        "inev simulate net.json wl.json plan.json --duration 20 --seed 1 -o sim.json",
        "inev simulate net.json wl.json plan.json --duration 20 --changes changes.json -o sim.json",
        "inev simulate net.json wl.json --method inev --total-rate 60 --duration 20 -o sim.json",
        "inev simulate net.json wl.json plan.json --capacity auto:0.6 --latency-bound 2 --shed pspice -o sim.json",
    ),
)
@click.argument("network_file", type=click.Path(dir_okay=False))
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.argument("plan_file", required=False, type=click.Path(dir_okay=False))
@click.option(
    "-o", "--out", required=True, type=click.Path(dir_okay=False), help="Result JSON (inev-sim/1)."
)
@click.option(
    "--trace",
    "trace_file",
    type=click.Path(dir_okay=False),
    help="Replay a trace (CSV or Parquet: time,type,node,id[,attributes]) instead of sources.",
)
@click.option(
    "--method",
    type=click.Choice(METHODS),
    help="Plan on the fly with this method instead of reading PLAN_FILE.",
)
@click.option(
    "--changes",
    "changes_file",
    type=click.Path(dir_okay=False),
    help="Changes at run time (inev-changes/1): rates, links, nodes.",
)
@click.option(
    "--total-rate",
    type=float,
    help="Rescale the network's rates (same proportions) so the workload's types produce this "
    "many events per time unit in all; needs --method.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Run a plan made for another network or workload (rates, selectivities, clauses); it "
    "must still fit: its nodes, links, types and queries must exist.",
)
@simulation_options
def simulate_command(
    network_file: str,
    workload_file: str,
    plan_file: str | None,
    out: str,
    trace_file: str | None,
    method: str | None,
    changes_file: str | None,
    total_rate: float | None,
    force: bool,
    **knobs: Any,
) -> None:
    """Run a plan node by node; count messages, check matches against centralized evaluation.

    With --capacity every node queues its items FIFO in front of its engines (service time =
    work units x cost per unit / capacity); with --latency-bound and --shed each node sheds
    load; the result's "shedding" entry compares with an unlimited run of the same trace."""
    if plan_file and method:
        raise InevError("give either a plan file or --method, not both")
    if total_rate is not None and not method:
        raise InevError("--total-rate needs --method (a plan file was made for other rates)")
    inputs = {
        "network": network_file,
        "workload": workload_file,
        "plan": plan_file,
        "trace": trace_file,
        "changes": changes_file,
    }
    check_paths(inputs, out)
    options = options_of(knobs)
    network = load_network(network_file)
    workload = load_workload(workload_file)
    workload.check_network(network, (workload_file, network_file))
    if total_rate is not None:
        network = rescale_rates(network, workload.split_or().types, total_rate)
    if plan_file:
        plan = load_plan(plan_file)
        names = (plan_file, network_file, workload_file)
        check_plan_for(plan, network, workload, names=names, force=force, force_option="--force")
    elif method:
        plan = plan_workload(network, workload, method)
    else:
        raise InevError("give a plan file or --method to plan on the fly")
    trace = None
    if trace_file:
        # sinks of return queries aggregate alone (no trends) unless capacity or changes
        # need their matches: size those queries as the run evaluates them
        alone = options.capacity is None and not changes_file
        sized = size_workload(workload) if alone else workload
        trace, end = _trace_stream(sized, trace_file, options.check)
        given = click.get_current_context().get_parameter_source("duration")
        explicit = given is not None and given.name != "DEFAULT"
        options = replace(options, duration=max(options.duration, end) if explicit else end)
    changes = load_changes(changes_file) if changes_file else []
    if changes:
        apply_changes(network, changes, changes_file)  # a bad entry: refused naming the file
    with time_progress("simulate", 0.0, options.duration) as update:
        result = simulate(
            network, workload, plan, options, trace=trace, changes=changes, progress=update
        )
    save_result(result, out)
    echo_summary(
        simulation_figures(result), title=f"simulation -> {out}", extra=[query_table(result)]
    )


def _trace_stream(workload: Any, trace_file: str, check: bool) -> tuple[TraceStream, float]:
    """A recorded trace, scanned and checked, as a stream; and its last time."""
    prepared = prepare(workload, trace_file, check=check)
    for note in absent_types(workload, prepared.scan):
        click.echo(f"note: {note}", err=True)
    scan = prepared.scan
    stream = TraceStream(
        lambda: ordered_chunks(prepared), scan.end, scan.rows, scan.skipped, scan.start
    )
    return stream, scan.end


def capacity_options(
    capacity: tuple[str, ...],
    latency_bound: float | None,
    shed: str | None,
    cost_per_unit: float,
    safety: float | None,
    stage_slack: float | None,
    seed: int = 0,
) -> CapacityOptions | None:
    """The :class:`CapacityOptions` of ``inev simulate``'s flags (``None`` without --capacity)."""
    strategy = shedding_strategy(bool(capacity), shed, latency_bound)
    if not capacity:
        return None
    share = 0.1
    if safety is not None:
        if latency_bound is None or not 0 <= safety < latency_bound:
            raise InevError("--safety needs --latency-bound and must lie in [0, bound)")
        share = safety / latency_bound
    return CapacityOptions(
        parse_node_capacities(capacity),
        latency_bound=latency_bound,
        shed=strategy,
        cost_per_unit=cost_per_unit,
        stage_slack=stage_slack,
        safety=share,
        seed=seed,
    )
