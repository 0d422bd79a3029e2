"""One sweep task: generate the network and workload, plan with each method, measure.

:func:`measure` is what every Spark task runs (through :func:`inev.experiments.sweep.run_task`).
Both generators take the task's seed (they draw from independent random streams), so a row
can be reproduced from the command line::

    inev network generate --nodes N … --seed S -o net.json
    inev workload generate --network net.json … --seed S -o wl.json
    inev plan net.json wl.json --method M --latency-factor F

``lower_bound`` is reported as a method whose cost is the provable lower bound of
:mod:`inev.planner.lower_bound`; every plan row also carries ψ over it and the §7.2
approximation (``approximate_bound``). With a dynamics
axis (``rate_swap``, ``rate_variance``, ``links_removed``, ``nodes_removed``) the INEv plan is
made for the original network, the network is changed, and the row carries the ratio of the
unchanged plan on the changed network (``broken_ratio``), after the §6.6 repair
(``repaired_ratio``) and after planning from scratch (``replanned_ratio``), each against the
centralized cost of the changed network.

With ``simulate = true`` every planned method is also executed by the network simulator
(``sim_*`` columns). The paper's Zipf rates are far too high to simulate under
skip-till-any-match, so the simulated rows use the same network with its rates rescaled (same
proportions) to ``sim_rate`` events per time unit over the workload's types, planned again on
those rates; ``sim_ratio`` is measured messages over the messages of gathering the same trace
at the centralized node.

With ``capacity`` or ``overload`` (simulated rows only) every node of the simulation gets a
processing capacity, with ``latency_bound`` and ``shed`` load shedding
(:mod:`inev.simulator.capacity`); the rows then carry the load of the busiest node, its
utilisation and queueing, false negatives / positives against the unlimited run of the same
trace, bound violations and shed counts (``sim_load`` … ``sim_shed_events``). With
``capacity_from = "centralized"`` the capacity is the centralized plan's need divided by
``overload``, the same for every method (the INEv paper's Fig. 11 comparison).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import networkx as nx
import numpy as np

from inev.experiments.paper_workloads import counterpart, paper_workload
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.planner.repair import repair_plan
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.run import simulate
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
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
    return network, paper_workload(network, config, seed)


def _plan_row(plan: Any) -> dict[str, Any]:
    from inev.planner.figures import model_latency

    lower = plan.lower_bound
    return {
        "cost": plan.psi,
        "centralized_cost": plan.centralized_cost,
        "ratio": plan.ratio,
        "lower_bound": lower,
        "ratio_to_lower_bound": plan.psi / lower if lower > 0 else None,
        "below_lower_bound": plan.psi < lower * (1 - 1e-9),
        "approximate_bound": plan.approximate_bound,
        "kept": plan.kept,
        "latency": model_latency(plan),  # PPoP: pulls count their path twice
        "centralized_latency": plan.centralized_latency,
        "planning_seconds": plan.planning_seconds,
        "projections": len(plan.projections),
        "multi_node": len(plan.multi_node),
        "hops": sum(len(v.forwarding) for v in plan.vertices),
        "latency_ratio": _share(model_latency(plan), plan.centralized_latency),
        "ratio_to_approximate_bound": _share(plan.psi, plan.approximate_bound),
    }


def _share(part: float | None, whole: float | None) -> float | None:
    """``part / whole``, or ``None`` when either is missing or ``whole`` is not positive."""
    if part is None or whole is None or not whole > 0:
        return None
    return part / whole


def plan_options(config: dict[str, Any]) -> PlanOptions:
    """The planner's options of a configuration (``latency_factor`` 0: no latency bound)."""
    return PlanOptions(
        latency_factor=config["latency_factor"] or None,
        effort=config.get("effort", 1.0),
        xi=config.get("xi", 1.0),
    )


