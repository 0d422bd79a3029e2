"""pSPICE's Fig. 7 machinery: a query's processing time forced up by a factor
(``Processor(cost_factors=...)``), the node's patterns sharing one time unit in eq. 1, the
two-query stream and the shared run."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from inev.common.errors import InevError
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import make_event
from inev.simulator.engine.shedding.node_queue import Processor
from inev.simulator.engine.shedding.paper_streams import (
    Q1_TYPES,
    Q2_TYPES,
    q1_stream,
    sequence_query,
    shared_run,
)
from inev.simulator.engine.shedding.shedders import PSpiceShedder
from inev.simulator.engine.shedding.utility import TIME_FLOOR


def test_a_cost_factor_multiplies_the_engines_work_and_service_time():
    # SEQ(A, B) at capacity 2: A costs 1 work unit, B 1 + 1 pair with the buffered A = 2;
    # tripled: 3 and 6 units, i.e. 1.5 and 3 time units of service
    p = Processor({"q": Engine("SEQ(A, B)", window=5.0)}, capacity=2.0, cost_factors={"q": 3.0})
    a = p.arrive(make_event(0.0, "A", 0, 1), 0.0)
    b = p.arrive(make_event(0.1, "B", 0, 2), 0.1)
    assert (a.cost, a.finish) == (3.0, 1.5)
    assert (b.start, b.cost, b.finish) == (1.5, 6.0, 4.5)
    assert p.stats.work == 9.0 and p.models["q"].cost_factor == 3.0


def test_a_cost_factor_only_touches_its_own_engine():
    engines = {"x": Engine("SEQ(A, B)", window=5.0), "y": Engine("SEQ(A, C)", window=5.0)}
    p = Processor(engines, capacity=1.0, cost_factors={"y": 10.0})
    assert p.arrive(make_event(0.0, "A", 0, 1), 0.0).cost == 1.0 + 10.0  # both take A
    assert p.arrive(make_event(1.0, "B", 0, 2), 0.0).cost == 2.0  # x only: 1 + 1 pair


@pytest.mark.parametrize("bad", [0.0, -1.0, math.inf, math.nan])
def test_a_cost_factor_must_be_positive_and_finite(bad):
    with pytest.raises(InevError, match="cost factors must be positive and finite"):
        Processor({"q": Engine("SEQ(A, B)", window=5.0)}, cost_factors={"q": bad})


def _two_engines(factor: float) -> PSpiceShedder:
    """Two copies of SEQ(A, B, C) over one stream, the second's work ``factor`` times the first's."""
    engines = {n: Engine("SEQ(A, B, C)", window=3.0, adaptation="off") for n in ("cheap", "dear")}
    shedder = PSpiceShedder(warmup=10**9)  # built by hand below
    p = Processor(engines, capacity=math.inf, latency_bound=1e9, shedder=shedder,
                  sample_every=1, cost_factors={"dear": factor})  # fmt: skip
    for i in range(3000):
        e = make_event(i * 0.25, "ABCA"[(i * 7) % 4], 0, i)
        p.arrive(e, e.time)
    shedder.build()
    return shedder


def test_the_patterns_share_one_time_unit_so_a_costlier_one_ranks_lower():
    # identical statistics, the second pattern's remaining times 4x the first's: with one
    # time unit for the node its utilities are a quarter (per pattern they would be equal)
    shedder = _two_engines(4.0)
    cheap, dear = shedder.models["cheap"], shedder.models["dear"]
    assert cheap.table is not None and dear.table is not None
    assert np.array_equal(cheap.table.values > 0, dear.table.values > 0)
    (c_sum, c_n), (d_sum, d_n) = cheap.time_sum(), dear.time_sum()
    assert d_sum == pytest.approx(4.0 * c_sum) and c_n == d_n
    unit = (c_sum + d_sum) / (c_n + d_n)
    remaining = cheap._built[1]
    # utility = completion / max(remaining / unit, TIME_FLOOR): compare above the floor
    free = (cheap.table.values > 0) & (remaining / unit > TIME_FLOOR)
    assert free.sum() > 10
    assert np.allclose(dear.table.values[free] * 4.0, cheap.table.values[free])
    same = _two_engines(1.0)  # no factor: the same tables
    assert np.allclose(same.models["dear"].table.values, same.models["cheap"].table.values)


def test_one_pattern_keeps_its_own_time_unit():
    # a single pattern's table is unchanged by the pooled unit (pspice5/6 stay as they were)
    engine = Engine("SEQ(A, B, C)", window=3.0, adaptation="off")
    p = Processor({"q": engine}, math.inf, latency_bound=1e9, sample_every=1, shedder="pspice")
    for i in range(3000):
        e = make_event(i * 0.25, "ABCA"[(i * 7) % 4], 0, i)
        p.arrive(e, e.time)
    model = p.models["q"]
    model.build()
    own = model.table.values.copy()
    total, count = model.time_sum()
    model.rescale(total / count)  # the pooled unit of one pattern is its own mean
    assert np.allclose(model.table.values, own)


def test_the_two_query_stream_keeps_q1s_stream_and_adds_q2s_episodes():
    one, _ = q1_stream(20_000, seed=4)
    two, _ = q1_stream(20_000, seed=4, symbols=(Q1_TYPES, Q2_TYPES))
    assert [e for e in two if e.type.startswith("S")] == one  # the first set comes first
    assert [e.time for e in two] == sorted({e.time for e in two})  # one event per place
    episodes = {e.attrs["m"] for e in two if e.type == "T0"}
    assert not episodes & {e.attrs["m"] for e in one}  # episodes numbered apart
    assert 400 < len(episodes) < 600  # about one per 40 places, as Q1's


def test_the_shared_run_reports_both_queries_and_no_loss_without_overload():
    events, arrivals = q1_stream(3_000, seed=1, symbols=(Q1_TYPES, Q2_TYPES))
    queries = {"Q1": sequence_query(Q1_TYPES), "Q2": sequence_query(Q2_TYPES)}
    run = shared_run(queries, 300.0, events, arrivals, [0.5], ["pspice"], [1.0, 4.0], "Q1",
                     bound=1.0)  # fmt: skip
    assert set(run["match_probability"]) == {"Q1", "Q2"}
    assert all(0 < p < 1 for p in run["match_probability"].values())
    for factor in (1.0, 4.0):  # half the load: nothing is shed, nothing lost
        r = run["runs"][(0.5, factor, "pspice")]
        assert r["window_fn"] == 0.0 and r["query_fn"] == {"Q1": 0.0, "Q2": 0.0}
        assert r["shed_partial_matches"] == r["shed_hopeless"] == 0 and r["violations"] == 0


def test_the_shedder_counts_the_hopeless_partial_matches_it_drops():
    from inev.simulator.engine.shedding.shedders import Shedder

    runner = SimpleNamespace(buffers=[[(0.0,), (1.0,), (2.0,)]])
    shedder = Shedder()
    scored = [(runner, 0, np.array([0.0, 0.5, 0.0]), np.array([1.0, 1.0, 1.0]))]
    # free: both utility-0 ones go, and they already cover an excess of 2
    assert shedder._drop(scored, 2.0, free=True) == 2
    assert runner.buffers[0] == [(1.0,)] and shedder.shed_hopeless == 2
    runner.buffers = [[(0.0,), (1.0,)]]
    scored = [(runner, 0, np.array([0.0, 0.5]), np.array([1.0, 1.0]))]
    assert shedder._drop(scored, 1.0, free=False) == 1  # not free: by score, none "hopeless"
    assert shedder.shed_hopeless == 2 and shedder.shed_partial_matches == 3
