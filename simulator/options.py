"""How to simulate, in one immutable object passed whole from the CLI to the library.

``inev simulate``'s flags map onto :class:`SimulationOptions` (the CLI builds it once and
hands it to :func:`inev.simulator.run.simulate`), as :class:`inev.planner.options.PlanOptions`
does for ``inev plan``. The run's data (network, workload, plan, a trace, changes) and its
progress callback stay arguments of ``simulate``.

>>> SimulationOptions(duration=5.0).seed
0
>>> SimulationOptions(engine_plan="left-deep")
Traceback (most recent call last):
inev.common.errors.InevError: engine plan must be one of greedy, zstream, got 'left-deep'
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from inev.common.errors import InevError
from inev.simulator.capacity import CapacityOptions
from inev.simulator.engine.engine_options import DEFAULT_ADAPTATION, DEFAULT_ENGINE_PLAN
from inev.simulator.engine.matching import ADAPTIVE, ENGINE_PLANS
from inev.simulator.timeline import bin_width


@dataclass(frozen=True)
class SimulationOptions:
    """How to run a plan: simulated time, sources, links, engines, size check, capacity.

    Parameters
    ----------
    duration : float
        Simulated time units (a replayed trace extends it to its last event).
    seed : int
        The Poisson sources' seed.
    bandwidth : float or None
        Messages per time unit a link carries (None: no queueing).
    engine_plan, adaptation : str
        The local engines' plan generation and re-optimisation.
    check : bool
        Refuse a run whose size estimate would exhaust memory.
    capacity : CapacityOptions or None
        Node capacities and load shedding (None: unlimited).
    batch : bool
        Batched releases where nothing can observe them (same figures, faster; see
        :mod:`inev.simulator.execution`).
    timeline_bin : float or None
        The width of the result's timeline bins (None:
        :func:`inev.simulator.timeline.default_bin` of the duration).

    Examples
    --------
    >>> SimulationOptions(duration=20.0, seed=1).engine_plan
    'greedy'
    >>> SimulationOptions(engine_plan="fast")
    Traceback (most recent call last):
    inev.common.errors.InevError: engine plan must be one of greedy, zstream, got 'fast'
    """

    duration: float = 100.0
    seed: int = 0
    bandwidth: float | None = None
    engine_plan: str = DEFAULT_ENGINE_PLAN
    adaptation: str = DEFAULT_ADAPTATION
    check: bool = True
    capacity: CapacityOptions | None = None
    batch: bool = True
    timeline_bin: float | None = None

    def __post_init__(self) -> None:
        if self.engine_plan not in ENGINE_PLANS:
            raise InevError(
                f"engine plan must be one of {', '.join(ENGINE_PLANS)}, got {self.engine_plan!r}"
            )
        if self.adaptation not in ADAPTIVE:
            raise InevError(
                f"adaptation must be one of {', '.join(ADAPTIVE)}, got {self.adaptation!r}"
            )
        if self.timeline_bin is not None:
            bin_width(self.duration, self.timeline_bin)  # refuses a bin that is not positive

    @classmethod
    def of(cls, options: SimulationOptions | None, changed: dict[str, Any]) -> SimulationOptions:
        """``options`` (default: the defaults) with the named fields ``changed``.

        >>> SimulationOptions.of(None, {"seed": 3}).seed
        3
        >>> SimulationOptions.of(None, {"speed": 3})
        Traceback (most recent call last):
        TypeError: simulate() got unexpected keyword arguments: speed
        """
        unknown = set(changed) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(
                f"simulate() got unexpected keyword arguments: {', '.join(sorted(unknown))}"
            )
        return replace(options or cls(), **changed)