def measure(
    config: dict[str, Any], seed: int, methods: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """``{method: {metric: value}}`` for one task (see the module docstring)."""
    network, workload = task_inputs(config, seed)
    options = plan_options(config)
    out: dict[str, dict[str, Any]] = {}
    plans: dict[str, Any] = {}
    for method in methods:
        if method == "lower_bound":
            continue
        plans[method] = plan_workload(network, workload, method, options)
        out[method] = _plan_row(plans[method])
    changes = dynamic_changes(network, config, seed)
    if changes and "inev" in plans:
        repair = repair_plan(plans["inev"], network, workload, changes, options)
        central = repair.replanned.centralized_cost
        if central > 0:
            out["inev"].update(
                broken_ratio=repair.broken.psi / central,
                repaired_ratio=repair.repaired.psi / central,
                replanned_ratio=repair.replanned.psi / central,
                repair_gain=_share(repair.repaired.psi, repair.broken.psi),
                rate_change_increase=_share(repair.broken.psi / central, out["inev"]["ratio"]),
            )
        if not any(c["kind"] in ("link-down", "node-down") for c in changes):
            initial = plans["inev"]
            out["inev"].update(
                invalid_projection_share=_share(len(repair.harmful), len(initial.projections)),
                invalid_multi_node_share=_share(
                    len(repair.invalid_multi_node), len(initial.multi_node)
                ),
            )
    elif "inev" in plans:  # nothing changed: the plan is neither broken nor in need of repair
        ratio = out["inev"]["ratio"]
        out["inev"].update(broken_ratio=ratio, repaired_ratio=ratio, replanned_ratio=ratio)
        dynamic = config.get("rate_swap", 0.0) > 0 or config.get("rate_variance", 0.0) > 0
        if dynamic or config.get("swap_from") == "middle":
            out["inev"].update(  # a dynamics sweep's point without changes: nothing is invalid
                invalid_projection_share=0.0,
                invalid_multi_node_share=0.0,
                repair_gain=1.0,
                rate_change_increase=1.0,
            )
    if config.get("simulate"):
        out_sim = simulated_metrics(network, workload, config, seed, methods)
        for method, figures in out_sim.items():
            out[method].update(figures)
    if "inev" in plans:
        out["inev"].update(figure_metrics(network, workload, config, seed, plans, out))
    if "lower_bound" in methods:
        reference = next(iter(plans.values()), None) or plan_workload(
            network, workload, "centralized", options
        )
        lower = reference.lower_bound
        out["lower_bound"] = {
            "cost": lower,
            "centralized_cost": reference.centralized_cost,
            "ratio": lower / reference.centralized_cost if reference.centralized_cost > 0 else None,
            "lower_bound": lower,
            "approximate_bound": reference.approximate_bound,
        }
    return out


def figure_metrics(
    network: Network,
    workload: Workload,
    config: dict[str, Any],
    seed: int,
    plans: dict[str, Any],
    rows: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The INEv row's figures derived from other plans (the paper's Fig. 4, 7, 10a, 10b, 11).

    ``events_per_window``: the most events of one type in a window, max R(e)·w over the
    workload's types (Fig. 4a asks for at most 1). ``ppop_over_inev``: ψ(PPoP) / ψ(INEv).
    ``sharing_ratio``: ψ(INEv) / ψ(isolated), with ``isolated`` among the methods (Fig. 10a).
    ``counterpart_ratio``, ``operator_effect``: with ``operator_type`` max or min, the ratio of
    the workload without KL / NSEQ (:func:`~inev.experiments.paper_workloads.counterpart`) and
    the ratio with the operator over it (Fig. 7). ``order_std``: with ``query_orders`` N > 0,
    the population standard deviation of the ratio over N random orders of the queries,
    planned with the task's options (Fig. 10b asks for effort 0, the paper's single pass in
    the given order: larger efforts try canonical orders and do not depend on the given one).
    ``sim_latency_ratio``, ``sim_throughput_ratio``: simulated mean detection latency of INEv
    over centralized, and the load of the centralized plan's busiest node over INEv's (the
    input rate each sustains relative to the other; with a capacity only), Fig. 11.
    """
    inev = plans["inev"]
    out: dict[str, Any] = {
        "events_per_window": max(network.global_rate(t) * workload.window for t in workload.types)
    }
    if "ppop" in plans:
        out["ppop_over_inev"] = _share(plans["ppop"].psi, inev.psi)
    if "isolated" in plans:
        out["sharing_ratio"] = _share(inev.psi, plans["isolated"].psi)
    options = plan_options(config)
    if config.get("operator_type", "random") != "random":
        twin = plan_workload(network, counterpart(workload), "inev", options)
        out["counterpart_ratio"] = twin.ratio
        out["operator_effect"] = _share(inev.ratio, twin.ratio)
    orders = config.get("query_orders", 0)
    if orders > 0:
        rng = np.random.default_rng([0x0D3, seed])
        names = [q.name for q in workload.queries]
        ratios = []
        for _ in range(orders):
            order = tuple(names[i] for i in rng.permutation(len(names)))
            ratios.append(
                plan_workload(network, workload, "inev", replace(options, order=order)).ratio
            )
        out["order_std"] = float(np.std(ratios))
    central = rows.get("centralized", {})
    mine = rows["inev"]
    out["sim_latency_ratio"] = _share(mine.get("sim_latency_mean"), central.get("sim_latency_mean"))
    out["sim_throughput_ratio"] = _share(central.get("sim_load"), mine.get("sim_load"))
    return {k: v for k, v in out.items() if v is not None}


def simulated_metrics(
    network: Network,
    workload: Workload,
    config: dict[str, Any],
    seed: int,
    methods: tuple[str, ...],
) -> dict[str, dict[str, Any]]:
    """Simulated figures per method, planned and run on the rescaled network (module doc)."""
    scaled = rescale_rates(network, workload.types, config["sim_rate"])
    if config.get("link_latency", 0.0) > 0:
        scaled = with_link_latency(scaled, config["link_latency"])
    options = plan_options(config)
    out: dict[str, dict[str, Any]] = {}
    shared = config.get("overload", 0.0) > 0 and config.get("capacity_from") == "centralized"
    order = sorted((m for m in methods if m != "lower_bound"), key=lambda m: m != "centralized")
    capacity = capacity_options(config, seed)
    for method in order:
        plan = plan_workload(scaled, workload, method, options)
        if shared and method != "centralized" and capacity is not None and capacity.auto:
            capacity = _centralized_capacity(scaled, workload, config, seed, capacity)
        result = simulate(
            scaled, workload, plan, duration=config["duration"], seed=seed, capacity=capacity
        )
        if shared and method == "centralized" and result.shedding:
            capacity = _fixed(capacity, result.shedding["needed_capacity"] / config["overload"])
        out[method] = {
            "sim_messages": result.messages,
            "sim_ratio": result.ratio,
            "sim_deviation": result.model_deviation,
            "sim_equal": result.equal_to_centralized,
            "sim_latency_p50": _worst(result, "p50"),
            "sim_latency_p99": _worst(result, "p99"),
            "sim_latency_mean": _mean_latency(result),
            "sim_matches": sum(result.matches.values()),
            "sim_late": result.late,
            "sim_hops": sum(len(v.forwarding) for v in plan.vertices),
            **overload_metrics(result.shedding),
        }
    return out


def with_link_latency(network: Network, latency: float) -> Network:
    """The network with every link's latency set to ``latency`` (a per-hop delay, Fig. 12b).

    >>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0])})
    >>> with_link_latency(net, 0.2).links
    [(0, 1, 0.2)]
    """
    spec: dict[str, tuple[Any, ...]] = {}
    for name in network.types:
        t = network.event_type(name)
        spec[name] = (
            (t.rate, list(t.sources)) if t.uniform else (None, list(t.sources), list(t.rates()))
        )
    links = [[u, v, latency] for u, v, _ in network.links]
    return Network.build(network.nodes, links, spec)


def _fixed(options: CapacityOptions, capacity: float) -> CapacityOptions:
    return replace(options, capacity={"*": ("fixed", capacity)})


def _centralized_capacity(
    network: Network,
    workload: Workload,
    config: dict[str, Any],
    seed: int,
    options: CapacityOptions,
) -> CapacityOptions:
    """``options`` with the capacity ``overload`` puts on the centralized plan's busiest node."""
    plan = plan_workload(network, workload, "centralized")
    probe = replace(options, latency_bound=None, shed="none")
    result = simulate(
        network, workload, plan, duration=config["duration"], seed=seed, capacity=probe
    )
    return _fixed(options, result.shedding["needed_capacity"] / config["overload"])


