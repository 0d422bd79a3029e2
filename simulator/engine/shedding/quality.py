"""Quality of results under load shedding (the pSPICE paper's §IV metrics).

:func:`run_overload` evaluates a workload over a trace twice on one node: an unshedded run
with unlimited capacity (the reference, and the work it needs: ``auto:F`` capacity is F times
its work units per time unit of the trace), then a run with the given capacity, latency
bound and strategy. Events arrive at their timestamps. It reports, per query and in total,
false negatives (reference matches missing), false positives (matches the reference does not
have), the weighted false-negative share ``Σ w_q·FN_q / Σ w_q·|ref_q|``, latency-bound
violations (processed items whose queueing + processing latency exceeds the bound), shed
partial matches and events, throughput (processed items per time unit of the run) and the
detection latency of the matches (mean, p50, p99, max).
"""

from __future__ import annotations

import math
import time as clock
from collections.abc import Callable, Sequence
from typing import Any

from inev.common.stats import latency_summary
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.node_queue import Processor, needed_capacity, parse_capacity
from inev.simulator.engine.shedding.shedders import Shedder


def _key(out: Any) -> Any:
    if isinstance(out, Event):
        return (out[1], out[3])
    return tuple(e[3] for e in out)


def run_node(
    make_engines: Callable[[], dict[str, Any]],
    events: Sequence[Event],
    capacity: float,
    arrivals: Sequence[float] | None = None,
    **options: Any,
) -> tuple[Processor, dict[str, list[Any]], float]:
    """Run ``events`` (arriving at their times, or at ``arrivals``: with a count-based
    window the events' times are their places in the stream) through a fresh
    :class:`Processor`; return it, the outputs per engine in emission order, and the wall
    seconds spent in the shedder (detection excluded; model building included, as it runs
    in ``after``): in the hooks of :data:`HOOKS` that the shedder's class implements (a hook
    left as :class:`.Shedder`'s no-op is not timed: timing it measured only the timer and
    the call, about 0.2 µs an item, which no shedder of the paper's operator pays)."""
    proc = Processor(make_engines(), capacity, **options)
    outputs: dict[str, list[Any]] = {name: [] for name in proc.engines}
    shedder = proc.shedder
    timed = [0.0]
    if shedder.name != "none":
        for hook in timed_hooks(shedder):
            setattr(shedder, hook, _timed(getattr(shedder, hook), timed))
    times = [e[0] for e in events] if arrivals is None else arrivals
    for e, t in zip(events, times, strict=True):
        for name, out in proc.arrive(e, t).outputs:
            outputs[name].append(out)
    for name, out in proc.finish().outputs:
        outputs[name].append(out)
    return proc, outputs, timed[0]


HOOKS = ("shed", "relieve", "after", "admit", "flagged")
"""The shedder's hooks the processor calls (``flagged``: the detector's verdict per item,
which the event shedders use for their running share)."""


def timed_hooks(shedder: Shedder) -> list[str]:
    """The hooks of :data:`HOOKS` that ``shedder``'s class implements (not the no-op of
    :class:`.Shedder`).

    Parameters
    ----------
    shedder : Shedder
        The shedder.

    Returns
    -------
    list of str
        Hook names, in :data:`HOOKS`' order.

    Examples
    --------
    >>> from inev.simulator.engine.shedding.shedders import make_shedder
    >>> timed_hooks(make_shedder("pspice")), timed_hooks(make_shedder("random-pm"))
    (['shed', 'relieve', 'after'], ['shed'])
    >>> timed_hooks(make_shedder("random-event"))
    ['shed', 'admit', 'flagged']
    """
    return [h for h in HOOKS if getattr(type(shedder), h) is not getattr(Shedder, h)]


def _timed(fn: Callable[..., Any], total: list[float]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Any:
        t0 = clock.perf_counter()
        try:
            return fn(*args)
        finally:
            total[0] += clock.perf_counter() - t0

    return wrapper


def run_overload(
    make_engines: Callable[[], dict[str, Engine]],
    events: Sequence[Event],
    capacity: str | float,
    latency_bound: float | None,
    strategy: Any = "pspice",
    *,
    weights: dict[str, float] | None = None,
    cost_per_unit: float = DEFAULT_COST_PER_UNIT,
    safety: float = 0.0,
    seed: int = 0,
    reference: tuple[dict[str, list[Any]], float] | None = None,
    arrivals: Sequence[float] | None = None,
    options: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """Reference and shedded runs of ``events``; return the ``shedding`` figures and the
    shedded run's outputs per query. ``reference`` reuses an earlier unshedded run
    (outputs, work units); ``arrivals``: arrival times when they are not the events' times
    (count-based windows); ``options``: further :class:`Processor` options (``detector``,
    ``shed_cost``, ``early``); ``strategy`` may be a shedder object."""
    weights = weights or {}
    if reference is None:
        ref_proc, ref_out, _ = run_node(make_engines, events, math.inf, arrivals)
        reference = (ref_out, ref_proc.stats.work)
    ref_out, ref_work = reference
    times = [e[0] for e in events] if arrivals is None else list(arrivals)
    duration = times[-1] - times[0] if times else 0.0
    kind, value = parse_capacity(capacity)
    needed = needed_capacity(ref_work, duration)
    cap = value * needed if kind == "auto" else value
    wall = clock.perf_counter()
    proc, out, shed_seconds = run_node(
        make_engines,
        events,
        cap,
        arrivals,
        cost_per_unit=cost_per_unit,
        latency_bound=latency_bound,
        shedder=strategy,
        weights=weights,
        safety=safety,
        seed=seed,
        **(options or {}),
    )
    wall = clock.perf_counter() - wall
    per_query: dict[str, dict[str, int]] = {}
    fn_weighted = 0.0
    total_weighted = 0.0
    for name in ref_out:
        ref = {_key(m) for m in ref_out[name]}
        got = {_key(m) for m in out.get(name, [])}
        fn = len(ref - got)
        fp = len(got - ref)
        per_query[name] = {
            "reference": len(ref),
            "matches": len(got),
            "false_negatives": fn,
            "false_positives": fp,
        }
        w = weights.get(name, 1.0)
        fn_weighted += w * fn
        total_weighted += w * len(ref)
    stats = proc.stats
    span = max(proc.busy_until, times[-1] if times else 0.0) - (times[0] if times else 0.0)
    result = {
        "strategy": strategy if isinstance(strategy, str) else proc.shedder.name,
        "capacity": cap,
        "needed_capacity": needed,
        "load": needed / cap if cap > 0 else math.inf,
        "latency_bound": latency_bound,
        "false_negatives": sum(q["false_negatives"] for q in per_query.values()),
        "false_positives": sum(q["false_positives"] for q in per_query.values()),
        "false_negative_share": fn_weighted / total_weighted if total_weighted else 0.0,
        "bound_violations": stats.violations,
        "overloads": stats.overloads,
        "shed_partial_matches": proc.shedder.shed_partial_matches,
        "shed_events": proc.shedder.shed_events,
        "items": stats.items,
        "processed": stats.processed,
        "throughput": stats.processed / span if span > 0 else float(stats.processed),
        "work": stats.work,
        "latency": latency_summary(stats.match_latencies),
        "item_latency": latency_summary(stats.latencies),
        "max_service": stats.max_service,
        "shedder_seconds": shed_seconds,
        "wall_seconds": wall,
        "queries": per_query,
    }
    return result, out
