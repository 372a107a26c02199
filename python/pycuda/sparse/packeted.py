"""pycuda.sparse.packeted: ``y += A x`` for a square sparse matrix in the packet format.

The rows are split into packets (see :mod:`pycuda.sparse.pkt_build`); one thread block per
packet keeps the packet's part of ``x`` and ``y`` in shared memory while it adds the entries
within the packet, and a :class:`~pycuda.sparse.coordinate.CoordinateSpMV` adds the rest.
Vectors live in the permuted numbering: :meth:`PacketedSpMV.permute` takes a vector there and
:meth:`PacketedSpMV.unpermute` brings it back.

    import numpy as np
    import pycuda.autoinit
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.packeted import PacketedSpMV

    a = np.diag(np.arange(1, 5, dtype=np.float32)) + np.eye(4, k=1, dtype=np.float32)
    spmv = PacketedSpMV(a, False, np.float32)     # or any scipy.sparse matrix
    x = gpuarray.to_gpu(np.ones(4, np.float32))
    y = spmv.unpermute(spmv(spmv.permute(x)))      # a @ 1: [2, 3, 4, 4]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule
from pycuda.sparse import pkt_build
from pycuda.sparse._csr import to_csr
from pycuda.sparse._partition import partition_rows
from pycuda.sparse.coordinate import CoordinateSpMV, check_value_dtype, check_vector
from pycuda.tools import DeviceData, dtype_to_ctype

# Each thread owns whole rows, so its adds to the shared y never race with another thread's.
# The original's name and %-keys (its index_type/packed_index_type keys are int/unsigned here).
PKT_KERNEL_TEMPLATE = r"""
typedef %(value_type)s value_type;
#define ROWS_PER_PACKET %(rows_per_packet)d
#define THREADS_PER_PACKET %(threads_per_packet)d

