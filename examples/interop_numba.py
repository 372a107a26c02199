"""examples/interop_numba.py: a Numba kernel on a GPUArray, and a GPUArray over Numba's memory.

Needs Numba with CUDA (numba-cuda). Both use the primary context of the device, so device
pointers pass between them; the exchange is the CUDA Array Interface, which both speak.
"""

import numpy
from numba import cuda

import pycuda.autoinit  # noqa: F401 - the primary context, shared with Numba
from pycuda import gpuarray


@cuda.jit
def square(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] = x[i] * x[i]


# pycuda -> Numba: cuda.as_cuda_array reads the GPUArray's __cuda_array_interface__.
a = gpuarray.to_gpu(numpy.arange(1000, dtype=numpy.float64))
square[(a.size + 127) // 128, 128](cuda.as_cuda_array(a))
cuda.synchronize()
assert numpy.array_equal(a.get(), numpy.arange(1000, dtype=numpy.float64) ** 2)

# Numba -> pycuda: a GPUArray over the memory the interface names; `base` keeps the Numba array
# (the memory's owner) alive as long as the GPUArray.
n = cuda.to_device(numpy.ones(500, dtype=numpy.float32))
interface = n.__cuda_array_interface__
n_gpu = gpuarray.GPUArray(n.shape, n.dtype, gpudata=interface["data"][0], base=n)
n_gpu *= 3  # pycuda writes into Numba's memory
assert numpy.array_equal(n.copy_to_host(), numpy.full(500, 3, dtype=numpy.float32))
print("interop_numba: a Numba kernel ran on a GPUArray and pycuda wrote Numba's memory")
