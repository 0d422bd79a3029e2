"""A brute-force matcher for the engine tests: enumerate every combination (tests only).

It follows the semantics of :mod:`inev.simulator.engine.constraints` directly on the pattern
tree, without the engine's constraint model: a leaf matches each event of its stream (a
variable ``GOOG a`` each GOOG event), a KL every set of its events of the allowed sizes
(strictly increasing times, or any order of equal times under ties ``any``), a KL over a
composite every set of event-disjoint matches of its sub-pattern (chained in time over a
SEQ), SEQ/NSEQ concatenate in time order, AND combines freely, OR unites; then distinct
events, the window, the pairwise predicates, the where conjuncts (universal over Kleene
events, NEXT over consecutive ones, positions) and the negations: a blocking event lies
after every leaf the pattern orders before the negated one and before every leaf it orders
after it (the lowest common ancestor is a SEQ or NSEQ), the window bounding a side with no
such leaf, and satisfies every predicate naming its type.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

from inev.simulator.engine.events import make_event, pair_holds
from inev.workloads.expressions import condition_attributes, conjuncts, evaluate
from inev.workloads.pattern import Operator, Primitive, kl, leaf_types, not_


class _Trend(tuple):
    """A Kleene trend (tuple of events) or a trend of iterations (tuple of dicts)."""


def _leaves(node):
    if isinstance(node, Primitive):
        return [node]
    return [x for c in node.children for x in _leaves(c)]


def _times(value):
    if isinstance(value, _Trend):
        out = []
        for v in value:
            out.extend(_times(v))
        return out
    if isinstance(value, dict):
        return [t for v in value.values() for t in _times(v)]
    return [value.time]


def _events(value):
    if isinstance(value, _Trend):
        return [e for v in value for e in _events(v)]
    if isinstance(value, dict):
        return [e for v in value.values() for e in _events(v)]
    return [value]


def _before(a_times, b_times, ties):
    if not a_times or not b_times:
        return True
    return max(a_times) < min(b_times) if ties == "strict" else max(a_times) <= min(b_times)


def _subsets(items, low, high):
    top = len(items) if high is None else min(high, len(items))
    for r in range(max(low, 1), top + 1):
        yield from itertools.combinations(items, r)


def _cands(node, by_stream, ties, streams):
    """``(assignment, negated)`` pairs: ``{leaf: event | _Trend}`` of the positive leaves,
    and the negated leaves of the chosen OR branches."""
    if isinstance(node, Primitive):
        return [({node.type: e}, ()) for e in by_stream.get(streams.get(node.type, node.type), [])]
    if node.kind == "NOT":
        return [({}, (node.children[0].type,))]
    if node.kind == "KL":
        low, high = node.bounds or (1, None)
        child = node.children[0]
        if isinstance(child, Primitive):
            evs = by_stream.get(streams.get(child.type, child.type), [])
            out = []
            for combo in _subsets(evs, low, high):
                times = [e.time for e in combo]
                if ties == "strict" and any(a >= b for a, b in itertools.pairwise(times)):
                    continue
                out.append(({child.type: _Trend(combo)}, ()))
            return out
        chained = child.kind != "AND"
        its = [a for a, _ in _cands(child, by_stream, ties, streams) if a]
        its.sort(key=lambda a: _iteration_key(a, child))
        out = []
        for combo in _subsets(its, low, high):
            ids = [{(e.type, e.id) for e in _events(a)} for a in combo]
            if any(x & y for x, y in itertools.combinations(ids, 2)):
                continue
            if chained and not all(
                _before(_times(a), _times(b), ties) for a, b in itertools.pairwise(combo)
            ):
                continue
            out.append(({_slot(node): _Trend(combo)}, ()))
        return out
    if node.kind == "OR":
        out = []
        for c in node.children:
            out.extend(_cands(c, by_stream, ties, streams))
        return out
    children = node.children
    negs: tuple = ()
    if node.kind == "NSEQ":
        children = (children[0], children[2])
        negs = (node.children[1].type,)
    out = []
    for combo in itertools.product(*(_cands(c, by_stream, ties, streams) for c in children)):
        if node.kind in ("SEQ", "NSEQ") and not all(
            _before(_times(a), _times(b), ties)
            for (a, _), (b, _) in itertools.combinations(combo, 2)
        ):
            continue
        merged: dict = {}
        found = negs
        for a, n in combo:
            merged.update(a)
            found += n
        out.append((merged, found))
    return out


def _slot(node):
    return f"KL({node.children[0]})"


def _iteration_key(assignment, child):
    events = _iteration_events(assignment, child)
    return (max(e.time for e in events), min(e.time for e in events), tuple(e.id for e in events))


def _iteration_events(assignment, child):
    out = []
    for leaf in _leaves(child):
        v = assignment.get(leaf.type)
        if v is None:
            continue
        out.extend(v if isinstance(v, _Trend) else [v])
    return out


def _fields(e):
    return {"time": e.time, "node": e.node, "id": e.id, **e.attrs}


def _choices(value, attrs, t):
    """Bindings of one leaf for a conjunct: each element (with its successor for NEXT)."""
    if not isinstance(value, _Trend):
        return [({t: _fields(value)}, {})]
    nexts = any(a.next for a in attrs if a.type == t)
    plain = any(not a.next and a.position is None for a in attrs if a.type == t)
    fixed = {}
    for a in attrs:
        if a.type == t and a.position is not None:
            k = a.position
            if k > len(value):
                return None  # a position the trend lacks: the conjunct is false
            fixed[(t, k)] = _fields(value[k - 1 if k > 0 else -1])
    if nexts:
        return [
            ({t: _fields(value[i]), **fixed}, {t: _fields(value[i + 1])})
            for i in range(len(value) - 1)
        ]
    if plain:
        return [({t: _fields(e), **fixed}, {}) for e in value]
    return [(fixed, {})]


def _conjunct_holds(cond, assignment):
    attrs = condition_attributes(cond)
    types = sorted({a.type for a in attrs})
    options = [_choices(assignment[t], attrs, t) for t in types]
    if any(o is None for o in options):
        return False
    for combo in itertools.product(*options):
        binding, following = {}, {}
        for b, f in combo:
            binding.update(b)
            following.update(f)
        if not evaluate(cond, binding, following):
            return False
    return True


def _iteration_conjunct_holds(cond, trend, child):
    """A conjunct over a composite's leaves on its iterations: NEXT pairs consecutive
    iterations, positions pick one, plain leaves range over the iterations."""
    attrs = condition_attributes(cond)
    nexts = any(a.next for a in attrs)
    fixed = {}
    for a in attrs:
        if a.position is not None:
            k = a.position
            if k > len(trend):
                return False
            fixed[(a.type, k)] = _fields(trend[k - 1 if k > 0 else -1][a.type])
    plain = [a for a in attrs if a.position is None and not a.next]
    if nexts:
        pairs = list(itertools.pairwise(trend))
        return all(
            evaluate(
                cond,
                {a.type: _fields(x[a.type]) for a in plain},
                {a.type: _fields(y[a.type]) for a in attrs if a.next},
            )
            for x, y in pairs
        )
    if plain:
        return all(
            evaluate(cond, {**fixed, **{a.type: _fields(it[a.type]) for a in plain}})
            for it in trend
        )
    return evaluate(cond, fixed)


def _order_relation(pattern):
    """``{(x, y)}``: leaf x is before leaf y (their lowest common ancestor is a SEQ or an
    NSEQ and x's child comes first)."""
    out = set()

    def visit(node):
        if isinstance(node, Primitive):
            return
        if node.kind in ("SEQ", "NSEQ"):
            groups = [[leaf.type for leaf in _leaves(c)] for c in node.children]
            for i, left in enumerate(groups):
                for right in groups[i + 1 :]:
                    out.update((x, y) for x in left for y in right)
        for c in node.children:
            visit(c)

    visit(pattern)
    return out


def _composites(pattern):
    return {
        _slot(n): n.children[0]
        for n in _walk(pattern)
        if isinstance(n, Operator) and n.kind == "KL" and not isinstance(n.children[0], Primitive)
    }


def oracle(
    pattern,
    events,
    window,
    selectivities=None,
    where=None,
    seed=0,
    ties="strict",
    streams=None,
    multiset=False,
):
    """Every match as a tuple of event ids in pattern order (with ``multiset``, a Counter:
    two matches may list the same events when two Kleene leaves of one stream split a run
    of events differently)."""
    streams = dict(streams or {})
    by_stream: dict = {}
    for e in events:
        by_stream.setdefault(e.type, []).append(e)
    sel = dict(selectivities or {})
    items = conjuncts(where) if where is not None else ()
    order = _order_relation(pattern)
    composites = _composites(pattern)
    inner = {leaf.type: slot for slot, c in composites.items() for leaf in _leaves(c)}
    # a composite's leaves are ordered as its slot is
    order = {(inner.get(x, x), inner.get(y, y)) for x, y in order}
    all_negated = {
        n.children[1 if n.kind == "NSEQ" else 0].type
        for n in _walk(pattern)
        if isinstance(n, Operator) and n.kind in ("NOT", "NSEQ")
    }
    found = Counter()
    for assignment, negated in _cands(pattern, by_stream, ties, streams):
        if not assignment:
            continue
        flat = _flatten(assignment, composites)
        evs = [e for v in flat.values() for e in (v if isinstance(v, _Trend) else [v])]
        if len({(e.type, e.id) for e in evs}) != len(evs):
            continue  # two leaves bound one event
        times = [e.time for e in evs]
        if max(times) - min(times) > window:
            continue
        named = {t: _relabel(v, t) for t, v in flat.items()}
        if not _pairs_hold(named, sel, seed):
            continue
        if not all(
            _pairs_hold({t: _relabel(v, t) for t, v in it.items()}, sel, seed)
            for slot in composites
            for it in assignment.get(slot, ())
        ):
            continue
        names = set(flat) | set(inner)
        ok = True
        for c in items:
            scope = {a.type for a in condition_attributes(c)}
            if not scope <= names or scope & set(all_negated):
                continue
            if scope & set(inner):
                slot = inner[next(iter(scope & set(inner)))]
                trend = assignment.get(slot)
                if trend is None:
                    continue
                if not any(a.next or a.position is not None for a in condition_attributes(c)):
                    if not all(_conjunct_holds(c, it) for it in trend):
                        ok = False
                elif not _iteration_conjunct_holds(c, trend, composites[slot]):
                    ok = False
            elif not _conjunct_holds(c, flat):
                ok = False
            if not ok:
                break
        if not ok:
            continue
        if _blocked(negated, flat, order, by_stream, window, sel, seed, items, ties, streams):
            continue
        leaf_order = [leaf.type for leaf in _leaves(pattern)]
        out = []
        for t in leaf_order:
            slot = inner.get(t)
            if slot is not None:
                if slot in assignment and t == _leaves(composites[slot])[0].type:
                    for it in assignment[slot]:
                        out.extend(e.id for e in _iteration_events(it, composites[slot]))
                continue
            v = flat.get(t)
            if v is None:
                continue
            out.extend(e.id for e in (v if isinstance(v, _Trend) else [v]))
        found[tuple(out)] += 1
    return found if multiset else set(found)


def _flatten(assignment, composites):
    """Leaves of the outer pattern (a composite's slot kept as its iterations' events)."""
    out = {}
    for t, v in assignment.items():
        if t in composites:
            out[t] = _Trend(e for it in v for e in _events(it))
        else:
            out[t] = v
    return out


def _relabel(value, t):
    if isinstance(value, _Trend):
        return _Trend(e._replace(type=t) for e in value)
    return value._replace(type=t)


def _blocked(negated, flat, order, by_stream, window, sel, seed, items, ties, streams):
    positive_times = [t for v in flat.values() for t in _times(v)]
    bound = {(e.type, e.id) for v in flat.values() for e in _events(v)}
    for n in negated:
        before = [t for (x, y) in order if y == n and x in flat for t in _times(flat[x])]
        after = [t for (x, y) in order if x == n and y in flat for t in _times(flat[y])]
        closed = ties == "any"
        for x in by_stream.get(streams.get(n, n), []):
            if (x.type, x.id) in bound:
                continue
            if before:
                lo = max(before)
                if not (lo <= x.time if closed else lo < x.time):
                    continue
            elif x.time < max(positive_times) - window:
                continue
            if after:
                hi = min(after)
                if not (x.time <= hi if closed else x.time < hi):
                    continue
            elif x.time > min(positive_times) + window:
                continue
            full = {**{t: _relabel(v, t) for t, v in flat.items()}, n: x._replace(type=n)}
            if not _pairs_hold(full, sel, seed, only=n):
                continue
            if all(
                _conjunct_holds(c, full)
                for c in items
                if n in {a.type for a in condition_attributes(c)}
                and {a.type for a in condition_attributes(c)} <= set(full)
            ):
                return True
    return False


def _pairs_hold(assignment, sel, seed, only=None):
    for (a, b), s in sel.items():
        if a not in assignment or b not in assignment:
            continue
        if only is not None and only not in (a, b):
            continue
        xs = assignment[a] if isinstance(assignment[a], _Trend) else [assignment[a]]
        ys = assignment[b] if isinstance(assignment[b], _Trend) else [assignment[b]]
        for x in xs:
            for y in ys:
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


def random_language_pattern(rng: random.Random, size: int = 4):
    """A random pattern with the constructs of the CEP language (issue 31): variables of
    one stream, NOT anywhere in a SEQ or an AND, Kleene size bounds, Kleene over a
    SEQ or AND. Returns ``(pattern, streams)``."""
    names = list("abcdefg")[:size]
    streams = {n: rng.choice("XYZ") for n in names}

    def leaf(n):
        return Primitive(n, streams[n])

    def build(ns, top):
        if len(ns) == 1:
            r = rng.random()
            if r < 0.2:
                return kl(leaf(ns[0]), rng.choice([1, 2]), rng.choice([None, 2, 3]) or None)
            return leaf(ns[0])
        if len(ns) in (2, 3) and rng.random() < 0.2 and not top:
            kind = rng.choice(["SEQ", "AND"])
            inner = Operator(kind, tuple(leaf(n) for n in ns))
            low = rng.choice([1, 1, 2])
            return kl(inner, low, low + 1)  # bounded: the oracle enumerates sets of matches
        kind = rng.choice(["SEQ", "SEQ", "AND"])
        parts = rng.randint(2, min(3, len(ns)))
        cuts = sorted(rng.sample(range(1, len(ns)), parts - 1))
        groups = [ns[i:j] for i, j in zip([0, *cuts], [*cuts, len(ns)], strict=True)]
        children = [build(g, False) for g in groups]
        return Operator(kind, tuple(children))

    positive = names[:-1] if size > 2 else names
    tree = build(positive, True)
    if size > 2:  # one negated leaf, placed first, last, between, or in an AND
        negation = not_(leaf(names[-1]))
        tree = _insert_negation(rng, tree, negation)
    used = {leaf_.type for leaf_ in _leaves(tree)}
    return tree, {n: s for n, s in streams.items() if n in used}


def _insert_negation(rng, tree, negation):
    candidates = [
        n
        for n in _walk(tree)
        if isinstance(n, Operator) and n.kind in ("SEQ", "AND") and not _under_kleene(tree, n)
    ]
    if not candidates:
        return Operator("SEQ", (tree, negation) if rng.random() < 0.5 else (negation, tree))
    target = rng.choice(candidates)
    at = rng.randint(0, len(target.children))

    def visit(node):
        if node is target:
            kids = list(node.children)
            kids.insert(at, negation)
            return Operator(node.kind, tuple(kids), node.bounds)
        if isinstance(node, Primitive):
            return node
        return Operator(node.kind, tuple(visit(c) for c in node.children), node.bounds)

    return visit(tree)


def _under_kleene(tree, target):
    return any(
        isinstance(n, Operator) and n.kind == "KL" and any(m is target for m in _walk(n))
        for n in _walk(tree)
    )


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
    types = list(leaf_types(pattern))
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


def random_language_where(rng: random.Random, pattern):
    """A random where condition for :func:`random_language_pattern`: equalities (keyed
    joins) between leaves outside Kleene closures, comparisons, NEXT and positions."""
    composite_leaves = {
        leaf.type for slot, c in _composites(pattern).items() for leaf in _leaves(c)
    }
    kleene = [
        n.children[0].type
        for n in _walk(pattern)
        if isinstance(n, Operator) and n.kind == "KL" and isinstance(n.children[0], Primitive)
    ]
    outer = [t for t in leaf_types(pattern) if t not in composite_leaves]
    items = []
    for _ in range(rng.randint(1, 3)):
        r = rng.random()
        if r < 0.2 and kleene:
            k = rng.choice(kleene)
            items.append(
                rng.choice([f"NEXT({k}).v >= {k}.v", f"{k}[2].v != 1", f"LAST({k}).v > 0"])
            )
        elif r < 0.35 and composite_leaves:
            a = rng.choice(sorted(composite_leaves))
            items.append(rng.choice([f"NEXT({a}).v >= {a}.v", f"FIRST({a}).v < 3", f"{a}.v != 2"]))
        elif r < 0.65 and len(outer) > 1:
            a, b = rng.sample(outer, 2)
            items.append(f"{a}.v == {b}.v")
        elif outer:
            a = rng.choice(outer)
            b = rng.choice(outer)
            items.append(f"{a}.v {rng.choice(['<', '<=', '!='])} {b}.v + 1")
    return " AND ".join(items) if items else None


def random_selectivities(rng: random.Random, pattern):
    """Random pairwise selectivities over a few type pairs."""
    types = sorted(leaf_types(pattern))
    out = {}
    for a, b in itertools.combinations(types, 2):
        if rng.random() < 0.4:
            out[(a, b)] = rng.choice([0.3, 0.6])
    return out
