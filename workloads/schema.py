"""The ``inev-workload/1`` file's shape, checked before the queries are parsed (see
:mod:`inev.common.validation` for why pydantic).

The model checks types and ranges: a ``pattern``, ``where`` or ``return`` that is no string, a
window that is not a positive finite number, a selectivity seed beyond 64 bits, more than
:data:`MAX_QUERIES` queries, a ``where_selectivity`` (measured on a trace) outside (0, 1], an
``estimated_from`` record of the wrong shape. :func:`~inev.workloads.io.workload_from_dict`
then parses the patterns and clauses (:func:`~inev.workloads.syntax.parse_pattern` refuses
nesting deeper than :data:`~inev.workloads.syntax.MAX_DEPTH`) and checks their meaning.

>>> from inev.common.validation import validate_document
>>> doc = {"window": 1, "queries": [{"name": "q", "pattern": ["SEQ", "A", "B"]}]}
>>> try:
...     validate_document(WorkloadDocument, doc, "wl.json")
... except Exception as exc:
...     print(exc)
wl.json: queries[0].pattern should be a valid string (got ['SEQ', 'A', 'B'])
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from inev.common.validation import (
    MAX_INT,
    Count,
    Fraction,
    Name,
    Open,
    Positive,
    Strict,
    Text,
)

MAX_QUERIES = 10_000
"""The most queries a workload may have."""


class QueryEntry(Strict):
    """One query of a workload file (unknown keys are refused: a typo would go unseen)."""

    name: Name | None = None
    pattern: Text
    selectivity: Annotated[dict[Text, Fraction], Field(max_length=100_000)] | None = None
    where_selectivity: Annotated[dict[Text, Fraction], Field(max_length=100_000)] | None = None
    where: Text | None = None
    return_: Annotated[Text | None, Field(alias="return")] = None
    group_by: Annotated[list[Name], Field(max_length=1000)] | None = None
    weight: Positive | None = None


class PairProvenance(Open):
    """How ``workload estimate`` measured one pair (an entry of ``estimated_from.pairs``)."""

    candidates: Count
    keyed: Count | None = None
    checked: Count
    held: Count
    method: Text


class EstimatedFrom(Open):
    """``estimated_from``: the trace a ``workload estimate`` measured on, and how.

    Only a record (reading a workload ignores what it says), but a hand-edited one must still
    have its shape: a file carrying a broken record is refused rather than half-trusted."""

    trace: Text
    events: Count
    window: Positive
    pairs: Annotated[dict[Text, PairProvenance], Field(max_length=100_000)] | None = None


class WorkloadDocument(Open):
    """An ``inev-workload/1`` document (unknown top-level keys are ignored)."""

    format: Literal["inev-workload/1"] | None = None
    window: Positive
    slide: Positive | None = None
    selectivity_seed: Annotated[int, Field(ge=0, le=MAX_INT)] | None = None
    ties: Literal["strict", "any"] | None = None
    queries: Annotated[list[QueryEntry], Field(max_length=MAX_QUERIES)]
    estimated_from: EstimatedFrom | None = None
