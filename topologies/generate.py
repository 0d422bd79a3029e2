"""Synthetic event networks: the INEv paper's generator (§7.1) and standard topologies.

Event types follow the paper's published experiment scripts: each type's local rate is an
independent Zipf sample ``numpy.random.Generator.zipf(skew)`` (an integer >= 1, so the skew
exponent must be > 1), and every node generates every type with probability equal to the
*event node ratio*; a type that ends up with no source has its column redrawn.

Topologies (``kind``):

``degree`` (default)
    A connected small-world graph that honours the requested mean degree d: a ring lattice
    linking each node to its ``floor(d / 2)`` next neighbours on each side, extra links to the
    ``floor(d/2) + 1``-th neighbour of randomly chosen nodes until ``round(n · d / 2)`` links
    exist, then Watts–Strogatz rewiring of each link with probability 0.2, retried until the
    graph is connected. This is our choice: networkx's Watts–Strogatz with ``k = 3`` links only
    ``k // 2 = 1`` neighbour per side, i.e. a mean degree of 2 for a requested 3.
``ws``
    ``networkx.connected_watts_strogatz_graph(n, k=d, p=0.2)``, the construction of the
    paper's scripts, kept for comparisons with the paper.
``grid``, ``tree``, ``ba`` (Barabási–Albert), ``waxman``, ``ring``
    Standard topologies; ``tree`` is a random tree, ``ba`` attaches ``max(1, round(d / 2))``
    links per new node, ``waxman`` adds the fewest links needed to connect its components.

>>> net = generate_network(nodes=20, out_degree=3, event_types=6, skew=1.3, node_ratio=0.5, seed=1)
>>> len(net.nodes), len(net.types)
(20, 6)
"""

from __future__ import annotations

import itertools
import math
import string

import networkx as nx
import numpy as np

from inev.common.errors import InevError
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.network import Network
from inev.topologies.network_entries import DEFAULT_LATENCY
from inev.topologies.schema import MAX_NODES, MAX_TYPES

TOPOLOGIES = ("degree", "ws", "grid", "tree", "ba", "waxman", "ring")
REWIRING = 0.2
_MAX_TRIES = 200


def type_names(count: int) -> list[str]:
    """Event type names ``A, B, …, Z, AA, AB, …`` (spreadsheet-column style)."""
    names = []
    letters = string.ascii_uppercase
    for i in range(count):
        name, k = "", i
        while True:
            name = letters[k % 26] + name
            k = k // 26 - 1
            if k < 0:
                break
        names.append(name)
    return names


def zipf_rates(count: int, skew: float, rng: np.random.Generator) -> list[float]:
    """``count`` independent Zipf(skew) samples as local rates (integers >= 1, as floats)."""
    if not skew > 1:
        raise InevError(f"skew must be > 1 for Zipf rates (numpy zipf(a) needs a > 1), got {skew}")
    return [float(x) for x in rng.zipf(skew, size=count)]


def assign_sources(
    nodes: int, types: int, node_ratio: float, rng: np.random.Generator
) -> np.ndarray:
    """Boolean matrix ``[node, type]``: each node generates each type with ``node_ratio``.

    A type left without a source has its column redrawn until it has one, up to
    :data:`REDRAWS` times; then (a node ratio so small that a source is a rare event: 1e-9 on
    20 nodes took 5e7 redraws per type, minutes) its sources are drawn from the same
    distribution directly (:func:`_at_least_one`). Below that many redraws the random stream
    is the one it always was, so every network of a reasonable ratio stays as it was.

    >>> m = assign_sources(20, 3, 1e-9, np.random.default_rng(1))
    >>> m.sum(axis=0).tolist()  # one source per type, at once
    [1, 1, 1]
    """
    if not 0 < node_ratio <= 1:
        raise InevError(f"node ratio must be in (0, 1], got {node_ratio}")
    matrix = rng.random((nodes, types)) < node_ratio
    for t in range(types):
        for _ in range(REDRAWS):
            if matrix[:, t].any():
                break
            matrix[:, t] = rng.random(nodes) < node_ratio
        else:
            if not matrix[:, t].any():
                matrix[:, t] = _at_least_one(nodes, node_ratio, rng)
    return matrix


REDRAWS = 1000
"""Redraws of a type's sources before :func:`_at_least_one` draws them directly."""


def _at_least_one(nodes: int, node_ratio: float, rng: np.random.Generator) -> np.ndarray:
    """Each node a source with probability ``node_ratio``, given that one is: the count of
    sources from the binomial distribution restricted to 1 … ``nodes``, then which nodes,
    uniformly."""
    counts = np.arange(1, nodes + 1)
    log_pmf = (
        math.lgamma(nodes + 1)
        - np.array([math.lgamma(k + 1) + math.lgamma(nodes - k + 1) for k in counts])
        + counts * math.log(node_ratio)
        + (nodes - counts) * math.log1p(-node_ratio)
        if node_ratio < 1
        else np.where(counts == nodes, 0.0, -np.inf)
    )
    weights = np.exp(log_pmf - log_pmf.max())
    count = int(rng.choice(counts, p=weights / weights.sum()))
    column = np.zeros(nodes, dtype=bool)
    column[rng.choice(nodes, size=count, replace=False)] = True
    return column


