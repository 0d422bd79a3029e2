"""What ``inev whatif`` shows: the cases ranked by cost, a plot of the worst, the topology
with the critical links and nodes, and a one-screen summary.

The ranking (:func:`ranked`): cases that leave no network to plan on (``cost`` infinite: the
failure disconnects the network or takes every source of a type) first, then by ``cost`` (the
local repair's ratio, :mod:`inev.experiments.whatif`), highest first, ties in case order;
cases whose repair failed (``error``) last.

>>> rows = [{"case": "a", "cost": 0.2, "error": None, "task_index": 0},
...         {"case": "b", "cost": float("inf"), "error": None, "task_index": 1},
...         {"case": "c", "cost": None, "error": "boom", "task_index": 2},
...         {"case": "d", "cost": 0.3, "error": None, "task_index": 3}]
>>> [r["case"] for r in ranked(rows)]
['b', 'd', 'a', 'c']
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from inev.common.files import atomic_output

BARS = (
    ("broken_ratio", "broken (old plan)", "#9e9e9e"),
    ("local_ratio", "local repair (§6.6)", "#1f77b4"),
    ("incremental_ratio", "incremental repair", "#2ca02c"),
    ("replanned_ratio", "re-plan", "#ff7f0e"),
)
"""The bars of the ranking plot: column, legend entry, colour."""


def _rows(table: Any) -> list[dict[str, Any]]:
    return table.to_pylist() if hasattr(table, "to_pylist") else list(table)


def ranked(table: Any) -> list[dict[str, Any]]:
    """The rows of a what-if table, worst first (module docstring)."""

    def key(row: Mapping[str, Any]) -> tuple[int, float, int]:
        cost = row.get("cost")
        if row.get("error") is not None or cost is None:
            return (2, 0.0, row["task_index"])
        return (0 if math.isinf(cost) else 1, -cost, row["task_index"])

    return sorted(_rows(table), key=key)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    if math.isinf(value):
        return "inf"
    return f"{value:.4g}"


def _migration(row: Mapping[str, Any]) -> str:
    if not row.get("migration"):
        return "-"
    moved = json.loads(row["migration"])
    return " ".join(f"{k}={_fmt(v)}" for k, v in sorted(moved.items()))


def _blocked(row: Mapping[str, Any]) -> bool:
    cost = row.get("cost")
    return cost is not None and math.isinf(cost)


def _names(rows: Sequence[Mapping[str, Any]], most: int = 8) -> str:
    names = [r["case"] for r in rows[:most]]
    more = f" and {len(rows) - most} more" if len(rows) > most else ""
    return ", ".join(names) + more


def _notes(row: Mapping[str, Any]) -> str:
    if row.get("error") is not None:
        return f"failed: {row['error'][:60]}"
    words = [f"migration {_migration(row)}"] if row.get("migration") else []
    if row.get("cannot_run"):
        words.insert(0, "old plan cannot run")
    if row.get("sim_missing") is not None:
        words.append(f"simulated: {row['sim_missing']} matches missing")
    return "; ".join(words)


def summary_lines(table: Any, worst: int = 5) -> list[str]:
    """The summary ``inev whatif`` prints: counts, the cases that leave no network to plan
    on, then the ``worst`` of the others, one per line."""
    rows = ranked(table)
    blocked = [r for r in rows if _blocked(r)]
    others = [r for r in rows if not _blocked(r)]
    cannot = [r for r in others if r.get("cannot_run")]
    failed = [r for r in rows if r.get("error") is not None]
    plan_ratio = rows[0].get("plan_ratio") if rows else None
    lines = [
        f"{len(rows)} cases: {len(blocked)} leave no network to plan on, {len(cannot)} where "
        f"the old plan cannot run, {len(failed)} failed; the plan's ratio before: "
        f"{_fmt(plan_ratio)}"
    ]
    for reason in sorted({r["cannot_run"] for r in blocked}):
        lines.append(f"{reason}: {_names([r for r in blocked if r['cannot_run'] == reason])}")
    lines.append(
        f"worst {min(worst, len(others))} of the others (ratios over the changed network's "
        "centralized cost; ranked by the local repair):"
    )
    lines.append(
        f"  {'case':<18} {'broken':>10} {'local':>10} {'incr.':>10} {'re-plan':>10}  notes"
    )
    for row in others[:worst]:
        cells = " ".join(f"{_fmt(row.get(c)):>10}" for c, _, _ in BARS)
        lines.append(f"  {row['case'][:18]:<18} {cells}  {_notes(row)}".rstrip())
    return lines


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(figure: Any, out: str | os.PathLike[str]) -> Path:
    plt = _pyplot()
    target = Path(out)
    try:
        with atomic_output(target, "wb") as handle:
            figure.savefig(handle, format=target.suffix[1:].lower() or "png", dpi=110)
    finally:
        plt.close(figure)
    return target


def ranking_plot(table: Any, out: str | os.PathLike[str], worst: int = 20) -> Path:
    """Bars of the ``worst`` cases' ratios (broken, local repair, incremental repair,
    re-plan) among those that leave a network to plan on, worst at the top (the others are
    named above the bars); a plan that cannot run has no broken bar (an x at 0 marks it)."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    plt = _pyplot()
    everything = ranked(table)
    blocked = [r for r in everything if _blocked(r)]
    rows = [r for r in everything if not _blocked(r)][:worst]
    tall = 1.9 + 0.42 * max(len(rows), 1)
    figure, axis = plt.subplots(figsize=(9, tall))
    height = 0.8 / len(BARS)
    for i, row in enumerate(rows):
        y = len(rows) - 1 - i
        for j, (column, _, colour) in enumerate(BARS):
            offset = y + 0.4 - (j + 0.5) * height
            if row.get(column) is not None:
                axis.barh(offset, row[column], height=height, color=colour)
            elif column == "broken_ratio" and row.get("cannot_run"):
                axis.plot([0], [offset], marker="x", color="#b71c1c")
    handles = [Patch(color=colour, label=label) for _, label, colour in BARS]
    handles.append(Line2D([], [], marker="x", ls="", color="#b71c1c", label="old plan cannot run"))
    before = everything[0].get("plan_ratio") if everything else None
    if before is not None:
        axis.axvline(before, color="black", ls="--", lw=1)
        handles.append(Line2D([], [], color="black", ls="--", lw=1, label="the plan before"))
    axis.set_yticks(range(len(rows)), [r["case"] for r in reversed(rows)])
    axis.set_xlabel("transmission ratio (ψ / centralized cost of the changed network)")
    title = f"what if: the {len(rows)} costliest changes (by the local repair)"
    if blocked:
        title += f"\nno network to plan on after: {_names(blocked, 6)}"
    axis.set_title(title, fontsize="medium")
    figure.legend(handles=handles, loc="lower center", ncol=3, fontsize="small", frameon=False)
    figure.tight_layout(rect=(0, 0.75 / tall, 1, 1))
    return _save(figure, out)


