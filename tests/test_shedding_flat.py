"""The shedders' flat selection (every buffer's partial matches end to end, one table lookup,
one random draw) decides exactly as the per-buffer code it replaced (kept here as the oracle)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from inev.simulator.engine.engine import Engine, OrderPlan
from inev.simulator.engine.events import make_event
from inev.simulator.engine.shedding.node_queue import Processor
from inev.simulator.engine.shedding.pspice_model import PatternModel
from inev.simulator.engine.shedding.shedders import (
    RandomPartialMatchShedder,
    Shedder,
    _flat_costs,
    buffer_costs,
)
from inev.simulator.engine.shedding.utility import UtilityTable


def old_drop(shedder: Shedder, scored: list, excess: float, free: bool) -> int:
    """The per-buffer ``Shedder._drop`` of main 386ce9b, verbatim but for the name."""
    if not scored:
        return 0
    scores = np.concatenate([s for _, _, s, _ in scored])
    shedder.examined += len(scores)
    costs = np.concatenate([np.broadcast_to(c, s.shape) for _, _, s, c in scored])
    drop = (scores <= 0) if free else np.zeros(len(scores), dtype=bool)
    shedder.shed_hopeless += int(drop.sum())
    need = excess - float(costs[drop].sum())
    if need > 0:
        useful = np.flatnonzero(~drop & (costs > 0))
        order = useful[np.argsort(scores[useful], kind="stable")]
        covered = np.cumsum(costs[order])
        k = int(np.searchsorted(covered, need)) + 1
        drop[order[:k]] = True
    count = int(drop.sum())
    offset = 0
    for runner, node, s, _ in scored:
        mask = drop[offset : offset + len(s)]
        offset += len(s)
        if mask.any():
            buf = runner.buffers[node]
            runner.buffers[node] = [x for x, gone in zip(buf, mask, strict=True) if not gone]
    shedder.shed_partial_matches += count
    return count


# few distinct values, so that ties (and utility 0) are common
SCORE = st.sampled_from([0.0, 0.0, 0.25, 0.5, 0.5, 1.0, 1e-9, 3.0])
COST = st.sampled_from([0.0, 1.0, 1.0, 0.5, 0.3, 2.0])
BUFFER = st.integers(0, 7).flatmap(
    lambda n: st.tuples(
        st.lists(SCORE, min_size=n, max_size=n),
        st.one_of(COST, st.lists(COST, min_size=n, max_size=n)),
    )
)


def counters(shedder: Shedder) -> tuple[int, int, int]:
    return shedder.examined, shedder.shed_hopeless, shedder.shed_partial_matches


@settings(max_examples=300, deadline=None)
@given(
    st.lists(BUFFER, max_size=6),
    st.sampled_from([-1.0, 0.0, 0.4, 1.0, 2.5, 3.0, 7.3, 100.0]),
    st.booleans(),
)
def test_flat_drop_equals_the_per_buffer_drop(buffers, excess, free):
    def fill() -> list[SimpleNamespace]:
        return [SimpleNamespace(buffers=[[(i, j) for j in range(len(s))]])
                for i, (s, _) in enumerate(buffers)]  # fmt: skip

    def scored(runners: list[SimpleNamespace]) -> list:
        return [
            (r, 0, np.array(s, dtype=float), c if isinstance(c, float) else np.array(c))
            for r, (s, c) in zip(runners, buffers, strict=True)
        ]

    old, new = Shedder(), Shedder()
    a, b = fill(), fill()
    assert new._drop(scored(b), excess, free) == old_drop(old, scored(a), excess, free)
    assert [r.buffers for r in b] == [r.buffers for r in a]
    assert counters(new) == counters(old)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(1, 6),
    st.sampled_from([1, 2, 7]),
    st.lists(st.tuples(st.integers(0, 4), st.floats(0, 60, allow_nan=False)), max_size=20),
    st.integers(0, 2**31),
)
def test_one_lookup_for_all_states_equals_one_per_state(rows, cols, bin_size, queries, seed):
    values = np.random.default_rng(seed).random((rows, cols))
    values[values < 0.3] = 0.0
    table = UtilityTable(values, bin_size)
    queries = [(s % rows, e) for s, e in queries]
    states = np.array([s for s, _ in queries], dtype=np.int64)
    events = np.array([e for _, e in queries], dtype=float)
    expected = [float(table.lookup_many(s, np.array([e]))[0]) for s, e in queries]
    assert table.lookup_states(states, events).tolist() == expected


def loaded_processor(seed: int, strategy: str = "pspice") -> Iterator[Processor]:
    """A node over SEQ(A, B, C, D) at about 1.5x its capacity, every 50 items (from the
    500th on: its first models are built by then)."""
    rng = random.Random(seed)
    engine = Engine("SEQ(A, B, C, D)", window=6.0, plan=OrderPlan((0, 1, 2, 3)))
    p = Processor({"q": engine}, 4.0, latency_bound=3.0, shedder=strategy, seed=seed,
                  detector="paper")  # fmt: skip
    t = 0.0
    for i in range(1500):
        t += rng.expovariate(6.0)
        p.arrive(make_event(t, rng.choice("ABCD"), 0, i), t)
        if i >= 500 and i % 50 == 0:
            yield p


@settings(max_examples=5, deadline=None)
@given(st.integers(0, 1000), st.floats(0.0, 10.0))
def test_flat_utilities_equal_the_per_buffer_ones(seed, later):
    held = 0
    for p in loaded_processor(seed):
        model = p.models["q"]
        assert model.table is not None and p.shedder.builds
        now = p.last_arrival + later
        full = model.table
        for table in (full, UtilityTable(full.values[:2], full.bin_size)):
            model.table = table  # the second has no row for most states: neutral
            per_buffer = list(model.utilities(now))
            segments, flat = model.flat_utilities(now)
            assert [(r, n, len(u)) for r, n, u in per_buffer] == segments
            expected = [float(x) for _, _, u in per_buffer for x in u]
            assert flat.tolist() == expected
            held += len(expected)
        model.table = full
    assert held > 0


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31))
def test_one_random_draw_equals_one_per_buffer(seed):
    p = next(x for x in loaded_processor(seed % 97, "random-pm") if x.partial_matches())
    _, buffers = p.buffers(None, [])
    old_rng = np.random.default_rng(seed)
    old = [old_rng.random(len(buffer_costs(b))) + 1e-9 for b in buffers]
    shedder = RandomPartialMatchShedder(seed)
    segments, scores, costs = shedder._random_scores(buffers)
    assert scores.tolist() == np.concatenate(old).tolist()
    assert costs.tolist() == np.concatenate([buffer_costs(b) for b in buffers]).tolist()
    assert [n for _, _, n in segments] == [len(o) for o in old]


def test_flat_costs_of_keyed_entries_and_missing_ones():
    # a keyed first join: only the item's own key costs it work (buffer_costs' mask)
    engine = Engine("SEQ(A, B)", window=100.0, where="A.k == B.k", plan=OrderPlan((0, 1)))
    model = PatternModel(engine)
    for i, k in enumerate([1, 1, 2, 2, 2, 2]):
        engine.push(make_event(float(i), "A", 0, i, {"k": k}))
    _, [entry] = model.path_costs(make_event(9.0, "B", 0, 9, {"k": 1}), True)
    runner, node = entry[0], entry[1]
    segments = [(runner, node, 6), (runner, node, 6)]
    costs = _flat_costs(segments, [entry, None])
    assert costs.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0, 0.0] + [0.0] * 6
    plain = (runner, node, entry[2], 6, 0.5, None)
    assert _flat_costs(segments, [plain, None]).tolist() == [0.5] * 6 + [0.0] * 6


def old_transition_matrix(states: int, exposure: dict, moves: dict) -> np.ndarray:
    """``markov.transition_matrix`` of main 386ce9b (every move scanned for every state)."""
    P = np.zeros((states, states))
    for s in range(states):
        seen = float(exposure.get(s, 0.0))
        left = 1.0
        if s != 0 and seen > 0:
            for (a, t), count in moves.items():
                if a == s and t != s:
                    p = min(count / seen, left)
                    P[s, t] += p
                    left -= p
        P[s, s] += left
    return P


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.dictionaries(st.integers(0, n - 1), st.sampled_from([0.0, 1.0, 3.0, 10.0, 0.7])),
            st.dictionaries(
                st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 11.0]),
            ),
        )
    )
)
def test_transition_matrix_equals_the_scan_over_every_move(case):
    from inev.simulator.engine.shedding.markov import transition_matrix

    n, exposure, moves = case
    new = transition_matrix(n, exposure, moves)
    assert new.tolist() == old_transition_matrix(n, exposure, moves).tolist()