def capacity_options(config: dict[str, Any], seed: int) -> CapacityOptions | None:
    """The simulator's capacity options of a configuration (``None``: unlimited)."""
    if config.get("overload", 0.0) > 0:
        entry = f"auto:{1.0 / config['overload']!r}"
    elif config.get("capacity", 0.0) > 0:
        entry = repr(float(config["capacity"]))
    else:
        return None
    bound = config.get("latency_bound", 0.0)
    return CapacityOptions(
        parse_node_capacities([entry]),
        latency_bound=bound if bound > 0 else None,
        shed=config.get("shed", "none"),
        seed=seed,
    )


def overload_metrics(shedding: dict[str, Any] | None) -> dict[str, Any]:
    """The ``sim_*`` overload columns of a simulation's ``shedding`` entry (empty: none)."""
    if not shedding:
        return {}
    return {
        "sim_load": shedding["load"],
        "sim_utilisation": shedding["max_utilisation"],
        "sim_queue_latency": shedding["max_queue_latency"],
        "sim_false_negatives": shedding["false_negatives"],
        "sim_false_negative_share": shedding["false_negative_share"],
        "sim_false_positives": shedding["false_positives"],
        "sim_bound_violations": shedding["bound_violations"],
        "sim_bound_forced": shedding["bound_forced"],
        "sim_shed_partial_matches": shedding["shed_partial_matches"],
        "sim_shed_events": shedding["shed_events"],
    }


