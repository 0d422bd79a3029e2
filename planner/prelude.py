"""What Alg. 2 derives from a combination before laying it out, from per-projection parts.

Before its layout (:func:`inev.planner.alg2_placement._layout`) Alg. 2 derives, from the whole
combination: the output selectors (getOS, line 29), λ extended by the types inputs no longer
send (line 7), the order of the projections and, per input, the sources of its multi-node
consumers. The local search places thousands of combinations that differ by one move, and
almost every one is new (6,461 of the 6,790 placed by the default 20-node, 5-query plan), so
keeping the prelude per combination saves little; :class:`Preludes` keeps its parts per
projection instead, each keyed on everything it depends on (reuse is exact):

* a projection's **output selector**: keyed by its key, DissEv, its partitioning type and
  its regions (and checked to be the same projection object), which is everything
  :func:`~inev.planner.alg2_placement.output_selector` reads besides the network;
* the **order** (:func:`~inev.planner.combination_model.inputs_first`): keyed by the
  projections' keys in order, their sizes and the extended inputs, which is all it reads
  (no rate), so one store (:data:`ORDERS`) serves every :class:`Preludes`, also those of
  the rate kicks' networks;
* an input's **spread** (the sources of its multi-node consumers' partitioning types, the
  sites for a regional consumer): keyed by those node collections in order (a type's
  sources are fixed by the network), interned as Alg. 2 interns it.

The extended inputs equal the inputs wherever no input has a selector, and are derived as
Alg. 2 derives them elsewhere. ``tests/test_prelude.py`` compares every part with Alg. 2's
own on random combinations.
"""

from __future__ import annotations

from itertools import chain

from inev.planner.alg2_placement import extended_inputs, output_selector
from inev.planner.combination_model import Combination, inputs_first
from inev.planner.forwarding_graphs import network_cache
from inev.planner.inev_graph import Node
from inev.planner.projections import Projection, primitive_projection
from inev.topologies.network import Network

MAX_PARTS = 200_000
"""Selectors and spreads kept per :class:`Preludes`, and orders in :data:`ORDERS`, before
they are dropped (an entry is a few short tuples: the bound keeps a sweep's memory flat)."""

ORDERS: dict[tuple, list[str]] = {}
"""Orders of the projections (:meth:`Preludes._order`) shared by every :class:`Preludes`:
the search makes a new one per rate kick, whose combinations mostly repeat the orders of
the others (at most :data:`MAX_PARTS`, then emptied)."""

Prelude = tuple[
    dict[str, Projection],
    dict[str, tuple[str, ...] | None],
    dict[str, tuple[str, ...]],
    list[str],
    dict[str, frozenset[Node]],
]
"""``(projections, outputs, extended, order, spread)`` as Alg. 2 derives them."""


