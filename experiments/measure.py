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
unchanged plan on the changed network (``broken_ratio``), after §6.6's local repair alone
(``local_repair_ratio``), after inev's repair with its fallback to the old or the
centralized plan (``repaired_ratio``, ``repair_kept``) and after planning from scratch
(``replanned_ratio``), each against the centralized cost of the changed network
(:mod:`inev.experiments.dynamics`). With ``variance_epochs`` the rates vary over the run
instead, and ``rate_change_increase`` is the plan's ratio over the run against its ratio on
the estimates (Fig. 9e).

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
``overload``, the same for every method (the INEv paper's Fig. 11 comparison), and
``sim_throughput`` is the measured throughput: input events over the duration plus the
backlog an overloaded node still works through after its input stops. With
``hop_rank`` the simulated INEv plan is one of Fig. 12b's three latency graphs
(:mod:`inev.experiments.latency_graphs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from inev.experiments.dynamics import (
    dynamic_changes,
    rates_over_the_run,
    repair_figures,
    share,
    swap_pairs,
    swap_rates,
    unchanged_figures,
)
from inev.experiments.latency_graphs import candidate_plans, hops, pick
from inev.experiments.plan_cache import cached_plan
from inev.experiments.sweep_parameters import TaskConfig
from inev.experiments.yardstick import closeness, exact_psi, yardstick
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.planner.projections import all_projections
from inev.planner.repair import repair_plan
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.run import simulate
from inev.simulator.sources import rescale_rates
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.paper_variants import counterpart, operator_type, paper_workload
from inev.workloads.workload import Workload

__all__ = ["measure", "plan_options", "swap_pairs", "swap_rates", "task_inputs"]


def task_inputs(config: TaskConfig, seed: int) -> tuple[Network, Workload]:
    """The network and workload of a task (deterministic in ``config`` and ``seed``)."""
    network = generate_network(**asdict(config.network_settings()), seed=seed)
    workload = paper_workload(network, config.workload_settings(), config.variant_settings(), seed)
    wanted = config.events_per_window
    if wanted > 0:  # Fig. 4: the window that gives the busiest (rarest) type this many events
        pick = min if config.window_type == "rarest" else max
        workload = replace(
            workload, window=wanted / pick(network.global_rate(t) for t in workload.types)
        )
    return network, workload


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
        "latency_ratio": share(model_latency(plan), plan.centralized_latency),
        "ratio_to_approximate_bound": share(plan.psi, plan.approximate_bound),
    }


def plan_options(config: TaskConfig) -> PlanOptions:
    """The planner's options of a configuration (``latency_factor`` 0: no latency bound)."""
    return PlanOptions(
        latency_factor=config.latency_factor or None, effort=config.effort, xi=config.xi
    )


def measure(
    config: TaskConfig | Mapping[str, Any], seed: int, methods: tuple[str, ...]
) -> dict[str, dict[str, Any]]:
    """``{method: {metric: value}}`` for one task (see the module docstring).

    Parameters
    ----------
    config : TaskConfig or mapping
        The task's configuration (a mapping: keys of :class:`TaskConfig` over its defaults).
    seed : int
        The seed of the task's network, workload, changes and simulation.
    methods : tuple of str
        The methods to plan (:data:`inev.experiments.spec.METHODS`).

    Returns
    -------
    dict
        One row of metrics per method.

    Examples
    --------
    >>> rows = measure({"nodes": 6, "length": 3}, 1, ("inev", "centralized"))
    >>> rows["centralized"]["ratio"], rows["inev"]["ratio"] <= 1
    (1.0, True)
    """
    if not isinstance(config, TaskConfig):
        config = TaskConfig.from_mapping(config)
    network, workload = task_inputs(config, seed)
    options = plan_options(config)
    out: dict[str, dict[str, Any]] = {}
    plans: dict[str, Any] = {}
    for method in methods:
        if method == "lower_bound":
            continue
        plans[method] = cached_plan(network, workload, method, options)
        out[method] = _plan_row(plans[method])
    if "inev" in plans:
        out["inev"].update(_dynamics(network, workload, config, seed, plans["inev"], options))
    if config.simulate:
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


def _dynamics(
    network: Network,
    workload: Workload,
    config: TaskConfig,
    seed: int,
    plan: Any,
    options: PlanOptions,
) -> dict[str, Any]:
    """The INEv row's figures after the task's changes (:mod:`inev.experiments.dynamics`)."""
    epochs, variance = config.variance_epochs, config.rate_variance
    if epochs > 0 and variance > 0:
        return rates_over_the_run(plan, network, workload, variance, epochs, seed)
    changes = dynamic_changes(network, config, seed)
    if not changes:
        dynamic = config.rate_swap > 0 or variance > 0
        if dynamic or config.swap_from == "middle":  # a dynamics point without changes
            return unchanged_figures(plan.ratio)
        return {k: plan.ratio for k in ("broken_ratio", "repaired_ratio", "replanned_ratio")}
    repair = repair_plan(plan, network, workload, changes, options)
    out = repair_figures(repair, plan)
    if not any(c["kind"] in ("link-down", "node-down") for c in changes):
        out["invalid_projection_share"] = share(len(repair.harmful), len(plan.projections))
        out["invalid_multi_node_share"] = share(
            len(repair.invalid_multi_node), len(plan.multi_node)
        )
    return out


def figure_metrics(
    network: Network,
    workload: Workload,
    config: TaskConfig,
    seed: int,
    plans: dict[str, Any],
    rows: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """The INEv row's figures derived from other plans (the paper's Fig. 4, 5, 7, 10, 11).

    ``max_events_per_window``, ``min_events_per_window``: the most and the fewest events of
    one type in a window, R(e)·w over the workload's types (Fig. 4). ``ppop_over_inev``, ``flouris_over_inev``:
    ψ(PPoP) / ψ(INEv) for inev's and Flouris et al.'s push-pull model. ``yardstick``,
    ``yardstick_kind``, ``ratio_to_yardstick``, ``yardstick_missing``: Fig. 5a's measure
    (:mod:`inev.experiments.yardstick`; the exact optimum only with ``exact_optimum``), and
    ``approximation_below_bound``: the §7.2 approximation lies below the provable bound.
    ``possible_projections``: projections over 2 … |E(q)| - 1 types, summed over the
    queries (Fig. 5b's x axis). ``kept_centralized``: 1 when the INEv plan is centralized evaluation (or costs as much).
    ``mean_hops`` (δ, the network's mean hop distance) and
    ``sources_per_type`` (over the workload's types): the quantities §7.2 explains Fig. 6
    with. ``sharing_ratio``: ψ(INEv) / ψ(isolated), with
    ``isolated`` among the methods (Fig. 10a). ``counterpart_ratio``, ``operator_effect``:
    with ``operator_type`` max or min, the ratio of the workload without KL / NSEQ
    (:func:`~inev.workloads.paper_variants.counterpart`) and the ratio with the operator
    over it (Fig. 7); ``operator_partitions``, ``counterpart_partitions``: 1 when the
    operator's type (the KL child, the negated type) is the partitioning input of a
    multi-node placement in the plan with the operator / without it. ``order_std``: with
    ``query_orders`` N > 0, the population standard deviation of the ratio over N random
    orders of the queries, planned with the task's options (Fig. 10b asks for effort 0, the
    paper's single pass in the given order: larger efforts try canonical orders and do not
    depend on the given one). ``sim_latency_ratio``: simulated mean detection latency of
    INEv over centralized; ``sim_throughput_ratio``: INEv's measured throughput over
    centralized's (input events over the duration plus the slowest node's backlog, with a
    capacity only); ``sim_load_ratio``: the load of the centralized plan's busiest node over INEv's,
    Fig. 11.
    """
    inev = plans["inev"]
    out: dict[str, Any] = {
        "max_events_per_window": max(
            network.global_rate(t) * workload.window for t in workload.types
        ),
        "min_events_per_window": min(
            network.global_rate(t) * workload.window for t in workload.types
        ),
    }
    for method, column in (("ppop", "ppop_over_inev"), ("ppop-flouris", "flouris_over_inev")):
        if method in plans:
            out[column] = share(plans[method].psi, inev.psi)
    if "isolated" in plans:
        out["sharing_ratio"] = share(inev.psi, plans["isolated"].psi)
    options = plan_options(config)
    out.update(_yardstick(network, workload, config, inev, options))
    glob = network.global_rates()
    out["kept_centralized"] = float(inev.kept == "centralized" or inev.ratio >= 1 - 1e-9)
    out["mean_hops"] = network.mean_hops
    out["sources_per_type"] = float(np.mean([len(network.sources(t)) for t in workload.types]))
    out["possible_projections"] = sum(
        len(all_projections(q, glob, workload.window)) - 1 for q in workload.or_free.queries
    )
    if config.operator_type != "random":
        twin = plan_workload(network, counterpart(workload), "inev", options)
        out["counterpart_ratio"] = twin.ratio
        out["operator_effect"] = share(inev.ratio, twin.ratio)
        kind = operator_type(workload.queries[0].pattern)
        out["operator_partitions"] = float(kind in set(inev.multi_node.values()))
        out["counterpart_partitions"] = float(kind in set(twin.multi_node.values()))
    orders = config.query_orders
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
    out["sim_latency_ratio"] = share(mine.get("sim_latency_mean"), central.get("sim_latency_mean"))
    out["sim_throughput_ratio"] = share(mine.get("sim_throughput"), central.get("sim_throughput"))
    out["sim_load_ratio"] = share(central.get("sim_load"), mine.get("sim_load"))
    return {k: v for k, v in out.items() if v is not None}


def _yardstick(
    network: Network, workload: Workload, config: TaskConfig, plan: Any, options: PlanOptions
) -> dict[str, Any]:
    """Fig. 5a's yardstick columns of the INEv plan (:mod:`inev.experiments.yardstick`)."""
    exact = exact_psi(network, workload, options) if config.exact_optimum else None
    value, kind = yardstick(exact, plan.approximate_bound, plan.lower_bound)
    ratio = closeness(plan.psi, value)
    return {
        "yardstick": value,
        "yardstick_kind": kind,
        "yardstick_exact": 1.0 if kind == "exact" else 0.0,
        "ratio_to_yardstick": ratio,
        "yardstick_missing": ratio is None,
        "exact_psi": exact,
        "approximation_below_bound": plan.approximate_bound < plan.lower_bound * (1 - 1e-9),
    }


def simulated_metrics(
    network: Network,
    workload: Workload,
    config: TaskConfig,
    seed: int,
    methods: tuple[str, ...],
) -> dict[str, dict[str, Any]]:
    """Simulated figures per method, planned and run on the rescaled network (module doc)."""
    scaled = rescale_rates(network, workload.types, config.sim_rate)
    if config.link_latency > 0:
        scaled = with_link_latency(scaled, config.link_latency)
    options = plan_options(config)
    out: dict[str, dict[str, Any]] = {}
    shared = config.overload > 0 and config.capacity_from == "centralized"
    order = sorted((m for m in methods if m != "lower_bound"), key=lambda m: m != "centralized")
    capacity = capacity_options(config, seed)
    rank = config.hop_rank
    for method in order:
        if method == "inev" and rank > 0:  # Fig. 12b: one of the three latency graphs
            plan = pick(candidate_plans(scaled, workload, options), rank)
        else:
            plan = plan_workload(scaled, workload, method, options)
        if shared and method != "centralized" and capacity is not None and capacity.auto:
            capacity = _centralized_capacity(scaled, workload, config, seed, capacity)
        result = simulate(
            scaled, workload, plan, duration=config.duration, seed=seed, capacity=capacity
        )
        if shared and method == "centralized" and result.shedding:
            capacity = _fixed(capacity, result.shedding["needed_capacity"] / config.overload)
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
            "sim_hops": hops(plan),
            "sim_plan_ratio": plan.ratio,
            **overload_metrics(result.shedding, result.events, config.duration),
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
    config: TaskConfig,
    seed: int,
    options: CapacityOptions,
) -> CapacityOptions:
    """``options`` with the capacity ``overload`` puts on the centralized plan's busiest node."""
    plan = plan_workload(network, workload, "centralized")
    probe = replace(options, latency_bound=None, shed="none")
    result = simulate(network, workload, plan, duration=config.duration, seed=seed, capacity=probe)
    return _fixed(options, result.shedding["needed_capacity"] / config.overload)


def capacity_options(config: TaskConfig, seed: int) -> CapacityOptions | None:
    """The simulator's capacity options of a configuration (``None``: unlimited)."""
    if config.overload > 0:
        entry = f"auto:{1.0 / config.overload!r}"
    elif config.capacity > 0:
        entry = repr(float(config.capacity))
    else:
        return None
    bound = config.latency_bound
    return CapacityOptions(
        parse_node_capacities([entry]),
        latency_bound=bound if bound > 0 else None,
        shed=config.shed,
        seed=seed,
    )


def overload_metrics(
    shedding: dict[str, Any] | None, events: int = 0, duration: float = 0.0
) -> dict[str, Any]:
    """The ``sim_*`` overload columns of a simulation's ``shedding`` entry (empty: none);
    ``sim_throughput`` is the run's ``events`` over its ``duration`` plus the backlog the
    slowest node still worked off after its input stopped."""
    if not shedding:
        return {}
    return {
        "sim_throughput": share(float(events), duration + shedding.get("backlog", 0.0)),
        "sim_backlog": shedding.get("backlog"),
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
