"""The settings of the synthetic event network (INEv paper §7.1) with their defaults, written
once: :func:`inev.topologies.generate.generate_network`, ``inev network generate``, the trace
generator's network knobs and a sweep task's parameters
(:data:`inev.experiments.sweep_parameters.DEFAULTS`) all take them from
:data:`NETWORK_DEFAULTS` (``tests/test_defaults.py`` fails on a second definition).

This module imports nothing heavy, so that the sweep's parameters and the command line's
options can name the defaults without loading the generators.

>>> NETWORK_DEFAULTS.nodes, NETWORK_DEFAULTS.out_degree, NETWORK_DEFAULTS.topology
(20, 3.0, 'degree')
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class NetworkSettings:
    """The knobs of the synthetic event network, defaulting to the paper's (§7.1)."""

    nodes: int = 20
    """Number of nodes."""
    out_degree: float = 3.0
    """Mean node degree of the topology."""
    event_types: int = 6
    """Number of event types."""
    skew: float = 1.3
    """Zipf exponent of the types' rates (> 1)."""
    node_ratio: float = 0.5
    """Share of the event types each node generates."""
    topology: str = "degree"
    """Topology kind (:data:`inev.topologies.generate.TOPOLOGIES`)."""


NETWORK_DEFAULTS = NetworkSettings()
"""The paper's defaults of every network setting."""
