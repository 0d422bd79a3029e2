"""Load shedders: pSPICE (paper §III-F, Algorithm 2) and baselines (random partial matches, random events, type utility).

Every shedder is called by :class:`inev.simulator.engine.shedding.node_queue.Processor` with the same
overload detector (:mod:`.detector`) and the same amount:

* ``pspice`` drops partial matches of lowest utility (utility-table lookups, O(1) each,
  then a sort, as in Algorithm 2) until the excess work the detector computed is covered;
  partial matches of utility 0 go first whatever their state (see :class:`PSpiceShedder`);
  until its first model is built it drops like ``random-pm``;
* ``random-pm`` drops partial matches chosen uniformly at random among those the item is
  joined with, until the same excess is covered;
* ``random-event`` and ``type-utility`` shed input items instead: the item the detector
  flags is dropped (the only way an event shedder can keep that item's latency), and with
  ``x`` the running share of flagged items (an exponential average), items are dropped
  before detection too: at random with probability ``x`` (``random-event``), or, in the
  spirit of eSPICE, the lowest-utility input kinds first until a share ``x`` of the input
  is covered (``type-utility``; the utility of a kind is the pattern weight of the matches
  its items took part in, per item and per work unit);
* ``none`` never sheds (the detector still counts the would-be violations);
* ``pspice--`` (benchmarks only, :data:`ABLATIONS`): pSPICE with the utility of the
  completion probability alone, the paper's ablation.

Partial-match shedding removes buffered partial matches only (never negation buffers), so
every match it still reports is a match of the unshedded run: no false positives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from inev.common.errors import InevError
from inev.simulator.engine.events import Event
from inev.simulator.engine.shedding.detector import BufferCost
from inev.simulator.engine.shedding.pspice_model import PatternModel

STRATEGIES = ("none", "pspice", "random-pm", "random-event", "type-utility")
ABLATIONS = ("pspice--",)
"""Strategies :func:`make_shedder` builds for the benchmarks but the commands do not offer."""


class Shedder:
    """No shedding; the base of the other strategies (hooks called by the processor)."""

    name = "none"

    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.shed_partial_matches = 0
        self.shed_events = 0
        self.examined = 0
        self.shed_hopeless = 0
        """Of ``shed_partial_matches``, those dropped for a utility of 0 (pSPICE)."""
        """Partial matches scored by the shedder so far (the simulated ``l_s`` counts them)."""
        self.engines: dict[str, Any] = {}
        self.weights: dict[str, float] = {}
        self.models: dict[str, PatternModel] = {}

    def attach(
        self,
        engines: Mapping[str, Any],
        weights: Mapping[str, float],
        models: Mapping[str, PatternModel],
    ) -> None:
        """Remember the node's engines, pattern weights and state models."""
        self.engines = dict(engines)
        self.weights = {k: float(weights.get(k, 1.0)) for k in engines}
        self.models = dict(models)

    def admit(self, item: Any, kind: Any) -> bool:
        """Whether ``item`` enters processing (event shedders drop some beforehand)."""
        return True

    def after(self, item: Any, kind: Any, outputs: list[tuple[str, Any]], cost: float) -> None:
        """Called after processing with the outputs and the item's work units."""

    def flagged(self, overloaded: bool) -> None:
        """Called once per item with the detector's verdict."""

    def relieve(self, time: float) -> None:
        """Called when the estimated latency passes the early-warning level (a share of the
        bound) without violating it; pSPICE drops hopeless partial matches here."""

    def shed(
        self, item: Any, kind: Any, time: float, excess: float, buffers: Sequence[BufferCost]
    ) -> bool:
        """Overload: cut ``excess`` estimated work units of ``item`` (``buffers``: the
        partial-match buffers it will be joined with), or return True to drop ``item``."""
        return False

    # ---------------------------------------------------------------- helpers
    def _random_scores(self, buffers: Sequence[BufferCost]) -> tuple[list, np.ndarray, np.ndarray]:
        """Random scores for every partial match the item is joined with, with its costs
        (as :meth:`_drop_flat` takes them; one draw of the generator for all of them, the
        same numbers as one draw per buffer in turn)."""
        segments = [(b[0], b[1], len(b[0].buffers[b[1]])) for b in buffers]
        costs = _flat_costs(segments, list(buffers))
        return segments, self.rng.random(len(costs)) + 1e-9, costs

    def _drop(
        self,
        scored: list[tuple[Any, int, np.ndarray, float | np.ndarray]],
        excess: float,
        free: bool,
    ) -> int:
        """Drop partial matches in ascending score: every score-0 one when ``free``, then
        those with a positive cost until their costs cover ``excess`` (a cost is one figure
        for the whole buffer, or one per partial match)."""
        if not scored:
            return 0
        segments = [(runner, node, len(s)) for runner, node, s, _ in scored]
        scores = np.concatenate([s for _, _, s, _ in scored])
        costs = np.concatenate([np.broadcast_to(c, s.shape) for _, _, s, c in scored])
        return self._drop_flat(segments, scores, costs, excess, free)

    def _drop_flat(
        self,
        segments: list[tuple[Any, int, int]],
        scores: np.ndarray,
        costs: np.ndarray,
        excess: float,
        free: bool,
    ) -> int:
        """:meth:`_drop` on the scores and costs of the buffers ``segments`` (``(runner,
        node, size)`` each) end to end."""
        if not segments:
            return 0
        self.examined += len(scores)
        drop = (scores <= 0) if free else np.zeros(len(scores), dtype=bool)
        hopeless = int(drop.sum())
        self.shed_hopeless += hopeless
        need = excess - float(costs[drop].sum()) if hopeless else excess
        if need > 0:
            useful = np.flatnonzero(~drop & (costs > 0))
            order = useful[np.argsort(scores[useful], kind="stable")]
            covered = np.cumsum(costs[order])
            k = int(np.searchsorted(covered, need)) + 1
            drop[order[:k]] = True
        gone = np.flatnonzero(drop).tolist()
        count = len(gone)
        if count:
            _remove(segments, gone, drop)
        self.shed_partial_matches += count
        return count


