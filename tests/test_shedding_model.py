"""pSPICE model parts: completion probabilities, remaining time, utility table, work units."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from inev.simulator.engine.engine import Engine, OrderPlan
from inev.simulator.engine.events import make_event
from inev.simulator.engine.shedding.markov import (
    completion_table,
    interpolate,
    transition_matrix,
)
from inev.simulator.engine.shedding.node_queue import Processor, parse_capacity
from inev.simulator.engine.shedding.pspice_model import PatternModel
from inev.simulator.engine.shedding.reward import remaining_time_table
from inev.simulator.engine.shedding.shedders import buffer_costs
from inev.simulator.engine.shedding.utility import UtilityTable


def seq3_chain(p: float) -> np.ndarray:
    """States: 0 complete, 1 = nothing, 2 = A seen, 3 = A and B seen."""
    q = 1 - p
    return np.array([[1, 0, 0, 0], [0, q, p, 0], [0, 0, q, p], [p, 0, 0, q]], dtype=float)


def at_least(k: int, m: int, p: float) -> float:
    """P(at least k successes in m Bernoulli(p) trials) - the closed form."""
    return 1.0 - sum(math.comb(m, i) * p**i * (1 - p) ** (m - i) for i in range(k))


@pytest.mark.parametrize("bin_size", [1, 3, 5])
def test_completion_equals_binomial_closed_form(bin_size):
    # SEQ(A, B, C) over uniform random A, B, C: each event advances with probability 1/3,
    # so completing from a state with k steps left within m events is P(Bin(m, 1/3) >= k)
    P = seq3_chain(1 / 3)
    table = completion_table(P, max_events=30, bin_size=bin_size)
    for j in range(table.shape[1]):
        m = j * bin_size
        for state, steps in ((3, 1), (2, 2), (1, 3)):
            assert table[state, j] == pytest.approx(at_least(steps, m, 1 / 3), abs=1e-12)
    assert table[0].tolist() == [1.0] * table.shape[1]


def test_interpolation_between_bins_is_linear():
    P = seq3_chain(0.5)
    table = completion_table(P, max_events=8, bin_size=4)
    lo, hi = at_least(1, 4, 0.5), at_least(1, 8, 0.5)  # 15/16 and 255/256
    assert interpolate(table, 3, 6.0, 4) == pytest.approx((lo + hi) / 2)
    assert interpolate(table, 3, 100.0, 4) == pytest.approx(hi)  # clamped to the last bin
    assert interpolate(table, 3, 0.0, 4) == 0.0


def test_transition_matrix_from_counts():
    P = transition_matrix(3, {1: 10.0, 2: 4.0}, {(1, 2): 3.0, (2, 0): 1.0})
    assert P.tolist() == [[1.0, 0.0, 0.0], [0.0, 0.7, 0.3], [0.25, 0.0, 0.75]]


def test_value_iteration_matches_geometric_sum():
    # one transient state, stays with probability q and costs r per event:
    # expected remaining work with m events left is r (1 - q^m) / (1 - q)
    q, r = 0.8, 3.0
    P = np.array([[1.0, 0.0], [1 - q, q]])
    table = remaining_time_table(P, np.array([5.0, r]), max_events=20, bin_size=4)
    for j in range(table.shape[1]):
        m = 4 * j
        assert table[1, j] == pytest.approx(r * (1 - q**m) / (1 - q))
    assert table[0].tolist() == [0.0] * table.shape[1]


def test_utility_is_weight_times_probability_over_scaled_time():
    completion = np.array([[1.0, 1.0], [0.0, 0.5], [0.0, 0.25]])
    remaining = np.array([[0.0, 0.0], [0.0, 4.0], [0.0, 1.0]])
    t = UtilityTable.build(3.0, completion, remaining, bin_size=2)
    # mean positive remaining time (4 + 1) / 2 = 2.5 -> times 1.6 and 0.4
    assert t.lookup(1, 2.0) == pytest.approx(3.0 * 0.5 / 1.6)
    assert t.lookup(2, 2.0) == pytest.approx(3.0 * 0.25 / 0.4)
    assert t.lookup(1, 1.0) == pytest.approx(3.0 * 0.5 / 1.6 / 2)  # half way to bin 1
    many = t.lookup_many(1, np.array([0.0, 1.0, 2.0, 9.0]))
    assert many.tolist() == pytest.approx([0.0, 3.0 * 0.5 / 3.2, 3.0 * 0.5 / 1.6, 3 * 0.5 / 1.6])


def test_learned_chain_of_seq3_over_uniform_stream():
    # the model learns the Figure 3 chain: an A (or AB) partial match advances with
    # probability 1/3 per event; buffered B and C events of plan A, B, C never complete
    rng = random.Random(7)
    engine = Engine("SEQ(A, B, C)", window=6.0, plan=OrderPlan((0, 1, 2)))
    model = PatternModel(engine)
    t = 0.0
    for i in range(12000):
        t += 0.5
        e = make_event(t, "ABC"[rng.randrange(3)], 0, i)
        model.before(t)
        engine.push(e)
        model.after()
    model.build()
    state = {tuple(sorted(k[1])): v for k, v in model.states.items()}
    P = model.matrix
    assert P[state[("A",)], state[("A", "B")]] == pytest.approx(1 / 3, abs=0.02)
    assert P[state[("A", "B")], 0] == pytest.approx(1 / 3, abs=0.02)
    assert P[state[("B",)], state[("B",)]] == 1.0
    assert P[state[("C",)], state[("C",)]] == 1.0
    # window of 6 time units at 2 events per unit: 12 events; with m events left an AB
    # partial match completes with probability ~ 1 - (2/3)^m
    for m in (1, 4, 12):
        got = model.table.lookup(state[("A", "B")], m)
        assert got > 0
    c = completion_table(P, 12, 1)
    for m in (1, 4, 12):
        assert c[state[("A", "B")], m] == pytest.approx(at_least(1, m, 1 / 3), abs=0.03)
        assert c[state[("A",)], m] == pytest.approx(at_least(2, m, 1 / 3), abs=0.03)
        assert c[state[("B",)], m] == 0.0
    assert model.table.lookup(state[("B",)], 12) == 0.0


def test_work_units_of_items():
    # SEQ(A, B): an item costs 1 plus the buffered items its join examines
    e = Engine("SEQ(A, B)", window=10.0, plan=OrderPlan((0, 1)))
    costs = []
    for i, (t, typ) in enumerate([(1, "A"), (2, "A"), (3, "B"), (4, "A"), (5, "B")]):
        e.push(make_event(t, typ, 0, i))
        costs.append(e.last_cost)
    # A, A: leaf B empty; B: two A's; A: one B; B: three A's
    assert costs == [1, 1, 3, 2, 4]
    assert e.counters["work"] == 11


def test_processor_queue_and_service_times():
    # capacity 2 units per time unit: service = cost / 2
    p = Processor({"q": Engine("SEQ(A, B)", window=10.0, plan=OrderPlan((0, 1)))}, 2.0)
    times = [(0.0, "A"), (0.1, "A"), (0.2, "B"), (5.0, "B"), (5.1, "X")]
    out = [p.arrive(make_event(t, typ, 0, i), t) for i, (t, typ) in enumerate(times)]
    # A at 0: 0 -> 0.5; A at 0.1 waits to 0.5 -> 1.0; B (3 units) 1.0 -> 2.5;
    # B at 5 (3 units: two A's) 5 -> 6.5; X is no engine's type and skips the queue
    assert [(c.start, c.finish) for c in out] == [
        (0.0, 0.5),
        (0.5, 1.0),
        (1.0, 2.5),
        (5.0, 6.5),
        (5.1, 5.1),
    ]
    assert [len(c.outputs) for c in out] == [0, 0, 2, 2, 0]
    assert out[2].latency == pytest.approx(2.3)
    assert p.stats.work == 8 and p.stats.processed == 4


def test_parse_capacity():
    assert parse_capacity("12.5") == ("fixed", 12.5)
    assert parse_capacity("auto:0.8") == ("auto", 0.8)
    for bad in ("auto:x", "-1", "0", "inf", "auto:"):
        with pytest.raises(ValueError):
            parse_capacity(bad)


def test_path_cost_model_by_hand():
    # SEQ(A, B, C), plan A, B, C: a B event joins the 3 buffered A's, and each new AB
    # partial match joins the 2 buffered C's
    engine = Engine("SEQ(A, B, C)", window=100.0, plan=OrderPlan((0, 1, 2)))
    model = PatternModel(engine)
    for i, typ in enumerate("AACAC"):
        engine.push(make_event(float(i), typ, 0, i))
    b = make_event(5.0, "B", 0, 5)
    # joins never seen count as if every pair joined: h2 = 2, h1 = 3 (1 + 2)
    work, buffers = model.path_costs(b, True)
    assert work == 9.0
    assert sorted((n, c) for _, _, _, n, c, _ in buffers) == [(2, 3.0), (3, 3.0)]
    model.before(5.0)
    engine.push(b)
    model.after()
    # the real work: 1 + 3 pairs with A + 3 × 2 pairs of AB with C (all fail: C before B)
    assert engine.last_cost == 10
    state = {tuple(sorted(k[1])): v for k, v in model.states.items()}
    assert model.join_selectivity(state[("A",)], state[("A", "B")]) == 1.0
    assert model.join_selectivity(state[("C",)], 0) == 0.0
    for i in range(30):
        model.before(6.0 + i)
        engine.push(make_event(6.0 + i, "B", 0, 10 + i))
        model.after()
    work, _ = model.path_costs(make_event(40.0, "C", 0, 99), True)
    # a C joins the 93 AB partial matches (3 A's × 31 B's), its ABC outputs reach the root
    assert work == 93.0


def test_path_cost_of_a_keyed_join_counts_the_items_own_key():
    # SEQ(A, B) with A.k == B.k: a B examines only the buffered A's of its own key, and only
    # those cost it work (the entry carries them), whatever the other keys hold
    engine = Engine("SEQ(A, B)", window=100.0, where="A.k == B.k", plan=OrderPlan((0, 1)))
    model = PatternModel(engine)
    for i, k in enumerate([1, 1, 2, 2, 2, 2]):
        engine.push(make_event(float(i), "A", 0, i, {"k": k}))
    work, buffers = model.path_costs(make_event(9.0, "B", 0, 9, {"k": 1}), True)
    assert work == 2.0
    [(_, _, _, n, cost, part)] = buffers
    assert (n, cost) == (2, 1.0)
    assert sorted(x[3][0].id for x in part) == [0, 1]
    costs = buffer_costs(buffers[0])
    assert costs.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0]
    work, buffers = model.path_costs(make_event(9.0, "B", 0, 10, {"k": 3}), True)
    assert (work, buffers) == (0.0, [])
    # and the engine's real work agrees: 1 unit for the item, one per A of its key
    engine.push(make_event(9.0, "B", 0, 9, {"k": 1}))
    assert engine.last_cost == 3


def test_processor_routes_sub_projection_matches():
    # an engine fed A events and matches of SEQ(B, C): a match item is one queue item
    engine = Engine("SEQ(A, B, C)", window=10.0, inputs=["A", "SEQ(B, C)"])
    p = Processor({"q": engine}, 1.0)
    a = make_event(0.0, "A", 0, 1)
    b, c = make_event(1.0, "B", 0, 2), make_event(2.0, "C", 0, 3)
    first = p.arrive(a, 0.0)
    second = p.arrive((b, c), 2.5)
    assert (first.start, first.finish) == (0.0, 1.0)
    # the match joins the one buffered A: 2 work units, from 2.5 to 4.5
    assert (second.start, second.finish, second.cost) == (2.5, 4.5, 2.0)
    assert [tuple(e.id for e in m) for _, m in second.outputs] == [(1, 2, 3)]


def test_an_extension_completed_in_the_same_item_completes_its_partial_match():
    # SEQ(A, C, B) evaluated as ((A B) C): a B event joins the buffered A events and the
    # new AB partial matches at once with the buffered C events, completing matches in one
    # event. The A events must therefore be learnt as completable (they were learnt as
    # moving to state AB, which no later event ever extends, i.e. as hopeless), while AB
    # partial matches left in their buffer are hopeless indeed (a C after the B cannot
    # complete them).
    rng = random.Random(3)
    engine = Engine("SEQ(A, C, B)", window=6.0, plan=OrderPlan((0, 2, 1)))
    model = PatternModel(engine)
    t = 0.0
    for i in range(6000):
        t += 0.5
        model.before(t)
        engine.push(make_event(t, "ABC"[rng.randrange(3)], 0, i))
        model.after()
    model.build()
    state = {tuple(sorted(k[1])): v for k, v in model.states.items()}
    P = model.matrix
    a, ab, c = state[("A",)], state[("A", "B")], state[("C",)]
    # an A event completes when a B comes after some C that follows it: at least with the
    # probability 1/3 of the next event being a B, times the chance a C is already there
    assert P[a, 0] > 0.1 and P[c, 0] > 0.1
    assert P[a, ab] < 0.05
    assert P[ab, ab] == 1.0
    assert model.table.lookup(a, 12) > 0 and model.table.lookup(c, 12) > 0
    assert model.table.lookup(ab, 12) == 0.0
