"""Running one evaluation plan (ZStream-style tree evaluation, adaptive-CEP paper §2.2).

:func:`compile_plan` turns a tree over the units into generated join functions, one pair
per inner node (new items from the left joined with the right buffer, and vice versa); every
constraint is checked at the lowest inner node that holds its whole scope, negation
included, so no match is built only to be filtered later. :class:`PlanRunner` holds the
buffers of one plan instance: leaves buffer the units' items, inner nodes buffer partial
matches, the root emits matches. A partial match is the tuple
``(earliest time, latest time, smallest sequence number, binding)`` where the binding has
one entry per slot (``None`` while unbound). An item enters the plan once, when it is
processed; it joins what its sibling subtree already holds, so each combination is built
exactly once, when its last item arrives.

Kleene units keep every trend (non-empty time-ordered subset of their events within the
window) in their leaf; a new event extends every buffered trend it may follow, so trends
are built once and incrementally.

**Keyed joins.** When equality conjuncts tie the two sides of an inner node
(:func:`.keys.join_keys`, ``A.bid == B.bid`` and chains of them), both children's buffers
are also kept partitioned by their side's key (a dictionary from key to the buffered items
with that key), and a new item is joined only with the items of its own key. The buffers
stay plain lists (load shedding reads and replaces them); each key index is tied to the
list it was built from and rebuilt when the list was replaced (a purge, a shedder).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from inev.simulator.engine.constraints import Constraints
from inev.simulator.engine.evaluation_plans import Tree
from inev.simulator.engine.events import DEFAULT_SELECTIVITY_SEED
from inev.simulator.engine.keys import join_keys
from inev.simulator.engine.kleene import KleeneRule, with_iteration
from inev.simulator.engine.predicates import _ERRORS, CodeGen

Item = tuple[float, float, int, tuple]
NO_KEY = object()
"""What a key function returns for an item whose key cannot be computed."""


@dataclass(frozen=True)
class Unit:
    """One input of the engine: ``event`` (a primitive type), ``kleene`` (a primitive
    type under KL, whose items are trends), ``composite`` (a KL over a composite, whose
    items are trends of iterations) or ``match`` (a sub-projection)."""

    label: str
    types: tuple[str, ...]
    kind: str
    covers: frozenset[str] = frozenset()  # every type of the input, negated ones included


def checks_for(
    gen: CodeGen,
    scope_types: frozenset[str],
    inside: tuple[frozenset[str], ...],
    var: Mapping[str, str],
    negation_buffers: Mapping[int, tuple[list, list]],
    trusted: tuple[frozenset[str], ...] = (),
) -> list[str]:
    """Source expressions of every constraint whose scope lies in ``scope_types`` but in none
    of ``inside`` (checked lower down); negations inside a ``trusted`` unit are skipped."""
    c = gen.c

    def here(scope: frozenset[str]) -> bool:
        return scope <= scope_types and not any(scope <= part for part in inside)

    out = [gen.order_expr(a, b, var) for a, b in c.order if here(frozenset((a, b)))]
    out += [gen.distinct_expr(a, b, var) for a, b in c.distinct if here(frozenset((a, b)))]
    out += [gen.pair_expr(a, b, s, var) for a, b, s in c.pairs if here(frozenset((a, b)))]
    out += [gen.condition_expr(x, var) for x in c.conditions if here(_scope(x))]
    for index, negation in enumerate(c.negations):
        if not here(negation.scope):
            continue
        if index in negation_buffers:
            out.append(gen.negation_expr(index, negation, var, negation_buffers[index]))
        elif not any(negation.scope | {negation.type} <= t for t in trusted):
            raise ValueError(f"negation of {negation.type} has no input to check it")
    return out


def _scope(condition: Any) -> frozenset[str]:
    from inev.simulator.engine.constraints import condition_scope

    return condition_scope(condition)


@dataclass
class CompiledPlan:
    """Generated join functions of one tree, and each leaf's path to the root."""

    tree: Tree
    node_count: int
    leaf_node: dict[int, int]
    paths: dict[int, list[tuple[Callable, int, int, bool]]]
    """Per unit: ``(join function, sibling node, parent node, keyed)`` up to the root."""
    root: int
    keys: dict[int, Callable[[tuple], Any]]
    """Key function of each node whose buffer is partitioned (over a binding)."""