def _flat_costs(
    segments: list[tuple[Any, int, int]], entries: list[BufferCost | None]
) -> np.ndarray:
    """The costs of :func:`buffer_costs` for each buffer of ``segments`` end to end (its
    detector entry in ``entries``, or None: cost 0)."""
    if all(b is None or b[5] is None for b in entries):
        each = [0.0 if b is None else b[4] for b in entries]
        return np.repeat(np.array(each, dtype=float), [n for _, _, n in segments])
    parts = [
        np.zeros(n) if b is None else buffer_costs(b)
        for (_, _, n), b in zip(segments, entries, strict=True)
    ]
    return np.concatenate(parts) if parts else np.zeros(0)


def _remove(segments: list[tuple[Any, int, int]], gone: list[int], drop: np.ndarray) -> None:
    """Remove the partial matches at the positions ``gone`` (ascending; ``drop`` their
    mask) from the buffers of ``segments`` laid end to end."""
    i, offset = 0, 0
    for runner, node, size in segments:
        end = offset + size
        if i < len(gone) and gone[i] < end:
            while i < len(gone) and gone[i] < end:
                i += 1
            mask = drop[offset:end].tolist()
            buf = runner.buffers[node]
            runner.buffers[node] = [x for x, out in zip(buf, mask, strict=True) if not out]
        offset = end


def buffer_costs(buffer: BufferCost) -> np.ndarray:
    """The work each partial match of a detector's buffer entry costs the item: the entry's
    figure for every one, or for a keyed first join only for those of the item's key."""
    runner, node, _state, _n, cost, part = buffer
    buf = runner.buffers[node]
    if part is None:
        return np.full(len(buf), cost)
    members = {id(x) for x in part}
    mask = np.fromiter((id(x) in members for x in buf), dtype=bool, count=len(buf))
    return np.where(mask, cost, 0.0)


class RandomPartialMatchShedder(Shedder):
    """Drops uniformly random partial matches among those the item is joined with."""

    name = "random-pm"

    def shed(
        self, item: Any, kind: Any, time: float, excess: float, buffers: Sequence[BufferCost]
    ) -> bool:
        """Drop random partial matches until ``excess`` is covered."""
        self._drop_flat(*self._random_scores(buffers), excess, free=False)
        return False


