"""Synthetic query workloads mirroring the INEv paper's generator (§7.1).

Each query draws ``length`` distinct event types of the network, groups a few of them into
``NSEQ(first, negated, last)`` units, wraps a few others in ``KL``, and arranges the units in
a random nested tree of alternating SEQ and AND operators (random fan-out, hence random
depth). Pairwise selectivities are drawn once per pair of the network's event types and
shared by every query (so equal projections of different queries can be shared): about a
third of the pairs stay unconstrained at 1.0 and the others are uniform in
``[scale / 10, scale]``, as in the published scripts. The workload's ``selectivity_seed``
fixes the single selectivities used for output selection, so a plan is reproducible from the
network and workload files alone.

>>> from inev.topologies.generate import generate_network
>>> net = generate_network(seed=1)
>>> wl = generate_workload(net, queries=1, length=4, seed=1)
>>> len(wl.queries[0].types)
4
"""

from __future__ import annotations

import numpy as np

from inev.common.errors import InevError
from inev.topologies.network import Network
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.pattern import Operator, Pattern, Primitive
from inev.workloads.rates import Pair, pair
from inev.workloads.schema import MAX_QUERIES
from inev.workloads.workload import Query, Workload

UNCONSTRAINED_SHARE = 1 / 3
STREAM = 0x1E7
"""Tag of the workload generator's random stream: ``default_rng([STREAM, seed])`` keeps it
independent of the network generator's ``default_rng(seed)``, so one seed can drive both."""


def draw_selectivities(
    types: list[str], scale: float, rng: np.random.Generator
) -> dict[Pair, float]:
    """One selectivity per pair of ``types``: 1.0 w.p. 1/3, else uniform in [scale/10, scale]."""
    if not 0 < scale <= 1:
        raise InevError(f"selectivity scale must be in (0, 1], got {scale}")
    out: dict[Pair, float] = {}
    ordered = sorted(types)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            free = rng.random() < UNCONSTRAINED_SHARE
            value = float(rng.uniform(scale / 10, scale))
            out[(a, b)] = 1.0 if free else value
    return out


def random_tree(units: list[Pattern], kind: str, rng: np.random.Generator) -> Pattern:
    """A random nested tree over ``units`` (kept in order) with alternating SEQ/AND operators."""
    if len(units) == 1:
        return units[0]
    fan_out = int(rng.integers(2, len(units) + 1))
    cuts = sorted(
        int(c) for c in rng.choice(np.arange(1, len(units)), size=fan_out - 1, replace=False)
    )
    groups = [units[a:b] for a, b in zip([0, *cuts], [*cuts, len(units)], strict=True)]
    other = "AND" if kind == "SEQ" else "SEQ"
    children = []
    for group in groups:
        child = random_tree(group, other, rng)
        if isinstance(child, Operator) and child.kind == kind:
            children.extend(child.children)
        else:
            children.append(child)
    return Operator(kind, tuple(children))  # type: ignore[arg-type]


def random_pattern(
    types: list[str], kleene: int, negation: int, rng: np.random.Generator
) -> Pattern:
    """A random pattern over exactly ``types`` with ``kleene`` KL and ``negation`` NSEQ operators."""
    length = len(types)
    if 3 * negation > length:
        raise InevError(
            f"{negation} NSEQ operators need {3 * negation} types, the query has {length}"
        )
    if kleene > length - negation:
        raise InevError(
            f"{kleene} KL operators need {kleene} non-negated types, the query has {length - negation}"
        )
    order = [types[i] for i in rng.permutation(length)]
    kl_types = set(order[3 * negation :][:kleene])
    if len(kl_types) < kleene:  # the remaining KL wrap first/last children of NSEQ units
        extra = [t for i, t in enumerate(order[: 3 * negation]) if i % 3 != 1]
        kl_types.update(extra[: kleene - len(kl_types)])

    def leaf(t: str) -> Pattern:
        return Operator("KL", (Primitive(t),)) if t in kl_types else Primitive(t)

    units: list[Pattern] = []
    for k in range(negation):
        first, negated, last = order[3 * k : 3 * k + 3]
        units.append(Operator("NSEQ", (leaf(first), Primitive(negated), leaf(last))))
    units.extend(leaf(t) for t in order[3 * negation :])
    units = [units[i] for i in rng.permutation(len(units))]
    root = "SEQ" if rng.random() < 0.5 else "AND"
    return random_tree(units, root, rng)


def generate_workload(
    network: Network,
    queries: int = WORKLOAD_DEFAULTS.queries,
    length: int = WORKLOAD_DEFAULTS.length,
    kleene: int = WORKLOAD_DEFAULTS.kleene,
    negation: int = WORKLOAD_DEFAULTS.negation,
    selectivity: float = WORKLOAD_DEFAULTS.selectivity,
    window: float = WORKLOAD_DEFAULTS.window,
    seed: int = 0,
) -> Workload:
    """A random workload over the network's event types (see the module docstring).

    Parameters
    ----------
    network : Network
        Its event types are the ones drawn.
    queries : int
        Number of queries, ``q1``, ``q2``, ...
    length : int
        Distinct event types per query (at most the network's).
    kleene, negation : int
        Per query, how many types are wrapped in ``KL`` and how many ``NSEQ`` units it has.
    selectivity : float
        The scale of the pairwise selectivities (uniform in ``[scale / 10, scale]``).
    window : float
        The workload's time window.
    seed : int
        Seed of every random draw.

    Returns
    -------
    Workload

    Examples
    --------
    Two queries of two types each over a network of three types:

    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(3), [(0, 1), (1, 2)],
    ...                     {"A": (1.0, [0]), "B": (2.0, [1]), "C": (3.0, [2])})
    >>> wl = generate_workload(net, queries=2, length=2, window=5.0, seed=3)
    >>> [q.name for q in wl.queries], [len(q.types) for q in wl.queries], wl.window
    (['q1', 'q2'], [2, 2], 5.0)
    >>> generate_workload(net, length=4)
    Traceback (most recent call last):
    inev.common.errors.InevError: query length 4 exceeds the network's 3 event types
    """
    if queries < 1:
        raise InevError(f"a workload needs at least one query, got {queries}")
    if queries > MAX_QUERIES:
        raise InevError(f"a workload may have at most {MAX_QUERIES:,} queries, got {queries}")
    available = list(network.types)
    if length < 1:
        raise InevError(f"query length must be at least 1, got {length}")
    if length > len(available):
        raise InevError(f"query length {length} exceeds the network's {len(available)} event types")
    if kleene < 0 or negation < 0:
        raise InevError("the numbers of KL and NSEQ operators must not be negative")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise InevError(f"seed must be a non-negative integer (64 bits), got {seed!r}")
    rng = np.random.default_rng([STREAM, seed])
    shared = draw_selectivities(available, selectivity, rng)
    out = []
    for i in range(queries):
        chosen = [
            available[j] for j in sorted(rng.choice(len(available), size=length, replace=False))
        ]
        pattern = random_pattern(chosen, kleene, negation, rng)
        pairs = {
            pair(a, b): shared[pair(a, b)]
            for x, a in enumerate(sorted(chosen))
            for b in sorted(chosen)[x + 1 :]
            if shared[pair(a, b)] < 1.0
        }
        out.append(Query.build(f"q{i + 1}", pattern, selectivity=pairs))
    return Workload.build(
        window=window, queries=out, selectivity_seed=int(rng.integers(0, 2**31 - 1))
    )
