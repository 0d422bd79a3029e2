"""The INEv graph I = (V, E) (INEv paper §5.2) as a Python object and as an ``inev-plan/1`` file.

A :class:`Plan` says, per vertex, everything a node needs to execute it: the fields of
:class:`Vertex` (the simulator reads exactly these). Figures that overflow a float are written
as ``null`` and read back as infinity. Shared trees (:func:`_compact_forwarding`), long input
lists (:func:`_compact_inputs`) and ``edges`` (``null`` above 200,000) keep large files small
(a 1,000-node plan took over half a gigabyte); :func:`load_plan` expands them.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.files import atomic_output, read_json_document, write_json_document
from inev.common.validation import validate_document
from inev.topologies.network_entries import link_key

FORMAT = "inev-plan/1"
COMPACT_ABOVE = 32
"""Input lists longer than this are written compactly (see :func:`_compact_inputs`)."""
MAX_LISTED_EDGES = 200_000
"""Above this many edges the file's ``edges`` is ``null``; the vertices' inputs define them."""
Node = Hashable
Link = tuple[Node, Node]
link = link_key
"""The canonical (ordered) form of an undirected link: one definition for every layer."""


@dataclass(frozen=True)
class ProjectionInfo:
    """What a plan records about one projection: pattern, types, rate and single selectivities.

    Parameters
    ----------
    key, pattern : str
    types, negated : tuple of str
    rate : float
        R(p), the rate of its matches over the whole network.
    single : tuple of (str, float)
        σ(e, p) per type; a type left out has 1.
    queries : tuple of str
        The queries using it; the first one's predicates (restricted to its types) define it.

    Examples
    --------
    >>> ProjectionInfo("p", "SEQ(B, A)", ("B", "A"), (), 2.0, (("A", 0.5),)).single_selectivity("B")
    1.0
    """

    key: str
    pattern: str
    types: tuple[str, ...]
    negated: tuple[str, ...]
    rate: float
    single: tuple[tuple[str, float], ...]
    queries: tuple[str, ...] = ()

    def single_selectivity(self, name: str) -> float:
        """σ(e, p) as recorded in the plan."""
        return dict(self.single).get(name, 1.0)


@dataclass(frozen=True)
class Vertex:
    """One vertex v = (v_proj, v_node, v_graph, v_os) of an INEv graph (module docstring).

    Parameters
    ----------
    id : int
        Unique; a plan lists vertices inputs first.
    projection : str
        Key in :attr:`Plan.projections`; a vertex of one event type (an *event vertex*)
        stands for that type's events at ``node``.
    node
        The topology node that evaluates the projection (or generates the events).
    inputs : tuple of int
        The predecessor vertices: the vertex evaluates over what they deliver to ``node``.
    partition : str or None
        For a multi-node placement, the partitioning type: the vertex uses only its events
        generated at ``node`` (that event vertex is its *first* input). None: single node.
    region : tuple
        A regional vertex's sources of that type, their event vertices its first inputs
        (docs/architecture.md, regional placements); empty otherwise.
    forwarding, tree
        The links of its output's forwarding graph; ``tree`` indexes :attr:`Plan.trees`.
    destinations, hops : tuple
        The nodes of the vertices taking it as input, and the hops to each (§5.4).
    output : tuple of str or None
        None (≡, whole matches) or the types whose events in some match are sent (§5.1).
    rate, cost : float
        The rate sent on each link of the forwarding graph, and tc(v) = |links| · rate (§5.3).

    Examples
    --------
    >>> v = Vertex(0, "B", 1, forwarding=((0, 1), (1, 2)), destinations=(0, 2), hops=(1, 1))
    >>> sorted(v.graph_nodes), v.local_sources
    ([0, 1, 2], ())
    """

    id: int
    projection: str
    node: Node
    inputs: tuple[int, ...] = ()
    forwarding: tuple[Link, ...] = ()
    destinations: tuple[Node, ...] = ()
    hops: tuple[int, ...] = ()
    tree: int | None = None
    output: tuple[str, ...] | None = None
    partition: str | None = None
    region: tuple[Node, ...] = ()
    rate: float = 0.0
    cost: float = 0.0

    @property
    def local_sources(self) -> tuple[Node, ...]:
        """The sources whose partitioning events the vertex uses: its region, or its own node
        for a multi-node vertex (empty for a single-node one)."""
        if self.partition is None:
            return ()
        return self.region or (self.node,)

    @property
    def graph_nodes(self) -> frozenset[Node]:
        """Nodes of the forwarding graph (``node`` included even when no link is used)."""
        nodes = {self.node}
        for u, v in self.forwarding:
            nodes.add(u)
            nodes.add(v)
        return frozenset(nodes)


@dataclass(frozen=True)
class Plan:
    """An INEv graph with its figures (ψ, centralized cost, latency …); see the module docstring.

    Parameters
    ----------
    method : str
    vertices : tuple of Vertex
        Inputs first: one pass in list order is a valid schedule.
    projections, combination, multi_node, fallback : mapping
        Per projection its :class:`ProjectionInfo`, λ (extended, line 7 of Alg. 2), the
        partitioning type, the node precomputed for a multi-node one (§6.6).
    sinks, type_rates : mapping
        Per query its sink projection; ``{type: (r(e), R(e))}`` (vertex costs follow). A
        sink keeps its query's KL, building Kleene matches from q_nKL inputs (§6.1).
    trees, psi, centralized_cost, centralized_node, latency, centralized_latency
        Shared Steiner trees and the figures of §5.3, §5.4; ``planning_seconds``, ``notes``.
    source_rates, lower_bound, approximate_bound, kept, made_for
        r(e, n) of the per-source types; a provable bound on ψ (:mod:`~.lower_bound`) and
        §7.2's estimate; the candidate kept (:mod:`~.planning`); fingerprints (:mod:`~.fingerprint`).

    Examples
    --------
    B (0.2) sent one hop to each A source costs ψ = 0.4; centralized at node 1, both A
    streams (5 each) travel one hop: 10, a ratio of 0.04.

    >>> from inev.planner.planning import plan_workload
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> plan = plan_workload(net, Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]))
    >>> plan
    <Plan inev: ψ 0.4 events / time unit, ratio 0.04, 1 projection on 2 nodes, 1 query>
    """

    method: str
    vertices: tuple[Vertex, ...]
    projections: Mapping[str, ProjectionInfo]
    combination: Mapping[str, tuple[str, ...]]
    multi_node: Mapping[str, str]
    sinks: Mapping[str, str]
    type_rates: Mapping[str, tuple[float, float]]
    source_rates: Mapping[str, Mapping[Node, float]] = field(default_factory=dict)
    fallback: Mapping[str, Node] = field(default_factory=dict)
    trees: tuple[tuple[Link, ...], ...] = ()
    psi: float = 0.0
    centralized_cost: float = 0.0
    centralized_node: Node | None = None
    lower_bound: float = 0.0
    approximate_bound: float = 0.0
    latency: float = 0.0
    centralized_latency: float = 0.0
    planning_seconds: float = 0.0
    notes: tuple[str, ...] = ()
    kept: str = ""
    made_for: Mapping[str, str] | None = None

    @property
    def ratio(self) -> float:
        """The transmission ratio ψ / centralized cost (1.0 when the centralized cost is 0)."""
        return self.psi / self.centralized_cost if self.centralized_cost > 0 else 1.0

    @property
    def edges(self) -> list[tuple[int, int]]:
        """The INEv graph's edges (input vertex id, consuming vertex id)."""
        return [(w, v.id) for v in self.vertices for w in v.inputs]

    def vertex(self, vid: int) -> Vertex:
        """The vertex with id ``vid``."""
        return self._by_id[vid]

    @property
    def _by_id(self) -> dict[int, Vertex]:
        cache = self.__dict__.get("_by_id_cache")
        if cache is None:
            cache = {v.id: v for v in self.vertices}
            object.__setattr__(self, "_by_id_cache", cache)
        return cache

    def consumers(self) -> dict[int, list[int]]:
        """``{vertex id: ids of the vertices that take it as input}`` (the reverse of ``inputs``)."""
        out: dict[int, list[int]] = {v.id: [] for v in self.vertices}
        for v in self.vertices:
            for w in v.inputs:
                out[w].append(v.id)
        return out

    def vertices_of(self, key: str) -> list[Vertex]:
        """The vertices placing projection ``key``."""
        return [v for v in self.vertices if v.projection == key]

    def sink_vertices(self, query: str) -> list[Vertex]:
        """The vertices producing the matches of ``query``."""
        if query not in self.sinks:
            raise InevError(f"plan has no query {query!r}")
        return self.vertices_of(self.sinks[query])

    def summary(self) -> str:
        """The one line ``inev plan`` prints (see :mod:`inev.planner.figures`)."""
        from inev.common.figures import summary_line
        from inev.planner.figures import plan_figures

        return summary_line(plan_figures(self))

    def __repr__(self) -> str:
        """A short text form (the dataclass's own would print every vertex; class example)."""
        from inev.common.words import plural

        placed = {v.projection for v in self.vertices if v.inputs}
        nodes = {v.node for v in self.vertices if v.inputs}
        return (
            f"<Plan {self.method}: ψ {self.psi:.6g} events / time unit, ratio {self.ratio:.3g}, "
            f"{plural(len(placed), 'projection')} on {plural(len(nodes), 'node')}, "
            f"{plural(len(self.sinks), 'query', 'queries')}>"
        )

    def _repr_html_(self) -> str:
        """A notebook's view: the drawing when :mod:`inev.experiments.notebook` is imported,
        else the plan's figures as a table (:mod:`inev.common.display`)."""
        from inev.common.display import figures_table, rendered
        from inev.planner.figures import plan_figures

        return rendered(self) or figures_table(plan_figures(self), f"plan ({self.method})")


