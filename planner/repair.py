"""Adaptive repair of INEv graphs (INEv paper §6.6) after rate or topology changes.

:func:`repair_plan` takes a plan, the network it was made for, the workload and a list of
``inev-changes/1`` entries (times ignored) and returns three figures and plans:

``broken``
    The old plan's structure (combination, placements, output selectors, forwarding graphs)
    costed under the new rates and on the changed network as the simulator would run it
    (:mod:`inev.planner.broken`): a forwarding graph that crosses a lost link pays the link's
    detour (a hop-shortest path over the links that are up), and one through a lost node is
    routed around it; vertices on a lost node are dropped. When the old plan would lose matches
    beyond what the change itself loses (a single-node projection at a lost node, a destination
    no longer reached), :attr:`RepairResult.cannot_run` says why, one reason a line, and the
    summary prints ``broken=cannot run (...)``.
``local``
    §6.6's local repair, for rate changes: (1) a projection whose rate now exceeds the sum of
    its inputs' rates is *harmful*: its consumers take its inputs instead (repeated until no
    projection is harmful; a query's sink is never removed); (2) a multi-node projection whose
    Eq. 1 no longer holds switches to its precomputed fall-back single node. Every other
    single-node projection stays on its node. A regional placement (beyond the paper,
    :mod:`inev.planner.regional`) keeps its sites and regions, re-rated (§6.6 has no rule
    for it; the candidates below bound what it costs); where a node it uses is lost, its
    regions are chosen anew with as many sites. For topology changes, the same combination is
    placed again with single-node projections pinned to their nodes (re-placed only if their
    node is lost), and every vertex whose old forwarding graph still exists in the new
    topology and still reaches its destinations keeps it: only the touched forwarding graphs
    are recomputed.
``repaired``
    What the repair answers: the cheapest of the local repair, the old plan itself (after rate
    changes only: it still evaluates the workload correctly, and §6.6's rules can cost more
    than they save) and the centralized plan of the changed network. So a repair never costs
    more than keeping the broken plan or than centralized evaluation; ``Plan.kept`` says which
    it is (``local``, ``old`` or ``centralized``).
``replanned``
    A fresh :func:`~inev.planner.planning.plan_workload` on the new network.

``result`` is what ``inev repair`` writes, by ``choose``: ``"repaired"`` (the default, what
``-o`` promises), ``"replanned"`` (``--replan``; the old ``replan=True``) or ``"best"``
(``--best``: the cheapest of the repaired, the incremental and the re-planned plan, first among
equals in that order, so a tie keeps the plan that moves least). :attr:`RepairResult.written`
names it and :attr:`RepairResult.why` says why; :meth:`RepairResult.summary` offers a re-plan
when the written plan costs more than :data:`REPLAN_GAIN` times the re-planned one.

The baselines (centralized, isolated, ppop, ppop-flouris) have no local repair in the paper:
they are re-planned with their own method on the changed network (``repaired`` = ``replanned``
= ``result``), as their operator would; ``broken`` is the old placement costed on the new
network (ppop's with :func:`~inev.planner.baselines.push_pull_cost`; a lost query node adds
nothing, as vertices on a lost node are dropped for INEv plans).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.planner.alg1_combination import multi_node_hops
from inev.planner.alg2_placement import partitioned_rate, place, send_rate
from inev.planner.assemble import build_plan
from inev.planner.baselines import centralized_plan, push_pull_cost, sink_projection
from inev.planner.broken import lost_vertices, priced_on, rerouted, why_not
from inev.planner.changes import apply_changes
from inev.planner.checks import check_fits
from inev.planner.combination_model import Combination
from inev.planner.inev_graph import Node, Plan, Vertex, pulled_types
from inev.planner.latency_model import plan_latency
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.planner.projections import Projection, make_projection, primitive_projection
from inev.planner.regions import plan_regions
from inev.planner.repair_search import Incremental, incremental_repair, replanned_increment
from inev.topologies.network import Network
from inev.workloads.instance import Instance, prepare_instance
from inev.workloads.workload import Workload

BASELINES = ("centralized", "isolated", "ppop", "ppop-flouris")
REPLAN_GAIN = 1.5
"""A re-plan is offered when the repair costs more than this many times the re-planned plan."""


CHOICES = ("repaired", "replanned", "best")
"""What :func:`repair_plan` writes (module docstring)."""


@dataclass(frozen=True)
class RepairResult:
    """Broken, locally repaired, repaired and re-planned plans, the one written, what was invalid.

    Parameters
    ----------
    broken, repaired, replanned, result, local, incremental, network
        The module docstring's plans (``local``, ``incremental``: None for baselines); the new network.
    harmful, invalid_multi_node : tuple of str
        What §6.6's rules found: harmful projections, multi-node ones whose Eq. 1 fails.
    written, why, cannot_run
        Which plan ``result`` is (``repaired``, ``incremental`` or ``replanned``) and why; why
        the old plan cannot run on the changed network, if so (:mod:`inev.planner.broken`).
    migration, seconds, affected
        What switching to the incremental plan moves (:func:`~.repair_search.migration_cost`);
        CPU seconds of ``replanned``, ``local`` and ``incremental`` (local repair included);
        the projections the changes touch (:func:`~.repair_search.affected_projections`).

    Examples
    --------
    >>> RepairResult.__dataclass_fields__["written"].default    # repair_plan has a real one
    'repaired'
    """

    broken: Plan
    repaired: Plan
    replanned: Plan
    result: Plan
    harmful: tuple[str, ...]
    invalid_multi_node: tuple[str, ...]
    network: Network
    local: Plan | None = None
    written: str = "repaired"
    cannot_run: tuple[str, ...] = ()
    incremental: Plan | None = None
    migration: dict[str, float] = field(default_factory=dict)
    why: str = ""
    seconds: dict[str, float] = field(default_factory=dict)
    affected: tuple[str, ...] = ()

    def summary(self) -> str:
        """The one line ``inev repair`` prints."""
        kept = f" ({self.repaired.kept})" if self.repaired.kept else ""
        offer = ""
        if self.written != "replanned" and self.result.psi > REPLAN_GAIN * self.replanned.psi:
            gain = self.result.psi / self.replanned.psi if self.replanned.psi > 0 else math.inf
            both = option('choose="replanned"', "replan") + " or " + option('choose="best"', "best")
            offer = f" re-planning_would_cost={1 / gain:.3g}x ({both})"
        broken = why_not(self.cannot_run) if self.cannot_run else f"{self.broken.psi:.6g}"
        incremental = ""
        if self.incremental is not None:
            moved = self.migration.get("projections_moved", 0.0)
            incremental = f" incremental={self.incremental.psi:.6g} moved={moved:g}"
        because = f" ({self.why})" if self.why else ""
        return (
            f"broken={broken} repaired={self.repaired.psi:.6g}{kept}{incremental} "
            f"replanned={self.replanned.psi:.6g} centralized={self.replanned.centralized_cost:.6g} "
            f"harmful={len(self.harmful)} invalid_multi_node={len(self.invalid_multi_node)} "
            f"written={self.written}{because}{offer}"
        )

    def __repr__(self) -> str:
        """A short text form: the costs the summary line gives (the dataclass's own would
        print four plans and the network)."""
        return (
            f"<RepairResult broken ψ {self.broken.psi:.6g}, repaired {self.repaired.psi:.6g}, "
            f"re-planned {self.replanned.psi:.6g} events / time unit; wrote {self.written}>"
        )

    def _repr_html_(self) -> str:
        """A notebook's view: each plan's ψ and ratio, and what was invalid."""
        from inev.common.display import table

        rows = [
            (name, f"{plan.psi:.6g}", f"{plan.ratio:.4g}", plan.kept or plan.method)
            for name, plan in (
                ("broken (the old plan after the changes)", self.broken),
                ("repaired", self.repaired),
                ("re-planned", self.replanned),
            )
        ]
        rows.append(("written", f"{self.result.psi:.6g}", f"{self.result.ratio:.4g}", self.written))
        return table(
            rows, ("plan", "ψ (events / time unit)", "ratio", "kept"), "repair (§6.6)"
        ) + table(
            [(", ".join(self.harmful) or "none", ", ".join(self.invalid_multi_node) or "none")],
            ("harmful changes", "invalid multi-node placements"),
        )


def rebuild_combination(plan: Plan, network: Network, workload: Workload) -> Combination:
    """The plan's combination with projections re-rated on ``network`` (the network the plan
    was planned on: each pattern variable a stream of its own)."""
    wl = workload.or_free
    glob = network.global_rates()
    projections: dict[str, Projection] = {}
    for key, info in plan.projections.items():
        if len(info.types) == 1 and info.pattern == info.types[0]:
            projections[key] = primitive_projection(info.types[0], glob[info.types[0]])
            continue
        if not info.queries:
            raise InevError(f"plan: projection {key!r} names no query")
        q = wl.query(info.queries[0])
        if set(info.types) == set(q.types):
            p = sink_projection(q, glob, wl.window)
        else:
            p = make_projection(q, info.types, glob, wl.window)
        projections[key] = replace(p, key=key)
    return Combination(
        projections=projections,
        inputs={k: tuple(v) for k, v in plan.combination.items()},
        multi_node=dict(plan.multi_node),
        sinks=dict(plan.sinks),
        regional=plan_regions(plan, network),
    )


def broken_plan(plan: Plan, network: Network, combination: Combination) -> Plan:
    """The old plan costed on the new network (vertices at lost nodes dropped)."""
    kept = [v for v in plan.vertices if v.node in network.node_index]
    vertices = []
    for v in kept:
        p = combination.projections[v.projection]
        if p.is_primitive:
            rate = network.rate_at(p.key, v.node)
        elif v.region:
            local = sum(network.rate_at(v.partition, n) for n in v.region)
            rate = partitioned_rate(network, p, v.partition, local, v.output)
        else:
            rate = send_rate(network, p, v.node, v.partition, v.output)
        vertices.append(replace(v, rate=rate, cost=len(v.forwarding) * rate))
    # the rates the plan records are the new network's: a kept plan is written with them, and
    # a later change applied to it (simulate --changes) checks them against the network
    local, glob = network.local_rates(), network.global_rates()
    type_rates = {t: (local[t], glob[t]) for t in plan.type_rates if t in local}
    projections = {
        key: replace(info, rate=combination.projections[key].rate)
        if key in combination.projections
        else info
        for key, info in plan.projections.items()
    }
    return replace(
        plan,
        method="broken",
        vertices=tuple(vertices),
        psi=sum(v.cost for v in vertices),
        type_rates=type_rates,
        projections=projections,
    )


def _priced(plan: Plan, new_net: Network, combination: Combination) -> tuple[Plan, tuple[str, ...]]:
    """The broken plan priced on ``new_net`` and why it cannot run: the vertices of
    ``plan`` at lost nodes (which :func:`broken_plan` drops before pricing, so
    :func:`~inev.planner.broken.priced_on` no longer sees them), then the pricing's reasons."""
    broken, reasons = priced_on(broken_plan(plan, new_net, combination), new_net)
    lost = tuple(lost_vertices(plan, new_net))
    return broken, lost + tuple(r for r in reasons if r not in lost)


