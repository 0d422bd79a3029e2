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

``pulled_types(plan)``, ``restrict(pattern, types)``, ``negation_ties(query)``
    What the simulator needs to run a plan: the pulled types of a push-pull plan, a pattern
    restricted to a projection's types, and the types a negation's predicates read.

Module map (paper section -> module): projections (§3.3, §6.1) :mod:`~inev.planner.projections`;
combinations (§3.3) :mod:`~inev.planner.combination_model`; Algorithm 1 and Eq. 1
:mod:`~inev.planner.alg1_combination`; Algorithm 2 (§6.4) :mod:`~inev.planner.alg2_placement` (its forwarding graphs
:mod:`~inev.planner.forwarding_graphs`, hops inside them :mod:`~inev.planner.tree_hops`);
placement to plan :mod:`~inev.planner.assemble`; the search around the construction
:mod:`~inev.planner.search` and :mod:`~inev.planner.improve`; entry point and methods (§6.3)
:mod:`~inev.planner.planning`; Steiner trees :mod:`~inev.planner.steiner`; cost (§5.3)
:mod:`~inev.planner.cost_model`; latency (§5.4) :mod:`~inev.planner.latency_model`; baselines
(§7.1, §7.2) :mod:`~inev.planner.baselines` and :mod:`~inev.planner.isolated`; bounds
:mod:`~inev.planner.lower_bound`; repair (§6.6) :mod:`~inev.planner.repair`; checks
(Definition 2) :mod:`~inev.planner.checks`; the INEv graph and its file
:mod:`~inev.planner.inev_graph`; the command line :mod:`~inev.planner.cli`.
"""

from inev.planner.baselines import PushPullPlan, centralized_node, push_pull
from inev.planner.changes import apply_changes
from inev.planner.checks import check_plan
from inev.planner.inev_graph import (
    Plan,
    ProjectionInfo,
    Vertex,
    load_plan,
    plan_from_dict,
    plan_to_dict,
    pulled_types,
    save_plan,
)
from inev.planner.lower_bound import lower_bound
from inev.planner.planning import METHODS, plan_workload
from inev.planner.projections import negation_ties, restrict
from inev.planner.repair import RepairResult, repair_plan

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
    "negation_ties",
    "plan_from_dict",
    "plan_to_dict",
    "plan_workload",
    "pulled_types",
    "push_pull",
    "repair_plan",
    "restrict",
    "save_plan",
]
