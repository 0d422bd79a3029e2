"""Byte-identity check of sweep rows: 20 sweep tasks measured with simulation (10 plain,
10 with an overload and pSPICE shedding; seeds 1-10; methods inev and centralized) through
:func:`inev.experiments.measure.measure`, their rows dumped as JSON without the figures that
time the run (keys naming seconds). Compare two checkouts' outputs with ``cmp``.

Run: ``python benchmarks/sweep_snapshot.py OUT.json``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from inev.experiments.measure import measure
from inev.experiments.spec import DEFAULTS

SMALL = dict(
    DEFAULTS, nodes=7, skew=3.0, length=3, selectivity=0.5, simulate=True, duration=5.0,
    sim_rate=40.0,
)  # fmt: skip


def main() -> None:
    """Write the rows to the path given."""
    rows = {}
    for seed in range(1, 11):
        for name, config in (
            ("plain", dict(SMALL)),
            ("overload", dict(SMALL, overload=1.5, latency_bound=0.5, shed="pspice")),
        ):
            measured = measure(config, seed, ("inev", "centralized"))
            rows[f"{name}-{seed}"] = {
                method: {k: v for k, v in row.items() if "seconds" not in k}
                for method, row in measured.items()
            }
    Path(sys.argv[1]).write_text(json.dumps(rows, indent=0, default=str) + "\n")
    print(f"{len(rows)} tasks written to {sys.argv[1]}")


if __name__ == "__main__":
    main()
