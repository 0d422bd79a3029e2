"""From an event network and a workload to an INEv graph (INEv paper §4–§6): the planner's entry point.

:func:`plan_workload` runs one method and returns a :class:`~inev.planner.inev_graph.Plan` with ψ,
the centralized cost and node, the ratio, a provable lower bound and the paper's §7.2
approximation, the latency ℓ(I) and the centralized latency:

``inev``
    The paper's construction (Alg. 1 per query with §6.3's sharing, then Alg. 2) and a search
    around it, judged by the exact ψ of the placed graph; the result never costs more than
    the centralized, isolated or push-pull plan (:mod:`inev.planner.search`; ``kept`` says
    which candidate won).
``centralized``
    All queries at the best single node (:mod:`inev.planner.baselines`).
``isolated``
    The sharing-agnostic INEv plan: each query planned alone, side by side, costs summed
    (§7.2, Fig. 10a; :mod:`inev.planner.isolated`).
``ppop``
    Push-pull operator placement per query (:func:`inev.planner.baselines.push_pull`), pulls
    priced per partial match after the selectivities (inev's model).
``ppop-flouris``
    The same placement search with Flouris et al.'s pull model, the one the paper compares
    with (§7.2, Fig. 4): pulls triggered by the raw occurrences of the pushed prefix.
``exact``
    The least-ψ plan on small instances, never above any method above
    (:mod:`inev.planner.exact`; refused in one line beyond its limits).

OR queries are split first (§3.2). There is no latency bound unless
:class:`~inev.planner.options.PlanOptions` sets one (see there why).

>>> from inev.topologies.generate import generate_network
>>> from inev.workloads.generate import generate_workload
>>> net = generate_network(seed=1)
>>> plan = plan_workload(net, generate_workload(net, seed=1))
>>> plan.psi <= plan.centralized_cost
True
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

from inev.common.errors import InevError
from inev.common.gc_pause import gc_paused
from inev.planner.baselines import centralized_plan, push_pull_plan
from inev.planner.exact import check_size, exact_plan
from inev.planner.inev_graph import Plan
from inev.planner.lower_bound import approximate_bound, lower_bound
from inev.planner.options import DEFAULT_METHOD, PlanOptions
from inev.planner.projections import check_projection_count
from inev.planner.search import inev_plan, isolated_plan
from inev.topologies.network import Network
from inev.workloads.instance import Instance, prepare_instance
from inev.workloads.pattern import Operator, Primitive, walk
from inev.workloads.workload import Workload

METHODS = ("inev", "centralized", "isolated", "ppop", "ppop-flouris", "exact")


def prepare(network: Network, workload: Workload) -> Workload:
    """The OR-free workload, checked against the network (bad input: :class:`InevError`)."""
    return plannable(network, workload).workload


def plannable(network: Network, workload: Workload) -> Instance:
    """The prepared :class:`~inev.workloads.instance.Instance` of ``network`` and
    ``workload``, checked for planning: the workload's types on the network, a bounded
    number of projections, two or more types per query and Kleene closures over event
    types only (bad input: :class:`InevError`).

    Parameters
    ----------
    network : Network
        The event network as given.
    workload : Workload
        The workload as given (OR is split here, once).

    Returns
    -------
    Instance
        The instance the planner plans (``planning_network`` is the network it plans on).

    Examples
    --------
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build([0], [], {"A": (1.0, [0]), "B": (1.0, [0])})
    >>> plannable(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])).workload.types
    ('A', 'B')
    """
    instance = prepare_instance(network, workload)
    check_plannable(network, instance.workload)
    return instance


def check_plannable(network: Network, wl: Workload) -> None:
    """Raise :class:`InevError` unless the OR-free ``wl`` can be planned on ``network``."""
    wl.check_network(network)
    check_projection_count(wl)
    for q in wl.queries:
        if len(q.types) < 2:
            raise InevError(f"query {q.name}: a single event type needs no plan (use 2 or more)")
        composite = next(
            (
                n
                for n in walk(q.pattern)
                if isinstance(n, Operator)
                and n.kind == "KL"
                and not isinstance(n.children[0], Primitive)
            ),
            None,
        )
        if composite is not None:
            raise InevError(
                f"query {q.name}: the planner plans Kleene closures over event types, not "
                f"{composite} (evaluate it with inev match)"
            )


def planning_network(network: Network, workload: Workload) -> Network:
    """The network the planner plans on: each pattern variable a stream of its own, with its
    event type's sources and rates (:meth:`~inev.topologies.network.Network.with_streams`).
    The plan names variables as inputs; the simulator feeds each its type's events
    (:attr:`~inev.workloads.instance.Instance.planning_network` of a prepared instance)."""
    return Instance(network, workload).planning_network


def plan_workload(
    network: Network,
    workload: Workload,
    method: str = DEFAULT_METHOD,
    options: PlanOptions | None = None,
) -> Plan:
    """Plan ``workload`` on ``network`` with ``method`` (see the module docstring).

    Parameters
    ----------
    network : Network
    workload : Workload
    method : str
        One of :data:`METHODS` (module docstring).
    options : PlanOptions, optional
        Latency bound, search effort, time budget ... (default: ``PlanOptions()``).

    Returns
    -------
    Plan

    Examples
    --------
    B (0.2) sent one hop to each A source: ψ = 0.4, against 10 for gathering both A streams
    (5 each) at node 1:

    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> wl = Workload.build(1.0, [Query.build("q", "SEQ(B, A)")])
    >>> plan_workload(net, wl).psi, plan_workload(net, wl, "centralized").psi
    (0.4, 10.0)
    """
    with gc_paused():  # millions of small objects, hardly a cycle: see inev.common.gc_pause
        return _plan_workload(network, workload, method, options)


def _plan_workload(
    network: Network, workload: Workload, method: str, options: PlanOptions | None
) -> Plan:
    if method not in METHODS:
        raise InevError(f"unknown planning method {method!r} (use one of {', '.join(METHODS)})")
    options = options or PlanOptions()
    start = time.perf_counter()
    instance = plannable(network, workload)
    wl, network = instance.workload, instance.planning_network
    central = centralized_plan(network, wl, options.xi)
    tau = options.tau(central.latency)
    if method == "centralized":
        result = central
    elif method == "inev":
        result = inev_plan(network, wl, central, tau, options)
    elif method == "exact":
        check_size(network, wl, options)
        deadline = start + options.time_budget if options.time_budget else math.inf
        # under a time budget, the incumbent (the search's bound) takes half of it
        halved = (
            replace(options, time_budget=options.time_budget / 2)
            if options.time_budget
            else options
        )
        incumbent = inev_plan(network, wl, central, tau, halved)
        result = exact_plan(network, wl, central, incumbent, options, deadline)
    elif method == "isolated":
        result = isolated_plan(network, wl, tau, options)
    else:
        model = "ppop" if method == "ppop" else "flouris"
        result = push_pull_plan(network, wl, central, options.xi, model)
    return replace(
        result,
        method=method,
        centralized_cost=central.centralized_cost,
        centralized_node=central.centralized_node,
        lower_bound=lower_bound(network, wl),
        approximate_bound=approximate_bound(network, wl),
        centralized_latency=central.latency,
        planning_seconds=time.perf_counter() - start,
    )
