"""The ``inev`` command: every sub-command is a thin layer over the package's functions.

Sub-commands are loaded lazily: :data:`COMMANDS` names the module of each one and the line
``inev --help`` lists for it, so ``inev --help`` imports click alone and ``inev plan`` imports
the planner but not Spark, pyarrow, matplotlib or the simulator. A new sub-command gets an
entry here (``tests/test_cli_startup.py`` checks that every entry's line is the command's own
short help).

The root command belongs to no layer: it imports nothing but ``common`` (errors, help texts,
signals, the memory watchdog) and names every layer's command by its module's *name*, which
it imports only when that command runs. So it sits in ``common/``, where every layer may
reach it and it reaches none, rather than in ``experiments/`` (the last layer, where it used
to live and which made the planner's and the simulator's commands look like parts of the
experiments) or in a module at the package root (the repository root is the namespace
``inev`` and holds no module; packaging one would make the whole root, tests included, part
of the package).

The error promise: whatever goes wrong, a command ends with exactly one line
``error: <reason>`` on stderr and a non-zero exit status, and leaves no output or temporary
file. :func:`main` keeps it for every kind of failure:

- bad input (:class:`~inev.common.errors.InevError`) and click's own usage errors (unknown
  option, bad option value, missing argument), which click would print over several lines with
  exit status 2: one line, exit status 1;
- Ctrl-C (exit status 130) and SIGTERM (143): ``error: interrupted`` / ``error: terminated``;
- the memory watchdog (:mod:`inev.common.watchdog`) stopping a run, a MemoryError, an OSError
  (a full disk, a permission), an input that is not UTF-8 where a reader has no check of its
  own: one line naming the cause;
- anything else is a bug in inev: ``error: internal error (<type> at <file>:<line>): <message>``,
  exit status 70. Set ``INEV_DEBUG=1`` to get the traceback instead.

>>> sorted(COMMANDS)[:3]
['case-study', 'demo', 'draw']
"""

from __future__ import annotations

import os
import re
import sys
import textwrap
import traceback
from collections.abc import Sequence
from importlib import import_module
from pathlib import Path
from typing import NoReturn

import click

from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.interrupts import Terminated, clean_exit_on_signals
from inev.common.option_names import command_line
from inev.common.watchdog import watch_memory

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
        "inev.experiments.show_cli:show_command",
        "Print any inev file (network, workload, plan, simulation, changes, sweep results).",
    ),
    "draw": (
        "inev.experiments.draw_cli:draw_command",
        "Draw a plan, its projection graph, two plans' difference, a simulation or its timeline "
        "(PNG, SVG, PDF, an interactive HTML page, or --text).",
    ),
    "sweep": (
        "inev.experiments.sweep_cli:sweep_command",
        "Run a parameter sweep (TOML file or preset name) on Spark; results as Parquet.",
    ),
    "plot": (
        "inev.experiments.sweep_cli:plot_command",
        "Plot sweep results: median (or mean) with its spread per line.",
    ),
    "reproduce": (
        "inev.experiments.sweep_cli:reproduce_command",
        "Re-run the INEv paper's figures 4a to 12b (and, by name, the local engines' papers' "
        "figures: inev reproduce --list) and write a report checking each claim.",
    ),
    "case-study": (
        "inev.experiments.case_study_cli:case_study_command",
        "Plan the INEv paper's case study (Table 3) on the authors' published traces.",
    ),
    "whatif": (
        "inev.experiments.whatif_cli:whatif_command",
        "Apply every single link and node failure (or given changes) to a plan on Spark; "
        "rank them.",
    ),
    "demo": (
        "inev.experiments.sweep_cli:demo_command",
        "The main job: a small skew x selectivity sweep on local Spark, ending in a plot.",
    ),
}
"""``{name: ("module:attribute", short help)}`` of every sub-command."""

INTERNAL_ERROR = 70
"""Exit status of an unexpected exception (EX_SOFTWARE of sysexits.h)."""


def load_command(name: str) -> click.Command:
    """Import the sub-command ``name`` of :data:`COMMANDS`."""
    module, attribute = COMMANDS[name][0].split(":")
    return getattr(import_module(module), attribute)


