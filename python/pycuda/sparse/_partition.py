"""pycuda.sparse._partition: rows of a square matrix split into packets of limited size.

PacketedSpMV keeps each packet's part of ``x`` and ``y`` in shared memory, so a good split has
few entries coupling two packets (those go to the slower coordinate kernel). METIS does this
best and is used when ``pymetis`` is importable; without it, the rows are cut into contiguous
blocks of a bandwidth-reducing order (reverse Cuthill-McKee, when scipy is importable) or of
the given order, whichever cuts fewer entries.
"""

from __future__ import annotations

import numpy as np

from pycuda.sparse._csr import CsrArrays


def adjacency(csr: CsrArrays, is_symmetric: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(xadj, adjncy)``: the matrix's graph, undirected, without self-loops or repeated
    edges, as METIS takes it. ``is_symmetric`` says the sparsity pattern already is."""
    n = csr.shape[0]
    rows, cols = csr.row_numbers(), csr.indices
    if not is_symmetric:
        rows, cols = np.concatenate((rows, cols)), np.concatenate((cols, rows))
    off_diagonal = rows != cols
    # Sorted and deduplicated by hand: np.unique took 50 times as long (NumPy 2.4, 2M edges).
    edges = np.sort(rows[off_diagonal] * n + cols[off_diagonal])
    if edges.size:  # (a diagonal matrix has no edges)
        edges = edges[np.concatenate(([True], edges[1:] != edges[:-1]))]
    heads, tails = np.divmod(edges, n) if n else (edges, edges)
    xadj = np.concatenate(([0], np.cumsum(np.bincount(heads, minlength=n)))).astype(np.int64)
    return xadj, tails.astype(np.int64)


def cut_count(xadj: np.ndarray, adjncy: np.ndarray, parts: np.ndarray) -> int:
    """How many (directed) edges join rows of different packets."""
    heads = np.repeat(np.arange(xadj.size - 1), np.diff(xadj))
    return int(np.count_nonzero(parts[heads] != parts[adjncy]))


def _orderings(xadj: np.ndarray, adjncy: np.ndarray) -> list[np.ndarray]:
    n = xadj.size - 1
    orders = [np.arange(n)]
    try:
        from scipy.sparse import csr_matrix
        from scipy.sparse.csgraph import reverse_cuthill_mckee
    except ImportError:
        return orders
    graph = csr_matrix(
        (np.ones(adjncy.size, np.int8), adjncy.astype(np.int32), xadj.astype(np.int32)),
        shape=(n, n),
    )
    orders.append(np.asarray(reverse_cuthill_mckee(graph, symmetric_mode=True), np.int64))
    return orders


def contiguous_partition(xadj: np.ndarray, adjncy: np.ndarray, block_count: int) -> np.ndarray:
    """Packet number per row: ``block_count`` packets of consecutive rows of the best order
    (fewest cut edges), at most ``ceil(n / block_count)`` rows each."""
    n = xadj.size - 1
    per_block = -(-n // block_count) if n else 1
    best, best_cut = None, None
    for order in _orderings(xadj, adjncy):
        parts = np.empty(n, np.int64)
        parts[order] = np.arange(n) // per_block
        cut = cut_count(xadj, adjncy, parts)
        if best_cut is None or cut < best_cut:
            best, best_cut = parts, cut
    assert best is not None
    return best


def _metis_parts(xadj: np.ndarray, adjncy: np.ndarray, block_count: int) -> np.ndarray:
    import pymetis

    xadj, adjncy = xadj.astype(np.int32), adjncy.astype(np.int32)
    if hasattr(pymetis, "CSRAdjacency"):  # 2025.2 on; xadj= and adjncy= are deprecated there
        graph = pymetis.CSRAdjacency(xadj, adjncy)
        _, membership = pymetis.part_graph(block_count, graph)
    else:
        _, membership = pymetis.part_graph(block_count, xadj=xadj, adjncy=adjncy)
    return np.asarray(membership, dtype=np.int64)


def partition_rows(
    csr: CsrArrays, is_symmetric: bool, block_count: int, max_rows: int
) -> tuple[np.ndarray, int]:
    """``(dof_to_packet_nr, block_count)``: a packet number per row, with no packet of more
    than ``max_rows`` rows, and the number of packets (``block_count`` or more)."""
    n = csr.shape[0]
    block_count = max(1, int(block_count), -(-n // max_rows))
    xadj, adjncy = adjacency(csr, is_symmetric)
    try:
        import pymetis  # noqa: F401
    except ImportError:
        have_metis = False
    else:
        have_metis = True
    if not have_metis or block_count == 1 or adjncy.size == 0:
        return contiguous_partition(xadj, adjncy, block_count), block_count
    while True:
        parts = _metis_parts(xadj, adjncy, block_count)
        if np.bincount(parts, minlength=block_count).max() <= max_rows:
            return parts, block_count
        # METIS balances only approximately; more, smaller packets make room.
        block_count = int(2 + 1.05 * block_count)