extern "C" __global__ void __launch_bounds__(THREADS_PER_PACKET)
spmv_pkt_kernel(const int *__restrict__ packet_base_rows, const int *__restrict__ thread_starts,
                const int *__restrict__ thread_ends, const unsigned *__restrict__ index_array,
                const value_type *__restrict__ data_array, const value_type *__restrict__ x,
                value_type *__restrict__ y)
{
    __shared__ value_type x_packet[ROWS_PER_PACKET];
    __shared__ value_type y_packet[ROWS_PER_PACKET];

    const int first_row = packet_base_rows[blockIdx.x];
    const int row_count = packet_base_rows[blockIdx.x + 1] - first_row;
    for (int r = threadIdx.x; r < row_count; r += THREADS_PER_PACKET) {
        x_packet[r] = x[first_row + r];
        y_packet[r] = y[first_row + r];
    }
    __syncthreads();

    const int thread = blockIdx.x * THREADS_PER_PACKET + threadIdx.x;
    const int end = thread_ends[thread];
    for (int pos = thread_starts[thread]; pos < end; pos += THREADS_PER_PACKET) {
        const unsigned packed = index_array[pos];
        y_packet[packed >> 16] += data_array[pos] * x_packet[packed & 0xffffu];
    }
    __syncthreads();

    for (int r = threadIdx.x; r < row_count; r += THREADS_PER_PACKET)
        y[first_row + r] = y_packet[r];
}
"""


def pkt_kernel_source(dtype: Any, rows_per_packet: int, threads_per_packet: int) -> str:
    """The CUDA C of the packet kernel for values of ``dtype`` (float32 or float64)."""
    return PKT_KERNEL_TEMPLATE % {
        "value_type": dtype_to_ctype(dtype),
        "rows_per_packet": rows_per_packet,
        "threads_per_packet": threads_per_packet,
    }


def packet_geometry(
    n: int, dtype: np.dtype, shared_bytes: int, threads_per_packet: int, sm_count: int
) -> tuple[int, int]:
    """``(rows_per_packet, block_count)`` for ``n`` rows: a packet's x and y fill at most
    ``shared_bytes``; there are enough packets for that, and one per multiprocessor where each
    thread still gets a row."""
    rows_per_packet = min(shared_bytes // (2 * dtype.itemsize), pkt_build.MAX_PACKET_ROWS)
    block_count = max(1, -(-n // rows_per_packet), min(sm_count, n // threads_per_packet))
    return rows_per_packet, block_count


class PacketedSpMV:
    """A square sparse matrix on the GPU in the packet format; calling it computes
    ``y += A x`` with ``x`` and ``y`` in the permuted numbering.

    ``mat`` is a scipy.sparse matrix (any format) or a dense 2-D array; ``is_symmetric`` says
    its sparsity pattern is symmetric (otherwise ``A + A^T``'s is used to form the packets);
    ``dtype`` is the value type (float32 or float64). The packets come from METIS when
    ``pymetis`` is importable, else from contiguous blocks of rows.

    Attributes: ``shape``, ``dtype``, ``index_dtype``, ``packed_index_dtype``,
    ``threads_per_packet``, ``rows_per_packet``, ``block_count``; the GPUArrays
    ``packet_base_rows``, ``new2old_fetch_indices``, ``old2new_fetch_indices``,
    ``thread_starts``, ``thread_ends``, ``index_array``, ``data_array``; and
    ``remaining_coo_gpu``, the CoordinateSpMV of the entries between packets.
    """

    def __init__(self, mat: Any, is_symmetric: bool, dtype: Any) -> None:
        self.dtype = check_value_dtype(dtype)
        self.index_dtype = np.int32
        self.packed_index_dtype = np.uint32
        csr = to_csr(mat, self.dtype)
        h, w = self.shape = csr.shape
        if h != w:
            raise ValueError("only square matrices are supported")
        if h == 0:
            raise ValueError("the matrix has no rows")

        dev = drv.Context.get_device()
        attr = drv.device_attribute
        self.threads_per_packet = DeviceData(dev).max_threads
        # Static shared memory: the per-block limit without opting in (48 KiB).
        self.rows_per_packet, block_count = packet_geometry(
            h,
            self.dtype,
            dev.get_attribute(attr.MAX_SHARED_MEMORY_PER_BLOCK),
            self.threads_per_packet,
            dev.get_attribute(attr.MULTIPROCESSOR_COUNT),
        )
        dof_to_packet_nr, self.block_count = partition_rows(
            csr, bool(is_symmetric), block_count, self.rows_per_packet
        )
        layout = pkt_build.build_packet_layout(
            csr, dof_to_packet_nr, self.block_count, self.threads_per_packet, self.dtype
        )
        self.packet_base_rows = gpuarray.to_gpu(layout.packet_base_rows)
        self.new2old_fetch_indices = gpuarray.to_gpu(layout.new2old_fetch_indices)
        self.old2new_fetch_indices = gpuarray.to_gpu(layout.old2new_fetch_indices)
        self.thread_starts = gpuarray.to_gpu(layout.thread_starts)
        self.thread_ends = gpuarray.to_gpu(layout.thread_ends)
        self.index_array = gpuarray.to_gpu(layout.index_array)
        self.data_array = gpuarray.to_gpu(layout.data_array)
        self.remaining_coo_gpu = CoordinateSpMV(layout.remaining_coo, self.dtype)
        self._kernel: Any = None

    # {{{ the steps of building, as the original names them

    def find_simple_index_stuff(
        self, packet_nr_to_dofs: Sequence[Sequence[int]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(new2old_fetch_indices, old2new_fetch_indices, packet_base_rows)`` (int32) for
        the packets given as lists of their rows."""
        parts = np.empty(self.shape[0], np.int64)
        for packet_nr, dofs in enumerate(packet_nr_to_dofs):
            parts[np.asarray(dofs, dtype=np.int64)] = packet_nr
        return pkt_build.packet_permutation(parts, len(packet_nr_to_dofs))

    def find_local_row_costs_and_remaining_coo(
        self, csr_mat: Any, dof_to_packet_nr: Any, old2new_fetch_indices: Any
    ) -> tuple[np.ndarray, Any]:
        """``(local_row_costs, remaining_coo)``: the entries of each row within its packet,
        and the others as a COO matrix in the permuted numbering (scipy's ``coo_matrix``
        where scipy is importable)."""
        csr = to_csr(csr_mat, self.dtype)
        _, costs, remaining = pkt_build.split_local(
            csr, np.asarray(dof_to_packet_nr), np.asarray(old2new_fetch_indices)
        )
        try:
            from scipy.sparse import coo_matrix
        except ImportError:
            return costs, remaining
        coo = (remaining.data, (remaining.row, remaining.col))
        return costs, coo_matrix(coo, shape=self.shape, dtype=self.dtype)

    def find_thread_assignment(
        self,
        packet_nr_to_dofs: Sequence[Sequence[int]],
        local_row_cost: Any,
        thread_count: int,
    ) -> tuple[list[list[int]], np.ndarray]:
        """``(thread_assignments, thread_costs)``: each thread's rows in turn (most costly
        first, dealt to the packet's threads back and forth) and each thread's entry count."""
        t = self.threads_per_packet
        if thread_count != len(packet_nr_to_dofs) * t:
            raise ValueError("thread_count must be threads_per_packet per packet")
        parts = np.empty(self.shape[0], np.int64)
        for packet_nr, dofs in enumerate(packet_nr_to_dofs):
            parts[np.asarray(dofs, dtype=np.int64)] = packet_nr
        costs = np.asarray(local_row_cost, dtype=np.int64)
        thread_of_row, turn_of_row = pkt_build.assign_threads(parts, costs, t)
        order = np.lexsort((turn_of_row, thread_of_row))
        split = np.cumsum(np.bincount(thread_of_row, minlength=thread_count))[:-1]
        assignments = [rows.tolist() for rows in np.split(order, split)]
        thread_costs = np.bincount(thread_of_row, weights=costs, minlength=thread_count)
        return assignments, thread_costs

    # }}}

    def get_kernel(self) -> Any:
        """The prepared packet kernel (compiled on first use)."""
        if self._kernel is None:
            source = pkt_kernel_source(self.dtype, self.rows_per_packet, self.threads_per_packet)
            func = SourceModule(source, no_extern_c=True).get_function("spmv_pkt_kernel")
            func.prepare("PPPPPPP")
            self._kernel = func
        return self._kernel

    def permute(self, x: Any) -> Any:
        """``x`` (in the matrix's numbering) in the permuted numbering."""
        return gpuarray.take(x, self.new2old_fetch_indices)

    def unpermute(self, x: Any) -> Any:
        """``x`` (in the permuted numbering) back in the matrix's numbering."""
        return gpuarray.take(x, self.old2new_fetch_indices)

    def __call__(self, x: Any, y: Any = None) -> Any:
        """Add ``A x`` to ``y`` (a new zero vector if None) and return ``y``; both vectors in
        the permuted numbering."""
        n = self.shape[0]
        check_vector(x, "x", n, self.dtype)
        if y is None:
            y = gpuarray.zeros(n, dtype=self.dtype, allocator=x.allocator)
        else:
            check_vector(y, "y", n, self.dtype)
            if x.ptr == y.ptr:
                raise ValueError("x and y must not be the same memory")
        self.get_kernel().prepared_call(
            (self.block_count, 1),
            (self.threads_per_packet, 1, 1),
            self.packet_base_rows.gpudata,
            self.thread_starts.gpudata,
            self.thread_ends.gpudata,
            self.index_array.gpudata,
            self.data_array.gpudata,
            x.ptr,
            y.ptr,
        )
        self.remaining_coo_gpu(x, y)
        return y
