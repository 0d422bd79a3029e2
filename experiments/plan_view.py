"""What ``inev show plan.json`` prints: figures, placements, forwarding per input, notes, and
the keys this reader does not know.

The placements table is :func:`inev.planner.tables.placements_table` (the rows
``inev plan --explain`` lists as lines); the forwarding table reads the drawing's overlays
(:func:`inev.experiments.scene.plan_scene`), so the terminal and the drawing show the same
trees.
"""

from __future__ import annotations

import json
from typing import Any

from inev.common.display import rich_table


def plan_view(path: str) -> list[Any]:
    """``inev show plan.json``: figures, placements, forwarding per input, notes, and keys
    this reader does not know (a newer planner's additions, listed as they are)."""
    from inev.common.figures import summary_table
    from inev.common.files import read_json_document
    from inev.experiments.scene import plan_scene
    from inev.planner.figures import plan_figures
    from inev.planner.inev_graph import FORMAT, plan_from_dict, plan_to_dict
    from inev.planner.tables import placements_table

    document = read_json_document(path, FORMAT)
    plan = plan_from_dict(document, origin=path)
    out: list[Any] = [summary_table(plan_figures(plan), title=f"{path}: plan")]
    scene = plan_scene(plan, title=path)
    out.append(placements_table(plan))
    out.append(_forwarding_table(scene))
    if plan.notes:
        out.append("notes:\n" + "\n".join(f"  {n}" for n in plan.notes))
    extra = {k: v for k, v in document.items() if k not in plan_to_dict(plan)}
    if extra:
        table = rich_table("key", "value", title="other keys (not read by this version of inev)")
        for key, value in extra.items():
            text = json.dumps(value, ensure_ascii=False)
            table.add_row(key, text if len(text) <= 120 else text[:117] + "...")
        out.append(table)
    return out


def _forwarding_table(scene: Any) -> Any:
    """Per input of the plan: senders, links, the rate per link and the cost."""
    forwarding = rich_table(
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
    return forwarding
