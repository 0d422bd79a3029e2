"""The former home of a node's FIFO queue, now :mod:`inev.simulator.engine.shedding.node_queue`
(the pSPICE node model lives with its detector and shedders).

Kept as a re-export for the command modules (``simulator/cli.py``, ``engine/cli.py``)
while issue 29's command work moves them; new code imports ``shedding.node_queue``.
"""

from __future__ import annotations

from inev.simulator.engine.shedding.node_queue import (
    SHED_ROUNDS,
    Completion,
    ProcessingStats,
    Processor,
    check_shedding,
    item_kind,
    needed_capacity,
    parse_capacity,
    shedding_strategy,
)

__all__ = [
    "SHED_ROUNDS",
    "Completion",
    "ProcessingStats",
    "Processor",
    "check_shedding",
    "item_kind",
    "needed_capacity",
    "parse_capacity",
    "shedding_strategy",
]