def compile_plan(
    constraints: Constraints,
    units: list[Unit],
    tree: Tree,
    negation_buffers: Mapping[int, tuple[list, list]],
    selectivity_seed: int = DEFAULT_SELECTIVITY_SEED,
    joins: dict[tuple[frozenset[str], frozenset[str]], tuple] | None = None,
) -> CompiledPlan:
    """Generate the join code of every inner node of ``tree``.

    ``joins``: the join functions of inner nodes already generated for other trees of the
    same units and constraints, by the types of their left and right children (a node's
    code depends on nothing else); new ones are added. A re-optimised plan then compiles
    only the nodes it does not share with an earlier plan: compiling a plan of five units
    cost about 1.3 ms, 4 % of a 10,000-event run of the stocks-like stream per plan change
    (``benchmarks/bench_invariant_paper.py``).
    """
    gen = CodeGen(constraints, selectivity_seed)
    slots = {t: i for i, t in enumerate(constraints.types)}
    window = constraints.window
    counter = [0]
    leaf_node: dict[int, int] = {}
    parents: dict[int, tuple[int, int, Callable, bool]] = {}
    keys: dict[int, Callable[[tuple], Any]] = {}
    trusted = tuple(u.covers for u in units if u.kind == "match")

    def _node_joins(ltypes: frozenset[str], rtypes: frozenset[str]) -> tuple:
        """The two join functions of an inner node, its children's key functions (None when
        unkeyed) and its key pairs."""
        types = ltypes | rtypes
        var = {t: f"v_{t}" for t in types}
        checks = checks_for(gen, types, (ltypes, rtypes), var, negation_buffers, trusted=trusted)
        pairs = join_keys(constraints.conditions, ltypes, rtypes, constraints.kleene)
        if pairs:
            lkey = _key_source(gen, slots, [p[0] for p in pairs])
            rkey = _key_source(gen, slots, [p[1] for p in pairs])
        else:
            lkey = rkey = None
        from_left = _join_source(gen, slots, ltypes, rtypes, checks, window, lkey)
        from_right = _join_source(gen, slots, rtypes, ltypes, checks, window, rkey)
        return from_left, from_right, lkey, rkey, pairs

    def build(node: Tree) -> tuple[int, frozenset[str]]:
        index = counter[0]
        counter[0] += 1
        if isinstance(node, int):
            leaf_node[node] = index
            return index, frozenset(units[node].types) & frozenset(constraints.types)
        left, ltypes = build(node[0])
        right, rtypes = build(node[1])
        types = ltypes | rtypes
        known = None if joins is None else joins.get((ltypes, rtypes))
        if known is None:
            known = _node_joins(ltypes, rtypes)
            if joins is not None:
                joins[(ltypes, rtypes)] = known
        from_left, from_right, lkey, rkey, pairs = known
        if pairs:
            keys[left], keys[right] = lkey, rkey
        parents[left] = (index, right, from_left, bool(pairs))
        parents[right] = (index, left, from_right, bool(pairs))
        return index, types

    root, _ = build(tree)
    paths: dict[int, list[tuple[Callable, int, int, bool]]] = {}
    for unit, node in leaf_node.items():
        path = []
        while node in parents:
            parent, sibling, fn, keyed = parents[node]
            path.append((fn, sibling, parent, keyed))
            node = parent
        paths[unit] = path
    return CompiledPlan(tree, counter[0], leaf_node, paths, root, keys)


def _key_source(gen: CodeGen, slots: Mapping[str, int], exprs: list[Any]) -> Callable:
    """A function of a binding: the value of ``exprs`` (one, or a tuple), else ``NO_KEY``."""
    name = gen.fresh("_key")
    gen.namespace["_NO_KEY"] = NO_KEY
    used = sorted({a.type for x in exprs for a in _attributes(x)})
    lines = [f"def {name}(b):"]
    lines += [f"    e_{t} = b[{slots[t]}]" for t in used]
    values = [gen._expr(x) for x in exprs]
    value = values[0] if len(values) == 1 else "(" + ", ".join(values) + ",)"
    lines += [
        "    try:",
        f"        return {value}",
        f"    except {_ERRORS}:",
        "        return _NO_KEY",
    ]
    gen.define("\n".join(lines) + "\n")
    return gen.namespace[name]


def _attributes(expr: Any) -> Any:
    from inev.workloads.expressions import condition_attributes

    return condition_attributes(expr)