def plan_to_dict(plan: Plan) -> dict[str, Any]:
    """The ``inev-plan/1`` document of a plan (:func:`_compact_inputs`: long input lists).

    Parameters
    ----------
    plan : Plan

    Returns
    -------
    dict

    Examples
    --------
    >>> plan = Plan("inev", (Vertex(0, "A", 0),), {"A": ProjectionInfo("A", "A", ("A",), (),
    ...             2.0, ())}, {}, {}, {"q": "A"}, {"A": (2.0, 2.0)})    # an event vertex as sink
    >>> plan_to_dict(plan)["vertices"][0]["output"]         # None (≡) is written "all"
    'all'
    """
    owner = {v.id: v.projection for v in plan.vertices}
    members: dict[str, set[int]] = {}
    for v in plan.vertices:
        members.setdefault(v.projection, set()).add(v.id)
    edge_count = sum(len(v.inputs) for v in plan.vertices)
    return {
        "format": FORMAT,
        "method": plan.method,
        "psi": _num(plan.psi),
        "centralized_cost": _num(plan.centralized_cost),
        "centralized_node": plan.centralized_node,
        "ratio": _num(plan.ratio),
        "lower_bound": _num(plan.lower_bound),
        "psi_over_lower_bound": _num(plan.psi / plan.lower_bound) if plan.lower_bound > 0 else None,
        "approximate_bound": _num(plan.approximate_bound),
        "kept": plan.kept,
        "latency": _num(plan.latency),
        "centralized_latency": _num(plan.centralized_latency),
        "planning_seconds": plan.planning_seconds,
        "combination": {k: list(v) for k, v in plan.combination.items()},
        "multi_node": dict(plan.multi_node),
        "fallback": dict(plan.fallback),
        "sinks": dict(plan.sinks),
        "type_rates": {k: list(v) for k, v in plan.type_rates.items()},
        **(
            {
                "source_rates": {
                    k: [[n, r] for n, r in v.items()] for k, v in plan.source_rates.items()
                }
            }
            if plan.source_rates
            else {}
        ),
        "projections": {
            k: {
                "pattern": p.pattern,
                "types": list(p.types),
                "negated": list(p.negated),
                "rate": _num(p.rate),
                "single_selectivity": dict(p.single),
                "queries": list(p.queries),
            }
            for k, p in plan.projections.items()
        },
        "vertices": [
            {
                "id": v.id,
                "projection": v.projection,
                "node": v.node,
                "inputs": _compact_inputs(v.inputs, owner, members),
                "forwarding": _compact_forwarding(v, plan.trees),
                "destinations": list(v.destinations),
                "hops": list(v.hops),
                "output": "all" if v.output is None else list(v.output),
                "partition": v.partition,
                **({"region": list(v.region)} if v.region else {}),
                "rate": _num(v.rate),
                "cost": _num(v.cost),
            }
            for v in plan.vertices
        ],
        "trees": [[list(e) for e in t] for t in plan.trees],
        "edges": [list(e) for e in plan.edges] if edge_count <= MAX_LISTED_EDGES else None,
        "edge_count": edge_count,
        "notes": list(plan.notes),
        **({"made_for": dict(plan.made_for)} if plan.made_for else {}),
    }


