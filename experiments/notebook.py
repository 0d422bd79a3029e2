"""inev in Jupyter: plans drawn inline, simulations and sweeps as tables and DataFrames.

Importing this module is all a notebook needs: from then on a :class:`~inev.planner.inev_graph.Plan`
shows as its drawing (the plan's own links; :func:`draw` with the network shows the whole
topology) above its figures (:mod:`inev.common.display` holds the registry, since the
planner may not import the drawing code). A
:class:`~inev.simulator.simulation_result.SimulationResult` shows its figures, matches and
latency per query and messages per type, and ``result.to_pandas()`` is one row per query.

Sweeps: :func:`results` wraps a results folder (or the outcome of
:func:`~inev.experiments.sweep.run_sweep`) as :class:`SweepResults`: ``.frame`` is every row
as a pandas DataFrame, ``.summary()`` the median and quartiles per grid point and method,
``.plot()`` the figure ``inev plot`` draws (inline, or saved with ``.save(path)``), and the
object itself shows as the summary table above the plot.

>>> from inev.topologies.network import Network
>>> from inev.workloads.workload import Query, Workload
>>> from inev.planner.planning import plan_workload
>>> net = Network.build([0, 1, 2], [(0, 1), (1, 2)], {"A": (1.0, [0]), "B": (2.0, [2])})
>>> plan = plan_workload(net, Workload.build(1.0, [Query.build("q", "SEQ(A, B)")]))
>>> page = plan._repr_html_()
>>> page.count("<svg") == 1 and "transmission cost" in page
True
>>> draw(plan, net).svg().count('id="topology"')
1
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inev.common.display import escape, figures_table, register
from inev.common.errors import InevError
from inev.experiments.columns import axis_label, method_name
from inev.experiments.scene import Scene, network_scene, plan_scene, simulation_scene
from inev.planner.inev_graph import Plan


@dataclass(frozen=True)
class Drawing:
    """A drawn :class:`~inev.experiments.scene.Scene`: inline in a notebook, or saved."""

    scene: Scene

    def svg(self) -> str:
        """The drawing as SVG text (no XML header, ready to inline)."""
        from inev.experiments.scene_figure import scene_svg
        from inev.experiments.scene_html import inline_svg

        return inline_svg(scene_svg(self.scene))

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the drawing (.png, .svg, .pdf, or .html for the page ``inev draw`` writes)."""
        from inev.common.files import atomic_output

        target = Path(path)
        if target.suffix.lower() == ".html":
            from inev.experiments.scene_html import scene_html

            with atomic_output(target, "w") as handle:
                handle.write(scene_html(self.scene))
            return target
        from inev.experiments.scene_figure import save_scene

        return save_scene(self.scene, target)

    def _repr_html_(self) -> str:
        return f'<div class="inev-drawing">{self.svg()}</div>'


def draw(obj: Any, network: Any | None = None, plan: Plan | None = None) -> Drawing:
    """A drawing of a plan, a simulation result (needs ``network``; ``plan`` names its
    projections and directions) or a network, as ``inev draw`` makes it."""
    from inev.simulator.simulation_result import SimulationResult
    from inev.topologies.network import Network

    if isinstance(obj, Plan):
        return Drawing(plan_scene(obj, network))
    if isinstance(obj, SimulationResult):
        if network is None:
            raise InevError("drawing a simulation needs its network: draw(result, network)")
        return Drawing(simulation_scene(obj, network, plan))
    if isinstance(obj, Network):
        return Drawing(network_scene(obj))
    raise InevError(f"cannot draw a {type(obj).__name__}: give a plan, a simulation or a network")


def _plan_html(plan: Plan) -> str:
    from inev.planner.figures import plan_figures

    return draw(plan)._repr_html_() + figures_table(plan_figures(plan), f"plan ({plan.method})")


register(Plan, _plan_html)


