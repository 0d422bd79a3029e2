"""A brute-force matcher for the engine tests: enumerate every combination (tests only).

It follows INEv §3.2 directly on the pattern tree: a primitive matches each event, a KL each
non-empty set of its events with distinct times, SEQ/NSEQ concatenate with strict time
order, AND combines freely, OR unites; then the window, the pairwise predicates, the where
conjuncts (universal over Kleene events, NEXT over consecutive ones) and the negations
(a blocking event lies strictly between and satisfies every predicate naming its type).
"""

from __future__ import annotations

import itertools
import random

from inev.simulator.engine.events import make_event, pair_holds
from inev.workloads.expressions import condition_attributes, conjuncts, evaluate
from inev.workloads.query import Operator, Primitive, event_types, kl


def _cands(node, by_type):
    """(assignment {type: tuple of events}, negations [(type, lo, hi)]) pairs."""
    if isinstance(node, Primitive):
        return [({node.type: (e,)}, ()) for e in by_type.get(node.type, [])]
    if node.kind == "KL":
        t = node.children[0].type
        evs = sorted(by_type.get(t, []), key=lambda e: e.time)
        out = []
        for r in range(1, len(evs) + 1):
            for combo in itertools.combinations(evs, r):
                times = [e.time for e in combo]
                if all(a < b for a, b in itertools.pairwise(times)):
                    out.append(({t: combo}, ()))
        return out
    if node.kind == "OR":
        out = []
        for c in node.children:
            out.extend(_cands(c, by_type))
        return out
    if node.kind == "NSEQ":
        first, neg, last = node.children
        out = []
        for (a, na), (b, nb) in itertools.product(_cands(first, by_type), _cands(last, by_type)):
            lo = max(e.time for v in a.values() for e in v)
            hi = min(e.time for v in b.values() for e in v)
            if lo < hi:
                out.append(({**a, **b}, (*na, *nb, (neg.type, lo, hi))))
        return out
    out = []
    for combo in itertools.product(*(_cands(c, by_type) for c in node.children)):
        if node.kind == "SEQ":
            ok = True
            for (a, _), (b, _) in itertools.pairwise(combo):
                if max(e.time for v in a.values() for e in v) >= min(
                    e.time for v in b.values() for e in v
                ):
                    ok = False
                    break
            if not ok:
                continue
        merged: dict = {}
        negs: tuple = ()
        for a, n in combo:
            merged.update(a)
            negs += n
        out.append((merged, negs))
    return out


def _fields(e):
    return {"time": e.time, "node": e.node, "id": e.id, **e.attrs}


def _conjunct_holds(cond, assignment, kleene):
    types = sorted({a.type for a in condition_attributes(cond)})
    nexts = {a.type for a in condition_attributes(cond) if a.next}
    choices = []
    for t in types:
        evs = assignment[t]
        if t in nexts:
            choices.append([(evs[i], evs[i + 1]) for i in range(len(evs) - 1)])
        else:
            choices.append([(e, None) for e in evs])
    for combo in itertools.product(*choices):
        binding = {t: _fields(c[0]) for t, c in zip(types, combo, strict=True)}
        following = {t: _fields(c[1]) for t, c in zip(types, combo, strict=True) if c[1]}
        if not evaluate(cond, binding, following):
            return False
    return True


def oracle(pattern, events, window, selectivities=None, where=None, seed=0):
    """Every match as a tuple of event ids in pattern order."""
    by_type: dict = {}
    for e in events:
        by_type.setdefault(e.type, []).append(e)
    sel = dict(selectivities or {})
    items = conjuncts(where) if where is not None else ()
    kleene = {
        n.children[0].type for n in _walk(pattern) if isinstance(n, Operator) and n.kind == "KL"
    }
    order = event_types(pattern)
    found = set()
    for assignment, negs in _cands(pattern, by_type):
        evs = [e for v in assignment.values() for e in v]
        times = [e.time for e in evs]
        if max(times) - min(times) > window:
            continue
        if not _pairs_hold(assignment, sel, seed):
            continue
        names = set(assignment)
        if not all(
            _conjunct_holds(c, assignment, kleene)
            for c in items
            if {a.type for a in condition_attributes(c)} <= names
        ):
            continue
        blocked = False
        for n_type, lo, hi in negs:
            for x in by_type.get(n_type, []):
                if not lo < x.time < hi:
                    continue
                full = {**assignment, n_type: (x,)}
                if not _pairs_hold(full, sel, seed, only=n_type):
                    continue
                if all(
                    _conjunct_holds(c, full, kleene)
                    for c in items
                    if n_type in {a.type for a in condition_attributes(c)}
                    and {a.type for a in condition_attributes(c)} <= set(full)
                ):
                    blocked = True
                    break
            if blocked:
                break
        if blocked:
            continue
        found.add(tuple(e.id for t in order if t in assignment for e in assignment[t]))
    return found