def plan_from_dict(document: Mapping[str, Any], origin: str = "plan") -> Plan:
    """Rebuild a :class:`Plan` from an ``inev-plan/1`` document (bad input: :class:`InevError`).

    Its shape is checked first (:class:`inev.planner.schema.PlanDocument`, imported here, as
    ``inev plan`` reads no plan), its references last (:func:`~.schema.reference_problems`).

    Parameters
    ----------
    document : mapping
    origin : str

    Returns
    -------
    Plan

    Examples
    --------
    >>> plan = Plan("inev", (Vertex(0, "A", 0),), {"A": ProjectionInfo("A", "A", ("A",), (),
    ...             2.0, ())}, {}, {}, {"q": "A"}, {"A": (2.0, 2.0)})    # an event vertex as sink
    >>> plan_from_dict(plan_to_dict(plan)) == plan
    True
    """
    from inev.planner.schema import PlanDocument, reference_problems

    validate_document(PlanDocument, document, origin)
    try:
        projections = {k: _projection_from_dict(k, p) for k, p in document["projections"].items()}
        trees = tuple(tuple(link(e[0], e[1]) for e in t) for t in document.get("trees", ()))
        vertices = _vertices_from_dict(document["vertices"], trees)
        for v in vertices:
            if v.projection not in projections:
                raise InevError(
                    f"{origin}: vertex {v.id} names unknown projection {v.projection!r}"
                )
        plan = Plan(
            method=str(document["method"]),
            vertices=tuple(vertices),
            projections=projections,
            combination={k: tuple(v) for k, v in document.get("combination", {}).items()},
            multi_node=dict(document.get("multi_node", {})),
            sinks=dict(document["sinks"]),
            type_rates={k: (float(v[0]), float(v[1])) for k, v in document["type_rates"].items()},
            source_rates={
                str(k): {n: float(r) for n, r in v}
                for k, v in document.get("source_rates", {}).items()
            },
            fallback=dict(document.get("fallback", {})),
            trees=trees,
            psi=_float(document["psi"]),
            centralized_cost=_float(document.get("centralized_cost", 0.0)),
            centralized_node=document.get("centralized_node"),
            lower_bound=_float(document.get("lower_bound", 0.0)),
            approximate_bound=_float(document.get("approximate_bound", 0.0)),
            kept=str(document.get("kept", "")),
            latency=_float(document.get("latency", 0.0)),
            centralized_latency=_float(document.get("centralized_latency", 0.0)),
            planning_seconds=float(document.get("planning_seconds", 0.0)),
            notes=tuple(document.get("notes", ())),
            made_for=dict(document["made_for"]) if document.get("made_for") else None,
        )
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        if isinstance(exc, InevError):
            raise
        raise InevError(f"{origin}: malformed plan ({type(exc).__name__}: {exc})") from None
    problems = reference_problems(plan)
    if problems:
        raise InevError(f"{origin}: {problems[0]}")
    return plan


