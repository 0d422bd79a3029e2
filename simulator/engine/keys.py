"""Join keys: equality predicates that partition a join (keyed joins, hash-partitioned buffers).

A ``where`` conjunct ``X.a == Y.b`` between two types holds only for events with equal
values, so a join between partial matches holding ``X`` and partial matches holding ``Y``
need only pair those with equal keys: each side's buffer is kept partitioned by its key
(a dictionary of lists) and a new item probes only its own key. Chains of equalities
(``A.bid == B.bid AND B.bid == C.bid``) make *classes* of attributes that are all equal in
a match, so a join of ``A`` with ``C`` is keyed too, although no conjunct names both.

Which equalities key a join between slots ``left`` and ``right``:

* a class (attributes ``T.name`` linked by ``==`` conjuncts, the transitive closure) with a
  member on each side: the key is that member's value on each side;
* any other ``==`` conjunct whose two sides are expressions each over one side only
  (``A.x + 1 == B.y``): the key is each expression's value.

Types under ``KL`` are left out (a trend's slot holds many events, and the conjunct is read
universally over them), and so are ``NEXT`` attributes. The keys only *filter*: every
conjunct is still checked on the pairs that share a key, so a keyed join finds exactly the
matches of an unkeyed one. An event whose key cannot be computed (a missing attribute, an
arithmetic error) cannot satisfy the equality and joins nothing on it; a key that cannot be
hashed makes the probe fall back to the whole buffer.

>>> from inev.workloads.expressions import conjuncts, parse_condition
>>> c = conjuncts(parse_condition("A.bid == B.bid AND B.bid == C.bid AND C.v > 2"))
>>> [(str(x), str(y)) for x, y in join_keys(c, {"A"}, {"C"})]
[('A.bid', 'C.bid')]
>>> join_keys(c, {"A"}, {"D"})
[]
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

from inev.workloads.expressions import Attr, Compare, Condition, Expr, condition_attributes


def _types(expr: Expr) -> frozenset[str]:
    return frozenset(a.type for a in condition_attributes(expr))


def _plain(expr: Expr, excluded: Collection[str]) -> bool:
    return isinstance(expr, Attr) and not expr.next and expr.type not in excluded


def _usable(expr: Expr, excluded: Collection[str]) -> bool:
    attrs = condition_attributes(expr)
    return bool(attrs) and not any(a.next or a.type in excluded for a in attrs)


def equality_classes(
    conditions: Iterable[Condition], excluded: Collection[str] = ()
) -> list[tuple[Attr, ...]]:
    """Classes of attributes ``T.name`` that ``==`` conjuncts make equal (transitively).

    Only conjuncts ``X.a == Y.b`` over two different types count; attributes of
    ``excluded`` types (Kleene) and ``NEXT`` attributes are left out. Each class is sorted,
    and the classes are sorted by their first member.

    >>> from inev.workloads.expressions import conjuncts, parse_condition
    >>> c = conjuncts(parse_condition("A.k == B.k AND C.k == B.k AND A.u == D.u"))
    >>> [[str(a) for a in k] for k in equality_classes(c)]
    [['A.k', 'B.k', 'C.k'], ['A.u', 'D.u']]
    """
    parent: dict[Attr, Attr] = {}

    def find(x: Attr) -> Attr:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in conditions:
        if not (isinstance(c, Compare) and c.op == "=="):
            continue
        left, right = c.left, c.right
        if not (_plain(left, excluded) and _plain(right, excluded)):
            continue
        if left.type == right.type:
            continue
        for a in (left, right):
            parent.setdefault(a, a)
        ra, rb = find(left), find(right)
        if ra != rb:
            parent[max(ra, rb, key=str)] = min(ra, rb, key=str)
    groups: dict[Attr, list[Attr]] = {}
    for a in parent:
        groups.setdefault(find(a), []).append(a)
    classes = [tuple(sorted(g, key=str)) for g in groups.values()]
    return sorted(classes, key=lambda k: str(k[0]))


def join_keys(
    conditions: Sequence[Condition],
    left: Collection[str],
    right: Collection[str],
    excluded: Collection[str] = (),
) -> list[tuple[Expr, Expr]]:
    """``(left expression, right expression)`` pairs whose values must be equal in a join.

    ``left`` and ``right`` are the types bound on each side; see the module docstring.
    """
    left, right = frozenset(left), frozenset(right)
    out: list[tuple[Expr, Expr]] = []
    for members in equality_classes(conditions, excluded):
        ls = [a for a in members if a.type in left and a.type not in right]
        rs = [a for a in members if a.type in right and a.type not in left]
        if ls and rs:
            out.append((ls[0], rs[0]))
    for c in conditions:
        pair = _keyed_pair(c, left, right, excluded)
        if pair is not None:
            out.append(pair)
    return out


def _keyed_pair(
    c: Condition, left: frozenset[str], right: frozenset[str], excluded: Collection[str]
) -> tuple[Expr, Expr] | None:
    """A ``==`` conjunct of expressions (not plain attributes, which form the classes) with
    one side over each side's types, oriented (left, right); None otherwise."""
    if not (isinstance(c, Compare) and c.op == "=="):
        return None
    if _plain(c.left, excluded) and _plain(c.right, excluded):
        return None  # in an equality class
    if not (_usable(c.left, excluded) and _usable(c.right, excluded)):
        return None
    lt, rt = _types(c.left), _types(c.right)
    if lt <= left and rt <= right and not (lt & right) and not (rt & left):
        return (c.left, c.right)
    if lt <= right and rt <= left and not (lt & left) and not (rt & right):
        return (c.right, c.left)
    return None
