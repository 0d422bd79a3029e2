"""What an engine emits: root matches, held while a negation may still cancel them, then
whole matches or an output selector's events (INEv §5.1), filtered by the selection
strategy (:mod:`.selection`)."""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

from inev.simulator.engine.branch import Branch

if TYPE_CHECKING:
    from inev.simulator.engine.engine import Engine


def final(engine: Engine, branch: Branch, found: list) -> list[Any]:
    """Emit root matches, or hold them until the window has passed when a negation
    reaches past their last event (they are checked again then: :func:`release_held`)."""
    if not branch.deferred:
        return emit(engine, branch, found)
    window = engine.window
    latest = branch.hold == "latest"
    for m in found:
        engine.arrivals += 1
        end = m[1] if latest else m[0] + window
        heapq.heappush(engine.pending, (end, engine.arrivals, branch, m))
    return []


def release_held(engine: Engine, upto: float, out: list | None = None) -> list[Any]:
    """Emit the held matches whose window ends before ``upto`` (every event up to the
    end has been processed) and that no later negated event cancels."""
    found = [] if out is None else out
    pending = engine.pending
    while pending and pending[0][0] < upto:
        _, _, branch, m = heapq.heappop(pending)
        if branch.late_check(m[3]):
            found.extend(emit(engine, branch, [m]))
    return found


def emit(engine: Engine, branch: Branch, found: list) -> list[Any]:
    """The outputs of the final root matches ``found``: whole matches (a Kleene trend's
    events flattened in time order) or each selected event once."""
    if engine.selector is not None:
        found = _selected(engine, branch, found)
    engine.counters["matches"] += len(found)
    if engine.output is None:
        engine.counters["outputs"] += len(found)
        if not branch.kleene_slots:
            return [m[3] for m in found]
        return [branch.flatten(m[3]) for m in found]
    out = []
    selected = engine.output
    emitted = engine.emitted
    for m in found:
        for e in branch.flatten(m[3]):
            if e[1] in selected:
                key = (e[1], e[3])
                if key not in emitted:
                    emitted[key] = e[0]
                    out.append(e)
    engine.counters["outputs"] += len(out)
    return out


def _selected(engine: Engine, branch: Branch, found: list) -> list:
    """The matches the selection strategy keeps, in its order."""
    selector = engine.selector
    assert selector is not None
    check = branch.next_check
    made = sorted(
        ((m, branch.flatten(m[3])) for m in found),
        key=lambda x: selector.order_key(x[1]),
    )
    return [m for m, events in made if selector.keep(events, check)]
