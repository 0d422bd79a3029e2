"""Compiled checks: constraints and ``where`` conjuncts turned into Python source.

The engine's hot loops must not walk condition trees per event, so every check a plan node
needs is generated once as Python source and compiled with :func:`exec` (measured: about
ten times faster than :func:`inev.workloads.expressions.evaluate` on a two-attribute
comparison). The generated code reads events as tuples (see :class:`.events.Event`: field 0
is the time, 4 the attributes, 5 the key). A slot value is an event, for a Kleene type a
tuple of events in time order, and for a Kleene over a composite a tuple of iterations
``(earliest time, latest time, events)`` in the order they completed.

Attribute names ``time``, ``node`` and ``id`` read the event's own fields; any other name
reads ``attrs``. A missing attribute, a type mismatch or a division by zero makes the
comparison false, as :func:`inev.workloads.expressions.evaluate` does.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Mapping
from types import CodeType
from typing import Any

from inev.simulator.engine.constraints import Constraints, Negation, condition_scope
from inev.simulator.engine.events import DEFAULT_SELECTIVITY_SEED, mix, pair_seed, threshold
from inev.workloads.expressions import Arith, Attr, Compare, Const, Logic, Negate, Not

CODE_CACHE_SIZE = 1024
"""How many compiled sources :func:`compiled_source` keeps (least recently used go first).

