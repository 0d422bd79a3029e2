"""A simulation's time series: messages, matches and detection latency per bin, changes marked.

The run counts as it goes, at no cost worth measuring: the network adds each message to the
bin of the time it arrives over a link (``SimNetwork.by_bin``, one count per link crossed,
as ``messages`` counts them), and the sinks add each match's detection latency to the bin of
the time they record it (``Tally.detected``, see :meth:`inev.simulator.tally.Tally.record`).
:func:`run_timeline` turns the counts into a :class:`Timeline`, the result's ``timeline``
(docs/spec-extensions.md).

**Bins.** Bin ``k`` holds the times ``[k · bin, (k + 1) · bin)``, from time 0. The default
width (:func:`default_bin`) is the run's duration / 100 rounded up to 1, 2 or 5 × 10^k: about
100 bins over the run, so that a change's effect, which lasts a window plus a path's latency,
spans several bins while each bin still holds enough messages to rise above the Poisson noise
(a bin of n messages varies by about √n). Round numbers keep the axis readable. The workload's
window was the other candidate; it was not chosen because the number of bins would then
follow the run's length (a run of 10^4 windows would write 10^4 bins) and a window can be
far shorter than a link's latency, leaving most bins without a match.

**After the duration.** The sources stop at the duration, but the run goes on until every
message has arrived and every engine has released its matches: those messages and matches
fall into the bins after the duration and are kept, so the timeline can extend past the
duration (its sums equal the result's ``messages`` and ``matches``), and ``duration`` tells
where the sources stopped. A timeline of more than :data:`MAX_BINS` bins (a given ``bin``
much smaller than the run, or a tail of long latencies) is coarsened: ``factor`` neighbouring
bins are merged, the smallest factor that leaves at most :data:`MAX_BINS` bins (or a larger
one that makes the merged width round), so the file stays small.

**Missed matches.** ``missing[k]`` counts the centralized matches that the sinks did not find,
by the time of their latest event (they were never detected, so they have no detection time;
their latest event is when they could first have been). Its sum is the result's ``missing``.
A streamed trace keeps no centralized matches to look up: there ``missing`` is ``None``.

>>> t = Timeline(0.5, 1.0, (3, 0, 1), (0, 2, 0), (None, 0.25, None), (None, 0.5, None),
...              (0, 1, 0), (ChangeMark(0.6, "node-down", "node-down 7"),))
>>> t.times()
[0.0, 0.5, 1.0]
>>> Timeline.from_dict(t.to_dict()) == t
True
>>> [row["messages_per_time"] for row in t.rows()]
[6.0, 0.0, 2.0]
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inev.common.errors import InevError
from inev.common.stats import latency_summary

MAX_BINS = 1000
"""The most bins a result's timeline holds (more are merged, see the module docstring)."""
TARGET_BINS = 100
"""About how many bins the default width gives over the run's duration."""


def round_up(value: float) -> float:
    """The smallest 1, 2 or 5 × 10^k at least ``value`` (> 0).

    >>> round_up(0.3), round_up(0.012), round_up(7.0), round_up(10.0)
    (0.5, 0.02, 10.0, 10.0)
    """
    power = 10.0 ** math.floor(math.log10(value))
    for step in (1.0, 2.0, 5.0):
        width = step * power
        if width >= value * (1.0 - 1e-12):
            return float(f"{width:.12g}")  # 0.30000000000000004 -> 0.3
    return float(f"{10.0 * power:.12g}")


def default_bin(duration: float) -> float:
    """The smallest 1, 2 or 5 × 10^k at least ``duration / 100`` (module docstring).

    >>> default_bin(30.0), default_bin(100.0), default_bin(7.0), default_bin(0.0)
    (0.5, 1.0, 0.1, 1.0)
    """
    if not duration > 0 or not math.isfinite(duration):
        return 1.0
    return round_up(duration / TARGET_BINS)


def bin_width(duration: float, given: float | None = None) -> float:
    """The width a run counts in: ``given``, or :func:`default_bin` of the duration.

    >>> bin_width(30.0), bin_width(30.0, 2.0)
    (0.5, 2.0)
    """
    if given is None:
        return default_bin(duration)
    if isinstance(given, bool) or not math.isfinite(given) or not given > 0:
        raise InevError(f"the timeline's bin must be a positive number, got {given!r}")
    return float(given)


def change_label(change: Mapping[str, Any]) -> str:
    """One change (an ``inev-changes/1`` entry) in a few words, as the plot labels it.

    >>> change_label({"kind": "link-down", "link": ["Houston", "Atlanta"]})
    'link-down Houston-Atlanta'
    >>> change_label({"kind": "set-rate", "type": "B", "rate": 12.0})
    'set-rate B=12'
    >>> change_label({"kind": "swap-rates", "types": ["A", "F"]})
    'swap-rates A<->F'
    >>> change_label({"kind": "node-down", "node": 3})
    'node-down 3'
    """
    kind = str(change.get("kind", "change"))
    if "link" in change and isinstance(change["link"], list | tuple):
        return f"{kind} {'-'.join(str(n) for n in change['link'][:2])}"
    if "node" in change:
        return f"{kind} {change['node']}"
    if "types" in change and isinstance(change["types"], list | tuple):
        return f"{kind} {'<->'.join(str(t) for t in change['types'])}"
    if "type" in change:
        rate = change.get("rate")
        return f"{kind} {change['type']}" + ("" if rate is None else f"={rate:g}")
    return kind


