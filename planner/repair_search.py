"""Incremental repair (issue 44, beyond the INEv paper's §6.6): keep what still works,
re-plan what the change touches, searched from the repaired plan.

§6.6 repairs locally (harmful projections dropped, failing multi-node placements sent to
their fall-back node, every other placement kept); re-planning starts from nothing. Between
them nothing was searched. :func:`incremental_repair` searches from the repair:

1. **Start.** The candidate plans the repair offers (§6.6's local repair, the old plan
   where it still runs: after a topology change re-routed as the network routes it,
   :func:`~inev.planner.broken.rerouted`; the centralized plan) are translated into designs of the planner's
   local search (:class:`~inev.planner.improve.Design`): each composite projection with the
   inputs and partitioning it has in that plan, each single-node projection *pinned* to its
   node (so that Alg. 2 places it where it is: what still works stays), its regional
   placement kept. Each is searched from (step 3).
2. **Options.** Alg. 1 (§6.3) runs over the planner's query orders on the changed network
   (:func:`~inev.planner.paper_designs.paper_designs`), so that the search's *switch* and
   *merge* moves know the options and projections the new rates or topology make worth
   having; its designs are not starts of step 3 (only the cheapest is, step 4).
3. **Restricted, then widened.** The local search (:func:`~inev.planner.improve.improve`,
   every move of :mod:`inev.planner.improve`) runs three times: with moves of the
   *affected* projections only (:func:`affected_projections`), then of those and their
   inputs and consumers in the design reached, then of every projection. Each phase has
   the budget of a local search of the planner over the projections it may move
   (:data:`BASE` + :data:`PER_PROJECTION` a projection, times ``effort``).
4. **Restart.** The cheapest of Alg. 1's designs (step 2) is searched from too, with every
   move (the re-plan's first start, without its other starts and passes): after a node
   failure that touches most projections, keeping the old structure is not always worth it.
5. **Regions.** The planner's regional pass (:func:`inev.planner.regional.regionalise`,
   the types :func:`~inev.planner.regional.types_to_try` names on the changed network)
   runs from the best design, then phases 2 and 3 from what it reaches: a lost node takes
   regional sites and sources with it, and the re-plan's regional placements were most of
   what the search above missed.
6. **Never worse.** The best design is written out (Alg. 2, as the planner does) and
   compared with the repaired plan: the incremental repair is the cheaper (so it never
   costs more than §6.6's local repair or the repair's fallbacks).

**When the change is most of the instance, it re-plans** (:func:`replans`): if at least
:data:`REPLAN_SHARE` of the event types the workload reads changed their rate, the
incremental repair is the cheaper of the re-plan and the repaired plan
(:func:`replanned_increment`), and its time is the re-plan's. The steps above keep the old
structure and reach the re-plan's designs only through its rate kicks, which cost more than
re-planning: ``benchmarks/bench_incremental_repair.py --seeds 50 --networks 0 --only fig``
(Fig. 9b/9d-like swaps, 50 seeds at every share, 1,000 cases) gave 91.9 % within 5 % of
the re-plan (9b 93.8 %, 9d 90.0 %; 78-84 % at shares 0.7-1.0), none above the local repair,
median CPU-time ratio 0.128; the planner's last passes run from the incremental design
closed 14 of 15 misses tried, the rate kicks alone 7 of 7, at 0.95-1.55 times the re-plan's
time, kicks limited to the first 2 or 4 none or one. Over the same 1,000 cases the rule at
0.7 re-plans 312 (31 %) and leaves 29 misses (97.1 % within 5 %, median ratio 0.145 with a
re-plan counted as 1 + the local repair's ratio); at 0.6, 436 and 98.8 %, 0.180. The share
was chosen on those cases (see the benchmark's ``--first-seed`` for others). A topology
change alone changes no rate unless a node-down takes a type's sources with it.

Tried and left out (``benchmarks/bench_incremental_repair.py --seeds 0 --networks 2 --only
"node-down (30"``, 28 cases): seeded kicks (2 random projections of the widened focus
switched to another of Alg. 1's options, then phases 2 and 3, up to 6 kicks, stopping after
2 that lower nothing) raised the CPU-time ratio from 0.088 to 0.136 and brought no case
within 5 % (so there are none); unpinning the unaffected projections changed nothing. With
step 5, 24 of the 28 (85.7 %) are within 5 %, with steps 4 and 5 26 (92.9 %), at a CPU-time
ratio of 0.101. Nothing in the search is random: the same inputs give the same plan.

**Migration** (:func:`migration_cost`), reported beside ψ: ``projections_moved``, the
composite projections of the new plan that are new or have a vertex where the old plan had
none of theirs (another node, another partitioning; a projection that only lost vertices
with their nodes has nothing to hand over); ``vertices_moved``, those vertices; and ``partial_matches_shipped``, *an
estimate from the model, not a measurement*: a moved projection's state is what a window
of its inputs holds, so Σ over moved projections of Σ over their inputs of R(input) × the
window (the events and partial matches a switch hands over to the new placement); and
``migration_messages``, those shipped over δ links each (the network's mean hop
distance). With a ``horizon`` T (``inev repair --migration-horizon T``) the migration is
weighed in: plans are compared by ψ + migration_messages / T (a switch's one-off messages
spread over the T time units the plan will run), among the plans the searches reach and
the repaired plan.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from inev.planner import regional
from inev.planner.alg1_combination import Choice
from inev.planner.alg2_placement import place
from inev.planner.assemble import build_plan
from inev.planner.broken import touched
from inev.planner.combination_model import Combination
from inev.planner.improve import Budget, Design, Evaluator, improve
from inev.planner.inev_graph import Node, Plan
from inev.planner.options import PlanOptions
from inev.planner.paper_designs import Space, paper_designs
from inev.topologies.network import Network
from inev.workloads.workload import Workload

BASE = 60
"""Evaluations of a phase at effort 1, plus :data:`PER_PROJECTION` per projection it may move
(the planner's local search budget, :data:`inev.planner.search_budget.EVALUATIONS`)."""
PER_PROJECTION = 12
RESTART = True
"""Whether the search also restarts from the cheapest of Alg. 1's designs on the changed
network (step 5 of the module docstring)."""
REGIONAL = True
"""Whether the planner's regional pass runs from the best design (step 6), where the plan's
options allow regional placements (``PlanOptions(regional=False)`` leaves it out, as it does
in the planner)."""
REPLAN_SHARE = 0.7
"""The share of the workload's event types with a changed rate from which the incremental
repair re-plans (module docstring)."""
WORK = 400_000
"""A phase places at most this many vertices in all (evaluations times the plan's vertices),
as the planner's local search (:data:`inev.planner.search_budget.WORK`)."""


@dataclass(frozen=True)
class Incremental:
    """The incremental repair: its plan, the migration from the old plan, the projections
    the change affected and ψ reached from each start (the cheapest first)."""

    plan: Plan
    migration: dict[str, float]
    affected: tuple[str, ...]
    phases: tuple[float, ...]
    replanned: bool = False
    """Whether it is the re-plan (:func:`replanned_increment`)."""


def affected_projections(plan: Plan, before: Network, after: Network) -> frozenset[str]:
    """The composite projections of ``plan`` that a change from ``before`` to ``after``
    touches: those over an event type whose rate changed, those with a vertex at a lost
    node or a forwarding graph over a lost link or node, and the consumers of a projection
    (or event type) whose vertices are touched so.

    >>> from inev.planner.inev_graph import Vertex
    >>> net = Network.build(range(3), [(0, 1), (1, 2), (0, 2)], {"A": (1.0, [0]), "B": (1.0, [2])})
    >>> a = Vertex(0, "A", 0, forwarding=((0, 1), (1, 2)), destinations=(2,))
    >>> sink = Vertex(1, "SEQ(A, B)", 2, inputs=(0,))
    >>> plan = Plan("inev", (a, sink), {}, {"SEQ(A, B)": ("A", "B")}, {}, {}, {})
    >>> sorted(affected_projections(plan, net, net.without(links=[(0, 1)])))
    ['SEQ(A, B)']
    >>> sorted(affected_projections(plan, net, net.without(links=[(0, 2)])))
    []
    """
    old, new = before.global_rates(), after.global_rates()
    changed = {t for t in old if t in new and not math.isclose(old[t], new[t], rel_tol=1e-12)}
    out = set()
    consumers: dict[str, set[str]] = {}
    for key, ins in plan.combination.items():
        for i in ins:
            consumers.setdefault(i, set()).add(key)
        info = plan.projections.get(key)
        if info is not None and changed & set(info.types):
            out.add(key)
    index = after.node_index
    for v in plan.vertices:
        if v.node not in index or touched(v, after):
            if v.inputs:
                out.add(v.projection)
            out |= consumers.get(v.projection, set())
    return frozenset(out)


def migration_cost(old: Plan, new: Plan, network: Network, window: float) -> dict[str, float]:
    """What a switch from ``old`` to ``new`` moves (module docstring), on ``network`` (the
    changed one, whose rates price the inputs; ``window`` the workload's).

    >>> from inev.planner.inev_graph import Vertex
    >>> net = Network.build(range(2), [(0, 1)], {"A": (2.0, [0]), "B": (3.0, [1])})
    >>> def plan(node):
    ...     sink = Vertex(2, "SEQ(A, B)", node, inputs=(0, 1))
    ...     return Plan("inev", (sink,), {}, {"SEQ(A, B)": ("A", "B")}, {}, {}, {})
    >>> migration_cost(plan(0), plan(1), net, 1.0)  # A's and B's window: 2 + 3 items, 1 hop
    {'projections_moved': 1.0, 'vertices_moved': 1.0, 'partial_matches_shipped': 5.0, 'migration_messages': 5.0}
    >>> migration_cost(plan(0), plan(0), net, 1.0)["projections_moved"]
    0.0
    """
    rates = dict(network.global_rates())
    rates.update({k: info.rate for k, info in new.projections.items() if k not in rates})
    moved = vertices = 0
    shipped = 0.0
    for key, ins in new.combination.items():
        now = {(v.node, v.partition) for v in new.vertices_of(key)}
        before = {(v.node, v.partition) for v in old.vertices_of(key)}
        if not now - before and old.combination.get(key) is not None:
            continue  # in place, or only lost vertices: nothing to hand over
        moved += 1
        vertices += len(now - before)
        shipped += sum(rates.get(i, 0.0) for i in ins) * window
    return {
        "projections_moved": float(moved),
        "vertices_moved": float(vertices),
        "partial_matches_shipped": shipped,
        "migration_messages": shipped * network.mean_hops,
    }


def weighed(plan: Plan, migration: Mapping[str, float], horizon: float | None) -> float:
    """ψ, plus the migration's messages spread over ``horizon`` time units when one is given.

    >>> p = Plan("inev", (), {}, {}, {}, {}, {}, psi=10.0)
    >>> weighed(p, {"migration_messages": 50.0}, None), weighed(p, {"migration_messages": 50.0}, 5.0)
    (10.0, 20.0)
    """
    if not horizon:
        return plan.psi
    return plan.psi + migration.get("migration_messages", 0.0) / horizon


def to_design(plan: Plan, combination: Combination, space: Space, strip: bool = True) -> Design:
    """``plan`` (with ``combination``, its projections rated on the changed network) as a
    design in ``space``: its inputs and partitions, its single-node projections pinned to
    their nodes, its regions; every other projection of the space at Alg. 1's first option.
    With ``strip`` an event type input that another input of the same consumer covers (the
    extension of line 7 of Alg. 2 for an output selector) is left out: Alg. 2 adds it again
    where a selector pays. A plan key that means another projection in the space (other
    predicates) is renamed ``"<key> @repair"``."""
    rename = {}
    for key, p in combination.projections.items():
        known = space.pool.get(key)
        if known is not None and known.predicates != p.predicates:
            rename[key] = f"{key} @repair"
            space.pool[rename[key]] = replace(p, key=rename[key])
        elif known is None:
            space.pool[key] = p
    choices: dict[str, Choice] = {k: found[0] for k, found in space.options.items()}
    choices.update({k: Choice(k, (), None, {}, 0.0) for k, p in space.pool.items()
                    if p.is_primitive})  # fmt: skip
    for key, ins in combination.inputs.items():
        part = combination.multi_node.get(key)
        inputs = [rename.get(i, i) for i in ins]
        if strip:
            inputs = _stripped(inputs, part, space)
        new = rename.get(key, key)
        choices[new] = Choice(new, tuple(inputs), part, {}, 0.0, cost=math.nan)
    pinned: dict[str, Node] = {}
    for v in plan.vertices:
        if v.inputs and v.partition is None and v.projection in combination.projections:
            pinned[rename.get(v.projection, v.projection)] = v.node
    sinks = {q: rename.get(k, k) for q, k in combination.sinks.items()}
    regional = {rename.get(k, k): r for k, r in combination.regional.items()}
    return Design(choices, sinks, pinned, frozenset(), regional)


def _stripped(inputs: list[str], part: str | None, space: Space) -> list[str]:
    """``inputs`` without event types another (composite) input covers (see
    :func:`to_design`); the partitioning type stays."""
    pool = space.pool
    covered = {t for i in inputs if not pool[i].is_primitive for t in pool[i].types}
    return [i for i in inputs if not (pool[i].is_primitive and i != part and i in covered)]


def incremental_repair(
    old: Plan,
    starts: Sequence[tuple[Plan, Combination]],
    before: Network,
    after: Network,
    wl: Workload,
    options: PlanOptions,
    central: Plan,
    horizon: float | None = None,
) -> Incremental:
    """The incremental repair of ``old`` (module docstring) on ``after`` (the changed
    network, pattern variables as streams; ``before`` the one ``old`` was made for), from
    ``starts`` (the repair's candidates, each with its combination rated on ``after``, the
    first the one to beat); ``wl`` is the OR-free workload, ``central`` the centralized plan
    of ``after``."""
    affected = affected_projections(old, before, after)
    space = Space()
    tau = options.tau(central.latency)
    fresh = paper_designs(after, wl, tau, options, central.centralized_node, space)
    evaluate = Evaluator(after, space.pool)
    phases: list[float] = []
    found: list[Design] = []
    for plan, comb in starts:
        variants = [to_design(plan, comb, space, strip) for strip in (True, False)]
        design = min((evaluate(d), i, evaluate.variant(d)) for i, d in enumerate(variants))[2]
        if any(design.signature() == d.signature() for d in found):
            continue
        design, cost = _phases(evaluate, space, design, affected, options)
        phases.append(cost)
        found.append(design)
    order = sorted(range(len(found)), key=lambda i: phases[i])
    found, phases = [found[i] for i in order], [phases[i] for i in order]  # cheapest first
    if RESTART and fresh:
        start = min((evaluate(d), i, evaluate.variant(d)) for i, d in enumerate(fresh))[2]
        design, cost = _phases(evaluate, space, start, affected, options, (2,))
        if cost < phases[0] * (1 - 1e-9):
            found.insert(0, design)
            phases.insert(0, cost)
    if REGIONAL and options.regional:
        design, cost = _regional(evaluate, space, (found[0], phases[0]), affected, options,
                                 central)  # fmt: skip
        if cost < phases[0] * (1 - 1e-9):
            found.insert(0, design)
            phases.insert(0, cost)
    written = _written(after, space, found if horizon else found[:1], options)
    best = starts[0][0]
    best_migration = migration_cost(old, best, after, wl.window)
    for plan in written:
        migration = migration_cost(old, plan, after, wl.window)
        if weighed(plan, migration, horizon) < weighed(best, best_migration, horizon) * (1 - 1e-12):
            best, best_migration = plan, migration
    return Incremental(best, best_migration, tuple(sorted(affected)), tuple(phases))


def replans(before: Network, after: Network, wl: Workload) -> tuple[int, int]:
    """How many of the event types ``wl`` reads changed their rate from ``before`` to
    ``after``, and how many it reads (every type of ``before`` when it reads none);
    :func:`replanned_increment` applies from a share of :data:`REPLAN_SHARE`.

    >>> from inev.workloads.workload import Query
    >>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0]), "B": (2.0, [1]), "C": (1.0, [1])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
    >>> replans(net, net.with_rates({"A": 2.0, "B": 1.0}), wl)
    (2, 2)
    >>> replans(net, net.with_rates({"C": 5.0}), wl)
    (0, 2)
    """
    old, new = before.global_rates(), after.global_rates()
    read = {q.streams.get(leaf, leaf) for q in wl.queries for leaf in q.types}
    used = [t for t in before.types if t in read] or list(before.types)
    changed = [t for t in used if not math.isclose(old[t], new.get(t, 0.0), rel_tol=1e-12)]
    return len(changed), len(used)


def replanned_increment(
    old: Plan,
    replanned: Plan,
    repaired: Plan,
    setting: tuple[Network, Network, Workload],
    horizon: float | None = None,
) -> Incremental | None:
    """The incremental repair when the change is most of the instance (:func:`replans`):
    the cheaper of ``replanned`` and ``repaired`` (ψ, the migration weighed in when
    ``horizon`` is given), with the migration from ``old``; None when the change is not.
    ``setting``: the networks before and after the change (pattern variables as streams)
    and the OR-free workload."""
    before, after, wl = setting
    changed, used = replans(before, after, wl)
    if changed < REPLAN_SHARE * used:
        return None
    why = (f"incremental repair re-planned: {changed} of the {used} event types read changed "
           f"rate (from {REPLAN_SHARE:.0%} on)")  # fmt: skip
    plans = [repaired, replace(replanned, kept="incremental", notes=(*replanned.notes, why))]
    moves = [migration_cost(old, p, after, wl.window) for p in plans]
    best = min(range(2), key=lambda i: (weighed(plans[i], moves[i], horizon), i))
    affected = affected_projections(old, before, after)
    return Incremental(plans[best], moves[best], tuple(sorted(affected)), (plans[best].psi,), True)


def _phases(
    evaluate: Evaluator,
    space: Space,
    design: Design,
    affected: frozenset[str],
    options: PlanOptions,
    steps: tuple[int, ...] = (0, 1, 2),
) -> tuple[Design, float]:
    """The local search from ``design``: moves of the ``affected`` projections, then of
    those and their inputs and consumers, then of all (module docstring); ``steps`` the
    phases run (0, 1, 2)."""
    focus: frozenset[str] | None = affected
    cost = evaluate(design)
    for phase in steps:
        if phase == 0:
            focus = affected
        if phase == 1:
            focus = _widened(design, affected)
        elif phase == 2:
            focus = None
        budget = Budget(_evaluations(design, focus, options, evaluate.network, evaluate))
        design, cost = improve(evaluate, space.options, design, budget, focus=focus)
    return design, cost


def _regional(
    evaluate: Evaluator,
    space: Space,
    found: tuple[Design, float],
    affected: frozenset[str],
    options: PlanOptions,
    central: Plan,
) -> tuple[Design, float]:
    """The planner's regional pass (:func:`inev.planner.regional.regionalise`, the types
    it tries on the changed network) from the best design, then phases 1 and 2 from what
    it reaches; the best design when nothing is cheaper."""
    design, cost = found
    types = regional.types_to_try(evaluate.network, design, central)
    budget = Budget(math.ceil(options.effort * regional.PLACED * len(types)))
    moved, value = regional.regionalise(evaluate.network, evaluate, design, cost, types, budget,
                                        searched=False, effort=options.effort)  # fmt: skip
    if moved is design:
        return found
    better, lower = _phases(evaluate, space, moved, affected, options, (1, 2))
    return (better, lower) if lower < value else (moved, value)


def _widened(design: Design, focus: frozenset[str]) -> frozenset[str]:
    """``focus`` with the inputs and consumers of its projections in ``design``."""
    out = set(focus)
    for key in design.reached():
        ins = design.choices[key].inputs
        if key in focus:
            out.update(ins)
        elif focus & set(ins):
            out.add(key)
    return frozenset(out)


def _evaluations(
    design: Design,
    focus: frozenset[str] | None,
    options: PlanOptions,
    network: Network,
    evaluate: Evaluator,
) -> int:
    """A phase's budget: the planner's local search budget over the projections it moves."""
    keys = [k for k in design.reached() if not evaluate.pool[k].is_primitive]
    moving = len(keys) if focus is None else len(focus & set(keys))
    combination = design.combination(evaluate.pool)
    vertices = sum(len(network.sources(k)) for k in design.reached() if k not in combination.inputs)
    vertices += sum(
        len(network.sources(combination.multi_node[k])) if k in combination.multi_node else 1
        for k in keys
    )
    count = min(BASE + PER_PROJECTION * moving, WORK // max(vertices, 1))
    return int(options.effort * max(count, 10)) if moving else 0


def _written(
    network: Network, space: Space, designs: Sequence[Design], options: PlanOptions
) -> list[Plan]:
    """The distinct designs written out as plans (Alg. 2, as the planner writes its own)."""
    seen: set[tuple] = set()
    out = []
    for design in designs:
        if design.signature() in seen:
            continue
        seen.add(design.signature())
        combination = design.combination(space.pool)
        placement = place(network, combination, design.pinned, frozenset(design.keep_matches))
        plan = build_plan(network, combination, placement, "inev", options.xi)
        out.append(replace(plan, kept="incremental"))
    return out
