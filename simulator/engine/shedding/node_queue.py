"""Processing capacity of one node: a FIFO queue in front of its CEP engines.

The model of pSPICE: Partial Match Shedding for Complex Event Processing (§III-A, §III-E).

Every item (an event, or a match of a sub-projection) that reaches a node waits in a FIFO
queue; its service time is ``work units × cost_per_unit / capacity`` where the work units
are what the engines report for it (``Engine.counters["work"]``: 1 per processed item plus
1 per pair of a new and a buffered item or partial match their joins examined; an engine
that does not take the item's type is not charged). Detection latency = queueing +
processing, in simulated time. With one server and FIFO order the start of an item's
service is known when it arrives (``max(arrival, previous finish)``), and so is the state
of the engines then (every earlier item is done), so :meth:`Processor.arrive` processes
the item at once and returns its :class:`Completion` carrying the finish time: a SimPy
node delivers the outputs at ``completion.finish`` (``yield env.timeout(c.finish -
env.now)``). Arrival times must not decrease.

With a ``latency_bound`` and a shedder, the overload detector checks each item before its
service: if ``queueing + estimated processing + safety > latency_bound`` the shedder cuts
the excess work (dropping partial matches, or the item itself for input shedders); when
even that leaves the item unable to finish within the bound (the queue alone is too long:
the items' own work exceeds the capacity, which no partial-match shedding can cure), the
item is dropped as a last resort and counted in ``shed_events`` (unless it is of a negated
type: dropping it could produce a false positive; then the bound gives way, and the item
is counted in ``forced``). Every
``sample_every``-th item is observed for the state models (:mod:`.pspice_model`)
that the detector and pSPICE use; observing costs no simulated time.

Two overload detectors: ``detector="path"`` (default) calibrates the state model's join
work on the item's plan paths (:mod:`.detector`); ``detector="paper"`` is the paper's
regression of the work on the number ``n`` of partial matches in the node's engines
(:mod:`.latency_model`), and the shedders then choose among every partial match, each
counted as one unit of ``n`` (the paper's ``ρ = n - f⁻¹(budget)``). The load shedder's own
latency ``l_s`` is simulated when ``shed_cost > 0``: each partial match a shedder scores
costs ``shed_cost`` work units of the item's service (the paper's sort over the partial
matches), and both detectors add ``g(n)``, a regression of that work on ``n``, to the
estimate (eq. 4: ``l_q + l_p + l_s + δ > LB``).

A simulated node (SimPy) uses it like this; ``deliver`` forwards outputs or records sinks::

    proc = Processor(engines, capacity, latency_bound=L, shedder="pspice", weights=w)

    def on_arrival(env, item):                 # called when an item reaches the node
        done = proc.arrive(item, env.now)      # processed now, finished at done.finish
        env.process(deliver_later(env, done))

    def deliver_later(env, done):
        yield env.timeout(done.finish - env.now)
        for engine_name, output in done.outputs:
            deliver(engine_name, output, env.now)

    proc.finish(env.now)                       # end of input; proc.stats for the figures

>>> from inev.simulator.engine.engine import Engine
>>> from inev.simulator.engine.events import make_event
>>> p = Processor({"q": Engine("SEQ(A, B)", window=5.0)}, capacity=2.0)
>>> p.arrive(make_event(0.0, "A", 0, 1), 0.0).finish
0.5
>>> c = p.arrive(make_event(0.1, "B", 0, 2), 0.1)   # waits 0.4, then 2 work units
>>> c.start, c.finish, [tuple(e.id for e in m) for _, m in c.outputs]
(0.5, 1.5, [(1, 2)])
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.simulator.engine.engine import Engine
from inev.simulator.engine.events import Event
from inev.simulator.engine.shedding import DEFAULT_COST_PER_UNIT
from inev.simulator.engine.shedding.detector import BufferCost, OverloadDetector
from inev.simulator.engine.shedding.latency_model import PartialMatchDetector, ShedLatency
from inev.simulator.engine.shedding.pspice_model import PatternModel
from inev.simulator.engine.shedding.shedders import Shedder, make_shedder
from inev.workloads.pattern import Primitive, event_types, negated_types

SHED_ROUNDS = 8  # shedding calls per item at most
DETECTORS = ("path", "paper")


@dataclass(frozen=True)
class Completion:
    """One processed (or dropped) item: times, work units, outputs ``(engine, output)``."""

    item: Any
    arrival: float
    start: float
    finish: float
    cost: float
    outputs: list[tuple[str, Any]]
    dropped: bool = False

    @property
    def latency(self) -> float:
        """Queueing plus processing latency."""
        return self.finish - self.arrival


@dataclass
class ProcessingStats:
    """Running figures of a processor."""

    items: int = 0
    processed: int = 0
    work: float = 0.0
    busy: float = 0.0
    overloads: int = 0
    violations: int = 0
    latencies: list[float] = field(default_factory=list)
    match_latencies: list[float] = field(default_factory=list)
    max_service: float = 0.0
    forced: int = 0
    """Items of a negated type processed although they could not meet the bound."""


def parse_capacity(text: str | float) -> tuple[str, float]:
    """``"12.5"`` -> ``("fixed", 12.5)``; ``"auto:0.8"`` -> ``("auto", 0.8)``."""
    if isinstance(text, int | float):
        value, kind = float(text), "fixed"
    else:
        raw = text.strip()
        kind = "auto" if raw.startswith("auto:") else "fixed"
        try:
            value = float(raw[5:] if kind == "auto" else raw)
        except ValueError:
            raise InevError(f"capacity must be a number or auto:F, got {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise InevError(f"capacity must be positive and finite, got {text!r}")
    return kind, value


def check_shedding(
    latency_bound: float | None, cost_per_unit: float = DEFAULT_COST_PER_UNIT
) -> None:
    """The one check of the shedding figures ``inev match``, ``inev simulate`` and
    :class:`Processor` share: a latency bound (if any) and the time units per work unit must
    be positive and finite.

    >>> check_shedding(2.0, 0.5)
    >>> check_shedding(-1.0)
    Traceback (most recent call last):
    inev.common.errors.InevError: latency bound must be positive and finite, got -1.0
    >>> check_shedding(None, float("inf"))
    Traceback (most recent call last):
    inev.common.errors.InevError: cost per unit must be positive and finite, got inf
    """
    if latency_bound is not None and not (latency_bound > 0 and math.isfinite(latency_bound)):
        raise InevError(f"latency bound must be positive and finite, got {latency_bound}")
    if not (cost_per_unit > 0 and math.isfinite(cost_per_unit)):
        raise InevError(f"cost per unit must be positive and finite, got {cost_per_unit}")


def shedding_strategy(has_capacity: bool, shed: str | None, latency_bound: float | None) -> str:
    """The shedding strategy of the flags ``--capacity``, ``--shed`` and ``--latency-bound``
    (``inev match`` and ``inev simulate`` alike): pSPICE when a bound is given, else none.

    >>> shedding_strategy(True, None, 2.0), shedding_strategy(True, None, None)
    ('pspice', 'none')
    >>> shedding_strategy(False, "random", None)
    Traceback (most recent call last):
    inev.common.errors.InevError: shed and latency_bound need capacity
    """
    if not has_capacity:
        if shed is not None or latency_bound is not None:
            raise InevError(
                f"{option('shed')} and {option('latency_bound')} need {option('capacity')}"
            )
        return "none"
    strategy = shed or ("pspice" if latency_bound is not None else "none")
    if strategy != "none" and latency_bound is None:
        raise InevError(f"{option('shed')} {strategy} needs {option('latency_bound')}")
    return strategy


def checked_factors(
    engines: Iterable[str], cost_factors: Mapping[str, float] | None
) -> dict[str, float]:
    """The work factor of every engine (default 1), each positive and finite.

    >>> checked_factors(["a", "b"], {"b": 4})
    {'a': 1.0, 'b': 4.0}
    >>> checked_factors(["a"], {"a": 0.0})
    Traceback (most recent call last):
    inev.common.errors.InevError: cost factors must be positive and finite, got {'a': 0.0}
    """
    factors = {name: float((cost_factors or {}).get(name, 1.0)) for name in engines}
    if not all(f > 0 and math.isfinite(f) for f in factors.values()):
        raise InevError(f"cost factors must be positive and finite, got {cost_factors}")
    return factors


def needed_capacity(work: float, duration: float) -> float:
    """Mean capacity an unshedded run needs: its work units per time unit."""
    if duration <= 0:
        return max(work, 1.0)
    return work / duration


def item_kind(item: Any) -> Any:
    """An event's type, or the sorted types of a sub-projection match."""
    if isinstance(item, Event):
        return item[1]
    return tuple(sorted({e[1] for e in item}))


