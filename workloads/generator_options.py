"""The settings of the synthetic workload (INEv paper §7.1) with their defaults, written
once: :func:`inev.workloads.generate.generate_workload`, ``inev workload generate`` and a
sweep task's parameters (:data:`inev.experiments.sweep_parameters.DEFAULTS`) take them from
:data:`WORKLOAD_DEFAULTS` (``tests/test_defaults.py`` fails on a second definition), and so
do the planner's functions that take a window. The paper figures' workload variants
(:mod:`inev.workloads.paper_variants`) have theirs in :data:`VARIANT_DEFAULTS`.

This module imports nothing heavy, so that the sweep's parameters and the command line's
options can name the defaults without loading the generators.

>>> WORKLOAD_DEFAULTS.length, WORKLOAD_DEFAULTS.selectivity, WORKLOAD_DEFAULTS.window
(6, 0.1, 1.0)
>>> VARIANT_DEFAULTS.operator_type, VARIANT_DEFAULTS.operator_share, VARIANT_DEFAULTS.min_length
('random', 1.0, 0)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WorkloadSettings:
    """The knobs of the synthetic workload, defaulting to the paper's single query (§7.1)."""

    queries: int = 1
    """Number of queries."""
    length: int = 6
    """Event types per query."""
    kleene: int = 0
    """KL operators per query."""
    negation: int = 0
    """NSEQ operators per query."""
    selectivity: float = 0.1
    """Selectivity scale: pairwise selectivities are drawn from [scale / 10, scale]."""
    window: float = 1.0
    """The time window of every query, in time units."""


WORKLOAD_DEFAULTS = WorkloadSettings()
"""The paper's defaults of every workload setting."""


@dataclass(frozen=True)
class VariantSettings:
    """The knobs of the paper figures' workload variants (§7.2,
    :func:`inev.workloads.paper_variants.paper_workload`), defaulting to none: the plain
    generator's workload."""

    operator_type: str = "random"
    """The type the KL child or the negated type gets: ``random`` (the generator's draw), or the
    network's type of highest (``max``) or lowest (``min``) rate (Fig. 7)."""
    operator_share: float = 1.0
    """The share of queries that carry the KL and NSEQ operators (Fig. 8a: a third)."""
    min_length: int = 0
    """> 0: each query's length is drawn uniformly from ``min_length`` to ``length`` (Fig. 8)."""


VARIANT_DEFAULTS = VariantSettings()
"""The defaults of the workload variants' settings (no variant)."""
