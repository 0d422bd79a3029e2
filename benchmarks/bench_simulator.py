"""Benchmark: simulated events and message deliveries per wall second, against raw SimPy.

For a 20-node and a 200-node generated network (rates rescaled so that the run holds about
``--events`` events of the workload's types), one query of 3 types is planned with INEv and
simulated. Beside it, a raw SimPy baseline written here replays the same events over the
same forwarding trees with one SimPy process per hop and no CEP work at all; the ratio of the
two delivery rates says how much the simulator costs over bare SimPy. The simulation is
timed without the centralized reference evaluation that ``simulate`` also runs (printed
apart), and the time spent inside the local CEP engines is measured by wrapping their entry
points, so the machinery alone (SimPy, dispatch, watermarks, bookkeeping) gets a rate too.
Targets of the simulator issue: >= 30 % of the raw delivery rate on 20 nodes; a 200-node
run of 10^5 events in < 60 s.

Both the simulation and the baseline run with Python's cyclic garbage collector paused
(:func:`inev.simulator.run.collector_paused`, which ``simulate`` applies itself); the
figures are medians of ``--repeat`` runs.

Run: ``python benchmarks/bench_simulator.py [--events 100000] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from contextlib import contextmanager

import simpy

import inev.simulator.reference as reference_module
from inev.planner.planning import plan_workload
from inev.simulator.engine.engine import Engine
from inev.simulator.run import collector_paused, simulate
from inev.simulator.simpy_network import forwarding_tree
from inev.simulator.sources import poisson_trace
from inev.topologies.generate import generate_network
from inev.workloads.generate import generate_workload


def raw_simpy(network, plan, trace) -> tuple[int, float]:
    """Deliveries and wall seconds of plain SimPy processes forwarding every event."""
    env = simpy.Environment()
    senders = {}
    for v in plan.vertices:
        if not v.inputs and v.forwarding:
            senders.setdefault((v.projection, v.node), []).append(
                forwarding_tree(v.node, v.forwarding)
            )
    deliveries = 0

    def hop(u, w, tree):
        nonlocal deliveries
        yield env.timeout(network.graph.edges[u, w]["latency"])
        deliveries += 1
        for child in tree.get(w, ()):
            env.process(hop(w, child, tree))

    def source():
        for event in trace:
            if event.time > env.now:
                yield env.timeout(event.time - env.now)
            for tree in senders.get((event.type, event.node), ()):
                for child in tree[event.node]:
                    env.process(hop(event.node, child, tree))

    env.process(source())
    start = time.perf_counter()
    with collector_paused():  # as in simulate(): the same footing for both
        env.run()
    return deliveries, time.perf_counter() - start


@contextmanager
def engine_clock():
    """Accumulate wall seconds inside the engines' processing entry points (not ``enqueue``,
    which only buffers an item)."""
    spent = [0.0]
    active = [True]
    names = ("push", "advance", "advance_timed", "flush")
    originals = {name: getattr(Engine, name) for name in names}
    central = reference_module.centralized_matches

    def timed(original):
        def wrapper(self, *args):
            if not active[0]:
                return original(self, *args)
            start = time.perf_counter()
            try:
                return original(self, *args)
            finally:
                spent[0] += time.perf_counter() - start

        return wrapper

    def untimed_central(*args, **kwargs):
        active[0] = False
        try:
            return central(*args, **kwargs)
        finally:
            active[0] = True

    for name, original in originals.items():
        setattr(Engine, name, timed(original))
    reference_module.centralized_matches = untimed_central
    try:
        yield spent
    finally:
        for name, original in originals.items():
            setattr(Engine, name, original)
        reference_module.centralized_matches = central


def instance(nodes: int, events: int, duration: float, seed: int):
    """A network with rates rescaled to about ``events`` events of a 3-type query."""
    net = generate_network(nodes=nodes, event_types=6, skew=1.9, node_ratio=0.5, seed=seed)
    wl = generate_workload(net, queries=1, length=3, selectivity=0.01, window=0.2, seed=seed)
    total = sum(net.global_rate(t) for t in wl.types) * duration
    scale = events / total
    net = net.with_rates({t: net.rate(t) * scale for t in net.types})
    return net, wl


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--duration", type=float, default=100.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per instance; medians are printed"
    )
    args = parser.parse_args()
    for nodes in (20, 200):
        net, wl = instance(nodes, args.events, args.duration, args.seed)
        plan = plan_workload(net, wl)
        trace = poisson_trace(net, args.duration, args.seed, types=wl.types)
        runs, raws = [], []
        for _ in range(max(args.repeat, 1)):
            runs.append(simulate(net, wl, plan, duration=args.duration, trace=trace))
            deliveries, raw_seconds = raw_simpy(net, plan, trace)
            raws.append(raw_seconds)
        result = runs[0]
        total = statistics.median(r.wall_seconds for r in runs)
        seconds = statistics.median(r.wall_seconds - r.check_seconds for r in runs)
        raw_seconds = statistics.median(raws)
        with engine_clock() as spent:
            timed = simulate(net, wl, plan, duration=args.duration, trace=trace)
        engine_share = spent[0] / (timed.wall_seconds - timed.check_seconds)
        machinery = seconds * (1.0 - engine_share)
        ours = result.messages / seconds
        raw = deliveries / raw_seconds
        print(
            f"{nodes:4d} nodes: {result.events} events, {result.messages} deliveries, "
            f"{sum(result.matches.values())} matches, equal={result.equal_to_centralized}; "
            f"{total:.1f} s in all, {seconds:.1f} s simulating + {result.check_seconds:.1f} s "
            f"centralized check"
        )
        print(
            f"      simulator: {result.events / seconds:,.0f} events/s, {ours:,.0f} deliveries/s; "
            f"{engine_share:.0%} of it inside the CEP engines "
            f"(machinery alone: {result.messages / machinery:,.0f} deliveries/s)"
        )
        print(
            f"      raw SimPy: {deliveries} deliveries in {raw_seconds:.2f} s -> "
            f"{raw:,.0f} deliveries/s; simulator/raw = {ours / raw:.0%}, "
            f"machinery/raw = {result.messages / machinery / raw:.0%}"
        )


if __name__ == "__main__":
    main()
