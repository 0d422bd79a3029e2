"""Utility of partial matches and the utility table (pSPICE paper §III-B, §III-C3).

``U(pm) = weight × completion probability / remaining processing time`` (eq. 1). The two
factors have different units, so (as the paper asks) they are brought to one scale first:
the remaining time is divided by its mean over the table's positive entries, the
probability is kept as is. A partial match that cannot complete has utility 0 whatever its
cost. The table holds one row per state and one column per bin of remaining events;
:meth:`UtilityTable.lookup` reads one cell pair and interpolates (O(1) per partial match).

>>> import numpy as np
>>> t = UtilityTable.build(2.0, np.array([[0, 0], [0, 0.5]]), np.array([[0, 0], [0, 2.0]]), 10)
>>> t.lookup(1, 10.0), t.lookup(1, 5.0)
(1.0, 0.5)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

TIME_FLOOR = 1e-3  # remaining time below this share of the mean counts as this share


@dataclass(frozen=True)
class UtilityTable:
    """Utilities ``values[state, bin]`` of one pattern; ``bin_size`` events per column."""

    values: np.ndarray
    bin_size: int

    @classmethod
    def build(
        cls,
        weight: float,
        completion: np.ndarray,
        remaining: np.ndarray,
        bin_size: int,
        use_time: bool = True,
        scale: float | None = None,
    ) -> UtilityTable:
        """Combine completion-probability and remaining-time tables of equal shape
        (``use_time=False``: the paper's pSPICE-- ablation, eq. 1's denominator is 1);
        ``scale``: the time unit (default: the mean of the table's positive remaining
        times; the node's patterns share one when their costs are compared, pSPICE Fig. 7).

        >>> c, r = np.array([[0.0, 0.5]]), np.array([[0.0, 4.0]])
        >>> UtilityTable.build(1.0, c, r, 1, use_time=False).values.tolist()
        [[0.0, 0.5]]
        >>> UtilityTable.build(1.0, c, r, 1, scale=2.0).values.tolist()  # 0.5 / (4 / 2)
        [[0.0, 0.25]]
        """
        if not use_time:
            return cls(weight * np.clip(completion, 0.0, 1.0), int(bin_size))
        if scale is None:
            positive = remaining[remaining > 0]
            scale = float(positive.mean()) if positive.size else 1.0
        time = np.maximum(remaining / scale, TIME_FLOOR)
        values = weight * np.clip(completion, 0.0, 1.0) / time
        return cls(values, int(bin_size))

    def lookup(self, state: int, events: float) -> float:
        """Utility of a partial match in ``state`` with ``events`` events left."""
        row = self.values[state]
        x = min(max(events / self.bin_size, 0.0), row.shape[0] - 1)
        j = int(x)
        if j >= row.shape[0] - 1:
            return float(row[-1])
        frac = x - j
        return float(row[j] * (1 - frac) + row[j + 1] * frac)

    def lookup_many(self, state: int, events: np.ndarray) -> np.ndarray:
        """:meth:`lookup` for an array of remaining-event counts (one state)."""
        row = self.values[state]
        x = np.clip(events / self.bin_size, 0.0, row.shape[0] - 1)
        j = np.minimum(x.astype(np.int64), row.shape[0] - 2) if row.shape[0] > 1 else None
        if j is None:
            return np.full(events.shape, row[0])
        frac = x - j
        return row[j] * (1 - frac) + row[j + 1] * frac

    def lookup_states(self, states: np.ndarray, events: np.ndarray) -> np.ndarray:
        """:meth:`lookup_many` for partial matches of several states at once (element by
        element the same figures: the same operations on each one).

        Parameters
        ----------
        states : numpy.ndarray
            The state (row) of each partial match, integers below ``values.shape[0]``.
        events : numpy.ndarray
            Its events left, of the same shape.

        Returns
        -------
        numpy.ndarray
            Its utility.

        Examples
        --------
        >>> t = UtilityTable(np.array([[0.0, 0.0], [0.0, 1.0]]), 10)
        >>> t.lookup_states(np.array([1, 0, 1]), np.array([10.0, 10.0, 5.0])).tolist()
        [1.0, 0.0, 0.5]
        """
        cols = self.values.shape[1]
        if cols == 1:
            return self.values[states, 0]
        # np.clip's figures, without its wrapper's cost
        x = np.minimum(np.maximum(events / self.bin_size, 0.0), cols - 1)
        j = np.minimum(x.astype(np.int64), cols - 2)
        frac = x - j
        at = states * cols + j  # into the table's values row by row
        flat = self.values.ravel()
        return flat[at] * (1 - frac) + flat[at + 1] * frac
