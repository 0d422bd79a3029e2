"""Byte-identity check for refactorings of the local CEP engine: run a fixed set of engines
(static and adaptive plans, held negations, output selectors, Kleene closures, OR, selection
strategies, sub-projection inputs) over seeded streams and dump every output's event ids and
the engine's counters as one JSON file. Compare two checkouts' outputs with ``cmp``.

Run: ``python benchmarks/engine_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from inev.simulator.engine.engine import Adaptation, Engine
from inev.simulator.engine.events import Event, make_event
from inev.simulator.engine.selection import Selection


def stream(n: int, types: str, seed: int, swap: bool = False) -> list:
    """``n`` events of the given types, rates swapped half-way when ``swap``."""
    rng = random.Random(seed)
    t, out = 0.0, []
    for i in range(n):
        t += rng.expovariate(4.0)
        weights = list(range(1, len(types) + 1))
        if swap and i > n // 2:
            weights.reverse()
        typ = rng.choices(types, weights)[0]
        out.append(make_event(t, typ, 0, i, {"v": rng.randint(0, 9)}))
    return out


def ids(output) -> list:
    return [m.id if isinstance(m, Event) else [e.id for e in m] for m in output]


CASES = {
    "seq4-greedy": ("SEQ(A, B, C, D)", {"selectivities": {"A B": 0.2, "C D": 0.2}}),
    "seq4-zstream": ("SEQ(A, B, C, D)", {"selectivities": {"A B": 0.2}, "plan": "zstream"}),
    "seq4-invariant": (
        "SEQ(A, B, C, D)",
        {"selectivities": {"A B": 0.2, "C D": 0.2}, "adaptation": Adaptation("invariant")},
    ),
    "seq4-always": (
        "SEQ(A, B, C, D)",
        {"selectivities": {"A B": 0.3}, "adaptation": Adaptation("always", check_every=64)},
    ),
    "seq4-threshold-zstream": (
        "AND(A, B, C, D)",
        {
            "selectivities": {"A B": 0.1, "B C": 0.3},
            "plan": "zstream",
            "adaptation": Adaptation("threshold", check_every=32, threshold=0.2),
        },
    ),
    "negation-held": ("AND(A, B, NOT(C))", {"selectivities": {"A B": 0.3}}),
    "negation-inside": ("NSEQ(A, C, B)", {}),
    "output-selector": ("SEQ(A, B, C)", {"output": ["A", "C"], "selectivities": {"A B": 0.2}}),
    "kleene": ("SEQ(A, KL(B), C)", {"where": "A.v == C.v"}),
    "kleene-composite": ("SEQ(A, KL(SEQ(B, C)), D)", {"where": "A.v < D.v"}),
    "or": ("OR(SEQ(A, B), SEQ(C, D))", {"adaptation": Adaptation("always", check_every=50)}),
    "where": ("SEQ(A, B, C)", {"where": "A.v == B.v AND B.v < C.v"}),
    "next": ("SEQ(A, B)", {"selection": Selection("next")}),
    "consume": ("SEQ(A, B)", {"selection": Selection(consume=frozenset({"A"}))}),
    "lateness": ("SEQ(A, B, C)", {"lateness": 0.5, "selectivities": {"A B": 0.3}}),
}


def run_all() -> dict:
    """Every case's outputs and counters, by case name."""
    out: dict = {}
    for k, (name, (pattern, options)) in enumerate(CASES.items()):
        events = stream(1500, "ABCD", seed=k, swap=True)
        if name == "lateness":
            rng = random.Random(9)
            events = sorted(events, key=lambda e: e.time + rng.uniform(0, 0.4))
        engine = Engine(pattern, window=2.0, **options)
        found = []
        for e in events:
            found.append(ids(engine.push(e)))
        found.append(ids(engine.flush()))
        out[name] = {
            "outputs": found,
            "counters": engine.counters,
            "plans": [str(p) for p in engine.plans],
        }
    # sub-projection inputs: matches of SEQ(B, C) pushed as tuples
    inner = Engine("SEQ(B, C)", window=2.0)
    outer = Engine("SEQ(A, B, C)", window=2.0, inputs=["A", "SEQ(B, C)"])
    found = []
    for e in stream(1000, "ABC", seed=99):
        items = [e] if e.type == "A" else inner.push(e)
        for item in items:
            found.append(ids(outer.push(item)))
    found.append(ids(outer.flush()))
    out["sub-projection"] = {"outputs": found, "counters": outer.counters}
    return out


def main() -> None:
    """Write the documents to the path given."""
    documents = run_all()
    Path(sys.argv[1]).write_text(json.dumps(documents, indent=0) + "\n")
    print(f"{len(documents)} engine runs written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
