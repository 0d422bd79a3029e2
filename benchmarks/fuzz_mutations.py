"""The mutations of ``benchmarks/fuzz_commands.py``: hostile values (scalars, option values,
values nested 100 and 1,000 lists deep), and seeded mutations of JSON and TOML documents,
bytes, CSV traces and Parquet results, each writing the mutated file's bytes."""

from __future__ import annotations

import copy
import io
import json
import math
import random
from typing import Any

DEEP_100 = "__DEEP_100__"
DEEP_1000 = "__DEEP_1000__"
"""Placeholders for values nested 100 and 1,000 lists deep (spliced into the file's text)."""

HOSTILE_SCALARS: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    1,
    2**64,
    10**400,
    -(10**400),
    0.0,
    -0.5,
    1e308,
    1e-320,
    "",
    "x",
    "A",
    "SEQ(A, B)",
    "é\u0000\ud7ff",
    "x" * 5000,
    [],
    {},
    [[]],
    {"": None},
]


HOSTILE_OPTION_VALUES = [
    "nan",
    "inf",
    "-inf",
    "-1",
    "0",
    "1e308",
    "99999999999999999999999",
    "",
    "abc",
    "0.0000001",
    "9223372036854775807",
]


def _deep_list(depth: int) -> Any:
    """A JSON value nested ``depth`` lists deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def deep_pattern(depth: int) -> str:
    """A pattern nested ``depth`` SEQs deep."""
    return "SEQ(" * depth + "A, B" + ")" * depth


# --------------------------------------------------------------------------- mutations
def paths_of(document: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indices) to a value inside ``document``."""
    out = [prefix]
    if len(prefix) > 12:
        return out
    if isinstance(document, dict):
        for key, value in document.items():
            out += paths_of(value, (*prefix, key))
    elif isinstance(document, list):
        for i, value in enumerate(document[:50]):
            out += paths_of(value, (*prefix, i))
    return out


def get_at(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


def set_at(document: Any, path: tuple, value: Any) -> Any:
    if not path:
        return value
    parent = get_at(document, path[:-1])
    parent[path[-1]] = value
    return document


def delete_at(document: Any, path: tuple) -> Any:
    if not path:
        return {}
    parent = get_at(document, path[:-1])
    del parent[path[-1]]
    return document


def strings_in(document: Any) -> list[Any]:
    """Strings and numbers found in the document (names to swap in elsewhere)."""
    found = []
    for path in paths_of(document):
        value = get_at(document, path)
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            found.append(value)
        if path and isinstance(path[-1], str):
            found.append(path[-1])
    return found


def mutate_document(rng: random.Random, document: Any) -> Any:
    """One to three structural mutations of a parsed JSON (or TOML) document."""
    document = copy.deepcopy(document)
    names = strings_in(document)
    for _ in range(rng.randint(1, 3)):
        paths = paths_of(document)
        path = rng.choice(paths[1:] if len(paths) > 1 else paths)
        action = rng.random()
        try:
            if action < 0.2 and path:
                document = delete_at(document, path)
            elif action < 0.55:
                document = set_at(document, path, copy.deepcopy(rng.choice(HOSTILE_SCALARS)))
            elif action < 0.7 and names:
                document = set_at(document, path, rng.choice(names))
            elif action < 0.75:
                document = set_at(document, path, rng.choice([DEEP_100, DEEP_1000]))
            elif action < 0.8:
                document = set_at(document, path, rng.choice([math.nan, math.inf, -math.inf]))
            elif action < 0.9:
                value = get_at(document, path)
                if isinstance(value, list) and value:
                    value.append(copy.deepcopy(rng.choice(value)))
                elif isinstance(value, dict):
                    value[rng.choice(names) if names else "extra"] = rng.choice(HOSTILE_SCALARS)
                elif isinstance(value, int | float) and not isinstance(value, bool):
                    document = set_at(document, path, value * rng.choice([-1, 0, 1e6, 1e300]))
                else:
                    document = set_at(document, path, [value, value])
            else:
                value = get_at(document, path)
                if isinstance(value, str):
                    document = set_at(
                        document, path, rng.choice([value * 2, value[:-1], deep_pattern(1000)])
                    )
                else:
                    document = set_at(document, path, str(value))
        except (KeyError, IndexError, TypeError):
            continue
    return document


def mutate_bytes(rng: random.Random, data: bytes) -> bytes:
    """A byte-level mutation: truncation, invalid UTF-8, a BOM, deep nesting, junk."""
    action = rng.randrange(7)
    if action == 0:
        return data[: rng.randrange(max(1, len(data)))]
    if action == 1:
        at = rng.randrange(max(1, len(data)))
        return data[:at] + b"\xff\xfe\xc3" + data[at:]
    if action == 2:
        return b"\xef\xbb\xbf" + data
    if action == 3:
        return b"[" * 100_000 + b"]" * 100_000
    if action == 4:
        return b""
    if action == 5:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    return data.replace(b"1", b"1" * 500, 1)


def json_bytes(document: Any) -> bytes:
    text = json.dumps(document, allow_nan=True)
    for marker, depth in ((DEEP_100, 100), (DEEP_1000, 1000)):
        text = text.replace(json.dumps(marker), "[" * depth + "1" + "]" * depth)
    return text.encode("utf-8", "surrogatepass")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if value in (DEEP_100, DEEP_1000):
        depth = 100 if value == DEEP_100 else 1000
        return "[" * depth + "1" + "]" * depth
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items())
            + "}"
        )
    return '""'


