"""The ``where`` predicate language and the ``return`` aggregates of a query.

``where`` is a boolean condition over event attributes::

    A.id == B.id AND (C.v > 10 OR NOT C.v * 2 <= D.w - 1) AND S.price * 1.05 < NEXT(S).price

Conditions combine comparisons (``== != < <= > >=``) with ``AND``, ``OR``, ``NOT`` and
parentheses; operands are numbers, quoted strings, attributes ``TYPE.attr`` and, for a
Kleene leaf ``T``, ``NEXT(T).attr`` (the next element of the trend), ``T[i].attr`` (its
i-th element, 1 the first), ``FIRST(T).attr`` and ``LAST(T).attr``, combined with
``+ - * / %`` and unary minus. ``TYPE`` is a leaf's name: an event type or a pattern
variable. ``return`` is one aggregate: ``COUNT(*)``, ``COUNT(E)``,
``SUM(E.a)``, ``MIN(E.a)``, ``MAX(E.a)`` or ``AVG(E.a)``.

Conditions print canonically (fully parenthesised where needed), and
``parse_condition(str(c)) == c``.

>>> c = parse_condition("A.id == B.id AND C.v > 10")
>>> sorted(condition_types(c))
['A', 'B', 'C']
>>> evaluate(c, {"A": {"id": 1}, "B": {"id": 1}, "C": {"v": 11}})
True
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from inev.common.errors import InevError

# --------------------------------------------------------------------------- the tree


@dataclass(frozen=True)
class Const:
    """A number or string literal."""

    value: float | int | str

    def __str__(self) -> str:
        if isinstance(self.value, str):
            return "'" + self.value.replace("\\", "\\\\").replace("'", "\\'") + "'"
        return repr(self.value)


@dataclass(frozen=True)
class Attr:
    """``TYPE.name``; ``NEXT(TYPE).name`` when ``next`` is true; one element of a Kleene
    trend when ``position`` is set (1 the first, -1 the last: ``FIRST``, ``LAST``)."""

    type: str
    name: str
    next: bool = False
    position: int | None = None

    def __str__(self) -> str:
        if self.next:
            return f"NEXT({self.type}).{self.name}"
        if self.position == 1:
            return f"FIRST({self.type}).{self.name}"
        if self.position == -1:
            return f"LAST({self.type}).{self.name}"
        if self.position is not None:
            return f"{self.type}[{self.position}].{self.name}"
        return f"{self.type}.{self.name}"


@dataclass(frozen=True)
class Arith:
    """A binary arithmetic operation (``+ - * / %``)."""

    op: str
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return f"({self.left} {self.op} {self.right})"


@dataclass(frozen=True)
class Negate:
    """Unary minus."""

    operand: Expr

    def __str__(self) -> str:
        return f"(-{self.operand})"


@dataclass(frozen=True)
class Compare:
    """A comparison between two expressions."""

    op: str
    left: Expr
    right: Expr

    def __str__(self) -> str:
        return f"{self.left} {self.op} {self.right}"


@dataclass(frozen=True)
class Logic:
    """``AND`` / ``OR`` over two or more conditions."""

    op: str
    items: tuple[Condition, ...]

    def __str__(self) -> str:
        return "(" + f" {self.op} ".join(str(i) for i in self.items) + ")"


@dataclass(frozen=True)
class Not:
    """Logical negation."""

    item: Condition

    def __str__(self) -> str:
        return f"NOT ({self.item})"


Expr: TypeAlias = Const | Attr | Arith | Negate
Condition: TypeAlias = Compare | Logic | Not


@dataclass(frozen=True)
class Aggregate:
    """A ``return`` aggregate: function, and the type and attribute it ranges over."""

    function: str
    type: str | None = None
    attribute: str | None = None

    def __str__(self) -> str:
        if self.type is None:
            return f"{self.function}(*)"
        if self.attribute is None:
            return f"{self.function}({self.type})"
        return f"{self.function}({self.type}.{self.attribute})"


AGGREGATES = ("COUNT", "SUM", "MIN", "MAX", "AVG")

# --------------------------------------------------------------------------- lexing

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op>==|!=|<=|>=|<|>|[-+*/%().,\[\]])"
    r"|(?P<bad>\S))"
)
_KEYWORDS = {"AND", "OR", "NOT", "NEXT"}


def _lex(text: str, what: str) -> list[tuple[str, Any, int]]:
    tokens: list[tuple[str, Any, int]] = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:
            break
        kind = match.lastgroup
        value = match.group(kind) if kind else None
        if kind == "bad":
            raise InevError(f"{what} {text!r}: unexpected character {value!r}")
        if kind == "num":
            number = float(value)
            tokens.append(("num", int(value) if value.isdigit() else number, match.start()))
        elif kind == "str":
            body = value[1:-1]
            tokens.append(("str", re.sub(r"\\(.)", r"\1", body), match.start()))
        elif kind == "name" and value.upper() in _KEYWORDS and value.upper() == value:
            tokens.append((value, value, match.start()))
        elif kind is not None:
            tokens.append((kind if kind == "name" else value, value, match.start()))
        position = match.end()
    tokens.append(("end", None, len(text)))
    return tokens


MAX_DEPTH = 100
"""The deepest a clause's tree may be: nested parentheses, NOT, unary minus and chained
arithmetic operators (``a - b - c`` is a tree two deep) all count; the parser and every walk
of the tree recurse."""
MAX_LENGTH = 100_000
"""The longest clause text parsed."""


class _TooDeep(InevError):
    """Nesting beyond :data:`MAX_DEPTH` (never retried by the parser's backtracking)."""


class _Parser:
    def __init__(self, text: str, what: str) -> None:
        if len(text) > MAX_LENGTH:
            raise InevError(f"{what} of {len(text):,} characters is longer than {MAX_LENGTH:,}")
        self.text = text
        self.what = what
        self.tokens = _lex(text, what)
        self.position = 0
        self.depth = 0

    def deeper(self) -> None:
        """One level deeper in the descent (parenthesis, NOT, unary minus); bounded."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _TooDeep(f"{self.what} is nested more than {MAX_DEPTH} levels deep")

    def fail(self, message: str) -> InevError:
        return InevError(f"{self.what} {self.text!r}: {message}")

    def peek(self) -> str:
        return self.tokens[self.position][0]

    def take(self, kind: str | None = None) -> tuple[str, Any, int]:
        token = self.tokens[self.position]
        if kind is not None and token[0] != kind:
            found = "end" if token[0] == "end" else repr(token[1])
            raise self.fail(f"expected {kind!r} at {token[2]}, found {found}")
        self.position += 1
        return token

    # condition := conj (OR conj)*
    def condition(self) -> Condition:
        items = [self.conjunction()]
        while self.peek() == "OR":
            self.take()
            items.append(self.conjunction())
        return items[0] if len(items) == 1 else Logic("OR", tuple(items))

    def conjunction(self) -> Condition:
        items = [self.unary()]
        while self.peek() == "AND":
            self.take()
            items.append(self.unary())
        return items[0] if len(items) == 1 else Logic("AND", tuple(items))

    def unary(self) -> Condition:
        depth = self.depth
        self.deeper()
        try:
            if self.peek() == "NOT":
                self.take()
                return Not(self.unary())
            if self.peek() == "(":
                saved = self.position
                try:
                    self.take("(")
                    inner = self.condition()
                    self.take(")")
                    if self.peek() not in ("AND", "OR", ")", "end"):
                        raise self.fail("not a parenthesised condition")
                    return inner
                except _TooDeep:
                    raise
                except InevError:
                    self.position = saved
                    self.depth = depth + 1
            return self.comparison()
        finally:
            self.depth = depth

    def comparison(self) -> Condition:
        left = self.expression()
        kind, value, at = self.tokens[self.position]
        if kind not in ("==", "!=", "<", "<=", ">", ">="):
            found = "end" if kind == "end" else repr(value)
            raise self.fail(f"expected a comparison operator at {at}, found {found}")
        self.take()
        return Compare(kind, left, self.expression())

    def expression(self) -> Expr:
        depth = self.depth
        left = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()[0]
            self.deeper()
            left = Arith(op, left, self.term())
        self.depth = depth
        return left

    def term(self) -> Expr:
        depth = self.depth
        left = self.factor()
        while self.peek() in ("*", "/", "%"):
            op = self.take()[0]
            self.deeper()
            left = Arith(op, left, self.factor())
        self.depth = depth
        return left

    def factor(self) -> Expr:
        depth = self.depth
        self.deeper()
        try:
            return self._factor()
        finally:
            self.depth = depth

    def _factor(self) -> Expr:
        kind, value, at = self.tokens[self.position]
        if kind == "-":
            self.take()
            inner = self.factor()
            if isinstance(inner, Const) and not isinstance(inner.value, str):
                return Const(-inner.value)
            return Negate(inner)
        if kind == "num" or kind == "str":
            self.take()
            return Const(value)
        if kind == "(":
            self.take()
            inner = self.expression()
            self.take(")")
            return inner
        if kind == "NEXT":
            self.take()
            self.take("(")
            type_name = self.take("name")[1]
            if self.peek() == "[":
                raise self.fail(
                    f"NEXT({type_name}[...]) at {at}: NEXT ranges over every consecutive pair "
                    "of a trend and takes no position"
                )
            self.take(")")
            self.take(".")
            return Attr(type_name, self.take("name")[1], next=True)
        ahead = self.tokens[min(self.position + 1, len(self.tokens) - 1)][0]
        if kind == "name" and value in ("FIRST", "LAST") and ahead == "(":
            self.take()
            self.take("(")
            type_name = self.take("name")[1]
            self.take(")")
            self.take(".")
            return Attr(type_name, self.take("name")[1], position=1 if value == "FIRST" else -1)
        if kind == "name":
            self.take()
            position = None
            if self.peek() == "[":
                self.take()
                number = self.take("num")[1]
                if not isinstance(number, int) or number < 1:
                    raise self.fail(f"{value}[{number}]: a position is a whole number from 1")
                self.take("]")
                position = number
            self.take(".")
            return Attr(value, self.take("name")[1], position=position)
        found = "end" if kind == "end" else repr(value)
        raise self.fail(f"expected a value or attribute at {at}, found {found}")


def parse_condition(text: str) -> Condition:
    """Parse a ``where`` condition; raise :class:`InevError` with the position on errors."""
    if not isinstance(text, str) or not text.strip():
        raise InevError(f"where clause must be a non-empty string, got {text!r}")
    parser = _Parser(text, "where clause")
    tree = parser.condition()
    if parser.peek() != "end":
        _, value, at = parser.tokens[parser.position]
        raise parser.fail(f"unexpected {value!r} at {at}")
    return tree


def parse_aggregate(text: str) -> Aggregate:
    """Parse a ``return`` clause such as ``COUNT(*)`` or ``SUM(E.price)``."""
    if not isinstance(text, str):
        raise InevError(f"return clause must be a string, got {text!r}")
    match = re.fullmatch(
        r"\s*([A-Za-z]+)\s*\(\s*(?:(\*)|([A-Za-z][A-Za-z0-9_]*)(?:\s*\.\s*([A-Za-z_]\w*))?)\s*\)\s*",
        text,
    )
    if match is None:
        raise InevError(f"return clause {text!r}: expected e.g. COUNT(*), COUNT(E) or SUM(E.a)")
    function, star, type_name, attribute = match.groups()
    function = function.upper()
    if function not in AGGREGATES:
        raise InevError(
            f"return clause {text!r}: unknown aggregate {function} ({', '.join(AGGREGATES)})"
        )
    if star and function != "COUNT":
        raise InevError(f"return clause {text!r}: only COUNT takes '*'")
    if function != "COUNT" and attribute is None:
        raise InevError(
            f"return clause {text!r}: {function} needs an attribute, e.g. {function}(E.a)"
        )
    if function == "COUNT" and attribute is not None:
        raise InevError(
            f"return clause {text!r}: COUNT takes '*' or an event type, not an attribute"
        )
    return Aggregate(function, type_name, attribute)


# --------------------------------------------------------------------------- queries on trees


def walk_condition(node: Condition | Expr) -> Iterator[Condition | Expr]:
    """Every node of a condition or expression tree, pre-order."""
    yield node
    if isinstance(node, Compare | Arith):
        yield from walk_condition(node.left)
        yield from walk_condition(node.right)
    elif isinstance(node, Logic):
        for item in node.items:
            yield from walk_condition(item)
    elif isinstance(node, Not):
        yield from walk_condition(node.item)
    elif isinstance(node, Negate):
        yield from walk_condition(node.operand)


def condition_attributes(node: Condition | Expr) -> frozenset[Attr]:
    """Every attribute reference in the tree."""
    return frozenset(n for n in walk_condition(node) if isinstance(n, Attr))


def condition_types(node: Condition | Expr) -> frozenset[str]:
    """Event types referenced by the tree."""
    return frozenset(a.type for a in condition_attributes(node))


def conjuncts(condition: Condition) -> tuple[Condition, ...]:
    """The top-level AND items of a condition (the condition itself if it is no AND)."""
    if isinstance(condition, Logic) and condition.op == "AND":
        out: list[Condition] = []
        for item in condition.items:
            out.extend(conjuncts(item))
        return tuple(out)
    return (condition,)


# --------------------------------------------------------------------------- evaluation

ARITHMETIC: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "%": operator.mod,
}
"""The arithmetic operators of ``where`` clauses and what they compute (the one table; GRETA's
compiled predicates use it too)."""
_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def evaluate(
    node: Condition | Expr,
    binding: Mapping[str, Mapping[str, Any]],
    following: Mapping[str, Mapping[str, Any]] | None = None,
) -> Any:
    """Evaluate a condition (to ``bool``) or expression over attribute maps per type.

    ``binding`` maps a type to its event's attributes; ``following`` maps a Kleene type to
    the attributes of the next event of the trend (for ``NEXT(T).a``); a position ``T[i]``
    (``FIRST``: 1, ``LAST``: -1) reads ``binding[(T, i)]``. A missing attribute,
    a division by zero or a type mismatch makes a comparison false rather than raising.
    """
    try:
        return _evaluate(node, binding, following or {})
    except (KeyError, TypeError, ZeroDivisionError, ArithmeticError):
        return False


def _evaluate(node: Any, binding: Mapping, following: Mapping) -> Any:
    if isinstance(node, Const):
        return node.value
    if isinstance(node, Attr):
        if node.position is not None:
            return binding[(node.type, node.position)][node.name]
        return (following if node.next else binding)[node.type][node.name]
    if isinstance(node, Arith):
        return ARITHMETIC[node.op](
            _evaluate(node.left, binding, following), _evaluate(node.right, binding, following)
        )
    if isinstance(node, Negate):
        return -_evaluate(node.operand, binding, following)
    if isinstance(node, Compare):
        try:
            left = _evaluate(node.left, binding, following)
            right = _evaluate(node.right, binding, following)
            return bool(_COMPARE[node.op](left, right))
        except (KeyError, TypeError, ZeroDivisionError, ArithmeticError):
            return False
    if isinstance(node, Logic):
        if node.op == "AND":
            return all(_evaluate(i, binding, following) for i in node.items)
        return any(_evaluate(i, binding, following) for i in node.items)
    if isinstance(node, Not):
        return not _evaluate(node.item, binding, following)
    raise TypeError(f"not a condition node: {node!r}")
