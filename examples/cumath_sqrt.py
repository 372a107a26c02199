"""examples/cumath_sqrt.py: element-wise math with pycuda.cumath (seed 001, fifth program).

The seed's program, ported to Python 3 (it also imports pycuda.cumath, which the seed relied on
another import to load).
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.cumath
import pycuda.driver
import pycuda.gpuarray

if __name__ == "__main__":
    h_array = numpy.random.randn(4000, 4000).astype(numpy.float32)
    d_gpuarray = pycuda.gpuarray.to_gpu(h_array)

    # Compute
    result = pycuda.cumath.sqrt(pycuda.cumath.fabs(d_gpuarray)).get()
    assert numpy.allclose(numpy.sqrt(numpy.abs(h_array)), result), "Failed"
    print("Success")
