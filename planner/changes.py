"""Topology and rate changes (``inev-changes/1`` files): reading them and applying them to a
network, in order (what :func:`inev.planner.repair.repair_plan`, ``inev simulate --changes``
and ``inev whatif`` start from)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inev.common.errors import InevError
from inev.common.files import read_json_document
from inev.common.validation import validate_document
from inev.common.words import listing
from inev.topologies.network import Network

CHANGE_KINDS = ("swap-rates", "set-rate", "link-down", "link-up", "node-down")


def load_changes(path: str) -> list[dict[str, Any]]:
    """The entries of an ``inev-changes/1`` file (checked when applied)."""
    document = read_json_document(path, "inev-changes/1")
    listed = document.get("changes")
    for position, change in enumerate(listed if isinstance(listed, list) else ()):
        kind = change.get("kind") if isinstance(change, dict) else None
        if isinstance(kind, str) and kind not in CHANGE_KINDS:
            raise InevError(
                f"{path}: changes[{position}]: unknown kind {kind[:40]!r} "
                f"(use one of {', '.join(CHANGE_KINDS)})"
            )
    from inev.planner.schema import ChangesDocument  # pydantic models: built only when read

    validate_document(ChangesDocument, document, str(path))
    return document["changes"]


def apply_changes(
    network: Network, changes: Sequence[Mapping[str, Any]], origin: str | None = None
) -> Network:
    """The network after ``inev-changes/1`` entries, applied in order.

    A bad entry is an :class:`InevError` naming ``origin`` (the changes file), the entry, and
    the network's types or nodes when it names one the network lacks.

    Parameters
    ----------
    network : Network
    changes : sequence of mapping
        ``inev-changes/1`` entries (their times are ignored here).
    origin : str, optional
        The name errors give the changes.

    Returns
    -------
    Network

    Examples
    --------
    >>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0])})
    >>> apply_changes(net, [{"kind": "set-rate", "type": "A", "rate": 4.0}]).rate("A")
    4.0
    >>> apply_changes(net, [{"kind": "node-down", "node": 99}], "changes.json")
    Traceback (most recent call last):
    ...
    inev.common.errors.InevError: changes.json: change #1 (node-down): cannot remove unknown node 99 (the network's nodes: 0, 1)
    """
    net = network
    for position, change in enumerate(changes):
        where = f"{origin}: change #{position + 1}" if origin else f"change #{position + 1}"
        try:
            net = _apply_one(net, change, where)
        except InevError as exc:
            text = str(exc)
            if text.startswith(where):
                raise
            kind = change.get("kind") if isinstance(change, Mapping) else None
            text = text.removeprefix("network: ")
            if "unknown node" in text:
                text += f" (the network's nodes: {listing(net.nodes, limit=12)})"
            elif "unknown event type" in text:
                text += f" (the network's types: {listing(sorted(net.event_types), limit=30)})"
            raise InevError(f"{where} ({kind}): {text}") from None
    return net


def _apply_one(net: Network, change: Any, where: str) -> Network:
    """The network after one change (see :func:`apply_changes`)."""
    if not isinstance(change, Mapping):
        raise InevError(f"{where} must be an object")
    kind = change.get("kind")
    if kind == "swap-rates":
        types = change.get("types")
        if not isinstance(types, list) or len(types) != 2:
            raise InevError(f"{where}: swap-rates needs 'types': [A, B]")
        a, b = types
        net = net.with_rates({a: net.rate(b), b: net.rate(a)})
    elif kind == "set-rate":
        net = net.with_rates({change.get("type"): change.get("rate")})
    elif kind in ("link-down", "link-up"):
        pair = change.get("link")
        if not isinstance(pair, list) or len(pair) != 2:
            raise InevError(f"{where}: {kind} needs 'link': [u, v]")
        if kind == "link-down":
            net = net.without(links=[tuple(pair)])
        else:
            if net.graph.has_edge(pair[0], pair[1]):
                raise InevError(f"{where}: link {pair} already exists")
            links = [list(x) for x in net.links] + [list(pair)]
            spec = {n: (t.rate, t.sources) for n, t in net.event_types.items()}
            net = Network.build(net.nodes, links, spec)
    elif kind == "node-down":
        net = net.without(nodes=[change.get("node")])
    else:
        raise InevError(f"{where}: unknown kind {kind!r} (use one of {', '.join(CHANGE_KINDS)})")
    return net