class PSpiceShedder(Shedder):
    """pSPICE: per-pattern Markov models, utility tables, lowest-utility dropping.

    The processor gathers the observations; this shedder builds the utility tables
    after ``warmup`` processed items, then after twice as many, and so on until builds are
    ``rebuild_every`` items apart (early models are rough, so they are replaced soon). On
    overload it drops every partial match of utility 0 (it cannot complete in its window,
    so it only costs), then the lowest-utility partial matches of the states the item is
    joined with until the excess is covered (dropping others would not shorten this
    item's latency). Partial matches of utility 0 are also dropped when the estimated
    latency passes the processor's early-warning level (``early`` × bound, no violation
    yet): under the model they cannot complete, so this costs no match and keeps the
    state small before the bound is at stake (an addition to the paper, whose operator
    matches every event against every partial match, so hopeless ones cost at once).
    Before the first model it drops like ``random-pm``.

    ``retrain="error"`` is the paper's §III-D instead: the first models are built as
    above until ``rebuild_every`` items (the paper builds its model during a warm-up at
    no more than the operator's throughput; a single model from the first 100 items, kept
    while its error stayed under the threshold, lost 46 % of Q1's windows at W = 300 of
    ``tests/gate_figures.py pspice-paper`` against 9 % periodically), then every
    ``check_every`` items each pattern's transition matrix is compared with one built from
    the statistics gathered since (:meth:`.PatternModel.drift`), and the models are rebuilt
    when an error passes ``threshold``. Default 0.5: on a
    stationary stream of SEQ(A, B) the first model (built after 100 items) already differs
    from the later statistics by 0.2 (tests/test_shedding_paper.py), a vanished B event
    type gives 1.
    """

    name = "pspice"

    def __init__(
        self,
        seed: int = 0,
        warmup: int = 100,
        rebuild_every: int = 5000,
        relieve_every: int = 1,
        retrain: str = "periodic",
        threshold: float = 0.5,
        check_every: int = 500,
    ) -> None:
        super().__init__(seed)
        if retrain not in ("periodic", "error"):
            raise InevError(f"retrain must be periodic or error, got {retrain!r}")
        self.relieve_every = relieve_every
        self.last_relief = -relieve_every
        self.warmup = warmup
        self.rebuild_every = rebuild_every
        self.retrain = retrain
        self.threshold = threshold
        self.check_every = check_every
        self.counter = 0
        self.next_build = warmup
        self.builds = 0
        self.checks = 0

    def after(self, item: Any, kind: Any, outputs: list[tuple[str, Any]], cost: float) -> None:
        """Rebuild the models periodically, or when their error passes the threshold."""
        self.counter += 1
        if self.counter < self.next_build:
            return
        if self.retrain == "periodic" or self.counter < self.rebuild_every:
            self.build()
            return
        self.next_build = self.counter + self.check_every
        self.checks += 1
        if self.drifted():
            self.build()

    def drifted(self) -> bool:
        """Whether a pattern's model error passes the threshold (§III-D: the model builder's
        retraining check, run every ``check_every`` items once the first models are built)."""
        return any(m.drift() > self.threshold for m in self.models.values())

    def build(self) -> None:
        """Run the model builder for every pattern (off the hot path); with several
        patterns, their remaining times share one unit (their mean over every pattern's
        table), so that eq. 1 ranks a partial match of a costly pattern below an equally
        likely one of a cheap pattern (the paper's Fig. 7; per pattern, a uniformly
        costlier pattern would look as cheap as the others)."""
        for model in self.models.values():
            model.build()
        if len(self.models) > 1:
            sums = [m.time_sum() for m in self.models.values()]
            count = sum(c for _, c in sums)
            if count:
                scale = sum(t for t, _ in sums) / count
                for model in self.models.values():
                    model.rescale(scale)
        self.builds += 1
        if self.retrain == "error" and self.counter >= self.rebuild_every:
            self.next_build = self.counter + self.check_every
        else:
            self.next_build = self.counter + min(self.counter, self.rebuild_every)

    def relieve(self, time: float) -> None:
        """Drop every partial match of utility 0 (lossless under the model); at most once
        every ``relieve_every`` items (default 1: on the benchmark, 8 halves the overhead
        and doubles the false negatives)."""
        if self.builds and self.counter - self.last_relief >= self.relieve_every:
            self.last_relief = self.counter
            segments, scores = self._utilities(time)
            self._drop_flat(segments, scores, np.zeros(len(scores)), 0.0, free=True)

    def shed(
        self, item: Any, kind: Any, time: float, excess: float, buffers: Sequence[BufferCost]
    ) -> bool:
        """Drop hopeless, then lowest-utility partial matches until ``excess`` is covered."""
        if not self.builds:
            self._drop_flat(*self._random_scores(buffers), excess, free=False)
            return False
        cost = {(id(b[0]), b[1]): b for b in buffers}
        segments, scores = self._utilities(time)
        entries = [cost.get((id(runner), node)) for runner, node, _ in segments]
        self._drop_flat(segments, scores, _flat_costs(segments, entries), excess, free=True)
        return False

    def _utilities(self, time: float) -> tuple[list[tuple[Any, int, int]], np.ndarray]:
        """Every pattern's :meth:`.PatternModel.flat_utilities`, end to end."""
        flat = [model.flat_utilities(time) for model in self.models.values()]
        if len(flat) == 1:
            return flat[0]
        segments = [seg for segs, _ in flat for seg in segs]
        return segments, np.concatenate([u for _, u in flat]) if flat else np.zeros(0)


