"""pycuda.sparse.coordinate: ``y += A x`` for a sparse matrix stored as coordinate triples.

Any sparse matrix, square or not, the entries in any order:

    import numpy as np
    import pycuda.autoinit
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.coordinate import CoordinateSpMV

    a = np.array([[4.0, 0, 1], [0, 3, 0]], np.float32)   # or any scipy.sparse matrix
    spmv = CoordinateSpMV(a, np.float32)
    y = spmv(gpuarray.to_gpu(np.ones(3, np.float32)))    # [5, 3]

Calling the matrix launches one kernel (``get_kernel``). The original's pair of kernels is here
too, as an alternative: ``COO_FLAT_KERNEL_TEMPLATE`` (x read through the texture reference
``tex_x``) for the entries up to ``tail``, and ``COO_SERIAL_KERNEL_TEMPLATE`` for the rest, as
``get_flat_kernel()`` and ``get_serial_kernel()`` return them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule
from pycuda.sparse._csr import to_coo
from pycuda.tools import dtype_to_ctype

# The entries are sorted by row, so the entries of one row that a warp loads together sit in
# neighbouring lanes: a scan over each run of equal rows leaves the run's sum in its last lane,
# which adds it to y. Runs cut by a chunk border, or shared with another warp, add separately,
# hence the atomic add. x is read through a read-only pointer (the original bound a texture
# reference to it; on current GPUs the read-only cache path is the same).
_COO_KERNEL = r"""
typedef %(value_type)s value_type;
#define COO_BLOCK %(block_size)d

__device__ __forceinline__ void coo_atomic_add(float *address, float value)
{
    atomicAdd(address, value);
}

__device__ __forceinline__ void coo_atomic_add(double *address, double value)
{
#if __CUDA_ARCH__ >= 600
    atomicAdd(address, value);
#else
    // No double atomicAdd before sm_60: a compare-and-swap loop on the bits.
    unsigned long long *bits = (unsigned long long *) address;
    unsigned long long seen = *bits, expected;
    do {
        expected = seen;
        seen = atomicCAS(bits, expected,
                         __double_as_longlong(__longlong_as_double(expected) + value));
    } while (seen != expected);
#endif
}

extern "C" __global__ void __launch_bounds__(COO_BLOCK)
spmv_coo_kernel(const int nnz, const int *__restrict__ row, const int *__restrict__ col,
                const value_type *__restrict__ val, const value_type *__restrict__ x,
                value_type *y)
{
    const unsigned lane = threadIdx.x & 31;
    const long long warp = ((long long) blockIdx.x * COO_BLOCK + threadIdx.x) >> 5;
    const long long warp_count = ((long long) gridDim.x * COO_BLOCK) >> 5;
    // The trip count is the same for all lanes of a warp, so every shuffle has all 32.
    for (long long chunk = warp * 32; chunk < nnz; chunk += warp_count * 32) {
        const long long n = chunk + lane;
        int r = -1;
        value_type v = 0;
        if (n < nnz) {
            r = row[n];
            v = val[n] * x[col[n]];
        }
        for (int d = 1; d < 32; d <<= 1) {
            const value_type v_before = __shfl_up_sync(0xffffffffu, v, d);
            const int r_before = __shfl_up_sync(0xffffffffu, r, d);
            if (lane >= d && r_before == r)
                v += v_before;
        }
        const int r_after = __shfl_down_sync(0xffffffffu, r, 1);
        if (r >= 0 && (lane == 31 || r_after != r))
            coo_atomic_add(y + r, v);
    }
}
"""


def coo_kernel_source(dtype: Any, block_size: int) -> str:
    """The CUDA C of the coordinate kernel for values of ``dtype`` (float32 or float64)."""
    return _COO_KERNEL % {"value_type": dtype_to_ctype(dtype), "block_size": block_size}


# The original's two kernels, with its names and %-keys: value_type, tex_value_type (the
# texture's word type: dtype_to_ctype(dtype, with_fp_tex_hack=True)), index_type, block_size and
# warp_size for the flat kernel; value_type and index_type for the serial one. No extern "C" in
# them: as the original's, they are meant for SourceModule's default wrapping.
#
# Flat kernel: warp w takes the entries [w * interval_size, (w + 1) * interval_size) (sorted by
# row), 32 at a time. A segmented scan leaves each run of equal rows' sum in the run's last lane,
# and the sum of the chunk's last row moves to lane 0 of the next chunk (the carry). Only the
# interval's first row can also have entries in the previous interval, and only its last row
# (the final carry) in the next one: those two add to y atomically, every other row plainly.
# Lanes past the end of the entries count as zeros of the last row.
COO_FLAT_KERNEL_TEMPLATE = r"""
#include <pycuda-helpers.hpp>