def _projection_from_dict(key: str, p: Mapping[str, Any]) -> ProjectionInfo:
    """One ``projections`` entry of a plan file."""
    return ProjectionInfo(
        key=key,
        pattern=str(p["pattern"]),
        types=tuple(p["types"]),
        negated=tuple(p.get("negated", ())),
        rate=_float(p["rate"]),
        single=tuple(sorted((str(a), float(b)) for a, b in p["single_selectivity"].items())),
        queries=tuple(p.get("queries", ())),
    )


def _vertices_from_dict(
    raws: list[Mapping[str, Any]], trees: tuple[tuple[Link, ...], ...]
) -> list[Vertex]:
    """A plan file's ``vertices`` (compact inputs and shared trees expanded)."""
    members: dict[str, list[int]] = {}
    for raw in raws:
        members.setdefault(str(raw["projection"]), []).append(int(raw["id"]))
    vertices = []
    for raw in raws:
        output = raw.get("output", "all")
        forwarding = raw.get("forwarding", ())
        vertices.append(
            Vertex(
                id=int(raw["id"]),
                projection=str(raw["projection"]),
                node=raw["node"],
                inputs=_expand_inputs(raw.get("inputs", ()), members),
                forwarding=_expand_forwarding(forwarding, trees),
                tree=forwarding.get("tree") if isinstance(forwarding, dict) else None,
                destinations=tuple(raw.get("destinations", ())),
                hops=tuple(int(h) for h in raw.get("hops", ())),
                output=None if output == "all" else tuple(output),
                partition=raw.get("partition"),
                region=tuple(raw.get("region", ())),
                rate=_float(raw.get("rate", 0.0)),
                cost=_float(raw["cost"]),
            )
        )
    return vertices


def _num(value: float) -> float | None:
    """A figure for JSON: ``null`` when it overflowed a float (rates of long queries can)."""
    return value if math.isfinite(value) else None


def _float(value: Any) -> float:
    return math.inf if value is None else float(value)


