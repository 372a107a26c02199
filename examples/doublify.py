"""examples/doublify.py: double a 4x4 array in place with mem_alloc, memcpy_htod and memcpy_dtoh.

From the seed "PyCUDA Tutorial" (eecse4750 wiki), ported to Python 3.
"""

import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
import pycuda.driver as cuda
from pycuda.compiler import SourceModule

a = numpy.random.randn(4, 4)

a = a.astype(numpy.float32)

a_gpu = cuda.mem_alloc(a.size * a.dtype.itemsize)

cuda.memcpy_htod(a_gpu, a)

mod = SourceModule("""
    __global__ void doublify(float *a)
    {
      int idx = threadIdx.x + threadIdx.y*4;
      a[idx] *= 2;
    }
    """)

func = mod.get_function("doublify")
func(a_gpu, block=(4, 4, 1))

a_doubled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_doubled, a_gpu)
print("original array:")
print(a)
print("doubled with kernel:")
print(a_doubled)

# The check this example adds.
assert numpy.array_equal(a_doubled, 2 * a), "doublify did not double every element"
print("doublify: all 16 elements doubled")
