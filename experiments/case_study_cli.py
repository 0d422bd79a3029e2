"""``inev case-study``: a thin command over :mod:`inev.experiments.case_study`."""

from __future__ import annotations

import click

from inev.common.errors import InevError
from inev.common.help_text import examples

SEEDS = 5
"""Topologies per query file: the paper's one topology is not published."""


@click.command(
    "case-study",
    epilog=examples(
        "git clone https://github.com/samieze/INEv && "
        "inev case-study INEv/DCEP_Engine/inputexamples",
        "inev case-study INEv/DCEP_Engine/inputexamples --seeds 10 -o table3.md",
        then="Prints (or writes with -o) Table 3 of the INEv paper beside inev's ratios.",
    ),
)
@click.argument("traces", type=click.Path(file_okay=False))
@click.option(
    "--seeds",
    type=int,
    default=SEEDS,
    show_default=True,
    help="Generated topologies per query (seeds 0 .. N-1).",
)
@click.option("-o", "--out", type=click.Path(dir_okay=False), help="Write the table as Markdown.")
def case_study_command(traces: str, seeds: int, out: str | None) -> None:
    """Plan the INEv paper's case study (Table 3) on the authors' published traces."""
    from inev.common.files import atomic_output
    from inev.common.paths import check_paths
    from inev.experiments.case_study import case_study, table_lines

    if seeds < 1:
        raise InevError(f"--seeds must be at least 1, got {seeds}")
    check_paths({"traces": traces}, out, folders=("traces",))
    rows = case_study(traces, range(seeds), progress=lambda line: click.echo(line, err=True))
    lines = table_lines(rows)
    if out is None:
        click.echo("\n".join(lines))
        return
    with atomic_output(out) as handle:
        handle.write("\n".join(lines) + "\n")
    click.echo(f"case-study: {len(rows)} query files, written to {out}")
