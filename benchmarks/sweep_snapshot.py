"""Byte-identity check of sweep rows, through :func:`inev.experiments.measure.measure`, their
rows dumped as JSON without the figures that time the run (keys naming seconds). Compare two
checkouts' outputs with ``cmp``.

- 20 tasks with simulation (10 plain, 10 with an overload and pSPICE shedding; seeds 1-10;
  methods inev and centralized);
- every other feature of a task once (:data:`CASES`: dynamics, the paper figures' workload
  variants, query orders, events per window, latency graphs, link latency, the exact
  optimum, a fixed capacity), seeds 1 and 2, methods inev, centralized, isolated, ppop and
  the lower bound.

Run: ``python benchmarks/sweep_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from inev.experiments.measure import measure
from inev.experiments.sweep_parameters import TaskConfig

SMALL = TaskConfig(nodes=7, skew=3.0, length=3, selectivity=0.5, duration=5.0, sim_rate=40.0)
CASES: dict[str, dict[str, Any]] = {
    "central-capacity": dict(simulate=True, overload=2.0, capacity_from="centralized"),
    "swap": dict(rate_swap=0.5, event_types=8, length=4),
    "swap-middle": dict(rate_swap=1.0, swap_from="middle", event_types=8, length=4),
    "links": dict(links_removed=1, nodes=9),
    "nodes": dict(nodes_removed=1, nodes=9),
    "variance": dict(rate_variance=0.5),
    "epochs": dict(rate_variance=0.5, variance_epochs=3),
    "kleene-max": dict(operator_type="max", kleene=1, length=4, event_types=8),
    "share": dict(operator_share=1 / 3, kleene=1, negation=1, queries=3, length=4, event_types=8),
    "min-length": dict(min_length=3, length=5, queries=3, event_types=8),
    "orders": dict(query_orders=2, effort=0.0, queries=3, length=4, event_types=8),
    "events-per-window": dict(events_per_window=50.0, window_type="rarest"),
    "hops": dict(simulate=True, hop_rank=2, latency_factor=1.5),
    "link-latency": dict(simulate=True, link_latency=0.1),
    "exact": dict(exact_optimum=True, nodes=5),
    "capacity": dict(simulate=True, capacity=50.0),
}
"""The other tasks: their settings over :data:`SMALL`."""


def _untimed(measured: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {
        method: {k: v for k, v in row.items() if "seconds" not in k}
        for method, row in measured.items()
    }


def main() -> None:
    """Write the rows to the path given."""
    rows = {}
    for seed in range(1, 11):
        for name, config in (
            ("plain", replace(SMALL, simulate=True)),
            ("overload", replace(SMALL, simulate=True, overload=1.5, latency_bound=0.5, shed="pspice")),
        ):  # fmt: skip
            rows[f"{name}-{seed}"] = _untimed(measure(config, seed, ("inev", "centralized")))
    methods = ("inev", "centralized", "isolated", "ppop", "lower_bound")
    for name, case in CASES.items():
        for seed in (1, 2):
            rows[f"{name}-{seed}"] = _untimed(measure(replace(SMALL, **case), seed, methods))
    Path(sys.argv[1]).write_text(json.dumps(rows, indent=0, default=str) + "\n")
    print(f"{len(rows)} tasks written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
