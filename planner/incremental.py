"""ψ of Alg. 2's placement, re-computing only what differs from designs placed before.

The local search (:mod:`inev.planner.improve`) places thousands of designs that differ from
each other by one move: one projection's inputs, partitioning or node. Alg. 2
(:func:`inev.planner.alg2_placement.placement_cost`) lays every design out from scratch,
which took 64-95 % of an expensive planning task (issue 46). :class:`Placer` computes the
same ψ and the same nodes, bit for bit, from parts it keeps across designs:

* a projection's **vertex group** (its vertices' nodes and rates) with each vertex's
  forwarding graph, as a *state*: the group's initial graphs (Steiner trees over its
  multi-node consumers' sources, joined to each vertex, :func:`~inev.planner.
  forwarding_graphs.initial_reach`) and then each growth by a consumer's node, in the
  order Alg. 2 places the consumers (:func:`~inev.planner.forwarding_graphs.grown`, which
  computes what ``extend_all`` does). A state is named by an integer: its initial key
  (what determines the vertices and the initial graphs) or (the state before, the node it
  grew to); a growth that adds no link keeps the state;
* a single-node projection's **node**, keyed by the states of its inputs, its rate and its
  multi-node consumers' sources (everything Alg. 2's rule reads, lines 17-22);
* each state's per-vertex terms |E_v| · rate(v) of ψ, summed with ``math.fsum`` (exact, so
  the order of the groups does not matter).

A state determines its graphs exactly (a growth is a function of the graphs and the node),
so reuse is exact, not approximate: the same plan and the same ψ as a placement from
scratch (``tests/test_incremental.py`` compares them on random instances, and the whole
search with and without). What a move does not change (the groups of projections it does
not touch, placed in the same order) is reused; what it changes is laid out again.
Consumer nodes (``Reach.targets``) are not kept: ψ does not depend on them. The parts are
dropped when the candidate nodes change (a pin outside the sites of a large network) or
when more than :data:`MAX_STATES` states are kept.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from itertools import chain

import numpy as np

from inev.planner.alg2_placement import _partition_rates, partitioned_rate, send_rate
from inev.planner.combination_model import Combination
from inev.planner.forwarding_graphs import (
    NO_NODES,
    Reach,
    grown,
    initial_reach,
    network_cache,
    reach_distances,
    steiner_tree_nodes,
)
from inev.planner.inev_graph import Node
from inev.planner.prelude import Preludes
from inev.planner.sites import Sites, sites
from inev.topologies.network import Network

MAX_PRELUDES = 20_000
"""Preludes (:meth:`Placer._prelude`) kept per :class:`Placer` before they are dropped."""
MAX_STATES = 200_000
"""Vertex-group states kept per :class:`Placer` before all parts are dropped."""


class _State:
    """A vertex group with its forwarding graphs at one point of Alg. 2's layout."""

    __slots__ = ("_sum", "_terms", "_weighted", "id", "rates", "reaches")

    def __init__(self, sid: int, reaches: tuple[Reach, ...], rates: np.ndarray) -> None:
        self.id = sid
        self.reaches = reaches
        self.rates = rates
        self._weighted: np.ndarray | None = None
        self._terms: list[float] | None = None
        self._sum: float | None = None

    def weighted(self, where: Sites) -> np.ndarray:
        """Per vertex and site: rate · hops from the site to the vertex's graph (the rows
        Alg. 2's single-node rule sums)."""
        if self._weighted is None:
            rows = np.array([reach_distances(where, r) for r in self.reaches])
            self._weighted = self.rates[:, None] * rows
        return self._weighted

    def terms(self) -> list[float]:
        """|E_v| · rate(v) per vertex."""
        if self._terms is None:
            self._terms = [
                r.size * b for r, b in zip(self.reaches, self.rates.tolist(), strict=True)
            ]
        return self._terms

    def sum(self) -> float:
        """Σ of :meth:`terms` (``math.fsum``; what the group adds to ψ at this point)."""
        if self._sum is None:
            self._sum = math.fsum(self.terms())
        return self._sum


