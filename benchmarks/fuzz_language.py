"""Generated workloads in the whole query language, put through every command in a chain.

:mod:`fuzz_commands` mutates valid files; this module writes new ones that are valid by
construction but hostile in size and shape (issue 43): pattern variables over one stream (up
to 60 of them), ``NOT`` inside sequences, ``NSEQ``, Kleene closures with bounds, ``OR``, nested
Kleene over composites with ``NEXT`` conditions, selectivities, windows from 0.01 to 50, and
traces of 0, 1 or a few hundred events. Each case is a chain in one folder: ``plan`` (a random
method and options, time budgets included), then every command that reads the plan
(``simulate``, with and without the trace; ``repair``; ``draw`` as a page, a picture and text;
``show``) and ``match`` over the trace.

Besides the promises of :func:`fuzz_commands.classify` (one ``error:`` line, no traceback, no
file left, no hang), a chain fails when a command refuses the plan ``inev plan`` just wrote
(an error naming the plan file): every plan inev writes must be usable by inev.

>>> import random
>>> steps, files = language_chain(random.Random(1), {"net.json": b"{}", "changes.json": b"{}"})
>>> steps[0][0]
'plan'
"""

from __future__ import annotations

import json
import random
from typing import Any

TYPES = ("A", "B", "C", "D")
"""The corpus network's types (``inev network generate --event-types 4``)."""
PLAN = "p.json"
"""The plan file each chain writes (an error naming it is a refused own plan)."""


def _leaf(rng: random.Random, used: set[str], index: int, query: int) -> str:
    t = rng.choice(TYPES)
    if t in used or rng.random() < 0.5:
        return f"{t} v{query}_{index}"
    used.add(t)
    return t


def _pattern(rng: random.Random, query: int) -> tuple[str, list[str]]:
    """A random pattern of the language, and its leaf names."""
    used: set[str] = set()
    shape = rng.choices(
        ["seq", "and", "nseq", "or", "wide", "nested", "kleene-next"],
        weights=[5, 4, 2, 2, 2, 2, 1],
    )[0]
    if shape == "wide":  # many variables over one stream: the size checks' hard case
        n = rng.choice([8, 17, 20, 30, 60])
        leaves = [f"C w{query}_{i}" for i in range(n)]
        return f"{rng.choice(['SEQ', 'AND'])}({', '.join(leaves)})", leaves
    if shape == "nseq":
        a, b, c = (_leaf(rng, used, i, query) for i in range(3))
        return f"NSEQ({a}, {b}, {c})", [a, c]
    if shape == "kleene-next":
        return "SEQ(A, KL(SEQ(B, KL(C){2,3})){1,2})", ["A", "B"]
    leaves = [_leaf(rng, used, i, query) for i in range(rng.randint(2, 5))]
    children = [_decorate(rng, leaf) for leaf in leaves]
    if shape == "or" and len(children) >= 4:
        return f"OR(SEQ({', '.join(children[:2])}), AND({', '.join(children[2:])}))", leaves
    if shape == "nested" and len(children) >= 4:
        inner = ", ".join(children[1:3])
        return f"SEQ({children[0]}, AND({inner}), {', '.join(children[3:])})", leaves
    kind = "AND" if shape == "and" else "SEQ"
    if kind == "SEQ" and rng.random() < 0.4:
        negated = rng.choice(TYPES)
        if all(not c.split("(")[-1].startswith(negated) for c in children):
            children.insert(rng.randint(0, len(children)), f"NOT({negated})")
    return f"{kind}({', '.join(children)})", leaves


def _decorate(rng: random.Random, leaf: str) -> str:
    """A leaf, or a Kleene closure of it with or without bounds."""
    if " " in leaf or rng.random() < 0.6:
        return leaf
    if rng.random() < 0.5:
        return f"KL({leaf})"
    low = rng.randint(1, 3)
    return f"KL({leaf}){{{low},{low + rng.randint(0, 3)}}}"


def workload(rng: random.Random) -> dict[str, Any]:
    """A random workload document of 1 to 3 queries."""
    queries = []
    for i in range(rng.randint(1, 3)):
        pattern, leaves = _pattern(rng, i)
        entry: dict[str, Any] = {"name": f"q{i}", "pattern": pattern}
        names = [leaf.split()[-1] for leaf in leaves]
        if len(names) >= 2 and rng.random() < 0.5:
            entry["selectivity"] = {f"{names[0]} {names[1]}": rng.choice([0.01, 0.1, 0.5])}
        if "KL(C){2,3}" in pattern:
            entry["where"] = "NEXT(C).v > 2"
        queries.append(entry)
    window = rng.choice([0.01, 0.5, 1.0, 1.0, 5.0, 50.0])
    return {"format": "inev-workload/1", "window": window, "queries": queries}


def trace(rng: random.Random, network: dict[str, Any]) -> str:
    """A CSV trace of the network's types at their sources: empty, one event, or a burst."""
    size = rng.choice([0, 1, 25, 200])
    rows = []
    types = [t for t in TYPES if t in network.get("event_types", {})]
    time = 0.0
    for i in range(size):
        t = rng.choice(types)
        time += rng.choice([0.0, 0.01, 0.2])
        node = rng.choice(network["event_types"][t]["sources"])
        rows.append(f"{time:.3f},{t},{node},{i},{rng.randrange(6)}\n")
    return "time,type,node,id,v\n" + "".join(rows)


def language_chain(
    rng: random.Random, corpus: dict[str, bytes]
) -> tuple[list[list[str]], dict[str, bytes]]:
    """One chain: its steps (argv lists, ``plan`` first) and the files to write."""
    network = json.loads(corpus["net.json"]) if corpus["net.json"].strip() != b"{}" else {}
    files = {
        "net.json": corpus["net.json"],
        "changes.json": corpus["changes.json"],
        "wl.json": json.dumps(workload(rng)).encode(),
        "trace.csv": trace(rng, network).encode() if network else b"time,type,node,id\n",
    }
    method = rng.choices(["inev", "exact", "centralized", "ppop", "isolated"], [6, 2, 1, 1, 1])[0]
    plan = ["plan", "net.json", "wl.json", "-o", PLAN, "--method", method]
    if method in ("inev", "exact") and rng.random() < 0.5:
        plan += ["--time-budget", rng.choice(["0.5", "2", "5"])]
    if method == "inev":
        plan += ["--effort", rng.choice(["0", "0.3", "1"])]
    steps = [
        plan,
        ["simulate", "net.json", "wl.json", PLAN, "--duration", "2", "--seed", "1", "-o", "s.json"],
        ["simulate", "net.json", "wl.json", PLAN, "--trace", "trace.csv", "-o", "st.json"],
        ["repair", PLAN, "net.json", "wl.json", "--changes", "changes.json", "-o", "r.json"],
        ["draw", PLAN, "--network", "net.json", "-o", rng.choice(["d.html", "d.png", "d.svg"])],
        ["draw", PLAN, "--text"],
        ["show", PLAN],
        ["match", "wl.json", "trace.csv", "-o", "m.jsonl"],
    ]
    return steps, files
