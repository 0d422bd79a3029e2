"""The ``inev-plan/1`` and ``inev-changes/1`` files' shapes, and the plan's cross-references.

Shapes (types, ranges, required keys) are pydantic models (see :mod:`inev.common.validation`
for why pydantic): :class:`PlanDocument` and :class:`ChangesDocument`. Plan files are the
largest inputs (10^5 vertices and more), which is where pydantic's compiled core pays off.
Unknown keys are ignored in plans (other versions add keys) and refused in changes.

What a shape cannot say is checked by hand in :func:`reference_problems`, on the built
:class:`~inev.planner.inev_graph.Plan`, because those rules relate entries to each other: vertex ids
are unique and inputs name earlier vertices (the file lists inputs first); every projection,
combination entry, partitioning type, output selector, fallback and sink names something the
plan defines; projections' types have rates. A plan that passes can be executed and repaired
without a KeyError; whether it was made for the network and workload at hand is the job of
:mod:`inev.planner.fingerprint`.

>>> from inev.common.validation import validate_document
>>> doc = {"format": "inev-changes/1", "changes": [{"kind": "set-rate", "type": "A", "rate": -1}]}
>>> try:
...     validate_document(ChangesDocument, doc, "ch.json")
... except Exception as exc:
...     print(exc)
ch.json: changes[0].rate must be a positive number (got -1)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

from inev.common.errors import InevError
from inev.common.validation import (
    MAX_INT,
    Count,
    Figure,
    Name,
    NodeId,
    Number,
    Open,
    Positive,
    Strict,
    Text,
)
from inev.workloads.pattern import leaf_types
from inev.workloads.syntax import parse_pattern

MAX_VERTICES = 10_000_000
"""The most vertices a plan file may have."""

Pair = Annotated[list[NodeId], Field(min_length=2, max_length=2)]
"""A link of a forwarding graph: ``[u, v]``."""


def _shape(value: Any) -> str | None:
    """The union member of a value written either as a list or as an object."""
    if isinstance(value, list):
        return "~list"
    if isinstance(value, dict):
        return "~object"
    return None


class CompactInputs(Strict):
    """A long input list: the listed ids, then every vertex of each named projection."""

    ids: Annotated[list[Count], Field(max_length=MAX_VERTICES)] = []
    all_of: list[Text] = []


class CompactForwarding(Strict):
    """A forwarding graph written as a shared tree plus extra links."""

    tree: Count
    extra: list[Pair] = []


def _either(list_type: Any, object_type: Any, what: str) -> Any:
    return Annotated[
        Annotated[list_type, Tag("~list")] | Annotated[object_type, Tag("~object")],
        Discriminator(
            _shape,
            custom_error_type="shape",
            custom_error_message=f"must be {what}",
        ),
    ]


class ProjectionEntry(Open):
    """What a plan records about one projection."""

    pattern: Text
    types: Annotated[list[Name], Field(min_length=1)]
    negated: list[Name] = []
    rate: Figure
    single_selectivity: dict[Name, Number]
    queries: list[Name] = []


class VertexEntry(Open):
    """One vertex of an INEv graph."""

    id: Count
    projection: Text
    node: NodeId
    inputs: _either(
        Annotated[list[Count], Field(max_length=MAX_VERTICES)],
        CompactInputs,
        "a list of vertex ids or {ids, all_of}",
    ) = []
    forwarding: _either(list[Pair], CompactForwarding, "a list of links or {tree, extra}") = []
    destinations: list[NodeId] = []
    hops: list[Count] = []
    output: Annotated[
        Annotated[Literal["all"], Tag("~all")] | Annotated[list[Name], Tag("~list")],
        Discriminator(
            lambda v: "~all" if isinstance(v, str) else "~list" if isinstance(v, list) else None,
            custom_error_type="shape",
            custom_error_message='must be "all" or a list of event types',
        ),
    ] = "all"
    partition: Name | None = None
    region: list[NodeId] = []
    rate: Figure = 0.0
    cost: Figure


class MadeFor(Strict):
    """Fingerprints of the network and workload a plan was made for."""

    network: Annotated[str, Field(pattern=r"^[0-9a-f]{16,64}$")]
    workload: Annotated[str, Field(pattern=r"^[0-9a-f]{16,64}$")]


class PlanDocument(Open):
    """An ``inev-plan/1`` document."""

    format: Literal["inev-plan/1"] | None = None
    method: Name
    psi: Figure
    centralized_cost: Figure = 0.0
    centralized_node: NodeId | None = None
    ratio: Figure = None
    lower_bound: Figure = 0.0
    latency: Figure = 0.0
    centralized_latency: Figure = 0.0
    planning_seconds: Annotated[float, Field(ge=0, le=1e12)] = 0.0
    combination: dict[Text, list[Text]] = {}
    multi_node: dict[Text, Name] = {}
    fallback: dict[Text, NodeId] = {}
    sinks: Annotated[dict[Name, Text], Field(min_length=1)]
    type_rates: dict[Name, Annotated[list[Figure], Field(min_length=2, max_length=2)]]
    projections: dict[Text, ProjectionEntry]
    vertices: Annotated[list[VertexEntry], Field(min_length=1, max_length=MAX_VERTICES)]
    trees: list[list[Pair]] = []
    edges: list[Annotated[list[Count], Field(min_length=2, max_length=2)]] | None = None
    edge_count: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    notes: list[Text] = []
    kept: Text = ""
    made_for: MadeFor | None = None


class SwapRates(Strict):
    """Two types exchange their rates."""

    time: Annotated[float, Field(ge=0, le=1e15)] | None = None
    kind: Literal["swap-rates"]
    types: Annotated[list[Name], Field(min_length=2, max_length=2)]


class SetRate(Strict):
    """A type gets a new local rate."""

    time: Annotated[float, Field(ge=0, le=1e15)] | None = None
    kind: Literal["set-rate"]
    type: Name
    rate: Positive


class LinkChange(Strict):
    """A link goes down or comes up."""

    time: Annotated[float, Field(ge=0, le=1e15)] | None = None
    kind: Literal["link-down", "link-up"]
    link: Pair


class NodeDown(Strict):
    """A node fails (with its links and sources)."""

    time: Annotated[float, Field(ge=0, le=1e15)] | None = None
    kind: Literal["node-down"]
    node: NodeId


def _kind(value: Any) -> str | None:
    kind = value.get("kind") if isinstance(value, dict) else None
    return (
        {
            "swap-rates": "~swap",
            "set-rate": "~set",
            "link-down": "~link",
            "link-up": "~link",
            "node-down": "~node",
        }.get(kind)
        if isinstance(kind, str)
        else None
    )


Change = Annotated[
    Annotated[SwapRates, Tag("~swap")]
    | Annotated[SetRate, Tag("~set")]
    | Annotated[LinkChange, Tag("~link")]
    | Annotated[NodeDown, Tag("~node")],
    Discriminator(
        _kind,
        custom_error_type="change_kind",
        custom_error_message=(
            "must be an object whose kind is swap-rates, set-rate, link-down, link-up or node-down"
        ),
    ),
]


class ChangesDocument(Strict):
    """An ``inev-changes/1`` document."""

    format: Literal["inev-changes/1"] | None = None
    changes: Annotated[list[Change], Field(max_length=1_000_000)]


def reference_problems(plan: Any) -> list[str]:
    """The broken cross-references of a :class:`~inev.planner.inev_graph.Plan` (module docstring).

    At most one problem per rule is listed (the first found), so a large broken plan does not
    produce a large list.
    """
    checks = (
        _vertex_problem,
        _projection_problem,
        _combination_problem,
        _multi_node_problem,
        _fallback_problem,
        _sink_problem,
    )
    return [problem for check in checks if (problem := check(plan)) is not None]


def _vertex_problem(plan: Any) -> str | None:
    """The first vertex that repeats an id, takes a later input or disagrees with its projection."""
    seen: set[int] = set()
    for v in plan.vertices:
        if v.id in seen:
            return f"vertex id {v.id} is used twice"
        later = next((u for u in v.inputs if u not in seen), None)
        if later is not None:
            return f"vertex {v.id} takes input {later}, which is not a vertex listed before it"
        seen.add(v.id)
        problem = _vertex_projection_problem(v, plan.projections.get(v.projection))
        if problem is not None:
            return problem
    return None


def _vertex_projection_problem(v: Any, info: Any) -> str | None:
    """What is wrong between vertex ``v`` and its projection's record ``info`` (None: nothing)."""
    if info is None:
        return f"vertex {v.id} names unknown projection {v.projection!r}"
    if not v.inputs and not (len(info.types) == 1 and info.pattern == info.types[0]):
        return f"vertex {v.id} of projection {v.projection!r} has no inputs"
    if v.output is not None and not set(v.output) <= set(info.types):
        extra = sorted(set(v.output) - set(info.types))[0]
        return f"vertex {v.id} outputs {extra}, not a type of {v.projection!r}"
    if v.partition is not None and v.partition not in info.types:
        return f"vertex {v.id} is partitioned by {v.partition}, not a type of it"
    if v.region and v.partition is None:
        return f"vertex {v.id} has a region but no partitioning type"
    if len(v.hops) != len(v.destinations):
        return f"vertex {v.id} has {len(v.hops)} hops for {len(v.destinations)} destinations"
    return None


