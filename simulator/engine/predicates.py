"""Compiled checks: constraints and ``where`` conjuncts turned into Python source.

The engine's hot loops must not walk condition trees per event, so every check a plan node
needs is generated once as Python source and compiled with :func:`exec` (measured: about
ten times faster than :func:`inev.workloads.expressions.evaluate` on a two-attribute
comparison). The generated code reads events as tuples (see :class:`.events.Event`: field 0
is the time, 4 the attributes, 5 the key). A slot value is an event, or for a Kleene type a
tuple of events in time order.

Attribute names ``time``, ``node`` and ``id`` read the event's own fields; any other name
reads ``attrs``. A missing attribute, a type mismatch or a division by zero makes the
comparison false, as :func:`inev.workloads.expressions.evaluate` does.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping
from typing import Any

from inev.simulator.engine.constraints import Constraints, Negation, condition_scope
from inev.simulator.engine.events import mix, pair_seed, threshold
from inev.workloads.expressions import Arith, Attr, Compare, Const, Logic, Negate, Not

_FIELDS = {"time": 0, "node": 2, "id": 3}
_ERRORS = "(KeyError, TypeError, ZeroDivisionError, ArithmeticError)"


class CodeGen:
    """Accumulates generated helper functions in one namespace."""

    def __init__(self, constraints: Constraints, selectivity_seed: int = 0) -> None:
        self.c = constraints
        self.seed = selectivity_seed
        self.namespace: dict[str, Any] = {
            "_mix": mix,
            "_bisect_right": bisect.bisect_right,
            "_inf": float("inf"),
            "_same_trend": same_trend,
        }
        self.counter = 0
        self.cache: dict[Any, str] = {}

    def fresh(self, prefix: str) -> str:
        """A new unique helper name."""
        self.counter += 1
        return f"{prefix}{self.counter}"

    def define(self, source: str) -> None:
        """Compile ``source`` into the namespace."""
        exec(compile(source, "<inev-engine>", "exec"), self.namespace)

    # ------------------------------------------------------------------ time bounds
    def tmin(self, t: str, var: str) -> str:
        """Expression of the earliest time of slot value ``var`` of type ``t``."""
        return f"{var}[0][0]" if t in self.c.kleene else f"{var}[0]"

    def tmax(self, t: str, var: str) -> str:
        """Expression of the latest time of slot value ``var`` of type ``t``."""
        return f"{var}[-1][0]" if t in self.c.kleene else f"{var}[0]"

    # ------------------------------------------------------------------ pieces
    def order_expr(self, a: str, b: str, var: Mapping[str, str]) -> str:
        """``all events of a before all events of b``."""
        return f"{self.tmax(a, var[a])} < {self.tmin(b, var[b])}"

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
        nexts = {a.type for a in _attrs(condition) if a.next}
        args = ", ".join(f"v_{t}" for t in types)
        lines = [f"def {name}({args}):"]
        indent = "    "
        for t in types:
            if t in self.c.kleene and t in nexts:
                lines.append(f"{indent}for i_{t} in range(len(v_{t}) - 1):")
                indent += "    "
                lines.append(f"{indent}e_{t} = v_{t}[i_{t}]; n_{t} = v_{t}[i_{t} + 1]")
            elif t in self.c.kleene:
                lines.append(f"{indent}for e_{t} in v_{t}:")
                indent += "    "
            else:
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
            used = sorted({(a.type, a.next) for a in _attrs(node)})
            params = ", ".join(("n_" if nxt else "e_") + t for t, nxt in used)
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
            base = ("n_" if node.next else "e_") + node.type
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
        """A call that is true when no blocking event of the negated type exists."""
        name = f"_neg{index}"
        if name not in self.namespace:
            times, events = buffers
            self.namespace[f"_NT{index}"] = times
            self.namespace[f"_NE{index}"] = events
            scope = sorted(negation.scope)
            local = {t: f"v_{t}" for t in scope}
            local[negation.type] = "e"
            first = sorted(negation.first)
            last = sorted(negation.last)
            lines = [f"def {name}({', '.join(local[t] for t in scope)}):"]
            lines.append(f"    lo = {self.tmax(first[0], local[first[0]])}")
            for t in first[1:]:
                lines.append(f"    x = {self.tmax(t, local[t])}\n    if x > lo: lo = x")
            lines.append(f"    hi = {self.tmin(last[0], local[last[0]])}")
            for t in last[1:]:
                lines.append(f"    x = {self.tmin(t, local[t])}\n    if x < hi: hi = x")
            checks = [self.pair_expr(negation.type, t, s, local) for t, s in negation.pairs]
            checks += [self.condition_expr(c, local) for c in negation.conditions]
            lines.append(f"    times = _NT{index}; events = _NE{index}")
            lines.append("    i = _bisect_right(times, lo); n = len(times)")
            lines.append("    while i < n and times[i] < hi:")
            if checks:
                lines.append("        e = events[i]")
                lines.append(f"        if {' and '.join(checks)}:")
                lines.append("            return False")
            else:
                lines.append("        return False")
            lines.append("        i += 1")
            lines.append("    return True")
            self.define("\n".join(lines) + "\n")
        return f"{name}({', '.join(var[t] for t in sorted(negation.scope))})"


def same_trend(x: tuple, y: tuple) -> bool:
    """Whether two trends hold the same events (by id), in order."""
    return len(x) == len(y) and all(a[3] == b[3] for a, b in zip(x, y, strict=True))


def _attrs(node: Any) -> Iterable[Attr]:
    from inev.workloads.expressions import condition_attributes

    return condition_attributes(node)
