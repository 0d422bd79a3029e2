"""The validation layer's shared part: pydantic models of JSON inputs, one-line messages, limits.

Every JSON input kind has a pydantic model beside its reader (``topologies/schema.py`` for
networks, ``workloads/schema.py`` for workloads, ``planner/schema.py`` for plans and changes);
:func:`validate_document` checks a parsed document against it before anything is built, and
turns the first problem into one line naming the file, the entry and the problem::

    net.json: event_types.A.rate must be a finite number (got inf)

Why pydantic (v2) for the JSON files rather than jsonschema or hand-written checks:

- strict types in one declaration: ``true`` is no number, ``"3"`` no integer, NaN and the
  infinities no rate (``allow_inf_nan=False``); a 401-digit integer is refused instead of
  raising OverflowError deep inside the model;
- its core is compiled (pydantic-core, Rust): plans of 10^5 vertices are checked in a fraction
  of the time a pure-Python jsonschema validator needs (``benchmarks/bench_validation.py``);
- every error comes with its location (``vertices.12.inputs.3``), which gives the one-line
  message without a walk of our own; jsonschema's ``best_match`` often reports a branch of a
  union that was not meant.

The models check shapes, types and ranges. What needs the whole document (cross-references:
a vertex input that names no vertex, a projection that names no query) or another file (a plan
made for another network) is checked by hand after them, next to the model, because those
rules are about meaning, not shape. Sweep specs (TOML) and results (Parquet) are checked by
hand too: their rules come from tables the code already has (``DEFAULTS``, the Parquet schema).

Limits. :data:`MAX_INT` bounds every integer (ids, seeds, counts), so that it fits the 64-bit
columns of Parquet and numpy; :data:`MAX_NUMBER` bounds every other number, far above any
realistic rate (the generator's Zipf rates reach 10^19) but far enough below the float range
that sums and products of a few of them stay finite.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, PlainValidator, ValidationError

from inev.common.errors import InevError

MAX_INT = 2**63 - 1
"""The largest integer any input may hold (int64)."""
MAX_NUMBER = 1e250
"""The largest number any input may hold."""
MAX_TEXT = 100_000
"""The longest string any input may hold (a pattern, a where clause, a name)."""

Model = TypeVar("Model", bound=BaseModel)


class Strict(BaseModel):
    """Base of the file models: strict types, no NaN or infinity, unknown keys refused."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False, frozen=True)


class Open(Strict):
    """Like :class:`Strict`, but unknown keys are ignored (entries other versions may extend)."""

    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False, frozen=True)


def _node_id(value: Any) -> int | str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise ValueError("must be an integer or a string")
    if isinstance(value, int) and abs(value) > MAX_INT:
        raise ValueError("must be an integer of at most 64 bits")
    if isinstance(value, str) and (not value or len(value) > 1000):
        raise ValueError("must be a non-empty string of at most 1,000 characters")
    return value


def _link(value: Any) -> list[Any]:
    if not isinstance(value, list) or len(value) not in (2, 3):
        raise ValueError("must be [u, v] or [u, v, latency]")
    try:
        ends = [_node_id(v) for v in value[:2]]
    except ValueError as exc:
        raise ValueError(f"node id {exc}") from None
    if len(value) == 3:
        try:
            return [*ends, positive_number(value[2])]
        except ValueError as exc:
            raise ValueError(f"latency {exc}") from None
    return ends


def positive_number(value: Any) -> float:
    """``value`` as a positive finite float (ValueError with the reason otherwise)."""
    number = _number(value)
    if not number > 0:
        raise ValueError("must be a positive number")
    return number


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number")
    if isinstance(value, int) and abs(value) > MAX_NUMBER:
        raise ValueError(f"must be at most {MAX_NUMBER:g}")
    if not math.isfinite(value):
        raise ValueError("must be a finite number")
    if abs(value) > MAX_NUMBER:
        raise ValueError(f"must be at most {MAX_NUMBER:g}")
    return float(value)


