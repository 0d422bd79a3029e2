"""A progress bar over trace time, on stderr, off when stderr is not a terminal."""

from __future__ import annotations

import contextlib
import time as clock
from collections.abc import Callable, Iterator

REFRESH_SECONDS = 0.2


@contextlib.contextmanager
def time_progress(label: str, start: float, end: float) -> Iterator[Callable[[float], None]]:
    """A rich progress bar from ``start`` to ``end`` (trace time); yields ``update(t)``.

    The bar goes to stderr, and only when stderr is a terminal (a pipe or a log file gets
    nothing); updates are throttled to a few per second, so calling ``update`` per event
    chunk costs nothing.

    >>> with time_progress("replay", 0.0, 10.0) as update:
    ...     update(5.0)
    """
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = Console(stderr=True)
    if not console.is_terminal:
        yield lambda _t: None
        return
    span = max(end - start, 1e-12)
    progress = Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        TextColumn("t={task.fields[now]:.6g}"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    )
    task = progress.add_task(label, total=span, now=start)
    last = [0.0]

    def update(t: float) -> None:
        now = clock.monotonic()
        if now - last[0] >= REFRESH_SECONDS:
            last[0] = now
            progress.update(task, completed=min(max(t - start, 0.0), span), now=t)

    with progress:
        yield update
