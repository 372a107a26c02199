"""examples/hello_gpu.py: multiply two arrays on the GPU with drv.In/drv.Out (the main demo).

From the seed tutorial "Play Cuda with Python" (PyCUDA's own hello_gpu), ported to Python 3.
"""

import numpy

import pycuda.autoinit  # makes the context current
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule("""
    __global__ void multiply_them(float *dest, float *a, float *b)
    {
      const int i = threadIdx.x;
      dest[i] = a[i] * b[i];
    }
    """)

multiply_them = mod.get_function("multiply_them")

a = numpy.random.randn(400).astype(numpy.float32)
b = numpy.random.randn(400).astype(numpy.float32)

dest = numpy.zeros_like(a)
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))

print(dest - a * b)

# The check this example adds: every product is right (IEEE multiplication on both sides).
assert numpy.array_equal(dest, a * b), "multiply_them computed wrong products"
print(f"hello_gpu: 400 products computed on {pycuda.autoinit.device.name()} match NumPy")
