"""Synthetic recorded traces: per-node sources with heterogeneous rates and key attributes.

Researchers bring recorded traces (bike-share trips, cluster job events), whose nodes differ
widely (one station emits 3 events of a type per month, another 800) and whose events share
keys (a bike id, a job id) that queries join on. This generator makes traces of that shape
for tests and demos, so no third-party data ships with inev:

* **Sources.** Either an event network's own per-source rates (:func:`network_rates`), or
  :func:`random_rates`: each type's share of the events is Zipf-like (type ``i`` gets a
  weight ``1 / (i + 1)^skew``), each node is a source of each type with probability
  ``node_ratio`` (a type left without one gets one), and each source's rate is its type's
  rate times a log-normal weight of spread ``spread`` (σ of the logarithm; 1.5 spreads the
  sources of a type over about two orders of magnitude), normalised so the expected number
  of events is ``events``.
* **Time profile.** ``poisson``: each source is a homogeneous Poisson process. ``diurnal``:
  an inhomogeneous Poisson process whose intensity follows the day,
  ``r · (1 + 0.8 · sin(2π t / period))``. ``bursty``: diurnal, times an on/off modulation
  per source (busy phases at 4x the rate, of mean length ``period / 24``, between quiet
  phases at 0.25x, of mean length ``period / 6``; the mean stays ``r``). Inhomogeneous
  processes are drawn by thinning a homogeneous one.
* **Keys.** With ``keys`` > 0, every event carries attribute ``key_name`` drawn from the
  pool ``0 … keys-1``, uniformly (``key_skew`` 0) or with weights ``1 / (k + 1)^key_skew``.
  Two events share a key with probability Σ p_k² (1 / keys when uniform): the selectivity
  a keyed join measures.

Events are sorted by time (ties by type, then node) and numbered 0, 1, 2, … as ids. Every
random draw comes from ``numpy.random.default_rng([seed, …])`` per source, so the same seed
gives the same trace, and the same file.

Bounds, checked before any draw: at most :data:`MAX_EVENTS` expected events (``events``, or
a network's rates times the duration), :data:`MAX_KEYS` keys, and :data:`MAX_PERIODS` day
periods for the diurnal and bursty profiles, so that a mistyped option is refused in one
line rather than exhausting memory.

>>> rates = {("A", 0): 2.0, ("B", 1): 1.0}
>>> table = generate_trace(rates, duration=10.0, keys=5, seed=1)
>>> table.column_names, table.num_rows > 0
(['time', 'type', 'node', 'id', 'key'], True)
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from inev.common.errors import InevError
from inev.common.files import atomic_output
from inev.common.option_names import option
from inev.topologies.generate import type_names
from inev.topologies.generator_options import NETWORK_DEFAULTS
from inev.topologies.network import Network

PROFILES = ("poisson", "diurnal", "bursty")
MAX_EVENTS = 20_000_000
"""The most events a generated trace may be expected to hold (about 2 GB while drawn)."""
MAX_KEYS = 10_000_000
"""The largest key pool (a skewed pool holds one weight per key)."""
MAX_PERIODS = 1_000_000
"""The most day periods a diurnal or bursty trace may span (bursty phases are drawn per day)."""
DIURNAL_AMPLITUDE = 0.8
BURST_HIGH, BURST_LOW = 4.0, 0.25
SourceRates = Mapping[tuple[str, Any], float]


@dataclass(frozen=True)
class TraceOptions:
    """The knobs of :func:`random_rates` and :func:`generate_trace` (module docstring)."""

    nodes: int = NETWORK_DEFAULTS.nodes
    types: int = 4
    events: int = 100_000
    duration: float = 30 * 86_400.0
    skew: float = 0.5
    node_ratio: float = NETWORK_DEFAULTS.node_ratio
    spread: float = 1.5
    profile: str = "poisson"
    period: float = 86_400.0
    keys: int = 0
    key_name: str = "key"
    key_skew: float = 0.0
    seed: int = 0

    def check(self) -> None:
        """Raise :class:`InevError` naming the first knob out of range."""
        from inev.topologies.schema import MAX_NODES, MAX_TYPES

        _positive_int(self.nodes, "nodes", MAX_NODES)
        _positive_int(self.types, "types", MAX_TYPES)
        _positive_int(self.events, "events", MAX_EVENTS)
        _finite(self.duration, "duration", positive=True)
        _finite(self.skew, "skew")
        _finite(self.spread, "spread")
        _finite(self.period, "period", positive=True)
        _finite(self.key_skew, "key skew")
        if self.skew < 0 or self.spread < 0 or self.key_skew < 0:
            raise InevError("skew, spread and key skew must not be negative")
        if max(self.skew, self.spread, self.key_skew) > 100:
            raise InevError("skew, spread and key skew must be at most 100")
        if not 0 < self.node_ratio <= 1:
            raise InevError(f"node ratio must be in (0, 1], got {self.node_ratio}")
        if self.profile not in PROFILES:
            raise InevError(f"profile must be one of {', '.join(PROFILES)}, got {self.profile!r}")
        _check_profile(self.profile, self.period, self.duration)
        if (
            isinstance(self.keys, bool)
            or not isinstance(self.keys, int)
            or not 0 <= self.keys <= MAX_KEYS
        ):
            raise InevError(f"keys must be an integer from 0 to {MAX_KEYS:,}, got {self.keys!r}")
        _check_key_name(self.key_name)
        if (
            isinstance(self.seed, bool)
            or not isinstance(self.seed, int)
            or not 0 <= self.seed < 2**63
        ):
            raise InevError(f"seed must be a non-negative integer (64 bits), got {self.seed!r}")


TRACE_DEFAULTS = TraceOptions()
"""Every knob's default, what ``inev trace generate`` offers (its node count and node ratio
are the network's, :data:`~inev.topologies.generator_options.NETWORK_DEFAULTS`)."""


