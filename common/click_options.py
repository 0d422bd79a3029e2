"""Command-line options that mean the same in every command, defined once.

``--seed`` is the seed of every random draw a command makes (a generator's network, workload
or trace, a workload estimate's sample, a simulation's Poisson sources and random shedders,
``inev match``'s random shedders): the same seed gives the same files. Each command names
what it draws in the help text; the flag, its type and default are this one definition.

>>> import click
>>> @click.command()
... @seed_option("the queries")
... def cmd(seed: int) -> None:
...     click.echo(seed)
>>> from click.testing import CliRunner
>>> CliRunner().invoke(cmd, ["--seed", "3"]).output.strip()
'3'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import click

SEED_MAX = 2**63 - 1
"""The largest seed a command takes (the generators' 64-bit check)."""


def seed_option(draws: str) -> Callable[[Any], Any]:
    """``--seed N`` (default 0): the seed of every random draw of the command (``draws``
    names them for the help text)."""
    return click.option(
        "--seed",
        # the range every generator checks (a numpy seed of 64 bits); checked here, so that
        # every command and every path of a command refuses the same seeds in one line
        type=click.IntRange(0, SEED_MAX),
        default=0,
        show_default=True,
        help=f"Seed of {draws}: the same seed gives the same output.",
    )
