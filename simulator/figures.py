"""The figures of a simulation that ``inev simulate`` and ``inev show`` print.

The simulator measures **detection latency** in time units (a match's detection time minus
the time of its last event); the planner's ``model_latency`` is a different, unit-less model
score (:mod:`inev.planner.figures`). The one-line form keeps the keys scripts read (and
``latency_unit``); the table adds counts that only people look at. Every figure has its
unit: counts name what they count (messages, matches, events), ratios and shares say so.

A run that measures no match at all checks nothing: ``equal=true`` then only says that both
sides found none. :func:`run_warnings` says so, and ``inev simulate`` and ``inev show`` print it.

>>> from inev.simulator.simulation_result import SimulationResult
>>> empty = SimulationResult("inev", 5.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 0}, {"q": 0}, 0, 0,
...                          {}, {}, {}, {})
>>> run_warnings(empty)[0][:60]
'the run measured 0 matches at the sinks and 0 at the central'
"""

from __future__ import annotations

from typing import Any, Protocol

from inev.common.figures import Figure


class SimulationResultLike(Protocol):
    """What the figures read of a simulation's result;
    :class:`inev.simulator.simulation_result.SimulationResult` has it all.

    A protocol rather than the class: the result's ``repr`` and notebook view import this
    module, so it names nothing of the result's module back, not even for an annotation (no
    import cycle, ``tests/test_layers.py``).
    """

    method: str
    duration: float
    events: int
    messages: int
    centralized_messages: int
    model_messages: float
    matches: dict[str, int]
    centralized_matches: dict[str, int]
    missing: int
    extra: int
    latency: dict[str, dict[str, float | None]]
    reoptimizations: dict[str, int]
    late: int
    changes: list[dict[str, Any]]
    shedding: dict[str, Any] | None
    aggregates: dict[str, list[dict[str, Any]]]
    aggregation: dict[str, dict[str, str]]
    trace_ignored: int
    trace_skipped: int
    loss_causes: dict[str, int]

    @property
    def ratio(self) -> float: ...
    @property
    def model_deviation(self) -> float | None: ...
    @property
    def equal_to_centralized(self) -> bool: ...
    @property
    def aggregates_equal_to_centralized(self) -> bool | None: ...


TIME = "time units"
RATIO = "ratio"
SHARE = "fraction"


def _worst(latency: dict[str, dict[str, Any]], key: str) -> float | None:
    values = [s[key] for s in latency.values() if s.get(key) is not None]
    return max(values) if values else None


def _mean(latency: dict[str, dict[str, Any]]) -> float | None:
    count = sum(s["count"] for s in latency.values() if s.get("count"))
    if not count:
        return None
    return sum(s["mean"] * s["count"] for s in latency.values() if s.get("count")) / count


def simulation_figures(result: SimulationResultLike) -> list[Figure]:
    """The figures of a simulation: messages, matches, detection latency, then aggregation
    and shedding when they apply."""
    latency = result.latency
    deviation = result.model_deviation
    changed = bool(result.changes)
    figures = [
        Figure("method", "method", result.method),
        Figure("messages", "messages (events sent, per link crossed)", result.messages, "messages"),
        Figure(
            "ratio", "ratio to gathering at the centralized node", result.ratio, RATIO, digits=4
        ),
        Figure(
            "model_deviation",
            "deviation from the model (ψ × duration)",
            None if deviation is None else round(deviation, 3),
            "fraction of the model",
        ),
        Figure("matches", "matches at the sinks", sum(result.matches.values()), "matches"),
        Figure("equal", "equal to centralized evaluation", result.equal_to_centralized),
        Figure(
            "detection_latency_p99",
            "detection latency p99 (worst query)",
            _worst(latency, "p99"),
            TIME,
            digits=4,
            unit_key="latency_unit",
        ),
        Figure("duration", "simulated duration", result.duration, TIME, in_line=False),
        Figure("events", "events generated", result.events, "events", in_line=False),
        Figure(
            "centralized_messages",
            "messages to gather at the centralized node",
            result.centralized_messages,
            "messages",
            in_line=False,
        ),
        Figure(
            "model_messages",
            "model: ψ × duration",
            result.model_messages,
            "messages",
            in_line=False,
        ),
        Figure("missing", "matches missing", result.missing, "matches", in_line=changed),
        *_missing_by(result, changed),
        Figure("extra", "matches extra", result.extra, "matches", in_line=False),
        Figure(
            "detection_latency_mean",
            "detection latency mean",
            _mean(latency),
            TIME,
            digits=4,
            in_line=False,
        ),
        Figure(
            "detection_latency_max",
            "detection latency max",
            _worst(latency, "max"),
            TIME,
            digits=4,
            in_line=False,
        ),
        Figure("late", "items refused as late", result.late, "items", in_line=False),
        Figure(
            "reoptimizations",
            "engine re-optimisations",
            sum(result.reoptimizations.values()),
            "re-optimisations",
            in_line=False,
        ),
        Figure("changes", "changes at run time", len(result.changes), "changes", in_line=False),
    ]
    if result.trace_ignored or result.trace_skipped:
        figures += [
            Figure(
                "ignored", "trace events of types no query uses", result.trace_ignored, "events"
            ),
            Figure("skipped_lines", "empty trace lines skipped", result.trace_skipped, "lines"),
        ]
    if result.aggregation:
        cells = sum(len(rows) for rows in result.aggregates.values())
        figures += [
            Figure("aggregates", "aggregate cells", cells, "cells"),
            Figure(
                "aggregates_equal",
                "aggregates equal to centralized GRETA",
                result.aggregates_equal_to_centralized,
            ),
        ]
    return figures + shedding_figures(result.shedding)


