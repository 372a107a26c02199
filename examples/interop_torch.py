"""examples/interop_torch.py: GPUArrays and PyTorch tensors share memory through DLPack.

Needs PyTorch with CUDA. pycuda.autoinit makes the primary context of device 0 current, the
context PyTorch uses for cuda:0 (set $CUDA_DEVICE and torch's device alike for another GPU).
Both queue their work on the legacy default stream unless told otherwise, so results are seen
in order without synchronizing by hand.
"""

import numpy
import torch

import pycuda.autoinit  # noqa: F401 - the primary context, shared with PyTorch
from pycuda import cumath, gpuarray

# pycuda -> PyTorch: torch.from_dlpack takes the GPUArray's memory and keeps the array alive.
host = numpy.linspace(0, 1, 256, dtype=numpy.float32)
a = gpuarray.to_gpu(host)
t = torch.from_dlpack(a)
assert t.is_cuda and t.data_ptr() == a.ptr
t.mul_(4)  # an in-place PyTorch operation changes the GPUArray
assert numpy.allclose(a.get(), 4 * host)

# PyTorch -> pycuda: gpuarray.from_dlpack; strides come along (here a transposed view).
x = torch.randn(64, 32, device="cuda")
x_gpu = gpuarray.from_dlpack(x)
assert x_gpu.ptr == x.data_ptr() and x_gpu.shape == (64, 32)
assert numpy.allclose(cumath.exp(x_gpu).get(), torch.exp(x).cpu().numpy(), rtol=1e-5)
xt_gpu = gpuarray.from_dlpack(x.t())
assert xt_gpu.shape == (32, 64)
assert xt_gpu.strides == tuple(4 * s for s in x.t().stride())  # bytes, as NumPy counts
assert numpy.array_equal(xt_gpu.get(), x.t().cpu().numpy())
print("interop_torch: memory shared both ways, strided views included")
