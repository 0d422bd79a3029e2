"""Pattern variables at the engine's door: an event reaches every leaf that reads its type.

A query may read one event type through several leaves (``SEQ(GOOG a, GOOG b)``: the
variables ``a`` and ``b`` range over the GOOG stream). The engine knows leaves only, so a
GOOG event is handed to it once per leaf, relabelled with the leaf's name (same time,
node, id, attributes and key: the same event, which is how the engine tells that two
leaves must not bind it twice). A leaf that is no variable keeps the event as it is.

>>> from inev.simulator.engine.events import make_event
>>> routes = leaf_routes(["a", "b", "AMZN"], {"a": "GOOG", "b": "GOOG"})
>>> routes
{'GOOG': ('a', 'b'), 'AMZN': ('AMZN',)}
>>> [e.type for e in relabel(make_event(1.0, "GOOG", 0, 7), routes["GOOG"])]
['a', 'b']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from inev.simulator.engine.events import Event


def leaf_routes(leaves: Iterable[str], streams: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """``{event type: the leaves that read it}`` (a variable reads its type's stream)."""
    out: dict[str, list[str]] = {}
    for leaf in dict.fromkeys(leaves):
        out.setdefault(streams.get(leaf, leaf), []).append(leaf)
    return {t: tuple(names) for t, names in out.items()}


def relabel(event: Event, leaves: tuple[str, ...]) -> list[Event]:
    """``event`` once per leaf of ``leaves``, typed with the leaf's name."""
    return [event if leaf == event[1] else event._replace(type=leaf) for leaf in leaves]
