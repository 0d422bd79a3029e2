"""Where Fig. 10a's sharing ratio is lost. Run: python benchmarks/bench_sharing.py

For the fig10a preset's instances (``experiments/presets/fig10a.toml``: 20 nodes, 10 types,
queries of length 5; ``--length``/``--min-length`` draw lengths as the INEv authors'
``generate_qwls_incremental.py`` does, 3-6) it plans the workload jointly (``inev``) and each
query alone (``isolated``, one plan per query) and prints, per seed and query count:

* ``ratio``: ψ(inev) / Σ_q ψ(q alone), the preset's ``sharing_ratio``;
* ``vs merged``: ψ(inev) over the INEv authors' sharing-agnostic cost (their
  ``mergedcosts.py``: the per-query plans' routes of one instance, the same event type at the
  same source or the same projection at the same node, are merged, so a stream two queries'
  plans send over one link is paid once), a smaller denominator than ours;
* what ψ(inev) is made of: raw events, selected events (output selectors), matches;
* three upper bounds on what sharing *single-event* streams could still save in the joint
  plan, all in the paper's rate model (selection by independent Poisson participation,
  :func:`inev.planner.cost_model.participation`): the selected-event streams of one type
  sent from one node over a link counted once (their union; a consumer re-evaluates its
  projection over a superset correctly), the same across nodes, and additionally every
  selected event whose source's raw stream already crosses the link counted as free;
* ``floor``: max over sets S of queries with pairwise disjoint event types of
  Σ_{q∈S} ψ(q alone), over Σ_q ψ(q alone). The vertices a query's sink needs in any joint
  plan form a plan of that query alone (pruning forwarding graphs to its consumers only
  lowers their cost), and those of two queries without a common type are disjoint (every
  projection a query needs is over its own types), so no joint plan costs less than
  Σ_{q∈S} ψ*(q): when the per-query plans are optimal (``bench_optimality.py`` finds them
  within 5 % on small instances; here that is an assumption) no plan's sharing ratio is below
  the floor. ``provable``: the same with the provable lower bound of each query alone
  (:mod:`inev.planner.lower_bound`) instead of ψ, a floor with no assumption.

Options: ``--queries 5 10 20``, ``--seeds N`` (first N seeds of the preset), ``--effort E``,
``--length L --min-length M``.

``--authors`` measures instead the one like-for-like quantity of the authors' Fig. 10a (their
``REPRO_multiquery``: ``scripts/multi-query20.sh``, ``mq20``'s ``mergedcosts.py`` and
``res/plot_multi_query.py``), as they computed it:

* their "20-query" runs plan **15** queries (``generate_qwls_incremental.py 6 15 $k``), of 3
  to 6 types, on networks of 20 nodes, node ratio 0.6 and 10 types, at skews 1.1, 1.3, 1.5
  and 1.7 (here ``--seeds`` networks per skew, one workload each);
* the workload grows one query at a time and each prefix is planned jointly; the
  sharing-agnostic cost merges the routes of *every prefix's* plan (``partialInev``), so it
  contains the routes of the whole workload's joint plan and is at least ψ of it;
* the figure plots, per skew, the **median** of ψ(joint) / merged cost (``dev``).

It prints that median per skew, beside the median of inev's own Fig. 10a quantity (ψ(joint) /
Σ ψ(q alone)) on the same instances.
"""

from __future__ import annotations

import argparse
import itertools
import math
import statistics
from collections import defaultdict

from inev.experiments.measure import plan_options, task_inputs
from inev.experiments.spec import expand, load_spec
from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.cost_model import participation
from inev.planner.inev_graph import Plan
from inev.planner.planning import plan_workload
from inev.workloads.workload import Workload

PRESET = "experiments/presets/fig10a.toml"


def _local(plan: Plan, name: str, node: object) -> float:
    per = plan.source_rates.get(name, {})
    return per.get(node, plan.type_rates[name][0]) if per else plan.type_rates[name][0]


def split(plan: Plan) -> dict[str, float]:
    """ψ by what is sent: raw events, selected events, matches."""
    out = {"raw": 0.0, "selected": 0.0, "matches": 0.0}
    for v in plan.vertices:
        info = plan.projections[v.projection]
        kind = "raw" if info.types == (info.pattern,) else "matches" if v.output is None else None
        out[kind or "selected"] += v.cost
    return out