def _sinks_run(broken: Plan, plan: Plan) -> bool:
    """Whether every query's sink of ``plan`` still has a vertex in ``broken``."""
    present = {v.projection for v in broken.vertices}
    return all(key in present for key in plan.sinks.values())


def _rerouted_candidate(
    plan: Plan,
    new_net: Network,
    combination: Combination,
    options: PlanOptions | None,
    figures: dict[str, Any],
) -> Plan:
    """The old plan re-routed around the lost links and nodes (:func:`~.broken.rerouted`),
    with its latency on ``new_net``, as a repair candidate kept as ``old``."""
    again = rerouted(broken_plan(plan, new_net, combination), new_net)
    latency = plan_latency(
        again.vertices,
        combination.projections,
        combination.inputs,
        combination.sinks.values(),
        new_net.global_rates(),
        replanned_xi(options),
    )
    note = "the old plan re-routed around the lost links and nodes"
    return replace(again, method=plan.method, kept="old", latency=latency, notes=(note,), **figures)


def _harmful(combination: Combination) -> tuple[Combination, list[str]]:
    """Remove harmful projections (R(p) > Σ R(inputs)), consumers taking their inputs."""
    inputs = {k: list(v) for k, v in combination.inputs.items()}
    sinks = set(combination.sinks.values())
    removed: list[str] = []
    changed = True
    while changed:
        changed = False
        for key in list(inputs):
            if key in sinks:
                continue
            p = combination.projections[key]
            total = sum(combination.projections[i].rate for i in inputs[key])
            if p.rate > total:
                removed.append(key)
                replacement = inputs.pop(key)
                for other, ins in inputs.items():
                    if key in ins:
                        merged = [i for i in ins if i != key]
                        merged += [i for i in replacement if i not in merged]
                        inputs[other] = merged
                changed = True
                break
    keep = {k: v for k, v in combination.projections.items() if k not in removed}
    multi = {k: v for k, v in combination.multi_node.items() if k not in removed}
    regional = {k: v for k, v in combination.regional.items() if k not in removed}
    result = Combination(
        keep, {k: tuple(v) for k, v in inputs.items()}, multi, combination.sinks, {}, regional
    )
    return result.used(), removed


