"""The ``inev-sim/1`` file's shape: every field's type, checked before a result is rebuilt.

``inev show``, ``inev draw`` and a notebook read simulation results that a user may have
edited or another tool written. Without a check, a field of the wrong type
(``"messages_by_type": "1"``) surfaced as an AttributeError deep in the display code.
:class:`SimulationDocument` declares each field the way :mod:`inev.common.validation`
declares the other files (strict types, no NaN or infinity), so a wrong field is refused in
one line naming it::

    sim.json: messages_by_type should be a valid dictionary (got '1')

Unknown keys are ignored (other versions add figures), and so are the entries of a field this
version only passes on (aggregate rows, per-node shedding figures); what the commands read
of ``changes`` and ``shedding`` is typed.

>>> from inev.common.validation import validate_document
>>> try:
...     validate_document(SimulationDocument, {"reoptimizations": -0.0}, "sim.json")
... except Exception as exc:
...     print(exc)
sim.json: reoptimizations should be a valid dictionary (got -0.0)
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from inev.common.validation import Count, Figure, Name, Number, Open, Text

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
