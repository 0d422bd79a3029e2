"""Byte-identity check for refactorings of the simulation pipeline: run a fixed set of
simulations and dump their ``inev-sim/1`` documents as one JSON file.

The set covers every path through :func:`inev.simulator.run.simulate`: generated events
with and without changes at run time, a recorded trace in memory and streamed (with a
pattern variable and ``where`` keys), a capacity run with load shedding, a multi-query
workload with ``return`` queries (aggregates), and KL/negation patterns. Compare two
checkouts' outputs with ``cmp``.

Run: ``python benchmarks/sim_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from inev.common.traces import scan_trace
from inev.planner.planning import plan_workload
from inev.simulator.capacity import CapacityOptions, parse_node_capacities
from inev.simulator.engine.events import make_event
from inev.simulator.engine.replay import ordered_chunks, prepare
from inev.simulator.run import TraceStream, simulate
from inev.simulator.sources import rescale_rates
from inev.topologies.from_trace import network_from_scan
from inev.topologies.generate import generate_network
from inev.topologies.network import Network
from inev.topologies.trace_generator import TraceOptions, generate_trace_file
from inev.workloads.generate import generate_workload
from inev.workloads.workload import Query, Workload


def _generated(seed: int, queries: int, negation: int = 0):
    net = generate_network(nodes=10, seed=seed, skew=2)
    wl = generate_workload(
        net, queries=queries, length=3, negation=negation, selectivity=0.3, seed=seed
    )
    return rescale_rates(net, wl.types, 60.0), wl


def cases(folder: Path) -> dict[str, object]:
    """Every simulation's document, by case name."""
    out: dict[str, object] = {}
    net, wl = _generated(1, 1)
    plan = plan_workload(net, wl, "inev")
    out["generated"] = simulate(net, wl, plan, duration=8.0, seed=3)
    out["generated-unbatched"] = simulate(net, wl, plan, duration=8.0, seed=3, batch=False)
    changes = [
        {"time": 2.0, "kind": "set-rate", "type": wl.types[0], "rate": 0.5},
        {"time": 4.0, "kind": "link-down", "link": list(net.links[0][:2])},
        {"time": 6.0, "kind": "link-up", "link": list(net.links[0][:2])},
    ]
    out["generated-changes"] = simulate(net, wl, plan, duration=8.0, seed=3, changes=changes)
    node_down = [{"time": 3.0, "kind": "node-down", "node": plan.vertices[0].node}]
    out["generated-node-down"] = simulate(net, wl, plan, duration=8.0, seed=4, changes=node_down)
    # multi-query, negation, centralized plan
    net2, wl2 = _generated(5, 3, negation=1)
    for method in ("inev", "centralized"):
        p = plan_workload(net2, wl2, method)
        out[f"multi-{method}"] = simulate(net2, wl2, p, duration=6.0, seed=2)
    # capacity and shedding
    net3, wl3 = _generated(7, 2)
    p3 = plan_workload(net3, wl3, "inev")
    for shed in ("pspice", "random-event"):
        cap = CapacityOptions(parse_node_capacities(["auto:0.7"]), latency_bound=0.5, shed=shed)
        out[f"capacity-{shed}"] = simulate(net3, wl3, p3, duration=4.0, seed=5, capacity=cap)
    # return queries (aggregates) and Kleene
    line = Network.build(
        range(4), [(0, 1), (1, 2), (2, 3)], {"A": (3.0, [0, 2]), "B": (2.0, [3]), "C": (1.0, [1])}
    )
    agg = Workload.build(
        1.0,
        [
            Query.build("c", "SEQ(KL(A), B)", returns="COUNT(*)"),
            Query.build("s", "SEQ(A, C)", returns="SUM(A.v)"),
            Query.build("p", "AND(A, B, C)", selectivity={"A B": 0.5}),
        ],
    )
    pa = plan_workload(line, agg, "inev")
    out["aggregates"] = simulate(line, agg, pa, duration=10.0, seed=1)
    out["aggregates-capacity"] = simulate(
        line, agg, pa, duration=10.0, seed=1,
        capacity=CapacityOptions(parse_node_capacities(["auto:0.8"])),
    )  # fmt: skip
    # a pattern variable
    var = Workload.build(1.0, [Query.build("v", "SEQ(A a, B, A b)")])
    out["variables"] = simulate(line, var, plan_workload(line, var, "inev"), duration=10.0, seed=2)
    # recorded trace: in memory (events), in memory with changes, streamed
    path = folder / "trace.csv"
    options = TraceOptions(
        nodes=8, types=3, events=3000, duration=6.0, skew=1.0, profile="diurnal",
        period=1.0, keys=150, key_name="bid", seed=2,
    )  # fmt: skip
    generate_trace_file(options, path)
    tnet = network_from_scan(scan_trace(path), seed=1, link_latency=0.01)
    chain = "A.bid == B.bid AND B.bid == C.bid"
    twl = Workload.build(
        1.0,
        [
            Query.build("q1", "SEQ(A, B, C)", where=chain, selectivity={"A B": 0.1, "B C": 0.1}),
            Query.build("q2", "AND(A, B, C)", where=chain, selectivity={"A B": 0.1, "B C": 0.1}),
        ],
    )
    tplan = plan_workload(tnet, twl, "inev")
    prepared = prepare(twl, path)
    s = prepared.scan
    stream = TraceStream(lambda: ordered_chunks(prepared), s.end, s.rows, s.skipped, s.start)
    out["trace-stream"] = simulate(tnet, twl, tplan, trace=stream)
    events = [e for chunk in stream.chunks() for e in chunk]
    out["trace-memory"] = simulate(tnet, twl, tplan, duration=s.end, trace=events)
    tchanges = [{"time": 3.0, "kind": "set-rate", "type": "A", "rate": 1.0}]
    out["trace-stream-changes"] = simulate(tnet, twl, tplan, trace=stream, changes=tchanges)
    out["trace-stream-capacity"] = simulate(
        tnet,
        twl,
        tplan,
        trace=stream,
        capacity=CapacityOptions(parse_node_capacities(["auto:0.8"])),
    )
    # a hand trace with a foreign type (ignored) at the line network
    hand = [make_event(0.5, "A", 0, 0), make_event(0.7, "Z", 1, 1), make_event(0.9, "B", 3, 2)]
    hand_wl = Workload.build(1.0, [Query.build("h", "SEQ(A, B)")])
    out["trace-hand"] = simulate(
        line, hand_wl, plan_workload(line, hand_wl, "inev"), duration=2.0, trace=hand
    )
    return {name: result.to_dict() for name, result in out.items()}


def main() -> None:
    """Write the documents to the path given."""
    with tempfile.TemporaryDirectory() as folder:
        documents = cases(Path(folder))
    text = json.dumps(documents, indent=1, allow_nan=True)
    Path(sys.argv[1]).write_text(text + "\n")
    print(f"{len(documents)} simulations written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
