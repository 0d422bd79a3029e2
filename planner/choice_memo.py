"""Alg. 1's placement options of a projection, kept per everything they are computed from.

:func:`~inev.planner.alg1_combination.choose_options` prices a projection's placement
options from its candidate inputs, their choices, the items already paid and the network's
figures for the projection's types. One plan runs Alg. 1 many times over the same queries:
two query orders, then two per rate kick (:mod:`inev.planner.last_passes`) on a network
where one type's rate differs, so most projections (those without the kicked type, under
the same paid items) are priced again from the same inputs: 6,785 calls, 2,195 distinct,
on issue 46's default instance. :class:`ChoiceMemo` keeps the options per exact key:

* the projection itself (a frozen value: key, pattern, types, rate, predicates, window);
* per candidate input, in order (the order breaks ties), the input itself, and its
  choice's latency and items in order (an items' order fixes the order of a float sum);
* whether each item the enumeration could look up is paid: every item of the candidates'
  choices, and the ``send`` and ``fwd`` items of each candidate (only membership is read);
* the choices of the projection's own types, where there are any (a partitioning type's);
* the network's figures for the projection's types (global rate and sources) and its
  topology's tree caches (:func:`~inev.planner.steiner.trees_of`, which fix the hops
  ``multi_node_hops`` reads); δ, τ and ξ through the parameters; Θ, Kleene types, sink.

That is everything the enumeration reads, so a kept answer is the answer a fresh
enumeration gives (the same choices, bit for bit). A memo lives as long as one plan's
search (:class:`~inev.planner.paper_designs.Space`), so a warm process gains nothing from
plans made before.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from inev.planner.projections import Projection
from inev.planner.steiner import trees_of
from inev.topologies.network import Network

MAX_KEPT = 50_000
"""Answers a :class:`ChoiceMemo` keeps before it drops them all (an answer is a short list
of choices that the plan's states hold anyway)."""


class ChoiceMemo:
    """Placement options per exact key (see the module docstring).

    A key names the projections and choices it holds by numbers, one per distinct value
    (a projection's fields; a choice's latency and items in order), given by this memo and
    kept per object (with the object, so its id is not reused). The paid items are read
    through a view of one paid mapping at a time (Alg. 1 only adds items to its state's, so
    an object and its size name its contents): per choice, which of its items are paid, and
    per input, its paid ``send`` and ``fwd`` items.

    >>> from inev.planner.alg1_combination import Choice
    >>> memo = ChoiceMemo()
    >>> a = Choice("AB", ("A", "B"), None, {("send", "A", "AB"): 1.0}, 2.0)
    >>> b = Choice("AB", ("A", "B"), None, {("send", "A", "AB"): 1.0}, 2.0)
    >>> memo.choice_number(a) == memo.choice_number(b) != memo.choice_number(Choice("A", (), None, {}, 0.0))
    True
    """

    def __init__(self) -> None:
        self.kept: dict[tuple, list] = {}
        self._values: dict[object, int] = {}
        self._objects: dict[int, tuple[object, int]] = {}
        self._paid: Mapping[tuple, float] | None = None
        self._size = -1
        self._bits: dict[int, tuple[bool, ...]] = {}
        self._moves: dict[str, tuple[tuple[str, str], ...]] = {}

    def _number(self, obj: object, value: Callable[[], object]) -> int:
        """The number of ``obj``'s value (``value()``, made only for an object not seen)."""
        found = self._objects.get(id(obj))
        if found is not None and found[0] is obj:
            return found[1]
        v = value()
        number = self._values.get(v)
        if number is None:
            number = self._values[v] = len(self._values)
        self._objects[id(obj)] = (obj, number)
        return number

    def choice_number(self, choice: object) -> int:
        """The number of a choice's latency and items in order (items are never changed)."""
        return self._number(choice, lambda: (choice.latency, tuple(choice.items.items())))  # type: ignore[attr-defined]

    def projection_number(self, projection: Projection) -> int:
        """The number of a projection's value (all its fields)."""
        return self._number(projection, lambda: projection)

    def _view(self, paid: Mapping[tuple, float]) -> None:
        """Make the per-choice and per-input views of ``paid`` (kept while it is unchanged)."""
        if paid is self._paid and len(paid) == self._size:
            return
        self._paid, self._size, self._bits = paid, len(paid), {}
        moves: dict[str, list[tuple[str, str]]] = {}
        for kind, i, target in paid:
            moves.setdefault(i, []).append((kind, target))
        self._moves = {i: tuple(found) for i, found in moves.items()}

    def key(
        self,
        network: Network,
        projection: Projection,
        pre: Sequence[Projection],
        choices: Mapping[str, object],
        params: object,
        paid: Mapping[tuple, float],
        theta: frozenset[str] | set[str],
        is_sink: bool,
        kleene: frozenset[str],
    ) -> tuple:
        """Everything :func:`~inev.planner.alg1_combination.choose_options` reads."""
        if len(self.kept) >= MAX_KEPT:  # numbers and views go with the answers
            self.__init__()  # type: ignore[misc]
        glob = network.global_rates()
        types = sorted(projection.types)
        self._view(paid)
        bits, moves = self._bits, self._moves
        pk, own_types = projection.key, projection.types
        inputs = []
        objects = self._objects
        for i in pre:
            ch = choices[i.key]
            seen = objects.get(id(ch))  # the numbers inline: the look-up is the hot path
            fp = seen[1] if seen is not None and seen[0] is ch else self.choice_number(ch)
            seen = objects.get(id(i))
            number = seen[1] if seen is not None and seen[0] is i else self.projection_number(i)
            found = bits.get(fp)
            if found is None:
                found = bits[fp] = tuple(k in paid for k in ch.items)  # type: ignore[attr-defined]
            sent = moves.get(i.key, ())
            if sent:  # the paid transports of i this enumeration could look up
                sent = tuple(sorted({(kind, t) for kind, t in sent if (t == pk if kind ==
                                     "send" else t in own_types)}))  # fmt: skip
            inputs.append((number, fp, found, sent))
        figures = tuple((glob[t], network.sources(t)) for t in types)
        own = tuple(self.choice_number(choices[t]) if t in choices else -1 for t in types)
        return (
            self.projection_number(projection),
            tuple(inputs),
            figures,
            own,
            trees_of(network),
            params,
            frozenset(theta),
            is_sink,
            kleene,
        )

    def get(self, key: tuple) -> list | None:
        """The options kept for ``key`` (a new list), or None."""
        found = self.kept.get(key)
        return None if found is None else list(found)

    def put(self, key: tuple, options: list) -> None:
        """Keep ``options`` for ``key`` (the key was made since the memo was last emptied)."""
        self.kept[key] = list(options)