class PSpiceMinusShedder(PSpiceShedder):
    """pSPICE-- (the paper's §IV-B ablation): utility = completion probability only
    (eq. 1 without the remaining processing time); everything else as :class:`PSpiceShedder`."""

    name = "pspice--"

    def attach(
        self,
        engines: Mapping[str, Any],
        weights: Mapping[str, float],
        models: Mapping[str, PatternModel],
    ) -> None:
        """As pSPICE's, with every state model told to ignore the remaining time."""
        super().attach(engines, weights, models)
        for model in self.models.values():
            model.use_time = False


class RandomEventShedder(Shedder):
    """Drops input items: the flagged ones, and others at random with the flagged share."""

    name = "random-event"

    def __init__(self, seed: int = 0, smoothing: float = 0.01) -> None:
        super().__init__(seed)
        self.smoothing = smoothing
        self.share = 0.0

    def flagged(self, overloaded: bool) -> None:
        """Update the running share of flagged items."""
        self.share += self.smoothing * (float(overloaded) - self.share)

    def admit(self, item: Any, kind: Any) -> bool:
        """Drop with probability equal to the flagged share."""
        if self.share > 0 and self.rng.random() < self.share:
            self.shed_events += 1
            return False
        return True

    def shed(
        self, item: Any, kind: Any, time: float, excess: float, buffers: Sequence[BufferCost]
    ) -> bool:
        """Drop the flagged item."""
        self.shed_events += 1
        return True


class TypeUtilityShedder(RandomEventShedder):
    """eSPICE-like: drops the input kinds of lowest utility first (see the module doc)."""

    name = "type-utility"

    def __init__(self, seed: int = 0, smoothing: float = 0.01) -> None:
        super().__init__(seed, smoothing)
        self.count: dict[Any, float] = {}
        self.cost: dict[Any, float] = {}
        self.value: dict[Any, float] = {}
        self._order: list[tuple[float, Any]] = []
        self._since = 0

    def after(self, item: Any, kind: Any, outputs: list[tuple[str, Any]], cost: float) -> None:
        """Credit the pattern weight of each output to the kinds of its events."""
        self.count[kind] = self.count.get(kind, 0.0) + 1.0
        self.cost[kind] = self.cost.get(kind, 0.0) + cost
        for name, out in outputs:
            w = self.weights.get(name, 1.0)
            events = (out,) if isinstance(out, Event) else out
            for t in {e[1] for e in events}:
                self.value[t] = self.value.get(t, 0.0) + w
        self._since += 1
        if self._since >= 500 or not self._order:
            self._since = 0
            self._rank()

    def _rank(self) -> None:
        total = sum(self.count.values())
        ranked = []
        for k, n in self.count.items():
            types = (k,) if isinstance(k, str) else k
            value = min(self.value.get(t, 0.0) for t in types)
            per_unit = value / n / max(self.cost[k] / n, 1.0)
            ranked.append((per_unit, str(k), k, n / total))
        ranked.sort()
        self._order = [(share, k) for _, _, k, share in ranked]

    def admit(self, item: Any, kind: Any) -> bool:
        """Drop items of the lowest-utility kinds covering the flagged share."""
        if self.share <= 0 or not self._order:
            return True
        left = self.share
        for share, k in self._order:
            if left <= 0:
                return True
            if k == kind:
                if share <= left or self.rng.random() < left / share:
                    self.shed_events += 1
                    return False
                return True
            left -= share
        return True


def make_shedder(strategy: str, seed: int = 0) -> Shedder:
    """The shedder named ``strategy`` (one of :data:`STRATEGIES`)."""
    classes = {
        "none": Shedder,
        "pspice": PSpiceShedder,
        "random-pm": RandomPartialMatchShedder,
        "random-event": RandomEventShedder,
        "type-utility": TypeUtilityShedder,
        "pspice--": PSpiceMinusShedder,
    }
    if strategy not in classes:
        raise InevError(f"unknown shedding strategy {strategy!r} ({', '.join(STRATEGIES)})")
    return classes[strategy](seed=seed)
