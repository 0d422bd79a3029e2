"""Expected remaining processing time by a Markov reward process (pSPICE paper §III-C2).

``reward[s]`` is the mean work one processed event costs a partial match in state ``s``
(observed: pairs its buffer contributed to joins per partial match and event). Value
iteration with the Bellman equation ``R_m = reward + P·R_{m-1}``, ``R_0 = 0``, gives the
expected work until the window ends when ``m`` events are left; the complete state earns
nothing. Results are kept for every bin of ``bin_size`` events, as for the completion
probability.

>>> import numpy as np
>>> P = np.array([[1.0, 0.0], [0.5, 0.5]])
>>> remaining_time_table(P, np.array([0.0, 2.0]), max_events=2, bin_size=1)[1].tolist()
[0.0, 2.0, 3.0]
"""

from __future__ import annotations

import numpy as np

from inev.simulator.engine.shedding.markov import COMPLETE


def remaining_time_table(
    P: np.ndarray, reward: np.ndarray, max_events: int, bin_size: int
) -> np.ndarray:
    """``table[s, j]`` = expected remaining work of a partial match in ``s`` with
    ``j·bin_size`` events left (value iteration)."""
    r = np.array(reward, dtype=float)
    r[COMPLETE] = 0.0
    bins = -(-max(int(max_events), 0) // bin_size)
    table = np.empty((P.shape[0], bins + 1))
    value = np.zeros(P.shape[0])
    table[:, 0] = value
    for m in range(1, bins * bin_size + 1):
        value = r + P @ value
        if m % bin_size == 0:
            table[:, m // bin_size] = value
    return table
