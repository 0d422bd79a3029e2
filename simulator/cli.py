"""``inev simulate``: execute a plan in the SimPy network simulator.

The command parses its flags and prints; the job itself (checks, files, planning on the fly,
the run) is :mod:`inev.simulator.simulate_job`.
"""

from __future__ import annotations

from typing import Any

import click

from inev.common.click_options import seed_option
from inev.common.figures import echo_summary
from inev.common.help_text import examples
from inev.common.progress import time_progress
from inev.planner.planning import METHODS
from inev.simulator.engine.cli import (
    capacity_option,
    engine_options,
    shedding_options,
    size_check_option,
)
from inev.simulator.figures import run_warnings, simulation_figures
from inev.simulator.simulate_job import open_simulation, simulate_request
from inev.simulator.tables import query_table


def simulation_options(command: Any) -> Any:
    """How to simulate (:class:`~inev.simulator.options.SimulationOptions`) as click options;
    :func:`inev.simulator.simulate_job.simulation_options` turns their values into the
    options object."""
    options = [
        click.option(
            "--duration",
            default=100.0,
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
@simulation_options
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
    job = open_simulation(simulate_request(files, out, {**flags, "duration_given": duration_given}))
    for note in job.notes:
        click.echo(f"note: {note}", err=True)
    with time_progress("simulate", 0.0, job.options.duration) as update:
        result = job.run(update)
    echo_summary(
        simulation_figures(result), title=f"simulation -> {out}", extra=[query_table(result)]
    )
    for warning in run_warnings(result):
        click.echo(f"warning: {warning}", err=True)
