"""A deterministic stand-in measurement for testing the sweep machinery (not the planner)."""

from __future__ import annotations

import os
import time
from typing import Any

from inev.experiments.sweep_parameters import TaskConfig
from inev.topologies.generate import generate_network


def toy_measure(
    config: TaskConfig, seed: int, methods: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """Figures that depend only on (config, seed): the network's total global rate and a ratio."""
    delay = float(os.environ.get("INEV_TEST_TASK_DELAY", "0"))
    if delay:
        time.sleep(delay)
    if config.nodes == 13:
        raise RuntimeError("nodes = 13 is unlucky")
    net = generate_network(
        config.nodes,
        config.out_degree,
        config.event_types,
        config.skew,
        config.node_ratio,
        seed,
    )
    total = sum(net.global_rates().values())
    return {
        m: {
            "cost": total / (i + 1),
            "centralized_cost": total,
            "ratio": 1 / (i + 1),
            "planning_seconds": 0.001,
        }
        for i, m in enumerate(methods)
    }


def count_batches(monkeypatch: Any, interrupt_at: int | None = None) -> list:
    """Replace the sweep's ``run_batch`` with one that records each batch it is given and,
    at batch number ``interrupt_at`` (1-based), raises KeyboardInterrupt (a Ctrl-C there)."""
    import inev.experiments.sweep as sweep

    real, calls = sweep.run_batch, []

    def counted(tasks, measure=None):
        calls.append(tasks)
        if len(calls) == interrupt_at:
            raise KeyboardInterrupt
        return real(tasks, measure)

    monkeypatch.setattr(sweep, "run_batch", counted)
    return calls
