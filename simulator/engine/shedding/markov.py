"""Completion probability of a partial match by a Markov chain (pSPICE paper §III-C1).

States are the pattern's partial-match states plus an absorbing *complete* state (index 0
here). ``P[s, s']`` is the probability that one processed event moves a partial match from
``s`` to ``s'``, learned from observed transitions (:func:`transition_matrix`). The
completion probability with ``m`` events left in the window is ``(P^m)[s, complete]`` (eq. 3);
:func:`completion_table` keeps it for every bin of ``bin_size`` events and
:func:`interpolate` reads it between bins linearly.

For SEQ(A, B, C) over a uniform random stream of A, B, C (the paper's Figure 3), a partial
match that has seen A and B completes within one event with probability 1/3:

>>> import numpy as np
>>> P = np.array([[1, 0, 0, 0], [0, 2/3, 1/3, 0], [0, 0, 2/3, 1/3], [1/3, 0, 0, 2/3]])
>>> table = completion_table(P, max_events=2, bin_size=1)
>>> round(float(table[3, 1]), 6), round(float(table[3, 2]), 6)
(0.333333, 0.555556)
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

COMPLETE = 0


def transition_matrix(
    states: int, exposure: Mapping[int, float], moves: Mapping[tuple[int, int], float]
) -> np.ndarray:
    """Row-stochastic ``P`` from ``exposure[s]`` (partial-match × event observations in
    ``s``) and ``moves[(s, t)]`` (how many of them moved to ``t``); the rest stay in ``s``.
    State 0 (complete) is absorbing; an unobserved state stays put."""
    P = np.zeros((states, states))
    out: dict[int, list[tuple[int, float]]] = {}  # each state's moves, in the moves' order
    for (a, t), count in moves.items():
        if t != a:
            out.setdefault(a, []).append((t, count))
    for s in range(states):
        seen = float(exposure.get(s, 0.0))
        left = 1.0
        if s != COMPLETE and seen > 0:
            for t, count in out.get(s, ()):
                p = min(count / seen, left)
                P[s, t] += p
                left -= p
        P[s, s] += left
    return P


def completion_table(P: np.ndarray, max_events: int, bin_size: int) -> np.ndarray:
    """``table[s, j] = (P^(j·bin_size))[s, complete]`` for ``j = 0 … ceil(max/bin)``."""
    bins = -(-max(int(max_events), 0) // bin_size)
    step = np.linalg.matrix_power(P, bin_size)
    table = np.empty((P.shape[0], bins + 1))
    column = np.zeros(P.shape[0])
    column[COMPLETE] = 1.0
    table[:, 0] = column
    for j in range(1, bins + 1):
        column = step @ column
        table[:, j] = column
    return table


def interpolate(table: np.ndarray, state: int, events: float, bin_size: int) -> float:
    """``table`` read at ``events`` remaining events, linear between bins (clamped)."""
    x = min(max(events / bin_size, 0.0), table.shape[1] - 1)
    j = int(x)
    if j >= table.shape[1] - 1:
        return float(table[state, -1])
    frac = x - j
    return float(table[state, j] * (1 - frac) + table[state, j + 1] * frac)
