"""examples/reduction_kernel.py: a dot product and a largest absolute value with ReductionKernel.

The tutorial's own example of a custom reduction: each element is mapped by `map_expr`, and the
mapped values are combined pairwise by `reduce_expr`, starting from `neutral`.
"""

import numpy

import pycuda.autoinit  # noqa: F401 - makes the context current
from pycuda import gpuarray
from pycuda.reduction import ReductionKernel

dot = ReductionKernel(
    numpy.float32,
    neutral="0",
    reduce_expr="a+b",
    map_expr="x[i]*y[i]",
    arguments="const float *x, const float *y",
)
max_abs = ReductionKernel(
    numpy.float32,
    neutral="0",
    reduce_expr="fmaxf(a, b)",
    map_expr="fabsf(x[i])",
    arguments="const float *x",
)

x = numpy.random.randn(1_000_000).astype(numpy.float32)
y = numpy.random.randn(1_000_000).astype(numpy.float32)
x_gpu = gpuarray.to_gpu(x)
y_gpu = gpuarray.to_gpu(y)

dot_xy = dot(x_gpu, y_gpu).get()  # a 0-d GPUArray; get() brings the number to the host
largest = max_abs(x_gpu).get()

# float32 sums round: compare with the exact sum within a small share of the sum of |x*y|.
exact = numpy.dot(x.astype(numpy.float64), y)
assert abs(dot_xy - exact) <= 1e-5 * numpy.abs(x.astype(numpy.float64) * y).sum()
assert largest == numpy.abs(x).max()
print(f"reduction_kernel: dot = {dot_xy:.3f}, max |x| = {largest:.3f}, both match NumPy")