def _case_costs(rows: Sequence[Mapping[str, Any]]) -> tuple[dict[frozenset, Any], dict[str, Any]]:
    links: dict[frozenset, Any] = {}
    nodes: dict[str, Any] = {}
    for row in rows:
        changes = json.loads(row["changes"])
        if len(changes) != 1 or row.get("error") is not None:
            continue
        change = changes[0]
        if change.get("kind") == "link-down":
            links[frozenset(map(str, change["link"]))] = row
        elif change.get("kind") == "node-down":
            nodes[str(change["node"])] = row
    return links, nodes


def _paint(row: Mapping[str, Any] | None, norm: Any, colours: Any, default: str) -> str | Any:
    """A failure's colour: red when it leaves no network, its cost's colour, or ``default``
    (not studied, or failed)."""
    cost = row.get("cost") if row else None
    if cost is None:
        return default
    return "#d32f2f" if math.isinf(cost) else colours(norm(_relative(row)))


def topology_drawing(
    table: Any,
    network: Any,
    out: str | os.PathLike[str],
    positions: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    critical: int = 5,
) -> Path:
    """The network with each single failure's cost: links and nodes coloured by the local
    repair's ratio after they fail over the plan's ratio before, those that leave no network to plan on in red, the
    ``critical`` costliest of the others thick and labelled."""
    from matplotlib import colormaps
    from matplotlib.colors import Normalize

    from inev.experiments.scene_layout import layout

    plt = _pyplot()
    rows = _rows(table)
    link_rows, node_rows = _case_costs(rows)
    where = layout(network.nodes, [(u, v) for u, v, *_ in network.links], positions)
    finite = [r for r in ranked([*link_rows.values(), *node_rows.values()]) if _finite(r)]
    costs = [_relative(r) for r in finite]
    norm = Normalize(min(costs, default=0.0), max(costs, default=1.0) or 1.0)
    colours = colormaps["viridis_r"]
    worst = {id(r) for r in finite[:critical]}
    figure, axis = plt.subplots(figsize=(9, 7))
    for u, v, *_ in network.links:
        row = link_rows.get(frozenset((str(u), str(v))))
        width = 1.0 if row is None else 4.5 if id(row) in worst else 2.0
        (x1, y1), (x2, y2) = where[u], where[v]
        colour = _paint(row, norm, colours, "#cccccc")
        axis.plot([x1, x2], [y1, y2], color=colour, lw=width, zorder=1, solid_capstyle="round")
        if id(row) in worst:
            axis.text((x1 + x2) / 2, (y1 + y2) / 2, row["case"], fontsize=7, color="#4a148c")
    for node in network.nodes:
        row = node_rows.get(str(node))
        big = row is not None and id(row) in worst
        x, y = where[node]
        axis.scatter(
            [x], [y], s=220 if big else 90, color=_paint(row, norm, colours, "#eeeeee"),
            edgecolors="#4a148c" if big else "#555555", linewidths=1.2, zorder=2,
        )  # fmt: skip
        name = (labels or {}).get(str(node), str(node))
        axis.text(x, y, f" {name}", fontsize=7, va="bottom", zorder=3)
    mapped = plt.cm.ScalarMappable(norm=norm, cmap=colours)
    label = "local repair's ratio after the failure / the plan's ratio before"
    figure.colorbar(mapped, ax=axis, shrink=0.7, label=label)
    axis.plot([], [], color="#d32f2f", lw=3, label="disconnects (no plan possible)")
    axis.plot([], [], color="black", lw=4.5, label=f"the {critical} costliest others (thick)")
    axis.legend(loc="upper left", bbox_to_anchor=(0.0, 0.0), ncol=2, fontsize="small")
    axis.set_title("what if a link or a node fails: the cost of each single failure")
    axis.set_axis_off()
    figure.tight_layout()
    return _save(figure, out)


def _relative(row: Mapping[str, Any]) -> float:
    """A failure's cost over the plan's ratio before it (the cost itself when that is 0)."""
    before = row.get("plan_ratio") or 0.0
    return row["cost"] / before if before > 0 else row["cost"]


def _finite(row: Mapping[str, Any]) -> bool:
    cost = row.get("cost")
    return cost is not None and not math.isinf(cost) and row.get("error") is None