class Processor:
    """A node's FIFO queue and server in front of its engines (see the module doc).

    ``engines``: name -> :class:`Engine`; ``weights``: pattern weight per name (default 1);
    ``capacity``: work units per time unit (``math.inf``: no queueing); ``cost_per_unit``:
    time units × capacity per work unit; ``latency_bound``/``shedder``/``safety``: load
    shedding (a shedder name or a :class:`Shedder`); ``early``: share of the bound above
    which the shedder may drop what costs no matches (pSPICE: hopeless partial matches);
    ``sample_every``: observe every n-th item for the state models; ``seed`` for the random
    strategies; ``detector``: ``path`` or ``paper`` (module doc); ``shed_cost``: work units
    per partial match a shedder scores (the simulated ``l_s``, 0: free); ``cost_factors``:
    name -> factor on the work units of that engine (default 1; pSPICE's Fig. 7 forces one
    query's processing time above another's by a factor), seen by the state models too.
    """

    def __init__(
        self,
        engines: Mapping[str, Engine],
        capacity: float = math.inf,
        *,
        cost_per_unit: float = DEFAULT_COST_PER_UNIT,
        latency_bound: float | None = None,
        shedder: str | Shedder | None = None,
        weights: Mapping[str, float] | None = None,
        safety: float = 0.0,
        early: float = 0.5,
        sample_every: int = 2,
        seed: int = 0,
        detector: str = "path",
        shed_cost: float = 0.0,
        cost_factors: Mapping[str, float] | None = None,
    ) -> None:
        if not capacity > 0:
            raise InevError(f"capacity must be positive, got {capacity}")
        if detector not in DETECTORS:
            raise InevError(f"unknown overload detector {detector!r} ({', '.join(DETECTORS)})")
        if not (shed_cost >= 0 and math.isfinite(shed_cost)):
            raise InevError(f"shed cost must be non-negative and finite, got {shed_cost}")
        check_shedding(latency_bound, cost_per_unit)
        self.engines = dict(engines)
        self.capacity = float(capacity)
        self.cost_per_unit = float(cost_per_unit)
        self.latency_bound = latency_bound
        self.safety = float(safety)
        self.early = float(early)
        self.sample_every = max(int(sample_every), 1)
        if shedder is None or isinstance(shedder, str):
            shedder = make_shedder(shedder or "none", seed)
        self.shedder = shedder
        self.shedding = latency_bound is not None and shedder.name != "none"
        weights = dict(weights or {})
        self.models = {
            name: PatternModel(engine, weights.get(name, 1.0)) for name, engine in engines.items()
        }
        self.factors = checked_factors(engines, cost_factors)
        for name, factor in self.factors.items():
            self.models[name].cost_factor = factor
        self.shedder.attach(self.engines, weights, self.models)
        self.paper = detector == "paper"
        self.detector: Any = PartialMatchDetector() if self.paper else OverloadDetector()
        self.shed_cost = float(shed_cost)
        self.shed_latency = ShedLatency()
        self._shed_work = 0.0
        self.routes: dict[Any, list[tuple[str, Engine]]] = {}
        self.match_routes: dict[Any, list[tuple[str, Engine]]] = {}
        for name, engine in self.engines.items():
            for p in engine.input_patterns:
                if isinstance(p, Primitive):
                    self.routes.setdefault(p.type, []).append((name, engine))
                else:
                    key = tuple(sorted(set(event_types(p)) - set(negated_types(p))))
                    self.match_routes.setdefault(key, []).append((name, engine))
        self.busy_until = -math.inf
        self.last_arrival = -math.inf
        self.stats = ProcessingStats()

    # ------------------------------------------------------------------ queue
    def partial_matches(self) -> int:
        """Partial matches (and buffered items) held by the engines now."""
        return sum(e.partial_match_count() for e in self.engines.values())

    def _targets(self, item: Any, kind: Any) -> list[tuple[str, Engine]]:
        if isinstance(item, Event):
            return self.routes.get(kind, [])
        return self.match_routes.get(kind, [])

    def buffers(self, item: Any, targets: list[tuple[str, Engine]]) -> tuple[float, list]:
        """Expected join work of ``item`` and the buffers on its plan paths with the work
        each of their partial matches adds (:meth:`.PatternModel.path_costs`)."""
        total = 0.0
        out: list[BufferCost] = []
        if self.paper:  # every partial match of the node, one unit of n each
            for model in self.models.values():
                for info in model.runners():
                    for node, buf in enumerate(info.runner.buffers):
                        if buf:
                            total += len(buf)
                            out.append(
                                (info.runner, node, info.state_of[node], len(buf), 1.0, None)
                            )
            return total, out
        is_event = isinstance(item, Event)
        for name, _ in targets:
            work, buffers = self.models[name].path_costs(item, is_event)
            f = self.factors[name]
            if f != 1.0:
                buffers = [(r, node, st, n, c * f, part) for r, node, st, n, c, part in buffers]
            total += work * f
            out.extend(buffers)
        return total, out

    def arrive(self, item: Any, time: float) -> Completion:
        """Queue ``item`` arriving at ``time``; process it and return its completion.

        It runs once per item of a capacity run (``benchmarks/bench_shedding.py`` and
        ``bench_capacity.py`` time it): the overload detector's steps, in the pSPICE paper's
        order (§III-E), are :meth:`_detect` and :meth:`_shed`.
        """
        if time < self.last_arrival:
            raise InevError(f"arrival times must not decrease ({time} < {self.last_arrival})")
        self.last_arrival = time
        start = max(time, self.busy_until)
        kind = item_kind(item)
        targets = self._targets(item, kind)
        if not targets:  # no engine of this node takes it: it never enters the queue
            return Completion(item, time, time, time, 0.0, [])
        stats = self.stats
        stats.items += 1
        shedder = self.shedder
        if self.shedding and not shedder.admit(item, kind):
            return self._dropped(item, time, start)
        event_time = item[0] if isinstance(item, Event) else max(e[0] for e in item)
        bounded = self.latency_bound is not None
        explained: float | None = 0.0
        self._shed_work = 0.0
        if bounded:
            examined = shedder.examined
            explained = self._detect(item, kind, targets, start - time, event_time)
            if self.shed_cost:
                self._shed_work = (shedder.examined - examined) * self.shed_cost
            if explained is None:
                return self._dropped(item, time, start)
        sample = bounded and stats.items % self.sample_every == 0
        if sample:
            for name, _ in targets:
                self.models[name].before(event_time)
        elif bounded:
            for name, _ in targets:
                self.models[name].seen(event_time)
        outputs: list[tuple[str, Any]] = []
        work = 0.0
        factors = self.factors
        for name, engine in targets:
            before = engine.counters["work"]
            found = engine.push(item)
            work += (engine.counters["work"] - before) * factors[name]
            outputs.extend((name, m) for m in found)
        cost = float(work)
        if sample:
            for name, _ in targets:
                self.models[name].after()
        if bounded:
            self.detector.observe(kind, explained, cost, float(len(targets)))
        shedder.after(item, kind, outputs, cost)
        return self._complete(item, time, start, cost + self._shed_work, outputs)

    def _dropped(self, item: Any, time: float, start: float) -> Completion:
        """The completion of an item shed at ``start`` (it costs only the shedder's work)."""
        finish = start + self._shed_work * self.cost_per_unit / self.capacity
        self.busy_until = finish
        self.stats.busy += finish - start
        return Completion(item, time, start, finish, self._shed_work, [], dropped=True)

    def _shed_estimate(self) -> float:
        """``g(n)``: the expected work of a shedding call now (0 when shedding is free)."""
        if not self.shed_cost:
            return 0.0
        return self.shed_latency.estimate(float(self.partial_matches()))

    def _detect(
        self,
        item: Any,
        kind: Any,
        targets: list[tuple[str, Engine]],
        queueing: float,
        event_time: float,
    ) -> float | None:
        """The overload detector on an item that waited ``queueing``: flag an overload,
        let the shedder relieve early, shed when over. Returns the item's explained work
        (for the detector's model), or None when the item itself is dropped."""
        explained, buffers = self.buffers(item, targets)
        unit_time = self.cost_per_unit / self.capacity
        estimate = self.detector.estimate(kind, explained, float(len(targets)))
        assert self.latency_bound is not None
        shed_time = self._shed_estimate() * unit_time
        over = queueing + estimate * unit_time + shed_time + self.safety > self.latency_bound
        if over:
            self.stats.overloads += 1
        self.shedder.flagged(over)
        if not self.shedding:
            return explained
        if not over and queueing + estimate * unit_time > self.early * self.latency_bound:
            self.shedder.relieve(event_time)
            return self.buffers(item, targets)[0]
        if over:
            return self._shed(item, kind, targets, (queueing, event_time), estimate, buffers)
        return explained

    def _shed(
        self,
        item: Any,
        kind: Any,
        targets: list[tuple[str, Engine]],
        when: tuple[float, float],
        estimate: float,
        buffers: list[BufferCost],
    ) -> float | None:
        """Shed until the item's estimate fits the bound (``when``: its queueing time and
        event time); the explained work left, or None when the item is dropped."""
        assert self.latency_bound is not None
        queueing, event_time = when
        shedder = self.shedder
        unit_time = self.cost_per_unit / self.capacity
        held = float(self.partial_matches()) if self.shed_cost else 0.0
        shed_est = self.shed_latency.estimate(held) if self.shed_cost else 0.0
        budget = (self.latency_bound - self.safety - queueing) / unit_time - shed_est
        # marginal works overlap (dropping AB partial matches also saves their joins with
        # the next buffer), so shed again until the estimate fits; the shedders count
        # partial matches in the state model's units
        explained = 0.0
        examined = shedder.examined
        for _ in range(SHED_ROUNDS):
            slope = max(self.detector.slope(kind, explained or None), 1e-9)
            excess = (estimate - budget) / slope
            if shedder.shed(item, kind, event_time, excess, buffers):
                return None
            explained, buffers = self.buffers(item, targets)
            estimate = self.detector.estimate(kind, explained, float(len(targets)))
            if estimate <= budget or not buffers:
                break
        shed_work = (shedder.examined - examined) * self.shed_cost
        if self.shed_cost:
            self.shed_latency.observe(held, shed_work)
        if queueing + (estimate + shed_work) * unit_time > self.latency_bound:
            # Nothing left to shed makes the item fit: the queue alone is too long (the
            # items' own work exceeds the capacity). Drop the item as a last resort, so that
            # what is processed keeps the bound; never an event of a negated type, whose
            # loss could report a match that is none.
            if any(kind in engine.neg_buffers for _, engine in targets):
                self.stats.forced += 1
            else:
                shedder.shed_events += 1
                return None
        return explained

    def _complete(
        self, item: Any, time: float, start: float, cost: float, outputs: list
    ) -> Completion:
        finish = start + cost * self.cost_per_unit / self.capacity
        self.busy_until = finish
        stats = self.stats
        stats.processed += 1
        stats.work += cost
        stats.busy += finish - start
        stats.max_service = max(stats.max_service, finish - start)
        latency = finish - time
        stats.latencies.append(latency)
        if self.latency_bound is not None and latency > self.latency_bound:
            stats.violations += 1
        stats.match_latencies.extend(latency for _ in outputs)
        return Completion(item, time, start, finish, cost, outputs)

    def finish(self, time: float | None = None) -> Completion:
        """End of input at ``time`` (default: now): flush every engine's buffered items."""
        t = max(self.last_arrival, self.busy_until) if time is None else time
        start = max(t, self.busy_until)
        outputs: list[tuple[str, Any]] = []
        work = 0.0
        for name, engine in self.engines.items():
            before = engine.counters["work"]
            found = engine.flush()
            work += (engine.counters["work"] - before) * self.factors[name]
            outputs.extend((name, m) for m in found)
        finish = start + work * self.cost_per_unit / self.capacity
        self.busy_until = finish
        return Completion(None, t, start, finish, float(work), outputs)

    def run(self, items: Iterable[tuple[Any, float]]) -> list[Completion]:
        """Feed ``(item, arrival time)`` pairs in order, then :meth:`finish`."""
        out = [self.arrive(item, t) for item, t in items]
        out.append(self.finish())
        return out
