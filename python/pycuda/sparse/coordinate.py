"""pycuda.sparse.coordinate: ``y += A x`` for a sparse matrix stored as coordinate triples.

Any sparse matrix, square or not, the entries in any order:

    import numpy as np
    import pycuda.autoinit
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.coordinate import CoordinateSpMV

    a = np.array([[4.0, 0, 1], [0, 3, 0]], np.float32)   # or any scipy.sparse matrix
    spmv = CoordinateSpMV(a, np.float32)
    y = spmv(gpuarray.to_gpu(np.ones(3, np.float32)))    # [5, 3]
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
    ``block_size`` and ``num_blocks`` (the launch).
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
        self._kernel: Any = None

    def get_kernel(self) -> Any:
        """The prepared kernel (compiled on first use)."""
        if self._kernel is None:
            mod = SourceModule(coo_kernel_source(self.dtype, self.block_size), no_extern_c=True)
            func = mod.get_function("spmv_coo_kernel")
            func.prepare("iPPPPP")
            self._kernel = func
        return self._kernel

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