def _eq1_fails(network: Network, combination: Combination) -> list[str]:
    delta = network.mean_hops
    glob = network.global_rates()
    sinks = set(combination.sinks.values())
    out = []
    for key, part in combination.multi_node.items():
        if key in combination.regional:  # §6.6 has no rule for regional placements: kept
            continue
        others = sum(combination.projections[i].rate for i in combination.inputs[key] if i != part)
        rhs = multi_node_hops(network, part) * others
        if key not in sinks:
            rhs += combination.projections[key].rate * delta
        if not glob[part] * delta > rhs:
            out.append(key)
    return out


def _nodes_of(plan: Plan) -> dict[str, Node]:
    out = {}
    for v in plan.vertices:
        if v.inputs and v.partition is None:
            out[v.projection] = v.node
    return out


def _reuse_forwarding(
    old: Plan, new_vertices: Sequence[Vertex], network: Network
) -> tuple[list[Vertex], int]:
    previous = {(v.projection, v.node): v for v in old.vertices}
    out, recomputed = [], 0
    for v in new_vertices:
        before = previous.get((v.projection, v.node))
        if (
            before is not None
            and before.output == v.output
            and set(v.destinations) <= before.graph_nodes
            and all(network.graph.has_edge(a, b) for a, b in before.forwarding)
            and set(before.destinations) == set(v.destinations)
        ):
            out.append(
                replace(
                    v,
                    forwarding=before.forwarding,
                    hops=before.hops,
                    tree=None,
                    cost=len(before.forwarding) * v.rate,
                )
            )
        else:
            recomputed += bool(v.forwarding)
            out.append(v)
    return out, recomputed