class Preludes:
    """Alg. 2's prelude of combinations on one network, from parts kept across them.

    >>> from inev.planner.alg2_placement import _multi_node_targets, _outputs_and_inputs
    >>> from inev.planner.projections import primitive_projection
    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (2.0, [2])})
    >>> ps = {t: primitive_projection(t, net.global_rate(t)) for t in "AB"}
    >>> c = Combination(ps, {}, {}, {})
    >>> projections, outputs, extended, order, spread = Preludes(net)(c, frozenset())
    >>> (projections, outputs, extended) == _outputs_and_inputs(net, c, frozenset())
    True
    >>> order, spread
    (['A', 'B'], {})
    """

    def __init__(self, network: Network) -> None:
        self.network = network
        self.selectors: dict[tuple, tuple[Projection, tuple[str, ...] | None]] = {}
        self.spreads: dict[tuple, frozenset[Node]] = {}
        self.primitives: dict[str, Projection] = {}

    def __call__(self, combination: Combination, keep_matches: frozenset[str]) -> Prelude:
        """The prelude of ``combination`` (see :data:`Prelude`)."""
        if max(len(self.selectors), len(self.spreads)) >= MAX_PARTS:
            self.selectors.clear()
            self.spreads.clear()
        given = combination.projections
        inputs = combination.inputs
        mn = combination.multi_node
        regional = combination.regional
        diss = frozenset(
            i
            for key, part in mn.items()
            for i in inputs.get(key, ())
            if i != part and given[i].is_primitive
        )
        consumed = set(chain.from_iterable(inputs.values()))
        selectors, network = self.selectors, self.network
        outputs: dict[str, tuple[str, ...] | None] = {}
        selecting: set[str] = set()
        for key, p in given.items():
            if key not in consumed or key in keep_matches or p.is_primitive:
                outputs[key] = None
                continue
            # output_selector, kept per key, DissEv, partition and regions (same object)
            part, regions = mn.get(key), regional.get(key) if regional else None
            ck = (key, diss, part, regions)
            found = selectors.get(ck)
            if found is None or found[0] is not p:
                found = selectors[ck] = (p, output_selector(p, diss, network, part, regions))
            outputs[key] = found[1]
            if found[1] is not None:
                selecting.add(key)
        projections = dict(given)
        extended: dict[str, tuple[str, ...]] = {}
        for key, ins in inputs.items():
            if selecting.isdisjoint(ins):
                extended[key] = tuple(ins)
            else:
                extended[key] = self._extended(ins, outputs, projections)
        order = self._order(projections, extended)
        return projections, outputs, extended, order, self._spread(combination, extended)

    def _order(
        self, projections: dict[str, Projection], extended: dict[str, tuple[str, ...]]
    ) -> list[str]:
        """:func:`~inev.planner.combination_model.inputs_first` (kept in :data:`ORDERS` per
        keys in order, their sizes and extended inputs: everything it reads)."""
        ck = (
            tuple(projections),
            tuple([len(p.types) for p in projections.values()]),
            tuple(extended.items()),
        )
        found = ORDERS.get(ck)
        if found is None:
            if len(ORDERS) >= MAX_PARTS:
                ORDERS.clear()
            found = ORDERS[ck] = inputs_first(projections, extended)
        return found

    def _extended(
        self,
        ins: tuple[str, ...],
        outputs: dict[str, tuple[str, ...] | None],
        projections: dict[str, Projection],
    ) -> tuple[str, ...]:
        """λ extended by the types the inputs' selectors leave out (Alg. 2, line 7), new
        event types added to ``projections`` (as
        the placement does: :func:`~inev.planner.alg2_placement.extended_inputs`)."""
        return extended_inputs(ins, outputs, projections, self._primitive)

    def _primitive(self, name: str) -> Projection:
        """The projection of event type ``name`` at its global rate (one object per type)."""
        found = self.primitives.get(name)
        if found is None:
            found = self.primitives[name] = primitive_projection(
                name, self.network.global_rates()[name]
            )
        return found

    def _spread(
        self, combination: Combination, extended: dict[str, tuple[str, ...]]
    ) -> dict[str, frozenset[Node]]:
        """Per input projection: the sources of its multi-node consumers' partitioning types
        (a regional consumer's sites), as
        :func:`~inev.planner.alg2_placement._multi_node_targets` gives them."""
        groups: dict[str, list] = {}
        regional = combination.regional
        for key, part in combination.multi_node.items():
            regions = regional.get(key) if regional else None
            group = part if regions is None else regions.sites
            for i in extended[key]:
                if i != part:
                    groups.setdefault(i, []).append(group)
        spreads = self.spreads
        out: dict[str, frozenset[Node]] = {}
        for i, gs in groups.items():
            gk = tuple(gs)  # the groups in this order: their union does not depend on it
            found = spreads.get(gk)
            if found is None:
                network = self.network
                nodes: set[Node] = set()
                for g in gs:
                    nodes.update(network.sources(g) if isinstance(g, str) else g)
                fs = frozenset(nodes)
                found = spreads[gk] = network_cache(network).node_sets.setdefault(fs, fs)
            out[i] = found
        return out
