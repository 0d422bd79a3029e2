"""The model builder: partial-match states, observed transitions, utility tables (pSPICE §III-A, §III-C).

A partial match of the tree-based engine sits in a node buffer of a running plan; its
*state* is the set of event types bound at that node (for the greedy order-based plans, a
left-deep tree, these are exactly the states of the pattern's state machine: A, AB, ABC, …;
leaf buffers of later units, such as buffered B events of SEQ(A, B), are states too). A
match leaving the root is *complete* (state 0). States are numbered per pattern and shared
by all plans of the engine, so a plan replacement keeps the statistics.

Observations (every ``sample_every``-th processed item): each partial match in a buffer
whose window is still open is *exposed* to the item (the engine purges expired ones only
every half window); a join step that extends ``k`` of the ``size`` buffered partial
matches of a node moves ``min(k, size)`` of them to the parent's state (exact when one new
item enters the step, an upper bound otherwise), and the ``new × size`` pairs examined are
the work charged to that state (the reward of :mod:`.reward`). A step's outputs continuing
to the next step in the same event are not chained as a two-state jump: the chain advances
one state per event (an approximation the paper's one-event state machine also makes).

:meth:`PatternModel.build` turns the counts into a transition matrix, completion and
remaining-time tables over the events left in a window (``window × observed item rate``,
at most ``MAX_EVENTS``), and a :class:`.utility.UtilityTable`; then it halves the counts
(retraining with forgetting, §III-D). Building is called periodically by the shedder, not
per item.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from inev.simulator.engine.shedding.markov import COMPLETE, completion_table, transition_matrix
from inev.simulator.engine.shedding.reward import remaining_time_table
from inev.simulator.engine.shedding.utility import UtilityTable

MAX_EVENTS = 50_000
MIN_EXPOSURE = 200.0  # below this many observations a state never counts as hopeless


class _RunnerInfo:
    """State number and parent node of every node of one running plan."""

    def __init__(self, runner: Any, state_of: list[int], parent: dict[int, int]) -> None:
        self.runner = runner
        self.state_of = state_of
        self.parent = parent


class PatternModel:
    """Statistics and utility table of one engine (one pattern) with its ``weight``."""

    def __init__(self, engine: Any, weight: float = 1.0, bins: int = 64) -> None:
        self.engine = engine
        self.weight = float(weight)
        self.bins = bins
        self.states: dict[tuple[int, frozenset[str]], int] = {}
        self.infos: dict[int, _RunnerInfo] = {}
        self.exposure: dict[int, float] = {}
        self.moves: dict[tuple[int, int], float] = {}
        self.checks: dict[int, float] = {}
        self.kind_exposure: dict[tuple[Any, int], float] = {}
        self.kind_checks: dict[tuple[Any, int], float] = {}
        self._coefficients: dict[Any, dict[int, float]] = {}
        self.items = 0
        self.first_time: float | None = None
        self.last_time = 0.0
        self.table: UtilityTable | None = None
        self.rate = 0.0
        self._traced: list[_RunnerInfo] = []

    # ------------------------------------------------------------------ states
    def info(self, branch_index: int, branch: Any, runner: Any) -> _RunnerInfo:
        """State numbers of ``runner``'s nodes (cached per runner)."""
        info = self.infos.get(id(runner))
        if info is not None and info.runner is runner:
            return info
        plan = runner.plan
        types: list[set[str]] = [set() for _ in range(plan.node_count)]
        parent: dict[int, int] = {}
        for unit, leaf in plan.leaf_node.items():
            acc = set(branch.units[unit].types)
            types[leaf] |= acc
            for _fn, sibling, up in plan.paths[unit]:
                parent[sibling] = up
                types[up] |= acc
        state_of = []
        for node in range(plan.node_count):
            if node == plan.root:
                state_of.append(COMPLETE)
                continue
            key = (branch_index, frozenset(types[node]))
            if key not in self.states:
                self.states[key] = len(self.states) + 1
            state_of.append(self.states[key])
        info = _RunnerInfo(runner, state_of, parent)
        self.infos = {k: v for k, v in self.infos.items() if _alive(self.engine, v.runner)}
        self.infos[id(runner)] = info
        return info

    def runners(self) -> Iterator[_RunnerInfo]:
        """Every running plan of the engine with its state numbers."""
        for i, branch in enumerate(self.engine.branches):
            for runner in branch.runners:
                yield self.info(i, branch, runner)

    # ------------------------------------------------------------------ observation
    def before(self, time: float, kind: Any = None) -> None:
        """Start observing one item of ``kind``: count exposures, switch the traces on."""
        if self.first_time is None:
            self.first_time = time
        self.last_time = time
        self._traced = []
        exposure, kind_exposure = self.exposure, self.kind_exposure
        cutoff = time - self.engine.window
        for info in self.runners():
            for node, buf in enumerate(info.runner.buffers):
                if buf:
                    s = info.state_of[node]
                    live = sum(1 for x in buf if x[0] >= cutoff)
                    exposure[s] = exposure.get(s, 0.0) + live
                    key = (kind, s)
                    kind_exposure[key] = kind_exposure.get(key, 0.0) + len(buf)
            info.runner.trace = []
            self._traced.append(info)

    def after(self, kind: Any = None) -> None:
        """Finish observing: record the moves and the work of each state."""
        moves, checks, kind_checks = self.moves, self.checks, self.kind_checks
        for info in self._traced:
            trace = info.runner.trace or ()
            info.runner.trace = None
            for sibling, size, count, outs in trace:
                if not size:
                    continue
                s = info.state_of[sibling]
                checks[s] = checks.get(s, 0.0) + count * size
                kind_checks[(kind, s)] = kind_checks.get((kind, s), 0.0) + count * size
                if outs:
                    t = info.state_of[info.parent[sibling]]
                    moves[(s, t)] = moves.get((s, t), 0.0) + min(outs, size)
        self._traced = []
        self.items += 1
        if self.items % 64 == 0 or self.items < 256:
            self._coefficients = {}

    def coefficients(self, kind: Any) -> dict[int, float]:
        """Work units an item of ``kind`` costs per partial match in each state (observed
        pairs examined against the state / partial matches it held; the detector's
        per-state processing-latency model)."""
        c = self._coefficients.get(kind)
        if c is None:
            c = {}
            for (k, s), seen in self.kind_exposure.items():
                if k == kind and seen > 0:
                    c[s] = self.kind_checks.get((k, s), 0.0) / seen
            self._coefficients[kind] = c
        return c

    def seen(self, time: float) -> None:
        """Note the time of an item that was not observed (for the item rate)."""
        if self.first_time is None:
            self.first_time = time
        self.last_time = time

    # ------------------------------------------------------------------ building
    def item_rate(self) -> float:
        """Items processed by the engine per time unit so far."""
        c = self.engine.counters
        done = c["events"] + c["matches_in"]
        span = self.last_time - (self.first_time or 0.0)
        return done / span if span > 0 else 0.0

    def build(self) -> UtilityTable | None:
        """Build the utility table from the counts so far (``None`` before any)."""
        n = len(self.states) + 1
        if not self.exposure:
            return self.table
        self.rate = self.item_rate()
        max_events = int(min(MAX_EVENTS, math.ceil(self.engine.window * self.rate)) + 1)
        bin_size = max(1, math.ceil(max_events / self.bins))
        P = transition_matrix(n, self.exposure, self.moves)
        reward = np.zeros(n)
        for s, seen in self.exposure.items():
            if seen > 0:
                reward[s] = self.checks.get(s, 0.0) / seen
        completion = completion_table(P, max_events, bin_size)
        remaining = remaining_time_table(P, reward, max_events, bin_size)
        table = UtilityTable.build(self.weight, completion, remaining, bin_size)
        for state in range(1, n):
            if self.exposure.get(state, 0.0) < MIN_EXPOSURE:
                table.values[state] = np.maximum(table.values[state], 1e-12)
        self.table = table
        self.matrix = P
        for d in (self.exposure, self.moves, self.checks, self.kind_exposure, self.kind_checks):
            for k in d:
                d[k] *= 0.5
        self._coefficients = {}
        return self.table

    def utilities(self, now: float) -> Iterator[tuple[Any, int, np.ndarray]]:
        """``(runner, node, utilities)`` of every non-empty buffer (table lookups)."""
        table = self.table
        window = self.engine.window
        rate = self.rate
        for info in self.runners():
            for node, buf in enumerate(info.runner.buffers):
                if not buf:
                    continue
                start = np.fromiter((x[0] for x in buf), dtype=float, count=len(buf))
                left = np.maximum(window - (now - start), 0.0) * rate
                state = info.state_of[node]
                if state >= table.values.shape[0]:  # a state first seen after the build
                    yield info.runner, node, np.full(len(buf), np.inf)
                else:
                    yield info.runner, node, table.lookup_many(state, left)


def _alive(engine: Any, runner: Any) -> bool:
    return any(runner is r for b in engine.branches for r in b.runners)