def _join_source(
    gen: CodeGen,
    slots: Mapping[str, int],
    new_types: frozenset[str],
    old_types: frozenset[str],
    checks: list[str],
    window: float,
    key: Callable | None = None,
) -> Callable:
    """A join of new items (``new_types`` bound) with a buffer (``old_types`` bound).

    Unkeyed: ``f(new, buf) -> outputs``. Keyed (``key`` computes a new item's key):
    ``f(new, buf, index) -> (outputs, pairs examined)``, each new item joined with
    ``index[its key]`` only (the whole ``buf`` when its key cannot be hashed).
    """
    name = gen.fresh("_join")
    if key is None:
        lines = [f"def {name}(new, buf):", "    out = []", "    app = out.append"]
    else:
        kname = gen.fresh("_probe")
        gen.namespace[kname] = key
        lines = [f"def {name}(new, buf, index):", "    out = []", "    app = out.append"]
        lines.append("    examined = 0")
        lines.append("    get = index.get")
    lines.append("    for nmin, nmax, nseq, nb in new:")
    for t in sorted(new_types):
        lines.append(f"        v_{t} = nb[{slots[t]}]")
    if key is None:
        lines.append("        for omin, omax, oseq, ob in buf:")
    else:
        lines.append(f"        k = {kname}(nb)")
        lines.append("        if k is _NO_KEY:")
        lines.append("            continue")
        lines.append("        try:")
        lines.append("            part = get(k)")
        lines.append("        except TypeError:")
        lines.append("            part = buf")
        lines.append("        if not part:")
        lines.append("            continue")
        lines.append("        examined += len(part)")
        lines.append("        for omin, omax, oseq, ob in part:")
    lines.append(f"            if nmax - omin > {window!r} or omax - nmin > {window!r}:")
    lines.append("                continue")
    shared = new_types & old_types  # overlapping inputs must agree on the shared events
    for t in sorted(old_types - shared):
        lines.append(f"            v_{t} = ob[{slots[t]}]")
    same = [
        f"_same_trend(v_{t}, ob[{slots[t]}])"
        if t in gen.c.kleene
        else f"v_{t}[3] == ob[{slots[t]}][3]"
        for t in sorted(shared)
    ]
    checks = same + checks
    if checks:
        lines.append(f"            if not ({' and '.join(checks)}):")
        lines.append("                continue")
    binding = []
    for t, _ in sorted(slots.items(), key=lambda kv: kv[1]):
        binding.append(f"v_{t}" if t in new_types or t in old_types else "None")
    lines.append(
        "            app((nmin if nmin < omin else omin, nmax if nmax > omax else omax,"
        f" nseq if nseq < oseq else oseq, ({', '.join(binding)},)))"
    )
    lines.append("    return out" if key is None else "    return out, examined")
    gen.define("\n".join(lines) + "\n")
    return gen.namespace[name]