def _missing_by(result: SimulationResultLike, changed: bool) -> list[Figure]:
    """With changes: the missing matches by cause, grouped as ``node-down:27,link:5``
    (:data:`inev.simulator.losses.GROUPS`; ``none`` when nothing is missing)."""
    if not changed:
        return []
    from inev.simulator.losses import GROUPS

    groups: dict[str, int] = {}
    for cause, count in sorted(result.loss_causes.items()):
        if count:
            group = GROUPS.get(cause, cause)
            groups[group] = groups.get(group, 0) + count
    text = ",".join(f"{g}:{n}" for g, n in sorted(groups.items(), key=lambda x: -x[1])) or "none"
    causes = ",".join(f"{c}:{n}" for c, n in sorted(result.loss_causes.items()) if n) or "none"
    return [
        Figure("missing_by", "matches missing by kind of cause", text),
        Figure("loss_causes", "matches missing by cause", causes, in_line=False),
    ]


def shedding_figures(s: dict[str, Any] | None) -> list[Figure]:
    """The load-shedding figures (none without a capacity)."""
    if not s:
        return []
    figures = [
        Figure("shed", "shedding strategy", s["strategy"]),
        Figure("load", "load of the busiest node (needed / capacity)", s["load"], RATIO, digits=3),
        Figure(
            "max_utilisation",
            "utilisation of the busiest node",
            s["max_utilisation"],
            SHARE,
            digits=3,
        ),
        Figure("false_negatives", "false negatives", s["false_negatives"], "matches"),
        Figure(
            "false_negative_share",
            "false negatives (weighted share)",
            s["false_negative_share"],
            SHARE,
            digits=3,
        ),
        Figure("false_positives", "false positives", s["false_positives"], "matches"),
        Figure("bound_violations", "latency-bound violations", s["bound_violations"], "matches"),
    ]
    if s.get("bound_forced"):
        figures.append(
            Figure(
                "bound_forced", "negated events forced past the bound", s["bound_forced"], "events"
            )
        )
    figures += [
        Figure(
            "shed_partial_matches",
            "partial matches shed",
            s["shed_partial_matches"],
            "partial matches",
        ),
        Figure("shed_events", "events shed", s["shed_events"], "events"),
        Figure("late", "items refused as late (shedding run)", s["late"], "items"),
    ]
    return figures


def run_warnings(result: SimulationResultLike) -> list[str]:
    """What a reader of the figures must not miss (module docstring): today, a run that
    measured no match, at the sinks or centrally, for any query without a ``return``."""
    found = sum(result.matches.values())
    central = sum(result.centralized_matches.values())
    if found or central or result.aggregation or not result.centralized_matches:
        if found == 0 and central > 0:
            return [f"the sinks measured 0 matches where centralized evaluation found {central}"]
        return []
    return [
        "the run measured 0 matches at the sinks and 0 at the centralized check, so "
        "equal=true compares nothing; a longer duration, higher rates (a total rate) or "
        "larger selectivities give the queries matches"
    ]
