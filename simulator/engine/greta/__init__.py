"""GRETA: aggregation of Kleene event trends without constructing them (GRETA paper, PVLDB 2017).

Modules: :mod:`.template` (§4.1, §5.1 static template), :mod:`.trend_predicates` (§6 vertex and
edge predicates), :mod:`.aggregates` (§2 Def. 2 and §4.2 propagation), :mod:`.predecessors`
(§7 vertex stores), :mod:`.graph` (§4.2, §5.2, §6 runtime graph), :mod:`.windows`,
:mod:`.runtime` (grouping, windows, results), :mod:`.two_step` (the SASE-style baseline),
:mod:`.event_rows` (events from trace rows; the record is the engine's).

Calling it (``inev match``, query sinks of the simulator)::

    from inev.simulator.engine.greta import greta_workload, greta_aggregates, GretaQuery
    for result in greta_workload(workload, events):   # every query with a return clause
        out.write(json.dumps(result) + "\n")         # {"query", "window_start", ...}

``events`` is any iterable in non-decreasing time order of :class:`Event`, trace rows
(mappings with ``time``, ``type``, ``node``, ``id`` and attribute keys) or objects with
``time``, ``type`` and ``attributes`` (or ``attrs``). A push-based sink uses
``runner = GretaQuery(compile_query(query, workload.window, workload.slide))``, then
``runner.push(event)`` (returns results of the windows that closed) and ``runner.finish()``.
"""

from .event_rows import Event, as_event, greta_event
from .runtime import CompiledQuery, GretaQuery, compile_query, greta_aggregates, greta_workload
from .template import Template, Transition, build_template
from .two_step import TrendLimitExceeded, two_step_aggregates

__all__ = [
    "CompiledQuery",
    "Event",
    "GretaQuery",
    "Template",
    "Transition",
    "TrendLimitExceeded",
    "as_event",
    "build_template",
    "compile_query",
    "greta_aggregates",
    "greta_event",
    "greta_workload",
    "two_step_aggregates",
]
