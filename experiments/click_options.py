"""The click options of the commands that run on Spark (``inev sweep``, ``demo``,
``reproduce``, ``whatif``), defined once.

Command-line code by design, like :mod:`inev.common.click_options`: only command modules
import it.
"""

from __future__ import annotations

import click

from inev.experiments.spark import DEFAULT_MASTER, check_master

master_option = click.option(
    "--master",
    default=DEFAULT_MASTER,
    show_default=True,
    help="Spark master URL, or 'serial' to run without Spark.",
    callback=lambda _ctx, _param, value: check_master(value),
)
"""``--master`` of every command that runs a sweep (sweep, demo, reproduce)."""
