"""Reading event traces (SPEC: CSV or Parquet with ``time, type, node, id`` + attributes).

This module reads traces column by column (every layer reads traces: the network and the
workload are measured on them, the engines replay them); the engine turns the columns into
events (:mod:`inev.simulator.engine.trace`).

A trace is read in chunks (:class:`TraceFile`, pyarrow's streaming CSV reader and Parquet
row groups), so nothing but one chunk of it is held at a time. Every other column is an
attribute; a cell is read as an int, else a float, else kept as text, and an empty cell
leaves the attribute out. ``node`` and ``id`` become ints when they look like ints.

**Content checks.** Bad input is a one-line :class:`InevError` naming the line (CSV: the
header is line 1) or row (Parquet: the first row is row 1):

* the file is not UTF-8 text, or a header names a column twice or lacks a required one;
  a UTF-8 byte-order mark before the header is skipped (spreadsheets write one);
* a time that is not a number, or not finite (NaN, infinity); an empty type, node or id;
* a row with more or fewer fields than the header;
* a field that spans lines: an unbalanced quote would otherwise swallow the rows up to the
  next quote into one field, unseen. Trace fields never hold a line break;
* Parquet attribute columns of nested types (lists, maps, structs).

Empty lines are skipped and counted (:attr:`TraceFile.skipped`), so a command's summary
line can say so; no other row is ever dropped. Duplicate ids are checked by
:func:`scan_trace` (ids name the events of a match, so an id may not repeat within a type).

>>> import tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
>>> _ = p.write_text("time,type,node,id,v\\n1.5,A,0,7,3\\n")
>>> [(c.time.tolist(), c.type, c.node, c.id, c.attrs) for c in TraceFile(p).batches()]
[([1.5], ['A'], [0], [7], {'v': [3]})]
"""

from __future__ import annotations

import codecs
import csv
import math
import os
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from inev.common.errors import InevError
from inev.common.paths import require_file

REQUIRED = ("time", "type", "node", "id")
CHUNK_ROWS = 65_536
"""Rows per chunk: big enough for vectorised conversion, small beside any window."""
_BLOCK_BYTES = 4 << 20


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


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


@dataclass
class Columns:
    """One chunk of a trace, column by column, checked and converted.

    ``time`` is a float array; ``type`` a list of strings; ``node`` and ``id`` lists of ints
    or strings; ``attrs`` maps each attribute to a list of values (``None``: no value).
    ``first`` is the chunk's first row (0-based, over the rows kept).
    """

    first: int
    time: np.ndarray
    type: list[str]
    node: list[Any]
    id: list[Any]
    attrs: dict[str, list[Any]] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.type)


