"""The local adaptive CEP engine of one simulated node (adaptive-CEP paper §2-§4, INEv §3.2, §5.1).

Its public API is :mod:`inev.simulator.engine.api` (compile a workload, feed events, read
matches, GRETA aggregates and shedding reports); one query's engine is
:class:`inev.simulator.engine.engine.Engine`. The modules are: ``api``,
``events`` (event model, deterministic selectivity predicate), ``constraints`` (a pattern as
slots and constraints), ``predicates`` (compiled checks), ``evaluation_plans`` (order- and
tree-based plans), ``plan_runner`` (running one plan), ``greedy`` / ``zstream`` (plan
generation), ``statistics``, ``invariants`` (decision functions: invariants and baselines),
``engine`` and its collaborators, each with its own state (``reoptimization``: the
``Reoptimizer``, Algorithm 1's checks and plan replacement; ``branch_units``: the ``Routes``
tables and the OR branches' inputs; ``outputs``: ``Outputs``, held and emitted matches;
``branch``: one OR branch's compiled checks, plans and statistics; ``engine_options``: the
checked options and ``EngineSettings``), ``trace`` and ``cli``;
the sub-package ``greta`` aggregates Kleene trends without building them (GRETA), and
``shedding`` holds pSPICE (``node_queue``: a node's FIFO queue, ``detector``, ``pspice_model``,
``shedders``).

``compile_workload``, ``CompiledWorkload``, ``Matches``, ``MatchOptions``, ``SheddingOptions``,
``SheddingReport``, ``make_event`` and ``Event`` are importable from here as well (loaded on
first use, from :mod:`inev.simulator.engine.api`).

>>> from inev.simulator.engine import compile_workload, make_event
>>> from inev.workloads import Query, Workload
>>> wl = Workload.build(5.0, [Query.build("q", "SEQ(A, B)")])
>>> compile_workload(wl).run([make_event(0.0, "A", 0, 1), make_event(1.0, "B", 0, 2)]).matches
{'q': [(1, 2)]}
"""

from typing import TYPE_CHECKING

from inev.common.facade import lazy_exports

_API = "inev.simulator.engine.api"
_EXPORTS = {
    name: _API
    for name in (
        "CompiledWorkload",
        "Event",
        "MatchOptions",
        "Matches",
        "SheddingOptions",
        "SheddingReport",
        "compile_workload",
        "make_event",
    )
}
__all__ = [
    "CompiledWorkload",
    "Event",
    "MatchOptions",
    "Matches",
    "SheddingOptions",
    "SheddingReport",
    "compile_workload",
    "make_event",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from inev.simulator.engine.api import (
        CompiledWorkload,
        Event,
        Matches,
        MatchOptions,
        SheddingOptions,
        SheddingReport,
        compile_workload,
        make_event,
    )
