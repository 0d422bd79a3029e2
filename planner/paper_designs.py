"""The paper's construction as the search starts from it: Alg. 1 over a few query orders.

:func:`paper_designs` runs Alg. 1 (§6.3) once per canonical query order
(:func:`query_orders`), gathers every projection and placement option those runs evaluated
into one :class:`Space`, and returns each run's design with two pinned variants (the
single-node projections at the centralized node). :class:`Work` is the budget the whole
search (:mod:`inev.planner.search`) spends from.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from inev.planner import progress
from inev.planner.alg1_combination import Choice, Params, SharingState, combine_query
from inev.planner.baselines import sink_projection
from inev.planner.choice_memo import ChoiceMemo
from inev.planner.combination_model import Combination
from inev.planner.improve import Design
from inev.planner.inev_graph import Node
from inev.planner.options import DEFAULT_XI, PlanOptions
from inev.planner.projections import Projection
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload

SUITABLE_SLACK = 4.0
"""The search looks at projections up to this factor above §6.1's suitability rule."""


@dataclass
class Work:
    """What the whole search may still spend: vertex placements and a deadline (shared by
    the search and the per-query searches of the isolated candidate)."""

    left: float
    deadline: float = math.inf
    skipped: list[str] = field(default_factory=list)

    def evaluations(self, wanted: int, vertices: int) -> int:
        """``wanted`` evaluations of designs of ``vertices`` vertices, as far as work allows."""
        if math.isinf(self.left):
            return wanted
        return max(0, min(wanted, int(self.left // max(vertices, 1))))

    def spend(self, evaluations: int, vertices: int) -> None:
        """Charge ``evaluations`` placements of ``vertices`` vertices."""
        self.left -= evaluations * vertices

    def out_of_time(self) -> bool:
        """Whether the deadline has passed."""
        return time.perf_counter() >= self.deadline


def run_alg1(
    network: Network,
    workload: Workload,
    *,
    tau: float = math.inf,
    xi: float = DEFAULT_XI,
    order: Sequence[str] | None = None,
    known: Mapping[str, Projection] | None = None,
    slack: float = 1.0,
    memo: ChoiceMemo | None = None,
) -> SharingState:
    """Alg. 1 over the queries of an OR-free workload in ``order`` (§6.3).

    ``known`` holds projections of earlier runs, so that a key means the same projection in
    every run (see :func:`inev.planner.projections.own_key`); ``memo`` keeps the placement
    options across runs (:mod:`inev.planner.choice_memo`; the same choices without it).
    """
    glob = network.global_rates()
    state = SharingState(pool=dict(known or {}), memo=memo)
    params = Params(delta=network.mean_hops, tau=tau, xi=xi, slack=slack)
    names = list(order) if order is not None else [q.name for q in workload.queries]
    for name in names:
        q = workload.query(name)
        sink = sink_projection(q, glob, workload.window)
        combine_query(network, q, state, params, sink, workload.window)
    return state


def combine_workload(
    network: Network,
    workload: Workload,
    *,
    tau: float = math.inf,
    xi: float = DEFAULT_XI,
    order: Sequence[str] | None = None,
) -> tuple[Combination, dict[str, Choice]]:
    """Alg. 1 over the queries of an OR-free workload in ``order`` (§6.3): combination, choices."""
    state = run_alg1(network, workload, tau=tau, xi=xi, order=order)
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


def gathering_sinks(combination: Combination, node: Node | None) -> dict[str, Node]:
    """Single-node projections whose inputs are all event types, to pin at ``node``."""
    if node is None:
        return {}
    return {
        key: node
        for key, ins in combination.inputs.items()
        if key not in combination.multi_node
        and all(combination.projections[i].is_primitive for i in ins)
    }


@dataclass
class Space:
    """What Alg. 1 evaluated over all orders: projections and options per projection."""

    pool: dict[str, Projection] = field(default_factory=dict)
    options: dict[str, list[Choice]] = field(default_factory=dict)
    memo: ChoiceMemo = field(default_factory=ChoiceMemo, repr=False, compare=False)
    """Alg. 1's placement options per exact key, for every Alg. 1 run of one plan (the rate
    kicks' spaces share the search's, :func:`inev.planner.last_passes._kicked_design`)."""

    def absorb(self, state: SharingState) -> None:
        """Add a run's projections and options (options told apart by inputs and partition)."""
        for key, p in state.pool.items():
            self.pool.setdefault(key, p)
        for key, found in state.options.items():
            known = self.options.setdefault(key, [])
            seen = {(c.inputs, c.partition) for c in known}
            known.extend(c for c in found if (c.inputs, c.partition) not in seen)

    def design(self, state: SharingState, pinned: dict[str, Node] | None = None) -> Design:
        """The design of one Alg. 1 run, with a default choice for every other projection."""
        choices: dict[str, Choice] = {k: found[0] for k, found in self.options.items()}
        for key, p in self.pool.items():
            if p.is_primitive:
                choices[key] = Choice(key, (), None, {}, 0.0)
        choices.update(state.choices)
        return Design(choices, dict(state.sinks), dict(pinned or {}))


def paper_designs(
    network: Network,
    wl: Workload,
    tau: float,
    options: PlanOptions,
    central_node: Node,
    space: Space,
    deadline: float = math.inf,
) -> list[Design]:
    """Alg. 1 per query order, each with Alg. 2's own nodes and with two pinned variants; past
    the ``deadline`` (a time budget) no further order is tried after the first."""
    states = []
    orders = query_orders(network, wl, options)
    for i, order in enumerate(orders):
        if states and time.perf_counter() >= deadline:
            break
        progress.stage(f"Alg. 1, query order {i + 1}/{len(orders)}", 0)
        slack = SUITABLE_SLACK if options.effort > 0 else 1.0
        state = run_alg1(
            network,
            wl,
            tau=tau,
            xi=options.xi,
            order=order,
            known=space.pool,
            slack=slack,
            memo=space.memo,
        )
        space.absorb(state)
        states.append(state)
    designs = []
    for state in states:
        designs.append(space.design(state))
        if options.effort == 0:
            continue
        comb = state.combination()
        for pinned in (
            gathering_sinks(comb, central_node),
            {k: central_node for k in comb.inputs if k not in comb.multi_node},
        ):
            if pinned:
                designs.append(space.design(state, pinned))
    return designs
