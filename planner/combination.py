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
:mod:`inev.planner.latency`); options above τ are discarded, and candidate inputs whose own
estimate already exceeds τ − δ are pruned before the enumeration.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from inev.planner.latency import DEFAULT_XI, partial_match_rate
from inev.planner.model import Combination
from inev.planner.projections import (
    Projection,
    make_projection,
    own_key,
    primitive_projection,
    suitable_projections,
)
from inev.planner.steiner import steiner_size
from inev.topologies.network import Network
from inev.workloads.query import kleene_types
from inev.workloads.workload import Query

Item = tuple[str, str, str]
_HOPS: weakref.WeakKeyDictionary[Network, dict[str, float]] = weakref.WeakKeyDictionary()


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


def multi_node_hops(network: Network, part: str) -> float:
    """Hops an input crosses to reach every source of ``part``: |ST(f(c))| + mean distance to f(c).

    Eq. 1 charges |ST(f(c))| per input event; we add the mean hop distance of a node to its
    nearest source of c, the expected way from an input's source to the tree. Without it a
    type with a single source (|ST| = 0) would look free to partition by.
    """
    cache = _HOPS.setdefault(network, {})
    if part not in cache:
        near = network.hops_from(network.sources(part)).mean()
        cache[part] = float(steiner_size(network, network.sources(part))) + float(near)
    return cache[part]


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
) -> Choice | None:
    """The best choice of inputs and placement option for one projection (None: all pruned)."""
    options = choose_options(
        network, projection, pre, choices, params, paid, theta, is_sink, kleene
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
) -> list[Choice]:
    """The best choice of inputs per placement option (single node, each partitioning type),
    cheapest first by the estimate (empty: every option pruned)."""
    glob = network.global_rates()
    delta = params.delta
    bits = {t: 1 << i for i, t in enumerate(sorted(projection.types))}
    full = sum(bits.values())
    usable = [
        i
        for i in pre
        if i.types <= projection.types
        and i.key != projection.key
        and choices[i.key].latency + delta <= params.tau
    ]
    own = {i.key: items_cost(choices[i.key].items, paid) for i in usable}

    options: list[str | None] = [None]
    for c in sorted(projection.types - projection.negated):
        if c in theta or (is_sink and c in kleene):
            continue
        if glob[c] * delta <= (0.0 if is_sink else projection.rate * delta):
            continue
        options.append(c)

    found: list[Choice] = []
    for part in options:
        if part is None:
            coeff, universe = delta, full
            cands = usable
            key_of = lambda i: ("send", i.key, projection.key)  # noqa: E731
            count = 1
        else:
            coeff = multi_node_hops(network, part)
            universe = full & ~bits[part]
            cands = [i for i in usable if part not in i.types]
            key_of = lambda i, c=part: ("fwd", i.key, c)  # noqa: E731
            count = len(network.sources(part))
        masks = [sum(bits[t] for t in i.types) for i in cands]

        def weight(i: Projection, k=key_of, cf=coeff) -> float:
            transport = 0.0 if k(i) in paid else cf * i.rate
            return own[i.key] + transport

        weights = [weight(i) for i in cands]
        additive, picked = min_cover(universe, list(zip(masks, weights, strict=True)))
        if not picked:
            continue
        eq1 = None
        if part is not None:
            limit = glob[part] * delta - (0.0 if is_sink else projection.rate * delta)

            def lhs(sel: list[int], cf: float = coeff, cs: list = cands) -> float:
                return cf * sum(cs[j].rate for j in sel)

            if lhs(picked) >= limit:
                _, picked = min_cover(
                    universe, [(m, i.rate) for m, i in zip(masks, cands, strict=True)]
                )
                if not picked or lhs(picked) >= limit:
                    continue
                additive = sum(weights[j] for j in picked)
            eq1 = (glob[part] * delta, lhs(picked) + (0.0 if is_sink else projection.rate * delta))
        inputs = [cands[j] for j in picked]
        if part is not None:
            inputs.append(primitive_projection(part, glob[part]))
        items = _union([choices[i.key].items for i in inputs if i.key in choices])
        for i in inputs:
            if i.key != part:
                items[key_of(i)] = coeff * i.rate
        pm = partial_match_rate(projection, inputs, glob)
        latency = (
            max((choices[i.key].latency if i.key in choices else 0.0) for i in inputs)
            + delta
            + params.xi * pm / count
        )
        if latency > params.tau:
            continue
        cost = items_cost(items, paid)
        ordered = tuple(sorted((i.key for i in inputs), key=lambda k: (len(k), k)))
        found.append(Choice(projection.key, ordered, part, items, latency, cost, eq1, additive))
    found.sort(key=lambda c: c.cost)  # stable: single node first among equals
    return found


def combine_query(
    network: Network,
    query: Query,
    state: SharingState,
    params: Params,
    sink: Projection,
    window: float = 1.0,
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
    kleene = kleene_types(query.pattern)
    suitable = suitable_projections(query, glob, window, params.slack)
    for p in suitable:
        is_sink = p.types == frozenset(query.types)
        p = sink if is_sink else own_key(p, state.pool, query.name)
        if p.key in state.choices:
            local[p.key] = state.choices[p.key]
            available.append(p)
            continue
        pre = [x for x in available if x.types < p.types] + [x for x in prims if x.types <= p.types]
        if is_sink and kleene:
            pre += _kleene_twin(network, query, p, pre, local, params, state, window)
        # every option is kept for searches; Alg. 1's own choice avoids Θ (§6.3)
        found = choose_options(
            network,
            p,
            pre,
            local,
            params,
            state.paid,
            frozenset(),
            is_sink=is_sink,
            kleene=kleene if is_sink else frozenset(),
        )
        if found:
            state.pool.setdefault(p.key, p)
            state.options.setdefault(p.key, found)
        choice = next((c for c in found if c.partition not in state.theta), None)
        if choice is None and is_sink:
            # the bound prunes everything: fall back to gathering all types
            choice = choose_inputs(
                network,
                p,
                prims,
                local,
                Params(params.delta, math.inf, params.xi),
                state.paid,
                frozenset(query.types),
                is_sink=True,
            )
            if choice is not None:
                state.pool.setdefault(p.key, p)
                state.options.setdefault(p.key, []).append(choice)
        if choice is None:
            continue
        local[p.key] = choice
        state.projections.setdefault(p.key, p)
        available.append(p)
    # line 7: the query and its inputs, transitively
    stack, reached = [sink.key], []
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
    _record(state, query, sink.key)


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
    found = choose_options(network, twin, pre, local, params, state.paid, frozenset())
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