A plan change compiles its joins anew (measured before this cache: about 2 ms a change, 1.75 ms
of it :func:`compile`), and in a simulation every node's engine compiles the same checks. A
compiled join is a few kilobytes, so 1,024 of them hold about 4 MB, enough for every distinct
source of the simulation snapshot's engines (912 compilations, 89 distinct).
"""

_FIELDS = {"time": 0, "node": 2, "id": 3}
_ERRORS = "(KeyError, TypeError, ZeroDivisionError, ArithmeticError)"


@functools.lru_cache(maxsize=CODE_CACHE_SIZE)
def compiled_source(source: str, filename: str = "<inev-engine>") -> CodeType:
    """The code object of ``source``, compiled once per process and then reused.

    A code object is immutable and names no namespace, so one compilation serves every engine
    that generates the same text: :func:`exec` binds its names in whichever namespace it is
    given. ``compiled_source.cache_clear()`` empties the cache (benchmarks that compare
    methods start each run cold with it).

    Parameters
    ----------
    source : str
        Python source of one or more definitions.
    filename : str
        The file name tracebacks show.

    Returns
    -------
    types.CodeType
        The compiled module code.

    Examples
    --------
    >>> code = compiled_source("f = lambda x: x + 1")
    >>> code is compiled_source("f = lambda x: x + 1")
    True
    >>> first, second = {}, {}
    >>> exec(code, first); exec(code, second)
    >>> first["f"](1), first["f"] is second["f"]
    (2, False)
    """
    return compile(source, filename, "exec")


class CodeGen:
    """Accumulates generated helper functions in one namespace."""

    def __init__(
        self, constraints: Constraints, selectivity_seed: int = DEFAULT_SELECTIVITY_SEED
    ) -> None:
        self.c = constraints
        self.seed = selectivity_seed
        self.namespace: dict[str, Any] = {
            "_mix": mix,
            "_bisect_right": bisect.bisect_right,
            "_bisect_left": bisect.bisect_left,
            "_inf": float("inf"),
            "_same_trend": same_trend,
            "_cmin": composite_start,
            "_disjoint": functools.partial(disjoint, streams=constraints.streams),
        }
        self.before = "<=" if constraints.ties == "any" else "<"
        self.counter = 0
        self.cache: dict[Any, str] = {}

    def fresh(self, prefix: str) -> str:
        """A new unique helper name."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    def define(self, source: str) -> None:
        """Run the compiled ``source`` in the namespace (compiled once per process)."""
        exec(compiled_source(source), self.namespace)

    # ------------------------------------------------------------------ time bounds
    def tmin(self, t: str, var: str) -> str:
        """Expression of the earliest time of slot value ``var`` of type ``t``."""
        if t in self.c.composites:
            return f"_cmin({var})"
        return f"{var}[0][0]" if t in self.c.kleene else f"{var}[0]"

    def tmax(self, t: str, var: str) -> str:
        """Expression of the latest time of slot value ``var`` of type ``t``."""
        if t in self.c.composites:
            return f"{var}[-1][1]"
        return f"{var}[-1][0]" if t in self.c.kleene else f"{var}[0]"

    def kind(self, t: str) -> int:
        """0 for an event, 1 for a trend of events, 2 for a trend of iterations."""
        return 2 if t in self.c.composites else 1 if t in self.c.kleene else 0

    # ------------------------------------------------------------------ pieces
    def order_expr(self, a: str, b: str, var: Mapping[str, str]) -> str:
        """``all events of a before all events of b`` (``<=`` under ties ``any``)."""
        return f"{self.tmax(a, var[a])} {self.before} {self.tmin(b, var[b])}"

    def distinct_expr(self, a: str, b: str, var: Mapping[str, str]) -> str:
        """``a`` and ``b`` (slots of one stream) bind no common event."""
        if not self.kind(a) and not self.kind(b):
            return f"{var[a]}[3] != {var[b]}[3]"
        return f"_disjoint({var[a]}, {self.kind(a)}, {var[b]}, {self.kind(b)})"

    def pair_expr(self, a: str, b: str, s: float, var: Mapping[str, str]) -> str:
        """The deterministic selectivity predicate between every event of ``a`` and ``b``."""
        if a > b:
            a, b = b, a
        seed = pair_seed(a, b, self.seed)
        limit = threshold(s)
        xa = "_xa" if a in self.c.kleene else var[a]
        xb = "_xb" if b in self.c.kleene else var[b]
        core = f"_mix({xa}[5], {xb}[5], {seed}) < {limit}"
        if b in self.c.kleene:
            core = f"all({core} for _xb in {var[b]})"
        if a in self.c.kleene:
            core = f"all({core} for _xa in {var[a]})"
        return core

    def condition_expr(self, condition: Any, var: Mapping[str, str]) -> str:
        """A call of the compiled where conjunct over the slot values in ``var``."""
        types = sorted(condition_scope(condition))
        key = ("cond", str(condition), tuple(t in self.c.kleene for t in types))
        name = self.cache.get(key)
        if name is None:
            name = self.fresh("_cond")
            self.define(self._condition_source(name, condition, types))
            self.cache[key] = name
        return f"{name}({', '.join(var[t] for t in types)})"

    def _condition_source(self, name: str, condition: Any, types: list[str]) -> str:
        attributes = _attrs(condition)
        nexts = {a.type for a in attributes if a.next}
        plain = {a.type for a in attributes if not a.next and a.position is None}
        positions = sorted({(a.type, a.position) for a in attributes if a.position is not None})
        args = ", ".join(f"v_{t}" for t in types)
        lines = [f"def {name}({args}):"]
        for t, k in positions:
            var = _position_var(t, k)
            if k > 0:
                lines.append(f"    if len(v_{t}) < {k}:\n        return False")
                lines.append(f"    {var} = v_{t}[{k - 1}]")
            else:
                lines.append(f"    {var} = v_{t}[-1]")
        indent = "    "
        for t in types:
            if t in self.c.kleene and t in nexts:
                lines.append(f"{indent}for i_{t} in range(len(v_{t}) - 1):")
                indent += "    "
                lines.append(f"{indent}e_{t} = v_{t}[i_{t}]; n_{t} = v_{t}[i_{t} + 1]")
            elif t in self.c.kleene and t in plain:
                lines.append(f"{indent}for e_{t} in v_{t}:")
                indent += "    "
            elif t not in self.c.kleene:
                lines.append(f"{indent}e_{t} = v_{t}")
        body = self._cond(condition, lines, name)
        lines.append(f"{indent}if not ({body}):")
        lines.append(f"{indent}    return False")
        lines.append("    return True")
        return "\n".join(lines) + "\n"

    def _cond(self, node: Any, lines: list[str], owner: str) -> str:
        if isinstance(node, Compare):
            # each comparison catches its own errors (as evaluate() does)
            cname = self.fresh("_cmp")
            params = ", ".join(sorted({_attr_var(a) for a in _attrs(node)}))
            expr = f"{self._expr(node.left)} {node.op} {self._expr(node.right)}"
            self.define(
                f"def {cname}({params}):\n    try:\n        return bool({expr})\n"
                f"    except {_ERRORS}:\n        return False\n"
            )
            return f"{cname}({params})"
        if isinstance(node, Logic):
            joiner = " and " if node.op == "AND" else " or "
            return "(" + joiner.join(self._cond(i, lines, owner) for i in node.items) + ")"
        if isinstance(node, Not):
            return f"(not {self._cond(node.item, lines, owner)})"
        raise TypeError(f"not a condition: {node!r}")

    def _expr(self, node: Any) -> str:
        if isinstance(node, Const):
            return repr(node.value)
        if isinstance(node, Attr):
            base = _attr_var(node)
            if node.name in _FIELDS:
                return f"{base}[{_FIELDS[node.name]}]"
            return f"{base}[4][{node.name!r}]"
        if isinstance(node, Arith):
            return f"({self._expr(node.left)} {node.op} {self._expr(node.right)})"
        if isinstance(node, Negate):
            return f"(-{self._expr(node.operand)})"
        raise TypeError(f"not an expression: {node!r}")

    def negation_expr(
        self, index: int, negation: Negation, var: Mapping[str, str], buffers: tuple[list, list]
    ) -> str:
        """A call that is true when no blocking event of the negated type exists (the
        interval of :mod:`.constraints`: bounds of the match's leaves, else the window)."""
        name = f"_neg{index}"
        if name not in self.namespace:
            self.define(self._negation_source(name, index, negation, buffers))
        return f"{name}({', '.join(var[t] for t in sorted(negation.scope))})"

    def _negation_source(
        self, name: str, index: int, negation: Negation, buffers: tuple[list, list]
    ) -> str:
        times, events = buffers
        self.namespace[f"_NT{index}"] = times
        self.namespace[f"_NE{index}"] = events
        scope = sorted(negation.scope)
        local = {t: f"v_{t}" for t in scope}
        local[negation.type] = "e"
        lines = [f"def {name}({', '.join(local[t] for t in scope)}):"]
        # a bound set by the match's leaves is closed under ties "any"; the window's always
        closed = self._bound(lines, "lo", negation.first, negation.positive, local)
        lower = "_bisect_left" if closed else "_bisect_right"
        closed = self._bound(lines, "hi", negation.last, negation.positive, local)
        upper = "<=" if closed else "<"
        checks = [self.pair_expr(negation.type, t, s, local) for t, s in negation.pairs]
        checks += [self.condition_expr(c, local) for c in negation.conditions]
        for t in sorted(negation.same):
            checks.insert(0, f"_disjoint(e, 0, {local[t]}, {self.kind(t)})")
        lines.append(f"    times = _NT{index}; events = _NE{index}")
        lines.append(f"    i = {lower}(times, lo); n = len(times)")
        lines.append(f"    while i < n and times[i] {upper} hi:")
        if checks:
            lines.append("        e = events[i]")
            lines.append(f"        if {' and '.join(checks)}:")
            lines.append("            return False")
        else:
            lines.append("        return False")
        lines.append("        i += 1")
        lines.append("    return True")
        return "\n".join(lines) + "\n"

    def _bound(
        self,
        lines: list[str],
        name: str,
        leaves: frozenset[str],
        positive: frozenset[str],
        local: Mapping[str, str],
    ) -> bool:
        """Source setting ``lo`` (the latest end of ``leaves``) or ``hi`` (their earliest
        start); without leaves, the match's latest event minus the window (its earliest
        plus the window). Returns whether the bound is inclusive."""
        latest = name == "lo"
        if leaves:
            self._extreme(lines, name, sorted(leaves), local, latest=latest)
            return self.c.ties == "any"
        self._extreme(lines, name, sorted(positive), local, latest=latest)
        lines.append(f"    {name} = {name} {'-' if latest else '+'} {self.c.window!r}")
        return True

    def _extreme(
        self, lines: list[str], name: str, types: list[str], local: Mapping[str, str], latest: bool
    ) -> None:
        """Source setting ``name`` to the latest end (or earliest start) over ``types``."""
        bound = self.tmax if latest else self.tmin
        better = ">" if latest else "<"
        lines.append(f"    {name} = {bound(types[0], local[types[0]])}")
        for t in types[1:]:
            lines.append(f"    x = {bound(t, local[t])}\n    if x {better} {name}: {name} = x")