def _selected_streams(plan: Plan) -> tuple[dict, dict]:
    """Per (link, type): the selected streams (population, node, fraction) and the sources
    whose raw stream crosses the link."""
    glob = {k: v[1] for k, v in plan.type_rates.items()}
    streams: dict = defaultdict(list)
    raw: dict = defaultdict(set)
    for v in plan.vertices:
        info = plan.projections[v.projection]
        if info.types == (info.pattern,):
            for ln in v.forwarding:
                raw[(ln, info.pattern)].add(v.node)
            continue
        if v.output is None:
            continue
        m, part, own = info.rate, v.partition, 0.0
        if part is not None:
            own = math.fsum(_local(plan, part, n) for n in v.local_sources)
            m *= own / glob[part]
        for e in v.output:
            a = own if e == part else glob[e]
            fraction = participation(m, a) / a if a > 0 else 0.0
            population = tuple(v.local_sources) if e == part else None
            for ln in v.forwarding:
                streams[(ln, e)].append((population, v.node, fraction))
    return streams, raw


def sharing_bounds(plan: Plan) -> dict[str, float]:
    """Selected-event cost as planned and under the three unions of the module docstring."""
    glob = {k: v[1] for k, v in plan.type_rates.items()}
    streams, raw = _selected_streams(plan)
    out = dict.fromkeys(("as planned", "one node", "any node", "raw covers"), 0.0)
    for (ln, e), items in streams.items():
        groups: dict = defaultdict(list)
        for population, node, fraction in items:
            groups[(node, population)].append(fraction)
        for (_, population), fractions in groups.items():
            base = sum(_local(plan, e, s) for s in population) if population else glob[e]
            out["as planned"] += base * sum(fractions)
            out["one node"] += base * (1 - math.prod(1 - f for f in fractions))
        everywhere = 1 - math.prod(1 - f for pop, _, f in items if pop is None)
        local: dict = defaultdict(list)
        for population, _, fraction in items:
            for s in population or ():
                local[s].append(fraction)

        def chosen(s: object, everywhere: float = everywhere, local: dict = local) -> float:
            return 1 - (1 - everywhere) * math.prod(1 - f for f in local.get(s, ()))

        union = glob[e] * everywhere + sum(
            _local(plan, e, s) * (chosen(s) - everywhere) for s in local
        )
        out["any node"] += union
        out["raw covers"] += union - sum(_local(plan, e, s) * chosen(s) for s in raw[(ln, e)])
    return out


def same_types_bound(plan: Plan) -> float:
    """Σ over groups of projections with one type set and partitioning type of all but the
    costliest member's cost (see the module docstring)."""
    groups: dict = defaultdict(lambda: defaultdict(float))
    for v in plan.vertices:
        info = plan.projections[v.projection]
        if len(info.types) > 1:
            groups[(frozenset(info.types), v.partition)][v.projection] += v.cost
    return math.fsum(sum(c.values()) - max(c.values()) for c in groups.values() if len(c) > 1)


def merged_cost(parts: list[Plan]) -> float:
    """The INEv authors' sharing-agnostic cost: routes of one instance merged over the parts."""
    routes: dict = defaultdict(set)
    rate: dict = {}
    for plan in parts:
        for v in plan.vertices:
            key = (v.projection, v.node, v.partition, v.output)
            routes[key] |= set(v.forwarding)
            rate[key] = v.rate
    return math.fsum(len(links) * rate[k] for k, links in routes.items())


def disjoint_floor(workload: Workload, costs: list[float]) -> float:
    """The largest Σ of ``costs`` over queries with pairwise disjoint type sets (exhaustive
    over sets of up to three queries: queries of 5 over 10 types hold at most two).

    >>> from inev.workloads.workload import Query
    >>> wl = Workload.build(1.0, [Query.build(n, p) for n, p in
    ...     (("a", "SEQ(A, B)"), ("b", "SEQ(C, D)"), ("c", "SEQ(B, C)"))])
    >>> disjoint_floor(wl, [1.0, 2.0, 2.5])
    3.0
    """
    types = [frozenset(q.types) for q in workload.queries]
    best = max(costs, default=0.0)
    indices = range(len(costs))
    for i, j in itertools.combinations(indices, 2):
        if types[i].isdisjoint(types[j]):
            best = max(best, costs[i] + costs[j])
            for k in indices:
                if k > j and types[k].isdisjoint(types[i] | types[j]):
                    best = max(best, costs[i] + costs[j] + costs[k])
    return best


def one_task(point: dict, seed: int) -> dict[str, float]:
    """The figures of one (configuration, seed)."""
    config = TaskConfig.from_mapping(point)
    network, workload = task_inputs(config, seed)
    options = plan_options(config)
    joint = plan_workload(network, workload, "inev", options)
    alone = [
        plan_workload(
            network,
            Workload.build(workload.window, [q], workload.slide, workload.selectivity_seed),
            "isolated",
            options,
        )
        for q in workload.queries
    ]
    total = math.fsum(p.psi for p in alone)
    parts = split(joint)
    bounds = sharing_bounds(joint)
    out = {
        "ratio": joint.psi / total,
        "vs merged": joint.psi / merged_cost(alone),
        "floor": disjoint_floor(workload, [p.psi for p in alone]) / total,
        "provable": disjoint_floor(workload, [p.lower_bound for p in alone]) / total,
        "centralized": joint.psi / joint.centralized_cost,
    }
    out.update({k: v / joint.psi for k, v in parts.items()})
    for name in ("one node", "any node", "raw covers"):
        saved = bounds["as planned"] - bounds[name]
        out[f"save {name}"] = saved / joint.psi
    out["save same types"] = same_types_bound(joint) / joint.psi
    return out


