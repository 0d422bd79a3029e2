"""The headline figures the quality gates assert (``tests/test_quality_gates.py``).

Each gate's figure is computed here, by the same function the test calls, so that the
command quoted next to a floor prints the figure the floor was measured from::

    python tests/gate_figures.py                     # every figure
    python tests/gate_figures.py shedding            # one group
    python tests/gate_figures.py planner --update    # record improved planner ratios

The instances are fixed and seeded: the same code gives the same figures on any machine.
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable
from typing import Any

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.shedding.quality import run_node, run_overload
from inev.workloads.workload import Query, Workload

# ----------------------------------------------------------------------------- shedding
SHED_WINDOW = 0.5
SHED_BOUND = 0.2
SHED_QUERIES = {"keyed": "A.x == D.x", "unkeyed": "A.x < D.x"}
"""The pSPICE gate's queries: SEQ(A, B, C, D) with these conditions (issue 26's runs)."""


def shedding_stream(events: int = 10_000, seed: int = 9) -> list[Event]:
    """Events at times i × 0.01, types A-D weighted 4:3:2:1, an attribute x in 0..19."""
    rng = random.Random(seed)
    out = []
    for i in range(events):
        typ = rng.choices("ABCD", weights=[4, 3, 2, 1])[0]
        out.append(make_event(round(i * 0.01, 4), typ, 0, i, {"x": rng.randint(0, 19)}))
    return out


def shedding_figures(
    condition: str, adaptive: str, load: float, strategies: tuple[str, ...], events: int = 10_000
) -> dict[str, dict[str, Any]]:
    """``inev match``'s overloaded run on the pSPICE gate's stream: capacity ``1 / load`` of
    what the unshedded run needs, latency bound 0.2 with the default safety (10 %); per
    strategy its false negatives, false positives and bound violations."""
    workload = Workload.build(
        SHED_WINDOW, [Query.build("q", "SEQ(A, B, C, D)", where=SHED_QUERIES[condition])]
    )
    stream = shedding_stream(events)

    def make() -> dict[str, Engine]:
        return {
            q.name: Engine.from_query(q, workload, adaptation=Adaptation(adaptive))
            for q in workload.queries
        }

    ref_proc, ref_out, _ = run_node(make, stream, math.inf)
    reference = (ref_out, ref_proc.stats.work)
    out = {}
    for strategy in strategies:
        result, _ = run_overload(
            make,
            stream,
            f"auto:{1 / load}",
            SHED_BOUND,
            strategy,
            safety=0.1 * SHED_BOUND,
            reference=reference,
        )
        out[strategy] = {
            "false_negatives": result["false_negatives"],
            "false_positives": result["false_positives"],
            "violations": result["bound_violations"],
            "matches": len(ref_out["q"]),
        }
    return out


def _print_shedding() -> None:
    strategies = ("pspice", "random-pm", "random-event")
    for adaptive in ("off", "invariant"):
        for condition in SHED_QUERIES:
            for load in (1.6, 2.5):
                figures = shedding_figures(condition, adaptive, load, strategies)
                pspice = figures["pspice"]["false_negatives"]
                cells = ", ".join(
                    f"{s} {f['false_negatives']} (fp {f['false_positives']}, "
                    f"viol {f['violations']})"
                    for s, f in figures.items()
                )
                ratio = pspice / max(figures["random-pm"]["false_negatives"], 1)
                print(
                    f"shedding {condition} adaptive={adaptive} load {load}: of "
                    f"{figures['pspice']['matches']} matches, {cells}; "
                    f"pspice / random-pm {ratio:.3f}"
                )


# ------------------------------------------------------------------ pSPICE, paper's Q1
PSPICE_PAPER_WINDOWS = (200, 300, 500)
"""Q1 windows of the pSPICE-paper gate (match probabilities about 5, 29 and 79 %)."""


def pspice_paper_figures(places: int = 100_000) -> dict[int, dict[str, Any]]:
    """The paper's Fig. 5(a) setting at event rate 120 % (``benchmarks/bench_pspice_paper.py``,
    smaller): per Q1 window, the match probability and, per strategy, the share of windows
    whose complex event is lost, false positives and bound violations (the paper's detector,
    simulated ``l_s`` of 0.05 work units per scored partial match)."""
    from inev.simulator.engine.shedding.paper_streams import (
        Q1_PATTERN,
        Q1_WHERE,
        paper_run,
        q1_stream,
    )

    events, arrivals = q1_stream(places, seed=1)
    out = {}
    for w in PSPICE_PAPER_WINDOWS:
        run = paper_run(
            Q1_PATTERN, float(w), events, arrivals, [1.2], ("pspice", "random-pm", "random-event"),
            where=Q1_WHERE, bound=1.0, detector="paper", shed_cost=0.05, seed=1,
        )  # fmt: skip
        out[w] = {"match_probability": run["match_probability"]}
        for (_load, strategy), r in run["runs"].items():
            out[w][strategy] = r
    return out


def _print_pspice_paper() -> None:
    for w, f in pspice_paper_figures().items():
        cells = ", ".join(
            f"{s} FN {100 * f[s]['window_fn']:.1f} % (fp {f[s]['false_positives']}, "
            f"viol {f[s]['violations']})"
            for s in ("pspice", "random-pm", "random-event")
        )
        ratio = f["pspice"]["window_fn"] / max(f["random-pm"]["window_fn"], 1e-9)
        print(
            f"pspice-paper Q1 W={w} match probability {100 * f['match_probability']:.1f} %: "
            f"{cells}; pspice / random-pm {ratio:.3f}"
        )


# ----------------------------------------------------------------------------- GRETA
GRETA_WINDOWS = ((10.0, 10.0), (10.0, 5.0))
"""(window, slide) of the GRETA gate: tumbling and sliding."""


def greta_stream(seed: int, events: int = 60) -> list[tuple[float, str]]:
    """(time, type) pairs: types drawn from ABBBC, gaps 0.05-1.5 (issue 26's trace)."""
    rng = random.Random(seed)
    t = 0.0
    out = []
    for _ in range(events):
        t += rng.uniform(0.05, 1.5)
        out.append((round(t, 4), rng.choice("ABBBC")))
    return out


def greta_closed_form(
    stream: list[tuple[float, str]], window: float, slide: float
) -> dict[float, int]:
    """COUNT(*) of SEQ(A, KL(B), C) per window start, in closed form: every A and later C of
    a window with n B events strictly between them hold 2^n - 1 trends (any non-empty set of
    those B's, skip-till-any-match)."""
    end = max(t for t, _ in stream)
    out = {}
    k = 0
    while k * slide <= end:
        lo, hi = k * slide, k * slide + window
        inside = [(t, e) for t, e in stream if lo <= t < hi]
        total = 0
        for ta, ea in inside:
            if ea != "A":
                continue
            for tc, ec in inside:
                if ec == "C" and tc > ta:
                    n = sum(1 for tb, eb in inside if eb == "B" and ta < tb < tc)
                    total += 2**n - 1
        out[round(lo, 9)] = total
        k += 1
    return out


# ----------------------------------------------------------------------------- planner
PLANNER_RECORD = "fixtures/quality_gates/planner.json"
"""The planner gate's instances (network and workload files) and recorded ratios."""
PLANNER_SETTINGS = (
    (20, 6, 1.3, 0.5, 1, 4, 0.1),
    (20, 6, 1.1, 0.5, 3, 4, 0.05),
    (30, 8, 1.5, 0.3, 2, 5, 0.1),
    (30, 8, 1.3, 0.7, 5, 4, 0.2),
    (40, 10, 1.7, 0.5, 3, 5, 0.01),
    (25, 6, 1.05, 1.0, 2, 3, 0.3),
    (50, 10, 1.3, 0.2, 4, 4, 0.05),
    (15, 5, 2.0, 0.6, 1, 5, 0.1),
    (35, 8, 1.2, 0.4, 6, 3, 0.1),
    (20, 7, 1.4, 0.8, 2, 6, 0.02),
    (45, 9, 1.6, 0.3, 3, 4, 0.1),
    (60, 12, 1.3, 0.25, 5, 5, 0.05),
)
"""(nodes, types, skew, node ratio, queries, length, selectivity) of the frozen instances."""


def _record_path() -> Any:
    from pathlib import Path

    return Path(__file__).parent / PLANNER_RECORD


def planner_instances() -> list[dict[str, Any]]:
    """The frozen instances with their recorded ratios (``--update`` writes them)."""
    import json

    document = json.loads(_record_path().read_text())
    records = document["inev_ratio"]
    return [{**i, "inev_ratio": records.get(i["name"])} for i in document["instances"]]


def planner_figures(instance: dict[str, Any]) -> dict[str, float]:
    """ψ / centralized cost of the inev, isolated and PPoP plans of one frozen instance."""
    from inev.planner.planning import plan_workload
    from inev.topologies.io import network_from_dict
    from inev.workloads.io import workload_from_dict

    network = network_from_dict(instance["network"])
    workload = workload_from_dict(instance["workload"])
    out = {}
    for method in ("inev", "isolated", "ppop"):
        plan = plan_workload(network, workload, method)
        out[method] = plan.psi / plan.centralized_cost
    return out


def _freeze_planner_instances() -> list[dict[str, Any]]:
    """Generate the instances of :data:`PLANNER_SETTINGS` (seeds 100 + i and 200 + i)."""
    from inev.topologies.generate import generate_network
    from inev.topologies.io import network_to_dict
    from inev.workloads.generate import generate_workload
    from inev.workloads.io import workload_to_dict

    out = []
    for i, (nodes, types, skew, ratio, queries, length, sel) in enumerate(PLANNER_SETTINGS):
        net = generate_network(
            nodes=nodes, out_degree=3, event_types=types, skew=skew, node_ratio=ratio, seed=100 + i
        )
        wl = generate_workload(net, queries=queries, length=length, selectivity=sel, seed=200 + i)
        out.append(
            {"name": f"p{i}", "network": network_to_dict(net), "workload": workload_to_dict(wl)}
        )
    return out


def _print_planner(update: bool = False) -> None:
    import json

    path = _record_path()
    instances = planner_instances() if path.exists() else _freeze_planner_instances()
    for instance in instances:
        figures = planner_figures(instance)
        old = instance.get("inev_ratio")
        print(
            f"planner {instance['name']}: inev {figures['inev']:.9g} (recorded {old}), "
            f"isolated {figures['isolated']:.9g}, ppop {figures['ppop']:.9g}"
        )
        if update:
            instance["inev_ratio"] = figures["inev"]
    if update:
        path.parent.mkdir(parents=True, exist_ok=True)
        records = {i["name"]: i["inev_ratio"] for i in instances}
        frozen = [{k: v for k, v in i.items() if k != "inev_ratio"} for i in instances]
        lines = ",\n  ".join(json.dumps(i, separators=(",", ":")) for i in frozen)
        path.write_text(
            '{"inev_ratio": '
            + json.dumps(records, indent=2)
            + ',\n "instances": [\n  '
            + lines
            + "\n ]}\n"
        )
        print(f"recorded -> {path}")


# ----------------------------------------------------------------------------- simulator
SIM_MODEL_SEEDS = (1, 6, 7, 10)
"""AND workloads whose plans send thousands of messages, where ψ holds within 10 %."""


def sim_instance(seed: int, rate: float = 30.0) -> tuple[Any, Workload]:
    """15 nodes, 5 types, two 3-type AND queries (σ 0.2), rates rescaled to ``rate`` in all."""
    from inev.simulator.sources import rescale_rates
    from inev.topologies.generate import generate_network
    from inev.workloads.generate import generate_workload

    net = generate_network(
        nodes=15, out_degree=3, event_types=5, skew=1.3, node_ratio=0.5, seed=seed
    )
    wl = generate_workload(net, queries=2, length=3, selectivity=0.2, seed=seed)
    queries = [
        Query.build(
            q.name,
            str(q.pattern).replace("SEQ", "AND"),
            {" ".join(k): v for k, v in q.selectivities},
        )
        for q in wl.queries
    ]
    wl = Workload.build(wl.window, queries)
    return rescale_rates(net, wl.types, rate), wl


def sim_model_deviation(seed: int, method: str, duration: float = 300.0) -> dict[str, Any]:
    """One simulated run: (measured − ψ · duration) / (ψ · duration), messages, equality."""
    from inev.planner.planning import plan_workload
    from inev.simulator.run import simulate

    net, wl = sim_instance(seed)
    plan = plan_workload(net, wl, method)
    result = simulate(net, wl, plan, duration=duration, seed=seed)
    return {
        "deviation": result.model_deviation,
        "messages": result.messages,
        "equal": result.equal_to_centralized,
    }


def _print_simulator() -> None:
    for seed in SIM_MODEL_SEEDS:
        for method in ("centralized", "inev", "isolated"):
            f = sim_model_deviation(seed, method)
            print(
                f"simulator seed {seed} {method}: {f['messages']} messages, model deviation "
                f"{f['deviation']:+.3f}, equal to centralized {f['equal']}"
            )


# ----------------------------------------------------------------------------- adaptivity
def adaptive_figures(events: int = 12_000) -> dict[str, Any]:
    """Work units of AND(A, B, C, D) over a stream whose rates reverse half way (A 0.2, B
    0.5, C 2, D 8, then D 0.2 … A 8): the invariant-adaptive engine (the defaults of inev
    match) against every static order-based plan."""
    from inev.simulator.engine.evaluation_plans import OrderPlan, all_orders

    rng = random.Random(4)
    first = {"A": 0.2, "B": 0.5, "C": 2.0, "D": 8.0}
    stream = []
    t = 0.0
    for i in range(events):
        rates = (
            first if i < events // 2 else dict(zip("ABCD", reversed(first.values()), strict=True))
        )
        t += rng.expovariate(sum(rates.values()))
        typ = rng.choices(list(rates), list(rates.values()))[0]
        stream.append(make_event(t, typ, 0, i))

    def run(**options: Any) -> dict[str, int]:
        engine = Engine("AND(A, B, C, D)", 1.0, rates=first, **options)
        for e in stream:
            engine.push(e)
        engine.flush()
        return engine.counters

    static = {order: run(plan=OrderPlan(order)) for order in all_orders(4)}
    adaptive = run(adaptation=Adaptation("invariant"))
    best = min(c["work"] for c in static.values())
    return {
        "adaptive_work": adaptive["work"],
        "best_static_work": best,
        "ratio": adaptive["work"] / best,
        "reoptimizations": adaptive["reoptimizations"],
        "plan_changes": adaptive["plan_changes"],
        "matches": adaptive["matches"],
        "static_matches": {c["matches"] for c in static.values()},
    }


def _print_adaptivity() -> None:
    f = adaptive_figures()
    print(
        f"adaptivity: invariant {f['adaptive_work']} work units, best static plan "
        f"{f['best_static_work']} ({f['ratio']:.3f}x), {f['reoptimizations']} "
        f"re-optimisations, {f['plan_changes']} plan changes"
    )


# ----------------------------------------------------------------------------- invariant paper
PAPER_THRESHOLDS = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0)
"""The constant-threshold method's grid (``benchmarks/bench_invariant_paper.py``'s)."""


