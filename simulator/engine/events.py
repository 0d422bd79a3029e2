"""Events and the deterministic pairwise-selectivity predicate (INEv §3.2, §7.1).

An event is a :class:`Event` named tuple ``(time, type, node, id, attrs, key)``; ``key`` is a
64-bit integer derived from ``id`` once, at creation, so that the selectivity predicate never
hashes strings in the hot loop.

The workload gives pairwise selectivities σ(a, b). In simulation they are realised by a
predicate on the two events' keys that holds with probability σ(a, b): a SplitMix64-style
mix of both keys and a per-pair seed (derived from the sorted type pair and the workload's
``selectivity_seed``) is compared with ``σ · 2^64``. The answer depends only on the two ids,
the two types and the seed, so every node and a centralized run agree; for one pair, a
query with a smaller selectivity accepts a subset of the pairs a larger one accepts.

>>> a = make_event(0.0, "A", 0, 1)
>>> b = make_event(1.0, "B", 0, 2)
>>> pair_holds(a, b, 1.0)
True
>>> pair_holds(a, b, 0.3) == pair_holds(b, a, 0.3)
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any, NamedTuple

MASK64 = (1 << 64) - 1
_EMPTY: Mapping[str, Any] = {}
DEFAULT_SELECTIVITY_SEED = 0
"""The seed of the predicates an engine is not told (a workload's own default,
:data:`inev.workloads.workload.DEFAULT_SELECTIVITY_SEED`, mirrored: the engine works alone)."""


class Event(NamedTuple):
    """One primitive event: timestamp, type, source node, id, attributes and hash key.

    Build one with :func:`make_event`, which computes the key.

    Parameters
    ----------
    time : float
    type : str
    node
        The source node.
    id
        Unique per event; ``key`` is :func:`event_key` of it.
    attrs : mapping of str to Any
        The attributes ``where`` clauses read.
    key : int

    Examples
    --------
    >>> make_event(2, "A", 0, 7)
    Event(time=2.0, type='A', node=0, id=7, attrs={}, key=7)
    """

    time: float
    type: str
    node: Any
    id: Any
    attrs: Mapping[str, Any]
    key: int

    def __hash__(self) -> int:
        """Hash by time, type and id (the attribute map is not hashable)."""
        return hash((self[0], self[1], self[3]))


def event_key(event_id: Any) -> int:
    """The 64-bit key of an event id: the integer itself, else a stable hash of its text."""
    if isinstance(event_id, int) and not isinstance(event_id, bool):
        return event_id & MASK64
    digest = hashlib.blake2b(str(event_id).encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def make_event(
    time: float, type: str, node: Any, id: Any, attrs: Mapping[str, Any] | None = None
) -> Event:
    """Build an :class:`Event`, computing its key from ``id``.

    Parameters
    ----------
    time : float
    type : str
    node
        The source node.
    id
        An integer id is its own key (modulo 2^64); any other a stable hash of its text.
    attrs : mapping, optional
        The event's attributes.

    Returns
    -------
    Event

    Examples
    --------
    >>> make_event(0, "A", 0, 2**64 + 5).key, make_event(0, "A", 0, "a1").key == event_key("a1")
    (5, True)
    >>> make_event(1.5, "B", 3, "b1", {"price": 4}).attrs["price"]
    4
    """
    return Event(float(time), type, node, id, attrs if attrs is not None else _EMPTY, event_key(id))


def pair_seed(a: str, b: str, selectivity_seed: int = DEFAULT_SELECTIVITY_SEED) -> int:
    """The seed of the predicate between types ``a`` and ``b`` (order-independent)."""
    first, second = (a, b) if a <= b else (b, a)
    text = f"{first}\x00{second}\x00{selectivity_seed}".encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=8).digest(), "little")


def threshold(selectivity: float) -> int:
    """The integer threshold ``σ · 2^64`` the mixed key is compared with."""
    return min(int(selectivity * 2.0**64), 1 << 64)


def mix(first_key: int, second_key: int, seed: int) -> int:
    """SplitMix64 finaliser over both keys and the pair seed (first key: the smaller type)."""
    x = (first_key * 0x9E3779B97F4A7C15 + second_key * 0xC2B2AE3D27D4EB4F + seed) & MASK64
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK64
    return x ^ (x >> 31)


def pair_holds(
    x: Event, y: Event, selectivity: float, selectivity_seed: int = DEFAULT_SELECTIVITY_SEED
) -> bool:
    """Whether the predicate of selectivity ``σ`` between the types of ``x`` and ``y`` holds."""
    if selectivity >= 1.0:
        return True
    if x.type > y.type:
        x, y = y, x
    return mix(x.key, y.key, pair_seed(x.type, y.type, selectivity_seed)) < threshold(selectivity)
