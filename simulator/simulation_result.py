"""The result of a simulation (``inev-sim/1``): messages, matches, equality, latency.

>>> compare_matches({"q": Counter({(1, 2): 2})}, {"q": Counter({(1, 2): 1, (3, 4): 1})})
(1, 1)
>>> from inev.common.stats import latency_summary
>>> latency_summary([1.0, 2.0, 3.0])["p50"]
2.0
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from inev.common.files import write_json_document
from inev.simulator.timeline import Timeline

FORMAT = "inev-sim/1"


def compare_matches(
    found: Mapping[str, Counter], expected: Mapping[str, Counter]
) -> tuple[int, int]:
    """(missing, extra) over all queries; a match found twice counts once as extra."""
    missing = extra = 0
    for query in set(found) | set(expected):
        have = found.get(query, Counter())
        want = expected.get(query, Counter())
        for match in set(have) | set(want):
            difference = have.get(match, 0) - want.get(match, 0)
            if difference > 0:
                extra += difference
            else:
                missing -= difference
    return missing, extra


class MatchBalance(dict):
    """Matches found at sinks minus matches of the centralized evaluation, per match.

    A streamed replay cannot keep every match of both sides until the end: the sinks add
    each match they find (``balance[ids] += 1``, as into a ``Counter``), the centralized
    engines take each of theirs away (:meth:`expect`), and a match both found is forgotten.
    So only matches in flight (found by one side, not yet by the other) are held. At the end
    the positive entries are extra matches and the negative ones missing matches.

    >>> b = MatchBalance()
    >>> b[(1, 2)] += 1
    >>> b.expect((1, 2)); b.expect((3, 4))
    >>> dict(b), b.found, b.expected, b.missing_extra()
    ({(3, 4): -1}, 1, 2, (1, 0))
    """

    def __init__(self) -> None:
        super().__init__()
        self.found = 0
        self.expected = 0

    def __missing__(self, key: Any) -> int:
        return 0

    def __setitem__(self, key: Any, value: int) -> None:
        old = dict.get(self, key, 0)
        if value > old:
            self.found += value - old
        if value:
            dict.__setitem__(self, key, value)
        elif key in self:
            dict.__delitem__(self, key)

    def expect(self, key: Any) -> None:
        """A match of the centralized evaluation."""
        self.expected += 1
        value = dict.get(self, key, 0) - 1
        if value:
            dict.__setitem__(self, key, value)
        else:
            dict.__delitem__(self, key)

    def missing_extra(self) -> tuple[int, int]:
        """(matches the sinks missed, matches they found in excess)."""
        missing = -sum(v for v in self.values() if v < 0)
        return missing, sum(v for v in self.values() if v > 0)


@dataclass
class SimulationResult:
    """Everything one simulation measured: the ``inev-sim/1`` file (docs/spec-extensions.md).

    Parameters
    ----------
    method : str
        The plan's method.
    duration : float
        Simulated time units.
    events, messages, centralized_messages : int
        Events generated (or replayed); messages sent, one per event or match per link;
        what centralized evaluation at the plan's centralized node would send.
    messages_by_type, messages_by_link, messages_by_vertex, messages_by_link_and_type : dict
        The messages split by type or projection, by link (``"u v"``), by vertex.
    model_messages : float
        ψ · duration, the cost model's count.
    matches, centralized_matches : dict of str to int
        Per query, the matches at its sinks and those of centralized evaluation.
    missing, extra : int
        Matches the sinks missed and found in excess (both 0: the plan is correct).
    latency : dict
        Per query, the detection latency's ``count``, ``mean``, ``p50``, ``p99``, ``max``.
    events_processed, partial_matches, reoptimizations, unused_events : dict
        Per vertex or type: the engines' counters.
    late, wall_seconds, check_seconds, changes, shedding, timeline
        Items arriving after their deadline; wall times; the changes applied; the capacity
        run's figures; the timeline (notes below).
    aggregates, centralized_aggregates, aggregate_differences, aggregation : dict
        ``return`` queries: rows per window and group, at the sinks and centrally.
    trace_ignored, trace_skipped, loss_causes
        See their notes below.

    Examples
    --------
    The ratio is the messages over the centralized messages, 4 / 8:

    >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 1}, {"q": 1}, 0, 0,
    ...                      {}, {}, {}, {})
    >>> r.ratio, r.equal_to_centralized
    (0.5, True)
    """

    method: str
    duration: float
    events: int
    messages: int
    messages_by_type: dict[str, int]
    messages_by_link: dict[str, int]
    messages_by_vertex: dict[int, int]
    centralized_messages: int
    model_messages: float
    matches: dict[str, int]
    centralized_matches: dict[str, int]
    missing: int
    extra: int
    latency: dict[str, dict[str, float | None]]
    events_processed: dict[str, int]
    partial_matches: dict[str, int]
    reoptimizations: dict[str, int]
    late: int = 0
    unused_events: dict[str, int] = field(default_factory=dict)
    wall_seconds: float = 0.0
    check_seconds: float = 0.0
    """Wall seconds of the centralized reference evaluation, part of ``wall_seconds``."""
    changes: list[dict[str, Any]] = field(default_factory=list)
    shedding: dict[str, Any] | None = None  # with a capacity (inev.simulator.capacity)
    # queries with a return clause (simulator/aggregation.py): rows per window and group
    aggregates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    centralized_aggregates: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    aggregate_differences: dict[str, int] = field(default_factory=dict)
    aggregation: dict[str, dict[str, str]] = field(default_factory=dict)
    timeline: Timeline | None = None
    """Messages, matches and detection latency per time bin, changes marked
    (:mod:`inev.simulator.timeline`; ``None``: a result written before timelines)."""
    trace_ignored: int = 0
    """Trace events of types no query uses (not replayed)."""
    trace_skipped: int = 0
    """Empty lines of a CSV trace."""
    messages_by_link_and_type: dict[str, dict[str, int]] = field(default_factory=dict)
    """``messages_by_link`` split by the type or projection sent (what the drawing colours)."""
    loss_causes: dict[str, int] = field(default_factory=dict)
    """With changes: the ``missing`` matches by cause (:mod:`inev.simulator.losses`), summing
    to ``missing``; each ``changes`` entry has its share as ``lost_by_cause``."""

    @property
    def aggregates_equal_to_centralized(self) -> bool | None:
        """Whether every aggregated query's cells equal centralized GRETA (``None``: none)."""
        if not self.aggregate_differences:
            return None
        return not any(self.aggregate_differences.values())

    @property
    def equal_to_centralized(self) -> bool:
        """Whether the sinks found exactly the centralized matches, each once."""
        return self.missing == 0 and self.extra == 0

    @property
    def ratio(self) -> float:
        """Measured messages relative to gathering the same trace at the centralized node."""
        if self.centralized_messages == 0:
            return 0.0 if self.messages == 0 else math.inf
        return self.messages / self.centralized_messages

    @property
    def model_deviation(self) -> float | None:
        """(measured − model) / model, ``None`` when the model predicts no message."""
        if self.model_messages == 0:
            return None
        return (self.messages - self.model_messages) / self.model_messages

    def latency_p99(self) -> float | None:
        """The largest per-query p99 detection latency."""
        values = [s["p99"] for s in self.latency.values() if s["p99"] is not None]
        return max(values) if values else None

    def to_dict(self) -> dict[str, Any]:
        """The ``inev-sim/1`` document (wall times excluded, so equal seeds give equal files)."""
        document = asdict(self)
        document.pop("wall_seconds")
        document.pop("check_seconds")
        if document.get("shedding") is None:
            document.pop("shedding", None)
        if self.timeline is None:
            document.pop("timeline")
        else:
            document["timeline"] = self.timeline.to_dict()
        document["messages_by_vertex"] = {str(k): v for k, v in self.messages_by_vertex.items()}
        return {
            "format": FORMAT,
            **document,
            # undefined (gathering costs nothing, the run sends messages): null, not Infinity
            "ratio": self.ratio if math.isfinite(self.ratio) else None,
            "equal_to_centralized": self.equal_to_centralized,
            "model_deviation": self.model_deviation,
            "aggregates_equal_to_centralized": self.aggregates_equal_to_centralized,
        }

    def summary(self) -> str:
        """The one line ``inev simulate`` prints (see :mod:`inev.simulator.figures`)."""
        from inev.common.figures import summary_line
        from inev.simulator.figures import simulation_figures

        return summary_line(simulation_figures(self))

    def query_rows(self) -> list[dict[str, Any]]:
        """One row per query: matches at the sinks and centralized, detection latency.

        >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 2}, {"q": 2}, 0, 0,
        ...                      {"q": {"p50": 1.0, "p99": 2.0, "mean": 1.2}}, {}, {}, {})
        >>> r.query_rows()
        [{'query': 'q', 'matches': 2, 'centralized_matches': 2, 'latency_p50': 1.0, 'latency_p99': 2.0, 'latency_mean': 1.2}]
        """
        queries = sorted(set(self.matches) | set(self.centralized_matches))
        return [
            {
                "query": q,
                "matches": self.matches.get(q, 0),
                "centralized_matches": self.centralized_matches.get(q, 0),
                **{
                    f"latency_{k}": (self.latency.get(q) or {}).get(k)
                    for k in ("p50", "p99", "mean")
                },
            }
            for q in queries
        ]

    def to_pandas(self) -> Any:
        """:meth:`query_rows` as a pandas DataFrame, one row per query."""
        import pandas as pd

        return pd.DataFrame(self.query_rows())

    def __repr__(self) -> str:
        """A short text form (the dataclass's own would print every per-link count).

        >>> SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 2}, {"q": 2}, 0, 0,
        ...                  {}, {}, {}, {})
        <SimulationResult inev: 4 messages (ratio 0.5), 2 matches, equal to centralized, 1 time unit>
        """
        from inev.common.words import plural

        equal = "equal to centralized" if self.equal_to_centralized else "NOT equal to centralized"
        return (
            f"<SimulationResult {self.method}: {plural(self.messages, 'message')} "
            f"(ratio {self.ratio:.4g}), {plural(sum(self.matches.values()), 'match', 'matches')}, "
            f"{equal}, {self.duration:g} time unit{'' if self.duration == 1 else 's'}>"
        )

    def _repr_html_(self) -> str:
        """A notebook's view: the figures (and a warning when the run measured no match),
        then matches and latency per query (4 significant digits, time units), then messages
        per type (:mod:`inev.common.display`)."""
        from inev.common.display import escape, figures_table, table
        from inev.simulator.figures import run_warnings, simulation_figures

        def shown(value: Any) -> Any:
            return (
                f"{value:.4g}" if isinstance(value, float) else ("n/a" if value is None else value)
            )

        rows = [[shown(r[k]) for k in r] for r in self.query_rows()]
        header = ("query", "matches", "centralized", "latency p50", "p99", "mean")
        by_type = sorted(self.messages_by_type.items(), key=lambda kv: -kv[1])
        warned = "".join(f"<p><b>warning:</b> {escape(w)}</p>" for w in run_warnings(self))
        return (
            figures_table(simulation_figures(self), f"simulation ({self.method})")
            + warned
            + table(rows, header, "per query (detection latency in time units)")
            + table(by_type, ("type or projection", "messages"), "messages")
        )


