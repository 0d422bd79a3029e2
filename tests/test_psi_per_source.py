"""With per-source rates, ψ of a plan predicts the messages a simulation counts (issue 14).

On instances whose assumptions hold (every source a Poisson process at its own rate r(e, n),
no predicates), the messages a simulation of D time units counts must equal ψ · D within
5 %, for centralized and INEv plans alike. The rates of one type's sources differ by up to
two orders of magnitude, so a cost model that used the mean rate r(e) for every source
would miss by far more than 5 %.
"""

from __future__ import annotations

import random

import numpy as np
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from inev.planner.planning import plan_workload
from inev.simulator.run import simulate
from inev.topologies.generate import build_topology
from inev.topologies.network import Network
from inev.workloads.workload import Query, Workload

TOLERANCE = 0.05
MAX_EVENTS = 25_000


def _instance(seed: int) -> tuple[Network, Workload]:
    rng = random.Random(seed)
    n = rng.randint(5, 9)
    graph = build_topology("degree", n, 2.5, np.random.default_rng(seed))
    types = "ABCD"[: rng.randint(2, 4)]
    spec = {}
    for t in types:
        sources = sorted(rng.sample(range(n), rng.randint(2, max(2, n // 2))))
        # log-normal per-source rates around 0.15 per window: small enough that projections
        # can pay off without predicates
        spec[t] = (None, sources, [rng.lognormvariate(0.0, 1.2) * 0.15 + 0.005 for _ in sources])
    network = Network.build(list(graph.nodes), [list(e) for e in graph.edges], spec)
    chosen = rng.sample(types, rng.randint(2, len(types)))
    kind = rng.choice(["SEQ", "AND"])
    return network, Workload.build(1.0, [Query.build("q", f"{kind}({', '.join(chosen)})")])


def _check(seed: int, method: str) -> None:
    network, workload = _instance(seed)
    assert not network.uniform_rates
    plan = plan_workload(network, workload, method)
    # Poisson noise: a vertex sending rate(v) items over |E_v| links adds |E_v|^2 rate(v) D
    # to the variance of the messages (cost(v) = |E_v| rate(v)); run long enough that 5 % is
    # three standard deviations, and leave out instances that would need too many events
    variance = sum(v.cost * len(v.forwarding) for v in plan.vertices)
    duration = variance / (plan.psi * TOLERANCE / 3.0) ** 2
    rate = sum(network.global_rate(t) for t in workload.types)
    assume(rate * duration <= MAX_EVENTS)
    result = simulate(network, workload, plan, duration=duration, seed=seed)
    assert result.equal_to_centralized
    assert abs(result.model_deviation) < TOLERANCE, (method, seed, result.summary())


@settings(max_examples=5)
@given(seed=st.integers(0, 10**6))
def test_psi_of_centralized_plans_equals_simulated_messages(seed):
    _check(seed, "centralized")


@settings(max_examples=5)
@given(seed=st.integers(0, 10**6))
@example(seed=35)  # an event vertex once carried a rate other than its source's own
def test_psi_of_inev_plans_equals_simulated_messages(seed):
    _check(seed, "inev")


def test_a_uniform_rate_model_would_miss():
    # the same network with every source at its type's mean rate: gathering costs differ
    network, workload = _instance(7)
    uniform = Network.build(
        list(network.nodes),
        [list(link) for link in network.links],
        {t: (network.rate(t), list(network.sources(t))) for t in network.types},
    )
    per_source = plan_workload(network, workload, "centralized").centralized_cost
    mean_only = plan_workload(uniform, workload, "centralized").centralized_cost
    assert abs(per_source - mean_only) / per_source > 0.05
