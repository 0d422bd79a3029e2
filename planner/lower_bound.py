"""Bounds on the transmission cost ψ: a provable lower bound, and the paper's approximation.

:func:`lower_bound` is a bound: no INEv graph of the workload (and no push-pull plan) costs
less under the cost model of :mod:`inev.planner.cost_model`. :func:`approximate_bound` is the
estimate of §7.2 of the INEv paper, which plans can fall below; it is kept for comparison.

**The provable bound.** Fix a query q and an event type e of q with a source n. Call the
*information* of (e, n) what a node needs from the e events of n to produce q's matches. It
leaves n in one of three forms, each message carrying a share of it:

* raw events: an e event of n carries all of it, at rate r(e, n);
* matches of a projection p ∋ e (of a vertex anywhere): a message carries, per type of p,
  a 1/|E(p)| share of the rate, and the matches split (e, n)'s information among the sources
  in proportion r(e, n) / R(e);
* selected e events of p's matches: at least (1 − 1/e) · min(R(e), R(p)) in all
  (a · (1 − exp(−m/a)) ≥ (1 − 1/e) · min(a, m), and that rate is subadditive over the
  vertices of a multi-node placement), split the same way.

So every hop that (a fraction of) (e, n)'s information crosses costs at least that fraction
of φ(e, n) = r(e, n) / R(e) · min(R(e), min_{p ∈ Π_q, e ∈ E(p)} ψ_e(p)), with ψ_e(p) =
min(R(p) / |E(p)|, (1 − 1/e) · min(R(e), R(p))) (negated types have only the first term),
and the shares one message charges never exceed its rate. Where must it go? q's matches are
produced either at one node m, and then (e, n)'s information reaches m (as a unit flow, over
at least hops(n, m) links, by the triangle inequality), or by a multi-node placement at the
sources of a type c: then every source of c other than n needs all of it (each hop delivers
it to one more node: at least |f(c) \\ {n}| hops), while c's own information stays put. Hence

    ψ ≥ LB(q) = min over m ∈ V and c ∈ E(q) of Σ_{e, n} φ(e, n) · need(e, n),

need = hops(n, m), or |f(c) \\ {n}| for e ≠ c and 0 for e = c. Messages serve several queries,
so the workload's bound is the largest LB(q). The same argument covers a push-pull plan (its
sink is one node; pulled events are raw events, fewer of them, but the requests that pull
them cost R(prefix) per source per hop, at least the matches' share above) when the window is
the rate model's time unit. What the bound leaves out (every stage after the first reduction,
the trees' real sizes) is why plans sit above it; ψ / bound is reported in plans and sweeps.

**The §7.2 approximation.** For each type ε of q, ε is a candidate partitioning input,
cand(q), if some projection p of q *without* ε has R(p) < r(ε) or Σ_{ε' ∈ E(p)} R(ε') < r(ε).
Every other type is assumed to travel at least δ hops (δ the mean hop distance), for
(R(ε) − r(ε)) · δ. A type counts once, exempt only if it is a candidate in every query using it.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (5.0, [1, 2])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)")])
>>> approximate_bound(net, wl)  # B is a candidate (R(A) = 1 < r(B) = 5); A is not: (1 - 1) * δ
0.0
>>> lower_bound(net, wl) > 0  # A's information must reach B's two sources, or B's meet A's
True
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable

import numpy as np

from inev.planner.projections import all_projections
from inev.topologies.network import DENSE_UP_TO, Network
from inev.workloads.generator_options import WORKLOAD_DEFAULTS
from inev.workloads.pattern import negated_types
from inev.workloads.rates import strip_kleene
from inev.workloads.workload import Query, Workload

_SELECTED = 1.0 - 1.0 / math.e
"""(1 − 1/e): the least share of min(a, m) that a · (1 − exp(−m/a)) reaches."""


def information_rates(
    network: Network, query: Query, window: float = WORKLOAD_DEFAULTS.window
) -> dict[str, float]:
    """Per type e of ``query``: min(R(e), min over projections p ∋ e of ψ_e(p)) (see above)."""
    glob = network.global_rates()
    negated = negated_types(strip_kleene(query.pattern))
    out = {e: glob[e] for e in query.types}
    for p in all_projections(query, glob, window):
        share = p.rate / len(p.types)
        for e in p.types:
            value = share if e in negated else min(share, _SELECTED * min(glob[e], p.rate))
            if value < out[e]:
                out[e] = value
    return out


def query_lower_bound(
    network: Network, query: Query, window: float = WORKLOAD_DEFAULTS.window
) -> float:
    """LB(q): the least cost of bringing q's event information together (module docstring)."""
    info = information_rates(network, query, window)
    index = network.node_index
    n = len(network.nodes)
    dense = n <= DENSE_UP_TO
    at_node = np.zeros(n) if dense else 0.0
    per_type: dict[str, tuple[list[int], np.ndarray]] = {}
    for e in query.types:
        rows = [index[s] for s in network.sources(e)]
        phi = np.asarray(network.source_rates(e), dtype=np.float64) * (
            info[e] / network.global_rate(e)
        )
        per_type[e] = (rows, phi)
        if dense:
            at_node += phi @ network.hop_matrix[rows, :].astype(np.float64)
        else:
            at_node += ball_bound(network, phi)
    best = float(np.min(at_node))
    positive = set(query.types) - negated_types(strip_kleene(query.pattern))
    for c in sorted(positive):
        c_rows = set(per_type[c][0])
        total = 0.0
        for e, (rows, phi) in per_type.items():
            if e == c:
                continue
            need = np.array([len(c_rows) - (r in c_rows) for r in rows], dtype=np.float64)
            total += float(phi @ need)
        best = min(best, total)
    return max(best, 0.0)