def save_result(result: SimulationResult, path: str | os.PathLike[str]) -> None:
    """Write the ``inev-sim/1`` JSON atomically.

    Parameters
    ----------
    result : SimulationResult
    path : str or path-like

    Returns
    -------
    None

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 1}, {"q": 1}, 0, 0,
    ...                      {}, {}, {}, {})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_result(r, pathlib.Path(folder, "r.json"))
    ...     document = json.loads(pathlib.Path(folder, "r.json").read_text())
    >>> document["format"], document["messages"], document["ratio"]
    ('inev-sim/1', 4, 0.5)
    """
    write_json_document(path, result.to_dict())


def result_from_dict(document: Mapping[str, Any], origin: str = "simulation") -> SimulationResult:
    """Rebuild a :class:`SimulationResult` from an ``inev-sim/1`` document.

    Derived keys (``ratio``, ``equal_to_centralized`` …) are recomputed, unknown keys
    ignored, wall times are 0.

    >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 1}, {"q": 1}, 0, 0,
    ...                      {}, {}, {}, {})
    >>> result_from_dict(r.to_dict()).ratio
    0.5
    """
    from dataclasses import fields

    from inev.common.errors import InevError
    from inev.common.validation import validate_document
    from inev.simulator.schema import SimulationDocument

    validate_document(SimulationDocument, document, origin)
    names = {f.name for f in fields(SimulationResult)} - {"wall_seconds", "check_seconds"}
    try:
        values = {k: document[k] for k in names if k in document}
        values["messages_by_vertex"] = {
            int(k): v for k, v in document.get("messages_by_vertex", {}).items()
        }
        if document.get("timeline") is not None:
            values["timeline"] = Timeline.from_dict(document["timeline"])
        return SimulationResult(**values)
    except (TypeError, ValueError) as exc:
        raise InevError(f"{origin}: malformed simulation result ({exc})") from None


def load_result(path: str | os.PathLike[str]) -> SimulationResult:
    """Read an ``inev-sim/1`` file.

    Derived keys are recomputed and wall times are 0 (:func:`result_from_dict`).

    Parameters
    ----------
    path : str or path-like

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> import pathlib, tempfile
    >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 1}, {"q": 1}, 0, 0,
    ...                      {}, {}, {}, {})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     save_result(r, pathlib.Path(folder, "r.json"))
    ...     load_result(pathlib.Path(folder, "r.json")) == r
    True
    """
    from inev.common.files import read_json_document

    return result_from_dict(read_json_document(path, FORMAT), origin=os.fspath(path))
