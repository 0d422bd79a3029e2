"""The shapes of the simulator's files: ``inev-sim/1`` (every field's type, checked before a
result is rebuilt) and the lines of ``inev match``'s JSON Lines (:class:`MatchLine`).

``inev show``, ``inev draw`` and a notebook read simulation results that a user may have
edited or another tool written. Without a check, a field of the wrong type
(``"messages_by_type": "1"``) surfaced as an AttributeError deep in the display code.
:class:`SimulationDocument` declares each field the way :mod:`inev.common.validation`
declares the other files (strict types, no NaN or infinity), so a wrong field is refused in
one line naming it::

    sim.json: messages_by_type should be a valid dictionary (got '1')

Unknown keys are ignored (other versions add figures), and so are the entries of a field this
version only passes on (aggregate rows, per-node shedding figures); what the commands read
of ``changes``, ``shedding`` and ``timeline`` is typed.

>>> from inev.common.validation import validate_document
>>> try:
...     validate_document(SimulationDocument, {"reoptimizations": -0.0}, "sim.json")
... except Exception as exc:
...     print(exc)
sim.json: reoptimizations should be a valid dictionary (got -0.0)
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import Field, PlainValidator, model_validator

from inev.common.validation import (
    MAX_INT,
    Count,
    Figure,
    Name,
    NodeId,
    Number,
    Open,
    Positive,
    Text,
)

VertexKey = Annotated[str, Field(pattern=r"^-?[0-9]{1,19}$")]
"""A vertex id written as a JSON object key (``"12"``)."""
Counts = dict[Text, Count]
"""Counts keyed by a name, node or link (``{"q1": 3}``)."""


class ChangeKind(Open):
    """One change of an applied group (what ``inev show`` lists: its kind)."""

    kind: Name | None = None


class AppliedChange(Open):
    """One entry of ``changes``: a group of changes at one time and what followed it."""

    time: Number | None = None
    changes: list[ChangeKind] | None = None
    used: Text | None = None
    messages_before: Count | None = None
    messages_after: Count | None = None
    rate_before: Number | None = None
    rate_after: Number | None = None
    lost: Count | None = None
    lost_by_cause: Counts | None = None


class Shedding(Open):
    """The ``shedding`` entry (with a capacity): the figures the commands print."""

    strategy: Text | None = None
    load: Figure = None
    max_utilisation: Figure = None
    false_negatives: Count | None = None
    false_negative_share: Figure = None
    false_positives: Count | None = None
    bound_violations: Count | None = None
    bound_forced: Count | None = None
    shed_partial_matches: Count | None = None
    shed_events: Count | None = None
    late: Count | None = None
    latency: dict[Name, Figure] | None = None
    queries: dict[Text, dict[Name, Figure]] | None = None
    nodes: dict[Text, dict[Name, Any]] | None = None


class TimelineChange(Open):
    """One change marked on a timeline: when, its kind and its label."""

    time: Number
    kind: Text = ""
    label: Text = ""


class TimelineDocument(Open):
    """The ``timeline`` entry (:mod:`inev.simulator.timeline`): columns with one entry per bin
    of width ``bin`` from time 0 (``null`` latencies in bins without matches)."""

    bin: Positive
    duration: Number = 0.0
    factor: Annotated[int, Field(ge=1, le=MAX_INT)] = 1
    messages: list[Count]
    matches: list[Count]
    latency_mean: list[Figure]
    latency_p99: list[Figure]
    matches_by_event_time: list[Count] | None = None
    missing: list[Count] | None = None
    changes: list[TimelineChange] = []

    @model_validator(mode="after")
    def _one_entry_per_bin(self) -> TimelineDocument:
        columns = [self.messages, self.matches, self.latency_mean, self.latency_p99]
        columns += [c for c in (self.missing, self.matches_by_event_time) if c is not None]
        if len({len(c) for c in columns}) > 1:
            raise ValueError("every column must have one entry per bin")
        return self


class SimulationDocument(Open):
    """An ``inev-sim/1`` document: the fields of
    :class:`~inev.simulator.simulation_result.SimulationResult` with their types (required
    ones are required by the rebuild, which names the missing key)."""

    format: Literal["inev-sim/1"] | None = None
    method: Name | None = None
    duration: Number | None = None
    events: Count | None = None
    messages: Count | None = None
    messages_by_type: Counts | None = None
    messages_by_link: Counts | None = None
    messages_by_vertex: dict[VertexKey, Count] | None = None
    centralized_messages: Count | None = None
    model_messages: Number | None = None
    matches: Counts | None = None
    centralized_matches: Counts | None = None
    missing: Count | None = None
    extra: Count | None = None
    latency: dict[Text, dict[Name, Figure]] | None = None
    events_processed: Counts | None = None
    partial_matches: Counts | None = None
    reoptimizations: Counts | None = None
    late: Count | None = None
    unused_events: Counts | None = None
    changes: list[AppliedChange] | None = None
    shedding: Shedding | None = None
    aggregates: dict[Text, list[dict[Text, Any]]] | None = None
    centralized_aggregates: dict[Text, list[dict[Text, Any]]] | None = None
    aggregate_differences: Counts | None = None
    aggregation: dict[Text, dict[Text, Text]] | None = None
    trace_ignored: Count | None = None
    trace_skipped: Count | None = None
    messages_by_link_and_type: dict[Text, Counts] | None = None
    loss_causes: Counts | None = None
    timeline: TimelineDocument | None = None


def _cell_value(value: Any) -> int | float:
    """An aggregate's value: an integer of any size (counts are exact) or a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("must be a finite number")
    return value


class MatchLine(Open):
    """One line of ``inev match``'s JSON Lines: a match (``query``, ``events``), an aggregate
    cell (``query``, ``window_start``, ``window_end``, ``group``, ``value``) or the shedding
    summary (``shedding``).

    >>> from inev.common.validation import validate_document
    >>> try:
    ...     validate_document(MatchLine, {"shedding": 3}, "m.jsonl: line 2")
    ... except Exception as exc:
    ...     print(exc)
    m.jsonl: line 2: shedding should be a valid dictionary (got 3)
    """

    query: Text | None = None
    events: list[NodeId] | None = None
    window_start: Number | None = None
    window_end: Number | None = None
    group: list[Any] | None = None
    value: Annotated[int | float, PlainValidator(_cell_value)] | None = None
    shedding: Shedding | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> MatchLine:
        if self.shedding is None and self.query is None:
            raise ValueError("a line holds a match or cell (with 'query') or 'shedding'")
        return self
