"""pycuda.sparse.pkt_build: the packet data structure of PacketedSpMV, built with NumPy.

Rows are renumbered so that each packet's rows are consecutive (the "permuted" numbering);
packet ``p`` owns rows ``packet_base_rows[p]:packet_base_rows[p+1]``. The entries whose row and
column lie in the same packet are stored for that packet's thread block: each row goes to one
thread (so no two threads add to one ``y`` entry), and thread ``t`` of the packet reads its
``k``-th entry at ``packet_start + t + k * threads_per_packet``, so the threads of a block read
consecutive words. An entry stores its row and column relative to the packet's first row,
packed in one 32-bit word (row in the high 16 bits). Every other entry is "remaining" and goes
to a coordinate (COO) product in the permuted numbering.

Everything here runs on whole arrays, so matrices of millions of entries take seconds.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda import gpuarray
from pycuda.sparse._csr import CooArrays, CsrArrays, to_csr

INDEX_DTYPE = np.dtype(np.int32)
PACKED_INDEX_DTYPE = np.dtype(np.uint32)
MAX_PACKET_ROWS = 1 << 16  # a relative row or column has 16 bits


@dataclass(frozen=True)
class PacketLayout:
    """The host arrays of a packeted matrix (see the module docstring)."""

    new2old_fetch_indices: np.ndarray
    old2new_fetch_indices: np.ndarray
    packet_base_rows: np.ndarray
    thread_starts: np.ndarray
    thread_ends: np.ndarray
    index_array: np.ndarray
    data_array: np.ndarray
    local_row_costs: np.ndarray
    remaining_coo: CooArrays


def packet_permutation(
    dof_to_packet_nr: np.ndarray, block_count: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(new2old, old2new, packet_base_rows)``: the permuted numbering, packet by packet, each
    packet's rows in their original order."""
    parts = np.asarray(dof_to_packet_nr, dtype=np.int64)
    new2old = np.argsort(parts, kind="stable")
    old2new = np.empty_like(new2old)
    old2new[new2old] = np.arange(parts.size)
    sizes = np.bincount(parts, minlength=block_count)
    base = np.concatenate(([0], np.cumsum(sizes)))
    return (
        new2old.astype(INDEX_DTYPE),
        old2new.astype(INDEX_DTYPE),
        base.astype(INDEX_DTYPE),
    )


def split_local(
    csr: CsrArrays, dof_to_packet_nr: np.ndarray, old2new: np.ndarray
) -> tuple[np.ndarray, np.ndarray, CooArrays]:
    """``(is_local, local_row_costs, remaining_coo)``: which entries stay within a packet, how
    many such entries each (original) row has, and the others in the permuted numbering."""
    parts = np.asarray(dof_to_packet_nr)
    rows = csr.row_numbers()
    is_local = parts[rows] == parts[csr.indices]
    costs = np.bincount(rows[is_local], minlength=csr.shape[0])
    remote = ~is_local
    old2new = np.asarray(old2new, dtype=np.int64)
    remaining = CooArrays(
        csr.shape, old2new[rows[remote]], old2new[csr.indices[remote]], csr.data[remote]
    )
    return is_local, costs, remaining