def ball_bound(network: Network, weights: np.ndarray) -> float:
    """A floor under min over m of Σ_i w_i · hops(n_i, m) for weights at distinct nodes n_i,
    without all pairs (used above :data:`~inev.topologies.network.DENSE_UP_TO` nodes).

    With Δ the largest degree, at most B(k) = 1 + Δ · Σ_{j<k} (Δ − 1)^j nodes lie within k
    hops of any node, so the i-th largest weight (from 0) is at least the smallest k with
    B(k) > i hops away. The floor of each type is taken apart (a sum of minima is at most
    the minimum of the sum), so it is weaker than the exact minimum but still a bound.

    >>> net = Network.build(range(4), [(0, 1), (1, 2), (2, 3)], {"A": (1.0, [0])})
    >>> ball_bound(net, np.array([1.0, 1.0, 1.0, 1.0]))  # Δ = 2: distances 0, 1, 1, 2
    4.0
    """
    w = np.sort(np.asarray(weights, dtype=np.float64))[::-1]
    degree = network.max_degree
    total, reach, k, shell, i = 0.0, 1, 0, float(degree), 0
    while i < len(w):
        upto = min(len(w), reach)
        total += k * float(w[i:upto].sum())
        i = upto
        k += 1
        reach += int(min(shell, len(w)))
        shell *= max(degree - 1, 1) if degree > 1 else 0
        if shell == 0 and i < len(w):
            reach = len(w)  # a path or a single node: no more shells, a floor of k is kept
    return total


_BOUNDS: weakref.WeakKeyDictionary[Network, dict[tuple[str, Workload], float]] = (
    weakref.WeakKeyDictionary()
)


def _remembered(
    network: Network, workload: Workload, compute: Callable[[Network, Workload], float]
) -> float:
    """``compute(network, workload)``, once per network object and workload value.

    Choice: every plan carries both figures, and a network is planned many times over with
    one workload (Fig. 10b plans each instance in 50 query orders: the bounds were 40 % of
    each of those plans on 25 queries). Both are pure functions of the network (immutable)
    and the workload (a frozen value), so a remembered figure is the figure computed anew.
    """
    per_network = _BOUNDS.setdefault(network, {})
    key = (compute.__name__, workload)
    found = per_network.get(key)
    if found is None:
        found = per_network[key] = compute(network, workload)
    return found


def lower_bound(network: Network, workload: Workload) -> float:
    """The provable lower bound on ψ: the largest LB(q) over the OR-free workload's queries.

    Remembered per network and workload (:func:`_remembered`).

    Parameters
    ----------
    network : Network
    workload : Workload

    Returns
    -------
    float

    Examples
    --------
    On 0 - 1 - 2 with A (5) at both ends and B (0.2) in the middle, the least LB(q) is the
    multi-node one partitioned by A: B's information, φ = (1 − 1/e) · 0.2, must reach both A
    sources, one hop each (the plan's ψ is 0.4).

    >>> import math
    >>> from inev.topologies.network import Network
    >>> from inev.workloads.workload import Query, Workload
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> bound = lower_bound(net, Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]))
    >>> math.isclose(bound, 2 * (1 - 1 / math.e) * 0.2)
    True
    """
    return _remembered(network, workload, _lower_bound)


def _lower_bound(network: Network, workload: Workload) -> float:
    wl = workload.or_free
    return max((query_lower_bound(network, q, wl.window) for q in wl.queries), default=0.0)


def candidate_types(network: Network, workload: Workload) -> dict[str, bool]:
    """``{type: exempt}`` for §7.2: whether each used type is a candidate in every query using it."""
    glob = network.global_rates()
    exempt: dict[str, bool] = {}
    for q in workload.or_free.queries:
        projections = all_projections(q, glob, workload.window)
        for e in q.types:
            r = network.rate(e)
            cand = any(glob[o] < r for o in q.types if o != e) or any(
                # fsum: p.types is a frozenset (string-hash order); fsum ignores the order
                e not in p.types and (p.rate < r or math.fsum(glob[t] for t in p.types) < r)
                for p in projections
            )
            exempt[e] = exempt.get(e, True) and cand
    return exempt


def approximate_bound(network: Network, workload: Workload) -> float:
    """The §7.2 approximation: Σ over non-candidate types of (R(ε) − r(ε)) · δ (not a bound;
    remembered per network and workload as :func:`lower_bound` is)."""
    return _remembered(network, workload, _approximate_bound)


def _approximate_bound(network: Network, workload: Workload) -> float:
    delta = network.mean_hops
    return float(
        sum(
            (network.global_rate(e) - network.rate(e)) * delta
            for e, exempt in candidate_types(network, workload).items()
            if not exempt
        )
    )