def _fraction(value: Any) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or (isinstance(value, int) and abs(value) > 1)
        or not 0 < value <= 1
    ):
        raise ValueError("is outside (0, 1]")
    return float(value)


def _figure(value: Any) -> float | None:
    """A plan figure: a number, or ``null`` for one that overflowed."""
    return None if value is None else _number(value)


NodeId = Annotated[int | str, PlainValidator(_node_id)]
"""A topology node id: a 64-bit integer or a non-empty string."""
Link = Annotated[list, PlainValidator(_link)]
"""``[u, v]`` or ``[u, v, latency]``."""
Number = Annotated[float, PlainValidator(_number)]
"""A finite number of at most :data:`MAX_NUMBER` (integers accepted)."""
Positive = Annotated[float, PlainValidator(positive_number)]
"""A positive :data:`Number`."""
Fraction = Annotated[float, PlainValidator(_fraction)]
"""A number in (0, 1] (a selectivity)."""
Figure = Annotated[float | None, PlainValidator(_figure)]
"""A :data:`Number` or ``null`` (a figure that overflowed a float)."""
Count = Annotated[int, Field(ge=0, le=MAX_INT)]
"""A non-negative 64-bit integer."""
Text = Annotated[str, Field(max_length=MAX_TEXT)]
"""A string of at most :data:`MAX_TEXT` characters."""
Name = Annotated[str, Field(min_length=1, max_length=1000)]
"""A non-empty name of at most 1,000 characters."""


def validate_document(model: type[Model], document: Any, origin: str) -> Model:
    """``document`` checked against ``model``; :class:`InevError` with one line otherwise."""
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise InevError(f"{origin}: {describe(exc)}") from None
    except RecursionError:
        raise InevError(f"{origin}: nested too deeply") from None


def describe(exc: ValidationError) -> str:
    """The first error of ``exc`` as ``location: problem (got value)``."""
    error = exc.errors(include_url=False)[0]
    where = location(error["loc"])
    message = str(error["msg"])
    for prefix in (
        "Value error, ",
        "Input should be ",
        "Input ",
        "List should ",
        "Dictionary should ",
        "String should ",
    ):
        if message.startswith(prefix):
            kept = prefix[prefix.index("should") :] if "should" in prefix else ""
            message = kept + message[len(prefix) :]
            break
    message = message.replace(" after validation", "")
    message = re.sub(r" or instance of \w+", "", message)  # a nested model's class name
    if error["type"] == "missing":
        return f"missing key {where!r}" if where else "missing key"
    if error["type"] == "extra_forbidden":
        parent = location(error["loc"][:-1])
        key = f"unknown key {short(error['loc'][-1])}"
        return f"{parent}: {key}" if parent else key
    shown = f" (got {short(error.get('input'))})" if "input" in error else ""
    if not where:
        return f"{message}{shown}"
    joiner = " " if message.split(" ", 1)[0] in ("must", "is", "should") else ": "
    return f"{where}{joiner}{message}{shown}"


def location(loc: tuple[Any, ...]) -> str:
    """A pydantic location as ``vertices[3].inputs`` (keys dotted, indices bracketed).

    >>> location(("event_types", "A", "sources", 0))
    'event_types.A.sources[0]'
    """
    text = ""
    for step in loc:
        if isinstance(step, int):
            text += f"[{step}]"
        elif isinstance(step, str) and step.startswith("~"):
            continue  # the tag of a union member (see planner/schema.py)
        elif step in ("function-plain", "function-after", "function-before"):
            continue
        else:
            text += f".{step}" if text else str(step)
    return text


def short(value: Any, width: int = 40) -> str:
    """A short, one-line representation of an input value.

    >>> short(10**400)
    'an integer of 401 digits'
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
        return f"an integer of {int(abs(value).bit_length() * math.log10(2)) + 1} digits"
    if isinstance(value, list | dict) and len(repr(value)) > width:
        kind = "a list" if isinstance(value, list) else "an object"
        return f"{kind} of {len(value)} entries"
    text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