def repair_plan(
    plan: Plan,
    network: Network,
    workload: Workload,
    changes: Sequence[Mapping[str, Any]],
    options: PlanOptions | None = None,
    replan: bool = False,
    choose: str | None = None,
    incremental: bool = True,
    migration_horizon: float | None = None,
) -> RepairResult:
    """Repair ``plan`` for ``changes`` (see the module docstring).

    Parameters
    ----------
    plan, network, workload, changes
        The plan, what it was made for, and ``inev-changes/1`` entries (times ignored).
    options, choose, replan, incremental, migration_horizon
        Planning options; the plan written (``repaired``, ``replanned`` or ``best``;
        ``replan=True``: ``replanned``); False leaves the incremental repair out; the
        horizon weighs its migration in (:mod:`inev.planner.repair_search`).

    Returns
    -------
    RepairResult

    Examples
    --------
    On the ring 0 - 1 - 2 - 3 - 0, B (0.2) at node 1 reaches the A sources 0 and 2 over a link
    each. Without 1 - 2 the old trees cost 0.2 · 4 hops, the repair's 1 - 0 - 3 - 2 three:

    >>> from inev.workloads.workload import Query
    >>> net = Network.build(range(4), [(0, 1), (1, 2), (2, 3), (3, 0)],
    ...                     {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(B, A)")])
    >>> r = repair_plan(plan_workload(net, wl), net, wl, [{"kind": "link-down", "link": [1, 2]}])
    >>> round(r.broken.psi, 9), round(r.result.psi, 9), r.written
    (0.8, 0.6, 'repaired')
    """
    choose = choose or ("replanned" if replan else "repaired")
    if choose not in CHOICES:
        raise InevError(f"repair: unknown choice {choose!r} (use one of {', '.join(CHOICES)})")
    before = prepare_instance(network, workload)
    check_fits(plan, before.planning_network)
    changed = apply_changes(network, changes)
    # A pattern variable is a stream of its own in the plan, with its type's sources and
    # rates: the changes apply to the types, and each variable follows its type.
    after = Instance(changed, before.workload)
    new_net = after.planning_network
    if plan.method in BASELINES or plan.kept == "ppop":
        return _replan_baseline(plan, after, workload, options)
    topology = any(c.get("kind") in ("link-down", "link-up", "node-down") for c in changes)
    combination = rebuild_combination(plan, new_net, workload)
    clock = time.process_time()
    replanned = plan_workload(changed, workload, options=options)
    seconds = {"replanned": time.process_time() - clock}
    # plan_workload checked ``after.workload`` on ``changed``: what follows plans it again
    clock = time.process_time()
    figures = {
        "centralized_cost": replanned.centralized_cost,
        "centralized_node": replanned.centralized_node,
        "centralized_latency": replanned.centralized_latency,
        "lower_bound": replanned.lower_bound,
    }
    local, harmful, invalid = _local_repair(plan, new_net, combination, topology)
    local = replace(local, kept="local", **figures)
    broken, cannot_run = _priced(plan, new_net, combination)
    broken = replace(broken, **figures)
    candidates = [local]
    if not topology:  # the old plan still evaluates the workload correctly
        candidates.append(replace(broken, method=plan.method, kept="old", notes=local.notes))
    elif not cannot_run and _sinks_run(broken, plan):
        # the old plan re-routed as the network routes it: often cheaper than the local repair
        candidates.append(_rerouted_candidate(plan, new_net, combination, options, figures))
    central = centralized_plan(new_net, after.workload, replanned_xi(options))
    candidates.append(replace(central, method=plan.method, kept="centralized", **figures))
    chosen = min(candidates, key=lambda c: c.psi)  # first among equals: local, old, centralized
    if chosen.kept != "local":
        chosen = replace(
            chosen, notes=(*chosen.notes, f"repair kept the {chosen.kept} plan: the cheapest")
        )
    seconds["local"] = time.process_time() - clock
    found = None
    if incremental:
        setting = (before.planning_network, after, workload)
        found = _incremental(plan, chosen, candidates, combination, setting, options,
                             central, migration_horizon, replanned)  # fmt: skip
        again = seconds["replanned"] if found.replanned else 0.0  # it re-planned (repair_search)
        seconds["incremental"] = time.process_time() - clock + again  # local repair included
    better = found is not None and found.plan is not chosen
    increment = replace(found.plan, method=plan.method, **figures) if better else chosen
    written, result, why = _written(choose, chosen, increment if found else None, replanned)
    return RepairResult(
        broken=broken,
        repaired=chosen,
        replanned=replanned,
        result=result,
        harmful=tuple(harmful),
        invalid_multi_node=tuple(invalid),
        network=changed,
        local=local,
        written=written,
        cannot_run=cannot_run,
        incremental=increment if found else None,
        migration=found.migration if found else {},
        why=why,
        seconds=seconds,
        affected=found.affected if found else (),
    )


