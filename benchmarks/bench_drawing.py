"""How long ``inev draw`` takes at 20, 200 and 2,000 nodes, and how long its page takes to draw.

    python benchmarks/bench_drawing.py [--sizes 20 200 2000] [--folder DIR] [--shots DIR]

For each size a network, a workload and an INEv plan are made with fixed seeds (the planning
is not timed; ``--folder`` keeps them, and a folder that has them reuses them), then the
drawing is built and written as the HTML page and as a PNG, timed in this process (CPU and
wall seconds, the layout included). Where a headless Chromium is on the machine
(``tests/browser.py``), the page is opened and the time its script took to draw, from its
start to the first frame, is read back (``data-draw-ms``); ``--shots`` also saves a
screenshot of each page (1600 × 1000) there.

The sizes are the issue-48 instances: 20 nodes, 6 types, 1 query of length 6 (the README's);
200 nodes, 10 types, 4 queries of length 5, node ratio 0.2; 2,000 nodes, 20 types, 6 queries
of length 5, node ratio 0.05.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

INSTANCES = {
    20: dict(out_degree=3, event_types=6, skew=1.3, node_ratio=0.5, queries=1, length=6, seed=1),
    200: dict(out_degree=3, event_types=10, skew=1.3, node_ratio=0.2, queries=4, length=5, seed=2),
    2000: dict(
        out_degree=3, event_types=20, skew=1.3, node_ratio=0.05, queries=6, length=5, seed=3
    ),
}


def instance(nodes: int, folder: Path) -> tuple[Path, Path]:
    """The network and plan files of a size (made once, then reused)."""
    from inev.planner import plan_workload, save_plan
    from inev.topologies import generate_network, load_network, save_network
    from inev.workloads import generate_workload

    net_file, plan_file = folder / f"net{nodes}.json", folder / f"plan{nodes}.json"
    if net_file.is_file() and plan_file.is_file():
        return net_file, plan_file
    p = INSTANCES.get(nodes, INSTANCES[200])
    net = generate_network(
        nodes=nodes,
        out_degree=p["out_degree"],
        event_types=p["event_types"],
        skew=p["skew"],
        node_ratio=p["node_ratio"],
        seed=p["seed"],
    )
    save_network(net, net_file)
    net = load_network(net_file)
    wl = generate_workload(
        net, queries=p["queries"], length=p["length"], selectivity=0.1, seed=p["seed"]
    )
    save_plan(plan_workload(net, wl), plan_file)
    return net_file, plan_file


def timed(work) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    work()
    return time.process_time() - cpu, time.perf_counter() - wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 200, 2000])
    parser.add_argument("--folder", type=Path, default=None)
    parser.add_argument("--shots", type=Path, default=None)
    args = parser.parse_args()
    from browser import dump_dom, marks, run

    from inev.experiments.draw import DrawOptions, draw_topology

    folder = args.folder or Path(tempfile.mkdtemp(prefix="inev-bench-drawing-"))
    folder.mkdir(parents=True, exist_ok=True)
    print("nodes  drawn as       html cpu s  wall s   png cpu s  wall s   page draws in")
    for nodes in args.sizes:
        net_file, plan_file = instance(nodes, folder)
        page = folder / f"plan{nodes}.html"
        options = DrawOptions(str(plan_file), str(net_file))

        def html(page=page, options=options):
            page.write_text(draw_topology(options).page(), encoding="utf-8")

        def png(nodes=nodes, options=options):
            draw_topology(options).save(str(folder / f"plan{nodes}.png"))

        h_cpu, h_wall = timed(html)
        p_cpu, p_wall = timed(png)
        drawn = draw_topology(options)
        import re

        groups = re.search(r"drawn as (\d+ groups)", drawn.page())
        shown = groups.group(1) if groups else f"{nodes} nodes"
        dom = dump_dom(page)
        ms = marks(dom).body.get("data-draw-ms", "?") + " ms" if dom else "no browser"
        if args.shots and dom:
            args.shots.mkdir(parents=True, exist_ok=True)
            run(page, f"--screenshot={(args.shots / f'plan{nodes}.png').resolve()}")
        print(
            f"{nodes:>5}  {shown:<13} {h_cpu:>10.2f}  {h_wall:>6.2f}  {p_cpu:>10.2f}  "
            f"{p_wall:>6.2f}   {ms}"
        )
    print(f"files in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
