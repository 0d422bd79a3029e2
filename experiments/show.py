"""``inev show FILE``: any inev file as tables.

What a file is follows from its ``format`` key (network, workload, plan, simulation result,
changes, sweep record), its suffix (``.jsonl`` matches, ``.csv`` traces, ``.parquet`` sweep
results or traces) or, for a folder, its sweep results. Plans and simulation results are
read through their models, so figures are named as everywhere else; keys a reader does not
know (a newer planner's additions) are listed as they are instead of being refused.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from inev.common.errors import InevError
from inev.common.help_text import examples
from inev.common.validation import validate_document
from inev.common.words import listing, plural
from inev.simulator.schema import MatchLine


@dataclass(frozen=True)
class Given:
    """The files given with the one shown: a workload's network, a simulation's plan."""

    network: str | None = None
    plan: str | None = None


def _table(*columns: str, title: str | None = None, caption: str | None = None) -> Any:
    from rich.table import Table

    return Table(*columns, title=title, title_justify="left", caption=caption)


def kind_of(path: str) -> str:
    """What ``path`` holds: a ``format`` value, ``sweep``, ``matches``, ``trace`` or ``results``."""
    p = Path(path)
    if p.is_dir():
        return "sweep"
    if not p.exists():
        raise InevError(f"{path}: no such file or folder")
    suffix = p.suffix.lower()
    if suffix == ".jsonl":
        return "matches"
    if suffix == ".csv":
        return "trace"
    if suffix in (".parquet", ".pq"):
        import pyarrow.parquet as pq

        try:
            names = pq.ParquetFile(p).schema_arrow.names
        except Exception:
            raise InevError(f"{path}: not a readable Parquet file") from None
        return "results" if "task_id" in names else "trace"
    from inev.experiments.draw import file_format

    return file_format(path)


def show_network(path: str, given: Given) -> list[Any]:
    """Summary line, event types, and the links (all of them up to 300)."""
    from inev.topologies.io import load_network
    from inev.topologies.tables import distances_text, network_table

    network = load_network(path)
    s = network.summary()
    head = (
        f"{path}: network, {plural(s['nodes'], 'node')}, {plural(s['links'], 'link')}, mean "
        f"degree {s['mean_degree']:.2f}, {distances_text(s)}"
    )
    out: list[Any] = [head, network_table(network)]
    links = network.links
    if len(links) <= 300:
        table = _table("link", "latency", title="links")
        for u, v, latency in links:
            table.add_row(f"{u}-{v}", f"{latency:g}")
        out.append(table)
    else:
        out.append(f"{len(links)} links (inev draw {path} --text lists them all)")
    return out


def show_workload(path: str, given: Given) -> list[Any]:
    """Each query with its pattern (and rates, given the network)."""
    from inev.topologies.io import load_network
    from inev.workloads.io import load_workload
    from inev.workloads.tables import workload_table

    workload = load_workload(path)
    network = load_network(given.network) if given.network else None
    if network is not None:
        workload.check_network(network, (path, given.network))
    head = (
        f"{path}: workload, {plural(len(workload.queries), 'query', 'queries')}, window "
        f"{workload.window:g} time unit{'' if workload.window == 1 else 's'}"
    )
    return [head, workload_table(workload, network)]


def show_plan(path: str, given: Given) -> list[Any]:
    """Figures, placements, forwarding per input, notes, and keys this reader does not know."""
    from inev.common.figures import summary_table
    from inev.common.files import read_json_document
    from inev.experiments.scene import plan_scene
    from inev.planner.figures import plan_figures
    from inev.planner.inev_graph import FORMAT, plan_from_dict, plan_to_dict

    document = read_json_document(path, FORMAT)
    plan = plan_from_dict(document, origin=path)
    out: list[Any] = [summary_table(plan_figures(plan), title=f"{path}: plan")]
    scene = plan_scene(plan, title=path)
    placements = _table(
        "alias",
        "projection",
        "nodes",
        "partitioned by",
        "cost",
        title="placements",
        caption="cost: the transmission cost of the projection's vertices, events per time unit",
    )
    for key, alias in _aliases(plan).items():
        vertices = plan.vertices_of(key)
        placements.add_row(
            alias,
            key,
            f"{len(vertices)}: {listing([v.node for v in vertices])}",
            plan.multi_node.get(key, ""),
            f"{sum(v.cost for v in vertices):.6g}",
        )
    out.append(placements)
    forwarding = _table(
        "input",
        "senders",
        "links",
        "rate per link",
        "cost",
        title="forwarding",
        caption="rates and costs in events per time unit",
    )
    for overlay in scene.overlays:
        if not overlay.links:  # an input used where it is made
            forwarding.add_row(overlay.name, "0", "0", f"none: {overlay.note}", "0")
            continue
        rates = sorted({round(value, 12) for _, _, value in overlay.links})
        shown = f"{rates[0]:.4g}" if len(rates) == 1 else f"{rates[0]:.4g} – {rates[-1]:.4g}"
        forwarding.add_row(
            overlay.name,
            str(len(overlay.senders)),
            str(len(overlay.links)),
            shown,
            f"{overlay.total:.6g}",
        )
    out.append(forwarding)
    if plan.notes:
        out.append("notes:\n" + "\n".join(f"  {n}" for n in plan.notes))
    extra = {k: v for k, v in document.items() if k not in plan_to_dict(plan)}
    if extra:
        table = _table("key", "value", title="other keys (not read by this version of inev)")
        for key, value in extra.items():
            text = json.dumps(value, ensure_ascii=False)
            table.add_row(key, text if len(text) <= 120 else text[:117] + "...")
        out.append(table)
    return out


def _aliases(plan: Any) -> dict[str, str]:
    from inev.experiments.scene import aliases

    return aliases(plan)


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


def show_simulation(path: str, given: Given) -> list[Any]:
    """Figures, per query, per node, per link (busiest first), per type and, given the plan,
    per vertex (projection and node)."""
    from inev.common.figures import summary_table
    from inev.simulator.figures import run_warnings, simulation_figures
    from inev.simulator.simulation_result import load_result
    from inev.simulator.tables import query_table

    result = load_result(path)
    out: list[Any] = [
        summary_table(simulation_figures(result), title=f"{path}: simulation"),
        *(f"warning: {w}" for w in run_warnings(result)),
        query_table(result),
        *_timeline_note(result, path),
    ]
    nodes = sorted(
        set(result.events_processed) | set(result.partial_matches) | set(result.reoptimizations),
        key=str,
    )
    if nodes:
        table = _table(
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
        out.append(table)
    if result.messages_by_link:
        table = _table("link", "messages", title="links", caption="messages: both directions")
        for key, count in sorted(result.messages_by_link.items(), key=lambda kv: -kv[1]):
            table.add_row(key.replace(" ", "-"), str(count))
        out.append(table)
    if result.messages_by_type:
        table = _table("type", "messages", title="messages by type")
        for name, count in sorted(result.messages_by_type.items()):
            table.add_row(name, str(count))
        out.append(table)
    if given.plan and result.messages_by_vertex:
        from inev.planner.inev_graph import load_plan

        plan = load_plan(given.plan)
        alias = _aliases(plan)
        table = _table("vertex", "projection", "node", "messages", title="messages by vertex")
        for vid, count in sorted(result.messages_by_vertex.items()):
            try:
                v = plan.vertex(vid)
            except KeyError:
                raise InevError(
                    f"{given.plan}: has no vertex {vid}; not the plan of {path}"
                ) from None
            table.add_row(str(vid), alias.get(v.projection, v.projection), str(v.node), str(count))
        out.append(table)
    if result.changes:
        table = _table(
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
        out.append(table)
    return out


def _lost(change: dict[str, Any]) -> str:
    """Matches lost to a change, with their causes: ``23 (state-at-down-node 17, …)``."""
    causes = change.get("lost_by_cause") or {}
    detail = ", ".join(f"{c} {n}" for c, n in sorted(causes.items(), key=lambda x: -x[1]) if n)
    return f"{change.get('lost', '')}" + (f" ({detail})" if detail else "")


def show_changes(path: str, given: Given) -> list[Any]:
    """One row per change: time, kind and what it changes."""
    from inev.planner.repair import load_changes

    changes = load_changes(path)
    table = _table("time", "kind", "what", title=f"{path}: {plural(len(changes), 'change')}")
    for change in changes:
        what = {k: v for k, v in change.items() if k not in ("time", "kind")}
        table.add_row(
            str(change.get("time", "")),
            str(change.get("kind", "")),
            ", ".join(f"{k} {json.dumps(v)}" for k, v in what.items()),
        )
    return [table]


def show_sweep(path: str, given: Given) -> list[Any]:
    """A sweep folder (or its spec.json): its spec, summary table and failed tasks."""
    from inev.experiments.commands import failures, summary_metrics, summary_table
    from inev.experiments.results import read_results
    from inev.experiments.sweep_folder import stored_document

    folder = Path(path) if Path(path).is_dir() else Path(path).parent
    document = stored_document(folder)
    table = read_results(folder)
    axes = list(document.get("axes", {}))
    _require_columns(table, str(folder), ["task_id", "seed", *axes])
    name = document.get("name", folder.name)
    tasks = len(set(table.column("task_id").to_pylist()))
    out: list[Any] = [
        summary_table(
            table,
            axes,
            summary_metrics(document.get("plot", {})),
            title=f"{folder}: sweep {name!r}, {plural(tasks, 'task')} with results",
        )
    ]
    failed = failures(table, axes)
    if failed:
        out.append("failed tasks:\n" + "\n".join(f"  {line}" for line in failed))
    return out


def _require_columns(table: Any, path: str, names: list[str]) -> None:
    """Refuse results that lack a column the summary needs (one line naming it)."""
    for name in names:
        if name not in table.column_names:
            raise InevError(f"{path}: no {name!r} column in the results; cannot summarise them")


def show_results(path: str, given: Given) -> list[Any]:
    """A results Parquet file on its own: summary over the parameters that vary."""
    from inev.experiments.commands import failures, summary_table
    from inev.experiments.results import read_results
    from inev.experiments.spec import DEFAULTS

    table = read_results(path)
    _require_columns(table, path, ["task_id", "seed"])
    axes = [
        k for k in DEFAULTS if k in table.column_names and len(set(table.column(k).to_pylist())) > 1
    ]
    return [
        summary_table(table, axes, ["ratio"], title=f"{path}: sweep results"),
        *(
            ["failed tasks:\n" + "\n".join(f"  {x}" for x in failures(table, axes))]
            if failures(table, axes)
            else []
        ),
    ]


def show_matches(path: str, given: Given) -> list[Any]:
    """Matches (or aggregate cells) per query, and the shedding line if any."""
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
    table = _table("query", "matches", "aggregate cells", title=f"{path}: matches")
    for q in sorted(set(counts) | set(cells), key=str):
        table.add_row(str(q), str(counts.get(q, 0)), str(cells.get(q, 0)))
    out: list[Any] = [table]
    if shedding:
        out.append(
            f"shedding {shedding.get('strategy')}: false negatives "
            f"{shedding.get('false_negatives')}, false positives {shedding.get('false_positives')}"
        )
    return out


def show_trace(path: str, given: Given) -> list[Any]:
    """Events per type: count, sources, first and last time."""
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
    table = _table(
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


VIEWS = {
    "inev-network/1": show_network,
    "inev-workload/1": show_workload,
    "inev-plan/1": show_plan,
    "inev-sim/1": show_simulation,
    "inev-changes/1": show_changes,
    "inev-sweep/1": show_sweep,
    "sweep": show_sweep,
    "results": show_results,
    "matches": show_matches,
    "trace": show_trace,
}
"""The view of each kind of file."""


@click.command(
    "show",
    epilog=examples(
        "inev show net.json",
        "inev show wl.json --network net.json",
        "inev show plan.json",
        "inev show results",
    ),
)
@click.argument("file", type=click.Path())
@click.option(
    "--network",
    "network_file",
    type=click.Path(dir_okay=False),
    help="With a workload: the network for the queries' rates.",
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False),
    help="With a simulation result: the plan it ran, to name each vertex's messages.",
)
def show_command(file: str, network_file: str | None, plan_file: str | None) -> None:
    """Print any inev file (network, workload, plan, simulation, changes, sweep results)."""
    from rich.console import Console

    kind = kind_of(file)
    view = VIEWS.get(kind)
    if view is None:
        raise InevError(f"{file}: cannot show {kind} files")
    console = Console(width=None if Console().is_terminal else int(os.environ.get("COLUMNS", 120)))
    for item in view(file, Given(network_file, plan_file)):
        if isinstance(item, str):
            console.print(item, markup=False, highlight=False)
        else:
            console.print(item)
