"""The pSPICE paper's components: regression detector, shedding latency, pSPICE--, retraining on
error, count-based windows in the paper's streams."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.common.errors import InevError
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import make_event
from inev.simulator.engine.shedding.latency_model import PartialMatchDetector, ShedLatency
from inev.simulator.engine.shedding.node_queue import Processor
from inev.simulator.engine.shedding.paper_streams import (
    Q1_TYPES,
    SPACING,
    q1_stream,
    window_false_negatives,
)
from inev.simulator.engine.shedding.shedders import PSpiceShedder, make_shedder


def test_regression_picks_the_quadratic_model_for_quadratic_work():
    d = PartialMatchDetector()
    for n in range(150):
        d.observe("D", float(n), 1.0 + n * n)
    # y = 1 + n² exactly: degree 2 has no held-out error, its margin is 1
    assert d.estimate("D", 10.0) == pytest.approx(101.0)
    assert d.slope("D", 10.0) == pytest.approx(20.0)


def test_regression_before_enough_samples_counts_every_partial_match_once():
    d = PartialMatchDetector()
    d.observe("A", 3.0, 100.0)
    assert d.estimate("A", 7.0, base=2.0) == 9.0
    assert d.slope("A") == 1.0


def test_regression_margin_is_the_largest_ratio_seen():
    d = PartialMatchDetector()
    for n in range(100):
        d.observe("B", float(n), 1.0 + 2.0 * n)
    d.observe("B", 10.0, 3.0 * 21.0)  # three times f(10) = 21
    assert d.estimate("B", 20.0) == pytest.approx(3.0 * 41.0)


@settings(max_examples=30, deadline=None)
@given(
    st.floats(0.0, 5.0),
    st.floats(0.01, 3.0),
    st.lists(st.integers(1, 500), min_size=2, unique=True),
)
def test_shed_latency_line_is_exact_on_a_line(a, b, ns):
    g = ShedLatency()
    for n in ns:
        g.observe(float(n), a + b * n)
    assert g.estimate(250.0) == pytest.approx(a + b * 250.0, rel=1e-6, abs=1e-6)


def test_unknown_detector_and_negative_shed_cost_are_refused():
    engines = {"q": Engine("SEQ(A, B)", window=5.0)}
    with pytest.raises(InevError, match="unknown overload detector 'nfa'"):
        Processor(engines, 1.0, latency_bound=1.0, detector="nfa")
    with pytest.raises(InevError, match="shed cost must be non-negative"):
        Processor(engines, 1.0, latency_bound=1.0, shed_cost=-1.0)


def _overload_stream(n=3000, seed=3):
    rng = random.Random(seed)
    return [make_event(i * 0.05, rng.choice("ABC"), 0, i) for i in range(n)]


@pytest.mark.parametrize("strategy", ["pspice", "random-pm", "pspice--"])
@pytest.mark.parametrize("detector", ["path", "paper"])
def test_shedding_latency_is_charged_per_scored_partial_match(strategy, detector):
    events = _overload_stream()
    proc = Processor(
        {"q": Engine("SEQ(A, B, C)", window=2.0)},
        8.0,
        latency_bound=3.0,
        shedder=strategy,
        detector=detector,
        shed_cost=0.5,
        safety=0.3,
    )
    costs = sum(proc.arrive(e, e.time).cost for e in events)
    engine_work = proc.engines["q"].counters["work"]
    assert proc.shedder.examined > 0
    assert costs == pytest.approx(engine_work + 0.5 * proc.shedder.examined)
    assert proc.stats.violations == 0


def test_paper_detector_offers_every_partial_match_to_the_shedder():
    engine = Engine("SEQ(A, B, C)", window=100.0)
    proc = Processor({"q": engine}, 1.0, latency_bound=1e9, detector="paper")
    for i, t in enumerate("AABAB"):
        proc.arrive(make_event(float(i), t, 0, i), float(i))
    n, buffers = proc.buffers(make_event(9.0, "A", 0, 9), proc._targets(None, "A") or [])
    assert n == engine.partial_match_count() == sum(b[3] for b in buffers)
    assert all(b[4] == 1.0 for b in buffers)


def test_pspice_minus_ranks_by_completion_probability_only():
    shedder = make_shedder("pspice--")
    assert isinstance(shedder, PSpiceShedder) and shedder.name == "pspice--"
    events = _overload_stream()
    proc = Processor(
        {"q": Engine("SEQ(A, B, C)", window=2.0)}, 8.0, latency_bound=3.0, shedder=shedder
    )
    for e in events:
        proc.arrive(e, e.time)
    model = proc.models["q"]
    assert not model.use_time and model.table is not None
    assert float(model.table.values.max()) <= 1.0  # a probability, no time scaling


def _drift_run(switch_at: int | None, n: int = 6000) -> PSpiceShedder:
    rng = random.Random(5)
    shedder = PSpiceShedder(retrain="error", threshold=0.5, check_every=500, rebuild_every=400)
    proc = Processor(
        {"q": Engine("SEQ(A, B)", window=1.0)}, math.inf, latency_bound=1e9, shedder=shedder
    )
    for i in range(n):
        late = switch_at is not None and i >= switch_at
        typ = "A" if late else rng.choices("AB", weights=[4, 1])[0]  # later no B: no A moves
        e = make_event(i * 0.1, typ, 0, i)
        proc.arrive(e, e.time)
    return shedder


def test_retraining_on_error_rebuilds_after_a_change_only():
    steady = _drift_run(None)
    changed = _drift_run(3000)
    assert steady.checks > 5 and changed.checks > 5
    assert changed.builds > steady.builds


def test_drift_is_zero_without_new_statistics_and_inf_before_a_build():
    proc = Processor({"q": Engine("SEQ(A, B)", window=1.0)}, math.inf, latency_bound=1e9)
    model = proc.models["q"]
    assert model.drift() == math.inf
    for i in range(400):
        e = make_event(i * 0.1, "AB"[i % 2], 0, i)
        proc.arrive(e, e.time)
    model.build()
    assert model.drift() == 0.0


def test_q1_stream_is_count_based_and_one_episode_per_chain():
    events, arrivals = q1_stream(30_000, seed=2)
    assert all(e.time == float(e.id) for e in events)  # time = place in the stream
    assert arrivals == [e.time * SPACING for e in events]
    by_episode: dict[int, list] = {}
    for e in events:
        by_episode.setdefault(e.attrs["m"], []).append(e.type)
    for types in by_episode.values():  # S0, S1, … in order, a prefix of the ten
        assert types == Q1_TYPES[: len(types)]


def test_window_false_negatives_counts_windows_not_matches():
    a1, a2, b1, b2, b3 = (make_event(t, k, 0, i) for i, (t, k) in enumerate(
        [(0, "A"), (1, "A"), (2, "B"), (3, "B"), (4, "B")]
    ))  # fmt: skip
    reference = [(a1, b1), (a1, b2), (a2, b3)]
    assert window_false_negatives(reference, [(a1, b2)]) == (1, 2)
    assert window_false_negatives(reference, []) == (2, 2)
    assert np.isclose(window_false_negatives(reference, reference)[0], 0)
