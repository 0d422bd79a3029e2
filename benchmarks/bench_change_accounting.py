"""Every match lost to a change at run time accounted for (issue 44, item 1).

Runs the Abilene reproducer (link-down Houston-Atlanta at 10, node-down Denver at 20; then the
link-down alone and the node-down alone) and, on Internet Topology Zoo networks of 12 to 40
nodes, two runs each with changes at random times during the run:

* ``links``: two links down (each keeping the network connected) and a rate swap: the run
  must equal centralized evaluation (``equal=true``, nothing missing);
* ``mixed``: a link down, a node down and a rate swap: ``missing`` must be the sum of the
  causes (:mod:`inev.simulator.losses`) with none ``unexplained``.

Each Zoo network gets event types as ``inev network generate --from-file`` gives them (5 types,
skew 1.3, node ratio 0.5, seed 1), link latencies drawn from {0.3, 1, 2.5} (window 1: many
messages are under way at a change), 6 events per time unit of each type, and 2
queries of length 3 planned with INEv; runs last 10 time units. Prints one row per run and
the checks' verdict; exits non-zero when a check fails.

Run: ``python benchmarks/bench_change_accounting.py --zoo PATH [--abilene DIR] [--networks 22]``
(PATH: a folder of ``.graphml`` files or the Zoo's bare git directory, see
``bench_topology_zoo.py``). A few minutes of CPU.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from bench_topology_zoo import graphml_files

from inev.common.errors import InevError
from inev.experiments.dynamics import dynamic_changes
from inev.experiments.sweep_parameters import TaskConfig
from inev.planner.inev_graph import load_plan
from inev.planner.planning import plan_workload
from inev.simulator.losses import CAUSES
from inev.simulator.run import simulate
from inev.topologies.generate import network_from_topology
from inev.topologies.io import connected_part, load_network, read_topology
from inev.topologies.network import Network
from inev.workloads.generate import generate_workload
from inev.workloads.io import load_workload

ABILENE = Path("/work/shared/reproducers/2026-12-01/abilene")
HEADER = (
    f"{'network':<22} {'nodes':>5} {'run':<9} {'changes':>7} {'central':>7} {'missing':>7} "
    f"{'causes':>6} {'unexpl':>6} {'equal':>5} {'s':>5}  causes"
)


def row(name: str, nodes: int, run: str, changes: list, result, seconds: float) -> dict:
    """One printed row and its checks."""
    causes = result.loss_causes
    figures = {
        "central": sum(result.centralized_matches.values()),
        "missing": result.missing,
        "causes": sum(causes.values()),
        "unexplained": causes.get("unexplained", 0),
        "equal": result.equal_to_centralized,
        "extra": result.extra,
    }
    detail = ",".join(f"{c}:{n}" for c, n in sorted(causes.items()) if n) or "-"
    print(
        f"{name:<22} {nodes:>5} {run:<9} {len(changes):>7} {figures['central']:>7} "
        f"{figures['missing']:>7} {figures['causes']:>6} {figures['unexplained']:>6} "
        f"{str(figures['equal']).lower():>5} {seconds:>5.1f}  {detail}",
        flush=True,
    )
    return figures


def timed(changes: list[dict], rng: np.random.Generator, duration: float) -> list[dict]:
    """The changes at random times in (0.2, 0.8) x duration, in their order (a node goes down
    after the links, as :func:`~inev.experiments.dynamics.dynamic_changes` chose them)."""
    times = sorted(rng.uniform(0.2 * duration, 0.8 * duration, len(changes)))
    return [{**c, "time": round(float(t), 3)} for c, t in zip(changes, times, strict=True)]


def with_latencies(net: Network, rng: np.random.Generator) -> Network:
    """``net`` with each link's latency drawn from {0.3, 1, 2.5}."""
    links = [(u, v, float(rng.choice([0.3, 1.0, 2.5]))) for u, v, _ in net.links]
    spec = {
        name: (t.rate, list(t.sources)) if t.uniform else (None, list(t.sources), list(t.rates()))
        for name, t in net.event_types.items()
    }
    return Network.build(net.nodes, links, spec)