def assign_threads(
    dof_to_packet_nr: np.ndarray, local_row_costs: np.ndarray, threads_per_packet: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(thread_of_row, turn_of_row)``: each row's thread (numbered across packets) and its
    place among that thread's rows.

    Within a packet, rows are dealt by decreasing cost (equal costs: higher row number first)
    to the threads in the order 0, 1, ..., T-1, T-1, ..., 1, 0, 0, 1, ...: the snake order
    evens out the threads' costs."""
    parts = np.asarray(dof_to_packet_nr, dtype=np.int64)
    costs = np.asarray(local_row_costs, dtype=np.int64)
    n, t = parts.size, int(threads_per_packet)
    rows = np.arange(n)
    dealt = np.lexsort((-rows, -costs, parts))  # the last key sorts first
    first_of_packet = np.concatenate(([0], np.cumsum(np.bincount(parts))))
    turn = np.empty(n, np.int64)
    turn[dealt] = rows - first_of_packet[parts[dealt]]
    phase = turn % (2 * t)
    offset = np.where(phase < t, phase, 2 * t - 1 - phase)
    return parts * t + offset, turn


def layout_entries(
    csr: CsrArrays,
    is_local: np.ndarray,
    thread_of_row: np.ndarray,
    turn_of_row: np.ndarray,
    old2new: np.ndarray,
    packet_base_rows: np.ndarray,
    threads_per_packet: int,
    dtype: Any,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(thread_starts, thread_ends, index_array, data_array)`` for the local entries; each
    thread takes its rows by turn, each row's entries in storage order."""
    t = int(threads_per_packet)
    block_count = packet_base_rows.size - 1
    thread_count = block_count * t
    rows = csr.row_numbers()[is_local]
    cols = csr.indices[is_local]
    values = csr.data[is_local]
    thread = np.asarray(thread_of_row, dtype=np.int64)[rows]
    order = np.lexsort((np.arange(rows.size), turn_of_row[rows], thread))
    rows, cols, values, thread = rows[order], cols[order], values[order], thread[order]

    items = np.bincount(thread, minlength=thread_count)
    packet_items = items.reshape(block_count, t).max(axis=1) if thread_count else items
    packet_start = np.concatenate(([0], np.cumsum(packet_items * t)))
    total = int(packet_start[-1])
    if total >= 2**31:
        raise ValueError("matrix too large for the packet format's 32-bit positions")
    thread_first = np.concatenate(([0], np.cumsum(items)))[:-1]

    packet = thread // t
    turn_in_thread = np.arange(rows.size) - thread_first[thread]
    position = packet_start[packet] + thread % t + turn_in_thread * t
    base = np.asarray(packet_base_rows, dtype=np.int64)[packet]
    old2new = np.asarray(old2new, dtype=np.int64)
    rel_rows = old2new[rows] - base
    rel_cols = old2new[cols] - base

    # Never empty: a zero-size GPUArray has no pointer to give the kernel.
    index_array = np.zeros(max(total, 1), PACKED_INDEX_DTYPE)
    data_array = np.zeros(max(total, 1), dtype)
    index_array[position] = (rel_rows << 16) | rel_cols
    data_array[position] = values

    all_threads = np.arange(thread_count)
    starts = packet_start[all_threads // t] + all_threads % t
    ends = starts + items * t
    return starts.astype(INDEX_DTYPE), ends.astype(INDEX_DTYPE), index_array, data_array


def build_packet_layout(
    csr: CsrArrays,
    dof_to_packet_nr: np.ndarray,
    block_count: int,
    threads_per_packet: int,
    dtype: Any,
) -> PacketLayout:
    """The whole packet data structure of ``csr`` for the packet of each row given."""
    parts = np.asarray(dof_to_packet_nr, dtype=np.int64)
    if parts.size != csr.shape[0]:
        raise ValueError("dof_to_packet_nr needs one packet number per row")
    if parts.size and (parts.min() < 0 or parts.max() >= block_count):
        raise ValueError(f"packet numbers must lie in [0, {block_count})")
    sizes = np.bincount(parts, minlength=block_count)
    if sizes.size and sizes.max() > MAX_PACKET_ROWS:
        raise ValueError(f"a packet may hold at most {MAX_PACKET_ROWS} rows")
    new2old, old2new, base = packet_permutation(parts, block_count)
    is_local, costs, remaining = split_local(csr, parts, old2new)
    thread_of_row, turn_of_row = assign_threads(parts, costs, threads_per_packet)
    starts, ends, index_array, data_array = layout_entries(
        csr, is_local, thread_of_row, turn_of_row, old2new, base, threads_per_packet, dtype
    )
    return PacketLayout(
        new2old, old2new, base, starts, ends, index_array, data_array, costs, remaining
    )


def _flatten(groups: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """The concatenation of ``groups`` and the group number of each element."""
    lengths = np.fromiter((len(g) for g in groups), np.int64, count=len(groups))
    flat = np.fromiter(itertools.chain.from_iterable(groups), np.int64, count=int(lengths.sum()))
    return flat, np.repeat(np.arange(len(groups)), lengths)


def build_pkt_data_structure(
    spmv: Any,
    packet_nr_to_dofs: Sequence[Sequence[int]],
    max_thread_costs: Any,
    old2new_fetch_indices: Any,
    csr_mat: Any,
    thread_count: int,
    thread_assignments: Sequence[Sequence[int]],
    local_row_costs: Any,
) -> None:
    """Build the packet arrays of ``csr_mat`` and set them on ``spmv`` as GPUArrays:
    ``thread_starts``, ``thread_ends``, ``index_array``, ``data_array``.

    ``packet_nr_to_dofs`` lists each packet's rows, ``thread_assignments`` each thread's rows
    in turn (``thread_count`` lists, ``spmv.threads_per_packet`` per packet), as
    ``PacketedSpMV.find_thread_assignment`` gives them; ``local_row_costs`` is checked against
    the matrix. ``max_thread_costs`` is accepted for the original's signature: the arrays are
    sized exactly here.
    """
    t = int(spmv.threads_per_packet)
    csr = to_csr(csr_mat, spmv.dtype)
    n = csr.shape[0]
    if len(thread_assignments) != thread_count or thread_count != len(packet_nr_to_dofs) * t:
        raise ValueError("thread_count must be threads_per_packet per packet, one list each")
    dofs, packet_of_dof = _flatten(packet_nr_to_dofs)
    if dofs.size != n:
        raise ValueError("packet_nr_to_dofs must name every row exactly once")
    parts = np.full(n, -1, np.int64)
    parts[dofs] = packet_of_dof
    if np.any(parts < 0):
        raise ValueError("packet_nr_to_dofs must name every row exactly once")
    assigned, thread_of_assigned = _flatten(thread_assignments)
    if assigned.size != n:
        raise ValueError("thread_assignments must name every row exactly once")
    thread_of_row = np.full(n, -1, np.int64)
    thread_of_row[assigned] = thread_of_assigned
    if np.any(thread_of_row // t != parts):
        raise ValueError("thread_assignments give a row to a thread of another packet")
    # A row's turn only has to order the rows of one thread: the position in the list does.
    turn_of_row = np.empty(n, np.int64)
    turn_of_row[assigned] = np.arange(n)

    block_count = len(packet_nr_to_dofs)
    base = np.concatenate(([0], np.cumsum(np.bincount(parts, minlength=block_count))))
    is_local, costs, _ = split_local(csr, parts, old2new_fetch_indices)
    if not np.array_equal(costs, np.asarray(local_row_costs, dtype=np.int64)):
        raise ValueError("local_row_costs do not match the matrix and its packets")
    starts, ends, index_array, data_array = layout_entries(
        csr, is_local, thread_of_row, turn_of_row, old2new_fetch_indices, base, t, spmv.dtype
    )
    spmv.thread_starts = gpuarray.to_gpu(starts)
    spmv.thread_ends = gpuarray.to_gpu(ends)
    spmv.index_array = gpuarray.to_gpu(index_array)
    spmv.data_array = gpuarray.to_gpu(data_array)
