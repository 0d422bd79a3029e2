"""``inev simulate``: execute a plan in the SimPy network simulator.

The command parses and checks its flags (their combinations are refused here, naming the
flags) and turns them into one :class:`~inev.simulator.options.SimulationOptions`
(:func:`options_from_flags`); the job itself (files, planning on the fly, the run) is
:mod:`inev.simulator.simulate_job`, which takes that options object.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click

from inev.common.click_options import seed_option
from inev.common.errors import InevError
from inev.common.figures import echo_summary
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.progress import time_progress
from inev.planner.planning import METHODS
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.engine.click_options import (
    capacity_option,
    engine_options,
    shedding_options,
    size_check_option,
)
from inev.simulator.engine.engine_options import DEFAULT_ADAPTATION, DEFAULT_ENGINE_PLAN
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.node_queue import shedding_strategy
from inev.simulator.figures import run_warnings, simulation_figures
from inev.simulator.options import SimulationOptions
from inev.simulator.simulate_job import FILES, SimulateRequest, open_simulation, simulate_request
from inev.simulator.tables import query_table

DEFAULT_FLAGS: Mapping[str, Any] = {
    "method": None,
    "total_rate": None,
    "force": False,
    "duration": SimulationOptions.duration,
    "duration_given": False,
    "seed": 0,
    "bandwidth": None,
    "engine_plan": DEFAULT_ENGINE_PLAN,
    "adaptive": DEFAULT_ADAPTATION,
    "no_size_check": False,
    "capacity": (),
    "latency_bound": None,
    "shed": None,
    "cost_per_unit": DEFAULT_COST_PER_UNIT,
    "safety": None,
    "stage_slack": None,
    "timeline_bin": None,
}
"""``inev simulate``'s flag values when none is given (``duration_given``: whether the user
set ``--duration``, which a replayed trace then only extends)."""


def simulation_flags(command: Any) -> Any:
    """How to simulate (:class:`~inev.simulator.options.SimulationOptions`) as click options;
    :func:`options_from_flags` turns their values into the options object."""
    options = [
        click.option(
            "--duration",
            default=SimulationOptions.duration,
            show_default=True,
            help="Simulated time units (with --trace: the trace's last time, unless given).",
        ),
        seed_option("the Poisson sources and the random shedders"),
        click.option(
            "--bandwidth", type=float, help="Messages per time unit a link carries (queueing)."
        ),
        engine_options,
        size_check_option,
        capacity_option(every_node=True),
        shedding_options,
        click.option(
            "--stage-slack",
            type=float,
            default=None,
            help="Extra watermark wait per upstream processing stage (default: 2x the bound, "
            "else one window).",
        ),
        click.option(
            "--timeline-bin",
            type=float,
            default=None,
            help="Width of the result's timeline bins in time units (default: duration / 100 "
            "rounded up to 1, 2 or 5 x 10^k; `inev draw sim.json --timeline` draws it).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


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
@simulation_flags
def simulate_command(
    network_file: str,
    workload_file: str,
    plan_file: str | None,
    out: str,
    trace_file: str | None,
    changes_file: str | None,
    **flags: Any,
) -> None:
    """Run a plan node by node; count messages, check matches against centralized evaluation.

    With --capacity every node queues its items FIFO in front of its engines (service time =
    work units x cost per unit / capacity); with --latency-bound and --shed each node sheds
    load; the result's "shedding" entry compares with an unlimited run of the same trace."""
    given = click.get_current_context().get_parameter_source("duration")
    files = {
        "network": network_file,
        "workload": workload_file,
        "plan": plan_file,
        "trace": trace_file,
        "changes": changes_file,
    }
    duration_given = given is not None and given.name != "DEFAULT"
    job = open_simulation(
        request_from_flags(files, out, {**flags, "duration_given": duration_given})
    )
    for note in job.notes:
        click.echo(f"note: {note}", err=True)
    with time_progress("simulate", 0.0, job.options.duration) as update:
        result = job.run(update)
    echo_summary(
        simulation_figures(result), title=f"simulation -> {out}", extra=[query_table(result)]
    )
    for warning in run_warnings(result):
        click.echo(f"warning: {warning}", err=True)


def request_from_flags(
    files: Mapping[str, str | None], out: str, flags: Mapping[str, Any]
) -> SimulateRequest:
    """The :class:`~inev.simulator.simulate_job.SimulateRequest` of the command's arguments
    and flag values (by parameter name, :data:`DEFAULT_FLAGS`); a bad combination of flags is
    one :class:`~inev.common.errors.InevError` naming them, before any file is read.

    >>> request_from_flags({"network": "n", "workload": "w"}, "o", {"total_rate": 3.0})
    Traceback (most recent call last):
    inev.common.errors.InevError: --total-rate needs --method (a plan file was made for other rates)
    """
    unknown = set(flags) - set(DEFAULT_FLAGS)
    if unknown:
        raise TypeError(f"request_from_flags: unknown flags {', '.join(sorted(unknown))}")
    f = {**DEFAULT_FLAGS, **flags}
    plan_given = files.get("plan") is not None
    if plan_given and f["method"]:
        raise InevError("give either a plan file or --method, not both")
    if f["total_rate"] is not None and not f["method"]:
        raise InevError("--total-rate needs --method (a plan file was made for other rates)")
    if not plan_given and not f["method"]:
        raise InevError("give a plan file or --method to plan on the fly")
    check_paths({k: files.get(k) for k in FILES}, out)
    return simulate_request(
        files,
        out,
        options_from_flags(f),
        method=f["method"],
        total_rate=f["total_rate"],
        force=f["force"],
        duration_given=f["duration_given"],
        force_option="--force",
    )


def options_from_flags(flags: Mapping[str, Any]) -> SimulationOptions:
    """The :class:`~inev.simulator.options.SimulationOptions` of the flag values (missing:
    defaults).

    >>> options_from_flags({"capacity": ("auto:0.5",), "latency_bound": 2.0}).capacity.shed
    'pspice'
    >>> options_from_flags({"safety": 1.0})
    Traceback (most recent call last):
    inev.common.errors.InevError: --safety needs --capacity and --latency-bound
    """
    f = {**DEFAULT_FLAGS, **flags}
    return SimulationOptions(
        duration=f["duration"],
        seed=f["seed"],
        bandwidth=f["bandwidth"],
        engine_plan=f["engine_plan"],
        adaptation=f["adaptive"],
        check=not f["no_size_check"],
        capacity=capacity_from_flags(f),
        timeline_bin=f["timeline_bin"],
    )


def capacity_from_flags(flags: Mapping[str, Any]) -> CapacityOptions | None:
    """The :class:`~inev.simulator.capacity.CapacityOptions` of the flags (``None`` without
    ``--capacity``); the ``--safety`` margin in time units becomes a share of the bound,
    ``--seed`` seeds the random shedders."""
    f = {**DEFAULT_FLAGS, **flags}
    capacity, bound = tuple(f["capacity"]), f["latency_bound"]
    strategy = shedding_strategy(bool(capacity), f["shed"], bound)
    if not capacity:
        if f["safety"] is not None:
            raise InevError("--safety needs --capacity and --latency-bound")
        return None
    share = 0.1
    if f["safety"] is not None:
        if bound is None or not 0 <= f["safety"] < bound:
            raise InevError("--safety needs --latency-bound and must lie in [0, bound)")
        share = f["safety"] / bound
    return CapacityOptions(
        parse_node_capacities(capacity),
        latency_bound=bound,
        shed=strategy,
        cost_per_unit=f["cost_per_unit"],
        stage_slack=f["stage_slack"],
        safety=share,
        seed=f["seed"],
    )
