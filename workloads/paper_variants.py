"""Workloads of the INEv paper's figures that the plain generator does not make (§7.2): the
variants a sweep task asks for with ``operator_type``, ``operator_share`` and ``min_length``
(their defaults, which keep the plain generator, are
:data:`inev.workloads.generator_options.VARIANT_DEFAULTS`).

- **Fig. 7** (``operator_type`` max / min): the child of the KL operator, or the negated type
  of the NSEQ operator, is the network's event type of highest (``max``) or lowest (``min``)
  global rate; :func:`counterpart` gives the same workload without the operator (KL removed
  as §6.1 does for q_nKL, NSEQ replaced by SEQ over the same three children), which the
  paper compares each query with.
- **Fig. 8a** (``operator_share`` < 1): only the first ``round(share × queries)`` queries carry
  the ``kleene`` KL and ``negation`` NSEQ operators ("a third of the workload queries").
- **Fig. 8** (``min_length`` > 0): each query's length is drawn uniformly from ``min_length``
  to ``length``, as the authors' query generator draws it (3 to 6 types for their
  multi-query scripts); without it every query has ``length`` types.

Both draw from their own random stream (tag :data:`STREAM`), using the workload generator's
pieces (:func:`inev.workloads.generate.draw_selectivities` and
:func:`~inev.workloads.generate.random_pattern`), so their workloads are not the ones
``inev workload generate --seed`` writes; every other configuration uses that generator
unchanged. Where the chosen type already occurs in the query, the two types trade places in
the pattern, so the query keeps its length and types.

>>> from inev.topologies.generate import generate_network
>>> net = generate_network(seed=3, event_types=8)
>>> settings = WorkloadSettings(queries=1, length=5, kleene=1)
>>> wl = paper_workload(net, settings, VariantSettings(operator_type="max"), seed=3)
>>> top = max(net.types, key=net.global_rate)
>>> [str(p) for p in walk(wl.queries[0].pattern) if getattr(p, "kind", "") == "KL"] == [f"KL({top})"]
True
>>> "KL" in str(counterpart(wl).queries[0].pattern)
False
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from inev.common.errors import InevError
from inev.topologies.network import Network
from inev.workloads.generate import draw_selectivities, generate_workload, random_pattern
from inev.workloads.generator_options import (
    VARIANT_DEFAULTS,
    WORKLOAD_DEFAULTS,
    VariantSettings,
    WorkloadSettings,
)
from inev.workloads.pattern import Operator, Pattern, Primitive, walk
from inev.workloads.rates import pair, strip_kleene
from inev.workloads.workload import Query, Workload

STREAM = 0xF16
"""Tag of this module's random stream (independent of the network's and the generator's)."""


def paper_workload(
    network: Network,
    settings: WorkloadSettings = WORKLOAD_DEFAULTS,
    variant: VariantSettings = VARIANT_DEFAULTS,
    seed: int = 0,
) -> Workload:
    """The workload of a sweep task's configuration: the plain generator unless the variant's
    ``operator_type``, ``operator_share`` or ``min_length`` ask for a figure's construction
    (module docstring).

    Parameters
    ----------
    network : Network
        The event network whose types and rates the queries draw from.
    settings : WorkloadSettings
        The workload's settings (queries, length, operators, selectivity, window).
    variant : VariantSettings
        The figure's variant (the default: none, the plain generator).
    seed : int
        Seed of the workload's random stream.

    Returns
    -------
    Workload
        The generator's workload, or the figure's.

    Examples
    --------
    >>> from inev.topologies.generate import generate_network
    >>> net = generate_network(seed=1, event_types=6)
    >>> settings = WorkloadSettings(queries=3, length=4, kleene=1)
    >>> variant = VariantSettings(operator_share=0.34)
    >>> ["KL" in str(q.pattern) for q in paper_workload(net, settings, variant, seed=1).queries]
    [True, False, False]
    """
    plain = variant.operator_type == "random" and variant.operator_share >= 1.0
    if plain and variant.min_length == 0:
        return generate_workload(network, **asdict(settings), seed=seed)
    return _figure_workload(network, settings, variant, seed)


