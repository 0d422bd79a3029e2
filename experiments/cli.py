"""The ``inev`` command: every sub-command is a thin layer over the package's functions.

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
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import click

from inev.common.errors import InevError
from inev.common.interrupts import Terminated, clean_exit_on_signals
from inev.common.watchdog import watch_memory
from inev.experiments.commands import demo_command, plot_command, sweep_command
from inev.planner.cli import plan_command, repair_command
from inev.simulator.cli import simulate_command
from inev.simulator.engine.cli import match_command
from inev.topologies.cli import network_group
from inev.workloads.cli import workload_group

INTERNAL_ERROR = 70
"""Exit status of an unexpected exception (EX_SOFTWARE of sysexits.h)."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="inev")
def cli() -> None:
    """Plan, simulate and compare in-network evaluation of CEP query workloads."""


cli.add_command(network_group)
cli.add_command(workload_group)
cli.add_command(sweep_command)
cli.add_command(plot_command)
cli.add_command(demo_command)
cli.add_command(match_command)
cli.add_command(plan_command)
cli.add_command(repair_command)
cli.add_command(simulate_command)


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
        with clean_exit_on_signals(), watch_memory():
            status = _invoke(list(argv) if argv is not None else sys.argv[1:])
    except InevError as exc:
        fail(str(exc))
    except click.exceptions.Abort:
        fail("aborted")
    except click.ClickException as exc:
        fail(_usage_message(exc))
    except KeyboardInterrupt:
        fail("interrupted", 130)
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
