"""What an engine emits: root matches, held while a negation may still cancel them, then
whole matches or an output selector's events (INEv §5.1), filtered by the selection
strategy (:mod:`.selection`).

:class:`Outputs` holds that state (the held matches, the selected events already emitted)
and the engine hands it each branch's root matches (:meth:`Outputs.final`).

An output selector emits each selected event once, however many matches hold it:

>>> from inev.simulator.engine.engine import Engine
>>> from inev.simulator.engine.events import make_event
>>> engine = Engine("SEQ(A, B)", window=5.0, output=["A"])
>>> [[e.id for e in engine.push(make_event(t, x, 0, i))] for i, (t, x) in enumerate([(0.0, "A"), (1.0, "B"), (2.0, "B")])]
[[], [0], []]
>>> engine.counters["matches"], engine.counters["outputs"], list(engine.outputs.emitted)
(2, 1, [('A', 0)])
"""

from __future__ import annotations

import heapq
from typing import Any

from inev.simulator.engine.branch import Branch
from inev.simulator.engine.selection import Selector


class Outputs:
    """An engine's outputs: ``window``, the output selector's types (``output``; None for
    whole matches), the selection strategy (``selector``; None for skip-till-any-match) and
    the engine's ``counters`` (``matches`` and ``outputs`` counted here). ``pending`` is a
    heap of held matches ``(release time, order, branch, match)``; ``emitted`` the selected
    events already emitted, by ``(type, id)``, with their times."""

    def __init__(
        self,
        window: float,
        output: frozenset[str] | None,
        selector: Selector | None,
        counters: dict[str, int],
    ) -> None:
        self.window = window
        self.output = output
        self.selector = selector
        self.counters = counters
        self.pending: list[tuple[float, int, Branch, Any]] = []
        self.emitted: dict[tuple[str, Any], float] = {}
        self.held = 0

    def final(self, branch: Branch, found: list) -> list[Any]:
        """Emit root matches, or hold them until the window has passed when a negation
        reaches past their last event (they are checked again then: :meth:`release_held`)."""
        if not branch.deferred:
            return self.emit(branch, found)
        window = self.window
        latest = branch.hold == "latest"
        pending = self.pending
        for m in found:
            self.held += 1
            end = m[1] if latest else m[0] + window
            heapq.heappush(pending, (end, self.held, branch, m))
        return []

    def release_held(self, upto: float, out: list | None = None) -> list[Any]:
        """Emit the held matches whose window ends before ``upto`` (every event up to the
        end has been processed) and that no later negated event cancels."""
        found = [] if out is None else out
        pending = self.pending
        while pending and pending[0][0] < upto:
            _, _, branch, m = heapq.heappop(pending)
            if branch.late_check(m[3]):
                found.extend(self.emit(branch, [m]))
        return found

    def emit(self, branch: Branch, found: list) -> list[Any]:
        """The outputs of the final root matches ``found``: whole matches (a Kleene trend's
        events flattened in time order) or each selected event once."""
        if self.selector is not None:
            found = self._selected(branch, found)
        counters = self.counters
        counters["matches"] += len(found)
        if self.output is None:
            counters["outputs"] += len(found)
            if not branch.kleene_slots:
                return [m[3] for m in found]
            return [branch.flatten(m[3]) for m in found]
        out = []
        selected = self.output
        emitted = self.emitted
        for m in found:
            for e in branch.flatten(m[3]):
                if e[1] in selected:
                    key = (e[1], e[3])
                    if key not in emitted:
                        emitted[key] = e[0]
                        out.append(e)
        counters["outputs"] += len(out)
        return out

    def purge(self, cutoff: float) -> None:
        """Forget the emitted events older than ``cutoff`` (no match can hold them again)."""
        if self.emitted:
            self.emitted = {k: v for k, v in self.emitted.items() if v >= cutoff}

    def clear(self) -> None:
        """Forget every held match and emitted event (the run is over)."""
        self.pending.clear()
        self.emitted = {}

    def _selected(self, branch: Branch, found: list) -> list:
        """The matches the selection strategy keeps, in its order."""
        selector = self.selector
        assert selector is not None
        check = branch.next_check
        made = sorted(
            ((m, branch.flatten(m[3])) for m in found),
            key=lambda x: selector.order_key(x[1]),
        )
        return [m for m, events in made if selector.keep(events, check)]
