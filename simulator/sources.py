"""Event sources of a simulation: seeded Poisson streams per (event type, source node).

Each source node of a type generates that type as a Poisson process with the type's local
rate r(e) over ``[0, duration)``. Every (type, node) stream draws from its own random stream,
``numpy.random.default_rng([seed, type index, node index])``, so adding a type or a node
never changes the other streams. The global trace is the merge of all streams by time (ties
broken by type, then node); ids are assigned 0, 1, 2, … in trace order.

Attributes: every attribute the workload reads (in ``where`` clauses, ``return`` aggregates
and ``group_by``) is drawn per event as an integer uniform in ``[0, 100)`` (``id`` is the
event id itself and is never drawn).

>>> from inev.topologies.network import Network
>>> net = Network.build([0, 1], [(0, 1)], {"A": (2.0, [0]), "B": (1.0, [0, 1])})
>>> trace = poisson_trace(net, duration=10.0, seed=1)
>>> all(a.time <= b.time for a, b in zip(trace, trace[1:]))
True
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from inev.common.errors import InevError
from inev.simulator.engine.events import Event, make_event
from inev.topologies.network import Network
from inev.workloads.expressions import condition_attributes
from inev.workloads.workload import Workload

ATTRIBUTE_RANGE = 100


def workload_attributes(workload: Workload) -> dict[str, tuple[str, ...]]:
    """``{event type: attribute names}`` the workload reads (``id`` excluded; a variable's
    attributes are its type's)."""
    wanted: dict[str, set[str]] = {}
    for q in workload.queries:
        if q.where is not None:
            for attribute in condition_attributes(q.where):
                wanted.setdefault(q.stream_of(attribute.type), set()).add(attribute.name)
        if q.returns is not None and q.returns.type and q.returns.attribute:
            wanted.setdefault(q.stream_of(q.returns.type), set()).add(q.returns.attribute)
        for name in q.group_by:
            for t in q.types:
                wanted.setdefault(q.stream_of(t), set()).add(name)
    return {t: tuple(sorted(a - {"id"})) for t, a in wanted.items() if a - {"id"}}


def with_variables(events: Iterable[Event], workload: Workload) -> list[Event]:
    """The trace as the plan sees it: every event, and a copy per pattern variable of its
    type, relabelled with the variable (same time, node, id and attributes: one event,
    which each variable's stream carries; the planner plans them apart). Events of a type
    that only variables read are replaced by their copies.

    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A a, A b, B)")])
    >>> [(e.type, e.id) for e in with_variables([make_event(1.0, "A", 0, 7)], wl)]
    [('a', 7), ('b', 7)]
    """
    variables = workload.streams
    if not variables:
        return list(events)
    copies: dict[str, list[str]] = {}
    for variable, stream in variables.items():
        copies.setdefault(stream, []).append(variable)
    bare = {t for q in workload.queries for t in q.types if t not in variables}
    out = []
    for e in events:
        if e.type in bare:
            out.append(e)
        for variable in copies.get(e.type, ()):
            out.append(e._replace(type=variable))
    return out


def expected_events(network: Network, duration: float, types: Iterable[str] | None = None) -> float:
    """Expected number of events in ``duration``: Σ R(e) · duration over the chosen types."""
    chosen = list(types) if types is not None else list(network.types)
    return sum(network.global_rate(t) for t in chosen) * duration


def poisson_trace(
    network: Network,
    duration: float,
    seed: int,
    types: Iterable[str] | None = None,
    attributes: Mapping[str, tuple[str, ...]] | None = None,
    rates: Mapping[str, float] | None = None,
    start: float = 0.0,
) -> list[Event]:
    """The global trace over ``[start, duration)`` (see the module docstring).

    ``types`` limits generation to the types a workload uses; ``rates`` overrides local rates
    (a type's per-source rates are scaled so that their mean is the given rate). Each source
    n of a type e emits at its own rate r(e, n).
    """
    if not (isinstance(duration, int | float) and math.isfinite(duration) and duration > start):
        raise InevError(f"duration must be a positive number, got {duration!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InevError(f"seed must be a non-negative integer, got {seed!r}")
    chosen = list(types) if types is not None else list(network.types)
    type_index = {name: i for i, name in enumerate(network.types)}
    node_index = network.node_index
    attributes = attributes or {}
    rows: list[tuple[float, int, int, str, Any, dict[str, Any]]] = []
    for name in chosen:
        scale = (rates or {}).get(name, network.rate(name)) / network.rate(name)
        names = attributes.get(name, ())
        for node, own in zip(network.sources(name), network.source_rates(name), strict=True):
            rng = np.random.default_rng([seed, type_index[name], node_index[node]])
            expected = own * scale * (duration - start)
            count = rng.poisson(expected)
            times = np.sort(rng.uniform(start, duration, size=count))
            values = rng.integers(0, ATTRIBUTE_RANGE, size=(count, len(names))) if names else None
            t_i, n_i = type_index[name], node_index[node]
            for k, t in enumerate(times.tolist()):
                attrs = {a: int(values[k, j]) for j, a in enumerate(names)} if names else {}
                rows.append((t, t_i, n_i, name, node, attrs))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return [
        make_event(t, name, node, i, attrs) for i, (t, _, _, name, node, attrs) in enumerate(rows)
    ]


def rescale_rates(network: Network, types: Iterable[str], total_rate: float) -> Network:
    """The network with every local rate scaled by one factor so ``types`` produce ``total_rate``.

    The proportions between types and sources (the skew) are kept; only the volume changes,
    which is how a planning-sized network (the paper's Zipf rates reach tens of thousands of
    events per time unit) becomes one a simulation can hold.

    >>> from inev.topologies.network import Network
    >>> net = Network.build([0, 1], [(0, 1)], {"A": (30.0, [0]), "B": (10.0, [0, 1])})
    >>> small = rescale_rates(net, ["A", "B"], 5.0)
    >>> small.rate("A"), small.rate("B"), small.global_rate("B")
    (3.0, 1.0, 2.0)
    """
    if not total_rate > 0 or math.isinf(total_rate):
        raise InevError(f"total rate must be a positive number, got {total_rate}")
    current = sum(network.global_rate(t) for t in dict.fromkeys(types))
    scale = total_rate / current
    return network.with_rates({t: network.rate(t) * scale for t in network.types})


def without_variables(events: Iterable[Event], workload: Workload) -> list[Event]:
    """The trace :func:`with_variables` copied from: each event once, under its type.

    >>> from inev.workloads.workload import Query, Workload
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A a, A b, B)")])
    >>> copies = with_variables([make_event(1.0, "A", 0, 7)], wl)
    >>> [(e.type, e.id) for e in without_variables(copies, wl)]
    [('A', 7)]
    """
    variables = workload.streams
    if not variables:
        return list(events)
    out, seen = [], set()
    for e in events:
        stream = variables.get(e.type)
        if stream is None:
            key = (e.type, e.id)
        else:
            key = (stream, e.id)
            e = e._replace(type=stream)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out