#define BLOCK_SIZE %(block_size)d
#define WARP_SIZE %(warp_size)d

#if WARP_SIZE != 32
#error "spmv_coo_flat_kernel is written for warps of 32 threads"
#endif

typedef %(value_type)s value_type;
typedef %(index_type)s index_type;

texture<%(tex_value_type)s, 1, cudaReadModeElementType> tex_x;

extern "C++" {
__device__ inline void coo_flat_atomic_add(float *address, float value)
{
    atomicAdd(address, value);
}

__device__ inline void coo_flat_atomic_add(double *address, double value)
{
    pycuda::atomic_add_double(address, value);
}
}

__global__ void __launch_bounds__(BLOCK_SIZE)
spmv_coo_flat_kernel(const index_type num_nonzeros, const index_type interval_size,
                     const index_type *I, const index_type *J, const value_type *V,
                     value_type *y)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x & (WARP_SIZE - 1);
    const long long warp = ((long long) blockIdx.x * blockDim.x + threadIdx.x) / WARP_SIZE;
    const long long begin = warp * interval_size;
    if (begin >= (long long) num_nonzeros)
        return; // all lanes of the warp alike
    const long long end = min(begin + (long long) interval_size, (long long) num_nonzeros);

    const index_type first_row = I[begin];
    index_type carry_row = first_row;
    value_type carry = 0;
    for (long long chunk = begin; chunk < end; chunk += WARP_SIZE) {
        const long long n = chunk + lane;
        const bool live = n < end;
        const index_type row = I[live ? n : end - 1];
        value_type v = live ? V[n] * fp_tex1Dfetch(tex_x, (int) J[n]) : value_type(0);

        if (lane == 0) {
            if (row == carry_row)
                v += carry; // the previous chunk's last row goes on
            else if (carry_row == first_row)
                coo_flat_atomic_add(y + carry_row, carry);
            else
                y[carry_row] += carry;
        }

        // Sorted rows: equal rows d lanes apart have equal rows between them.
#pragma unroll
        for (int d = 1; d < WARP_SIZE; d <<= 1) {
            const value_type v_before = __shfl_up_sync(all, v, d);
            const index_type row_before = __shfl_up_sync(all, row, d);
            if (lane >= d && row_before == row)
                v += v_before;
        }

        const index_type row_after = __shfl_down_sync(all, row, 1);
        if (lane != WARP_SIZE - 1 && row_after != row) {
            if (row == first_row)
                coo_flat_atomic_add(y + row, v);
            else
                y[row] += v;
        }
        carry_row = __shfl_sync(all, row, WARP_SIZE - 1);
        carry = __shfl_sync(all, v, WARP_SIZE - 1);
    }
    if (lane == 0)
        coo_flat_atomic_add(y + carry_row, carry);
}
"""

# Serial kernel: one thread walks the entries (the fewer than 32 the flat kernel leaves), adding
# each run of equal rows to y once; x is read through a pointer, as in the original.
COO_SERIAL_KERNEL_TEMPLATE = r"""
typedef %(value_type)s value_type;
typedef %(index_type)s index_type;

