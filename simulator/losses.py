"""Every match a run with changes misses, attributed to a cause the user can check.

While a run executes, every loss is recorded as it happens (:class:`LossLog`): which events
the lost payload carried (an event, a partial match, an engine's state), the cause, the
change that made it happen (its index in the result's ``changes``) and the plan execution it
belonged to. After the run, each centralized match the sinks miss (a multiset of event ids,
:func:`~inev.simulator.simulation_result.compare_matches`) is attributed to the first
recorded loss, in the execution that records the match, that touches one of its events
(:func:`attribute`). The causes:

``event-at-down-node``
    an event generated at a node that is down, or kept only there (a push-pull source's
    buffer) when it went down.
``in-flight-on-down-link``
    a message dropped on a link that is down with no detour (never, while the network stays
    connected: :meth:`~inev.topologies.network.Network.without` refuses to disconnect it).
``in-flight-to-down-node``
    a message that reached a node (its destination or a relay) that went down while the
    message was under way; the nodes below it in the forwarding tree lose it too (a dead
    router loses what it holds).
``sent-to-down-node``
    a message sent after a node went down to a vertex at that node (the old plan's vertex
    there, which finishes the matches begun before the change, is gone; the nodes below it
    are reached around it).
``state-at-down-node``
    the partial matches and buffered items of an engine at a node that went down.
``plan-switch``
    state dropped when the plan is switched. The old plan takes the events of one window
    more and records the matches that begin before the change (:mod:`.change_epochs`), so a
    switch drops nothing and this cause stays 0; it is listed so a reader sees it was checked.
``late``
    an item refused by its engine because it arrived after its watermark (bandwidth queueing).
``shedding``
    with a capacity: a missing match no change explains (the capacity run's shedding, see
    the result's ``shedding`` entry).
``unexplained``
    no recorded loss touches the match: a simulator defect (tests keep it at 0).

>>> from inev.simulator.engine.events import make_event
>>> a, b = make_event(1.0, "A", 0, 1), make_event(2.0, "B", 1, 2)
>>> log = LossLog()
>>> log.drop(0, (a, b), "state-at-down-node", 0)
>>> attribute({"q": Counter()}, {"q": Counter({(1, 2): 1})}, {1: 1.0, 2: 2.0}, [0.0, 1.5], log)
({'state-at-down-node': 1}, [{'state-at-down-node': 1}])
"""

from __future__ import annotations

import bisect
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from inev.simulator.engine.events import Event

CAUSES = (
    "event-at-down-node",
    "in-flight-on-down-link",
    "in-flight-to-down-node",
    "sent-to-down-node",
    "state-at-down-node",
    "plan-switch",
    "late",
    "shedding",
    "unexplained",
)
GROUPS = {
    "event-at-down-node": "node-down",
    "in-flight-to-down-node": "node-down",
    "sent-to-down-node": "node-down",
    "state-at-down-node": "node-down",
    "in-flight-on-down-link": "link",
}
"""The causes as ``inev simulate``'s line groups them (the others stand for themselves)."""


def event_ids(item: Any) -> set[Any]:
    """The ids of every event inside ``item`` (an event, a match, nested containers).

    >>> from inev.simulator.engine.events import make_event
    >>> sorted(event_ids([(make_event(1.0, "A", 0, 7),), {"x": make_event(2.0, "B", 0, 3)}]))
    [3, 7]
    """
    out: set[Any] = set()
    stack = [item]
    while stack:
        x = stack.pop()
        if type(x) is Event:
            out.add(x.id)
        elif isinstance(x, tuple | list | set | frozenset):
            stack.extend(x)
        elif isinstance(x, dict):
            stack.extend(x.values())
    return out


class LossLog:
    """The losses of a run as they happen: for each (execution, event id) the first loss
    that touched it, as ``(order, cause, change)``; ``current`` is the index of the latest
    change so far (the change a loss without a down node or link is filed under)."""

    def __init__(self) -> None:
        self.first: dict[tuple[int, Any], tuple[int, str, int]] = {}
        self.count = 0
        self.current = 0

    def drop(self, execution: int, item: Any, cause: str, change: int) -> None:
        """Execution ``execution`` lost ``item`` to ``cause``, brought by change ``change``."""
        self.count += 1
        entry = (self.count, cause, change)
        for i in event_ids(item):
            self.first.setdefault((execution, i), entry)


def attribute(
    found: Mapping[str, Counter],
    expected: Mapping[str, Counter],
    times: Mapping[Any, float],
    starts: Sequence[float],
    log: LossLog,
    fallback: str = "unexplained",
) -> tuple[dict[str, int], list[dict[str, int]]]:
    """Missing matches by cause over the run, and per change (``starts``: the epochs' start
    times, one change group per epoch after the first; ``times``: event id -> time).

    A match belongs to the execution of the epoch its first event falls in; it is attributed
    to the first loss of that execution touching one of its events, else to ``fallback``
    (filed under the latest change before its first event, or the first change). Every
    missing match counts once per missing copy, so the causes sum to ``missing``.
    """
    total: Counter = Counter()
    per_change = [Counter() for _ in starts[1:]]
    for query, want in expected.items():
        have = found.get(query, Counter())
        for ids, count in want.items():
            short = count - have.get(ids, 0)
            if short <= 0:
                continue
            k = max(bisect.bisect_right(starts, min(times[i] for i in ids)) - 1, 0)
            hits = [log.first[(k, i)] for i in ids if (k, i) in log.first]
            cause, change = (fallback, max(k - 1, 0)) if not hits else min(hits)[1:]
            total[cause] += short
            if per_change:
                per_change[min(change, len(per_change) - 1)][cause] += short
    return dict(total), [dict(c) for c in per_change]
