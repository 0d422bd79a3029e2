"""The entries an event network is built from, each checked: node ids, links with their
latencies, event type names and :class:`EventType` (local rate r(e), sources f(e), optional
per-source rates), and the canonical form of a link (:func:`link_key`).

:meth:`inev.topologies.network.Network.build` checks every entry here; a bad one is an
:class:`~inev.common.errors.InevError` naming it.

>>> checked_link(nx.Graph([(0, 1)]), (0, 1))
Traceback (most recent call last):
...
inev.common.errors.InevError: network: link [0, 1] is listed twice
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import networkx as nx

from inev.common.errors import InevError

Node = Hashable
"""A topology node id: an ``int`` or a ``str``."""


TYPE_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")


RESERVED_NAMES = frozenset({"SEQ", "AND", "OR", "KL", "NSEQ", "NOT", "NEXT"})


DEFAULT_LATENCY = 1.0


def check_type_name(name: object, where: str = "event type") -> str:
    """Return ``name`` if it is a valid event type name, else raise :class:`InevError`."""
    if not isinstance(name, str) or not TYPE_NAME.match(name):
        raise InevError(f"{where} name {name!r} must be a letter followed by letters, digits or _")
    if name in RESERVED_NAMES:
        raise InevError(f"{where} name {name!r} is a reserved operator name")
    return name


def check_node_id(node: object, where: str = "node") -> Node:
    """Return ``node`` if it is a valid node id (int or str), else raise :class:`InevError`."""
    if isinstance(node, bool) or not isinstance(node, int | str):
        raise InevError(f"{where} id {node!r} must be an integer or a string")
    return node


def link_key(u: Node, v: Node) -> tuple[Node, Node]:
    """The canonical form of the undirected link ``{u, v}``: its ends in node order.

    Node order puts integers first, by value, then strings, by text (the order plan files
    write their links in, and the order of the simulator's ``messages_by_link`` keys). One
    definition for every layer; the integer case is the simulator's per-hop hot path.

    >>> link_key(10, 9), link_key("b", "a"), link_key("x", 3)
    ((9, 10), ('a', 'b'), (3, 'x'))
    """
    if type(u) is int and type(v) is int and u >= 0 and v >= 0:
        return (u, v) if u <= v else (v, u)
    return (u, v) if _node_order(u) <= _node_order(v) else (v, u)


def _node_order(node: Node) -> tuple[int, str]:
    return (0, f"{node:020d}") if isinstance(node, int) else (1, str(node))


@dataclass(frozen=True)
class EventType:
    """An event type with its local rate r(e), its source nodes f(e) and, optionally, one
    rate per source (``source_rates``, aligned with ``sources``; ``rate`` is then their mean).

    >>> EventType("A", 2.0, (0, 1), (1.0, 3.0)).global_rate
    4.0
    """

    name: str
    rate: float
    sources: tuple[Node, ...]
    source_rates: tuple[float, ...] | None = None

    @property
    def global_rate(self) -> float:
        """R(e) = Σ_n r(e, n) (= |f(e)| · r(e) without per-source rates)."""
        if self.source_rates is not None:
            return math.fsum(self.source_rates)
        return len(self.sources) * self.rate

    @property
    def uniform(self) -> bool:
        """Whether every source emits at r(e) (no per-source rates)."""
        return self.source_rates is None

    def rates(self) -> tuple[float, ...]:
        """r(e, n) for every source n, in the order of ``sources``."""
        if self.source_rates is not None:
            return self.source_rates
        return (self.rate,) * len(self.sources)

    def scaled(self, rate: float) -> EventType:
        """The type with mean local rate ``rate``; per-source rates keep their proportions."""
        if self.source_rates is None:
            return EventType(self.name, rate, self.sources)
        factor = rate / self.rate
        return EventType(
            self.name, rate, self.sources, tuple(r * factor for r in self.source_rates)
        )


def checked_link(graph: nx.Graph, link: Any) -> tuple[Node, Node, float]:
    """``(u, v, latency)`` of a link entry of :meth:`Network.build`, checked against ``graph``."""
    if not isinstance(link, list | tuple) or len(link) not in (2, 3):
        raise InevError(f"network: link {link!r} must be [u, v] or [u, v, latency]")
    u, v = link[0], link[1]
    for end in (u, v):
        if isinstance(end, bool) or not isinstance(end, int | str) or end not in graph:
            raise InevError(f"network: link {list(link)!r} names unknown node {end!r}")
    if u == v:
        raise InevError(f"network: link {list(link)!r} is a self-loop")
    if graph.has_edge(u, v):
        raise InevError(f"network: link {list(link)!r} is listed twice")
    latency = link[2] if len(link) == 3 else DEFAULT_LATENCY
    if (
        isinstance(latency, bool)
        or not isinstance(latency, int | float)
        or (isinstance(latency, int) and latency > 1e300)
        or not math.isfinite(latency)
        or latency <= 0
    ):
        raise InevError(f"network: link {list(link)!r} latency must be a positive number")
    return u, v, float(latency)


def checked_type(graph: nx.Graph, name: str, spec: tuple[Any, ...]) -> EventType:
    """The :class:`EventType` of a ``(rate, sources[, rates])`` entry, checked."""
    check_type_name(name)
    rate, sources = spec[0], spec[1]
    per_source = spec[2] if len(spec) > 2 else None
    if per_source is None:
        check_rate(name, rate)
    src = tuple(sources)
    if not src:
        raise InevError(f"network: event type {name} has no source node")
    for node in src:
        if isinstance(node, bool) or not isinstance(node, int | str) or node not in graph:
            raise InevError(f"network: event type {name} names unknown source {node!r}")
    if len(set(src)) != len(src):
        raise InevError(f"network: event type {name} lists a source twice")
    if per_source is None:
        return EventType(name, float(rate), src)
    rates = tuple(per_source)
    if len(rates) != len(src):
        raise InevError(
            f"network: event type {name} has {len(rates)} per-source rates for {len(src)} sources"
        )
    for value in rates:
        check_rate(name, value)
    floats = tuple(float(r) for r in rates)
    return EventType(name, math.fsum(floats) / len(floats), src, floats)


def check_rate(name: str, rate: object) -> None:
    """Raise :class:`InevError` unless ``rate`` is a positive finite number (type ``name``'s)."""
    if (
        isinstance(rate, bool)
        or not isinstance(rate, int | float)
        or (isinstance(rate, int) and rate > 1e300)  # math.isfinite overflows on huge ints
        or not math.isfinite(rate)
        or rate <= 0
    ):
        raise InevError(f"network: event type {name} rate {rate!r} must be positive")


def type_spec(t: EventType) -> tuple[Any, ...]:
    """The ``Network.build`` entry of an event type."""
    if t.source_rates is None:
        return (t.rate, t.sources)
    return (t.rate, t.sources, t.source_rates)