def degree_topology(nodes: int, mean_degree: float, rng: np.random.Generator) -> nx.Graph:
    """Connected small-world graph with mean degree within 10 % of ``mean_degree``."""
    n = nodes
    if n == 1:
        graph = nx.Graph()
        graph.add_node(0)
        return graph
    target_links = min(round(n * mean_degree / 2), n * (n - 1) // 2)
    if target_links >= n * (n - 1) // 2:
        return nx.complete_graph(n)
    if target_links < n:
        return random_tree(n, rng)
    half = max(1, int(mean_degree // 2))
    for _ in range(_MAX_TRIES):
        links: set[tuple[int, int]] = set()
        for offset in range(1, half + 1):
            for i in range(n):
                u, v = i, (i + offset) % n
                if u != v:
                    links.add((min(u, v), max(u, v)))
        extra = target_links - len(links)
        if extra > 0:
            offset = half + 1
            for i in rng.permutation(n):
                if extra <= 0:
                    break
                u, v = int(i), int((i + offset) % n)
                key = (min(u, v), max(u, v))
                if u != v and key not in links:
                    links.add(key)
                    extra -= 1
        graph = nx.Graph()
        graph.add_nodes_from(range(n))
        graph.add_edges_from(sorted(links))
        _rewire(graph, rng)
        if nx.is_connected(graph):
            return graph
    raise InevError(f"could not draw a connected topology of {n} nodes in {_MAX_TRIES} tries")


def _rewire(graph: nx.Graph, rng: np.random.Generator) -> None:
    """Watts–Strogatz rewiring: each link keeps one end and moves the other w.p. 0.2."""
    n = graph.number_of_nodes()
    edges = sorted(graph.edges())
    draws = rng.random(len(edges))
    targets = rng.integers(0, n, size=len(edges))
    for (u, v), draw, w in zip(edges, draws, targets, strict=True):
        if draw >= REWIRING:
            continue
        w = int(w)
        if w == u or graph.has_edge(u, w) or graph.degree(u) >= n - 1:
            continue
        graph.remove_edge(u, v)
        graph.add_edge(u, w)


def random_tree(nodes: int, rng: np.random.Generator) -> nx.Graph:
    """A uniformly random labelled tree on ``nodes`` nodes (via a random Prüfer sequence)."""
    if nodes <= 2:
        return nx.path_graph(nodes)
    sequence = [int(x) for x in rng.integers(0, nodes, size=nodes - 2)]
    return nx.from_prufer_sequence(sequence)


def build_topology(kind: str, nodes: int, out_degree: float, rng: np.random.Generator) -> nx.Graph:
    """A connected topology graph of the given ``kind`` (see the module docstring)."""
    if nodes < 1:
        raise InevError(f"a network needs at least one node, got {nodes}")
    if not out_degree > 0:
        raise InevError(f"out-degree must be positive, got {out_degree}")
    seed = int(rng.integers(0, 2**31 - 1))
    if nodes <= 2 and kind in ("ws", "ba", "waxman", "grid", "ring"):
        return nx.path_graph(nodes)
    if kind == "degree":
        return degree_topology(nodes, out_degree, rng)
    if kind == "ws":
        k = max(2, int(out_degree))
        if nodes <= k:
            return nx.complete_graph(nodes)
        return nx.connected_watts_strogatz_graph(nodes, k, REWIRING, tries=_MAX_TRIES, seed=seed)
    if kind == "ring":
        return nx.cycle_graph(nodes) if nodes > 2 else nx.path_graph(nodes)
    if kind == "tree":
        return random_tree(nodes, rng)
    if kind == "grid":
        cols = math.ceil(math.sqrt(nodes))
        graph = nx.grid_2d_graph(math.ceil(nodes / cols), cols)
        ordered = sorted(graph.nodes)[:nodes]
        graph = nx.convert_node_labels_to_integers(
            graph.subgraph(ordered).copy(), ordering="sorted"
        )
        return graph
    if kind == "ba":
        m = max(1, round(out_degree / 2))
        if nodes <= m:
            return nx.complete_graph(nodes)
        return nx.barabasi_albert_graph(nodes, m, seed=seed)
    if kind == "waxman":
        graph = nx.waxman_graph(nodes, beta=0.4, alpha=0.2, seed=seed)
        graph = nx.Graph(graph.edges())
        graph.add_nodes_from(range(nodes))
        return _connect_components(graph, rng)
    raise InevError(f"unknown topology {kind!r}; choose one of {', '.join(TOPOLOGIES)}")


def _connect_components(graph: nx.Graph, rng: np.random.Generator) -> nx.Graph:
    """Join the components of ``graph`` in a chain through randomly chosen members."""
    components = [sorted(c) for c in nx.connected_components(graph)]
    components.sort()
    for left, right in itertools.pairwise(components):
        u = left[int(rng.integers(0, len(left)))]
        v = right[int(rng.integers(0, len(right)))]
        graph.add_edge(u, v)
    return graph


def network_from_topology(
    graph: nx.Graph,
    event_types: int,
    skew: float,
    node_ratio: float,
    rng: np.random.Generator,
) -> Network:
    """Attach Zipf-rated event types with random sources to a connected topology graph."""
    if event_types < 1:
        raise InevError(f"a network needs at least one event type, got {event_types}")
    if event_types > MAX_TYPES:
        raise InevError(f"a network may have at most {MAX_TYPES:,} event types, got {event_types}")
    if graph.number_of_nodes() > MAX_NODES:
        raise InevError(f"topology has more than {MAX_NODES:,} nodes")
    if graph.number_of_nodes() == 0:
        raise InevError("topology has no nodes")
    if not nx.is_connected(graph):
        parts = nx.number_connected_components(graph)
        raise InevError(f"topology is disconnected ({parts} components)")
    names = type_names(event_types)
    rates = zipf_rates(event_types, skew, rng)
    nodes = list(graph.nodes)
    matrix = assign_sources(len(nodes), event_types, node_ratio, rng)
    spec = {
        name: (rate, [nodes[i] for i in np.flatnonzero(matrix[:, t])])
        for t, (name, rate) in enumerate(zip(names, rates, strict=True))
    }
    links = [
        [u, v, float(data.get("latency", DEFAULT_LATENCY))] for u, v, data in graph.edges(data=True)
    ]
    return Network.build(nodes, links, spec)


def generate_network(
    nodes: int = NETWORK_DEFAULTS.nodes,
    out_degree: float = NETWORK_DEFAULTS.out_degree,
    event_types: int = NETWORK_DEFAULTS.event_types,
    skew: float = NETWORK_DEFAULTS.skew,
    node_ratio: float = NETWORK_DEFAULTS.node_ratio,
    seed: int = 0,
    topology: str = NETWORK_DEFAULTS.topology,
) -> Network:
    """The paper's synthetic event network (§7.1), drawn from ``seed``.

    Defaults are the paper's (:data:`~inev.topologies.generator_options.NETWORK_DEFAULTS`).
    Sizes are bounded as for network files (:data:`inev.topologies.schema.MAX_NODES` nodes,
    :data:`~inev.topologies.schema.MAX_TYPES` types), and the mean degree must be finite.

    Parameters
    ----------
    nodes : int
        Number of nodes, ``0 .. nodes - 1``.
    out_degree : float
        Mean number of links a node adds (``degree`` topology).
    event_types : int
        Number of event types, ``A``, ``B``, ...
    skew : float
        Zipf exponent of the rates (> 1).
    node_ratio : float
        Share of the nodes that produce a given type, in (0, 1].
    seed : int
        Seed of every random draw.
    topology : str
        The shape of the topology (:mod:`inev.topologies.generate`).

    Returns
    -------
    Network

    Examples
    --------
    >>> net = generate_network(nodes=6, event_types=3, seed=1)
    >>> net.nodes, net.types
    ((0, 1, 2, 3, 4, 5), ('A', 'B', 'C'))
    >>> generate_network(nodes=6, event_types=3, seed=1).summary() == net.summary()
    True
    >>> generate_network(skew=1.0)
    Traceback (most recent call last):
    inev.common.errors.InevError: skew must be > 1 for Zipf rates (numpy zipf(a) needs a > 1), got 1.0
    """
    if isinstance(nodes, bool) or not isinstance(nodes, int) or not 1 <= nodes <= MAX_NODES:
        raise InevError(f"a network needs at least one node and at most {MAX_NODES:,}, got {nodes}")
    if not (isinstance(out_degree, int | float) and 0 < out_degree < 2**31):
        raise InevError(f"out-degree must be a positive finite number, got {out_degree}")
    if not skew > 1:
        raise InevError(f"skew must be > 1 for Zipf rates (numpy zipf(a) needs a > 1), got {skew}")
    if not 0 < node_ratio <= 1:
        raise InevError(f"node ratio must be in (0, 1], got {node_ratio}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InevError(f"seed must be a non-negative integer (64 bits), got {seed!r}")
    rng = np.random.default_rng(seed)
    graph = build_topology(topology, nodes, out_degree, rng)
    return network_from_topology(graph, event_types, skew, node_ratio, rng)