def _pairs_hold(assignment, sel, seed, only=None):
    for (a, b), s in sel.items():
        if a not in assignment or b not in assignment:
            continue
        if only is not None and only not in (a, b):
            continue
        for x in assignment[a]:
            for y in assignment[b]:
                if not pair_holds(x, y, s, seed):
                    return False
    return True


def _walk(node):
    yield node
    if isinstance(node, Operator):
        for c in node.children:
            yield from _walk(c)


# ------------------------------------------------------------------ random instances
def random_pattern(rng: random.Random, size: int = 4):
    """A random valid pattern over up to ``size`` types with every operator."""
    pool = list("ABCDEFG")[:size]
    rng.shuffle(pool)

    def build(types, depth):
        if len(types) == 1:
            return kl(types[0]) if rng.random() < 0.25 else Primitive(types[0])
        kinds = ["SEQ", "SEQ", "AND", "OR"]
        if len(types) >= 3:
            kinds.append("NSEQ")
        kind = rng.choice(kinds)
        if kind == "NSEQ":
            neg = types[1]
            rest = [types[0], *types[2:]]
            cut = rng.randint(1, len(rest) - 1)
            return Operator(
                "NSEQ", (build(rest[:cut], depth + 1), Primitive(neg), build(rest[cut:], depth + 1))
            )
        parts = rng.randint(2, min(3, len(types)))
        cuts = sorted(rng.sample(range(1, len(types)), parts - 1))
        groups = [types[i:j] for i, j in zip([0, *cuts], [*cuts, len(types)], strict=True)]
        return Operator(kind, tuple(build(g, depth + 1) for g in groups))

    return build(pool, 0)


def random_stream(rng: random.Random, types, n: int, horizon: int = 10):
    """``n`` events of the given types, integer times (ties likely), attribute ``v``."""
    events = []
    for i in range(n):
        t = rng.choice(types)
        events.append(
            make_event(
                float(rng.randint(0, horizon)),
                t,
                rng.randint(0, 2),
                i + 1,
                {"v": rng.randint(0, 3)},
            )
        )
    events.sort(key=lambda e: e.time)
    return events


def random_where(rng: random.Random, pattern):
    """A random where condition over attribute ``v`` (possibly with NEXT), or None."""
    types = list(event_types(pattern))
    kleene = [
        n.children[0].type for n in _walk(pattern) if isinstance(n, Operator) and n.kind == "KL"
    ]
    items = []
    for _ in range(rng.randint(1, 2)):
        r = rng.random()
        if r < 0.3 and kleene:
            k = rng.choice(kleene)
            items.append(f"NEXT({k}).v >= {k}.v")
        elif r < 0.5:
            items.append(f"{rng.choice(types)}.v != {rng.randint(0, 3)}")
        elif r < 0.75 and len(types) > 1:
            # equalities, chains of them and expressions: keyed joins
            a, b, c = rng.sample(types, 3) if len(types) > 2 else (*rng.sample(types, 2), None)
            items.append(f"{a}.v == {b}.v")
            if c is not None and rng.random() < 0.5:
                items.append(f"{b}.v == {c}.v" if rng.random() < 0.7 else f"{c}.v + 1 == {a}.v")
        else:
            a, b = rng.sample(types, 2) if len(types) > 1 else (types[0], types[0])
            op = rng.choice(["<", "<=", "!=", ">="])
            items.append(f"{a}.v {op} {b}.v + 1")
    return " AND ".join(items)


def random_selectivities(rng: random.Random, pattern):
    """Random pairwise selectivities over a few type pairs."""
    types = sorted(event_types(pattern))
    out = {}
    for a, b in itertools.combinations(types, 2):
        if rng.random() < 0.4:
            out[(a, b)] = rng.choice([0.3, 0.6])
    return out
