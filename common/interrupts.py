"""Interrupts: SIGINT and SIGTERM end a run cleanly, with no temporary file left behind.

Python turns SIGINT (Ctrl-C) into :class:`KeyboardInterrupt`, which unwinds every ``with``
block, so :func:`inev.common.files.atomic_output` removes its temporary file. SIGTERM (``kill``,
a job scheduler's time limit) would end the process at once and leave it; inside
:func:`clean_exit_on_signals` it raises :class:`Terminated` instead, which unwinds the same way.
Whatever is still registered as a live temporary file when the block ends is removed too.

SIGKILL cannot be caught: the temporaries it leaves carry the dead process's id in their name,
and the next run writing the same output removes them
(:func:`inev.common.files.remove_stale_temporaries`).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

from inev.common.files import remove_live_temporaries


class Terminated(BaseException):
    """SIGTERM arrived (a :class:`BaseException`, like :class:`KeyboardInterrupt`, so that
    ``except Exception`` clauses do not swallow it)."""


def _raise_terminated(signum: int, frame: FrameType | None) -> None:
    raise Terminated(signum)


@contextlib.contextmanager
def clean_exit_on_signals() -> Iterator[None]:
    """Within the block SIGTERM raises :class:`Terminated`; on leaving it, live temporary
    files are removed (see the module docstring). Outside the main thread it only cleans up.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    if main:
        signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)
        remove_live_temporaries()
