"""The ``inev`` command: every sub-command is a thin layer over the package's functions.

Sub-commands are loaded lazily: :data:`COMMANDS` names the module of each one and the line
``inev --help`` lists for it, so ``inev --help`` imports click alone and ``inev plan`` imports
the planner but not Spark, pyarrow, matplotlib or the simulator. A new sub-command gets an
entry here (``tests/test_cli_startup.py`` checks that every entry's line is the command's own
short help).

>>> sorted(COMMANDS)[:3]
['demo', 'draw', 'match']
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from importlib import import_module

import click

from inev.common.errors import InevError

COMMANDS: dict[str, tuple[str, str]] = {
    "network": (
        "inev.topologies.cli:network_group",
        "Generate and inspect event networks (inev-network/1 JSON).",
    ),
    "workload": (
        "inev.workloads.cli:workload_group",
        "Generate and inspect query workloads (inev-workload/1 JSON).",
    ),
    "plan": (
        "inev.planner.cli:plan_command",
        "Plan a workload on an event network and write an inev-plan/1 file.",
    ),
    "repair": (
        "inev.planner.cli:repair_command",
        "Repair a plan after rate or topology changes (section 6.6); print "
        "broken/repaired/re-planned costs.",
    ),
    "simulate": (
        "inev.simulator.cli:simulate_command",
        "Run a plan node by node; count messages, check matches against centralized evaluation.",
    ),
    "trace": (
        "inev.topologies.trace_cli:trace_group",
        "Generate event traces (CSV or Parquet: time, type, node, id, attributes).",
    ),
    "match": (
        "inev.simulator.engine.cli:match_command",
        "Evaluate every query of a workload over a trace; write one JSON line per match.",
    ),
    "show": (
        "inev.experiments.show:show_command",
        "Print any inev file (network, workload, plan, simulation, changes, sweep results).",
    ),
    "draw": (
        "inev.experiments.draw:draw_command",
        "Draw a plan or a simulation result on its topology (PNG, SVG, HTML or --text).",
    ),
    "sweep": (
        "inev.experiments.commands:sweep_command",
        "Run a parameter sweep (TOML file or preset name) on Spark; results as Parquet.",
    ),
    "plot": (
        "inev.experiments.commands:plot_command",
        "Plot sweep results: median with an inter-quartile band per line.",
    ),
    "demo": (
        "inev.experiments.commands:demo_command",
        "The main job: a small skew x selectivity sweep on local Spark, ending in a plot.",
    ),
}
"""``{name: ("module:attribute", short help)}`` of every sub-command."""


def load_command(name: str) -> click.Command:
    """Import the sub-command ``name`` of :data:`COMMANDS`."""
    module, attribute = COMMANDS[name][0].split(":")
    return getattr(import_module(module), attribute)


class LazyGroup(click.Group):
    """A click group that imports a sub-command only when it runs (or prints its help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, click.utils.make_default_short_help(COMMANDS[n][1], limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="inev")
def cli() -> None:
    """Plan, simulate and compare in-network evaluation of CEP query workloads."""


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; bad input ends with one ``error:`` line and exit status 1."""
    try:
        cli.main(
            args=list(argv) if argv is not None else None, prog_name="inev", standalone_mode=False
        )
    except InevError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)
    except click.exceptions.Abort:
        click.echo("error: aborted", err=True)
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except (OSError, MemoryError) as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
