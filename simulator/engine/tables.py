"""What ``inev match`` prints (a rich table per query and one summary line) and what
``inev show`` prints of a trace (:func:`trace_view`).

They live in the library, not in the command module, so a notebook shows the same table
and the command stays a thin wrapper (:mod:`inev.simulator.engine.match_job` runs the job).

>>> from inev.simulator.engine.match_job import MatchSummary
>>> s = MatchSummary("m.jsonl", {"q": 2}, (), {"q": 0}, {"q": 0}, 3, 0, 0, 0.5)
>>> print(summary_line(s))
match: 2 matches, 3 events (0 of unknown types ignored) in 0.50 s, 6 events/s -> m.jsonl
"""

from __future__ import annotations

from typing import Any

from inev.common.words import listing, plural
from inev.simulator.engine.match_job import MatchSummary, ShedSummary


def result_table(summary: MatchSummary | ShedSummary) -> Any:
    """Per query: matches and re-optimisations (exact run), or the reference, matches and
    false negatives and positives (shed run)."""
    from rich.table import Table

    if isinstance(summary, ShedSummary):
        table = Table("query", "reference", "matches", "false neg.", "false pos.")
        for name, f in summary.figures["queries"].items():
            cells = ("reference", "matches", "false_negatives", "false_positives")
            table.add_row(name, *(str(f[k]) for k in cells))
        return table
    table = Table("query", "matches", "reoptimizations", "plan changes")
    for name, changes in summary.plan_changes.items():
        reopt = summary.reoptimizations[name]
        table.add_row(name, str(summary.matches[name]), str(reopt), str(changes))
    for name in summary.aggregated:
        cells = plural(summary.matches[name], "aggregate cell")
        table.add_row(name, f"{cells} (GRETA)", "–", "–")
    return table


def summary_line(summary: MatchSummary | ShedSummary) -> str:
    """The one line ``inev match`` ends with: what was found, how fast, where it went."""
    if isinstance(summary, ShedSummary):
        return _shed_line(summary)
    matching = [n for n in summary.matches if n not in summary.aggregated]
    found = plural(sum(summary.matches[n] for n in matching), "match", "matches")
    if summary.aggregated:
        cells = sum(summary.matches[n] for n in summary.aggregated)
        found += ", " + plural(cells, "aggregate cell")
    dropped = f"{summary.ignored} of unknown types ignored"
    if summary.skipped:
        dropped += f", {plural(summary.skipped, 'empty line')} skipped"
    rate = summary.events / summary.seconds if summary.seconds > 0 else float("inf")
    return (
        f"match: {found}, {plural(summary.events, 'event')} ({dropped}) in "
        f"{summary.seconds:.2f} s, {rate:,.0f} events/s -> {summary.out}"
    )


def _shed_line(summary: ShedSummary) -> str:
    """The summary line of a shed run: load, errors, violations, what was shed, latency."""
    r, lat = summary.figures, summary.figures["latency"]
    return (
        f"match: shed {summary.strategy} at load {r['load']:.2f} (capacity "
        f"{r['capacity']:.4g}), false negatives {r['false_negatives']} "
        f"({r['false_negative_share']:.1%} weighted), false positives "
        f"{r['false_positives']}, bound violations {r['bound_violations']}, "
        f"shed {r['shed_partial_matches']} partial matches and {r['shed_events']} "
        f"events, latency mean {_figure(lat['mean'])} p99 {_figure(lat['p99'])} "
        f"max {_figure(lat['max'])}, "
        f"{summary.events} events in {summary.seconds:.2f}s -> {summary.out}"
    )


def _figure(value: float | None) -> str:
    """A summary figure for the terminal: four significant digits, ``n/a`` for none."""
    return "n/a" if value is None else f"{value:.4g}"


def trace_view(path: str) -> list[Any]:
    """``inev show t.csv``: events per type, with their source nodes and first and last time."""
    from inev.common.display import rich_table
    from inev.simulator.engine.trace import read_trace

    per_type: dict[str, dict[str, Any]] = {}
    for event in read_trace(path):
        entry = per_type.setdefault(
            event.type, {"count": 0, "nodes": set(), "first": event.time, "last": event.time}
        )
        entry["count"] += 1
        entry["nodes"].add(event.node)
        entry["first"] = min(entry["first"], event.time)
        entry["last"] = max(entry["last"], event.time)
    total = sum(e["count"] for e in per_type.values())
    table = rich_table(
        "type",
        "events",
        "source nodes",
        "first",
        "last",
        title=f"{path}: trace, {plural(total, 'event')}",
    )
    for name, e in sorted(per_type.items()):
        table.add_row(
            name,
            str(e["count"]),
            listing(sorted(e["nodes"], key=str), limit=20),
            f"{e['first']:g}",
            f"{e['last']:g}",
        )
    return [table]
