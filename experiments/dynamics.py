"""Changes after planning (INEv paper §6.6, §7.2 Fig. 9): what changes, and what the plan
costs afterwards.

:func:`dynamic_changes` turns a task's dynamics axes into ``inev-changes/1`` entries (rate
swaps, a one-off rate change, links and nodes going down). :func:`repair_figures` reports
the §6.6 repair on its own: the plan left as it was (*broken*), §6.6's **local repair
alone** (harmful projections dropped, multi-node placements whose Eq. 1 fails moved to
their fall-back node), **re-planning** from scratch, and, as a separate line, the
*fallback* inev's ``inev repair`` adds (it answers the cheapest of the local repair, the old
plan and the centralized plan; ``repair_fallback`` is 1 where that was not the local
repair). A claim about the §6.6 repair is judged on ``local_repair_ratio``. Beyond the
paper (issue 44), ``incremental_ratio`` is the incremental repair
(:mod:`inev.planner.repair_search`: a search from the repair, moves of the affected
projections first), with ``incremental_over_replanned`` its ψ over the re-plan's and its
migration (``projections_moved``, ``partial_matches_shipped``: the model's estimate).
``broken_ratio`` is None where the old plan cannot run on the changed network
(``broken_cannot_run`` 1: a single-node projection at a lost node, a destination no longer
reached).

:func:`rates_over_the_run` is Fig. 9e's variance over the run: the run is cut into epochs,
every type's rate in each epoch is drawn uniformly within ±x of its estimate (the paper: "a
variance of x % of the original rate can be observed over the duration of the
experiment"), and the plan made for the estimates is costed epoch by epoch.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
import numpy as np

from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.baselines import centralized_node
from inev.planner.inev_graph import Plan
from inev.planner.repair import RepairResult, broken_plan, rebuild_combination
from inev.topologies.network import Network
from inev.workloads.workload import Workload

EPOCH_STREAM = 0xE90
"""Tag of the random stream of the rates over the run."""


def share(part: float | None, whole: float | None) -> float | None:
    """``part / whole``, or ``None`` when either is missing or ``whole`` is not positive.

    >>> share(1.0, 4.0), share(1.0, 0.0), share(None, 2.0)
    (0.25, None, None)
    """
    if part is None or whole is None or not whole > 0:
        return None
    return part / whole


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


def dynamic_changes(network: Network, config: TaskConfig, seed: int) -> list[dict[str, Any]]:
    """The ``inev-changes/1`` entries a task's dynamics axes ask for (times are 0).

    ``rate_swap``: that share of the types swap rates in random pairs (Fig. 9).
    ``rate_variance`` (without ``variance_epochs``): every local rate is multiplied once by
    a log-normal factor exp(N(0, v)); with epochs the rates vary over the run instead
    (:func:`rates_over_the_run`) and no change is listed here.
    ``links_removed`` / ``nodes_removed``: that many random links / nodes go down, chosen
    among those whose loss keeps the topology connected and every type with a source.
    """
    rng = np.random.default_rng([0xC4A, seed])
    changes: list[dict[str, Any]] = []
    share, start = config.rate_swap, config.swap_from
    for a, b in swap_pairs(network, share, seed, start):
        changes.append({"time": 0.0, "kind": "swap-rates", "types": [a, b]})
    variance = config.rate_variance
    if variance > 0 and config.variance_epochs == 0:
        for name in network.types:
            factor = float(np.exp(rng.normal(0.0, variance)))
            changes.append(
                {"time": 0.0, "kind": "set-rate", "type": name, "rate": network.rate(name) * factor}
            )
    graph = network.graph.copy()
    for _ in range(config.links_removed):
        candidates = [e for e in sorted(graph.edges, key=str) if not _is_bridge(graph, e)]
        if not candidates:
            break
        u, v = candidates[int(rng.integers(0, len(candidates)))]
        graph.remove_edge(u, v)
        changes.append({"time": 0.0, "kind": "link-down", "link": [u, v]})
    lost: set[Any] = set()
    for _ in range(config.nodes_removed):
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


def repair_figures(repair: RepairResult, initial: Plan) -> dict[str, Any]:
    """The INEv row's figures of one repair (module docstring), each ratio over the
    centralized cost of the changed network; ``*_gain`` over the broken plan's ψ."""
    central = repair.replanned.centralized_cost
    if not central > 0:
        return {}
    local = repair.local if repair.local is not None else repair.repaired
    incremental = repair.incremental if repair.incremental is not None else repair.repaired
    broken = repair.broken.psi
    moved = repair.migration.get("projections_moved")
    return {
        "broken_ratio": None if repair.cannot_run else broken / central,
        "broken_cannot_run": 1.0 if repair.cannot_run else 0.0,
        "incremental_ratio": incremental.psi / central,
        "incremental_gain": share(incremental.psi, broken),
        "incremental_over_replanned": share(incremental.psi, repair.replanned.psi),
        "projections_moved": moved,
        "partial_matches_shipped": repair.migration.get("partial_matches_shipped"),
        "local_repair_ratio": local.psi / central,
        "repaired_ratio": repair.repaired.psi / central,
        "replanned_ratio": repair.replanned.psi / central,
        "local_repair_gain": share(local.psi, broken),
        "repair_gain": share(repair.repaired.psi, broken),
        "replan_gain": share(repair.replanned.psi, broken),
        "repair_kept": repair.repaired.kept or "local",
        "repair_fallback": 0.0 if (repair.repaired.kept or "local") == "local" else 1.0,
        "rate_change_increase": share(broken / central, initial.ratio),
    }


