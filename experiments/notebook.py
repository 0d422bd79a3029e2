"""inev in Jupyter: plans drawn inline, simulations and sweeps as tables and DataFrames.

Importing this module (or using ``inev.experiments.drawing`` or ``sweep_results``, the
facade's names for it) is all a notebook needs: from then on a
:class:`~inev.planner.inev_graph.Plan` shows as its drawing (the plan's own links;
:func:`drawing` with the network shows the whole topology, ``vs=`` what changes to a second
plan, ``logical=True`` the projection graph) above its figures (:mod:`inev.common.display`
holds the registry, since the planner may not import the drawing code). A
:class:`~inev.simulator.simulation_result.SimulationResult` shows its figures, matches and
latency per query and messages per type, and ``result.to_pandas()`` is one row per query.
Every object also has a one-line text form (its ``repr``).

Sweeps: :func:`sweep_results` wraps a results folder (or the outcome of
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
>>> drawing(plan, net).svg().count('id="topology"')
1
>>> drawing(plan, logical=True)
<Drawing of a projection graph: 3 boxes>
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
from inev.experiments.plot_options import DEFAULT_Y, SVG_SETTINGS
from inev.experiments.scene import Scene, network_scene, plan_scene
from inev.experiments.scene_simulation import simulation_scene
from inev.planner.inev_graph import Plan


@dataclass(frozen=True)
class Drawing:
    """A drawn :class:`~inev.experiments.scene.Scene` (or projection graph), inline or saved.

    Inline in a notebook it is SVG; saved as ``.html`` it is the interactive page ``inev
    draw`` writes. Make one with :func:`drawing`.

    Parameters
    ----------
    scene : Scene or None
    logical, pair
        See their notes below.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     page = drawing(net).save(pathlib.Path(folder, "net.html")).read_text()
    >>> page.startswith("<!DOCTYPE html>")
    True
    """

    scene: Scene | None = None
    logical: Any = None
    """A :class:`~inev.experiments.scene_logical.LogicalScene` (``logical=True``)."""
    pair: tuple[Scene, Scene] | None = None
    """The two plans of a comparison (``vs=``), drawn side by side on the page."""

    def svg(self) -> str:
        """The drawing as SVG text (no XML header, ready to inline)."""
        from inev.experiments.scene_html import inline_svg

        if self.logical is not None:
            import io

            import matplotlib.pyplot as plt

            from inev.experiments.scene_logical_figure import render_logical

            with plt.rc_context(SVG_SETTINGS):
                figure = render_logical(self.logical)
                buffer = io.StringIO()
                figure.savefig(buffer, format="svg", metadata={"Date": None})
                plt.close(figure)
            return inline_svg(buffer.getvalue())
        from inev.experiments.scene_figure import scene_svg

        assert self.scene is not None
        return inline_svg(scene_svg(self.scene))

    def page(self) -> str:
        """The interactive page (what :meth:`save` writes to ``.html``)."""
        from inev.experiments.scene_html import comparison_html, logical_html, scene_html

        if self.logical is not None:
            return logical_html(self.logical, self.scene)
        assert self.scene is not None
        if self.pair is not None:
            return comparison_html(self.scene, *self.pair)
        return scene_html(self.scene)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the drawing (.png, .svg, .pdf, or .html for the page ``inev draw`` writes)."""
        from inev.common.files import atomic_output

        target = Path(path)
        if target.suffix.lower() == ".html":
            with atomic_output(target, "w") as handle:
                handle.write(self.page())
            return target
        if self.logical is not None:
            from inev.experiments.scene_logical_figure import save_logical

            return save_logical(self.logical, target)
        from inev.experiments.scene_figure import save_scene

        assert self.scene is not None
        return save_scene(self.scene, target)

    def __repr__(self) -> str:
        if self.logical is not None:
            return f"<Drawing of a projection graph: {len(self.logical.boxes)} boxes>"
        assert self.scene is not None
        drawn = sum(1 for o in self.scene.overlays if o.links)
        return (
            f"<Drawing of a {self.scene.kind}: {len(self.scene.nodes)} nodes, "
            f"{drawn} overlays drawn; .save('x.html') writes the interactive page>"
        )

    def _repr_html_(self) -> str:
        return f'<div class="inev-drawing">{self.svg()}</div>'


