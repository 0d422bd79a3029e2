"""GRETA's events (the engine's event record), and conversion from trace rows
(``time,type,node,id[,attributes]``, as README's trace format says).

Traces are read by the engine's reader (:func:`inev.simulator.engine.trace.read_trace`);
:func:`as_event` turns its events, or plain mappings such as a trace row, into GRETA events.
In a mapping, attribute values that look like integers or floats become numbers and empty
cells are left out.

>>> e = as_event({"time": "1.5", "type": "A", "id": 3, "price": 10})
>>> e.time, e.type, e.attrs["price"]
(1.5, 'A', 10)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.trace import parse_value

RESERVED = ("time", "type", "node", "id")


def greta_event(
    time: float,
    type: str,
    id: Any = None,
    node: Any = None,
    attributes: Mapping[str, Any] | None = None,
) -> Event:
    """An engine :class:`~inev.simulator.engine.events.Event` (GRETA uses the engine's event
    record), built in GRETA's argument order: time, type, then the optional id, node and
    attribute values.

    >>> greta_event(2.0, "B", attributes={"x": 5}).attrs
    {'x': 5}
    """
    return make_event(time, type, node, id, attributes)


def _number(text: Any) -> Any:
    return parse_value(text) if isinstance(text, str) else text


def as_event(item: Any) -> Event:
    """An :class:`Event` from an Event, a mapping (a trace row) or an object with
    ``time``, ``type`` and ``attributes`` (or ``attrs``)."""
    if isinstance(item, Event):
        return item
    if isinstance(item, Mapping):
        try:
            time = float(item["time"])
            type_name = str(item["type"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InevError(f"event {dict(item)!r} needs a numeric time and a type") from exc
        attributes = {
            k: _number(v) for k, v in item.items() if k not in RESERVED and v not in ("", None)
        }
        return greta_event(time, type_name, item.get("id"), item.get("node"), attributes)
    try:
        time = float(item.time)
        type_name = str(item.type)
    except (AttributeError, TypeError, ValueError) as exc:
        raise InevError(f"event {item!r} needs a numeric time and a type") from exc
    attributes = getattr(item, "attributes", None)
    if attributes is None:
        attributes = getattr(item, "attrs", {})
    return greta_event(
        time, type_name, getattr(item, "id", None), getattr(item, "node", None), attributes
    )
