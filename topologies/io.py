"""Reading and writing event networks (``inev-network/1`` JSON) and real topology files.

An event type may carry per-source rates (an inev extension, docs/spec-extensions.md):
``"rates": [r(e, n) for n in sources]``, aligned with ``"sources"``. ``"rate"`` may then be
left out; when present it must be their mean, and it is always written as their mean, so a
reader that knows only the shared file format still sees the right global rate R(e) = |f(e)| · r(e).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import networkx as nx

from inev.common.errors import InevError
from inev.common.files import read_json_document, write_json_document
from inev.common.option_names import option
from inev.common.validation import validate_document
from inev.topologies.network import EventType, Network
from inev.topologies.network_entries import DEFAULT_LATENCY
from inev.topologies.schema import MAX_NODES, NetworkDocument

FORMAT = "inev-network/1"


def network_to_dict(network: Network) -> dict[str, Any]:
    """The ``inev-network/1`` document of ``network`` (links without latency when it is 1.0)."""
    links = [
        [u, v] if latency == DEFAULT_LATENCY else [u, v, latency] for u, v, latency in network.links
    ]
    return {
        "format": FORMAT,
        "nodes": list(network.nodes),
        "links": links,
        "event_types": {name: _type_entry(t) for name, t in network.event_types.items()},
    }


def _type_entry(t: EventType) -> dict[str, Any]:
    entry: dict[str, Any] = {"rate": t.rate, "sources": list(t.sources)}
    if t.source_rates is not None:
        entry["rates"] = list(t.source_rates)
    return entry


def network_from_dict(document: dict[str, Any], origin: str = "network") -> Network:
    """Validate an ``inev-network/1`` document and build the :class:`Network`."""
    validate_document(NetworkDocument, document, origin)
    for key in ("nodes", "links", "event_types"):
        if key not in document:
            raise InevError(f"{origin}: missing key {key!r}")
    nodes, links, types = document["nodes"], document["links"], document["event_types"]
    if not isinstance(nodes, list):
        raise InevError(f"{origin}: 'nodes' must be a list")
    if not isinstance(links, list):
        raise InevError(f"{origin}: 'links' must be a list")
    if not isinstance(types, dict):
        raise InevError(f"{origin}: 'event_types' must be an object")
    spec: dict[str, tuple[Any, ...]] = {}
    for name, entry in types.items():
        if not isinstance(entry, dict) or "sources" not in entry:
            raise InevError(f"{origin}: event type {name!r} needs 'rate' and 'sources'")
        if not isinstance(entry["sources"], list):
            raise InevError(f"{origin}: event type {name!r} 'sources' must be a list")
        if "rates" in entry:
            spec[name] = _per_source(origin, name, entry)
        elif "rate" not in entry:
            raise InevError(f"{origin}: event type {name!r} needs 'rate' and 'sources'")
        else:
            spec[name] = (entry["rate"], entry["sources"])
    try:
        return Network.build(nodes, links, spec)
    except InevError as exc:
        message = str(exc)
        if message.startswith("network: "):
            message = message[len("network: ") :]
        raise InevError(f"{origin}: {message}") from None


def _per_source(origin: str, name: str, entry: dict[str, Any]) -> tuple[Any, ...]:
    """``(rate, sources, rates)`` of an entry with per-source rates, its mean checked."""
    rates = entry["rates"]
    if not isinstance(rates, list) or len(rates) != len(entry["sources"]):
        raise InevError(
            f"{origin}: event type {name!r} 'rates' must list one rate per source"
            f" ({len(entry['sources'])})"
        )
    numbers = [r for r in rates if isinstance(r, int | float) and not isinstance(r, bool)]
    if "rate" in entry and len(numbers) == len(rates) and rates:
        mean = math.fsum(float(r) for r in numbers) / len(numbers)
        given = entry["rate"]
        if not isinstance(given, int | float) or not math.isclose(
            float(given), mean, rel_tol=1e-9, abs_tol=1e-12
        ):
            raise InevError(
                f"{origin}: event type {name!r} 'rate' {given!r} is not the mean of its"
                f" per-source 'rates' ({mean:.12g}); leave 'rate' out or correct it"
            )
    return (None, entry["sources"], rates)


def load_network(path: str | os.PathLike[str]) -> Network:
    """Load and validate an ``inev-network/1`` file.

    Parameters
    ----------
    path : str or path-like
        The file; a bad one is an :class:`InevError` naming it and the entry.

    Returns
    -------
    Network

    Examples
    --------
    >>> import pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> save_network(Network.build([0, 1], [(0, 1)], {"A": (3.0, [1])}), folder / "n.json")
    >>> load_network(folder / "n.json").global_rate("A")
    3.0
    >>> shutil.rmtree(folder)
    """
    return network_from_dict(read_json_document(path, FORMAT), origin=os.fspath(path))


def save_network(
    network: Network, path: str | os.PathLike[str], drawing: dict[str, Any] | None = None
) -> None:
    """Write ``network`` as ``inev-network/1`` JSON, atomically.

    Parameters
    ----------
    network : Network
    path : str or path-like
        The file written (replaced only once it is complete).
    drawing : dict, optional
        The optional ``positions`` and ``labels`` keys (:func:`drawing_keys`).

    Returns
    -------
    None

    Examples
    --------
    >>> import json, pathlib, shutil, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> net = Network.build([0, 1, 2], [(0, 1), (1, 2, 2.5)], {"A": (3.0, [1])})
    >>> save_network(net, folder / "n.json")
    >>> document = json.loads((folder / "n.json").read_text())    # latency 1 is the default
    >>> document["format"], document["links"]
    ('inev-network/1', [[0, 1], [1, 2, 2.5]])
    >>> shutil.rmtree(folder)
    """
    write_json_document(path, {**network_to_dict(network), **(drawing or {})})


def drawing_keys(graph: nx.Graph) -> dict[str, Any]:
    """The optional keys ``inev draw`` uses, from a topology read by :func:`read_topology`:
    ``positions`` when every node has a ``Latitude`` and a ``Longitude`` (the Internet
    Topology Zoo's attributes), ``labels`` for the nodes whose ``label`` differs from their id.

    Positions are an equirectangular projection, x = longitude × cos(mean latitude) and
    y = latitude (degrees), so that distances east-west are not stretched against
    north-south ones at the network's latitude; keys are node ids as strings.

    >>> g = nx.Graph([(1, 2)])
    >>> g.nodes[1].update(Latitude=60.0, Longitude=10.0, label="Oslo")
    >>> g.nodes[2].update(Latitude=60.0, Longitude=20.0, label="2")
    >>> keys = drawing_keys(g)
    >>> keys["labels"], [round(c, 3) for c in keys["positions"]["2"]]
    ({'1': 'Oslo'}, [10.0, 60.0])
    """
    out: dict[str, Any] = {}
    located = [(n, d) for n, d in graph.nodes(data=True) if _number(d.get("Latitude")) is not None]
    if graph.number_of_nodes() and len(located) == graph.number_of_nodes():
        coords = {n: (_number(d.get("Longitude")), _number(d["Latitude"])) for n, d in located}
        if all(lon is not None for lon, _ in coords.values()):
            mean = math.fsum(lat for _, lat in coords.values()) / len(coords)
            scale = math.cos(math.radians(mean))
            out["positions"] = {str(n): [lon * scale, lat] for n, (lon, lat) in coords.items()}
    labels = {
        str(n): str(d["label"]).strip()
        for n, d in graph.nodes(data=True)
        if str(d.get("label", "")).strip() not in ("", str(n))
    }
    if labels:
        out["labels"] = labels
    return out


def _number(value: Any) -> float | None:
    """``value`` as a finite float, else None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def read_topology(path: str | os.PathLike[str]) -> nx.Graph:
    """Read a real topology from GraphML (``.graphml``) or an edge list (any other suffix).

    Edge lists hold one ``u v [latency]`` per line; ``#`` starts a comment. Node labels that
    look like integers become integers. A ``latency`` edge attribute is kept, else 1.0.
    """
    name = os.fspath(path)
    if not Path(name).is_file():
        raise InevError(f"{name}: no such file")
    if name.endswith(".graphml"):
        return _read_graphml(name)
    return _read_edge_list(name)


def connected_part(
    graph: nx.Graph, origin: str, largest_component: bool = False
) -> tuple[nx.Graph, int]:
    """``graph`` if it is connected; else, with ``largest_component``, its largest connected
    component (of equal ones, the one holding the node read first); else :class:`InevError`
    naming the file, the components' sizes and the way forward. Returns the graph and the
    number of nodes left out.

    23 of the Internet Topology Zoo's 276 topologies are disconnected (a network's map drawn
    in parts, or nodes without links): with the option every one loads.

    >>> g = nx.Graph([(1, 2), (2, 3), (7, 8)])
    >>> part, left_out = connected_part(g, "t.graphml", largest_component=True)
    >>> sorted(part), left_out
    ([1, 2, 3], 2)
    >>> connected_part(g, "t.graphml")
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: t.graphml: topology is disconnected (2 components: 3 and 2 nodes); largest_component keeps the largest
    """
    if graph.number_of_nodes() == 0 or nx.is_connected(graph):
        return graph, 0
    order = {node: i for i, node in enumerate(graph.nodes)}
    parts = sorted(
        nx.connected_components(graph), key=lambda c: (-len(c), min(order[n] for n in c))
    )
    if not largest_component:
        sizes = [len(c) for c in parts]
        shown = ", ".join(map(str, sizes[:-1][:5])) + (", …" if len(sizes) > 6 else "")
        raise InevError(
            f"{origin}: topology is disconnected ({len(parts)} components: {shown} and "
            f"{sizes[-1]} nodes); {option('largest_component')} keeps the largest"
        )
    kept = graph.subgraph(parts[0]).copy()
    return kept, graph.number_of_nodes() - kept.number_of_nodes()


def _read_graphml(name: str) -> nx.Graph:
    """The undirected graph of a GraphML file (self-loops dropped, latencies checked)."""
    try:
        raw = nx.read_graphml(name)
    except Exception as exc:  # networkx raises several parser errors
        raise InevError(f"{name}: not a readable GraphML file ({exc})") from None
    graph = nx.Graph()
    relabel = {node: _as_node(node) for node in raw.nodes}
    for node, data in raw.nodes(data=True):  # what a drawing can use (drawing_keys)
        kept = {k: data[k] for k in ("label", "Latitude", "Longitude") if k in data}
        graph.add_node(relabel[node], **kept)
    for u, v, data in raw.edges(data=True):
        if u != v:
            try:
                latency = float(data.get("latency", DEFAULT_LATENCY))
            except (TypeError, ValueError):
                raise InevError(f"{name}: link {u}-{v}: latency is not a number") from None
            _check_latency(latency, f"{name}: link {u}-{v}")
            graph.add_edge(relabel[u], relabel[v], latency=latency)
    if graph.number_of_nodes() > MAX_NODES:
        raise InevError(f"{name}: more than {MAX_NODES:,} nodes")
    return graph


def _read_edge_list(name: str) -> nx.Graph:
    """The undirected graph of an edge-list file (``u v [latency]`` per line)."""
    graph = nx.Graph()
    try:
        lines = Path(name).read_bytes().decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise InevError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    for number, line in enumerate(lines, start=1):
        edge = _edge_line(line, f"{name}: line {number}")
        if edge is None:
            continue
        u, v, latency = edge
        if u != v:
            graph.add_edge(u, v, latency=latency)
        if graph.number_of_nodes() > MAX_NODES:
            raise InevError(f"{name}: more than {MAX_NODES:,} nodes")
    if graph.number_of_nodes() == 0:
        raise InevError(f"{name}: no links")
    return graph


def _edge_line(line: str, where: str) -> tuple[int | str, int | str, float] | None:
    """``(u, v, latency)`` of one edge-list line, ``None`` for a blank or comment line.

    >>> _edge_line("1 2 0.5  # fast", "f"), _edge_line("# nothing", "f")
    ((1, 2, 0.5), None)
    """
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    parts = text.split()
    if len(parts) not in (2, 3):
        raise InevError(f"{where}: expected 'u v [latency]'")
    try:
        latency = float(parts[2]) if len(parts) == 3 else DEFAULT_LATENCY
    except ValueError:
        raise InevError(f"{where}: latency {parts[2]!r} is not a number") from None
    _check_latency(latency, where)
    return _as_node(parts[0]), _as_node(parts[1]), latency


def _check_latency(latency: float, where: str) -> None:
    """Refuse a latency that is not a finite positive number."""
    if not (math.isfinite(latency) and latency > 0):
        raise InevError(f"{where}: latency must be a positive number")


def _as_node(label: str) -> int | str:
    try:
        value = int(label)
    except ValueError:
        return label
    return value if abs(value) < 2**63 else label
