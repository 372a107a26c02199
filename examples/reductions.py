"""examples/reductions.py: max and dot of random GPU arrays (seed 001, seventh program).

The seed's program, ported to Python 3, with a check against NumPy.
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.curandom
import pycuda.gpuarray

if __name__ == "__main__":
    # Generate random PyCUDA arrays on GPU
    a_gpu = pycuda.curandom.rand((50,))
    b_gpu = pycuda.curandom.rand((50,))

    maximum = pycuda.gpuarray.max(a_gpu).get()
    dot_product = pycuda.gpuarray.dot(a_gpu, b_gpu).get()

    print("max(a)    = ", maximum)
    print("dot(a, b) = ", dot_product)
    a, b = a_gpu.get(), b_gpu.get()
    assert maximum == a.max(), "Failed"
    assert numpy.isclose(dot_product, numpy.dot(a.astype(numpy.float64), b), rtol=1e-5)
    print("Success")
