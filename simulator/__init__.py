"""The INEv simulator (INEv paper §5.1, §6.6, §7): a plan run node by node on SimPy links.

Public API (imported on first use, so ``inev match`` and ``inev --help`` stay light):

``simulate(network, workload, plan, options=None, *, trace=None, changes=(), progress=None,
**fields) -> SimulationResult``
    Run a plan with Poisson sources (or a replayed trace) and changes at run time; count
    messages, check the sinks' matches against centralized evaluation
    (:mod:`inev.simulator.run`).
``SimulationOptions``, ``CapacityOptions``
    How to simulate (duration, seed, links, engines, size check) and node capacities with
    load shedding (:mod:`inev.simulator.options`, :mod:`inev.simulator.capacity`).
``SimulationResult``, ``load_result(path)``, ``save_result(result, path)``, ``query_table``
    What a run measured and its ``inev-sim/1`` file; a rich table of its queries.
``simulate_request(files, out, options, *, method=None, ...)``, ``open_simulation(request)``
    ``inev simulate`` as library calls, taking a ``SimulationOptions``
    (:mod:`inev.simulator.simulate_job`).
``compile_workload``, ``MatchOptions``, ``SheddingOptions``, ``make_event``
    The local CEP engine alone (its facade :mod:`inev.simulator.engine.api`, also
    ``inev.simulator.engine``).

Examples
--------
>>> from inev.topologies import Network
>>> from inev.workloads import Query, Workload
>>> from inev.planner import plan_workload
>>> from inev.simulator import simulate
>>> net = Network.build(range(5), [(0, 1), (1, 2), (2, 3), (3, 4)],
...                     {"A": (5.0, [0, 4]), "B": (0.2, [2])})   # A at both ends, rare B between
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(B, A)")])
>>> plan = plan_workload(net, wl)    # B sent to the A sources: ψ 0.8 against 20 centralized
>>> plan.psi, plan.centralized_cost
(0.8, 20.0)
>>> result = simulate(net, wl, plan, duration=50.0, seed=1)
>>> result.matches == result.centralized_matches, result.missing, result.extra
(True, 0, 0)
>>> result.messages < result.centralized_messages / 10
True
"""

from typing import TYPE_CHECKING

from inev.common.facade import lazy_exports

_EXPORTS = {
    "simulate": "inev.simulator.run",
    "SimulationOptions": "inev.simulator.options",
    "CapacityOptions": "inev.simulator.capacity",
    "SimulationResult": "inev.simulator.simulation_result",
    "load_result": "inev.simulator.simulation_result",
    "save_result": "inev.simulator.simulation_result",
    "query_table": "inev.simulator.tables",
    "SimulateRequest": "inev.simulator.simulate_job",
    "SimulationJob": "inev.simulator.simulate_job",
    "simulate_request": "inev.simulator.simulate_job",
    "open_simulation": "inev.simulator.simulate_job",
    "compile_workload": "inev.simulator.engine.api",
    "MatchOptions": "inev.simulator.engine.api",
    "SheddingOptions": "inev.simulator.engine.api",
    "make_event": "inev.simulator.engine.api",
}
__all__ = [
    "CapacityOptions",
    "MatchOptions",
    "SheddingOptions",
    "SimulateRequest",
    "SimulationJob",
    "SimulationOptions",
    "SimulationResult",
    "compile_workload",
    "load_result",
    "make_event",
    "open_simulation",
    "query_table",
    "save_result",
    "simulate",
    "simulate_request",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from inev.simulator.capacity import CapacityOptions
    from inev.simulator.engine.api import (
        MatchOptions,
        SheddingOptions,
        compile_workload,
        make_event,
    )
    from inev.simulator.options import SimulationOptions
    from inev.simulator.run import simulate
    from inev.simulator.simulate_job import (
        SimulateRequest,
        SimulationJob,
        open_simulation,
        simulate_request,
    )
    from inev.simulator.simulation_result import SimulationResult, load_result, save_result
    from inev.simulator.tables import query_table