__global__ void
spmv_coo_serial_kernel(const index_type num_nonzeros, const index_type *I, const index_type *J,
                       const value_type *V, const value_type *x, value_type *y)
{
    if (threadIdx.x + threadIdx.y + threadIdx.z + blockIdx.x + blockIdx.y + blockIdx.z != 0)
        return; // one thread does it all
    value_type sum = 0;
    index_type row = 0;
    for (index_type n = 0; n < num_nonzeros; ++n) {
        if (n != 0 && I[n] != row) {
            y[row] += sum;
            sum = 0;
        }
        row = I[n];
        sum += V[n] * x[J[n]];
    }
    if (num_nonzeros > 0)
        y[row] += sum;
}
"""


def coo_template_keys(dtype: Any, index_dtype: Any, block_size: int) -> dict[str, Any]:
    """The %-keys of COO_FLAT_KERNEL_TEMPLATE and COO_SERIAL_KERNEL_TEMPLATE (the original's)."""
    return {
        "value_type": dtype_to_ctype(dtype),
        "tex_value_type": dtype_to_ctype(dtype, with_fp_tex_hack=True),
        "index_type": dtype_to_ctype(index_dtype),
        "block_size": block_size,
        "warp_size": 32,
    }


def flat_geometry(nnz: int, num_blocks: int, block_size: int) -> tuple[int, int]:
    """``(interval_size, tail)`` of the flat kernel on ``num_blocks`` blocks: each warp takes
    ``interval_size`` entries (whole chunks of 32, at least one), together the first ``tail``
    (the whole chunks); the serial kernel takes the ``nnz - tail`` left."""
    tail = nnz - nnz % 32
    warps = num_blocks * (block_size // 32)
    return 32 * max(1, -(-(tail // 32) // warps)), tail


def check_value_dtype(dtype: Any) -> np.dtype:
    """``dtype`` as a NumPy dtype; the sparse kernels take float32 and float64 values."""
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"pycuda.sparse supports float32 and float64 values, not {dtype}")
    return dtype


def check_vector(vec: Any, name: str, size: int, dtype: np.dtype) -> None:
    """Raise unless ``vec`` is a contiguous GPUArray of ``size`` elements of ``dtype``."""
    if not isinstance(vec, gpuarray.GPUArray):
        raise TypeError(f"{name} must be a GPUArray, got {type(vec).__name__}")
    if vec.dtype != dtype:
        raise TypeError(f"{name} has dtype {vec.dtype}; the matrix was built for {dtype}")
    if vec.size != size or not vec.flags.c_contiguous:
        raise ValueError(
            f"{name} must be a contiguous vector of {size} elements, got shape {vec.shape}"
        )


class CoordinateSpMV:
    """A sparse matrix on the GPU in coordinate (COO) form; calling it computes ``y += A x``.

    ``mat`` is a scipy.sparse matrix (any format) or a dense 2-D array; ``dtype`` is the value
    type (float32 or float64). Attributes: ``shape``, ``dtype``, ``index_dtype`` (int32),
    ``nnz``, ``row_gpu``, ``col_gpu``, ``data_gpu`` (the triples, sorted by row),
    ``block_size`` and ``num_blocks`` (the launch), and for the original's pair of kernels
    (``get_flat_kernel``, ``get_serial_kernel``) ``interval_size`` and ``tail``.
    """

    def __init__(self, mat: Any, dtype: Any) -> None:
        self.dtype = check_value_dtype(dtype)
        self.index_dtype = np.dtype(np.int32)
        coo = to_coo(mat, self.dtype)
        self.shape = coo.shape
        if coo.nnz >= 2**31 or max(self.shape) >= 2**31:
            raise ValueError("CoordinateSpMV takes fewer than 2**31 rows, columns and nonzeros")
        self.nnz = coo.nnz
        self.block_size = 128

        self.row_gpu = gpuarray.to_gpu(coo.row.astype(self.index_dtype))
        self.col_gpu = gpuarray.to_gpu(coo.col.astype(self.index_dtype))
        self.data_gpu = gpuarray.to_gpu(coo.data)

        dev = drv.Context.get_device()
        sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
        threads_per_sm = dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
        # One wave of resident blocks at most; the warps stride over the rest.
        resident = sms * max(1, threads_per_sm // self.block_size)
        self.num_blocks = max(1, min(-(-self.nnz // self.block_size), resident))
        self.interval_size, self.tail = flat_geometry(self.nnz, self.num_blocks, self.block_size)
        self._kernel: Any = None
        self._flat_kernel: tuple[Any, Any] | None = None
        self._serial_kernel: Any = None

    def get_kernel(self) -> Any:
        """The prepared kernel (compiled on first use)."""
        if self._kernel is None:
            mod = SourceModule(coo_kernel_source(self.dtype, self.block_size), no_extern_c=True)
            func = mod.get_function("spmv_coo_kernel")
            func.prepare("iPPPPP")
            self._kernel = func
        return self._kernel

    def get_flat_kernel(self) -> tuple[Any, Any]:
        """``(func, x_texref)``: the original's flat kernel (COO_FLAT_KERNEL_TEMPLATE) for this
        matrix's dtypes, prepared (``"iiPPPP"``, ``texrefs=[x_texref]``), and the texture
        reference ``tex_x`` it reads x through. It adds the products of the entries before
        ``tail`` to y; get_serial_kernel() adds the rest:

            func, x_texref = spmv.get_flat_kernel()
            x.bind_to_texref_ext(x_texref, allow_double_hack=True)
            func.prepared_call((spmv.num_blocks, 1), (spmv.block_size, 1, 1),
                               spmv.tail, spmv.interval_size, spmv.row_gpu.gpudata,
                               spmv.col_gpu.gpudata, spmv.data_gpu.gpudata, y.gpudata)

        Calling the matrix does not use it: its one kernel (get_kernel) needs no texture
        binding (binding x makes a texture object and writes its handle to the device), no
        second launch, and has no texture size limit on x; on an H200 it took 0.4 to 0.98 of
        the pair's time (8 vs 22 us for 50,000 entries, 36 vs 66 us for 8 million).
        """
        if self._flat_kernel is None:
            keys = coo_template_keys(self.dtype, self.index_dtype, self.block_size)
            mod = SourceModule(COO_FLAT_KERNEL_TEMPLATE % keys)
            func = mod.get_function("spmv_coo_flat_kernel")
            x_texref = mod.get_texref("tex_x")
            func.prepare(self.index_dtype.char * 2 + "PPPP", texrefs=[x_texref])
            self._flat_kernel = func, x_texref
        return self._flat_kernel

    def get_serial_kernel(self) -> Any:
        """The original's serial kernel (COO_SERIAL_KERNEL_TEMPLATE) for this matrix's dtypes,
        prepared (``"iPPPPP"``): one thread adds the products of the entries from ``tail`` on,
        reading x through a pointer. As in the original it is a function, not a pair:

            spmv.get_serial_kernel().prepared_call(
                (1, 1), (1, 1, 1), spmv.nnz - spmv.tail, spmv.row_gpu[spmv.tail:].gpudata,
                spmv.col_gpu[spmv.tail:].gpudata, spmv.data_gpu[spmv.tail:].gpudata,
                x.gpudata, y.gpudata)
        """
        if self._serial_kernel is None:
            keys = coo_template_keys(self.dtype, self.index_dtype, self.block_size)
            func = SourceModule(COO_SERIAL_KERNEL_TEMPLATE % keys).get_function(
                "spmv_coo_serial_kernel"
            )
            func.prepare(self.index_dtype.char + "PPPPP")
            self._serial_kernel = func
        return self._serial_kernel

    def __call__(self, x: Any, y: Any = None) -> Any:
        """Add ``A x`` to ``y`` (a new zero vector if None) and return ``y``."""
        check_vector(x, "x", self.shape[1], self.dtype)
        if y is None:
            y = gpuarray.zeros(self.shape[0], dtype=self.dtype, allocator=x.allocator)
        else:
            check_vector(y, "y", self.shape[0], self.dtype)
            if self.nnz and x.ptr == y.ptr:
                raise ValueError("x and y must not be the same memory")
        if self.nnz == 0:
            return y
        self.get_kernel().prepared_call(
            (self.num_blocks, 1),
            (self.block_size, 1, 1),
            self.nnz,
            self.row_gpu.gpudata,
            self.col_gpu.gpudata,
            self.data_gpu.gpudata,
            x.ptr,
            y.ptr,
        )
        return y