def _compact_inputs(
    inputs: tuple[int, ...], owner: Mapping[int, str], members: Mapping[str, set[int]]
) -> list[int] | dict[str, list]:
    """A vertex's inputs for the file: the id list, or, when long, ``{"ids", "all_of"}``.

    Multi-node placements make input lists quadratic (every vertex of a projection partitioned
    at 500 sources takes every vertex of each other input). A list longer than
    :data:`COMPACT_ABOVE` is written as ``{"ids": [...], "all_of": [projection keys]}``: the
    listed ids (in order) followed by every vertex of each named projection (in id order).
    """
    if len(inputs) <= COMPACT_ABOVE:
        return list(inputs)
    chosen = set(inputs)
    whole = [
        key
        for key in dict.fromkeys(owner[i] for i in inputs)
        if len(members[key]) > 1 and members[key] <= chosen
    ]
    covered = set().union(*(members[k] for k in whole)) if whole else set()
    return {"ids": [i for i in inputs if i not in covered], "all_of": whole}


def _compact_forwarding(vertex: Vertex, trees: tuple[tuple[Link, ...], ...]) -> Any:
    """A vertex's links for the file: a list, or ``{"tree": t, "extra": [...]}`` over a shared tree."""
    if vertex.tree is None or vertex.tree >= len(trees):
        return [list(e) for e in vertex.forwarding]
    base = set(trees[vertex.tree])
    if not base <= set(vertex.forwarding):
        return [list(e) for e in vertex.forwarding]
    return {"tree": vertex.tree, "extra": [list(e) for e in vertex.forwarding if e not in base]}


def _expand_forwarding(raw: Any, trees: tuple[tuple[Link, ...], ...]) -> tuple[Link, ...]:
    if isinstance(raw, dict):
        t = int(raw["tree"])
        if not 0 <= t < len(trees):
            raise InevError(f"plan: forwarding names unknown tree {t}")
        return trees[t] + tuple(link(e[0], e[1]) for e in raw.get("extra", ()))
    return tuple(link(e[0], e[1]) for e in raw)


def _expand_inputs(raw: Any, members: Mapping[str, list[int]]) -> tuple[int, ...]:
    if isinstance(raw, dict):
        ids = [int(i) for i in raw.get("ids", ())]
        for key in raw.get("all_of", ()):
            if key not in members:
                raise InevError(f"plan: inputs name unknown projection {key!r}")
            ids.extend(sorted(members[key]))
        return tuple(ids)
    return tuple(int(i) for i in raw)


def save_plan(plan: Plan, path: str | os.PathLike[str]) -> None:
    """Write ``plan`` as ``inev-plan/1`` JSON, atomically (indented unless large).

    Parameters
    ----------
    plan : Plan
    path : str or path-like

    Returns
    -------
    None

    Examples
    --------
    >>> plan = Plan("inev", (Vertex(0, "A", 0),), {"A": ProjectionInfo("A", "A", ("A",), (),
    ...             2.0, ())}, {}, {}, {"q": "A"}, {"A": (2.0, 2.0)})    # an event vertex as sink
    >>> import pathlib, tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_plan(plan, pathlib.Path(folder, "p.json"))
    ...     load_plan(pathlib.Path(folder, "p.json")) == plan
    True
    """
    document = plan_to_dict(plan)
    if len(plan.vertices) <= 2000:
        write_json_document(path, document)
        return
    # json.dumps, not json.dump: only the one-shot call uses the C encoder (same bytes, about
    # 4x faster on a 40 MB plan of 10,000 nodes; the text is held once, well within memory)
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    with atomic_output(path) as handle:
        handle.write(text)
        handle.write("\n")


def pulled_types(plan: Plan) -> dict[str, tuple[str, ...]]:
    """The pulled types per query of a ppop plan, from its ``"<query>: pull <type>"`` notes.

    Parameters
    ----------
    plan : Plan

    Returns
    -------
    dict of str to tuple of str

    Examples
    --------
    >>> pulled_types(Plan("ppop", (), {}, {}, {}, {}, {}, notes=("q: pull B", "q: push A")))
    {'q': ('B',)}
    """
    out: dict[str, list[str]] = {}
    for note in plan.notes:
        name, sep, rest = note.partition(": pull ")
        if sep and rest and " " not in rest:
            out.setdefault(name, []).append(rest)
    return {q: tuple(ts) for q, ts in out.items()}


def load_plan(path: str | os.PathLike[str]) -> Plan:
    """Read an ``inev-plan/1`` file (checked as :func:`plan_from_dict` checks).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    Plan

    Examples
    --------
    >>> load_plan("no/such/plan.json")    # save_plan's example reads one back
    Traceback (most recent call last):
    inev.common.errors.InevError: no/such/plan.json: no such file
    """
    return plan_from_dict(read_json_document(path, FORMAT), origin=os.fspath(path))
