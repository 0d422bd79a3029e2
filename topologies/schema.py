"""The ``inev-network/1`` file's shape, checked before a :class:`~inev.topologies.network.Network`
is built (see :mod:`inev.common.validation` for why pydantic).

The model checks types and ranges; :meth:`Network.build` then checks the meaning (links and
sources name known nodes, no self-loop, connected, at least one node, type and source, …) and
:func:`~inev.topologies.io.network_from_dict` the per-source rates against ``rate``. Limits: at most :data:`MAX_NODES` nodes
(the all-pairs hop and latency matrices take 10 bytes per pair: 4 GB at 20,000 nodes),
:data:`MAX_LINKS` links and :data:`MAX_TYPES` event types.

>>> from inev.common.validation import validate_document
>>> doc = {"nodes": [0, 1], "links": [[0, 1]],
...        "event_types": {"A": {"rate": 10**400, "sources": [0]}}}
>>> try:
...     validate_document(NetworkDocument, doc, "net.json")
... except Exception as exc:
...     print(exc)
net.json: event_types.A.rate must be at most 1e+250 (got an integer of 401 digits)
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from inev.common.validation import Link, Name, NodeId, Open, Positive, Strict

MAX_NODES = 20_000
"""The most nodes a network may have."""
MAX_LINKS = 1_000_000
"""The most links a network may have."""
MAX_TYPES = 10_000
"""The most event types a network may have."""


class EventTypeEntry(Strict):
    """One event type: its local rate and sources, or per-source rates aligned with them."""

    rate: Positive | None = None
    sources: Annotated[list[NodeId], Field(max_length=MAX_NODES)] | None = None
    rates: Annotated[list[Positive], Field(max_length=MAX_NODES)] | None = None


class NetworkDocument(Open):
    """An ``inev-network/1`` document (unknown top-level keys are ignored)."""

    format: Literal["inev-network/1"] | None = None
    nodes: Annotated[list[NodeId], Field(max_length=MAX_NODES)] | None = None
    links: Annotated[list[Link], Field(max_length=MAX_LINKS)] | None = None
    event_types: Annotated[dict[Name, EventTypeEntry], Field(max_length=MAX_TYPES)] | None = None
