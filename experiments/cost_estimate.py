"""What a sweep will cost, said before most of it runs: an estimate from its first task.

A sweep (or one figure of ``inev reproduce``) runs its first pending task alone (on Spark
as a job of its own, once the session has started) before it fans the rest out, times it,
and reports a :class:`SweepEstimate`: the rest of the tasks times that task's wall time,
spread over the workers. The first task's rows are kept like any other's, so the estimate
costs no extra work (on Spark, one job's scheduling and the first worker's start, which
the estimate then includes).

It is an estimate, named as such: tasks differ (grid points with more nodes or queries
cost more; later seeds of a change axis find their plan cached, see
:func:`inev.experiments.sweep.seed_major`), and Spark adds its own start-up and scheduling.
The progress bar's remaining time then follows the tasks as they finish.

>>> estimate = SweepEstimate(first_seconds=3.0, remaining=99, workers=2)
>>> round(estimate.seconds, 1)
148.5
>>> estimate.line()
'estimate: first task 3 s; 99 more ≈ 2.5 min on 2 workers'
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from inev.common.words import plural


@dataclass(frozen=True)
class SweepEstimate:
    """The first task's wall seconds, the tasks still to run, and the workers (None: unknown,
    a cluster whose size the driver does not know)."""

    first_seconds: float
    remaining: int
    workers: int | None

    @property
    def seconds(self) -> float:
        """Wall seconds the remaining tasks take at the first task's pace: the whole work
        divided by the workers (by one when they are unknown)."""
        return self.remaining * self.first_seconds / max(self.workers or 1, 1)

    def line(self) -> str:
        """The line a command prints, e.g. ``estimate: first task 3 s; 99 more ≈ 2.5 min on
        2 workers`` (CPU time of the work when the cluster's size is unknown)."""
        head = f"estimate: first task {_duration(self.first_seconds)}"
        if self.remaining == 0:
            return f"{head}; nothing more to run"
        if self.workers is None:
            work = _duration(self.remaining * self.first_seconds)
            return f"{head}; {self.remaining} more ≈ {work} of work for the cluster's workers"
        where = plural(self.workers, "worker")
        return f"{head}; {self.remaining} more ≈ {_duration(self.seconds)} on {where}"


def workers_of(master: str, parallelism: int | None = None) -> int | None:
    """How many tasks run at once: ``parallelism`` if given, 1 for ``serial``, N for
    ``local[N]``, the machine's cores for ``local`` and ``local[*]``, None for a cluster.

    >>> workers_of("serial"), workers_of("local[3]"), workers_of("spark://host:7077")
    (1, 3, None)
    >>> workers_of("local[*]", parallelism=4)
    4
    """
    if parallelism:
        return parallelism
    if master == "serial":
        return 1
    found = re.fullmatch(r"local(?:\[(\*|\d+)(?:,\s*\d+)?\])?", master.strip())
    if found is None:
        return None
    count = found.group(1)
    if count is None or count == "*":
        return os.cpu_count() or 1
    return max(int(count), 1)


def _duration(seconds: float) -> str:
    """``3 s``, ``2.5 min``, ``1.3 h``: a duration in the unit that reads best.

    >>> _duration(0.42), _duration(150.0), _duration(7200.0)
    ('0.42 s', '2.5 min', '2 h')
    """
    if seconds < 90:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.2g} min"
    return f"{seconds / 3600:.2g} h"
