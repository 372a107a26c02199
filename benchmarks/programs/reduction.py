"""A reduction: a dot product with ReductionKernel, and gpuarray's own sum."""

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.gpuarray as gpuarray
from pycuda.reduction import ReductionKernel

x = gpuarray.to_gpu(np.random.rand(100_000).astype(np.float32))
y = gpuarray.to_gpu(np.random.rand(100_000).astype(np.float32))
dot = ReductionKernel(
    np.float32, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i]",
    arguments="float *x, float *y",
)  # fmt: skip
expected = float(np.dot(x.get().astype(np.float64), y.get()))
assert abs(dot(x, y).get() - expected) < 1e-3 * abs(expected)
assert abs(gpuarray.sum(x).get() - x.get().sum()) < 1e-2
print("reduction: ok")
