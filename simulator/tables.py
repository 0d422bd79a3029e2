"""Simulation results and match files for the terminal (``inev simulate``, ``inev show``): a
rich table of a simulation's queries, the whole view of a result file and of a match file.

They live in the library, not in a command module, so any layer above may use them without
importing a command.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from inev.common.display import rich_table
from inev.common.errors import InevError
from inev.simulator.simulation_result import SimulationResult


def query_table(result: SimulationResult) -> Any:
    """Per query: matches at the sinks and centrally, and detection latency (time units).

    Parameters
    ----------
    result : SimulationResult

    Returns
    -------
    rich.table.Table
        One row per query; ``n/a`` where a figure is missing.

    Examples
    --------
    >>> r = SimulationResult("inev", 1.0, 3, 4, {}, {}, {}, 8, 4.0, {"q": 1}, {"q": 2}, 1, 0,
    ...                      {"q": {"p50": 0.5, "p99": 1.25, "max": 2.0}}, {}, {}, {})
    >>> [list(column.cells) for column in query_table(r).columns]
    [['q'], ['1'], ['2'], ['0.5'], ['1.25'], ['2']]
    """
    from rich.table import Table

    table = Table(
        "query",
        "matches",
        "centralized",
        "latency p50",
        "latency p99",
        "latency max",
        caption="detection latency in time units",
    )
    for name in sorted(set(result.matches) | set(result.centralized_matches)):
        summary = result.latency.get(name, {})
        cells = [
            "n/a" if summary.get(k) is None else f"{summary[k]:.4g}" for k in ("p50", "p99", "max")
        ]
        table.add_row(
            name,
            str(result.matches.get(name, "n/a")),
            str(result.centralized_matches.get(name, "n/a")),
            *cells,
        )
    return table


def _timeline_note(result: Any, path: str) -> list[str]:
    """One line saying what the result's timeline holds and how to draw it (none: nothing)."""
    timeline = result.timeline
    if timeline is None:
        return []
    end = len(timeline) * timeline.bin
    return [
        f"timeline: {len(timeline)} bins of {timeline.bin:g} "
        f"time unit{'' if timeline.bin == 1 else 's'} to t = {end:g} "
        f"(`inev draw {path} --timeline -o timeline.png` draws it)"
    ]


def simulation_view(path: str, plan_file: str | None = None) -> list[Any]:
    """``inev show sim.json``: figures, per query, per node, per link (busiest first), per
    type and, given the plan, per vertex (projection and node)."""
    from inev.common.figures import summary_table
    from inev.simulator.figures import run_warnings, simulation_figures
    from inev.simulator.simulation_result import load_result

    result = load_result(path)
    out: list[Any] = [
        summary_table(simulation_figures(result), title=f"{path}: simulation"),
        *(f"warning: {w}" for w in run_warnings(result)),
        query_table(result),
        *_timeline_note(result, path),
        *_node_tables(result),
    ]
    if result.messages_by_link:
        table = rich_table("link", "messages", title="links", caption="messages: both directions")
        for key, count in sorted(result.messages_by_link.items(), key=lambda kv: -kv[1]):
            table.add_row(key.replace(" ", "-"), str(count))
        out.append(table)
    if result.messages_by_type:
        table = rich_table("type", "messages", title="messages by type")
        for name, count in sorted(result.messages_by_type.items()):
            table.add_row(name, str(count))
        out.append(table)
    if plan_file and result.messages_by_vertex:
        out.append(_vertex_table(result, path, plan_file))
    if result.changes:
        out.append(_changes_table(result))
    return out


def _node_tables(result: Any) -> list[Any]:
    """The table of the nodes' counts (none when no node counted anything)."""
    nodes = sorted(
        set(result.events_processed) | set(result.partial_matches) | set(result.reoptimizations),
        key=str,
    )
    if not nodes:
        return []
    table = rich_table(
        "node",
        "events processed",
        "partial matches",
        "re-optimisations",
        title="nodes",
        caption="counts over the whole run",
    )
    for n in nodes:
        table.add_row(
            str(n),
            str(result.events_processed.get(n, 0)),
            str(result.partial_matches.get(n, 0)),
            str(result.reoptimizations.get(n, 0)),
        )
    return [table]


def _vertex_table(result: Any, path: str, plan_file: str) -> Any:
    """Messages per vertex of the plan the result ran, named by projection alias and node."""
    from inev.planner.inev_graph import load_plan
    from inev.planner.tables import aliases

    plan = load_plan(plan_file)
    alias = aliases(plan)
    table = rich_table("vertex", "projection", "node", "messages", title="messages by vertex")
    for vid, count in sorted(result.messages_by_vertex.items()):
        try:
            v = plan.vertex(vid)
        except KeyError:
            raise InevError(f"{plan_file}: has no vertex {vid}; not the plan of {path}") from None
        table.add_row(str(vid), alias.get(v.projection, v.projection), str(v.node), str(count))
    return table


def _changes_table(result: Any) -> Any:
    """One row per change at run time: time, kinds, plan used, messages, matches lost."""
    table = rich_table(
        "time",
        "changes",
        "plan used",
        "messages before",
        "after",
        "matches lost",
        title="changes at run time",
        caption="time in time units; messages per epoch, before and after the change",
    )
    for change in result.changes:
        table.add_row(
            f"{change.get('time', '')}",
            ", ".join(str(c.get("kind", "")) for c in change.get("changes", [])),
            str(change.get("used", "")),
            str(change.get("messages_before", "")),
            str(change.get("messages_after", "")),
            _lost(change),
        )
    return table


def _lost(change: dict[str, Any]) -> str:
    """Matches lost to a change, with their causes: ``23 (state-at-down-node 17, …)``."""
    causes = change.get("lost_by_cause") or {}
    detail = ", ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda x: -x[1]) if n)
    return f"{change.get('lost', '')}" + (f" ({detail})" if detail else "")


def matches_view(path: str) -> list[Any]:
    """``inev show m.jsonl``: matches (or aggregate cells) per query, and the shedding line
    if any."""
    from inev.common.validation import validate_document
    from inev.simulator.schema import MatchLine

    counts: Counter = Counter()
    cells: Counter = Counter()
    shedding = None
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):  # bad or too deeply nested JSON
                raise InevError(f"{path}: line {number} is not JSON") from None
            if not isinstance(entry, dict):
                raise InevError(f"{path}: line {number} is not a JSON object")
            validate_document(MatchLine, entry, f"{path}: line {number}")
            if "shedding" in entry:
                shedding = entry["shedding"]
            elif "value" in entry:
                cells[entry.get("query")] += 1
            else:
                counts[entry.get("query")] += 1
    table = rich_table("query", "matches", "aggregate cells", title=f"{path}: matches")
    for q in sorted(set(counts) | set(cells), key=str):
        table.add_row(str(q), str(counts.get(q, 0)), str(cells.get(q, 0)))
    out: list[Any] = [table]
    if shedding:
        out.append(
            f"shedding {shedding.get('strategy')}: false negatives "
            f"{shedding.get('false_negatives')}, false positives {shedding.get('false_positives')}"
        )
    return out
