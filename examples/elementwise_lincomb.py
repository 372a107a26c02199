"""examples/elementwise_lincomb.py: a custom ElementwiseKernel (seed 001, sixth program).

The seed's program, ported to Python 3, with a check of the result.
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.curandom
import pycuda.elementwise
import pycuda.gpuarray

if __name__ == "__main__":
    # Generate random PyCUDA arrays on GPU
    a_gpu = pycuda.curandom.rand((50,))
    b_gpu = pycuda.curandom.rand((50,))

    # Set up an element-wise operation
    lin_comb = pycuda.elementwise.ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z",
        "z[i] = a*x[i] + b*y[i]",
        "linear_combination",
    )

    c_gpu = pycuda.gpuarray.empty_like(a_gpu)
    lin_comb(5, a_gpu, 6, b_gpu, c_gpu)

    print(c_gpu.get())
    assert numpy.allclose(c_gpu.get(), 5 * a_gpu.get() + 6 * b_gpu.get()), "Failed"
    print("Success")
