"""A/B CPU ratio of two checkouts in one run: two worker processes, one per checkout, take
turns (A B A B ...) on the same task; each turn is timed by the worker's own
``time.process_time``, so start-up, imports and the instance's preparation are not counted
and a slow phase of a shared machine hits both sides alike. Prints, per task, the median of
the pairwise ratios A/B and the ratio of the minima.

Tasks: ``sim20`` and ``sim200`` (``benchmarks/bench_simulator.py``'s instances at
``--events``, one ``simulate`` per turn), ``engine`` (``benchmarks/bench_engine.py``'s
SEQ(A, B, C, D) stream through static and adaptive greedy and ZStream engines), ``plan``
(plan a 20-node, 6-query instance with KL and NSEQ and repair the plan after a rate change;
not in the default tasks), ``plan46`` (issue 46's default instance: plan 5 queries of the
default workload on the default 20-node network, seed 1; not in the default tasks). The
worker's module memos live on between turns, so ``plan`` and ``plan46`` time a warm process.

Run: ``python benchmarks/ab_cpu.py ROOT_A ROOT_B [--rounds 15] [--events 30000]``, where
each ROOT is a folder holding ``inev/`` (links to a checkout's layer folders), or ``-`` for
the installed package.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def worker(task: str, events: int) -> None:
    """Prepare ``task``, then time one turn per line read from stdin."""
    if task.startswith("sim"):
        from inev.planner.planning import plan_workload
        from inev.simulator.run import simulate
        from inev.simulator.sources import poisson_trace
        from inev.topologies.generate import generate_network
        from inev.workloads.generate import generate_workload

        nodes, duration = int(task[3:]), 100.0
        net = generate_network(nodes=nodes, event_types=6, skew=1.9, node_ratio=0.5, seed=1)
        wl = generate_workload(net, queries=1, length=3, selectivity=0.01, window=0.2, seed=1)
        total = sum(net.global_rate(t) for t in wl.types) * duration
        net = net.with_rates({t: net.rate(t) * events / total for t in net.types})
        plan = plan_workload(net, wl)
        trace = poisson_trace(net, duration, 1, types=wl.types)

        def turn() -> None:
            simulate(net, wl, plan, duration=duration, trace=trace)

    elif task == "plan":
        from dataclasses import replace

        from inev.planner.planning import plan_workload
        from inev.planner.repair import repair_plan
        from inev.topologies.generate import generate_network
        from inev.workloads.generate import generate_workload

        net = generate_network(nodes=20, seed=1)
        wl = generate_workload(net, queries=6, length=4, kleene=1, negation=1, seed=1)
        change = [{"kind": "set-rate", "type": net.types[0], "rate": net.rate(net.types[0]) * 3}]

        def turn() -> None:
            fresh = replace(wl)  # a new workload value: nothing prepared on it yet
            plan = plan_workload(net, fresh)
            repair_plan(plan, net, fresh, change)

    elif task == "plan46":
        from dataclasses import replace

        from inev.planner.planning import plan_workload
        from inev.topologies.generate import generate_network
        from inev.workloads.generate import generate_workload

        net = generate_network(nodes=20, seed=1)
        wl = generate_workload(net, queries=5, seed=1)

        def turn() -> None:
            plan_workload(net, replace(wl))  # a new workload value: nothing prepared on it yet

    else:
        import random

        from inev.simulator.engine.engine import Adaptation, Engine
        from inev.simulator.engine.events import make_event

        rng = random.Random(1)
        t, stream = 0.0, []
        for i in range(events):
            t += rng.expovariate(4.0)
            typ = "ABCD"[rng.randrange(4)]
            stream.append(make_event(t, typ, 0, i, {"v": rng.randint(0, 9)}))
        sel = {"A B": 0.2, "C D": 0.2}

        def turn() -> None:
            for plan in ("greedy", "zstream"):
                for adaptation in ("off", Adaptation("invariant")):
                    engine = Engine(
                        "SEQ(A, B, C, D)", 5.0, selectivities=sel, plan=plan, adaptation=adaptation
                    )
                    for e in stream:
                        engine.push(e)
                    engine.flush()

    turn()  # warm-up
    where = sys.modules.get("inev.simulator.engine.engine") or sys.modules["inev.planner.planning"]
    print(f"{task} from {where.__file__}", file=sys.stderr)
    for _ in sys.stdin:
        start = time.process_time()
        turn()
        print(time.process_time() - start, flush=True)


def _spawn(root: str, task: str, events: int) -> subprocess.Popen:
    code = (
        "import sys\n"
        f"root = {root!r}\n"
        "if root != '-':\n"
        "    sys.meta_path = [f for f in sys.meta_path if 'editable' not in repr(f)]\n"
        "    sys.path.insert(0, root)\n"
        "import runpy\n"
        f"m = runpy.run_path({__file__!r}, run_name='ab_worker')\n"
        f"m['worker']({task!r}, {events})\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def main() -> None:
    """Print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root_a")
    parser.add_argument("root_b")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--events", type=int, default=30_000)
    parser.add_argument("--tasks", default="engine,sim20,sim200")
    args = parser.parse_args()
    for task in args.tasks.split(","):
        a, b = (_spawn(r, task, args.events) for r in (args.root_a, args.root_b))
        times: dict[str, list[float]] = {"A": [], "B": []}
        for _ in range(args.rounds):
            for name, proc in (("A", a), ("B", b)):
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
                times[name].append(float(proc.stdout.readline()))
        for proc in (a, b):
            assert proc.stdin is not None
            proc.stdin.close()
            proc.wait()
        ratios = [x / y for x, y in zip(times["A"], times["B"], strict=True)]
        print(
            f"{task}: A/B cpu median of {len(ratios)} pair ratios {statistics.median(ratios):.3f}"
            f" (quartiles {statistics.quantiles(ratios, n=4)[0]:.3f}-"
            f"{statistics.quantiles(ratios, n=4)[2]:.3f}); min A {min(times['A']):.3f} s, "
            f"min B {min(times['B']):.3f} s, ratio of minima {min(times['A']) / min(times['B']):.3f}",
            flush=True,
        )


if __name__ == "__main__" and len(sys.argv) > 1:
    main()
