"""Write tests/fixtures/reference_instances.json: the INEv authors' planner on fixed instances.

Run with a samieze/INEv snapshot (``INEV_REF_GIT`` or ``--ref-git``)::

    python benchmarks/reference_fixtures.py

The instances are the ones issue 13 quotes: 20 nodes, out-degree 3, 6 event types, node
ratio 0.5, one query of 5 types, selectivity 0.1, skew 1.1 and 1.3, seeds 1-25 (the same
seed drives the network and the workload generator). For each, the reference's transmission
ratio and its combination (projections, inputs, multi-node partitioning types) are recorded as
the reference printed them (``../shared/reference/run_reference.py``, seed 0, Kou's Steiner
trees). The tests (tests/test_reference_fixtures.py) read the file and never run the
reference: CI has no network.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
from pathlib import Path

from bench_plan_quality import run_reference

from inev.topologies.generate import generate_network
from inev.topologies.io import network_to_dict
from inev.workloads.generate import generate_workload
from inev.workloads.io import workload_to_dict

OUT = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "reference_instances.json"
SKEWS = (1.1, 1.3)
SEEDS = range(1, 26)


def build(skew: float, seed: int):
    """The network and workload of one fixture instance."""
    net = generate_network(
        nodes=20, out_degree=3, event_types=6, skew=skew, node_ratio=0.5, seed=seed
    )
    return net, generate_workload(net, queries=1, length=5, selectivity=0.1, seed=seed)


def main() -> None:
    """Run the reference on every instance and write the fixture file."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ref-git", default=os.environ.get("INEV_REF_GIT"))
    args = parser.parse_args()
    if not args.ref_git:
        raise SystemExit("error: set INEV_REF_GIT or pass --ref-git")
    revision = subprocess.run(
        ["git", f"--git-dir={args.ref_git}", "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    rows = []
    for skew in SKEWS:
        for seed in SEEDS:
            net, wl = build(skew, seed)
            result = run_reference(network_to_dict(net), workload_to_dict(wl), args.ref_git, 600)
            if "ratio" not in result:
                raise SystemExit(f"error: reference failed on skew {skew} seed {seed}: {result}")
            rows.append(
                {
                    "skew": skew,
                    "seed": seed,
                    "reference_ratio": result["ratio"],
                    "reference_central_cost": result["central_cost"],
                    "reference_combination": result["combination"],
                }
            )
            print(f"skew {skew} seed {seed}: reference ratio {result['ratio']:.6g}")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    document = {
        "source": (
            f"samieze/INEv {revision} (INEv/code), run by ../shared/reference/run_reference.py"
            " with --seed 0 and Kou's Steiner trees; regenerate with"
            " benchmarks/reference_fixtures.py"
        ),
        "instances": (
            "inev network generate --nodes 20 --out-degree 3 --event-types 6 --skew S"
            " --node-ratio 0.5 --seed N; inev workload generate --queries 1 --length 5"
            " --selectivity 0.1 --seed N"
        ),
        "rows": rows,
    }
    OUT.write_text(json.dumps(document, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
