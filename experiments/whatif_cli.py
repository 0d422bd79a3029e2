"""``inev whatif``: a thin command over :mod:`inev.experiments.whatif` and
:mod:`inev.experiments.whatif_report`."""

from __future__ import annotations

import json
from typing import Any

import click

from inev.common.click_options import seed_option
from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.paths import check_paths
from inev.common.words import plural
from inev.experiments.click_options import master_option
from inev.experiments.sweep_view import sweep_progress
from inev.experiments.whatif import MAX_CASES, SimSettings


def _shares(text: str | None) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise InevError(f"--swap-shares {text}: give shares such as 0.2,0.5,1.0") from None


def build_cases(
    network: Any, cases_file: str | None, shares: list[float] | None, swap_from: str
) -> list[Any]:
    """The study's cases: from ``--cases``, ``--swap-shares`` or every single failure."""
    from inev.common.files import read_json
    from inev.experiments.whatif import failure_cases, given_cases, swap_cases

    if cases_file and shares:
        raise InevError("give --cases or --swap-shares, not both")
    if cases_file:
        return given_cases(read_json(cases_file), cases_file, network)
    if shares is not None:
        return swap_cases(network, shares, swap_from)
    return failure_cases(network)


CASE_REPLANS = 1.6
"""A case takes about this many times one re-plan (the local repair, the centralized plan,
the costing; median case time over median re-plan time, 120 cases of a 50-node network)."""


def _seconds_per_case(plan: Any, network: Any, workload: Any, knobs: dict[str, Any]) -> float:
    """About how long one case takes: a re-plan, timed once with the planner knobs given (else
    the plan's own planning time)."""
    import time

    from inev.planner.options import PlanOptions
    from inev.planner.planning import plan_workload

    if not knobs:
        return plan.planning_seconds
    started = time.process_time()
    plan_workload(network, workload, options=PlanOptions(**knobs))
    return time.process_time() - started


def _size_check(cases: list[Any], max_cases: int, cap: int | None, each: Any) -> list[Any]:
    """The cases to run (``--cap``), after saying how many and about how long they take;
    ``each()`` is the estimated time of one case."""
    from inev.experiments.whatif import capped

    if cap is not None:
        if cap < 1:
            raise InevError(f"--cap must be at least 1, got {cap}")
        cases = capped(cases, cap) if cap < len(cases) else cases
    kinds: dict[str, int] = {}
    for case in cases:
        kinds[case.kind] = kinds.get(case.kind, 0) + 1
    counted = ", ".join(f"{n} {k}" for k, n in kinds.items())
    if len(cases) > max_cases:
        raise InevError(
            f"{len(cases):,} cases ({counted}) are more than --max-cases {max_cases:,}; raise "
            "--max-cases, or --cap N keeps the N failures of the links and nodes the plan uses "
            "most"
        )
    seconds = each()
    total = len(cases) * CASE_REPLANS * seconds
    guess = (
        f"; about {total:,.0f} s of CPU time ({CASE_REPLANS:g} re-plans each of {seconds:.2g} s)"
    )
    click.echo(f"whatif: {plural(len(cases), 'case')} ({counted}){guess if seconds > 0 else ''}")
    return cases


