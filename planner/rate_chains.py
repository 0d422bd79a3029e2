"""Rate-ordered chains: whole-workload designs that gather the rare types, then partition.

Beyond the paper (issue 32). The local search changes one projection at a time, and Alg. 1
builds each query's projections with estimates, one query after another. A design that
changes every query's chain at once, in one common order, is then out of their reach,
although the common order is what lets the queries share their chains' prefixes.

A *chain design* fixes one order of the workload's event types: the ``k`` types of lowest
global rate first (``gathered``), then the others, rising or falling in rate. Every query
(of three or more positive types, without negation, Kleene closure or stream aliases)
becomes one chain over its own types in that order:

* its first projection takes the gathered types it reads (at least two types) from their
  sources to one node: rare events are cheap to collect;
* each further projection adds the next type, partitioned by it (multi-node at that type's
  sources): the frequent type's events stay where they occur, and the projection before it
  reaches them as a stream of (few) matches;
* the last projection is the query's sink.

Projections are the queries' own (keyed as Alg. 1 keys them, :func:`own_key`), so two
queries whose chains reach the same projection share it and its streams. Other queries keep
the choices of the design the chains start from.

Why both directions after the gathered types: partitioning first by the most frequent type
keeps its events local longest (the INEv authors' combination on bench_plan_quality's #115
gathers B, D and F, then partitions by A, the most frequent); partitioning by the rarer ones
first keeps the match streams small. On #115 inev's search stopped at ψ 274.88, above the
authors' combination (265.87 in inev's model); the chain design that gathers B, D, F, C and
partitions by E and then A costs 221.89 before any local search.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build(range(3), [(0, 1), (1, 2)],
...                     {"A": (9.0, [0, 2]), "B": (1.0, [1]), "C": (1.0, [2])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B, C)")])
>>> [o for _, o in chain_orders(net, wl)]
[('B', 'C', 'A'), ('B', 'A', 'C'), ('B', 'C', 'A')]
>>> design, new = chain_design(net, wl, chain_orders(net, wl)[2], {})
>>> {k: (c.inputs, c.partition) for k, c in design.choices.items() if c.inputs}
{'SEQ(B, C)': (('B', 'C'), None), 'SEQ(A, B, C)': (('A', 'SEQ(B, C)'), 'A')}
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from inev.planner.alg1_combination import Choice
from inev.planner.baselines import sink_projection
from inev.planner.improve import Design
from inev.planner.projections import Projection, make_projection, own_key, primitive_projection
from inev.topologies.network import Network
from inev.workloads.pattern import kleene_types, negated_types
from inev.workloads.workload import Query, Workload

ChainOrder = tuple[frozenset[str], tuple[str, ...]]
"""The gathered types and the order of all types (gathered first)."""


def chained(query: Query) -> bool:
    """Whether a query gets a chain: three or more types, no negation, Kleene closure or
    stream aliases (their projections have rules a plain chain does not follow)."""
    pattern = query.pattern
    if negated_types(pattern) or kleene_types(pattern):
        return False
    if query.streams:
        return False
    return len(query.types) >= 3


def chain_orders(network: Network, workload: Workload) -> list[ChainOrder]:
    """Every order a chain design may take: the ``k`` rarest types of the chained queries
    gathered (``k`` from 1 up to all but one, ties by name), the rest after them by rising
    and by falling rate (one order where both agree). A query gathers at least its first
    two types, so with ``k`` 1 it gathers the rarest type with the next in the order."""
    queries = [q for q in workload.queries if chained(q)]
    glob = network.global_rates()
    used = sorted({t for q in queries for t in q.types}, key=lambda t: (glob[t], t))
    orders: list[ChainOrder] = []
    for k in range(1, len(used)):
        gathered, rest = used[:k], used[k:]
        for tail in dict.fromkeys((tuple(rest), tuple(rest[::-1]))):
            orders.append((frozenset(gathered), (*gathered, *tail)))
    return orders


def chain_design(
    network: Network,
    workload: Workload,
    order: ChainOrder,
    pool: Mapping[str, Projection],
    base: Design | None = None,
) -> tuple[Design, dict[str, Projection]]:
    """The chain design of ``order`` (module docstring) and the projections it adds to
    ``pool``. Queries without a chain keep their choices in ``base``, the design the chains
    start from; its other choices stay as options of the local search. A chain's choice has
    no estimate (``cost`` NaN: Alg. 1 did not make it)."""
    gathered, types = order
    glob = network.global_rates()
    new: dict[str, Projection] = {}
    choices = dict(base.choices) if base else {}
    sinks = dict(base.sinks) if base else {}

    def known(p: Projection, query: Query) -> Projection:
        p = own_key(p, {**pool, **new}, query.name)
        if p.key not in pool:
            new.setdefault(p.key, p)
        return p

    def choose(key: str, inputs: list[str], partition: str | None) -> None:
        ordered = tuple(sorted(inputs, key=lambda k: (len(k), k)))
        choices[key] = Choice(key, ordered, partition, {}, math.nan)

    for query in workload.queries:
        if not chained(query):
            continue
        own = [t for t in types if t in query.types]
        for t in own:
            prim = known(primitive_projection(t, glob[t]), query)
            choices.setdefault(prim.key, Choice(prim.key, (), None, {}, 0.0))
        start = max(2, sum(1 for t in own if t in gathered))
        previous = None
        for end in range(start, len(own) + 1):
            if end == len(own):
                p = known(sink_projection(query, glob, workload.window), query)
            else:
                p = known(make_projection(query, own[:end], glob, workload.window), query)
            if previous is None:
                choose(p.key, own[:end], None)
            else:
                choose(p.key, [previous, own[end - 1]], own[end - 1])
            previous = p.key
        sinks[query.name] = previous
    return Design(choices, sinks), new
