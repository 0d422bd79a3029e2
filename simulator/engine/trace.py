"""Trace events for the engines: the checked columns of :mod:`inev.common.traces` as events.

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = p.write_text("time,type,node,id,v\\n1.5,A,0,7,3\\n")
>>> [(e.time, e.type, e.node, e.id, dict(e.attrs)) for e in read_trace(p)]
[(1.5, 'A', 0, 7, {'v': 3})]
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from inev.common.traces import (
    CHUNK_ROWS,
    REQUIRED,
    Columns,
    TraceFile,
    TraceScan,
    parse_value,
    scan_trace,
    trace_length,
)
from inev.simulator.engine.events import _EMPTY, MASK64, Event, event_key

__all__ = [
    "CHUNK_ROWS",
    "REQUIRED",
    "TraceFile",
    "TraceScan",
    "as_events",
    "event_chunks",
    "parse_value",
    "read_trace",
    "scan_trace",
    "trace_length",
]


def as_events(columns: Columns) -> list[Event]:
    """One chunk of a trace as engine events, in file order."""
    new = tuple.__new__
    out: list[Event] = []
    append = out.append
    names = list(columns.attrs)
    values = [columns.attrs[n] for n in names]
    for i, (t, typ, node, ident) in enumerate(
        zip(columns.time.tolist(), columns.type, columns.node, columns.id, strict=True)
    ):
        if names:
            attrs = {n: v[i] for n, v in zip(names, values, strict=True) if v[i] is not None}
        else:
            attrs = _EMPTY
        key = ident & MASK64 if type(ident) is int else event_key(ident)
        append(new(Event, (t, typ, node, ident, attrs, key)))
    return out


def event_chunks(
    trace: TraceFile | str | os.PathLike[str],
    attributes: Sequence[str] | None = None,
    chunk_rows: int = CHUNK_ROWS,
) -> Iterator[list[Event]]:
    """The trace's events chunk by chunk, in file order (``attributes``: the attribute
    columns to read, ``None`` for all)."""
    source = trace if isinstance(trace, TraceFile) else TraceFile(trace)
    for batch in source.batches(attributes, chunk_rows):
        yield as_events(batch)


def read_trace(path: str | os.PathLike[str]) -> Iterator[Event]:
    """Yield the events of a CSV or Parquet trace, in file order (streamed in chunks)."""
    for chunk in event_chunks(path):
        yield from chunk
