"""``inev plan`` and ``inev repair``: thin command-line layers over the planner (INEv paper §6)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from inev.common.figures import echo_summary, unit_token
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.planner import progress
from inev.planner.figures import RATE, plan_figures
from inev.planner.fingerprint import check_plan_for, stamp
from inev.planner.inev_graph import save_plan
from inev.planner.options import DEFAULT_METHOD, DEFAULT_XI, PLAN_DEFAULTS, PlanOptions
from inev.planner.planning import METHODS, plan_workload
from inev.planner.tables import explain_lines
from inev.topologies.io import load_network
from inev.workloads.io import load_workload


def plan_flags(command: Callable) -> Callable:
    """The planner's knobs (:class:`~inev.planner.options.PlanOptions`) as click options."""
    for option in reversed(
        [
            click.option(
                "--latency-factor",
                type=float,
                default=None,
                help="Bound the plan's latency by F x the centralized latency (default: no bound).",
            ),
            click.option(
                "--latency-bound",
                type=float,
                default=None,
                help="Bound the plan's latency by T model units (default: no bound).",
            ),
            click.option(
                "--xi",
                default=DEFAULT_XI,
                show_default=True,
                help="Weight ξ of processing latency.",
            ),
            click.option(
                "--strict-latency/--estimated-latency",
                default=PLAN_DEFAULTS.strict_latency,
                show_default=True,
                help="With a bound: the placed plan meets it (strict), or only Alg. 1's "
                "latency estimates do, as in the paper (estimated).",
            ),
            click.option(
                "--effort",
                type=float,
                default=PLAN_DEFAULTS.effort,
                show_default=True,
                help="Search effort: 0 = the paper's single pass, larger searches longer.",
            ),
            click.option(
                "--time-budget",
                type=float,
                default=None,
                help="Plan within S seconds (at least one pass of Alg. 1) and keep the best plan found.",
            ),
            click.option(
                "--exact-steps",
                type=click.IntRange(min=0),
                default=None,
                help="Units of work of the exact search that ends the search on small "
                "instances (default 2000 x effort; 0: none).",
            ),
            click.option(
                "--regional/--no-regional",
                default=PLAN_DEFAULTS.regional,
                show_default=True,
                help="Also try regional placements (a projection at k sites between one "
                "node and every source; beyond the paper).",
            ),
            click.option(
                "--kicks/--no-kicks",
                default=PLAN_DEFAULTS.kicks,
                show_default=True,
                help="End the search by re-planning with each event type's rate ten times "
                "higher, then lower (designs where several queries change at once; beyond "
                "the paper).",
            ),
            click.option(
                "--chains/--no-chains",
                default=PLAN_DEFAULTS.chains,
                show_default=True,
                help="Also search from rate-ordered chains: every query gathers the rarest "
                "types at one node, then is partitioned by the others in one common order "
                "(beyond the paper).",
            ),
        ]
    ):
        command = option(command)
    return command


@click.command(
    "plan",
    epilog=examples(
        "inev plan net.json wl.json -o plan.json",
        "inev plan net.json wl.json -o plan.json --explain",
        "inev plan net.json wl.json -o isolated.json --method isolated",
    ),
)
@click.argument("network_file", type=click.Path(dir_okay=False))
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.option("-o", "--out", required=True, type=click.Path(dir_okay=False), help="Plan JSON.")
@click.option(
    "--method",
    type=click.Choice(METHODS),
    default=DEFAULT_METHOD,
    show_default=True,
    help="Planner.",
)
@plan_flags
@click.option("--explain", is_flag=True, help="Print the combination, placements and why.")
def plan_command(
    network_file: str, workload_file: str, out: str, method: str, explain: bool, **knobs: Any
) -> None:
    """Plan a workload on an event network and write an inev-plan/1 file."""
    check_paths({"network": network_file, "workload": workload_file}, out)
    network = load_network(network_file)
    workload = load_workload(workload_file)
    workload.check_network(network, (workload_file, network_file))
    with progress_on_stderr():
        plan = plan_workload(network, workload, method, PlanOptions(**knobs))
    plan = stamp(plan, network, workload)
    save_plan(plan, out)
    echo_summary(plan_figures(plan, network), title=f"plan -> {out}")
    if explain:
        for line in explain_lines(plan):
            click.echo(f"  {line}")


@contextmanager
def progress_on_stderr(after: float = 1.0) -> Iterator[None]:
    """Show the planner's stages (:mod:`inev.planner.progress`) on stderr with rich, from
    ``after`` seconds into the run and only on a terminal; the bar vanishes when done."""
    import sys
    import time

    if not sys.stderr.isatty():  # piped or in a file: no bar, and no rich import
        yield
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    start = time.perf_counter()
    bar = Progress(
        TextColumn("planning: {task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    )
    task = bar.add_task("starting", total=None)
    shown = False

    def listener(name: str, total: int, done: int) -> None:
        nonlocal shown
        if not shown and time.perf_counter() - start >= after:
            bar.start()
            shown = True
        bar.update(task, description=name, total=total or None, completed=done)

    try:
        with progress.reporting(listener):
            yield
    finally:
        if shown:
            bar.stop()


@click.command(
    "repair",
    epilog=examples(
        "inev repair plan.json net.json wl.json --changes changes.json -o repaired.json",
        "inev repair plan.json net.json wl.json --changes changes.json -o best.json --best",
    ),
)
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
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(dir_okay=False),
    help="The plan to write: the repaired plan (section 6.6), unless --replan or --best.",
)
@click.option("--replan", is_flag=True, help="Write the re-planned plan instead.")
@click.option(
    "--best",
    is_flag=True,
    help="Write the cheapest of the repaired, incremental and re-planned plans.",
)
@click.option(
    "--migration-horizon",
    type=click.FloatRange(min=0.0, min_open=True),
    default=None,
    help="Weigh the incremental repair's migration in: psi + its messages / this many time units.",
)
@plan_flags
def repair_command(
    plan_file: str,
    network_file: str,
    workload_file: str,
    changes_file: str,
    out: str,
    replan: bool,
    best: bool,
    migration_horizon: float | None,
    **knobs: Any,
) -> None:
    """Repair a plan after rate or topology changes (section 6.6); print broken/repaired/re-planned costs."""
    from inev.planner.changes import apply_changes, load_changes
    from inev.planner.inev_graph import load_plan
    from inev.planner.repair import repair_plan

    inputs = {
        "plan": plan_file,
        "network": network_file,
        "workload": workload_file,
        "changes": changes_file,
    }
    check_paths(inputs, out)
    plan = load_plan(plan_file)
    network = load_network(network_file)
    workload = load_workload(workload_file)
    check_plan_for(plan, network, workload, names=(plan_file, network_file, workload_file))
    changes = load_changes(changes_file)
    apply_changes(network, changes, changes_file)  # a bad entry is refused naming the file
    if replan and best:
        from inev.common.errors import InevError

        raise InevError("--replan and --best choose different plans: give one of them")
    choose = "replanned" if replan else "best" if best else "repaired"
    result = repair_plan(
        plan,
        network,
        workload,
        changes,
        PlanOptions(**knobs),
        choose=choose,
        migration_horizon=migration_horizon,
    )
    save_plan(stamp(result.result, result.network, workload), out)
    click.echo(f"{result.summary()} rate_unit={unit_token(RATE)}")  # every figure is a ψ
