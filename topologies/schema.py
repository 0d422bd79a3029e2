"""The ``inev-network/1`` file's shape, checked before a :class:`~inev.topologies.network.Network`
is built (see :mod:`inev.common.validation` for why pydantic).

The model checks types and ranges; :meth:`Network.build` then checks the meaning (links and
sources name known nodes, no self-loop, connected, at least one node, type and source, …) and
:func:`~inev.topologies.io.network_from_dict` the per-source rates against ``rate``. Limits: at most :data:`MAX_NODES` nodes
(twice the largest network the planner is measured on, ``benchmarks/bench_planner_scale.py``:
100,000 nodes plan in about a minute and 1.6 GB; no all-pairs matrix is built above
:data:`inev.planner.sites.DENSE_UP_TO` nodes), :data:`MAX_LINKS` links and :data:`MAX_TYPES`
event types.

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

from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator

from inev.common.validation import Link, Name, NodeId, Open, Strict, positive_number

MAX_NODES = 200_000
"""The most nodes a network may have."""
MAX_LINKS = 1_000_000
"""The most links a network may have."""
MAX_TYPES = 10_000
"""The most event types a network may have."""


def _rate(value: Any) -> float:
    try:
        return positive_number(value)
    except ValueError as exc:
        raise ValueError(
            str(exc).replace("must be a positive number", "must be positive")
        ) from None


Rate = Annotated[float, PlainValidator(_rate)]
"""A local rate: a positive finite number (the message the network model has always used)."""


class EventTypeEntry(Strict):
    """One event type: its local rate and sources, or per-source rates aligned with them."""

    rate: Rate | None = None
    sources: Annotated[list[NodeId], Field(max_length=MAX_NODES)] | None = None
    rates: Annotated[list[Rate], Field(max_length=MAX_NODES)] | None = None


class NetworkDocument(Open):
    """An ``inev-network/1`` document (unknown top-level keys are ignored)."""

    format: Literal["inev-network/1"] | None = None
    nodes: Annotated[list[NodeId], Field(max_length=MAX_NODES)] | None = None
    links: Annotated[list[Link], Field(max_length=MAX_LINKS)] | None = None
    event_types: Annotated[dict[Name, EventTypeEntry], Field(max_length=MAX_TYPES)] | None = None
