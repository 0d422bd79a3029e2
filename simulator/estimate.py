"""How big a simulation will be, before running it: events, matches and partial matches.

Skip-till-any-match semantics make match counts explode: a window holding n events of a
Kleene type holds 2^n trends, and a SEQ of k types over windows holding c events each has
about c^k / k! candidate matches. The estimates below use the paper's rate model (§3.2) with
*per-window counts* c(e) = R(e) · window in place of rates:

* matches per window ≈ rate(q) evaluated on the counts (KL in log space);
* partial matches per window ≈ the largest, over every subset S of the query's types (up to
  eight of them; the bound of :func:`inev.simulator.engine.subsets.largest_subset_bound`, which
  the trace size check uses too), of
  σ(S) · Π_{e ∈ S} c'(e), where c'(e) is the number of trends for a Kleene type (a partial
  match is a match of some sub-pattern; the engine may hold any of them). Not 2^c: the
  number of events in a window is Poisson with mean c, and E[2^N] = e^c for N ~ Poisson(c),
  so the busy windows dominate (16 events per window on average give 8.9 million trends,
  not 65,536). And memory must hold the *busiest* window of the run, not the mean one.
  Windows slide: about c · W of them (W windows in the run) start at an event of the type,
  each holding it and Poisson(c) more, so c'(e) = 2^n with n = 1 + the Poisson(c) quantile
  at 1 - 1/(c · W), when that exceeds e^c. A run of 67 windows with 11.7 events per window
  on average has n = 24 (ten drawn traces had 20 to 26, median 23), 16 million trends where
  e^c says 120,000: a random instance that exhausted 8 GB before this estimate refused it;
* events = Σ R(e) · duration over the workload's types.

They are order-of-magnitude figures, meant to refuse runs that would exhaust memory, and to
tell the user which knob to turn: fewer events per window (lower rates or a shorter
window) keeps the counts tractable; the duration only scales the totals linearly.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> net = Network.build([0, 1], [(0, 1)], {"A": (2.0, [0]), "B": (3.0, [1])})
>>> wl = Workload.build(1.0, [Query.build("q", "SEQ(A, B)", {"A B": 0.5})])
>>> round(estimate(net, wl, duration=10.0).matches_per_window["q"], 6)
3.0
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inev.common.errors import InevError
from inev.common.option_names import option
from inev.common.watchdog import show_bytes
from inev.simulator.engine.size import (
    bytes_per_partial_match,
    exp2,
    partial_match_limit,
    show_count,
)
from inev.simulator.engine.subsets import (
    kleene_leaf_bounds,
    largest_subset_bound,
    log2_expected_trends,
    log2_trends,
)
from inev.topologies.network import Network
from inev.workloads.workload import Workload

LOG2E = math.log2(math.e)
MAX_EVENTS = 5_000_000
MAX_MATCHES = 20_000_000


@dataclass(frozen=True)
class SizeEstimate:
    """Estimated events, matches and partial matches of a run (log2 where they may overflow)."""

    events: float
    matches_per_window: dict[str, float]
    matches: dict[str, float]
    partial_matches_per_window: dict[str, float]


def estimate(network: Network, workload: Workload, duration: float) -> SizeEstimate:
    """Order-of-magnitude sizes of simulating ``workload`` for ``duration`` (module docstring)."""
    span = min(workload.window, duration)  # a run shorter than the window never fills one
    counts = {name: network.global_rate(name) * span for name in workload.types}
    events = sum(network.global_rate(name) for name in workload.types) * duration
    per_window: dict[str, float] = {}
    total: dict[str, float] = {}
    partial: dict[str, float] = {}
    windows = max(duration / workload.window, 1.0)
    peak = {  # the events of a type in the run's busiest window
        name: 1 + poisson_quantile(1.0 - 1.0 / max(c * windows, 1.0), c)
        for name, c in counts.items()
        if c > 0
    }
    busiest = {  # log2 of the trends of a Kleene type in the run's busiest window
        name: max(c * LOG2E, float(peak[name])) if c > 0 else -math.inf
        for name, c in counts.items()
    }
    for q in workload.or_free.queries:
        kleene = q.kleene
        bounds = kleene_leaf_bounds(q.pattern)
        # the rate model prices KL(X) at 2^r(X): with r = log2 of the expected trends, 2^r is
        # e^c for an unbounded closure and Σ_k c^k / k! for one bounded to low … high
        trend_counts = {
            t: log2_expected_trends(c, *bounds.get(t, (1, None))) if t in kleene else c
            for t, c in counts.items()
        }
        log2_matches = q.log2_rate(trend_counts)
        per_window[q.name] = exp2(log2_matches)
        total[q.name] = exp2(log2_matches + math.log2(windows))
        types = [t for t in q.types if t not in q.negated]
        log2_counts = {
            t: busiest[t] if t in kleene else (math.log2(c) if c > 0 else -math.inf)
            for t, c in counts.items()
        }
        for t, (low, high) in kleene_leaf_bounds(q.pattern).items():
            if high is not None and counts.get(t, 0) > 0:  # a bounded closure's trends
                log2_counts[t] = max(
                    log2_expected_trends(counts[t], low, high), log2_trends(peak[t], low, high)
                )
        best = largest_subset_bound(types, q.selectivity, log2_counts)
        partial[q.name] = exp2(max(best, 0.0))  # at least one partial match
    return SizeEstimate(events, per_window, total, partial)


def poisson_quantile(q: float, mean: float) -> int:
    """The smallest n with P(N <= n) >= q for N ~ Poisson(mean), by summing the pmf.

    Written here rather than taken from ``scipy.stats.poisson.ppf``: importing scipy.stats
    costs 0.6 s, more than a small simulation. Above a mean of 700 (where e^mean
    underflows) it returns the mean; the estimate then uses e^mean, which is larger anyway.

    >>> poisson_quantile(0.5, 4.0), poisson_quantile(0.99, 11.7)
    (4, 20)
    """
    if mean > 700.0:
        return int(mean)
    term = math.exp(-mean)
    total, n = term, 0
    while total < q and n < 10.0 * mean + 100.0:
        n += 1
        term *= mean / n
        total += term
    return n


def check_size(
    network: Network,
    workload: Workload,
    duration: float,
    max_events: float = MAX_EVENTS,
    max_partial_matches: float | None = None,
    max_matches: float = MAX_MATCHES,
) -> SizeEstimate:
    """Raise :class:`InevError` naming the problem when a run would be too big to simulate.

    Partial matches are limited by memory, as in ``inev match``
    (:func:`inev.simulator.engine.size.partial_match_limit`), unless ``max_partial_matches``
    gives a count."""
    size = estimate(network, workload, duration)
    split = workload.or_free
    if size.events > max_events:
        fitting = float(f"{max_events / duration / 2:.1g}")  # half the limit, one digit
        raise InevError(
            f"about {size.events:.3g} events in {duration:g} time units exceed the limit of "
            f"{max_events:.3g}: shorten the duration or lower the rates ({option('total_rate')} "
            f"{fitting:g} with {option('method')} rescales every rate to fit this limit)"
        )
    for name, value in size.partial_matches_per_window.items():
        q = split.query(name)
        limit = max_partial_matches
        if limit is None:
            limit = partial_match_limit(len(q.types))
        if value > limit:
            types = len(q.types)
            held = bytes_per_partial_match(types) * (2 * types - 1)
            raise InevError(
                f"query {name}: about {show_count(value)} partial matches per window would take "
                f"about {show_bytes(value * held)} of memory, over the "
                f"{show_bytes(limit * held)} the size check allows (half the memory limit; "
                f"INEV_MAX_MEMORY sets it): lower the rates or the window, or "
                f"{option('total_rate')} with {option('method')} to rescale every rate"
                + (" (Kleene trends double with every event in a window)" if q.kleene else "")
            )
    for name, value in size.matches.items():
        if value > max_matches:
            raise InevError(
                f"query {name}: about {show_count(value)} matches in the run exceed the limit of "
                f"{max_matches:.3g}: lower the rates ({option('total_rate')} with "
                f"{option('method')} rescales every rate), the window or the duration"
            )
    return size
