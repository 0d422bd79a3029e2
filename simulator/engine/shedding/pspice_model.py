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
the work charged to that state (the reward of :mod:`.reward`). A step's outputs that
continue to the next steps in the same item carry the extended partial matches there: ``min(moved, outs_l)`` of the ``moved`` ones reach the parent
of each later step ``l`` (an upper bound, as above). In a tree plan whose order differs from
the pattern's (SEQ(A, D, C, B) evaluated as ((A B) C) D), a buffered A event is completed by
the one B event that joins it with buffered C and D events; counting it as a move to state AB
only (where no later event ever extends it) made every A and C event look hopeless.

:meth:`PatternModel.build` turns the counts into a transition matrix, completion and
remaining-time tables over the events left in a window (``window × observed item rate``,
at most ``MAX_EVENTS``), and a :class:`.utility.UtilityTable`; then it halves the counts
(retraining with forgetting, §III-D). Building is called by the shedder, not per item:
periodically, or (the paper's §III-D) when :meth:`PatternModel.drift`, the error between
the transition matrix in use and one built from the statistics gathered since, passes a
threshold.
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
MIN_EXPOSURE = 200.0  # below this many observations a state's utility is not trusted


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
        self.join_pairs: dict[tuple[int, int], float] = {}
        self.join_outs: dict[tuple[int, int], float] = {}
        self.branch_index = {id(b): i for i, b in enumerate(engine.branches)}
        self.items = 0
        self.first_time: float | None = None
        self.last_time = 0.0
        self.table: UtilityTable | None = None
        self.neutral = 1.0
        self.matrix: np.ndarray | None = None  # the last transition matrix built
        self.rate = 0.0
        self.use_time = True  # False: pSPICE-- (utility = completion probability only)
        self.cost_factor = 1.0
        """Work units per examined pair of this engine (the processor's ``cost_factors``)."""
        self._built: tuple[np.ndarray, np.ndarray, int, np.ndarray] | None = None
        self._snapshot: tuple[dict[int, float], dict[tuple[int, int], float]] = ({}, {})
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
            for _fn, sibling, up, _keyed in plan.paths[unit]:
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
    def before(self, time: float) -> None:
        """Start observing one item: count exposures, switch the join traces on."""
        if self.first_time is None:
            self.first_time = time
        self.last_time = time
        self._traced = []
        exposure = self.exposure
        cutoff = time - self.engine.window
        for info in self.runners():
            for node, buf in enumerate(info.runner.buffers):
                if buf:
                    s = info.state_of[node]
                    live = sum(1 for x in buf if x[0] >= cutoff)
                    exposure[s] = exposure.get(s, 0.0) + live
            info.runner.trace = []
            self._traced.append(info)

    def after(self) -> None:
        """Finish observing: record the moves and the work of each state."""
        moves, checks = self.moves, self.checks
        pairs, outputs = self.join_pairs, self.join_outs
        for info in self._traced:
            trace = info.runner.trace or ()
            info.runner.trace = None
            for sibling, size, count, outs in trace:
                if not size:
                    continue
                s = info.state_of[sibling]
                t = info.state_of[info.parent[sibling]]
                checks[s] = checks.get(s, 0.0) + count * size * self.cost_factor
                pairs[(s, t)] = pairs.get((s, t), 0.0) + count * size
                if outs:
                    outputs[(s, t)] = outputs.get((s, t), 0.0) + outs
            for segment in _cascades(info, trace):
                _record_moves(info, segment, moves)
        self._traced = []
        self.items += 1

    def join_selectivity(self, sibling: int, parent: int) -> float:
        """Observed share of examined pairs that a join into ``parent`` turned into partial
        matches (1 before any observation: the bound must hold from the first item, so the
        model starts pessimistic; the detector's calibration follows the real work)."""
        seen = self.join_pairs.get((sibling, parent), 0.0)
        if seen <= 0:
            return 1.0
        return self.join_outs.get((sibling, parent), 0.0) / seen

    def path_costs(self, item: Any, is_event: bool) -> tuple[float, list]:
        """Expected join work of ``item`` and, per buffer on its paths, the work one partial
        match of it adds (the detector's processing-latency model, :mod:`.detector`).

        Along a plan path with buffers of which a new item examines ``n_1 … n_J`` and join
        selectivities ``s_j``, one new item costs ``h_1`` with
        ``h_j = n_j (1 + s_j h_{j+1})``; one more examined partial match in buffer ``j``
        adds ``m_j (1 + s_j h_{j+1})`` where ``m_j = Π_{i<j} n_i s_i`` new items reach step
        ``j``. The first step of a keyed join examines exactly the item's own key
        (:meth:`.evaluation.PlanRunner.partition`), so only those partial matches cost this
        item work (the buffer entry carries them); a later keyed step examines the mean
        number per key. A Kleene event is first tried against the ``k`` trends of its leaf
        and may extend all of them (an upper bound): ``k + (1 + k) h_1``. An item a leaf
        filter rejects costs no join work.
        """
        engine = self.engine
        if is_event:
            routes = engine.routes.get(item[1], ())
        else:
            routes = engine.match_routes.get(frozenset(e[1] for e in item), ())
        total = 0.0
        out: list = []
        for branch, unit in routes:
            index = self.branch_index.get(id(branch))
            if index is None:
                self.branch_index = {id(b): i for i, b in enumerate(engine.branches)}
                index = self.branch_index[id(branch)]
            kleene = branch.units[unit].kind == "kleene"
            binding = None
            if not kleene:
                items = branch.items_for(unit, item, 0)
                if items is None:  # filtered at its leaf: no joins
                    continue
                binding = items[0][3]
            for runner in branch.runners:
                info = self.info(index, branch, runner)
                total += self._runner_costs(runner, info, unit, binding, out)
        return total, out

    def _runner_costs(
        self, runner: Any, info: _RunnerInfo, unit: int, binding: tuple | None, out: list
    ) -> float:
        """:meth:`path_costs` on one running plan (appends its buffers to ``out``)."""
        plan = runner.plan
        leaf = plan.leaf_node[unit]
        steps = []
        for j, (_fn, sibling, parent, keyed) in enumerate(plan.paths[unit]):
            buf = runner.buffers[sibling]
            part = None
            if not keyed:
                probe = float(len(buf))
            elif j == 0 and binding is not None:
                part = runner.partition(sibling, leaf, binding)
                probe = float(len(part))
            else:
                probe = runner.probe_size(sibling)
            sel = self.join_selectivity(info.state_of[sibling], info.state_of[parent])
            steps.append((sibling, len(buf), probe, sel, part))
        h = 0.0
        tail = []
        for _sibling, _n, probe, sel, _part in reversed(steps):
            tail.append(1.0 + sel * h)
            h = probe * (1.0 + sel * h)
        tail.reverse()
        total = 0.0
        reach = 1.0
        if binding is None:
            # a Kleene event is tried against every buffered trend of its leaf and may
            # extend each: up to 1 + k new trends enter the path
            k = len(runner.buffers[leaf])
            if k:
                out.append((runner, leaf, info.state_of[leaf], k, 1.0 + h, None))
            total += k
            reach = 1.0 + k
        total += reach * h
        for (sibling, n, probe, sel, part), extra in zip(steps, tail, strict=True):
            if part is not None:
                if part:  # only the item's own key is examined, each of its items once
                    out.append((runner, sibling, info.state_of[sibling], len(part), extra, part))
            elif n:
                # an item costs work only when it is examined (probe of the n items)
                cost = reach * extra * (probe / n)
                out.append((runner, sibling, info.state_of[sibling], n, cost, None))
            reach *= probe * sel
            if reach <= 0:
                break
        return total

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
        self.matrix = P
        trusted = np.array([self.exposure.get(s, 0.0) >= MIN_EXPOSURE for s in range(n)])
        trusted[COMPLETE] = True
        self._built = (completion, remaining, bin_size, trusted)
        self.rescale(None)
        for d in (self.exposure, self.moves, self.checks, self.join_pairs, self.join_outs):
            for k in d:
                d[k] *= 0.5
        self._snapshot = (dict(self.exposure), dict(self.moves))
        return self.table

    def time_sum(self) -> tuple[float, int]:
        """Sum and number of the positive remaining times of the last build ((0, 0) before)."""
        if self._built is None:
            return 0.0, 0
        positive = self._built[1][self._built[1] > 0]
        return float(positive.sum()), int(positive.size)

    def rescale(self, scale: float | None) -> None:
        """The utility table of the last build in time unit ``scale`` (None: this pattern's
        own mean remaining time; :meth:`.PSpiceShedder.build` passes the node's)."""
        if self._built is None:
            return
        completion, remaining, bin_size, trusted = self._built
        table = UtilityTable.build(
            self.weight, completion, remaining, bin_size, self.use_time, scale
        )
        positive = table.values[trusted][table.values[trusted] > 0]
        neutral = float(np.median(positive)) if positive.size else 1.0
        table.values[~trusted] = neutral  # too few observations: neither kept nor preferred
        self.table = table
        self.neutral = neutral

    def drift(self) -> float:
        """Error between the transition matrix in use and one built from the statistics
        gathered since it was built (``inf`` before the first build).

        The paper names "an error measurement, e.g, mean squared error" (§III-D). The moves
        of a partial match per event are small probabilities (a few per cent), so a plain
        MSE depends on their scale; this is the MSE of the off-diagonal entries relative to
        their mean square in the matrix in use, over the states observed at least
        ``MIN_EXPOSURE`` times since (a new such state counts as a full change, 1.0).
        """
        if self.matrix is None:
            return math.inf
        old_exposure, old_moves = self._snapshot
        exposure = {s: v - old_exposure.get(s, 0.0) for s, v in self.exposure.items()}
        moves = {k: v - old_moves.get(k, 0.0) for k, v in self.moves.items()}
        n = len(self.states) + 1
        fresh = transition_matrix(n, exposure, moves)
        m = self.matrix.shape[0]
        rows = [s for s in range(1, n) if exposure.get(s, 0.0) >= MIN_EXPOSURE]
        if any(s >= m for s in rows):
            return 1.0
        if not rows:
            return 0.0
        off = ~np.eye(m, dtype=bool)[rows]
        old = self.matrix[rows][off]
        new = fresh[rows][:, :m][off]
        scale = float(np.mean(old**2)) or float(np.mean(new**2)) or 1.0
        return float(np.mean((new - old) ** 2)) / scale

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
                if table is None or state >= table.values.shape[0]:  # not in the model
                    yield info.runner, node, np.full(len(buf), self.neutral)
                else:
                    yield info.runner, node, table.lookup_many(state, left)

    def flat_utilities(self, now: float) -> tuple[list[tuple[Any, int, int]], np.ndarray]:
        """:meth:`utilities` of every non-empty buffer at once: ``(runner, node, size)`` per
        buffer, in the same order, and the utilities of their partial matches end to end
        (the same figures, from one table lookup for all instead of one per buffer)."""
        segments: list[tuple[Any, int, int]] = []
        starts: list[float] = []
        states: list[int] = []
        for info in self.runners():
            runner, state_of = info.runner, info.state_of
            for node, buf in enumerate(runner.buffers):
                if buf:
                    segments.append((runner, node, len(buf)))
                    starts.extend([x[0] for x in buf])
                    states.append(state_of[node])
        start = np.array(starts, dtype=float)
        table = self.table
        if table is None or not segments:
            return segments, np.full(len(start), self.neutral)
        left = np.maximum(self.engine.window - (now - start), 0.0) * self.rate
        state = np.repeat(np.array(states), [n for _, _, n in segments])
        if max(states) < table.values.shape[0]:
            return segments, table.lookup_states(state, left)
        known = state < table.values.shape[0]  # a state not in the model: neutral
        values = table.lookup_states(np.where(known, state, 0), left)
        return segments, np.where(known, values, self.neutral)


def _cascades(info: _RunnerInfo, trace: Any) -> Iterator[list[tuple[int, int, int, int]]]:
    """Split a runner's join trace into cascades: the steps of one item up its plan path
    (a step continues the previous one when it joins the previous step's new partial
    matches, i.e. its node's parent is the parent of the previous step's parent)."""
    current: list[tuple[int, int, int, int]] = []
    for entry in trace:
        if current:
            previous = current[-1]
            upper = info.parent.get(info.parent[previous[0]])
            if not (previous[3] == entry[2] and upper == info.parent[entry[0]]):
                yield current
                current = []
        current.append(entry)
    if current:
        yield current


def _record_moves(
    info: _RunnerInfo,
    segment: list[tuple[int, int, int, int]],
    moves: dict[tuple[int, int], float],
) -> None:
    """Moves of one cascade: the ``min(outs, size)`` buffered partial matches a step
    extends move to the state where the cascade of their extensions stops in this same
    item: ``min(moved, outs_l)`` of them reach the parent of each later step ``l`` (an
    extension completed by later joins of the same item completes in this one event)."""
    for j, (sibling, size, _count, outs) in enumerate(segment):
        if not size or not outs:
            continue
        s = info.state_of[sibling]
        moved = float(min(outs, size))
        where = info.parent[sibling]
        for later_sibling, _size, _c, later_outs in segment[j + 1 :]:
            reached = min(moved, float(later_outs))
            stop = moved - reached
            if stop > 0:
                key = (s, info.state_of[where])
                moves[key] = moves.get(key, 0.0) + stop
            moved = reached
            where = info.parent[later_sibling]
            if moved <= 0:
                break
        if moved > 0:
            key = (s, info.state_of[where])
            moves[key] = moves.get(key, 0.0) + moved


def _alive(engine: Any, runner: Any) -> bool:
    return any(runner is r for b in engine.branches for r in b.runners)