def invariant_paper_figures(stream: str, events: int = 20_000) -> dict[str, Any]:
    """On a :mod:`inev.simulator.engine.drift_streams` stream (seed 1, greedy plans): the
    work units of the invariant method with its defaults against the static plan and against
    the constant-threshold method at the threshold of the grid with the least work (the
    deterministic side of ``bench_invariant_paper.py``'s CPU figures), and its plan changes."""
    from inev.simulator.engine.drift_streams import STREAMS

    s = STREAMS[stream](events, seed=1)

    def run(adaptation: Adaptation) -> dict[str, int]:
        engine = s.engine(adaptation=adaptation)
        matches = 0
        for e in s.events:
            matches += len(engine.push(e))
        matches += len(engine.flush())
        return {**engine.counters, "matches": matches}

    static = run(Adaptation("off"))
    invariant = run(Adaptation("invariant"))
    thresholds = {t: run(Adaptation("threshold", threshold=t)) for t in PAPER_THRESHOLDS}
    best = min(thresholds, key=lambda t: thresholds[t]["work"])
    return {
        "of_static": invariant["work"] / static["work"],
        "of_threshold": invariant["work"] / thresholds[best]["work"],
        "threshold": best,
        "plan_changes": invariant["plan_changes"],
        "matches": {c["matches"] for c in (static, invariant, *thresholds.values())},
    }


def _print_invariant_paper() -> None:
    for stream in ("rate-swap", "traffic-like", "stocks-like", "stationary"):
        f = invariant_paper_figures(stream)
        print(
            f"invariant paper {stream}: invariant work {f['of_static']:.3f}x static, "
            f"{f['of_threshold']:.3f}x the least-work threshold (t={f['threshold']}), "
            f"{f['plan_changes']} plan changes"
        )


GROUPS: dict[str, Callable[[], None]] = {
    "shedding": _print_shedding,
    "pspice-paper": _print_pspice_paper,
    "planner": _print_planner,
    "simulator": _print_simulator,
    "adaptivity": _print_adaptivity,
    "invariant-paper": _print_invariant_paper,
}


if __name__ == "__main__":
    if sys.argv[1:] == ["planner", "--update"]:
        _print_planner(update=True)
    else:
        unknown = [name for name in sys.argv[1:] if name not in GROUPS]
        if unknown:
            sys.exit(f"error: no gate group {unknown[0]!r} (groups: {', '.join(GROUPS)})")
        for name in sys.argv[1:] or list(GROUPS):
            GROUPS[name]()