def _incremental(
    plan: Plan,
    chosen: Plan,
    candidates: Sequence[Plan],
    combination: Combination,
    setting: tuple[Network, Instance, Workload],
    options: PlanOptions | None,
    central: Plan,
    horizon: float | None,
    replanned: Plan,
) -> Incremental:
    """The incremental repair from the repaired plan ``chosen`` and the other candidates
    (the cheaper of ``replanned`` and ``chosen`` when the change is most of the instance);
    ``setting``: the network before (variables as streams), the prepared instance after the
    changes, and the workload as given."""
    before, after, workload = setting
    new_net = after.planning_network
    found = replanned_increment(plan, replanned, chosen, (before, new_net, after.workload), horizon)
    if found is not None:  # the change is most of the instance
        return found
    starts = [chosen, *(c for c in candidates if c.kept != chosen.kept)]
    rated = [combination if c.kept == "old" else rebuild_combination(c, new_net, workload)
             for c in starts]  # fmt: skip
    return incremental_repair(plan, list(zip(starts, rated, strict=True)), before, new_net,
                              after.workload, options or PlanOptions(), central, horizon)  # fmt: skip


def _written(
    choose: str, repaired: Plan, incremental: Plan | None, replanned: Plan
) -> tuple[str, Plan, str]:
    """The plan written for ``choose``: its name, the plan, and why (module docstring)."""
    if choose == "repaired":
        return "repaired", repaired, "the default: -o is the repaired plan"
    if choose == "replanned":
        return "replanned", replanned, "asked for: " + option('choose="replanned"', "replan")
    named = [("repaired", repaired), ("incremental", incremental), ("replanned", replanned)]
    offered = [(name, p) for name, p in named if p is not None]
    name, best = min(offered, key=lambda item: item[1].psi)  # first among equals
    costs = ", ".join(f"{n} {p.psi:.6g}" for n, p in offered)
    return name, best, option('choose="best"', "best") + f": the cheapest of {costs}"


