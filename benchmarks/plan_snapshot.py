"""Byte-identity check for refactorings of the planner's data flow: plan a fixed set of
instances (generated ones with KL and NSEQ, hand-written ones with OR and pattern variables)
with every method, repair some plans after rate and link changes, and dump the plans'
``inev-plan/1`` documents (without their planning seconds), the bounds, the external plan,
the fit checks and the simulator's size estimate as one JSON file. Compare two checkouts'
outputs with ``cmp``.

Run: ``python benchmarks/plan_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inev.planner.external import external_plan, shares_by_type_set
from inev.planner.fingerprint import difference, fit_problems
from inev.planner.inev_graph import plan_to_dict
from inev.planner.lower_bound import approximate_bound, candidate_types, lower_bound
from inev.planner.planning import plan_workload, planning_network, prepare
from inev.planner.repair import repair_plan
from inev.simulator.estimate import estimate
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload

METHODS = ("inev", "centralized", "isolated", "ppop", "ppop-flouris")


def _doc(plan) -> dict:
    return {k: v for k, v in plan_to_dict(plan).items() if "seconds" not in k}


def _repaired(plan, net, wl, changes) -> list:
    result = repair_plan(plan, net, wl, changes, choose="best")
    return [_doc(result.result), result.written, list(result.harmful)]


def _or_error(compute):
    """``compute()``, or the message of the error it raised."""
    try:
        return compute()
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"


def instances() -> dict[str, tuple[Network, Workload]]:
    """The instances by name."""
    out = {}
    for seed in (1, 2, 3):
        net = generate_network(nodes=8, seed=seed, skew=2)
        wl = generate_workload(net, queries=3, length=4, kleene=1, negation=1, seed=seed)
        out[f"generated-{seed}"] = (net, wl)
    net = Network.build(
        range(5),
        [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)],
        {"A": (1.0, [0, 3]), "B": (4.0, [1]), "C": (2.0, [2, 4]), "D": (8.0, [3])},
    )
    queries = [
        Query.build("q1", "SEQ(A, OR(B, C), D)", selectivity={"A D": 0.1, "A B": 0.2}),
        Query.build("q2", "AND(OR(SEQ(A, B), SEQ(C, D)), KL(B b))"),
        Query.build("q3", "SEQ(B x, C, B y)", selectivity={"x y": 0.3}),
    ]
    out["or-variables"] = (net, Workload.build(2.0, queries))
    return out


def _entry(net: Network, wl: Workload) -> dict[str, object]:
    """Every figure of one instance."""
    plans = {m: plan_workload(net, wl, m) for m in METHODS}
    entry: dict[str, object] = {m: _doc(p) for m, p in plans.items()}
    pnet = planning_network(net, prepare(net, wl))
    entry["bounds"] = [lower_bound(pnet, wl), approximate_bound(pnet, wl)]
    entry["candidates"] = candidate_types(pnet, wl)
    entry["fit"] = [fit_problems(plans["inev"], net, wl), difference(plans["inev"], net, wl)]
    entry["estimate"] = _or_error(lambda: repr(estimate(net, wl, 5.0)))
    sinks = [plans["inev"].projections[k] for k in plans["inev"].sinks.values()]
    combination = {
        info.pattern: {"inputs": list(info.types), "partition": info.types[-1]} for info in sinks
    }
    entry["shares_by_type_set"] = shares_by_type_set(wl, combination)
    entry["external"] = _or_error(lambda: _doc(external_plan(pnet, wl, combination)))
    t = net.types[0]
    link = [int(n) for n in next(iter(net.graph.edges))]
    for method in ("inev", "ppop"):
        for changes in (
            [{"kind": "set-rate", "type": t, "rate": net.rate(t) * 3}],
            [{"kind": "link-down", "link": link}],
        ):
            key = f"repair-{method}-{changes[0]['kind']}"
            entry[key] = _or_error(lambda m=method, c=changes: _repaired(plans[m], net, wl, c))
    return entry


def main() -> None:
    """Write the documents to the path given."""
    doc = {name: _entry(net, wl) for name, (net, wl) in instances().items()}
    Path(sys.argv[1]).write_text(json.dumps(doc, indent=0, default=str, sort_keys=True) + "\n")
    print(f"{len(doc)} instances written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