class TraceFile:
    """A CSV or Parquet trace opened for streaming; see the module docstring.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("\\ufefftime,type,node,id\\n1,A,0,1\\n\\n2,B,1,x\\n")
    >>> trace = TraceFile(p)
    >>> [(c.type, c.id) for c in trace.batches()], trace.skipped
    ([(['A', 'B'], [1, 'x'])], 1)
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.name = self.path.name
        require_file(self.path)  # the one wording of a missing input (common/paths.py)
        self.parquet = self.path.suffix.lower() in (".parquet", ".pq")
        self.columns = self._parquet_header() if self.parquet else self._csv_header()
        self.attributes = tuple(c for c in self.columns if c not in REQUIRED)
        self.skipped = 0
        """Empty lines skipped by the last full read."""

    # ------------------------------------------------------------------ headers
    def _csv_header(self) -> tuple[str, ...]:
        with open(self.path, "rb") as handle:
            raw = handle.readline()
        if not raw.strip():
            raise InevError(f"trace {self.name}: the file is empty (needs a header line)")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InevError(f"trace {self.name}: line 1 is not UTF-8 text") from None
        if text.startswith(codecs.BOM_UTF8.decode("utf-8")):
            text = text[1:]
        try:
            header = next(csv.reader([text]))
        except (csv.Error, StopIteration) as exc:
            raise InevError(f"trace {self.name}: line 1 is malformed ({exc})") from None
        names = tuple(h.strip() for h in header)
        return self._check_names(names)

    def _parquet_header(self) -> tuple[str, ...]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            schema = pq.ParquetFile(self.path).schema_arrow
        except Exception as exc:  # pyarrow raises many types for a broken file
            raise InevError(
                f"trace {self.name}: not a readable Parquet file ({_one_line(exc)})"
            ) from None
        names = self._check_names(tuple(schema.names))
        for f in schema:
            if pa.types.is_nested(f.type):
                raise InevError(
                    f"trace {self.name}: column {f.name!r} has the nested type {f.type}; "
                    "trace columns hold numbers, strings or booleans"
                )
        return names

    def _check_names(self, names: tuple[str, ...]) -> tuple[str, ...]:
        seen = Counter(names)
        twice = [n for n, k in seen.items() if k > 1]
        if twice:
            raise InevError(f"trace {self.name}: column {twice[0]!r} appears twice in the header")
        if any(not n for n in names):
            raise InevError(f"trace {self.name}: the header has an empty column name")
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise InevError(f"trace {self.name}: missing column(s) {', '.join(missing)}")
        return names

    # ------------------------------------------------------------------ reading
    def where(self, row: int) -> str:
        """How a message names data row ``row`` (0-based over the file's data lines)."""
        return f"trace {self.name}: " + (f"row {row + 1}" if self.parquet else f"line {row + 2}")

    def batches(
        self, columns: Sequence[str] | None = None, chunk_rows: int = CHUNK_ROWS
    ) -> Iterator[Columns]:
        """The trace in checked, converted chunks of the required and chosen attribute
        columns (``None``: every attribute)."""
        wanted = self.attributes if columns is None else tuple(columns)
        unknown = [c for c in wanted if c not in self.columns]
        if unknown:
            raise InevError(f"trace {self.name}: no column {unknown[0]!r}")
        self.skipped = 0
        reader = self._parquet_batches if self.parquet else self._csv_batches
        kept = 0
        for batch, line in reader(wanted, chunk_rows):
            columns_ = self._convert(batch, line, wanted, kept)
            if len(columns_):
                kept += len(columns_)
                yield columns_

    def _csv_batches(self, wanted: tuple[str, ...], chunk_rows: int) -> Iterator[tuple[Any, int]]:
        import pyarrow as pa
        import pyarrow.csv as pacsv

        names = list(self.columns)
        include = [*REQUIRED, *wanted]
        try:
            reader = pacsv.open_csv(
                self.path,
                read_options=pacsv.ReadOptions(
                    column_names=names,
                    skip_rows=1,
                    block_size=_BLOCK_BYTES,
                    use_threads=False,
                ),
                parse_options=pacsv.ParseOptions(ignore_empty_lines=False),
                convert_options=pacsv.ConvertOptions(
                    column_types=dict.fromkeys(names, pa.string()),
                    include_columns=include,
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                ),
            )
        except Exception as exc:
            raise self._csv_error(exc) from None
        line = 0  # 0-based data line of the next batch
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                return
            except Exception as exc:
                raise self._csv_error(exc) from None
            for start in range(0, batch.num_rows, chunk_rows):
                part = batch.slice(start, chunk_rows)
                yield part, line
                line += part.num_rows

    def _csv_error(self, exc: BaseException) -> InevError:
        text = _one_line(exc)
        if "UTF8" in text or "UTF-8" in text:
            found = re.search(r"Row #(\d+)", text)
            at = f"line {found.group(1)}" if found else "a line"
            return InevError(f"trace {self.name}: {at} is not UTF-8 text")
        if "Expected" in text and "columns" in text:
            # "CSV parse error: Row #7: Expected 4 columns, got 3: 3,A,0"
            detail = text.split("CSV parse error: ", 1)[-1]
            row = detail.split(":", 1)[0].replace("Row #", "line ")
            counts = detail.split(": ", 2)
            got = counts[1].split("got ")[-1] if len(counts) > 1 else "?"
            return InevError(
                f"trace {self.name}: {row} has {got} fields, the header has {len(self.columns)}"
            )
        return InevError(f"trace {self.name}: not a readable CSV file ({text})")

    def _parquet_batches(
        self, wanted: tuple[str, ...], chunk_rows: int
    ) -> Iterator[tuple[Any, int]]:
        import pyarrow.parquet as pq

        try:
            handle = pq.ParquetFile(self.path)
            row = 0
            for batch in handle.iter_batches(batch_size=chunk_rows, columns=[*REQUIRED, *wanted]):
                yield batch, row
                row += batch.num_rows
        except InevError:
            raise
        except Exception as exc:
            raise InevError(
                f"trace {self.name}: not a readable Parquet file ({_one_line(exc)})"
            ) from None

    # ------------------------------------------------------------------ conversion
    def _convert(self, batch: Any, line: int, wanted: tuple[str, ...], kept: int) -> Columns:
        import pyarrow as pa
        import pyarrow.compute as pc

        data = {name: batch.column(name) for name in (*REQUIRED, *wanted)}
        if not self.parquet:
            # a field holding a line break: an unbalanced quote swallowed the lines after it
            for name, column in data.items():
                broken = pc.match_substring_regex(column, "[\r\n]")
                if pc.any(broken).as_py():
                    i = int(np.flatnonzero(broken.to_numpy(zero_copy_only=False))[0])
                    raise InevError(
                        f"{self.where(line + i)}: field {name!r} runs over the end of the line "
                        "(an unbalanced quote?)"
                    )
            blank = pc.and_(
                pc.equal(data["time"], ""),
                pc.and_(pc.equal(data["type"], ""), pc.equal(data["id"], "")),
            )
            if pc.any(blank).as_py():
                keep = pc.invert(blank)
                self.skipped += int(pc.sum(blank).as_py())
                rows = np.flatnonzero(keep.to_numpy(zero_copy_only=False))
                data = {k: pc.filter(v, keep) for k, v in data.items()}
            else:
                rows = None
        else:
            rows = None

        def where(i: int) -> str:
            return self.where(line + (int(rows[i]) if rows is not None else i))

        times = self._times(data["time"], where)
        types = data["type"]
        if not pa.types.is_string(types.type) and not pa.types.is_large_string(types.type):
            types = pc.cast(types, pa.string())
        types = pc.utf8_trim_whitespace(types)
        empty = pc.fill_null(pc.equal(types, ""), True)
        if pc.any(empty).as_py():
            i = int(np.flatnonzero(empty.to_numpy(zero_copy_only=False))[0])
            raise InevError(f"{where(i)}: empty event type")
        nodes = self._idents(data["node"], "node", where)
        ids = self._idents(data["id"], "id", where)
        attrs = {name: self._values(data[name]) for name in wanted}
        return Columns(kept, times, types.to_pylist(), nodes, ids, attrs)

    @staticmethod
    def _times(column: Any, where: Any) -> np.ndarray:
        import pyarrow as pa
        import pyarrow.compute as pc

        if column.null_count:
            i = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise InevError(f"{where(i)}: time is missing")
        kind = column.type
        if pa.types.is_timestamp(kind):
            unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}[kind.unit]
            values = pc.cast(column, pa.int64()).to_numpy().astype(float) * unit
        elif pa.types.is_integer(kind) or pa.types.is_floating(kind):
            values = pc.cast(column, pa.float64()).to_numpy(zero_copy_only=False)
        else:
            text = pc.cast(column, pa.string())
            try:
                values = pc.cast(pc.utf8_trim_whitespace(text), pa.float64()).to_numpy(
                    zero_copy_only=False
                )
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                cells = text.to_pylist()
                out = []
                for i, cell in enumerate(cells):
                    try:
                        out.append(float(cell))
                    except ValueError:
                        raise InevError(f"{where(i)}: time {cell!r} is not a number") from None
                values = np.asarray(out, dtype=float)
        bad = ~np.isfinite(values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InevError(f"{where(i)}: time {float(values[i])} is not finite")
        return values

    @staticmethod
    def _idents(column: Any, what: str, where: Any) -> list[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        if column.null_count:
            i = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
            raise InevError(f"{where(i)}: empty {what}")
        kind = column.type
        if pa.types.is_integer(kind):
            return column.to_pylist()
        if pa.types.is_string(kind) or pa.types.is_large_string(kind):
            empty = pc.equal(pc.utf8_trim_whitespace(column), "")
            if pc.any(empty).as_py():
                i = int(np.flatnonzero(empty.to_numpy(zero_copy_only=False))[0])
                raise InevError(f"{where(i)}: empty {what}")
            try:
                return pc.cast(column, pa.int64()).to_pylist()
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                return [_ident(v) for v in column.to_pylist()]
        return [_ident(v) for v in column.to_pylist()]

    def _values(self, column: Any) -> list[Any]:
        import pyarrow as pa
        import pyarrow.compute as pc

        if self.parquet or not (pa.types.is_string(column.type)):
            return column.to_pylist()
        present = pc.not_equal(column, "")
        try:
            ints = pc.cast(pc.if_else(present, column, "0"), pa.int64())
            return pc.if_else(present, ints, None).to_pylist()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            pass
        return [parse_value(v) if v != "" else None for v in column.to_pylist()]


def trace_length(path: str | os.PathLike[str]) -> int:
    """Number of data rows in a trace (Parquet: from its metadata; CSV: counts lines)."""
    p = Path(path)
    if p.suffix.lower() in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        return pq.ParquetFile(p).metadata.num_rows
    with open(p, "rb") as handle:
        return max(sum(1 for line in handle if line.strip()) - 1, 0)


@dataclass
class TraceScan:
    """What one pass over a trace measured (:func:`scan_trace`).

    ``counts``: events per type; ``sources``: events per ``(type, node)``; ``start`` and
    ``end``: the first and last time; ``unsorted``: where the times first go back (``None``
    when the trace is in time order); ``busiest``: per type, the most events in any window
    (an upper bound: two adjacent window-sized bins); ``keys``: per ``(type, attribute)``
    asked for, the number of events per value; ``skipped``: empty lines.
    """

    rows: int = 0
    start: float = math.inf
    end: float = -math.inf
    counts: Counter = field(default_factory=Counter)
    sources: Counter = field(default_factory=Counter)
    unsorted: str | None = None
    busiest: dict[str, int] = field(default_factory=dict)
    keys: dict[tuple[str, str], Counter] = field(default_factory=dict)
    skipped: int = 0
    nodes: list[Any] = field(default_factory=list)

    @property
    def duration(self) -> float:
        """The span of the trace's times (``end - start``; 0 for fewer than two times)."""
        return max(self.end - self.start, 0.0) if self.rows else 0.0


def scan_trace(
    path: str | os.PathLike[str],
    window: float | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
    check_ids: bool = True,
) -> TraceScan:
    """One checked pass over a trace: counts per type and source, time span, order,
    the busiest window of each type (given ``window``), events per key value for the
    ``{type: [attribute, …]}`` in ``keys``, and (``check_ids``) a refusal of an id that
    repeats within a type: ids name the events of a match (``inev match`` writes them), and
    the simulator tells arrivals of one event apart by type and id, so a repeated id would
    merge two events. Put the shared value (a bike or job id) in an attribute column instead.

    The id check keeps every (type, id) of the trace, as Arrow arrays (about 16 bytes per
    event); everything else is proportional to the types, sources, keys and windows.
    """
    trace = TraceFile(path)
    wanted = sorted({a for names in (keys or {}).values() for a in names if a not in REQUIRED})
    scan = TraceScan()
    bins: dict[str, Counter] = {}
    codes: dict[str, int] = {}
    per_key: dict[tuple[str, str], Counter] = {
        (t, a): Counter() for t, names in (keys or {}).items() for a in names
    }
    ids = IdLedger(trace.name)
    node_seen: dict[Any, None] = {}
    last = -math.inf
    for batch in trace.batches(wanted):
        last = _check_order(scan, trace, batch, last)
        times = batch.time
        scan.rows += len(batch)
        scan.start = min(scan.start, float(times.min()))
        scan.end = max(scan.end, float(times.max()))
        scan.counts.update(batch.type)
        scan.sources.update(zip(batch.type, batch.node, strict=True))
        node_seen.update(dict.fromkeys(batch.node))
        if window is not None:
            _bin(bins, codes, batch, window)
        for (t, a), counter in per_key.items():
            values = _column(batch, a)
            counter.update(v for typ, v in zip(batch.type, values, strict=True) if typ == t)
        if check_ids:
            ids.add(batch.type, batch.id)
    scan.skipped = trace.skipped
    scan.nodes = list(node_seen)
    _summarise(scan, per_key, bins)
    if check_ids:
        ids.check()
    return scan


def _summarise(
    scan: TraceScan, per_key: dict[tuple[str, str], Counter], bins: dict[str, Counter]
) -> None:
    """Events per key value (none for empty cells), and each type's busiest window: the most
    events in two adjacent window-sized cells (every window lies within two)."""
    scan.keys = {
        k: Counter({v: c for v, c in counter.items() if v is not None})
        for k, counter in per_key.items()
    }
    for t, counter in bins.items():
        scan.busiest[t] = max(counter[c] + counter.get(c + 1, 0) for c in counter)


def _column(batch: Any, name: str) -> list[Any]:
    """A batch's values of an attribute, or of its ``time``, ``node`` or ``id`` column."""
    if name in batch.attrs:
        return batch.attrs[name]
    return batch.time.tolist() if name == "time" else getattr(batch, name)


def _check_order(scan: TraceScan, trace: TraceFile, batch: Any, last: float) -> float:
    """Note in ``scan`` where the trace first goes back in time; the last time seen in order."""
    times = batch.time
    if scan.unsorted is None:
        if times[0] < last:
            scan.unsorted = trace.where(batch.first)
        else:
            back = np.flatnonzero(np.diff(times) < 0)
            if back.size:
                scan.unsorted = trace.where(batch.first + int(back[0]) + 1)
    return float(times[-1]) if scan.unsorted is None else last


def _bin(bins: dict[str, Counter], codes: dict[str, int], batch: Any, window: float) -> None:
    """Count a batch's events per type and window-sized time cell (for the busiest window)."""
    cells = np.floor(batch.time / window).astype(np.int64)
    for t in set(batch.type):
        codes.setdefault(t, len(codes))
        bins.setdefault(t, Counter())
    kinds = np.fromiter((codes[t] for t in batch.type), dtype=np.int64, count=len(batch))
    pairs, counts = np.unique(np.stack([kinds, cells]), axis=1, return_counts=True)
    names = list(codes)
    for (k, c), n in zip(pairs.T.tolist(), counts.tolist(), strict=True):
        bins[names[k]][c] += n


class IdLedger:
    """The (type, id) pairs of a trace read chunk by chunk, to refuse an id that repeats
    within a type (see :func:`scan_trace`); about 16 bytes per event, as Arrow arrays.

    >>> ledger = IdLedger("t.csv")
    >>> ledger.add(["A", "B"], [1, 1]); ledger.check()
    >>> ledger.add(["A"], [1])
    >>> try:
    ...     ledger.check()
    ... except InevError as exc:
    ...     print(str(exc)[:40])
    trace t.csv: id 1 of type A appears 2 ti
    """

    def __init__(self, name: str) -> None:
        import pyarrow as pa

        self.name = name
        self._pa = pa
        self._parts: list[tuple[Any, Any]] = []

    def add(self, types: list[str], ids: list[Any]) -> None:
        """Remember one chunk's types and ids."""
        if types:
            self._parts.append(_id_part(types, ids, self._pa))

    def check(self) -> None:
        """Raise :class:`InevError` naming the first id that repeats within a type."""
        if self._parts:
            _check_ids(self.name, list(self._parts), self._pa)


def _id_part(types: list[str], ids: list[Any], pa: Any) -> tuple[Any, Any]:
    """One chunk's (type, id) columns as compact Arrow arrays."""
    try:
        column = pa.array(ids)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        column = pa.array([str(i) for i in ids])
    if not (pa.types.is_integer(column.type) or pa.types.is_string(column.type)):
        column = pa.array([str(i) for i in ids])
    return pa.array(types).dictionary_encode(), column


def _check_ids(name: str, parts: list[tuple[Any, Any]], pa: Any) -> None:
    import pyarrow.compute as pc

    if all(pa.types.is_integer(i.type) for _, i in parts):
        ids = pa.chunked_array([pc.cast(i, pa.int64()) for _, i in parts])
    else:
        ids = pa.chunked_array([pc.cast(i, pa.string()) for _, i in parts])
    types = pa.chunked_array([pc.cast(t, pa.string()) for t, _ in parts])
    parts.clear()
    table = pa.table({"type": types, "id": ids})
    counted = table.group_by(["type", "id"]).aggregate([("id", "count")])
    repeated = counted.filter(pc.greater(counted["id_count"], 1))
    if repeated.num_rows:
        row = repeated.slice(0, 1).to_pylist()[0]
        raise InevError(
            f"trace {name}: id {row['id']!r} of type {row['type']} appears "
            f"{row['id_count']} times; ids name events (a match lists them), so they must be "
            "unique per type: number the rows as ids and keep the shared value (a bike or job "
            "id) in an attribute column to join on"
        )
