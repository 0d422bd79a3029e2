"""The logical view of a plan: its projection graph (which projection feeds which), before
anything is drawn.

The INEv graph's vertices are placements; its *projections* form a DAG, as a job graph does
in Flink or a query graph in Siddhi: each event type used by the plan is an input box, each
composite projection a box (``P1`` … as in the topology drawing, :func:`~inev.experiments.
scene.aliases`), and an arrow runs from every input of a projection (its λ in the plan's
``combination``) to the projection. An arrow carries what its source sends: the rate (events
per time unit, summed over the source's vertices), what travels (``A events``, whole matches,
or the event types an output selector lets through) and whether it crosses any link at all
(an input used where it is made is drawn dashed). A box says where the projection runs: one
node, every source of its partitioning type (multi-node, drawn as a stack of boxes) or k
regional sites (dashed frame); a query's sink projection has a thick frame and names its
queries.

Layout (the renderers only turn it into coordinates): layers by longest path from the event
types (a projection sits one layer right of its deepest input), and within a layer an order
that reduces crossings, by the barycenter heuristic: three sweeps alternately to the right
(order by the mean position of the inputs) and to the left (mean position of the consumers),
ties by the plan's order, as in Sugiyama et al.'s layered drawings. It is deterministic, so
equal plans give equal pictures.

>>> from inev.planner.inev_graph import Plan, ProjectionInfo, Vertex
>>> info = {"SEQ(A, B)": ProjectionInfo("SEQ(A, B)", "SEQ(A, B)", ("A", "B"), (), 0.5, ())}
>>> plan = Plan("inev", (Vertex(0, "A", 0, forwarding=((0, 1),), rate=2.0, cost=2.0),
...                      Vertex(1, "B", 1, rate=1.0), Vertex(2, "SEQ(A, B)", 1, inputs=(0, 1),
...                      rate=0.5)), info, {"SEQ(A, B)": ("A", "B")}, {}, {"q": "SEQ(A, B)"},
...             {"A": (2.0, 2.0), "B": (1.0, 1.0)})
>>> view = logical_scene(plan)
>>> [(b.title, b.layer) for b in view.boxes]
[('A', 0), ('B', 0), ('P1', 1)]
>>> [(a.source, a.target, a.rate, a.local) for a in view.arrows]
[('A', 'SEQ(A, B)', 2.0, False), ('B', 'SEQ(A, B)', 1.0, True)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from inev.common.figures import Figure
from inev.common.words import listing, plural
from inev.experiments.scene import aliases, forwarded_text

SWEEPS = 3
"""Barycenter sweeps (right, left, right) that order each layer."""


@dataclass(frozen=True)
class Box:
    """One event type or projection of the projection graph."""

    key: str
    """The event type's name or the projection's key (its pattern)."""
    title: str
    """``A`` for a type, the alias ``P1`` for a projection."""
    lines: tuple[str, ...]
    """Under the title: pattern, placement, rate."""
    kind: str
    """``input`` (an event type) or ``projection``."""
    layer: int
    order: float
    multi: bool = False
    """Placed at every source of its partitioning type (INEv's multi-node placement)."""
    regional: bool = False
    """Placed at k regional sites (beyond the paper, :mod:`inev.planner.regional`)."""
    sinks: tuple[str, ...] = ()
    """The queries whose matches it produces."""
    detail: tuple[str, ...] = ()
    """Everything about it, in full (tooltips, the text form)."""


@dataclass(frozen=True)
class Arrow:
    """An input of a projection: what its source sends towards it."""

    source: str
    target: str
    rate: float
    """Events per time unit the source's vertices send (their rates summed)."""
    forwarded: str
    """What travels: ``A events``, ``whole P1 matches`` or ``A, C events of P1 matches``."""
    local: bool
    """True when the source crosses no link (used at the nodes where it is made)."""
    cost: float
    """The source's transmission cost (its vertices' tc summed), events per time unit."""


@dataclass(frozen=True)
class LogicalScene:
    """The projection graph of a plan (see the module docstring)."""

    title: str
    boxes: tuple[Box, ...]
    arrows: tuple[Arrow, ...]
    queries: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    """Per query, the keys of every box its matches depend on (its sink and all upstream)."""
    figures: tuple[Figure, ...] = ()

    def box(self, key: str) -> Box:
        """The box of ``key``."""
        for b in self.boxes:
            if b.key == key:
                return b
        raise KeyError(key)


def logical_scene(plan: Any, title: str = "projection graph") -> LogicalScene:
    """The projection graph of ``plan`` (see the module docstring)."""
    from inev.planner.figures import plan_figures

    alias = aliases(plan)
    by_key: dict[str, list[Any]] = {}
    for v in plan.vertices:
        by_key.setdefault(v.projection, []).append(v)
    inputs = {key: tuple(plan.combination.get(key, ())) for key in alias}
    used = [t for t in plan.type_rates if any(t in ins for ins in inputs.values())]
    used += [t for ins in inputs.values() for t in ins if t not in alias and t not in used]
    layer = _layers(used, inputs)
    order = _orders(used, list(alias), inputs, layer)
    sinks: dict[str, list[str]] = {}
    for query, key in sorted(plan.sinks.items()):
        sinks.setdefault(key, []).append(query)
    boxes = [_type_box(plan, t, by_key.get(t, []), layer[t], order[t]) for t in used]
    boxes += [
        _projection_box(plan, key, alias, by_key.get(key, []), layer[key], order[key], sinks)
        for key in alias
    ]
    arrows = [
        _arrow(plan, source, key, alias, by_key.get(source, []))
        for key in alias
        for source in inputs[key]
    ]
    queries = {q: tuple(_upstream(key, inputs)) for q, key in sorted(plan.sinks.items())}
    return LogicalScene(title, tuple(boxes), tuple(arrows), queries, tuple(plan_figures(plan)))


def _layers(types: list[str], inputs: Mapping[str, tuple[str, ...]]) -> dict[str, int]:
    """Longest path from the event types: 0 for a type, 1 + the deepest input else."""
    layer = dict.fromkeys(types, 0)

    def depth(key: str, seen: frozenset[str] = frozenset()) -> int:
        if key in layer:
            return layer[key]
        if key in seen or key not in inputs:  # a cycle cannot occur in a plan; be safe
            return 0
        layer[key] = 1 + max((depth(i, seen | {key}) for i in inputs[key]), default=0)
        return layer[key]

    for key in inputs:
        depth(key)
    return layer


def _orders(
    types: list[str],
    projections: list[str],
    inputs: Mapping[str, tuple[str, ...]],
    layer: Mapping[str, int],
) -> dict[str, float]:
    """Each box's rank within its layer after :data:`SWEEPS` barycenter sweeps."""
    columns: dict[int, list[str]] = {}
    for key in [*types, *projections]:
        columns.setdefault(layer[key], []).append(key)
    consumers: dict[str, list[str]] = {}
    for key, ins in inputs.items():
        for i in ins:
            consumers.setdefault(i, []).append(key)
    rank = {key: float(k) for column in columns.values() for k, key in enumerate(column)}
    depths = sorted(columns)
    for sweep in range(SWEEPS):
        rightwards = sweep % 2 == 0
        for d in depths[1:] if rightwards else reversed(depths[:-1]):
            neighbours = inputs if rightwards else consumers

            def centre(key: str, neighbours: Mapping[str, Any] = neighbours) -> float:
                near = [rank[n] for n in neighbours.get(key, ()) if n in rank]
                return sum(near) / len(near) if near else rank[key]

            columns[d].sort(key=lambda key: (centre(key), rank[key]))
            rank.update({key: float(k) for k, key in enumerate(columns[d])})
    return rank


def _upstream(key: str, inputs: Mapping[str, tuple[str, ...]]) -> list[str]:
    """``key`` and every box it depends on, depth first."""
    out: list[str] = []
    stack = [key]
    while stack:
        k = stack.pop()
        if k in out:
            continue
        out.append(k)
        stack.extend(inputs.get(k, ()))
    return out


def _rate_text(value: float) -> str:
    return f"{value:.3g} / time unit"


def _type_box(plan: Any, name: str, vertices: list[Any], layer: int, order: float) -> Box:
    rates = plan.type_rates.get(name)
    total = rates[1] if rates else sum(v.rate for v in vertices)
    sources = len(vertices) or None
    lines = (f"R = {_rate_text(total)}",) + ((plural(sources, "source"),) if sources else ())
    nodes = [v.node for v in vertices]
    detail = (
        f"event type {name}: {_rate_text(total)} in all",
        f"sources: {listing(nodes, limit=24)}" if nodes else "sources: not in the plan",
    )
    return Box(name, name, lines, "input", layer, order, detail=detail)


def _placement(plan: Any, key: str, vertices: list[Any]) -> tuple[str, bool, bool]:
    """(where it runs, multi-node?, regional?)."""
    part = plan.multi_node.get(key)
    if any(v.region for v in vertices):
        return f"regionally by {part} at {plural(len(vertices), 'site')}", False, True
    if part:
        return f"partitioned by {part} at {plural(len(vertices), 'node')}", True, False
    return "at node " + listing([v.node for v in vertices], limit=6), False, False


def _projection_box(
    plan: Any,
    key: str,
    alias: Mapping[str, str],
    vertices: list[Any],
    layer: int,
    order: float,
    sinks: Mapping[str, list[str]],
) -> Box:
    where, multi, regional = _placement(plan, key, vertices)
    info = plan.projections.get(key)
    rate = info.rate if info is not None else sum(v.rate for v in vertices)
    queries = tuple(sinks.get(key, ()))
    lines = [key, where, f"R = {_rate_text(rate)}"]
    if queries:
        lines.append("→ matches of " + ", ".join(queries))
    cost = sum(v.cost for v in vertices)
    detail = [
        f"{alias[key]} = {key}",
        where,
        f"rate R = {_rate_text(rate)}; sends {_rate_text(cost)} over its links in all",
        f"nodes: {listing([v.node for v in vertices], limit=24)}",
    ]
    if info is not None and info.queries:
        detail.append("used by " + ", ".join(info.queries))
    if queries:
        detail.append("sink of " + ", ".join(queries))
    return Box(
        key, alias[key], tuple(lines), "projection", layer, order, multi, regional, queries,
        tuple(detail),
    )  # fmt: skip


def _arrow(plan: Any, source: str, target: str, alias: Mapping[str, str], vertices: list[Any]):
    rate = sum(v.rate for v in vertices)
    if not vertices and source in plan.type_rates:
        rate = plan.type_rates[source][1]
    local = not any(v.forwarding for v in vertices)
    cost = sum(v.cost for v in vertices)
    return Arrow(source, target, rate, forwarded_text(plan, source, alias, vertices), local, cost)


def logical_text(view: LogicalScene) -> str:
    """The projection graph as text: every box by layer, then every arrow, in full.

    >>> print(logical_text(LogicalScene("g", (Box("A", "A", ("R = 1 / time unit",), "input",
    ...       0, 0),), (Arrow("A", "SEQ(A, B)", 1.0, "A events", True, 0.0),))))
    g
    <BLANKLINE>
    layer 0:
      A: R = 1 / time unit
    <BLANKLINE>
    arrows (events / time unit):
      A -> SEQ(A, B): 1, A events (not sent: used where it is made)
    """
    lines = [view.title]
    for depth in sorted({b.layer for b in view.boxes}):
        lines += ["", f"layer {depth}:"]
        for b in sorted((b for b in view.boxes if b.layer == depth), key=lambda b: b.order):
            lines.append(f"  {b.title}: " + "; ".join(b.lines))
    titles = {b.key: b.title for b in view.boxes}
    if view.arrows:
        lines += ["", "arrows (events / time unit):"]
    for a in view.arrows:
        local = " (not sent: used where it is made)" if a.local else ""
        lines.append(
            f"  {titles.get(a.source, a.source)} -> {titles.get(a.target, a.target)}: "
            f"{a.rate:.6g}, {a.forwarded}{local}"
        )
    return "\n".join(lines)