def short_help(text: str, limit: int) -> str:
    """The first sentence of ``text``, shortened at a word to at most ``limit`` characters.

    Our own, because click deprecated its ``make_default_short_help`` (8.2).

    >>> short_help("Plan a workload. Writes a plan file.", 40)
    'Plan a workload.'
    >>> short_help("Simulate a plan on a network, node by node", 24)
    'Simulate a plan on a...'
    """
    first = re.split(r"(?<=\.)\s", " ".join(text.split()), maxsplit=1)[0]
    return textwrap.shorten(first, width=max(limit, 10), placeholder="...")


class LazyGroup(click.Group):
    """A click group that imports a sub-command only when it runs (or prints its help)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        names = self.list_commands(ctx)
        limit = formatter.width - 6 - max(len(n) for n in names)
        rows = [(n, short_help(COMMANDS[n][1], limit)) for n in names]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=examples(
        "inev network generate --nodes 20 --event-types 6 --seed 1 -o net.json",
        "inev workload generate --network net.json --queries 2 --length 4 -o wl.json",
        "inev plan net.json wl.json -o plan.json",
        "inev draw plan.json --network net.json -o plan.html",
        "inev demo",
        then="Each command's --help has examples of its own; the README has a walk-through.",
    ),
)
@click.version_option(package_name="inev")
def cli() -> None:
    """Plan, simulate and compare in-network evaluation of CEP query workloads."""


def one_line(message: str) -> str:
    """``message`` folded onto one line (never empty).

    >>> one_line("pyarrow says:\\n  bad\\n  file ")
    'pyarrow says: bad file'
    """
    folded = " ".join(message.split())
    return folded or "failed (no reason given)"


def fail(message: str, status: int = 1) -> NoReturn:
    """Print ``error: <message>`` as one line on stderr and exit with ``status``."""
    sys.stdout.flush()
    click.echo(f"error: {one_line(message)}", err=True)
    sys.exit(status)


def _usage_message(exc: click.ClickException) -> str:
    message = exc.format_message()
    ctx = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and ctx is not None:
        message += f" (see {ctx.command_path} --help)"
    return message


def _os_message(exc: OSError) -> str:
    if exc.filename is not None and exc.strerror:
        return f"{exc.filename}: {exc.strerror.lower()}"
    return str(exc) or type(exc).__name__


def _internal_message(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    return (
        f"internal error ({type(exc).__name__}{where}): {exc}; this is a bug in inev, "
        "please report it (INEV_DEBUG=1 shows the traceback)"
    )


def _invoke(args: list[str]) -> object:
    """Parse and run a command line. Unlike ``cli.main``, which turns Ctrl-C into ``Abort``
    after printing an empty line, every exception reaches :func:`main` as it was raised."""
    try:
        with cli.make_context("inev", args) as ctx:
            return cli.invoke(ctx)
    except click.exceptions.Exit as exc:  # --help, --version
        return exc.exit_code
    except click.exceptions.NoArgsIsHelpError as exc:  # `inev`, `inev network`: the help
        click.echo(exc.ctx.get_help() if exc.ctx else cli.get_help(click.Context(cli)))
        return 0


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; every failure ends with one ``error:`` line (module docstring)."""
    try:
        with clean_exit_on_signals(), watch_memory(), command_line():
            status = _invoke(list(argv) if argv is not None else sys.argv[1:])
    except InevError as exc:
        fail(str(exc))
    except click.exceptions.Abort:
        fail("aborted")
    except click.ClickException as exc:
        fail(_usage_message(exc))
    except KeyboardInterrupt as exc:  # a sweep adds how far it got
        fail(f"interrupted: {exc}" if str(exc) else "interrupted", 130)
    except Terminated:
        fail("terminated", 143)
    except UnicodeDecodeError as exc:  # a reader without its own check met a non-UTF-8 input
        fail(f"an input file is not UTF-8 text (byte {exc.start}: {exc.reason})")
    except MemoryError:
        fail("out of memory; make the input smaller (the run was stopped)")
    except OSError as exc:
        fail(_os_message(exc))
    except Exception as exc:
        if os.environ.get("INEV_DEBUG"):
            raise
        fail(_internal_message(exc), INTERNAL_ERROR)
    if isinstance(status, int) and status:
        sys.exit(status)


if __name__ == "__main__":
    main()