def _local_repair(
    plan: Plan, new_net: Network, combination: Combination, topology: bool
) -> tuple[Plan, list[str], list[str]]:
    """§6.6's local repair of ``plan`` on ``new_net``: the plan (with notes), the harmful
    projections dropped and the multi-node projections that Eq. 1 sends to their fall-back
    node (both empty after a topology change, where only placements and trees move)."""
    pinned = {k: n for k, n in _nodes_of(plan).items() if n in new_net.node_index}
    notes: list[str] = []
    harmful: list[str] = []
    invalid: list[str] = []
    if not topology:
        combination, harmful = _harmful(combination)
        invalid = _eq1_fails(new_net, combination)
        for key in invalid:
            node = plan.fallback.get(key)
            if node is not None and node in new_net.node_index:
                pinned[key] = node
        combination = replace(
            combination,
            multi_node={k: v for k, v in combination.multi_node.items() if k not in invalid},
            regional={k: v for k, v in combination.regional.items() if k not in invalid},
        )
        notes += [f"harmful projection {k}: its consumers take its inputs" for k in harmful]
        notes += [
            f"Eq. 1 fails for {k}: switched to fall-back node {pinned.get(k)}" for k in invalid
        ]
    placement = place(new_net, combination, pinned=pinned)
    repaired = build_plan(new_net, combination, placement, plan.method)
    if topology:
        vertices, recomputed = _reuse_forwarding(plan, repaired.vertices, new_net)
        repaired = replace(repaired, vertices=tuple(vertices), psi=sum(v.cost for v in vertices))
        notes.append(f"recomputed {recomputed} forwarding graphs")
    return replace(repaired, notes=tuple(notes)), harmful, invalid


def replanned_xi(options: PlanOptions | None) -> float:
    """ξ of the options (the default without options)."""
    return (options or PlanOptions()).xi


def _replan_baseline(
    plan: Plan, after: Instance, workload: Workload, options: PlanOptions | None
) -> RepairResult:
    """A baseline plan after changes: re-planned with its own method (module docstring);
    ``after`` is the prepared instance of the changed network and ``workload`` as given."""
    new_net = after.network
    replanned = plan_workload(new_net, workload, plan.method, options)
    streams_net = after.planning_network
    if plan.method in ("ppop", "ppop-flouris") or plan.kept == "ppop":
        model = "flouris" if plan.method == "ppop-flouris" else "ppop"
        wl = after.workload
        pulls = pulled_types(plan)
        psi = 0.0
        for name, key in plan.sinks.items():
            sink = next(v for v in plan.vertices if v.projection == key)
            if sink.node not in new_net.node_index:
                continue
            order = plan.combination[key]
            pulled = set(pulls.get(name, ()))
            pushed = sum(1 for e in order if e not in pulled)
            psi += push_pull_cost(
                streams_net, wl.query(name), sink.node, order, pushed, wl.window, model
            )
        broken = replace(plan, method="broken", psi=psi)
        # push-pull costs are hop distances on the changed network (its paths, not detours)
        cannot_run = tuple(lost_vertices(plan, streams_net))
    else:
        combination = rebuild_combination(plan, streams_net, workload)
        broken, cannot_run = _priced(plan, streams_net, combination)
    result = replace(
        replanned, notes=(*replanned.notes, f"{plan.method} re-planned on the changed network")
    )
    return RepairResult(
        broken=broken,
        repaired=result,
        replanned=replanned,
        result=result,
        harmful=(),
        invalid_multi_node=(),
        network=new_net,
        local=result,
        written="replanned",
        cannot_run=cannot_run,
        why=f"a {plan.method} plan is re-planned with its own method",
    )