def abilene(folder: Path) -> list[dict]:
    """The reproducer's three runs (both changes, the link alone, the node alone)."""
    net = load_network(folder / "abilene-names.json")
    wl = load_workload(folder / "ab-wl.json")
    plan = load_plan(folder / "ab-plan.json")
    link = {"time": 10, "kind": "link-down", "link": ["Houston", "Atlanta"]}
    node = {"time": 20, "kind": "node-down", "node": "Denver"}
    out = []
    for run, changes in (("both", [link, node]), ("links", [link]), ("node", [node])):
        started = time.process_time()
        result = simulate(net, wl, plan, duration=30.0, seed=1, changes=changes)
        seconds = time.process_time() - started
        out.append({"run": run, **row("Abilene", len(net.nodes), run, changes, result, seconds)})
    return out


def zoo_networks(files: list[Path], count: int) -> list[tuple[str, Network]]:
    """``count`` Zoo networks of 12 to 40 nodes, spread over the sorted names."""
    fitting = []
    for path in files:
        try:
            part, _ = connected_part(read_topology(path), path.name, largest_component=True)
        except InevError:
            continue
        if 12 <= part.number_of_nodes() <= 40:
            fitting.append((path.stem, part))
    step = max(len(fitting) / count, 1.0)
    return [fitting[int(i * step)] for i in range(min(count, len(fitting)))]


def zoo_runs(name: str, graph, seed: int) -> list[dict]:
    """The ``links`` and ``mixed`` runs of one Zoo network."""
    rng = np.random.default_rng(seed)
    net = network_from_topology(graph, 5, 1.3, 0.5, np.random.default_rng(1))
    net = with_latencies(net.with_rates({t: 6.0 / len(net.sources(t)) for t in net.types}), rng)
    wl = generate_workload(net, queries=2, length=3, selectivity=0.6, seed=seed)
    plan = plan_workload(net, wl)
    out = []
    for run, config in (
        ("links", {"links_removed": 2, "rate_swap": 0.4}),
        ("mixed", {"links_removed": 1, "nodes_removed": 1, "rate_swap": 0.4}),
    ):
        changes = timed(dynamic_changes(net, TaskConfig(**config), seed), rng, 10.0)
        started = time.process_time()
        result = simulate(net, wl, plan, duration=10.0, seed=seed, changes=changes)
        seconds = time.process_time() - started
        out.append({"run": run, **row(name, len(net.nodes), run, changes, result, seconds)})
    return out


def main() -> None:
    """Print the rows and the verdict (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", required=True, type=Path, help="folder or bare git dir")
    parser.add_argument("--abilene", type=Path, default=ABILENE, help="the reproducer's folder")
    parser.add_argument("--networks", type=int, default=22, help="Zoo networks to run")
    args = parser.parse_args()
    started = time.process_time()
    print(HEADER)
    rows = abilene(args.abilene) if (args.abilene / "ab-plan.json").is_file() else []
    with tempfile.TemporaryDirectory(prefix="inev-zoo-") as folder:
        networks = zoo_networks(graphml_files(args.zoo, Path(folder)), args.networks)
    for seed, (name, graph) in enumerate(networks, start=1):
        rows += zoo_runs(name, graph, seed)
    accounted = all(r["missing"] == r["causes"] and not r["unexplained"] for r in rows)
    links_equal = all(r["equal"] for r in rows if r["run"] == "links")
    no_extra = all(not r["extra"] for r in rows)
    known = {c for c in CAUSES}
    print(
        f"{len(rows)} runs on {len(networks)} Zoo networks"
        f"{' and Abilene' if rows and rows[0].get('run') == 'both' else ''}: "
        f"missing == sum of causes, none unexplained: {str(accounted).lower()}; "
        f"link-only runs equal: {str(links_equal).lower()}; no extra match: "
        f"{str(no_extra).lower()} ({time.process_time() - started:.0f} s CPU; causes: "
        f"{', '.join(sorted(known))})"
    )
    if not (accounted and links_equal and no_extra):
        sys.exit(1)


if __name__ == "__main__":
    main()