def _mean_latency(result: Any) -> float | None:
    total = sum(s["mean"] * s["count"] for s in result.latency.values() if s["count"])
    count = sum(s["count"] for s in result.latency.values())
    return total / count if count else None


def _worst(result: Any, key: str) -> float | None:
    values = [s[key] for s in result.latency.values() if s[key] is not None]
    return max(values) if values else None


def swap_pairs(
    network: Network, share: float, seed: int, start: str = "random"
) -> list[tuple[str, str]]:
    """Disjoint pairs covering a ``share`` of the event types (rounded down to pairs).

    ``start = "random"``: random pairs. ``"middle"``: the INEv paper's Fig. 9 — the types
    ordered by rate (highest first, ties by name), a block of them centred in the middle of
    that order, paired from the outside in (the block reversed): with 20 types, share 0.1
    swaps the 10th and 11th highest rates, share 1.0 reverses the whole order.

    >>> from inev.topologies.network import Network
    >>> net = Network.build([0], [], {t: (r, [0]) for t, r in zip("ABCDEF", [6, 5, 4, 3, 2, 1])})
    >>> swap_pairs(net, 0.34, 0, "middle"), swap_pairs(net, 1.0, 0, "middle")
    ([('C', 'D')], [('A', 'F'), ('B', 'E'), ('C', 'D')])
    """
    names = list(network.types)
    count = round(share * len(names))
    count -= count % 2
    if start == "middle":
        ranked = sorted(names, key=lambda t: (-network.rate(t), t))
        first = (len(ranked) - count) // 2
        block = ranked[first : first + count]
        return [(block[i], block[count - 1 - i]) for i in range(count // 2)]
    rng = np.random.default_rng([0x5A7, seed])
    chosen = [names[i] for i in rng.permutation(len(names))[:count]]
    return list(zip(chosen[0::2], chosen[1::2], strict=True))


def swap_rates(network: Network, share: float, seed: int, start: str = "random") -> Network:
    """The network with a ``share`` of its event types swapping local rates in pairs
    (:func:`swap_pairs`)."""
    rates = {}
    for a, b in swap_pairs(network, share, seed, start):
        rates[a], rates[b] = network.rate(b), network.rate(a)
    return network.with_rates(rates) if rates else network


def dynamic_changes(network: Network, config: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """The ``inev-changes/1`` entries a task's dynamics axes ask for (times are 0).

    ``rate_swap``: that share of the types swap rates in random pairs (Fig. 9).
    ``rate_variance``: every local rate is multiplied by a log-normal factor exp(N(0, v)).
    ``links_removed`` / ``nodes_removed``: that many random links / nodes go down, chosen
    among those whose loss keeps the topology connected and every type with a source.
    """
    rng = np.random.default_rng([0xC4A, seed])
    changes: list[dict[str, Any]] = []
    share, start = config.get("rate_swap", 0.0), config.get("swap_from", "random")
    for a, b in swap_pairs(network, share, seed, start):
        changes.append({"time": 0.0, "kind": "swap-rates", "types": [a, b]})
    variance = config.get("rate_variance", 0.0)
    if variance > 0:
        for name in network.types:
            factor = float(np.exp(rng.normal(0.0, variance)))
            changes.append(
                {"time": 0.0, "kind": "set-rate", "type": name, "rate": network.rate(name) * factor}
            )
    graph = network.graph.copy()
    for _ in range(config.get("links_removed", 0)):
        candidates = [e for e in sorted(graph.edges, key=str) if not _is_bridge(graph, e)]
        if not candidates:
            break
        u, v = candidates[int(rng.integers(0, len(candidates)))]
        graph.remove_edge(u, v)
        changes.append({"time": 0.0, "kind": "link-down", "link": [u, v]})
    lost: set[Any] = set()
    for _ in range(config.get("nodes_removed", 0)):
        candidates = []
        for node in sorted(graph.nodes, key=str):
            rest = graph.subgraph([n for n in graph.nodes if n != node])
            if rest.number_of_nodes() == 0 or not nx.is_connected(rest):
                continue
            if any(set(network.sources(t)) <= lost | {node} for t in network.types):
                continue
            candidates.append(node)
        if not candidates:
            break
        node = candidates[int(rng.integers(0, len(candidates)))]
        graph.remove_node(node)
        lost.add(node)
        changes.append({"time": 0.0, "kind": "node-down", "node": node})
    return changes


def _is_bridge(graph: nx.Graph, edge: tuple[Any, Any]) -> bool:
    graph.remove_edge(*edge)
    try:
        return not nx.has_path(graph, *edge)
    finally:
        graph.add_edge(*edge)
