"""Expected matches and remaining work of partial matches (pSPICE paper §III-C2, generalised).

The paper solves a Markov reward process: ``reward[s]`` is the work one processed event
costs a partial match in state ``s`` and ``P`` its transition matrix, and value iteration
``R_m = reward + P·R_{m-1}`` (``R_0 = 0``) gives the expected work until the window ends
with ``m`` events left. In a tree plan under skip-till-any-match a partial match does not
move: it stays in its buffer and *spawns* extensions (:mod:`.pspice_model`), so the
iteration runs over ``I + G`` with ``G`` the spawn rates, for the expected matches as well
as the expected work. The paper's chain is the special case ``G = P - I`` (a partial match
that leaves its state). Results are kept for every bin of ``bin_size`` events, as the
completion probability of :mod:`.markov`.
"""

from __future__ import annotations

import numpy as np

from inev.simulator.engine.shedding.markov import COMPLETE


def branching_table(
    spawn: np.ndarray, per_match: np.ndarray, per_work: np.ndarray, max_events: int, bin_size: int
) -> tuple[np.ndarray, np.ndarray]:
    """Expected matches and work of a partial match that stays in its buffer and spawns.

    Per event a partial match in state ``s`` completes ``per_match[s]`` matches, costs
    ``per_work[s]`` work units and spawns ``spawn[s, t]`` partial matches of state ``t``
    (which have the same events left, as their earliest event is its own). With ``m``
    events left: ``V_m = μ + (I + G) V_{m-1}``, ``W_m = w + (I + G) W_{m-1}``, ``V_0 =
    W_0 = 0`` (:mod:`.pspice_model`). Kept every ``bin_size`` events, as the other tables;
    values are capped at 1e300 (a Kleene trend's spawns double).

    >>> import numpy as np
    >>> G = np.array([[0.0, 0.0], [0.0, 0.0]])
    >>> v, w = branching_table(G, np.array([0.0, 0.5]), np.array([0.0, 2.0]), 2, 1)
    >>> v[1].tolist(), w[1].tolist()
    ([0.0, 0.5, 1.0], [0.0, 2.0, 4.0])
    """
    n = len(per_match)
    step = np.eye(n) + spawn
    step[COMPLETE] = 0.0
    mu = np.array(per_match, dtype=float)
    w = np.array(per_work, dtype=float)
    mu[COMPLETE] = w[COMPLETE] = 0.0
    bins = -(-max(int(max_events), 0) // bin_size)
    value = np.zeros((n, bins + 1))
    cost = np.zeros((n, bins + 1))
    v = np.zeros(n)
    c = np.zeros(n)
    for m in range(1, bins * bin_size + 1):
        v = np.minimum(mu + step @ v, 1e300)
        c = np.minimum(w + step @ c, 1e300)
        if m % bin_size == 0:
            value[:, m // bin_size] = v
            cost[:, m // bin_size] = c
    return value, cost