@dataclass(frozen=True)
class ChangeMark:
    """A change of the run: when, its kind (``link-down`` …) and its label."""

    time: float
    kind: str
    label: str


@dataclass(frozen=True)
class Timeline:
    """Per bin of width ``bin`` from time 0: messages (link crossings arriving in the bin),
    matches recorded by the sinks in it, the mean and 99th percentile of those matches'
    detection latencies (``None`` in a bin without matches), the centralized matches missed
    by their latest event's time (``None`` when unknown), and the run's changes.
    ``duration`` is where the sources stopped (bins after it hold what was in flight)."""

    bin: float
    duration: float
    messages: tuple[int, ...]
    matches: tuple[int, ...]
    latency_mean: tuple[float | None, ...]
    latency_p99: tuple[float | None, ...]
    missing: tuple[int, ...] | None = None
    changes: tuple[ChangeMark, ...] = ()
    factor: int = 1
    matches_by_event_time: tuple[int, ...] | None = None
    """The matches of ``matches`` again, by the time of their latest event."""
    """How many of the bins counted during the run each bin merges (1: none)."""

    def __post_init__(self) -> None:
        columns = [self.messages, self.matches, self.latency_mean, self.latency_p99]
        columns += [c for c in (self.missing, self.matches_by_event_time) if c is not None]
        if len({len(c) for c in columns}) > 1:
            raise InevError("a timeline's columns must have one entry per bin")

    def __len__(self) -> int:
        return len(self.messages)

    def times(self) -> list[float]:
        """The start time of each bin."""
        return [k * self.bin for k in range(len(self))]

    def rows(self) -> list[dict[str, Any]]:
        """One row per bin: its start, counts, counts per time unit and latencies."""
        out = []
        for k, start in enumerate(self.times()):
            out.append(
                {
                    "start": start,
                    "messages": self.messages[k],
                    "messages_per_time": self.messages[k] / self.bin,
                    "matches": self.matches[k],
                    "matches_per_time": self.matches[k] / self.bin,
                    "latency_mean": self.latency_mean[k],
                    "latency_p99": self.latency_p99[k],
                    "matches_by_event_time": _at(self.matches_by_event_time, k),
                    "missing": _at(self.missing, k),
                }
            )
        return out

    def to_pandas(self) -> Any:
        """:meth:`rows` as a pandas DataFrame, one row per bin."""
        import pandas as pd

        return pd.DataFrame(self.rows())

    def to_dict(self) -> dict[str, Any]:
        """The result file's ``timeline`` entry (columns, one entry per bin)."""
        return {
            "bin": self.bin,
            "factor": self.factor,
            "duration": self.duration,
            "messages": list(self.messages),
            "matches": list(self.matches),
            "latency_mean": list(self.latency_mean),
            "latency_p99": list(self.latency_p99),
            "matches_by_event_time": _listed(self.matches_by_event_time),
            "missing": _listed(self.missing),
            "changes": [{"time": c.time, "kind": c.kind, "label": c.label} for c in self.changes],
        }

    @classmethod
    def from_dict(cls, document: Mapping[str, Any]) -> Timeline:
        """The :class:`Timeline` of a ``timeline`` entry (checked by
        :class:`inev.simulator.schema.TimelineDocument` first)."""
        return cls(
            bin=float(document["bin"]),
            duration=float(document.get("duration", 0.0)),
            messages=tuple(document["messages"]),
            matches=tuple(document["matches"]),
            latency_mean=tuple(document["latency_mean"]),
            latency_p99=tuple(document["latency_p99"]),
            missing=_tupled(document.get("missing")),
            changes=tuple(
                ChangeMark(float(c["time"]), str(c.get("kind", "")), str(c.get("label", "")))
                for c in document.get("changes") or ()
            ),
            factor=int(document.get("factor", 1)),
            matches_by_event_time=_tupled(document.get("matches_by_event_time")),
        )


def _at(column: Sequence[int] | None, k: int) -> int | None:
    return None if column is None else column[k]


def _listed(column: Sequence[int] | None) -> list[int] | None:
    return None if column is None else list(column)


def _tupled(column: Sequence[int] | None) -> tuple[int, ...] | None:
    return None if column is None else tuple(column)


def change_marks(report: Iterable[Mapping[str, Any]]) -> tuple[ChangeMark, ...]:
    """The changes of a run's ``changes`` report, one mark per change, in time order.

    >>> change_marks([{"time": 10.0, "changes": [{"kind": "node-down", "node": "Denver"}]}])
    (ChangeMark(time=10.0, kind='node-down', label='node-down Denver'),)
    """
    marks = []
    for entry in report:
        for change in entry.get("changes") or ():
            kind = str(change.get("kind", "change"))
            marks.append(ChangeMark(float(entry["time"]), kind, change_label(change)))
    return tuple(sorted(marks, key=lambda m: m.time))


