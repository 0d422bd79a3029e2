"""Progress of long planning runs, reported to whoever listens (the CLI draws it on stderr).

The planner calls :func:`stage` when it enters a stage (with the number of steps it expects,
0 if unknown) and :func:`advance` after each step; without a listener (the library's default)
both do nothing. :func:`reporting` installs a listener for the calls made inside it.

>>> seen = []
>>> with reporting(lambda name, total, done: seen.append((name, total, done))):
...     stage("local search", 2)
...     advance()
>>> seen
[('local search', 2, 0), ('local search', 2, 1)]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

Listener = Callable[[str, int, int], None]
"""Called with (stage name, expected steps or 0, steps done)."""

_LISTENER: ContextVar[Listener | None] = ContextVar("inev_plan_progress", default=None)
_STATE: ContextVar[list | None] = ContextVar("inev_plan_stage", default=None)


def stage(name: str, total: int = 0) -> None:
    """Enter a stage of ``total`` expected steps (0: unknown)."""
    listener = _LISTENER.get()
    if listener is None:
        return
    state = [name, total, 0]
    _STATE.set(state)
    listener(name, total, 0)


def advance() -> None:
    """One step of the current stage done."""
    listener, state = _LISTENER.get(), _STATE.get()
    if listener is None or state is None:
        return
    state[2] += 1
    listener(state[0], state[1], state[2])


@contextmanager
def reporting(listener: Listener) -> Iterator[None]:
    """Send the progress of the planning done inside the block to ``listener``."""
    token = _LISTENER.set(listener)
    state_token = _STATE.set(None)
    try:
        yield
    finally:
        _STATE.reset(state_token)
        _LISTENER.reset(token)
