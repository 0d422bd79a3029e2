"""The flags ``inev match`` and ``inev simulate`` share, defined once as click options:
the engines (:func:`engine_options`), node capacity (:func:`capacity_option`), load
shedding (:func:`shedding_options`) and the size check (:func:`size_check_option`).

Command-line code by design, like :mod:`inev.common.click_options`: only command modules
import it.
"""

from __future__ import annotations

from typing import Any

import click

from inev.simulator.engine.api import SAFETY_SHARE
from inev.simulator.engine.engine_options import DEFAULT_ADAPTATION, DEFAULT_ENGINE_PLAN
from inev.simulator.engine.matching import ADAPTIVE, ENGINE_PLANS
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.shedders import STRATEGIES


def engine_options(command: Any) -> Any:
    """``--engine-plan`` and ``--adaptive``: the local engines' options, the same (names,
    choices, defaults) for ``inev match`` and ``inev simulate``."""
    command = click.option(
        "--adaptive",
        type=click.Choice(ADAPTIVE),
        default=DEFAULT_ADAPTATION,
        show_default=True,
        help="Re-optimisation of the engines' evaluation plans (invariant-based, or always, "
        "on a threshold, or never).",
    )(command)
    return click.option(
        "--engine-plan",
        type=click.Choice(ENGINE_PLANS),
        default=DEFAULT_ENGINE_PLAN,
        show_default=True,
        help="How the engines order a pattern's evaluation (greedy or ZStream cost model).",
    )(command)


def shedding_options(command: Any) -> Any:
    """``--latency-bound``, ``--shed``, ``--cost-per-unit`` and ``--safety``: load shedding
    under a capacity, the same for ``inev match`` (one node) and ``inev simulate`` (each)."""
    options = [
        click.option(
            "--latency-bound",
            type=float,
            default=None,
            help="Latency bound per node (time units).",
        ),
        click.option(
            "--shed",
            type=click.Choice(list(STRATEGIES)),
            default=None,
            help="Load shedding strategy (needs --capacity; default pspice with a bound, else none).",
        ),
        click.option(
            "--cost-per-unit",
            type=float,
            default=DEFAULT_COST_PER_UNIT,
            show_default=True,
            help="Service time per work unit, times the capacity.",
        ),
        click.option(
            "--safety",
            type=float,
            default=None,
            help=f"Safety buffer of the overload detector (default: {SAFETY_SHARE:.0%} of the bound).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def size_check_option(command: Any) -> Any:
    """``--no-size-check``: run even when the size estimate says the run would not fit."""
    return click.option(
        "--no-size-check", is_flag=True, help="Run even when the estimated size is too big."
    )(command)


def capacity_option(every_node: bool) -> Any:
    """``--capacity``: a node's processing capacity, in work units per time unit or
    ``auto:F`` (F times what the node needs in an unshedded run of the same input), the same
    for ``inev match`` (its one node) and ``inev simulate`` (``every_node``: every node,
    repeatable, with ``NODE=C`` / ``NODE=auto:F`` for one node)."""
    text = (
        "Processing capacity of {who}: work units per time unit, or auto:F (F times what "
        "{need} in an unshedded run){more}."
    )
    if every_node:
        help_text = text.format(
            who="every node",
            need="the busiest node needs",
            more="; NODE=C or NODE=auto:F for one node (repeatable)",
        )
        return click.option("--capacity", multiple=True, help=help_text)
    help_text = text.format(who="the node", need="it needs", more="")
    return click.option("--capacity", default=None, help=help_text)
