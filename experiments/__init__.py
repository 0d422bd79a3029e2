"""INEv's experiments (paper §7): parameter sweeps, their Parquet results, plots and reports.

Public API (imported on first use: ``inev --help`` loads neither Spark nor pyarrow):

``parse_spec(document) -> SweepSpec``, ``load_spec(path)``, ``SweepSpec``, ``METHODS``
    A sweep: base configuration, axes, methods, seeds (:mod:`inev.experiments.spec`; the
    keys are those of a sweep TOML file, docs/spec-extensions.md).
``run_sweep(spec, folder, master="local[*]", ...) -> SweepOutcome``
    Run it on Spark, or in this process with ``master="serial"``, into ``folder``
    (``results.parquet``; finished tasks are skipped on a re-run) (:mod:`inev.experiments.sweep`).
``read_results(path)``
    A results table (a folder or its ``results.parquet``) as a pyarrow table.
``drawing(obj, network=None, plan=None, *, vs=None, logical=False) -> Drawing``
    ``inev draw`` in a notebook: inline SVG, ``.save("x.html")`` for the interactive page
    (:mod:`inev.experiments.notebook`; using it makes plans draw themselves in Jupyter).
``sweep_results(folder_or_outcome) -> SweepResults``
    A sweep's rows with its summary (``.summary()``) and plot (``.plot()``).
``inev.experiments.measure.measure(config, seed, methods)``
    One task's figures per method: the network, workload, plans and (with ``simulate``) a
    simulation of a configuration. Not re-exported here: the name is its module's, and
    importing the module would rebind it on this package.

Examples
--------
>>> import tempfile
>>> from inev.experiments import parse_spec, read_results, run_sweep
>>> spec = parse_spec({"seeds": 1, "methods": ["inev", "centralized"],
...                    "base": {"nodes": 8, "event_types": 3, "length": 3},
...                    "axes": {"skew": [1.1, 1.9]}})
>>> folder = tempfile.mkdtemp()
>>> outcome = run_sweep(spec, folder, master="serial")
>>> outcome.ran, outcome.table.num_rows        # 2 tasks, one row per method
(2, 4)
>>> rows = read_results(folder).select(["skew", "method", "ratio"]).to_pylist()
>>> [(r["skew"], r["method"], round(r["ratio"], 6)) for r in rows if r["method"] == "centralized"]
[(1.1, 'centralized', 1.0), (1.9, 'centralized', 1.0)]
"""

from typing import TYPE_CHECKING

from inev.common.facade import lazy_exports

_EXPORTS = {
    "METHODS": "inev.experiments.spec",
    "SweepSpec": "inev.experiments.spec",
    "load_spec": "inev.experiments.spec",
    "parse_spec": "inev.experiments.spec",
    "SweepOutcome": "inev.experiments.sweep",
    "run_sweep": "inev.experiments.sweep",
    "read_results": "inev.experiments.results",
    "Drawing": "inev.experiments.notebook",
    "drawing": "inev.experiments.notebook",
    "SweepResults": "inev.experiments.notebook",
    "sweep_results": "inev.experiments.notebook",
}
__all__ = [
    "METHODS",
    "Drawing",
    "SweepOutcome",
    "SweepResults",
    "SweepSpec",
    "drawing",
    "load_spec",
    "parse_spec",
    "read_results",
    "run_sweep",
    "sweep_results",
]
__getattr__, __dir__ = lazy_exports(globals(), _EXPORTS)

if TYPE_CHECKING:  # what type checkers and editors see; at run time the names load lazily
    from inev.experiments.notebook import Drawing, SweepResults, drawing, sweep_results
    from inev.experiments.results import read_results
    from inev.experiments.spec import METHODS, SweepSpec, load_spec, parse_spec
    from inev.experiments.sweep import SweepOutcome, run_sweep