def unchanged_figures(ratio: float) -> dict[str, Any]:
    """The repair figures of a dynamics point where nothing changed (share 0): nothing is
    broken, invalid or repaired."""
    return {
        "broken_ratio": ratio,
        "local_repair_ratio": ratio,
        "repaired_ratio": ratio,
        "replanned_ratio": ratio,
        "incremental_ratio": ratio,
        "incremental_gain": 1.0,
        "incremental_over_replanned": 1.0,
        "projections_moved": 0.0,
        "partial_matches_shipped": 0.0,
        "broken_cannot_run": 0.0,
        "local_repair_gain": 1.0,
        "repair_gain": 1.0,
        "replan_gain": 1.0,
        "repair_kept": "local",
        "repair_fallback": 0.0,
        "rate_change_increase": 1.0,
        "invalid_projection_share": 0.0,
        "invalid_multi_node_share": 0.0,
    }


def epoch_networks(network: Network, variance: float, epochs: int, seed: int) -> list[Network]:
    """``epochs`` copies of ``network``, each type's rate multiplied by a factor drawn
    uniformly from [1 - variance, 1 + variance] (``variance`` at most 1; a factor of 0 is
    raised to 1e-6, as a rate must stay positive).

    >>> net = Network.build([0], [], {"A": (10.0, [0])})
    >>> rates = [n.rate("A") for n in epoch_networks(net, 0.5, 200, seed=1)]
    >>> 5.0 <= min(rates) < 6.0 and 14.0 < max(rates) <= 15.0
    True
    """
    rng = np.random.default_rng([EPOCH_STREAM, seed])
    out = []
    for _ in range(epochs):
        factors = rng.uniform(1.0 - variance, 1.0 + variance, size=len(network.types))
        out.append(
            network.with_rates(
                {
                    t: network.rate(t) * max(float(f), 1e-6)
                    for t, f in zip(network.types, factors, strict=True)
                }
            )
        )
    return out


def rates_over_the_run(
    plan: Plan, network: Network, workload: Workload, variance: float, epochs: int, seed: int
) -> dict[str, Any]:
    """The plan's ratio over the varying rates of the run (Σ ψ over Σ centralized cost over
    the epochs, the centralized node chosen anew in each: the baseline adapts at no cost)
    against its ratio on the estimates (``rate_change_increase``), and the worst epoch's."""
    total_psi = total_central = 0.0
    worst = 0.0
    for net in epoch_networks(network, variance, epochs, seed):
        psi = broken_plan(plan, net, rebuild_combination(plan, net, workload)).psi
        central = centralized_node(net, workload.types)[1]
        total_psi += psi
        total_central += central
        if central > 0:
            worst = max(worst, psi / central)
    ratio = share(total_psi, total_central)
    return {
        "broken_ratio": ratio,
        "rate_change_increase": share(ratio, plan.ratio),
        "rate_change_worst": share(worst, plan.ratio),
    }
