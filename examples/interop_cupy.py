"""examples/interop_cupy.py: GPUArrays and CuPy arrays share memory both ways, without copies.

Needs CuPy (cupy-cuda12x or cupy-cuda13x). pycuda.autoinit makes the device's primary context
current, the context CuPy uses, so the memory of either is valid for the other, and both queue
their work on the legacy default stream, so no synchronization is needed between them.
"""

import cupy
import numpy

import pycuda.autoinit  # noqa: F401 - the primary context, shared with CuPy
from pycuda import gpuarray
from pycuda.compiler import SourceModule

host = numpy.arange(12, dtype=numpy.float32).reshape(3, 4)
a = gpuarray.to_gpu(host)

# pycuda -> CuPy: through __cuda_array_interface__ (cupy.asarray) or DLPack (cupy.from_dlpack).
via_interface = cupy.asarray(a)
via_dlpack = cupy.from_dlpack(a)
assert via_interface.data.ptr == via_dlpack.data.ptr == a.ptr  # one memory, three views
via_dlpack *= 2  # CuPy writes into the GPUArray's memory
assert numpy.array_equal(a.get(), 2 * host)

# CuPy -> pycuda: gpuarray.from_dlpack; the GPUArray keeps the CuPy array's memory alive.
b = cupy.linspace(0, 1, 1000, dtype=cupy.float32)
b_gpu = gpuarray.from_dlpack(b)
assert b_gpu.ptr == b.data.ptr and b_gpu.shape == b.shape
assert numpy.allclose((3 * b_gpu).get(), 3 * cupy.asnumpy(b))

# A kernel of ours takes a CuPy array as an argument, as it takes a GPUArray.
mod = SourceModule("""
__global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] += 1.0f;
}
""")
add_one = mod.get_function("add_one")
before = cupy.asnumpy(b)
add_one(b, numpy.int32(b.size), block=(256, 1, 1), grid=((b.size + 255) // 256, 1))
assert numpy.array_equal(cupy.asnumpy(b), before + 1)
print("interop_cupy: memory shared both ways and a pycuda kernel ran on a CuPy array")
