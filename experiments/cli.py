"""The ``inev`` command: every sub-command is a thin layer over the package's functions."""

from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from inev.common.errors import InevError
from inev.experiments.commands import demo_command, plot_command, sweep_command
from inev.planner.cli import plan_command, repair_command
from inev.simulator.cli import simulate_command
from inev.simulator.engine.cli import match_command
from inev.topologies.cli import network_group
from inev.topologies.trace_cli import from_trace_command, trace_group
from inev.workloads.cli import workload_group
from inev.workloads.estimate_cli import estimate_command


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="inev")
def cli() -> None:
    """Plan, simulate and compare in-network evaluation of CEP query workloads."""


network_group.add_command(from_trace_command)
cli.add_command(network_group)
cli.add_command(trace_group)
workload_group.add_command(estimate_command)
cli.add_command(workload_group)
cli.add_command(sweep_command)
cli.add_command(plot_command)
cli.add_command(demo_command)
cli.add_command(match_command)
cli.add_command(plan_command)
cli.add_command(repair_command)
cli.add_command(simulate_command)


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