@dataclass(frozen=True)
class SweepResults:
    """A sweep's rows with what the folder says about them: axes, plot settings (module
    docstring)."""

    table: Any
    """The rows (a ``pyarrow.Table``, the ``results.parquet`` schema)."""
    axes: tuple[str, ...] = ()
    plot_table: dict[str, Any] = field(default_factory=dict)
    """The sweep's ``[plot]`` table (what ``inev plot`` draws by default)."""
    name: str = "sweep"

    @property
    def frame(self) -> Any:
        """Every row as a pandas DataFrame."""
        return self.table.to_pandas()

    def metrics(self) -> list[str]:
        """The metrics the sweep plots (its ``[plot] y``; the ratio when it names none)."""
        y = self.plot_table.get("y", "ratio")
        return [y] if isinstance(y, str) else list(y)

    def summary(self, metric: str | None = None) -> Any:
        """Median and quartiles of ``metric`` (the first plotted one by default) per grid
        point and method, with runs and errors, as a DataFrame."""
        import pandas as pd

        from inev.experiments.results import summarise

        chosen = metric or self.metrics()[0]
        if chosen not in self.table.column_names:
            raise InevError(f"results have no column {chosen!r}")
        rows = summarise(self.table, self.axes, chosen)
        frame = pd.DataFrame(
            rows, columns=[*self.axes, "method", "runs", "errors", "median", "q1", "q3"]
        )
        return frame.sort_values([*self.axes, "method"], ignore_index=True)

    def plot(self, **options: Any) -> Image:
        """The sweep's figure (the folder's ``[plot]`` table, ``options`` on top; see
        :class:`~inev.experiments.plot.PlotOptions`)."""
        from inev.experiments.plot import PlotOptions, plot

        defaults = dict(self.plot_table)
        defaults.setdefault("x", self.axes[0] if self.axes else None)
        if len(self.axes) > 1:
            defaults.setdefault("lines", self.axes[1])
        chosen = PlotOptions.from_table(defaults, **options)
        with tempfile.TemporaryDirectory(prefix="inev-plot-") as folder:
            path = plot(self.table, Path(folder) / "plot.svg", chosen)
            return Image(path.read_text(encoding="utf-8"))

    def _repr_html_(self) -> str:
        metric = self.metrics()[0]
        summary = self.summary(metric)
        summary["method"] = summary["method"].map(method_name)
        head = (
            f"<p><b>{escape(self.name)}</b>: {self.table.num_rows} rows; "
            f"{escape(axis_label(metric))} per grid point and method</p>"
        )
        table = summary.to_html(index=False, na_rep="–", float_format=lambda v: f"{v:.3g}")
        return head + table + self.plot()._repr_html_()


@dataclass(frozen=True)
class Image:
    """An SVG figure: inline in a notebook, or saved."""

    text: str

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the SVG to ``path``."""
        from inev.common.files import atomic_output

        with atomic_output(path, "w") as handle:
            handle.write(self.text)
        return Path(path)

    def _repr_html_(self) -> str:
        from inev.experiments.scene_html import inline_svg

        return f'<div class="inev-plot">{inline_svg(self.text)}</div>'


def results(source: Any) -> SweepResults:
    """:class:`SweepResults` of a results folder, a ``results.parquet`` file, or the outcome
    of :func:`~inev.experiments.sweep.run_sweep`.

    An outcome is told from a path by its ``table`` (rather than by its class), so this module
    does not import the sweep, whose outcome's notebook view imports this module."""
    from inev.experiments.results import read_results
    from inev.experiments.sweep_folder import stored_document

    if hasattr(source, "table") and hasattr(source, "path"):
        folder = source.path.parent if source.path.name in ("results.parquet", "parts") else None
        table = source.table
    else:
        folder = Path(source) if Path(source).is_dir() else None
        table = read_results(source)
    document = stored_document(folder) if folder is not None else {}
    axes = tuple(document.get("axes", {}))
    return SweepResults(
        table, axes, dict(document.get("plot", {})), str(document.get("name", "sweep"))
    )
