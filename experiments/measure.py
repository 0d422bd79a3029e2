"""One sweep task: generate the network and workload, plan with each method, measure.

:func:`measure` is what every Spark task runs (through :func:`inev.experiments.sweep.run_task`).
Both generators take the task's seed (they draw from independent random streams), so a row
can be reproduced from the command line::

    inev network generate --nodes N … --seed S -o net.json
    inev workload generate --network net.json … --seed S -o wl.json
    inev plan net.json wl.json --method M --latency-factor F

``lower_bound`` is reported as a method whose cost is the §7.2 lower bound. With a dynamics
axis (``rate_swap``, ``rate_variance``, ``links_removed``, ``nodes_removed``) the INEv plan is
made for the original network, the network is changed, and the row carries the ratio of the
unchanged plan on the changed network (``broken_ratio``), after the §6.6 repair
(``repaired_ratio``) and after planning from scratch (``replanned_ratio``), each against the
centralized cost of the changed network.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from inev.planner.planning import plan_workload
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Workload


def task_inputs(config: dict[str, Any], seed: int) -> tuple[Network, Workload]:
    """The network and workload of a task (deterministic in ``config`` and ``seed``)."""
    network = generate_network(
        nodes=config["nodes"],
        out_degree=config["out_degree"],
        event_types=config["event_types"],
        skew=config["skew"],
        node_ratio=config["node_ratio"],
        seed=seed,
        topology=config["topology"],
    )
    workload = generate_workload(
        network,
        queries=config["queries"],
        length=config["length"],
        kleene=config["kleene"],
        negation=config["negation"],
        selectivity=config["selectivity"],
        window=config["window"],
        seed=seed,
    )
    return network, workload


def _plan_row(plan: Any) -> dict[str, Any]:
    lower = plan.lower_bound
    return {
        "cost": plan.psi,
        "centralized_cost": plan.centralized_cost,
        "ratio": plan.ratio,
        "lower_bound": lower,
        "ratio_to_lower_bound": plan.psi / lower if lower > 0 else None,
        "below_lower_bound": plan.psi < lower * (1 - 1e-9),
        "latency": plan.latency,
        "centralized_latency": plan.centralized_latency,
        "planning_seconds": plan.planning_seconds,
        "projections": len(plan.projections),
        "multi_node": len(plan.multi_node),
    }


def measure(
    config: dict[str, Any], seed: int, methods: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """``{method: {metric: value}}`` for one task (see the module docstring)."""
    network, workload = task_inputs(config, seed)
    factor = config["latency_factor"] or 1.0
    out: dict[str, dict[str, Any]] = {}
    plans: dict[str, Any] = {}
    for method in methods:
        if method == "lower_bound":
            continue
        plans[method] = plan_workload(network, workload, method, latency_factor=factor)
        out[method] = _plan_row(plans[method])
    if "lower_bound" in methods:
        reference = next(iter(plans.values()), None) or plan_workload(
            network, workload, "centralized", latency_factor=factor
        )
        lower = reference.lower_bound
        out["lower_bound"] = {
            "cost": lower,
            "centralized_cost": reference.centralized_cost,
            "ratio": lower / reference.centralized_cost if reference.centralized_cost > 0 else None,
            "lower_bound": lower,
        }
    return out


def swap_rates(network: Network, share: float, seed: int) -> Network:
    """The network with a ``share`` of its event types swapping local rates in random pairs."""
    rng = np.random.default_rng([0x5A7, seed])
    names = list(network.types)
    count = round(share * len(names))
    count -= count % 2
    chosen = [names[i] for i in rng.permutation(len(names))[:count]]
    rates = {}
    for a, b in zip(chosen[0::2], chosen[1::2], strict=True):
        rates[a], rates[b] = network.rate(b), network.rate(a)
    return network.with_rates(rates) if rates else network