def toml_bytes(document: dict[str, Any]) -> bytes:
    """A TOML text of a document (top-level tables written as ``[table]``)."""
    lines, tables = [], []
    for key, value in document.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif value is not None:
            lines.append(f"{json.dumps(str(key))} = {toml_value(value)}")
    for key, table in tables:
        lines.append(f"[{json.dumps(str(key))}]")
        for k, v in table.items():
            if v is not None:
                lines.append(f"{json.dumps(str(k))} = {toml_value(v)}")
    return ("\n".join(lines) + "\n").encode("utf-8", "surrogatepass")


def mutate_csv(rng: random.Random, text: str) -> bytes:
    """Line and cell mutations of a CSV trace."""
    lines = text.splitlines()
    action = rng.randrange(9)
    if action == 0:
        lines[0] = lines[0].replace(rng.choice(["time", "type", "node", "id"]), "zz")
    elif action == 1:
        i = rng.randrange(1, len(lines))
        cells = lines[i].split(",")
        cells[rng.randrange(len(cells))] = rng.choice(["nan", "inf", "", '"', "1e400", "-1"])
        lines[i] = ",".join(cells)
    elif action == 2:
        lines.insert(rng.randrange(1, len(lines)), lines[rng.randrange(1, len(lines))])
    elif action == 3:
        lines = [lines[0]] + [",".join([c.split(",")[0], "A", "0", "1"]) for c in lines[1:]]
    elif action == 4:
        i = rng.randrange(1, len(lines))
        lines[i] = lines[i] + ',"unbalanced'
    elif action == 5:
        return b"\xef\xbb\xbf" + "\n".join(lines).encode()
    elif action == 6:
        return "\n".join(lines).encode() + b"\n\xff\xfe,1,2\n"
    elif action == 7:
        lines[0] = lines[0] + ",time"
    else:
        random_rows = [
            f"{rng.choice(['0', '-5', '1e9', 'x'])},{rng.choice(['A', 'B', '', 'ZZ'])},"
            f"{rng.choice(['0', '99', 'n'])},{rng.randrange(3)}"
            for _ in range(rng.randrange(1, 30))
        ]
        lines = [lines[0], *random_rows]
    return ("\n".join(lines) + "\n").encode()


def mutate_parquet(rng: random.Random, data: bytes) -> bytes:
    """Drop, retype or poison a column of a Parquet file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(io.BytesIO(data))
    name = rng.choice(table.column_names)
    action = rng.randrange(4)
    if action == 0:
        table = table.drop_columns([name])
    elif action == 1:
        table = table.set_column(
            table.column_names.index(name),
            name,
            pa.array([str(v) + "x" for v in table.column(name).to_pylist()]),
        )
    elif action == 2:
        values = table.column(name).to_pylist()
        table = table.set_column(
            table.column_names.index(name),
            name,
            pa.array([None] * len(values), type=table.schema.field(name).type),
        )
    else:
        values = table.column(name).to_pylist()
        poison = [math.nan if isinstance(v, float) else v for v in values]
        table = table.set_column(table.column_names.index(name), name, pa.array(poison))
    sink = io.BytesIO()
    pq.write_table(table, sink)
    return sink.getvalue()