def _positive_int(value: Any, what: str, most: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= most:
        raise InevError(f"{what} must be an integer from 1 to {most:,}, got {value!r}")


def _check_key_name(name: Any) -> None:
    """A key attribute is named in where clauses (``A.key == B.key``): an identifier."""
    if not isinstance(name, str) or not name.isidentifier() or not name.isascii():
        raise InevError(f"key attribute name {name!r} must be a name such as 'bike'")
    if name in ("time", "type", "node", "id") or len(name) > 100:
        raise InevError(f"key attribute name {name!r} is taken by a trace column")


def _check_profile(profile: str, period: float, duration: float) -> None:
    if profile not in PROFILES:
        raise InevError(f"profile must be one of {', '.join(PROFILES)}, got {profile!r}")
    _finite(period, "period", positive=True)
    if profile != "poisson" and duration / period > MAX_PERIODS:
        raise InevError(
            f"a {profile} trace may span at most {MAX_PERIODS:,} periods; the duration "
            f"{duration:g} is {duration / period:.3g} periods of {period:g} "
            f"(raise {option('period')})"
        )


def _finite(value: Any, what: str, positive: bool = False) -> None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InevError(f"{what} must be a finite number, got {value!r}")
    if positive and value <= 0:
        raise InevError(f"{what} must be positive, got {value!r}")


def random_rates(options: TraceOptions) -> dict[tuple[str, int], float]:
    """Heterogeneous per-source rates ``{(type, node): events per time unit}``.

    >>> r = random_rates(TraceOptions(nodes=5, types=2, events=1000, duration=10.0, seed=3))
    >>> round(sum(r.values()) * 10.0)
    1000
    """
    options.check()
    rng = np.random.default_rng([options.seed, 0])
    names = type_names(options.types)
    share = 1.0 / np.arange(1, options.types + 1) ** options.skew
    share /= share.sum()
    total = options.events / options.duration
    out: dict[tuple[str, int], float] = {}
    for t, name in enumerate(names):
        sources = np.flatnonzero(rng.random(options.nodes) < options.node_ratio)
        if sources.size == 0:
            sources = rng.integers(0, options.nodes, size=1)
        weights = rng.lognormal(0.0, options.spread, size=sources.size)
        weights /= weights.sum()
        for node, w in zip(sources.tolist(), weights.tolist(), strict=True):
            out[(name, node)] = float(total * share[t] * w)
    return out


def network_rates(network: Network) -> dict[tuple[str, Any], float]:
    """The per-source rates ``{(type, node): r(e, n)}`` of an event network."""
    return {
        (name, node): rate
        for name in network.types
        for node, rate in zip(network.sources(name), network.source_rates(name), strict=True)
    }


def _modulation(
    profile: str, period: float, duration: float, rng: np.random.Generator
) -> tuple[float, Any]:
    """``(bound M, m(times))`` of a source's intensity multiplier (mean about 1)."""
    if profile == "poisson":
        return 1.0, None
    peak = 1.0 + DIURNAL_AMPLITUDE

    def diurnal(t: np.ndarray) -> np.ndarray:
        return 1.0 + DIURNAL_AMPLITUDE * np.sin(2.0 * math.pi * t / period)

    if profile == "diurnal":
        return peak, diurnal
    busy, quiet = period / 24.0, period / 6.0
    # alternating phases: quiet first, lengths exponential; enough of them to pass duration
    count = int(2 * duration / (busy + quiet)) + 8
    lengths = np.empty(count)
    lengths[0::2] = rng.exponential(quiet, size=(count + 1) // 2)
    lengths[1::2] = rng.exponential(busy, size=count // 2)
    ends = np.cumsum(lengths)
    while ends[-1] < duration:  # rare: draw more phases
        more = rng.exponential((quiet + busy) / 2.0, size=count)
        ends = np.concatenate([ends, ends[-1] + np.cumsum(more)])
    mean = (BURST_HIGH * busy + BURST_LOW * quiet) / (busy + quiet)

    def bursty(t: np.ndarray) -> np.ndarray:
        phase = np.searchsorted(ends, t, side="right")
        factor = np.where(phase % 2 == 1, BURST_HIGH, BURST_LOW) / mean
        return diurnal(t) * factor

    return peak * BURST_HIGH / mean, bursty


def generate_trace(
    rates: SourceRates,
    duration: float,
    profile: str = "poisson",
    period: float = 86_400.0,
    keys: int = 0,
    key_name: str = "key",
    key_skew: float = 0.0,
    seed: int = 0,
) -> Any:
    """A trace over ``[0, duration)`` from per-source rates, as a ``pyarrow.Table``.

    See the module docstring for the profiles and keys.
    """
    import pyarrow as pa

    _finite(duration, "duration", positive=True)
    _check_profile(profile, period, duration)
    if keys:
        _check_key_name(key_name)
    for (name, node), rate in rates.items():
        if not (math.isfinite(rate) and rate >= 0):
            raise InevError(f"rate of {name} at node {node!r} must be a finite number >= 0")
    expected = math.fsum(rates.values()) * duration
    if not expected <= MAX_EVENTS:  # also NaN
        raise InevError(
            f"the trace would hold about {expected:.3g} events (rates times duration), more "
            f"than the {MAX_EVENTS:,} a generated trace may hold: shorten the duration"
        )
    names = sorted({t for t, _ in rates})
    type_code = {t: i for i, t in enumerate(names)}
    nodes = sorted({n for _, n in rates}, key=lambda n: (isinstance(n, str), str(n), n))
    node_code = {n: i for i, n in enumerate(nodes)}
    times, types, where = [], [], []
    ordered = sorted(rates.items(), key=lambda kv: (type_code[kv[0][0]], node_code[kv[0][1]]))
    for (name, node), rate in ordered:
        rng = np.random.default_rng([seed, 1, type_code[name], node_code[node]])
        bound, multiplier = _modulation(profile, period, duration, rng)
        count = rng.poisson(rate * bound * duration)
        t = rng.uniform(0.0, duration, size=count)
        if multiplier is not None:
            t = t[rng.random(count) * bound < multiplier(t)]
        times.append(t)
        types.append(np.full(t.size, type_code[name], dtype=np.int32))
        where.append(np.full(t.size, node_code[node], dtype=np.int32))
    time = np.concatenate(times) if times else np.empty(0)
    type_ = np.concatenate(types) if types else np.empty(0, dtype=np.int32)
    node = np.concatenate(where) if where else np.empty(0, dtype=np.int32)
    order = np.lexsort((node, type_, time))
    time, type_, node = time[order], type_[order], node[order]
    columns: dict[str, Any] = {
        "time": pa.array(time),
        "type": pa.DictionaryArray.from_arrays(pa.array(type_), pa.array(names)).cast(pa.string()),
        "node": pa.array([nodes[i] for i in range(len(nodes))]).take(pa.array(node)),
        "id": pa.array(np.arange(time.size, dtype=np.int64)),
    }
    if keys:
        rng = np.random.default_rng([seed, 2])
        if key_skew > 0:
            weights = 1.0 / np.arange(1, keys + 1) ** key_skew
            columns[key_name] = pa.array(
                rng.choice(keys, size=time.size, p=weights / weights.sum())
            )
        else:
            columns[key_name] = pa.array(rng.integers(0, keys, size=time.size))
    return pa.table(columns)


def write_trace(table: Any, path: str | os.PathLike[str]) -> None:
    """Write a trace table atomically: Parquet for ``.parquet``/``.pq``, else CSV."""
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    name = os.fspath(path)
    with atomic_output(name, "wb") as handle:
        if name.lower().endswith((".parquet", ".pq")):
            pq.write_table(table, handle)
        else:
            pacsv.write_csv(table, handle)


def generate_trace_file(
    options: TraceOptions, path: str | os.PathLike[str], network: Network | None = None
) -> Any:
    """Draw a trace (from ``network``'s rates if given, else :func:`random_rates`) and write it.

    Returns the table.
    """
    options.check()
    rates = network_rates(network) if network is not None else random_rates(options)
    table = generate_trace(
        rates,
        options.duration,
        options.profile,
        options.period,
        options.keys,
        options.key_name,
        options.key_skew,
        options.seed,
    )
    write_trace(table, path)
    return table
