"""A GPUArray script: arrays to the GPU, arithmetic there, results back."""

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.gpuarray as gpuarray

a = np.random.randn(4, 4).astype(np.float32)
a_gpu = gpuarray.to_gpu(a)
doubled = (2 * a_gpu + 1).get()
assert np.allclose(doubled, 2 * a + 1)
print("gpuarray_script: ok")