def drawing(
    obj: Any,
    network: Any | None = None,
    plan: Plan | None = None,
    *,
    vs: Plan | None = None,
    logical: bool = False,
) -> Drawing:
    """A drawing of a plan, a simulation result or a network, as ``inev draw`` makes it.

    Above 300 nodes the picture groups nodes (:mod:`inev.experiments.scene_scale`).

    Parameters
    ----------
    obj : Plan, SimulationResult or Network
    network : Network, optional
        Draw on the whole topology (a simulation result needs it).
    plan : Plan, optional
        With a simulation result: names its projections and directions.
    vs : Plan, optional
        A second plan: draw what changes from ``obj`` to it.
    logical : bool
        Draw the plan's projection graph.

    Returns
    -------
    Drawing

    Examples
    --------
    The plan sends B over both links, one overlay:

    >>> from inev.planner.planning import plan_workload
    >>> from inev.workloads.workload import Query, Workload
    >>> from inev.topologies.network import Network
    >>> net = Network.build(range(3), [(0, 1), (1, 2)], {"A": (5.0, [0, 2]), "B": (0.2, [1])})
    >>> plan = plan_workload(net, Workload.build(1.0, [Query.build("q", "SEQ(B, A)")]))
    >>> drawing(plan, net)
    <Drawing of a plan: 3 nodes, 1 overlays drawn; .save('x.html') writes the interactive page>
    >>> drawing(net, logical=True)
    Traceback (most recent call last):
    inev.common.errors.InevError: vs= and logical= draw plans
    """
    from inev.simulator.simulation_result import SimulationResult
    from inev.topologies.network import Network

    if (vs is not None or logical) and not isinstance(obj, Plan):
        raise InevError("vs= and logical= draw plans")
    if isinstance(obj, Plan) and vs is not None:
        from inev.experiments.scene_diff import comparison_scenes

        difference, first, second = comparison_scenes(obj, vs, network, titles=("before", "after"))
        return Drawing(difference, pair=(first, second))
    if isinstance(obj, Plan) and logical:
        from inev.experiments.scene_logical import logical_scene

        return Drawing(plan_scene(obj, network), logical=logical_scene(obj))
    if isinstance(obj, Plan):
        return Drawing(_grouped(plan_scene(obj, network), obj))
    if isinstance(obj, SimulationResult):
        if network is None:
            raise InevError("drawing a simulation needs its network: drawing(result, network)")
        return Drawing(_grouped(simulation_scene(obj, network, plan), plan))
    if isinstance(obj, Network):
        return Drawing(_grouped(network_scene(obj), None))
    raise InevError(f"cannot draw a {type(obj).__name__}: give a plan, a simulation or a network")


draw = drawing
"""The name of :func:`drawing` before issue 48 (the facade exports ``drawing``: ``draw`` is
the command's module)."""


def _grouped(scene: Scene, plan: Plan | None) -> Scene:
    from inev.experiments.scene_scale import GROUP_ABOVE, grouped_scene, groups_of

    if len(scene.nodes) <= GROUP_ABOVE:
        return scene
    return grouped_scene(scene, *groups_of(scene, plan))


def _plan_html(plan: Plan) -> str:
    from inev.planner.figures import plan_figures

    return drawing(plan)._repr_html_() + figures_table(plan_figures(plan), f"plan ({plan.method})")


register(Plan, _plan_html)


@dataclass(frozen=True)
class SweepResults:
    """A sweep's rows with what the folder says about them: axes, plot settings.

    See the module docstring; :func:`sweep_results` makes one from a folder.

    Parameters
    ----------
    table, plot_table
        See their notes below.
    axes : tuple of str
        The sweep's axes (the summary's grid points).
    name : str

    Examples
    --------
    The median and quartiles of three runs, 0.2, 0.4 and 0.9 (linear interpolation):

    >>> import pyarrow as pa
    >>> rows = pa.table({"skew": [1.1] * 3, "method": ["inev"] * 3, "ratio": [0.2, 0.4, 0.9],
    ...                  "error": pa.array([None] * 3, pa.string())})
    >>> SweepResults(rows, ("skew",)).summary().round(9).to_dict("records")
    [{'skew': 1.1, 'method': 'inev', 'runs': 3, 'errors': 0, 'median': 0.4, 'q1': 0.3, 'q3': 0.65}]
    """

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
        y = self.plot_table.get("y", DEFAULT_Y)
        return [y] if isinstance(y, str) else list(y)

    def __repr__(self) -> str:
        axes = ", ".join(self.axes) or "none"
        return f"<SweepResults {self.name}: {self.table.num_rows} rows, axes {axes}>"

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

    def __repr__(self) -> str:
        return f"<Image: an SVG figure of {len(self.text):,} characters; .save('x.svg')>"

    def _repr_html_(self) -> str:
        from inev.experiments.scene_html import inline_svg

        return f'<div class="inev-plot">{inline_svg(self.text)}</div>'


def sweep_results(source: Any) -> SweepResults:
    """:class:`SweepResults` of a results folder, a ``results.parquet`` file, or a sweep outcome.

    An outcome (of :func:`~inev.experiments.sweep.run_sweep`) is told from a path by its
    ``table`` (rather than by its class), so this module does not import the sweep, whose
    outcome's notebook view imports this module.

    Parameters
    ----------
    source : path or SweepOutcome

    Returns
    -------
    SweepResults

    Examples
    --------
    >>> import pyarrow as pa, tempfile
    >>> from inev.experiments.results import write_results
    >>> rows = pa.table({"method": ["inev"], "error": pa.array([None], pa.string())})
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     _ = write_results(folder, rows)
    ...     found = sweep_results(folder)     # a folder without a spec: no axes
    >>> found
    <SweepResults sweep: 1 rows, axes none>
    """
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


results = sweep_results
"""The name of :func:`sweep_results` before issue 48 (``results`` is a module's name)."""
