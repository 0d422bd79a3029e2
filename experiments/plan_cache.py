"""Plans shared between the tasks of a sweep that plan the same instance.

The tasks of one seed along a change axis (Fig. 9's rate swaps, 9e's rate variance) first plan
the same network and workload, and only then change it: at 11 points per seed, 10 of 11 such
plans repeat one that the same worker has just made (on Fig. 9c's 20-node instances, a plan takes
about 20 s of a task's 45). :func:`cached_plan` keeps the last few plans of this process, keyed
by the network's and workload's fingerprints (SHA-256 of their canonical documents,
:mod:`inev.planner.fingerprint`), the method and the options, so a hit is exactly the plan the
planner would make again; a plan is an immutable value, so sharing it is safe. The sweep runs
tasks seed by seed (:func:`inev.experiments.sweep.seed_major`) so that hits are the rule.

Choice: a small per-process LRU (:data:`SIZE` plans) rather than a cache on disk: the plans
repeat within a few consecutive tasks, and a disk cache would have to be kept apart per code
version to stay exact. The figure ``planning_seconds`` of a shared plan is the time it took
when it was made.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from inev.planner.fingerprint import network_fingerprint, workload_fingerprint
from inev.planner.options import PlanOptions
from inev.planner.planning import plan_workload
from inev.topologies.network import Network
from inev.workloads.workload import Workload

SIZE = 8
"""Plans kept per process."""

_PLANS: OrderedDict[tuple[str, str, str, str], Any] = OrderedDict()


def plan_key(
    network: Network, workload: Workload, method: str, options: PlanOptions
) -> tuple[str, str, str, str]:
    """What decides a plan: the instance's fingerprints, the method and the options.

    >>> from inev.workloads.workload import Query
    >>> net = Network.build([0, 1], [(0, 1)], {"A": (1.0, [0]), "B": (2.0, [1])})
    >>> load = Workload.build(1.0, [Query.build("q", "AND(A, B)")])
    >>> plan_key(net, load, "inev", PlanOptions()) == plan_key(net, load, "inev", PlanOptions())
    True
    >>> plan_key(net, load, "inev", PlanOptions()) == plan_key(net, load, "inev", PlanOptions(xi=2))
    False
    """
    return (
        network_fingerprint(network),
        workload_fingerprint(workload),
        method,
        repr(options),
    )


def cached_plan(network: Network, workload: Workload, method: str, options: PlanOptions) -> Any:
    """:func:`inev.planner.planning.plan_workload`'s plan, made once per key in this process
    (see the module docstring)."""
    if options.time_budget is not None:  # a plan under a time budget is not a function of its key
        return plan_workload(network, workload, method, options)
    key = plan_key(network, workload, method, options)
    plan = _PLANS.get(key)
    if plan is None:
        plan = plan_workload(network, workload, method, options)
        _PLANS[key] = plan
        while len(_PLANS) > SIZE:
            _PLANS.popitem(last=False)
    else:
        _PLANS.move_to_end(key)
    return plan