AUTHORS_POINT = {"queries": 15, "length": 6, "min_length": 3, "node_ratio": 0.6}
"""The authors' "20-query" runs (``--authors``, module docstring)."""
AUTHORS_SKEWS = (1.1, 1.3, 1.5, 1.7)


def _prefix(workload: Workload, count: int) -> Workload:
    """The workload of the first ``count`` queries."""
    queries = list(workload.queries[:count])
    return Workload.build(workload.window, queries, workload.slide, workload.selectivity_seed)


def _only(workload: Workload, query: object) -> Workload:
    """The workload of one query."""
    return Workload.build(workload.window, [query], workload.slide, workload.selectivity_seed)


def authors_task(point: dict, seed: int) -> tuple[float, float]:
    """(ψ(joint) / the authors' merged cost over every prefix's plan, ψ(joint) / Σ ψ(q
    alone)) of one instance (``--authors``, module docstring)."""
    config = TaskConfig.from_mapping(point)
    network, workload = task_inputs(config, seed)
    options = plan_options(config)
    prefixes = [
        plan_workload(network, _prefix(workload, k), "inev", options)
        for k in range(1, len(workload.queries) + 1)
    ]
    joint = prefixes[-1]
    alone = [
        plan_workload(network, _only(workload, q), "isolated", options) for q in workload.queries
    ]
    return joint.psi / merged_cost(prefixes), joint.psi / math.fsum(p.psi for p in alone)


def authors_main(seeds: int, effort: float | None) -> None:
    """Print the per-skew medians of :func:`authors_task` (``--authors``)."""
    spec = load_spec(PRESET)
    base = dict(next(t.point for t in expand(spec)))
    base.update(AUTHORS_POINT)
    if effort is not None:
        base["effort"] = effort
    print("per seed (every skew), then the medians per skew", flush=True)
    rows: dict[float, list[tuple[float, float]]] = {skew: [] for skew in AUTHORS_SKEWS}
    for seed in range(seeds):
        for skew in AUTHORS_SKEWS:
            rows[skew].append(authors_task({**base, "skew": skew}, seed))
            merged, isolated = rows[skew][-1]
            print(f"  skew {skew} seed {seed}: {merged:.3f} {isolated:.3f}", flush=True)
    print("skew  seeds  median joint/merged (authors' dev)  median joint/isolated (inev's)")
    for skew, found in rows.items():
        merged = statistics.median(r[0] for r in found)
        isolated = statistics.median(r[1] for r in found)
        print(f"{skew:4.1f}  {seeds:5d}  {merged:34.3f}  {isolated:30.3f}")


def main() -> None:
    """Print the per-seed figures and their summary per query count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[5, 10, 20])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--effort", type=float, default=None)
    parser.add_argument("--length", type=int, default=None)
    parser.add_argument("--min-length", type=int, default=None)
    parser.add_argument("--authors", action="store_true", help="the authors' quantity")
    args = parser.parse_args()
    if args.authors:
        authors_main(args.seeds, args.effort)
        return
    spec = load_spec(PRESET)
    columns = ["ratio", "vs merged", "floor", "provable", "centralized", "raw", "selected"]
    columns += ["matches", "save one node", "save any node", "save raw covers", "save same types"]
    for count in args.queries:
        point = dict(next(t.point for t in expand(spec) if t.point["queries"] == count))
        for key, value in (
            ("effort", args.effort),
            ("length", args.length),
            ("min_length", args.min_length),
        ):
            if value is not None:
                point = {**point, key: value}
        rows = []
        width = {c: max(9, len(c)) for c in columns}
        print(f"\n{count} queries: " + "  ".join(f"{c:>{width[c]}}" for c in columns))
        for seed in range(args.seeds):
            row = one_task(dict(point), seed)
            rows.append(row)
            print(
                f"  seed {seed:3d}: " + "  ".join(f"{row[c]:{width[c]}.3f}" for c in columns),
                flush=True,
            )
        for name, fn in (("mean", statistics.mean), ("median", statistics.median)):
            print(
                f"  {name:>8}: "
                + "  ".join(f"{fn(r[c] for r in rows):{width[c]}.3f}" for c in columns)
            )
        print(f"  sharing-aware above isolated: {sum(r['ratio'] > 1 + 1e-9 for r in rows)}")


if __name__ == "__main__":
    main()