class PlanRunner:
    """The state of one running plan instance: node buffers and its sequence range.

    ``checked`` counts the (new item, buffered item) pairs the joins examined (and the
    trends a Kleene event was tried against): the engine's work units; a keyed join
    examines only the items of the new item's key. When ``trace`` is a list, every join step
    appends ``(sibling node, items examined per new item, new items, outputs)`` (the
    sibling's size, or for a keyed join the mean size of the keys probed; load shedding
    observes partial-match transitions this way).

    ``end_seq`` is the first sequence number that belongs to a newer plan: a retiring plan
    reports only matches holding an older item (plan replacement of the adaptive-CEP paper,
    §2.2: partial matches with an old event finish on the old plan).
    """

    def __init__(self, plan: CompiledPlan, start_seq: int = 0) -> None:
        self.plan = plan
        self.start_seq = start_seq
        self.end_seq: float = float("inf")
        self.retire_after: float = float("inf")
        self.buffers: list[list[Item]] = [[] for _ in range(plan.node_count)]
        self.created = 0
        self.checked = 0  # (new, buffered) pairs the joins examined: the work of the plan
        self.trace: list[tuple[int, int, int, int]] | None = None  # set to observe joins
        # key index of each partitioned node, the buffer list it indexes, and how many
        # items the index still holds that the list has dropped (purged)
        self.indexes: dict[int, dict[Any, list[Item]]] = {}
        self.indexed: dict[int, list[Item]] = {}
        self.stale: dict[int, int] = {}
        self.keys = plan.keys
        # Kleene units whose rule keeps trends it does not use (size bounds, positions):
        # every trend, for growing (see .kleene)
        self.growing: dict[int, list[Item]] = {}

    def _index(self, node: int) -> dict[Any, list[Item]]:
        """The key index of ``node``'s buffer, rebuilt if the buffer list was replaced."""
        buf = self.buffers[node]
        if self.indexed.get(node) is buf:
            return self.indexes[node]
        index: dict[Any, list[Item]] = {}
        self._insert(index, self.keys[node], buf)
        self.indexes[node] = index
        self.indexed[node] = buf
        self.stale[node] = 0
        return index

    @staticmethod
    def _insert(index: dict[Any, list[Item]], key: Callable, items: list[Item]) -> None:
        for item in items:
            k = key(item[3])
            if k is NO_KEY:
                continue
            try:
                part = index.get(k)
            except TypeError:  # an unhashable key: only a full scan can find it
                continue
            if part is None:
                index[k] = [item]
            else:
                part.append(item)

    def _store(self, node: int, items: list[Item]) -> None:
        """Append ``items`` to ``node``'s buffer (and to its key index, if it is current)."""
        buf = self.buffers[node]
        buf.extend(items)
        key = self.keys.get(node)
        if key is not None and self.indexed.get(node) is buf:
            index = self.indexes[node]
            if len(items) == 1:  # the common case, inlined
                k = key(items[0][3])
                if k is not NO_KEY:
                    try:
                        part = index.get(k)
                    except TypeError:
                        return
                    if part is None:
                        index[k] = [items[0]]
                    else:
                        part.append(items[0])
            else:
                self._insert(index, key, items)

    def probe_size(self, node: int) -> float:
        """How many items of ``node``'s buffer a new item examines on average: all of them,
        or for a partitioned buffer the mean number per key."""
        buf = self.buffers[node]
        if node not in self.plan.keys or not buf:
            return float(len(buf))
        return len(buf) / max(len(self._index(node)), 1)

    def partition(self, node: int, leaf: int, binding: tuple) -> list[Item]:
        """The items of ``node``'s partitioned buffer that a new item with ``binding``
        entering at its sibling ``leaf`` would examine (its key's part; stale entries
        included, as the join counts them), without joining them."""
        key = self.keys[leaf](binding)
        if key is NO_KEY:
            return []
        buf = self.buffers[node]
        index = self.indexes[node] if self.indexed.get(node) is buf else self._index(node)
        try:
            return index.get(key) or []
        except TypeError:  # an unhashable key: the join scans the whole buffer
            return buf

    def feed(self, unit: int, items: list[Item]) -> list[Item]:
        """Insert new items of ``unit``; return the new root matches."""
        buffers = self.buffers
        leaf = self.plan.leaf_node[unit]
        path = self.plan.paths[unit]
        new = items
        if path:
            keys = self.keys
            if leaf in keys:
                self._store(leaf, items)
            else:
                buffers[leaf].extend(items)
            root = self.plan.root
            trace = self.trace
            indexed = self.indexed
            for fn, sibling, parent, keyed in path:
                buf = buffers[sibling]
                size = len(buf)
                count = len(new)
                if keyed:
                    index = (
                        self.indexes[sibling]
                        if indexed.get(sibling) is buf
                        else self._index(sibling)
                    )
                    new, examined = fn(new, buf, index)
                    self.checked += examined
                    if trace is not None:  # pairs examined per new item (its key's share)
                        trace.append((sibling, examined / count, count, len(new)))
                else:
                    self.checked += count * size
                    new = fn(new, buf)
                    if trace is not None:
                        trace.append((sibling, size, count, len(new)))
                if not new:
                    return new
                self.created += len(new)
                if parent != root:
                    if parent in keys:
                        self._store(parent, new)
                    else:
                        buffers[parent].extend(new)
        if self.end_seq != float("inf"):
            end = self.end_seq
            new = [m for m in new if m[2] < end]
        return new

    def feed_kleene(
        self,
        unit: int,
        slot: int,
        event: Any,
        seq: int,
        single: tuple,
        follows: Callable[[tuple], bool] | None,
        window: float,
        rule: KleeneRule | None = None,
    ) -> list[Item]:
        """Build the new trends that end with ``event`` and insert them (``rule``: ties,
        size bounds and positions other than the default, see :mod:`.kleene`)."""
        if rule is not None:
            return self._feed_ruled(unit, slot, event, seq, single, window, rule)
        t = event[0]
        new: list[Item] = [(t, t, seq, single)]
        self.checked += len(self.buffers[self.plan.leaf_node[unit]])
        for mn, _mx, sq, binding in self.buffers[self.plan.leaf_node[unit]]:
            trend = binding[slot]
            last = trend[-1]
            if last[0] < t and t - mn <= window and (follows is None or follows((last, event))):
                b = list(binding)
                b[slot] = (*trend, event)
                new.append((mn, t, sq, tuple(b)))
        if not self.plan.paths[unit]:
            self.buffers[self.plan.leaf_node[unit]].extend(new)
        return self.feed(unit, new)

    def _feed_ruled(
        self,
        unit: int,
        slot: int,
        element: Any,
        seq: int,
        single: tuple,
        window: float,
        rule: KleeneRule,
    ) -> list[Item]:
        """:meth:`feed_kleene` under a :class:`.kleene.KleeneRule`; ``element`` is an event,
        or an iteration ``(earliest, latest, events)`` of a Kleene over a composite.

        The growth runs once per Kleene item and buffered partial trend, the engine's
        innermost Kleene path (timed by the Kleene queries of
        ``benchmarks/bench_engine_vs_opencep.py``): one loop per kind of element
        (:func:`_grown_by_event`, :func:`_grown_by_iteration`), no call per partial match.
        """
        leaf = self.plan.leaf_node[unit]
        base = self.growing.setdefault(unit, []) if rule.separate else self.buffers[leaf]
        self.checked += len(base)
        if rule.iterations is None:
            new = _grown_by_event(base, slot, element, seq, single, window, rule)
        else:
            new = _grown_by_iteration(base, slot, element, seq, single, window, rule)
        if rule.separate:
            base.extend(new)
            accept, lowest = rule.accept, rule.low
            new = [
                x
                for x in new
                if len(x[3][slot]) >= lowest and (accept is None or accept(x[3][slot]))
            ]
        elif not self.plan.paths[unit]:
            self.buffers[leaf].extend(new)
        return self.feed(unit, new)

    def purge(self, cutoff: float) -> None:
        """Drop partial matches whose earliest event is older than ``cutoff``.

        A key index keeps the items its list dropped until they are as many as those it
        kept, then it is rebuilt: joins skip the stale ones anyway (they are more than a
        window older than anything new), and rebuilding at every purge cost more than the
        joins they slow down (measured with ``benchmarks/bench_trace_replay.py``).
        """
        for unit, growing in self.growing.items():
            if any(x[0] < cutoff for x in growing):
                self.growing[unit] = [x for x in growing if x[0] >= cutoff]
        for i, buf in enumerate(self.buffers):
            if buf and any(x[0] < cutoff for x in buf):
                kept = [x for x in buf if x[0] >= cutoff]
                self.buffers[i] = kept
                if self.indexed.get(i) is buf:
                    stale = self.stale[i] + len(buf) - len(kept)
                    if stale > len(kept):
                        del self.indexed[i]  # rebuilt from ``kept`` at the next probe
                    else:
                        self.indexed[i] = kept
                        self.stale[i] = stale

    def size(self) -> int:
        """Number of buffered items and partial matches."""
        return sum(len(b) for b in self.buffers) + sum(len(g) for g in self.growing.values())