@click.command(
    "whatif",
    epilog=examples(
        "inev whatif plan.json net.json wl.json -o whatif",
        "inev whatif plan.json net.json wl.json -o whatif --master serial --cap 20",
        "inev whatif plan.json net.json wl.json -o swaps --swap-shares 0.2,0.5,1.0",
        "inev whatif plan.json net.json wl.json -o sim --simulate --duration 20 --seed 1",
        then="Outputs: results.parquet, ranking.png and topology.png in the folder.",
    ),
)
@click.argument("plan_file", type=click.Path(dir_okay=False))
@click.argument("network_file", type=click.Path(dir_okay=False))
@click.argument("workload_file", type=click.Path(dir_okay=False))
@click.option(
    "-o", "--out", required=True, type=click.Path(file_okay=False), help="Results folder."
)
@click.option(
    "--cases",
    "cases_file",
    type=click.Path(dir_okay=False),
    help="JSON list of cases, each a list of inev-changes/1 entries (default: every single "
    "link and node failure).",
)
@click.option("--swap-shares", help="Rate swaps instead: one case per share, e.g. 0.2,0.5,1.0.")
@click.option(
    "--swap-from",
    type=click.Choice(["middle", "random"]),
    default="middle",
    show_default=True,
    help="Which types --swap-shares swaps (middle: the paper's Fig. 9).",
)
@click.option("--simulate", is_flag=True, help="Also run each case in the simulator.")
@click.option(
    "--duration",
    type=float,
    default=SimSettings.duration,
    show_default=True,
    help="--simulate: time.",
)
@seed_option("the Poisson sources of --simulate")
@click.option("--at", type=float, help="--simulate: when the change happens (default: half-way).")
@master_option
@click.option("--parallelism", type=int, help="Concurrent task slots (default: Spark's).")
@click.option(
    "--max-cases",
    type=int,
    default=MAX_CASES,
    show_default=True,
    help="Refuse to start with more cases than this.",
)
@click.option("--cap", type=int, help="Run only the N failures the plan is most exposed to.")
@click.option(
    "--resume/--force",
    default=True,
    help="Keep the finished cases of the same study in the folder (default), or start over.",
)
@click.option("--worst", type=int, default=5, show_default=True, help="Cases in the summary.")
@click.option(
    "--effort",
    type=float,
    help="The repairs' and re-plans' search effort (as inev plan's; 0: the paper's single "
    "pass, fast; default: inev plan's).",
)
@click.option(
    "--latency-factor",
    type=float,
    help="Bound the re-plans' latency by F x the centralized latency (default: no bound).",
)
@click.option("--time-budget", type=float, help="Plan each re-plan within S seconds.")
def whatif_command(
    plan_file: str,
    network_file: str,
    workload_file: str,
    out: str,
    cases_file: str | None,
    swap_shares: str | None,
    swap_from: str,
    simulate: bool,
    duration: float,
    seed: int,
    at: float | None,
    master: str,
    parallelism: int | None,
    max_cases: int,
    cap: int | None,
    resume: bool,
    worst: int,
    effort: float | None,
    latency_factor: float | None,
    time_budget: float | None,
) -> None:
    """Apply every single link and node failure (or given changes) to a plan on Spark; rank them."""
    from inev.common.display import terminal_console
    from inev.common.files import read_json
    from inev.experiments.draw import drawing_keys_of
    from inev.experiments.whatif import Study, with_exposure
    from inev.experiments.whatif_report import ranking_plot, summary_lines, topology_drawing
    from inev.experiments.whatif_run import run_whatif
    from inev.planner.fingerprint import check_plan_for
    from inev.planner.inev_graph import load_plan
    from inev.topologies.io import load_network
    from inev.workloads.io import load_workload

    given = {"effort": effort, "latency_factor": latency_factor, "time_budget": time_budget}
    knobs = {k: v for k, v in given.items() if v is not None}
    inputs = {"plan": plan_file, "network": network_file, "workload": workload_file}
    check_paths({**inputs, "cases": cases_file}, out, output_folder=True)
    if simulate and not (duration > 0 and (at is None or 0 <= at <= duration)):
        raise InevError("--duration must be positive and --at within the run")
    plan, network = load_plan(plan_file), load_network(network_file)
    workload = load_workload(workload_file)
    check_plan_for(plan, network, workload, names=(plan_file, network_file, workload_file))
    cases = build_cases(network, cases_file, _shares(swap_shares), swap_from)
    cases = _size_check(
        with_exposure(cases, plan),
        max_cases,
        cap,
        lambda: _seconds_per_case(plan, network, workload, knobs),
    )
    settings = SimSettings(duration, seed, at) if simulate else None
    study = Study(
        read_json(plan_file),
        read_json(network_file),
        read_json(workload_file),
        tuple(cases),
        settings,
        knobs,
    )
    console = terminal_console(120)
    start, stop = sweep_progress(console, "whatif")
    try:
        outcome = run_whatif(study, out, master, parallelism, start, force=not resume)
    finally:
        stop()
    if outcome.interrupted:
        raise KeyboardInterrupt(
            f"{outcome.finished} of {outcome.cases} cases finished ({outcome.ran} run, "
            f"{outcome.skipped} already done), kept in {out}; run the same command again to resume"
        )
    ranking = ranking_plot(outcome.table, f"{out}/ranking.png")
    positions, labels = drawing_keys_of(network_file)
    drawn = [str(ranking)]
    if any(json.loads(c.changes)[0].get("kind") in ("link-down", "node-down") for c in cases):
        drawn.append(
            str(topology_drawing(outcome.table, network, f"{out}/topology.png", positions, labels))
        )
    for line in summary_lines(outcome.table, worst):
        click.echo(line)
    click.echo(
        f"{outcome.cases} cases ({outcome.ran} run, {outcome.skipped} already done) in "
        f"{outcome.seconds:.1f} s -> {outcome.path}; plots: {', '.join(drawn)}"
    )