def composite_start(value: tuple) -> float:
    """The earliest time of a trend of iterations ``(start, end, events)``."""
    return min(it[0] for it in value)


def _event_ids(value: Any, kind: int, streams: Mapping[str, str]) -> set:
    if kind == 0:
        events: Iterable[Any] = (value,)
    elif kind == 1:
        events = value
    else:
        events = (e for it in value for e in it[2])
    return {(streams.get(e[1], e[1]), e[3]) for e in events}


def disjoint(
    a: Any, kind_a: int, b: Any, kind_b: int, streams: Mapping[str, str] | None = None
) -> bool:
    """Whether two slot values (kinds: event 0, trend 1, iterations 2) share no event.

    An event is its stream (``streams`` maps variables to event types) and its id; two
    single events are compared only when they are of one stream, so their ids suffice.
    """
    if kind_a == 0 and kind_b == 0:
        return a[3] != b[3]
    known = streams or {}
    return not (_event_ids(a, kind_a, known) & _event_ids(b, kind_b, known))


def _position_var(t: str, k: int) -> str:
    return f"p_{t}_{k}" if k > 0 else f"p_{t}_last"


def _attr_var(a: Attr) -> str:
    if a.next:
        return f"n_{a.type}"
    if a.position is not None:
        return _position_var(a.type, a.position)
    return f"e_{a.type}"


def same_trend(x: tuple, y: tuple) -> bool:
    """Whether two trends hold the same events (by id), in order."""
    return len(x) == len(y) and all(a[3] == b[3] for a, b in zip(x, y, strict=True))


def _attrs(node: Any) -> Iterable[Attr]:
    from inev.workloads.expressions import condition_attributes

    return condition_attributes(node)
