"""Reading event traces (SPEC: CSV or Parquet with ``time, type, node, id`` + attributes).

Every other column is an attribute; a cell is read as an int, else a float, else kept as
text, and an empty cell leaves the attribute out. ``node`` and ``id`` become ints when they
look like ints. Bad input is a one-line :class:`InevError` naming the row (the CSV line
number counts the header as line 1).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = p.write_text("time,type,node,id,v\\n1.5,A,0,7,3\\n")
>>> [(e.time, e.type, e.node, e.id, dict(e.attrs)) for e in read_trace(p)]
[(1.5, 'A', 0, 7, {'v': 3})]
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from inev.common.errors import InevError
from inev.simulator.engine.events import Event, make_event

REQUIRED = ("time", "type", "node", "id")


def parse_value(text: str) -> Any:
    """A trace cell as an int, else a float, else the text itself."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return text


def _ident(text: Any) -> Any:
    if isinstance(text, str):
        try:
            return int(text)
        except ValueError:
            return text
    if hasattr(text, "item"):
        return text.item()
    return text


def _time(raw: Any, where: str) -> float:
    try:
        t = float(raw)
    except (TypeError, ValueError):
        raise InevError(f"{where}: time {raw!r} is not a number") from None
    if not math.isfinite(t):
        raise InevError(f"{where}: time {raw!r} is not finite")
    return t


def trace_length(path: str | os.PathLike[str]) -> int:
    """Number of events (rows) in a trace, for progress bars."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        return pq.ParquetFile(p).metadata.num_rows
    with open(p, encoding="utf-8", newline="") as handle:
        return max(sum(1 for _ in handle) - 1, 0)


def read_trace(path: str | os.PathLike[str]) -> Iterator[Event]:
    """Yield the events of a CSV or Parquet trace, in file order."""
    p = Path(path)
    if not p.is_file():
        raise InevError(f"trace {str(p)!r} does not exist")
    if p.suffix.lower() in (".parquet", ".pq"):
        yield from _read_parquet(p)
    else:
        yield from _read_csv(p)


def _read_csv(p: Path) -> Iterator[Event]:
    with open(p, encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        try:
            header = next(reader)
        except StopIteration:
            raise InevError(f"trace {p.name}: the file is empty (needs a header line)") from None
        except csv.Error as exc:
            raise InevError(f"trace {p.name}: line 1 is malformed ({exc})") from None
        header = [h.strip() for h in header]
        missing = [c for c in REQUIRED if c not in header]
        if missing:
            raise InevError(f"trace {p.name}: missing column(s) {', '.join(missing)}")
        index = {c: header.index(c) for c in REQUIRED}
        attributes = [(i, h) for i, h in enumerate(header) if h not in REQUIRED]
        width = len(header)
        it, ii, inode, iid = index["time"], index["type"], index["node"], index["id"]
        line = 1
        while True:
            try:
                row = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InevError(f"trace {p.name}: line {line + 1} is malformed ({exc})") from None
            line += 1
            if not row:
                continue
            if len(row) != width:
                raise InevError(
                    f"trace {p.name}: line {line} has {len(row)} fields, the header has {width}"
                )
            where = f"trace {p.name}: line {line}"
            t = _time(row[it], where)
            typ = row[ii].strip()
            if not typ:
                raise InevError(f"{where}: empty event type")
            attrs = {h: parse_value(row[i]) for i, h in attributes if row[i] != ""}
            yield make_event(t, typ, _ident(row[inode]), _ident(row[iid]), attrs)


def _read_parquet(p: Path) -> Iterator[Event]:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(p)
    except Exception as exc:  # pyarrow raises many types for a broken file
        raise InevError(f"trace {p.name}: not a readable Parquet file ({exc})") from None
    names = table.column_names
    missing = [c for c in REQUIRED if c not in names]
    if missing:
        raise InevError(f"trace {p.name}: missing column(s) {', '.join(missing)}")
    columns = {c: table.column(c).to_pylist() for c in names}
    attributes = [c for c in names if c not in REQUIRED]
    for row in range(table.num_rows):
        where = f"trace {p.name}: row {row + 1}"
        t = _time(columns["time"][row], where)
        typ = columns["type"][row]
        if typ is None or str(typ).strip() == "":
            raise InevError(f"{where}: empty event type")
        attrs = {c: columns[c][row] for c in attributes if columns[c][row] is not None}
        yield make_event(
            t, str(typ), _ident(columns["node"][row]), _ident(columns["id"][row]), attrs
        )