def _grown_by_event(
    base: list[Item],
    slot: int,
    event: Any,
    seq: int,
    single: tuple,
    window: float,
    rule: KleeneRule,
) -> list[Item]:
    """The new trend ``single`` and each trend of ``base`` grown by ``event`` where the
    rule's size bound, the window, the order (``strict``) and ``follows`` allow."""
    start = end = event[0]
    new: list[Item] = [(start, end, seq, single)]
    strict, high, follows = rule.strict, rule.high, rule.follows
    for mn, mx, sq, binding in base:
        trend = binding[slot]
        if high is not None and len(trend) >= high:
            continue
        low = start if start < mn else mn
        if (end if end > mx else mx) - low > window:
            continue
        last = trend[-1]
        if (last[0] >= end) if strict else (last[0] > end):
            continue
        if follows is not None and not follows((last, event)):
            continue
        b = list(binding)
        b[slot] = (*trend, event)
        new.append((low, end if end > mx else mx, sq, tuple(b)))
    return new


def _grown_by_iteration(
    base: list[Item],
    slot: int,
    iteration: Any,
    seq: int,
    single: tuple,
    window: float,
    rule: KleeneRule,
) -> list[Item]:
    """:func:`_grown_by_event` for an iteration ``(earliest, latest, events)`` of a Kleene
    over a composite (the order and shared events checked by the rule's iterations)."""
    iterations = rule.iterations
    assert iterations is not None
    start, end = iteration[0], iteration[1]
    new: list[Item] = [(start, end, seq, single)]
    strict, high, follows = rule.strict, rule.high, rule.follows
    chained = iterations.composite.chained
    for mn, mx, sq, binding in base:
        trend = binding[slot]
        if high is not None and len(trend) >= high:
            continue
        low = start if start < mn else mn
        if (end if end > mx else mx) - low > window:
            continue
        if not iterations.fits(trend, iteration, strict):
            continue
        if follows is not None and not follows((trend[-1], iteration)):
            continue
        b = list(binding)
        b[slot] = with_iteration(trend, iteration, chained)
        new.append((low, end if end > mx else mx, sq, tuple(b)))
    return new