class Placer:
    """:func:`~inev.planner.alg2_placement.placement_cost` with ``tight=False`` (grown
    forwarding graphs, as the search compares designs), from parts kept across calls (see
    the module docstring).

    >>> from inev.planner.alg2_placement import placement_cost
    >>> from inev.planner.projections import primitive_projection
    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (2.0, [2])})
    >>> ps = {t: primitive_projection(t, net.global_rate(t)) for t in "AB"}
    >>> c = Combination(ps, {}, {}, {})
    >>> Placer(net)(c, {}, frozenset()) == (placement_cost(net, c, with_nodes=True, tight=False))
    True
    """

    def __init__(self, network: Network) -> None:
        self.network = network
        self.where: Sites | None = None
        self.parts = Preludes(network)
        self._reset()

    def _reset(self) -> None:
        self.states: list[_State] = []
        self.initial: dict[tuple, int] = {}
        self.steps: dict[tuple, int] = {}
        self.chosen: dict[tuple, Node] = {}
        self.preludes: dict[tuple, tuple] = {}

    def __call__(
        self, combination: Combination, pinned: Mapping[str, Node], keep_matches: frozenset[str]
    ) -> tuple[float, dict[str, Node]]:
        """``(ψ, {single-node projection: its node})`` of Alg. 2's placement of
        ``combination`` (as ``placement_cost(..., with_nodes=True, tight=False)``)."""
        psi, nodes = self.bounded(combination, pinned, keep_matches)
        assert nodes is not None
        return psi, nodes

    def bounded(
        self,
        combination: Combination,
        pinned: Mapping[str, Node],
        keep_matches: frozenset[str],
        below: float = math.inf,
    ) -> tuple[float, dict[str, Node] | None]:
        """:meth:`__call__`, or ``(below, None)`` as soon as the placement is known to cost
        at least ``below`` (a search that keeps only cheaper designs needs no more).

        The layout adds the groups' terms in Alg. 2's order and a term only grows as its
        group's graphs grow, so the terms so far bound ψ from below: once their sum
        (``math.fsum``, correctly rounded, so not above the exact sum) is at least
        ``below``, ψ is too and the rest is not laid out. A running float sum says when to
        check. ``(ψ, nodes)`` whenever the placement is finished.

        It stays one function: it is the local search's hot path (every design it compares
        is laid out here; timed by ``benchmarks/bench_reproduce_speed.py`` and
        ``benchmarks/bench_planner.py``), and the running sum is kept in its locals.
        """
        network = self.network
        where = sites(network, pinned.values())
        if where is not self.where or len(self.states) > MAX_STATES:
            self._reset()
            self.where = where
        projections, outputs, extended, order, spread = self._prelude(combination, keep_matches)
        mn = combination.multi_node
        index = network.node_index
        state: dict[str, _State] = {}
        nodes: dict[str, Node] = {}
        for key in order:
            if projections[key].is_primitive:
                targets = spread.get(key, NO_NODES)
                state[key] = self._initial(
                    ("e", key, targets),
                    lambda k=key: zip(network.sources(k), network.source_rates(k), strict=True),
                    targets,
                )
        bounded = below < math.inf
        if bounded:
            total = math.fsum(s.sum() for s in state.values())
            if total >= below:
                return below, None
        for key in order:
            p = projections[key]
            if p.is_primitive:
                continue
            ins = extended[key]
            targets = spread.get(key, NO_NODES)
            if key in combination.regional:
                part, regions = mn[key], combination.regional[key]
                rates = tuple(
                    partitioned_rate(network, p, part, local, outputs[key])
                    for local in regions.rates
                )
                state[key] = self._initial(
                    ("r", regions.sites, rates, targets),
                    lambda s=regions.sites, r=rates: zip(s, r, strict=True),
                    targets,
                )
                position = {n: i for i, n in enumerate(network.sources(part))}
                before = state[part]
                for site, group in zip(regions.sites, regions.members, strict=True):
                    only = frozenset(position[n] for n in group)
                    state[part] = self._grown(state[part], site, only)
                if bounded:
                    total += state[key].sum() + state[part].sum() - before.sum()
                    if total >= below and self._beyond(state, below):
                        return below, None
                continue
            if key in mn:
                part, out = mn[key], outputs[key]
                state[key] = self._initial(  # the vertices' rates: a function of the key
                    ("m", part, p.rate, out, targets),
                    lambda c=part, p=p, o=out: zip(
                        network.sources(c), _partition_rates(network, p, c, o), strict=True
                    ),
                    targets,
                )
                if bounded:
                    total += state[key].sum()
                    if total >= below and self._beyond(state, below):
                        return below, None
                continue
            rate = send_rate(network, p, None, None, outputs[key])
            if key in pinned and pinned[key] in index:
                m = pinned[key]
            else:
                m = self._choose([state[i] for i in ins], rate, targets)
            nodes[key] = m
            state[key] = self._initial(
                ("s", m, rate, targets), lambda m=m, r=rate: [(m, r)], targets
            )
            if bounded:
                total += state[key].sum()
            for i in dict.fromkeys(ins):
                before = state[i]
                after = state[i] = self._grown(before, m)
                if bounded and after is not before:
                    total += after.sum() - before.sum()
            if bounded and total >= below and self._beyond(state, below):
                return below, None
        psi = math.fsum(chain.from_iterable(s.terms() for s in state.values()))
        return psi, nodes

    def selects(self, combination: Combination, keep_matches: frozenset[str]) -> bool:
        """Whether Alg. 2 gives some projection of ``combination`` an output selector, from
        the kept prelude (the placement of a design computes it anyway): what
        :func:`~inev.planner.alg2_placement.uses_selectors` says of a combination without
        regional placements (it tries a regional projection's selector at every source)."""
        assert not combination.regional
        return any(o is not None for o in self._prelude(combination, keep_matches)[1].values())

    def _prelude(self, combination: Combination, keep_matches: frozenset[str]) -> tuple:
        """What Alg. 2 derives from the combination before laying it out: projections,
        output selectors, extended inputs, the order, the multi-node consumers' sources
        (kept per combination object and ``keep_matches``: designs that differ by pins
        alone share them; the object is kept with them, so its id is not reused; a new
        combination's from parts kept per projection, :class:`~inev.planner.prelude.Preludes`)."""
        key = (id(combination), keep_matches)
        found = self.preludes.get(key)
        if found is None or found[0] is not combination:
            if len(self.preludes) >= MAX_PRELUDES:
                self.preludes.clear()
            found = (combination, self.parts(combination, keep_matches))
            self.preludes[key] = found
        return found[1]

    @staticmethod
    def _beyond(state: Mapping[str, _State], below: float) -> bool:
        """Whether the terms so far sum (exactly rounded) to at least ``below``."""
        return math.fsum(chain.from_iterable(s.terms() for s in state.values())) >= below

    def _initial(
        self,
        key: tuple,
        vertices: Callable[[], object],
        targets: frozenset[Node],
    ) -> _State:
        """The state of a new vertex group (``vertices``: its ``(node, rate)`` pairs)."""
        sid = self.initial.get(key)
        if sid is None:
            network = self.network
            caches = network_cache(network)
            pairs = list(vertices())  # type: ignore[call-overload]
            reaches = tuple(initial_reach(network, targets, n, caches) for n, _ in pairs)
            rates = np.array([r for _, r in pairs])
            sid = self.initial[key] = self._new(reaches, rates)
        return self.states[sid]

    def _grown(self, before: _State, node: Node, only: frozenset[int] | None = None) -> _State:
        """The state after ``before``'s graphs (at positions ``only``) grow to ``node``."""
        step = (before.id, node, only)
        sid = self.steps.get(step)
        if sid is None:
            assert self.where is not None
            after = grown(self.network, self.where, before.reaches, node, only)
            sid = before.id if after is None else self._new(after, before.rates)
            self.steps[step] = sid
        return self.states[sid]

    def _new(self, reaches: tuple[Reach, ...], rates: np.ndarray) -> int:
        sid = len(self.states)
        self.states.append(_State(sid, reaches, rates))
        return sid

    def _choose(self, inputs: list[_State], rate: float, targets: frozenset[Node]) -> Node:
        """Alg. 2's node for a single-node projection (lines 17-22, see ``_layout``)."""
        key = (tuple(s.id for s in inputs), rate, targets)
        found = self.chosen.get(key)
        if found is None:
            where = self.where
            assert where is not None
            rows = [s.weighted(where) for s in inputs]
            total = (rows[0] if len(rows) == 1 else np.concatenate(rows)).sum(axis=0)
            if targets:
                total = total + rate * where.to_set(steiner_tree_nodes(self.network, targets))
            found = self.chosen[key] = where.nodes[int(np.argmin(total))]
        return found
