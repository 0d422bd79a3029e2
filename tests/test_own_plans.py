"""Every plan ``inev plan`` writes is accepted by every command that reads plans (issue 43).

Over generated workloads in the whole planned language (pattern variables, NOT inside a SEQ,
NSEQ, Kleene closures with bounds, OR, selectivities) and on networks where regional
placements pay, the plan file goes through ``simulate``, ``repair`` (a link failure that
keeps the network connected, then a rate swap), ``draw`` and ``show``. Each may refuse what it
does not evaluate (in one ``error:`` line), but never the plan itself: a refusal that names
the plan file is the failure this test exists for.
"""

from __future__ import annotations

import json

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

TYPES = ("A", "B", "C", "D")


def _stars() -> dict:
    """Two stars of five A sources joined over two links (regional placements pay here)."""
    links = [[0, leaf] for leaf in range(1, 6)] + [[6, leaf] for leaf in range(7, 12)]
    links += [[0, 12], [12, 13], [13, 6], [12, 3], [13, 9]]
    return {
        "format": "inev-network/1",
        "nodes": list(range(14)),
        "links": links,
        "event_types": {
            "A": {"rate": 1.0, "sources": [*range(1, 6), *range(7, 12)]},
            "B": {"rate": 2.0, "sources": [12]},
            "C": {"rate": 0.5, "sources": [3, 13]},
            "D": {"rate": 4.0, "sources": [0, 6, 9]},
        },
    }


def _ring() -> dict:
    """Six nodes in a ring with one chord, every type at two or three of them."""
    return {
        "format": "inev-network/1",
        "nodes": list(range(6)),
        "links": [[i, (i + 1) % 6] for i in range(6)] + [[0, 3]],
        "event_types": {
            "A": {"rate": 3.0, "sources": [0, 2, 4]},
            "B": {"rate": 1.0, "sources": [1, 3]},
            "C": {"rate": 0.2, "sources": [5]},
            "D": {"rate": 2.0, "sources": [1, 4]},
        },
    }


@st.composite
def leaves(draw, count: int, query: int) -> list[str]:
    """``count`` distinct leaves: event types, or variables of a type (``C v0_1``, named
    after the query: a variable names one type in the whole workload)."""
    out: list[str] = []
    used: set[str] = set()
    for i in range(count):
        t = draw(st.sampled_from(TYPES))
        if t in used or draw(st.booleans()):
            out.append(f"{t} v{query}_{i}")
        else:
            used.add(t)
            out.append(t)
    return out


@st.composite
def patterns(draw, query: int) -> tuple[str, list[str]]:
    """A pattern and its leaf names."""
    kind = draw(st.sampled_from(["SEQ", "AND", "NSEQ", "OR"]))
    if kind == "NSEQ":
        first, negated, last = draw(leaves(3, query))
        return f"NSEQ({first}, {negated}, {last})", [first, last]
    names = draw(leaves(4 if kind == "OR" else draw(st.integers(2, 4)), query))
    children = []
    for name in names:
        shape = draw(st.sampled_from(["leaf", "leaf", "kleene", "bounded"]))
        if shape == "kleene" and " " not in name:
            children.append(f"KL({name})")
        elif shape == "bounded" and " " not in name:
            low = draw(st.integers(1, 2))
            children.append(f"KL({name}){{{low},{low + draw(st.integers(0, 2))}}}")
        else:
            children.append(name)
    if kind == "OR":
        return f"OR(SEQ({', '.join(children[:2])}), AND({', '.join(children[2:])}))", names
    if kind == "SEQ" and draw(st.booleans()):
        negated = draw(st.sampled_from(TYPES))
        if all(not c.startswith(negated) for c in children):
            children.insert(1, f"NOT({negated})")
    return f"{kind}({', '.join(children)})", names


@st.composite
def workloads(draw) -> dict:
    queries = []
    for i in range(draw(st.integers(1, 2))):
        pattern, names = draw(patterns(i))
        entry = {"name": f"q{i}", "pattern": pattern}
        if draw(st.booleans()):
            pair = " ".join(n.split()[-1] for n in names[:2])
            entry["selectivity"] = {pair: draw(st.sampled_from([0.1, 0.5]))}
        queries.append(entry)
    return {"format": "inev-workload/1", "window": 1.0, "queries": queries}


def _removable_link(network: dict) -> list:
    graph = nx.Graph(tuple(link[:2]) for link in network["links"])
    return next(list(e) for e in graph.edges if nx.is_connected(nx.restricted_view(graph, [], [e])))


def _not_about_the_plan(code: int, err: str) -> None:
    if code != 0:
        assert err.count("\n") == 1 and err.startswith("error: "), err
        assert "p.json" not in err and "internal error" not in err, err


@settings(max_examples=20)
@given(workloads(), st.booleans())
def test_every_command_that_reads_plans_accepts_the_plans_inev_writes(tmp_path_factory, wl, big):
    d = tmp_path_factory.mktemp("own")
    network = _stars() if big else _ring()
    (d / "n.json").write_text(json.dumps(network))
    (d / "w.json").write_text(json.dumps(wl))
    changes = {
        "format": "inev-changes/1",
        "changes": [
            {"kind": "link-down", "link": _removable_link(network)},
            {"kind": "swap-rates", "types": ["A", "D"]},
        ],
    }
    (d / "ch.json").write_text(json.dumps(changes))
    from inev.common.cli import main

    def run(*args: str) -> tuple[int, str]:
        import contextlib
        import io

        err = io.StringIO()
        code = 0
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            try:
                main([str(a) for a in args])
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 1
        return code, err.getvalue()

    code, err = run("plan", d / "n.json", d / "w.json", "-o", d / "p.json", "--effort", "0.3")
    if code != 0:  # a workload the planner does not plan, refused in one line
        assert err.count("\n") == 1 and err.startswith("error: ") and "internal" not in err, err
        return
    # one window of events (the workloads' window is 1): simulate reads every vertex of the
    # plan as it did over two windows, at a fraction of the matching (Kleene closures over ten
    # A sources made two windows nine tenths of this test's time)
    reads = [
        ("simulate", d / "n.json", d / "w.json", d / "p.json", "--duration", "1", "-o",
         d / "s.json"),
        ("repair", d / "p.json", d / "n.json", d / "w.json", "--changes", d / "ch.json", "-o",
         d / "r.json"),
        ("draw", d / "p.json", "--network", d / "n.json", "-o", d / "p.svg"),
        ("draw", d / "p.json", "--text"),
        ("show", d / "p.json"),
    ]  # fmt: skip
    for args in reads:
        _not_about_the_plan(*run(*args))