def _projection_problem(plan: Any) -> str | None:
    """The first projection record with types without rates or a pattern of other types."""
    known_types = set(plan.type_rates)
    for key, info in plan.projections.items():
        unknown = [t for t in (*info.types, *info.negated) if t not in known_types]
        if unknown:
            return f"projection {key!r} names type {unknown[0]} without a rate"
        if not set(info.negated) <= set(info.types):
            return f"projection {key!r} negates a type it does not have"
        try:
            pattern_types = leaf_types(parse_pattern(info.pattern))
        except InevError as exc:
            return f"projection {key!r}: {exc}"
        if set(pattern_types) != set(info.types):
            return f"projection {key!r}: pattern {info.pattern!r} has other types"
    return None


def _combination_problem(plan: Any) -> str | None:
    """The first combination entry naming an unknown projection or input."""
    projections, known_types = plan.projections, set(plan.type_rates)
    for key, inputs in plan.combination.items():
        if key not in projections:
            return f"combination names unknown projection {key!r}"
        missing = [i for i in inputs if i not in projections and i not in known_types]
        if missing:
            return f"combination of {key!r} names unknown input {missing[0]!r}"
    return None


def _multi_node_problem(plan: Any) -> str | None:
    """The first multi-node entry whose partitioning type is not its projection's."""
    for key, part in plan.multi_node.items():
        if key not in plan.projections or part not in plan.projections[key].types:
            return f"multi_node {key!r}: {part!r} is not a type of a known projection"
    return None


def _fallback_problem(plan: Any) -> str | None:
    """The first fallback entry naming an unknown projection."""
    unknown = next((key for key in plan.fallback if key not in plan.projections), None)
    return None if unknown is None else f"fallback names unknown projection {unknown!r}"


def _sink_problem(plan: Any) -> str | None:
    """The first query whose sink projection is unknown or has no vertex."""
    placed = {v.projection for v in plan.vertices}
    for query, key in plan.sinks.items():
        if key not in plan.projections:
            return f"sink of query {query} names unknown projection {key!r}"
        if key not in placed:
            return f"sink of query {query}: projection {key!r} has no vertex"
    return None