def missed_times(
    found: Mapping[str, Mapping[Any, int]],
    expected: Mapping[str, Mapping[Any, int]],
    time_of: Mapping[Any, float],
) -> list[float]:
    """The latest event's time of each centralized match the sinks missed (once per missing
    copy, as :func:`~inev.simulator.simulation_result.compare_matches` counts them).

    >>> missed_times({"q": {(1, 2): 1}}, {"q": {(1, 2): 1, (1, 3): 2}}, {1: 0.5, 2: 1.0, 3: 2.5})
    [2.5, 2.5]
    """
    out = []
    for query, want in expected.items():
        have = found.get(query, {})
        for ids, count in want.items():
            short = count - have.get(ids, 0)
            if short > 0:
                out.extend([max(time_of[i] for i in ids)] * short)
    return out


def _factor(bins: int, width: float) -> int:
    """How many neighbouring bins to merge so that at most :data:`MAX_BINS` remain: the
    smallest number that does, made larger if that gives a round merged width (1, 2 or
    5 × 10^k; a bin of 0.02 reads better than one of 0.012) and the factor stays whole.

    >>> _factor(900, 0.5), _factor(12_000, 0.001), _factor(2500, 0.3)
    (1, 20, 3)
    """
    least = max(1, math.ceil(bins / MAX_BINS))
    if least == 1:
        return 1
    rounder = round_up(width * least) / width
    return round(rounder) if abs(rounder - round(rounder)) < 1e-9 * rounder else least


def _rounded(value: float | None) -> float | None:
    """A latency to 10 significant digits (the file stays short; 89.00000016200002 is noise)."""
    return None if value is None else float(f"{value:.10g}")


def _binned(counts: Mapping[int, int], factor: int, count: int) -> tuple[int, ...]:
    """``counts`` per bin, ``factor`` neighbouring bins merged, ``count`` bins."""
    out = [0] * count
    for k, n in counts.items():
        out[k // factor] += n
    return tuple(out)


def build_timeline(
    width: float,
    duration: float,
    messages: Mapping[int, int],
    detected: Mapping[int, Sequence[float]],
    occurred: Mapping[int, int] | None = None,
    missed: Sequence[float] | None = None,
    changes: Sequence[ChangeMark] = (),
) -> Timeline:
    """The :class:`Timeline` of a run's counts per bin ``k`` of ``width``: ``messages[k]``,
    ``detected[k]`` (the detection latencies recorded), ``occurred[k]`` (the matches found
    whose latest event is in the bin), and ``missed``, the latest event's time of each match
    missed. It covers the duration and every later bin that holds something; above
    :data:`MAX_BINS` bins, neighbours are merged.

    >>> t = build_timeline(1.0, 3.0, {0: 2, 4: 1}, {1: [0.5, 1.5]}, {0: 2}, [2.2])
    >>> t.messages, t.matches, t.matches_by_event_time, t.missing
    ((2, 0, 0, 0, 1), (0, 2, 0, 0, 0), (2, 0, 0, 0, 0), (0, 0, 1, 0, 0))
    >>> t.latency_mean
    (None, 1.0, None, None, None)
    """
    missed_bins = Counter(int(t / width) for t in missed or ())
    used = [*messages.items(), *(occurred or {}).items(), *missed_bins.items()]
    last = [k for k, n in used if n] + [k for k, v in detected.items() if len(v)]
    bins = max([math.ceil(duration / width - 1e-9), *(k + 1 for k in last), 1])
    factor = _factor(bins, width)
    count = math.ceil(bins / factor)
    latencies: list[list[float]] = [[] for _ in range(count)]
    for k, values in detected.items():
        latencies[k // factor].extend(values)
    summaries = [latency_summary(values) for values in latencies]
    return Timeline(
        bin=width * factor,
        duration=duration,
        messages=_binned(messages, factor, count),
        matches=tuple(len(v) for v in latencies),
        latency_mean=tuple(_rounded(s["mean"]) for s in summaries),
        latency_p99=tuple(_rounded(s["p99"]) for s in summaries),
        missing=None if missed is None else _binned(missed_bins, factor, count),
        changes=tuple(changes),
        factor=factor,
        matches_by_event_time=None if occurred is None else _binned(occurred, factor, count),
    )


def run_timeline(
    sim: Any,
    tally: Any,
    duration: float,
    report: Iterable[Mapping[str, Any]] = (),
    events: Sequence[Any] | None = None,
    central: Mapping[str, Mapping[Any, int]] | None = None,
) -> Timeline:
    """The timeline of an executed run: the network's ``by_bin``, the tally's ``detected``
    and ``occurred`` (all counted in bins of ``sim.bin``), the ``changes`` report's changes,
    and with the trace's ``events`` and the ``central`` matches the missed ones per bin."""
    missed = None
    if events is not None and central is not None:
        time_of = {e.id: e.time for e in events}
        missed = missed_times(tally.sink_found, central, time_of)
    return build_timeline(
        sim.bin, duration, sim.by_bin, tally.detected, tally.occurred, missed, change_marks(report)
    )
