"""Combination generation: Algorithm 1 of the INEv paper (§6.2) with the Eq. 1 multi-node test.

For one query q the suitable projections Π_eval are handled in topological order (by size).
For each projection p and each *placement option* — single-node, or multi-node partitioned
by one of p's (non-negated) event types c with c ∉ Θ — the inputs λ(p) are chosen among
Pre = (Π_eval ∩ Π_p) ∪ E(p) so that their union covers E(p) (overlaps allowed) and the
estimated cost is minimal. The best option becomes p's choice; the query's choice, followed
recursively through the inputs, gives the combination (line 7).

**Estimated cost (getSavings).** We minimise estimated cost rather than maximise savings
(the same order: savings = centralized cost − cost). The estimate of a choice is a set of
named *cost items*, and its value is the sum over the union of the items of p and of its
inputs' choices, so a sub-projection used twice is paid once:

* ``("send", i, p)``: input i sent to the single node of p, R(i) · δ (δ the mean hop
  distance, as in the paper);
* ``("fwd", i, c)``: input i forwarded to the sources of c for a multi-node placement at c,
  R(i) · h(c) with h(c) = |ST(f(c))| + the mean hop distance to f(c) (:func:`multi_node_hops`); the key does not name p, so every projection partitioned at c that
  takes i shares the cost (heuristic *sharedInputs*), and the partitioning input itself is
  never charged, however many projections it partitions (heuristic *single partitioning
  input counted once*);
* items already paid by previously planned queries cost nothing (sharing-based scoring, §6.3).

**Enumeration (getInputs) and pruning.** With the items of each candidate input fixed, the
cost of an input set is additive up to shared items, and the minimum over all covers is found
by a dynamic programme over the set of still uncovered types (cover the lowest uncovered
type by some candidate, recurse on the rest) — exact for additive weights (see
:func:`min_cover`, checked against brute-force enumeration in the tests), so no cover is
enumerated blindly: O(2^|E(p)| · |Pre|) per projection instead of 2^|Pre|.

**Eq. 1.** An option partitioned at c is admitted only if
R(c) · δ > h(c) · Σ_{i ∈ λ(p) \\ {c}} R(i) + R(p) · δ (last term omitted for the query), with
h(c) in place of the paper's |ST(f(c))| (see :func:`multi_node_hops`).
If the cheapest cover breaks Eq. 1, the cover of least total input rate is tried instead.
A query's sink is never partitioned by a Kleene type (each node would see only its own
events of the type, and Kleene matches mix sources).

**Latency pruning (prune).** Each option's latency is estimated as the largest estimate of its
inputs + δ + ξ · pm(p, λ(p)) / k (k = number of placement nodes, pm from
:mod:`inev.planner.latency_model`); options above τ are discarded, and candidate inputs whose own
estimate already exceeds τ − δ are pruned before the enumeration.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from inev.planner.choice_memo import ChoiceMemo
from inev.planner.combination_model import Combination
from inev.planner.latency_model import DEFAULT_XI, partial_match_rate
from inev.planner.projections import (
    Projection,
    make_projection,
    own_key,
    primitive_projection,
    suitable_projections,
)
from inev.planner.steiner import steiner_size, trees_of
from inev.topologies.network import Network
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.workload import Query

Item = tuple[str, str, str]
_HOPS: weakref.WeakKeyDictionary[object, dict[tuple, float]] = weakref.WeakKeyDictionary()
""":func:`multi_node_hops` per topology (:func:`~inev.planner.steiner.trees_of`) and source
set: shared by networks of one topology with other rates (the search's rate kicks)."""


@dataclass(frozen=True)
class Choice:
    """The chosen inputs of a projection, its partitioning type (or None) and its estimate."""

    key: str
    inputs: tuple[str, ...]
    partition: str | None
    items: Mapping[Item, float]
    latency: float
    cost: float = 0.0
    eq1: tuple[float, float] | None = None
    additive: float = 0.0
    """The additive estimate the enumeration minimised (shared items counted per input)."""


@dataclass
class SharingState:
    """What Alg. 1 carries from query to query (§6.3): the combination so far, paid items, Θ."""

    projections: dict[str, Projection] = field(default_factory=dict)
    choices: dict[str, Choice] = field(default_factory=dict)
    sinks: dict[str, str] = field(default_factory=dict)
    queries_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    paid: dict[Item, float] = field(default_factory=dict)
    theta: set[str] = field(default_factory=set)
    pool: dict[str, Projection] = field(default_factory=dict)
    """Every projection Alg. 1 evaluated (used or not), for searches beyond one pass."""
    options: dict[str, list[Choice]] = field(default_factory=dict)
    """Per evaluated projection, its best choice per placement option, cheapest first."""
    memo: ChoiceMemo | None = None
    """Placement options kept across the Alg. 1 runs of one plan (exact keys)."""

    def combination(self) -> Combination:
        """The workload combination C_Q built so far."""
        return Combination(
            projections=dict(self.projections),
            inputs={k: c.inputs for k, c in self.choices.items() if c.inputs},
            multi_node={k: c.partition for k, c in self.choices.items() if c.partition},
            sinks=dict(self.sinks),
            queries_of=dict(self.queries_of),
        )


@dataclass(frozen=True)
class Params:
    """Network figures and knobs Alg. 1 needs: δ, τ, ξ."""

    delta: float
    tau: float = math.inf
    xi: float = DEFAULT_XI
    slack: float = 1.0
    """Suitability slack of Π_eval (:func:`inev.planner.projections.suitable_projections`)."""


def min_cover(universe: int, candidates: Sequence[tuple[int, float]]) -> tuple[float, list[int]]:
    """Minimum-weight cover of the bit set ``universe`` by candidate bit sets (indices returned).

    Dynamic programme over uncovered sets: the lowest uncovered bit must be covered by some
    candidate containing it. Exact for non-negative weights. Returns ``(inf, [])`` if no cover.

    >>> min_cover(0b111, [(0b011, 1.0), (0b100, 1.0), (0b111, 3.0), (0b110, 0.5), (0b001, 0.2)])
    (0.7, [4, 3])
    """
    by_bit: dict[int, list[int]] = {}
    for idx, (mask, _) in enumerate(candidates):
        m = mask & universe
        while m:
            low = m & -m
            by_bit.setdefault(low, []).append(idx)
            m ^= low
    memo: dict[int, tuple[float, int]] = {0: (0.0, -1)}

    def solve(mask: int) -> float:
        found = memo.get(mask)
        if found is not None:
            return found[0]
        low = mask & -mask
        best, arg = math.inf, -1
        for idx in by_bit.get(low, ()):
            cmask, weight = candidates[idx]
            if weight >= best:
                continue
            total = weight + solve(mask & ~cmask)
            if total < best:
                best, arg = total, idx
        memo[mask] = (best, arg)
        return best

    cost = solve(universe)
    if math.isinf(cost):
        return cost, []
    chosen, mask = [], universe
    while mask:
        idx = memo[mask][1]
        chosen.append(idx)
        mask &= ~candidates[idx][0]
    return cost, chosen


COVERS_KEPT = 1 << 16
"""Covers :func:`_kept_cover` remembers per (universe, candidates), the least recently used
dropped first. Alg. 1 solves the same cover again and again within a plan (25,504 calls,
6,463 distinct, on issue 46's default instance: the rate kicks and the search's restarts
combine the same queries under the same rates); an entry is two short tuples."""


@lru_cache(maxsize=COVERS_KEPT)
def _cover(universe: int, candidates: tuple[tuple[int, float], ...]) -> tuple[float, tuple]:
    cost, chosen = min_cover(universe, candidates)
    return cost, tuple(chosen)


def _kept_cover(universe: int, candidates: list[tuple[int, float]]) -> tuple[float, list[int]]:
    """:func:`min_cover`, remembered (a new list each call, as :func:`min_cover` gives)."""
    cost, chosen = _cover(universe, tuple(candidates))
    return cost, list(chosen)


def multi_node_hops(network: Network, part: str) -> float:
    """Hops an input crosses to reach every source of ``part``: |ST(f(c))| + mean distance to f(c).

    Eq. 1 charges |ST(f(c))| per input event; we add the mean hop distance of a node to its
    nearest source of c, the expected way from an input's source to the tree. Without it a
    type with a single source (|ST| = 0) would look free to partition by.
    """
    cache = _HOPS.setdefault(trees_of(network), {})
    sources = network.sources(part)
    found = cache.get(sources)
    if found is None:
        near = network.hops_from(sources).mean()
        found = cache[sources] = float(steiner_size(network, sources)) + float(near)
    return found


def items_cost(items: Mapping[Item, float], paid: Mapping[Item, float]) -> float:
    """Σ of the items not yet paid."""
    return sum(v for k, v in items.items() if k not in paid)


def _union(parts: Sequence[Mapping[Item, float]]) -> dict[Item, float]:
    out: dict[Item, float] = {}
    for part in parts:
        out.update(part)
    return out


def choose_inputs(
    network: Network,
    projection: Projection,
    pre: Sequence[Projection],
    choices: Mapping[str, Choice],
    params: Params,
    paid: Mapping[Item, float],
    theta: set[str] | frozenset[str] = frozenset(),
    is_sink: bool = False,
    kleene: frozenset[str] = frozenset(),
    memo: ChoiceMemo | None = None,
) -> Choice | None:
    """The best choice of inputs and placement option for one projection (None: all pruned)."""
    options = choose_options(
        network, projection, pre, choices, params, paid, theta, is_sink, kleene, memo
    )
    return options[0] if options else None


def choose_options(
    network: Network,
    projection: Projection,
    pre: Sequence[Projection],
    choices: Mapping[str, Choice],
    params: Params,
    paid: Mapping[Item, float],
    theta: set[str] | frozenset[str] = frozenset(),
    is_sink: bool = False,
    kleene: frozenset[str] = frozenset(),
    memo: ChoiceMemo | None = None,
) -> list[Choice]:
    """The best choice of inputs per placement option (single node, each partitioning type),
    cheapest first by the estimate (empty: every option pruned); ``memo`` keeps the answers
    per everything they are computed from (:mod:`inev.planner.choice_memo`)."""
    if memo is not None:
        key = memo.key(network, projection, pre, choices, params, paid, theta, is_sink, kleene)
        kept = memo.get(key)
        if kept is None:
            kept = choose_options(
                network, projection, pre, choices, params, paid, theta, is_sink, kleene
            )
            memo.put(key, kept)
        return kept
    enum = _Enumeration.start(network, projection, pre, choices, params, paid, is_sink)
    found = [
        choice
        for part in enum.placement_options(theta, kleene if is_sink else frozenset())
        if (choice := enum.best(part)) is not None
    ]
    found.sort(key=lambda c: c.cost)  # stable: single node first among equals
    return found


@dataclass(frozen=True)
class _Option:
    """One placement option's terms: the hop coefficient of its transports, the types its
    inputs must cover (bit mask), the candidate inputs, and how many nodes it places on."""

    part: str | None
    coeff: float
    universe: int
    cands: list[Projection]
    count: int

    def item(self, i: Projection, projection: Projection) -> Item:
        """The cost item of sending input ``i`` for this option (see the module docstring)."""
        if self.part is None:
            return ("send", i.key, projection.key)
        return ("fwd", i.key, self.part)


@dataclass(frozen=True)
class _Enumeration:
    """The state :func:`choose_options` shares between a projection's placement options."""

    network: Network
    projection: Projection
    choices: Mapping[str, Choice]
    params: Params
    paid: Mapping[Item, float]
    is_sink: bool
    glob: Mapping[str, float]
    bits: Mapping[str, int]
    usable: list[Projection]
    own: Mapping[str, float]
    masks: Mapping[str, int] = field(default_factory=dict)
    """Per usable input, its types as a bit mask of :attr:`bits` (made once, not per option)."""

    @classmethod
    def start(
        cls,
        network: Network,
        projection: Projection,
        pre: Sequence[Projection],
        choices: Mapping[str, Choice],
        params: Params,
        paid: Mapping[Item, float],
        is_sink: bool,
    ) -> _Enumeration:
        """Prune ``pre`` by latency and price each usable input's own choice."""
        usable = [
            i
            for i in pre
            if i.types <= projection.types
            and i.key != projection.key
            and choices[i.key].latency + params.delta <= params.tau
        ]
        bits = {t: 1 << i for i, t in enumerate(sorted(projection.types))}
        return cls(
            network=network,
            projection=projection,
            choices=choices,
            params=params,
            paid=paid,
            is_sink=is_sink,
            glob=network.global_rates(),
            bits=bits,
            usable=usable,
            own={i.key: items_cost(choices[i.key].items, paid) for i in usable},
            masks={i.key: sum(bits[t] for t in i.types) for i in usable},
        )

    def own_rate(self) -> float:
        """R(p) · δ, the term the query itself leaves out (Eq. 1 and the option filter)."""
        return 0.0 if self.is_sink else self.projection.rate * self.params.delta

    def placement_options(
        self, theta: frozenset[str] | set[str], kleene: frozenset[str]
    ) -> Iterator[str | None]:
        """None (single node), then each type worth partitioning by, in name order."""
        yield None
        p = self.projection
        for c in sorted(p.types - p.negated):
            if c in theta or c in kleene:
                continue
            if self.glob[c] * self.params.delta > self.own_rate():
                yield c

    def option(self, part: str | None) -> _Option:
        """The terms of placement option ``part``."""
        full = sum(self.bits.values())
        if part is None:
            return _Option(None, self.params.delta, full, self.usable, 1)
        cands = [i for i in self.usable if part not in i.types]
        count = len(self.network.sources(part))
        hops = multi_node_hops(self.network, part)
        return _Option(part, hops, full & ~self.bits[part], cands, count)

    def best(self, part: str | None) -> Choice | None:
        """The cheapest admissible choice of inputs for option ``part`` (None: pruned)."""
        opt = self.option(part)
        masks = [self.masks[i.key] for i in opt.cands]
        weights = [
            self.own[i.key]
            + (0.0 if opt.item(i, self.projection) in self.paid else opt.coeff * i.rate)
            for i in opt.cands
        ]
        additive, picked = _kept_cover(opt.universe, list(zip(masks, weights, strict=True)))
        if not picked:
            return None
        eq1 = None
        if part is not None:
            admitted = self._eq1_cover(opt, masks, picked)
            if admitted is None:
                return None
            if admitted is not picked:
                picked, additive = admitted, sum(weights[j] for j in admitted)
            rhs = opt.coeff * sum(opt.cands[j].rate for j in picked) + self.own_rate()
            eq1 = (self.glob[part] * self.params.delta, rhs)
        return self._choice(opt, [opt.cands[j] for j in picked], eq1, additive)

    def _eq1_cover(self, opt: _Option, masks: list[int], picked: list[int]) -> list[int] | None:
        """``picked`` if it passes Eq. 1, else the cover of least input rate if that does
        (None: no cover does)."""
        assert opt.part is not None
        limit = self.glob[opt.part] * self.params.delta - self.own_rate()

        def lhs(sel: list[int]) -> float:
            return opt.coeff * sum(opt.cands[j].rate for j in sel)

        if lhs(picked) < limit:
            return picked
        _, cheapest = _kept_cover(
            opt.universe, [(m, i.rate) for m, i in zip(masks, opt.cands, strict=True)]
        )
        return cheapest if cheapest and lhs(cheapest) < limit else None

    def _choice(
        self,
        opt: _Option,
        inputs: list[Projection],
        eq1: tuple[float, float] | None,
        additive: float,
    ) -> Choice | None:
        """The choice of ``inputs`` for ``opt`` with its items and latency (None: above τ)."""
        if opt.part is not None:
            inputs = [*inputs, primitive_projection(opt.part, self.glob[opt.part])]
        items = _union([self.choices[i.key].items for i in inputs if i.key in self.choices])
        for i in inputs:
            if i.key != opt.part:
                items[opt.item(i, self.projection)] = opt.coeff * i.rate
        pm = partial_match_rate(self.projection, inputs, self.glob)
        latency = (
            max((self.choices[i.key].latency if i.key in self.choices else 0.0) for i in inputs)
            + self.params.delta
            + self.params.xi * pm / opt.count
        )
        if latency > self.params.tau:
            return None
        cost = items_cost(items, self.paid)
        ordered = tuple(sorted((i.key for i in inputs), key=lambda k: (len(k), k)))
        return Choice(self.projection.key, ordered, opt.part, items, latency, cost, eq1, additive)


def combine_query(
    network: Network,
    query: Query,
    state: SharingState,
    params: Params,
    sink: Projection,
    window: float = WORKLOAD_DEFAULTS.window,
) -> None:
    """Alg. 1 for one query, merged into ``state`` (shared construction, Θ; §6.3).

    Projections are shared by key; a projection of this query whose key another query's
    projection already holds with other predicates gets its own key (:func:`own_key`).
    """
    glob = network.global_rates()
    sink = own_key(sink, state.pool, query.name)
    for t in query.types:
        if t not in state.projections:
            state.projections[t] = primitive_projection(t, glob[t])
        state.pool.setdefault(t, state.projections[t])
        state.choices.setdefault(t, Choice(t, (), None, {}, 0.0))
    if sink.key in state.choices and state.choices[sink.key].inputs:
        _record(state, query, sink.key)
        return
    local: dict[str, Choice] = {t: state.choices[t] for t in query.types}
    available: list[Projection] = []
    prims = [state.projections[t] for t in query.types]
    for p in suitable_projections(query, glob, window, params.slack):
        is_sink = p.types == frozenset(query.types)
        p = sink if is_sink else own_key(p, state.pool, query.name)
        if p.key in state.choices:
            local[p.key] = state.choices[p.key]
            available.append(p)
            continue
        pre = [x for x in available if x.types < p.types] + [x for x in prims if x.types <= p.types]
        choice = _choose(network, query, p, pre, local, params, state, window, is_sink)
        if choice is None:
            continue
        local[p.key] = choice
        state.projections.setdefault(p.key, p)
        available.append(p)
    _adopt(state, query, local, sink.key)


def _choose(
    network: Network,
    query: Query,
    p: Projection,
    pre: list[Projection],
    local: dict[str, Choice],
    params: Params,
    state: SharingState,
    window: float,
    is_sink: bool,
) -> Choice | None:
    """Alg. 1's choice for projection ``p`` of ``query``: every option is kept in
    ``state.options`` for the searches, the choice itself avoids Θ (§6.3); a sink that the
    latency bound prunes entirely falls back to gathering all its types."""
    kleene = query.kleene if is_sink else frozenset()
    if kleene:
        pre = pre + _kleene_twin(network, query, p, pre, local, params, state, window)
    found = choose_options(network, p, pre, local, params, state.paid, frozenset(), is_sink,
                           kleene, state.memo)  # fmt: skip
    if found:
        state.pool.setdefault(p.key, p)
        state.options.setdefault(p.key, found)
    choice = next((c for c in found if c.partition not in state.theta), None)
    if choice is None and is_sink:
        prims = [state.projections[t] for t in query.types]
        unbounded = Params(params.delta, math.inf, params.xi)
        types = frozenset(query.types)
        choice = choose_inputs(network, p, prims, local, unbounded, state.paid, types, True,
                               memo=state.memo)  # fmt: skip
        if choice is not None:
            state.pool.setdefault(p.key, p)
            state.options.setdefault(p.key, []).append(choice)
    return choice


def _adopt(state: SharingState, query: Query, local: Mapping[str, Choice], sink: str) -> None:
    """Alg. 1 line 7: the query's sink and its inputs, transitively, join the shared state
    (their items become paid, partitioned inputs join Θ); unused projections leave."""
    stack, reached = [sink], []
    while stack:
        k = stack.pop()
        if k in reached:
            continue
        reached.append(k)
        stack.extend(local[k].inputs)
    for k in reached:
        if k not in state.choices:
            state.choices[k] = local[k]
        ch = state.choices[k]
        state.paid.update(ch.items)
        if ch.partition is not None:
            state.theta.update(i for i in ch.inputs if i in query.types and i != ch.partition)
    for k in list(state.projections):
        if k not in state.choices:
            del state.projections[k]
    _record(state, query, sink)


def _kleene_twin(
    network: Network,
    query: Query,
    sink: Projection,
    pre: list[Projection],
    local: dict[str, Choice],
    params: Params,
    state: SharingState,
    window: float,
) -> list[Projection]:
    """q_nKL as a projection of its own, for a Kleene query's sink to take as its one input.

    The sink itself is never partitioned by a Kleene type (each node would see only its own
    events of the type, and trends mix sources). Its Kleene-free twin q_nKL may be: its
    matches, partitioned by the Kleene type at that type's sources, travel to the sink's
    single node, which builds the trends from them (INEv §6.1 evaluates q_nKL and builds
    trends only at the sink). The twin is offered to the sink as an input covering all its
    types; the sink's enumeration then weighs this route against the others.
    """
    twin = own_key(
        make_projection(query, query.types, network.global_rates(), window),
        state.pool,
        query.name,
    )
    if twin.key == sink.key:
        return []
    if twin.key in state.choices:
        local[twin.key] = state.choices[twin.key]
        return [twin]
    found = choose_options(network, twin, pre, local, params, state.paid, frozenset(),
                           memo=state.memo)  # fmt: skip
    if not found:
        return []
    state.pool.setdefault(twin.key, twin)
    state.options.setdefault(twin.key, found)
    local[twin.key] = next((c for c in found if c.partition not in state.theta), found[0])
    state.projections.setdefault(twin.key, twin)
    return [twin]


def _record(state: SharingState, query: Query, key: str) -> None:
    state.sinks[query.name] = key
    state.queries_of[key] = (*state.queries_of.get(key, ()), query.name)
