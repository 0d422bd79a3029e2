"""Parse and print the pattern text syntax, e.g. ``SEQ(A, AND(B, C), KL(D), NSEQ(E, F, G))``.

A leaf is an event type (``GOOG``) or a variable bound to one (``GOOG a``); ``KL(X){2,5}``
bounds the iterations of a Kleene closure (``{2,}`` at least 2, ``{3}`` exactly 3). Printing
is canonical (one space after each comma), so ``str(parse_pattern(s)) == s`` for any
canonical ``s`` and ``parse_pattern(str(p)) == p`` for any pattern ``p``.

>>> print(parse_pattern(" seq( A ,KL(B) ) ".replace("seq", "SEQ")))
SEQ(A, KL(B))
>>> print(parse_pattern("SEQ(GOOG a, KL( GOOG  b ){ 2 , })"))
SEQ(GOOG a, KL(GOOG b){2,})
"""

from __future__ import annotations

import re

from inev.common.errors import InevError
from inev.workloads.pattern import OPERATORS, Operator, Pattern, Primitive

MAX_DEPTH = 50
"""The deepest operator nesting a pattern may have (the parser and every tree walk recurse)."""
MAX_LENGTH = 100_000
"""The longest pattern text parsed."""

_TOKEN = re.compile(r"\s*(?:([A-Za-z][A-Za-z0-9_]*)|([(),{}])|([0-9]+)|(\S))")


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out = []
    position = 0
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # only trailing whitespace left
            break
        name, punct, number, bad = match.groups()
        if bad is not None:
            raise InevError(f"pattern {text!r}: unexpected character {bad!r} at {match.start(4)}")
        if name is not None:
            out.append(("name", name, match.start(1)))
        elif punct is not None:
            out.append((punct, punct, match.start(2)))
        elif number is not None:
            out.append(("number", number, match.start(3)))
        position = match.end()
    return out


def parse_pattern(text: str) -> Pattern:
    """Parse the pattern syntax into an operator tree; raise :class:`InevError` on errors.

    Only syntax is checked here; :func:`inev.workloads.pattern.validate_pattern` checks the
    structural rules (names used twice, KL and NSEQ arity, where NOT stands).
    """
    if not isinstance(text, str):
        raise InevError(f"pattern must be a string, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise InevError(f"pattern of {len(text):,} characters is longer than {MAX_LENGTH:,}")
    tokens = _tokens(text)
    depth = deepest = 0
    for kind, _, _ in tokens:
        depth += (kind == "(") - (kind == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_DEPTH:
        raise InevError(f"pattern is nested {deepest} operators deep, more than {MAX_DEPTH}")
    if not tokens:
        raise InevError("pattern is empty")
    position = 0

    def fail(message: str) -> InevError:
        return InevError(f"pattern {text!r}: {message}")

    def parse() -> Pattern:
        nonlocal position
        if position >= len(tokens):
            raise fail("unexpected end")
        kind, value, at = tokens[position]
        if kind != "name":
            raise fail(f"expected an event type or operator at {at}, found {value!r}")
        position += 1
        if position < len(tokens) and tokens[position][0] == "(":
            if value not in OPERATORS:
                raise fail(f"unknown operator {value!r} (known: {', '.join(OPERATORS)})")
            position += 1
            children = [parse()]
            while position < len(tokens) and tokens[position][0] == ",":
                position += 1
                children.append(parse())
            if position >= len(tokens):
                raise fail(f"missing ')' to close {value}")
            if tokens[position][0] != ")":
                raise fail(f"expected ',' or ')' at {tokens[position][2]}")
            position += 1
            bounds = bounds_after(value)
            return Operator(value, tuple(children), bounds)  # type: ignore[arg-type]
        if value in OPERATORS:
            raise fail(f"operator {value} needs '(' and children")
        if position < len(tokens) and tokens[position][0] == "name":
            variable, at = tokens[position][1], tokens[position][2]
            if variable in OPERATORS:
                raise fail(f"variable name {variable!r} at {at} is an operator")
            position += 1
            return Primitive(variable, value)
        return Primitive(value)

    def number() -> int:
        nonlocal position
        if position >= len(tokens) or tokens[position][0] != "number":
            found = "end" if position >= len(tokens) else repr(tokens[position][1])
            raise fail(f"expected a number in the size bounds, found {found}")
        position += 1
        value = int(tokens[position - 1][1])
        if value > 1_000_000:
            raise fail(f"size bound {value} is larger than 1,000,000")
        return value

    def bounds_after(kind: str) -> tuple[int, int | None] | None:
        """``{low,high}``, ``{low,}`` or ``{n}`` after a KL (None when absent)."""
        nonlocal position
        if position >= len(tokens) or tokens[position][0] != "{":
            return None
        if kind != "KL":
            raise fail(f"size bounds at {tokens[position][2]} follow KL only, not {kind}")
        position += 1
        low = number()
        high: int | None = low
        if position < len(tokens) and tokens[position][0] == ",":
            position += 1
            high = None if position < len(tokens) and tokens[position][0] == "}" else number()
        if position >= len(tokens) or tokens[position][0] != "}":
            raise fail("missing '}' to close the size bounds")
        position += 1
        return None if (low, high) == (1, None) else (low, high)

    tree = parse()
    if position != len(tokens):
        raise fail(f"unexpected {tokens[position][1]!r} at {tokens[position][2]}")
    return tree
