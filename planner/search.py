"""Planning an INEv graph: the paper's construction, a search around it, and simpler plans.

The paper builds one INEv graph in one pass: Alg. 1 per query in the workload's order
(§6.2, §6.3), then Alg. 2 (§6.4), both steered by *estimated* costs. :func:`inev_plan`
starts there and judges everything by the exact ψ of the placed graph:

1. **Query orders.** Alg. 1 runs over a few canonical orders of the queries (by rate, both
   ways; :func:`query_orders`), each placed by Alg. 2 and with its single-node projections
   pinned at the centralized node. The canonical orders depend on the queries, not on the
   order a file lists them in, so the plan does not either (with ``effort`` 0 the paper's
   single pass in the given order is kept, as Fig. 10b's experiment needs).
2. **Simpler plans.** The centralized plan, the sharing-agnostic (isolated) plan, the
   per-query combinations placed jointly, and the push-pull plan are candidates too, so the
   result never costs more than any of them.

The cheapest candidate wins; ``Plan.kept`` and the notes say which. With a latency bound τ
(:class:`~inev.planner.options.PlanOptions`) Alg. 1 prunes on estimated latencies, as the
paper does; with ``strict_latency`` a candidate must also meet ℓ(I) ≤ τ on the placed graph.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from inev.planner.assemble import build_plan, explain_lines
from inev.planner.baselines import centralized_plan, push_pull_plan, sink_projection
from inev.planner.combination import Choice, Params, SharingState, combine_query
from inev.planner.isolated import side_by_side
from inev.planner.model import Combination
from inev.planner.options import PlanOptions
from inev.planner.placement import place
from inev.planner.plan import Node, Plan
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload

PIN_TRIAL_VERTICES = 5000
"""Above this many vertices the pinned placements are not tried (they triple Alg. 2's time)."""


@dataclass(frozen=True)
class Design:
    """A complete plan decision: a combination and the nodes pinned for single-node projections."""

    combination: Combination
    pinned: dict[str, Node] = field(default_factory=dict)
    choices: dict[str, Choice] = field(default_factory=dict)


def combine_workload(
    network: Network,
    workload: Workload,
    *,
    tau: float = math.inf,
    xi: float = 1.0,
    order: Sequence[str] | None = None,
) -> tuple[Combination, dict[str, Choice]]:
    """Alg. 1 over the queries of an OR-free workload in ``order`` (§6.3): combination, choices."""
    glob = network.global_rates()
    state = SharingState()
    params = Params(delta=network.mean_hops, tau=tau, xi=xi)
    names = list(order) if order is not None else [q.name for q in workload.queries]
    for name in names:
        q = workload.query(name)
        sink = sink_projection(q, glob, workload.selectivity_seed)
        combine_query(network, q, state, params, sink, workload.selectivity_seed)
    return state.combination(), dict(state.choices)


def canonical_key(query: Query, network: Network) -> tuple:
    """A sort key of a query that depends on its content only (rate, pattern, predicates)."""
    return (query.log2_rate(network.global_rates()), str(query.pattern), query.selectivities)


def query_orders(network: Network, wl: Workload, options: PlanOptions) -> list[tuple[str, ...]]:
    """The query orders Alg. 1 runs over (see the module docstring)."""
    if options.effort == 0:
        return [options.order or tuple(q.name for q in wl.queries)]
    ranked = tuple(
        q.name for q in sorted(wl.queries, key=lambda q: (canonical_key(q, network), q.name))
    )
    orders = [ranked, ranked[::-1]]
    return list(dict.fromkeys(orders))


def _gathering_sinks(combination: Combination, node: Node | None) -> dict[str, Node]:
    """Single-node projections whose inputs are all event types, to pin at ``node``."""
    if node is None:
        return {}
    return {
        key: node
        for key, ins in combination.inputs.items()
        if key not in combination.multi_node
        and all(combination.projections[i].is_primitive for i in ins)
    }


def _realise(network: Network, design: Design, method: str, options: PlanOptions) -> Plan:
    placement = place(network, design.combination, pinned=design.pinned)
    lines = explain_lines(design.combination, design.choices, placement)
    return build_plan(network, design.combination, placement, method, options.xi, lines)


def _paper_designs(
    network: Network, wl: Workload, tau: float, options: PlanOptions, central_node: Node
) -> list[Design]:
    """Alg. 1 per query order, each with Alg. 2's own nodes and with two pinned variants."""
    designs = []
    for order in query_orders(network, wl, options):
        comb, choices = combine_workload(network, wl, tau=tau, xi=options.xi, order=order)
        designs.append(Design(comb, {}, choices))
        if options.effort == 0:
            continue
        for pinned in (
            _gathering_sinks(comb, central_node),
            {k: central_node for k in comb.inputs if k not in comb.multi_node},
        ):
            if pinned:
                designs.append(Design(comb, pinned, choices))
    return designs


@dataclass
class _Best:
    """The cheapest acceptable candidate so far."""

    tau: float
    strict: bool
    plan: Plan | None = None
    rejected: list[str] = field(default_factory=list)

    def offer(self, plan: Plan, kept: str) -> None:
        if self.strict and plan.latency > self.tau * (1 + 1e-9):
            self.rejected.append(f"{kept}: latency {plan.latency:.6g} > tau {self.tau:.6g}")
            return
        if self.plan is None or plan.psi < self.plan.psi * (1 - 1e-12):
            self.plan = replace(plan, kept=kept)


def inev_plan(
    network: Network, wl: Workload, central: Plan, tau: float, options: PlanOptions
) -> Plan:
    """The cheapest INEv graph found for an OR-free workload (see the module docstring)."""
    if options.effort > 0:
        wl = replace(
            wl, queries=tuple(sorted(wl.queries, key=lambda q: (canonical_key(q, network), q.name)))
        )
    best = _Best(tau, options.strict_latency)
    for design in _paper_designs(network, wl, tau, options, central.centralized_node):
        if design.pinned and len(best.plan.vertices if best.plan else ()) > PIN_TRIAL_VERTICES:
            continue
        best.offer(_realise(network, design, "inev", options), "inev")
    best.offer(central, "centralized")
    if options.effort > 0:
        best.offer(push_pull_plan(network, wl, central), "ppop")
        if len(wl.queries) > 1:
            parts = [(q.name, _single(network, wl, q, tau, options)) for q in wl.queries]
            best.offer(side_by_side(parts, "inev"), "isolated")
    plan = best.plan
    assert plan is not None
    notes = list(best.rejected)
    if plan.kept != "inev":
        notes.append(f"kept the {plan.kept} plan: the cheapest candidate (psi {plan.psi:.6g})")
    return replace(plan, notes=(*notes, *plan.notes))


def _single(network: Network, wl: Workload, query: Query, tau: float, options: PlanOptions) -> Plan:
    """The INEv plan of one query alone (its own centralized node and candidates)."""
    alone = Workload.build(wl.window, [query], wl.slide, wl.selectivity_seed)
    central = centralized_plan(network, alone, options.xi)
    return inev_plan(network, alone, central, tau, options)


def isolated_plan(network: Network, wl: Workload, tau: float, options: PlanOptions) -> Plan:
    """The sharing-agnostic plan: every query planned alone, side by side (§7.2, Fig. 10a)."""
    parts = [(q.name, _single(network, wl, q, tau, options)) for q in wl.queries]
    return side_by_side(parts)
