"""An event network measured from a recorded trace (``inev network from-trace``).

The trace gives the nodes, the event types, each type's sources (the nodes where it
occurs) and each source's own rate r(e, n) = (events of e at n) / duration, where the
duration is the span of the trace's times unless given. The topology comes from a file
(GraphML or an edge list; it must hold every node of the trace, and may hold more, which
then generate nothing), or is generated over the trace's nodes (the ``degree`` small world
of :mod:`inev.topologies.generate`, with the requested mean degree and seed, and one
latency on every link: 1 time unit by default, which is long when the trace counts time in
days; the latency sets how long engines wait for late items, so it sets their memory too).

>>> from inev.common.traces import TraceScan
>>> from collections import Counter
>>> scan = TraceScan(rows=4, start=0.0, end=2.0, counts=Counter({"A": 3, "B": 1}),
...                  sources=Counter({("A", 0): 2, ("A", 1): 1, ("B", 1): 1}), nodes=[0, 1])
>>> net = network_from_scan(scan, out_degree=1.0, seed=0)
>>> net.source_rates("A"), net.global_rate("B")
((1.0, 0.5), 0.5)
"""

from __future__ import annotations

import math
from typing import Any

import networkx as nx
import numpy as np

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.common.traces import TraceScan
from inev.common.validation import MAX_NUMBER
from inev.topologies.generate import build_topology
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.network import Network, check_node_id
from inev.topologies.network_entries import DEFAULT_LATENCY, check_type_name
from inev.topologies.schema import MAX_NODES, MAX_TYPES


def network_from_scan(
    scan: TraceScan,
    topology: nx.Graph | None = None,
    out_degree: float = NETWORK_DEFAULTS.out_degree,
    seed: int = 0,
    duration: float | None = None,
    name: str = "trace",
    link_latency: float = DEFAULT_LATENCY,
) -> Network:
    """The event network of a scanned trace (module docstring); a generated topology's
    links get ``link_latency`` (in the trace's time unit)."""
    span = _span(scan, duration, name)
    nodes = _trace_nodes(scan, name)
    if topology is None:
        topology = _generated_topology(nodes, out_degree, seed, link_latency)
    else:
        unknown = [n for n in nodes if n not in topology]
        if unknown:
            raise InevError(
                f"{name}: node {unknown[0]!r} of the trace is not in the topology"
                + (f" (and {len(unknown) - 1} more)" if len(unknown) > 1 else "")
            )
    spec: dict[str, tuple[Any, ...]] = {}
    for t in sorted(scan.counts):
        sources = [n for n in topology.nodes if (t, n) in scan.sources]
        spec[t] = (None, sources, [scan.sources[(t, n)] / span for n in sources])
    links = [
        [u, v, float(data.get("latency", DEFAULT_LATENCY))]
        for u, v, data in topology.edges(data=True)
    ]
    try:
        return Network.build(list(topology.nodes), links, spec)
    except InevError as exc:
        raise InevError(f"{name}: {exc}") from None


def _span(scan: TraceScan, duration: float | None, name: str) -> float:
    """The time span the rates are measured over: ``duration`` or the trace's own, checked."""
    if scan.rows == 0:
        raise InevError(f"{name}: the trace holds no events")
    span = scan.duration if duration is None else duration
    if not (isinstance(span, int | float) and math.isfinite(span) and span > 0):
        if duration is None:
            raise InevError(
                f"{name}: all events have the same time, so no rate can be measured; "
                f"give {option('duration')}"
            )
        raise InevError(f"duration must be a positive number, got {duration!r}")
    if duration is not None and duration < scan.duration:
        raise InevError(
            f"{name}: {option('duration')} {duration:g} is shorter than the trace's span "
            f"{scan.duration:g}"
        )
    return span


def _trace_nodes(scan: TraceScan, name: str) -> list[Any]:
    """The trace's nodes (those of the scan, else its sources), its types checked on the way."""
    if len(scan.counts) > MAX_TYPES:
        raise InevError(f"{name}: more than {MAX_TYPES:,} event types (a network's most)")
    for t in scan.counts:
        check_type_name(t, where=f"{name}: event type")
    nodes = list(scan.nodes) or sorted({n for _, n in scan.sources}, key=str)
    if len(nodes) > MAX_NODES:
        raise InevError(f"{name}: more than {MAX_NODES:,} nodes (a network's most)")
    for n in nodes:
        check_node_id(n, where=f"{name}: node")
    return nodes


def _generated_topology(
    nodes: list[Any], out_degree: float, seed: int, link_latency: float
) -> nx.Graph:
    """A generated topology over ``nodes`` (integers first, then names), links of one latency."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InevError(f"seed must be a non-negative integer (64 bits), got {seed!r}")
    if not (isinstance(out_degree, int | float) and 0 < out_degree < 2**31):
        raise InevError(f"out-degree must be a positive finite number, got {out_degree}")
    ordered = sorted(nodes, key=lambda n: (isinstance(n, str), str(n) if isinstance(n, str) else n))
    if not (math.isfinite(link_latency) and 0 < link_latency <= MAX_NUMBER):
        raise InevError(f"link latency must be a positive number, got {link_latency!r}")
    graph = build_topology("degree", len(ordered), out_degree, np.random.default_rng(seed))
    topology = nx.relabel_nodes(graph, dict(enumerate(ordered)))
    nx.set_edge_attributes(topology, float(link_latency), "latency")
    return topology
