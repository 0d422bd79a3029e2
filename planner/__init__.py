"""The INEv planner (INEv paper §4–§6): combinations, placements, forwarding, costs, baselines, repair.

Public API (what the simulator and the sweeps call):

``plan_workload(network, workload, method="inev", options=PlanOptions()) -> Plan``
    Plan a workload (methods ``inev``, ``centralized``, ``isolated``, ``ppop``);
    :mod:`inev.planner.planning`.
``Plan``, ``Vertex``, ``ProjectionInfo``; ``load_plan(path)``, ``save_plan(plan, path)``,
``plan_to_dict``, ``plan_from_dict``
    The INEv graph and its ``inev-plan/1`` file; every field a node needs to execute a vertex
    is documented in :mod:`inev.planner.inev_graph`.
``check_plan(plan, network) -> list[str]``
    Definition 2 (well-formed forwarding) and structural checks; empty when fine.
``repair_plan(plan, network, workload, changes) -> RepairResult``; ``apply_changes(network,
changes) -> Network``
    §6.6 repair after ``inev-changes/1`` entries: ``.broken``, ``.repaired``, ``.replanned``,
    ``.result`` plans and ``.summary()``.
``lower_bound(network, workload) -> float``, ``push_pull(network, query, window) ->
PushPullPlan``, ``centralized_node(network, types) -> (node, cost)``
    Bounds and baselines of §7.2.

Module map: projections (§3.3, §6.1), combination (Alg. 1, Eq. 1), planning (§6.3 sharing and
the methods), placement (Alg. 2), steiner, costs (§5.3), latency (§5.4), baselines,
lower_bound, repair (§6.6), checks (Definition 2), plan (the model and file), cli.
"""

from inev.planner.baselines import PushPullPlan, centralized_node, push_pull
from inev.planner.checks import check_plan
from inev.planner.inev_graph import (
    Plan,
    ProjectionInfo,
    Vertex,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    save_plan,
)
from inev.planner.lower_bound import lower_bound
from inev.planner.planning import METHODS, plan_workload
from inev.planner.repair import RepairResult, apply_changes, repair_plan

__all__ = [
    "METHODS",
    "Plan",
    "ProjectionInfo",
    "PushPullPlan",
    "RepairResult",
    "Vertex",
    "apply_changes",
    "centralized_node",
    "check_plan",
    "load_plan",
    "lower_bound",
    "plan_from_dict",
    "plan_to_dict",
    "plan_workload",
    "push_pull",
    "repair_plan",
    "save_plan",
]