def _figure_workload(
    network: Network, settings: WorkloadSettings, variant: VariantSettings, seed: int
) -> Workload:
    available = list(network.types)
    length, kind = settings.length, variant.operator_type
    if length > len(available):
        raise InevError(f"query length {length} exceeds the network's {len(available)} event types")
    rng = np.random.default_rng([STREAM, seed])
    shared = draw_selectivities(available, settings.selectivity, rng)
    ranked = sorted(available, key=lambda t: (-network.global_rate(t), t))
    target = ranked[0] if kind == "max" else ranked[-1] if kind == "min" else None
    with_operators = round(variant.operator_share * settings.queries)
    shortest = variant.min_length
    if shortest > length:
        raise InevError(f"min_length {shortest} exceeds the query length {length}")
    queries = []
    for i in range(settings.queries):
        size = int(rng.integers(shortest, length + 1)) if shortest > 0 else length
        picked = [available[j] for j in rng.choice(len(available), size=size, replace=False)]
        if target is not None and target not in picked:
            picked[0] = target
        chosen = sorted(picked)
        operators = i < with_operators
        pattern = random_pattern(
            chosen,
            settings.kleene if operators else 0,
            settings.negation if operators else 0,
            rng,
        )
        if target is not None and operators:
            placed = operator_type(pattern)
            if placed is not None and placed != target:
                pattern = _renamed(pattern, {placed: target, target: placed})
        pairs = {
            pair(a, b): shared[pair(a, b)]
            for x, a in enumerate(chosen)
            for b in chosen[x + 1 :]
            if shared[pair(a, b)] < 1.0
        }
        queries.append(Query.build(f"q{i + 1}", pattern, selectivity=pairs))
    return Workload.build(
        window=settings.window,
        queries=queries,
        selectivity_seed=int(rng.integers(0, 2**31 - 1)),
    )


def operator_type(pattern: Pattern) -> str | None:
    """The type under the first KL operator, else the negated type of the first NSEQ."""
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "KL":
            child = node.children[0]
            return child.type if isinstance(child, Primitive) else None
    for node in walk(pattern):
        if isinstance(node, Operator) and node.kind == "NSEQ":
            middle = node.children[1]
            return middle.type if isinstance(middle, Primitive) else None
    return None


def _renamed(pattern: Pattern, names: dict[str, str]) -> Pattern:
    if isinstance(pattern, Primitive):
        return Primitive(names.get(pattern.type, pattern.type))
    return Operator(pattern.kind, tuple(_renamed(c, names) for c in pattern.children))


def _without_negation(pattern: Pattern) -> Pattern:
    if isinstance(pattern, Primitive):
        return pattern
    kind = "SEQ" if pattern.kind == "NSEQ" else pattern.kind
    children = tuple(_without_negation(c) for c in pattern.children)
    flat: list[Pattern] = []
    for child in children:  # SEQ(SEQ(a, b), c) is SEQ(a, b, c): keep the tree canonical
        if kind == "SEQ" and isinstance(child, Operator) and child.kind == "SEQ":
            flat.extend(child.children)
        else:
            flat.append(child)
    return Operator(kind, tuple(flat))


def counterpart(workload: Workload) -> Workload:
    """The workload without KL and NSEQ operators: KL(X) becomes X (q_nKL of §6.1) and NSEQ a
    SEQ of the same children (§7.2, Fig. 7); names, selectivities and window are kept."""
    queries = [
        Query.build(
            q.name,
            _without_negation(strip_kleene(q.pattern)),
            selectivity=dict(q.selectivities),
        )
        for q in workload.queries
    ]
    return Workload.build(
        window=workload.window,
        queries=queries,
        slide=workload.slide,
        selectivity_seed=workload.selectivity_seed,
    )
