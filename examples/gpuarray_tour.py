"""examples/gpuarray_tour.py: the seed "Python+CUDA = PyCUDA"'s texture and gpuarray sections.

Ported to Python 3: a texture reference declared in the source and bound to a GPUArray with
bind_to_texref_ext, GPUArray arithmetic, len, slicing, and a kernel called with .gpudata.
"""

import numpy
from numpy import array, float32, int32
from numpy.random import randn

import pycuda.autoinit  # noqa: F401
import pycuda.driver as cuda
from pycuda import gpuarray
from pycuda.compiler import SourceModule

code = """
__global__ void double_array_new(float *b, float *a, int *info)
{
  int datalen = info[0];

  for(int idx = threadIdx.x; idx < datalen; idx += blockDim.x)
  {
    b[idx] = a[idx]*2;
  }
}
"""
mod = SourceModule(code)
func = mod.get_function("double_array_new")

code_snippet = """
texture<float, 2> MyTexture;
// Rest of Code
__global__ void copy_texture(float *dest, int n)
{
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    dest[i] = tex1Dfetch(MyTexture, i);
}
"""
texture_mode = SourceModule(code_snippet)
MyTexture = texture_mode.get_texref("MyTexture")

x = randn(5).astype(float32)
x_gpu = gpuarray.to_gpu(x)
print(x_gpu)
print(2 * x_gpu)
print(x_gpu + x_gpu)
assert numpy.allclose((2 * x_gpu).get(), 2 * x) and numpy.allclose((x_gpu + x_gpu).get(), 2 * x)
assert len(x_gpu) == 5
assert numpy.array_equal(x_gpu[0:3].get(), x[0:3])

y_gpu = gpuarray.zeros(5, float32)
info = array([5]).astype(int32)
info_gpu = gpuarray.to_gpu(info)
func(y_gpu.gpudata, x_gpu.gpudata, info_gpu.gpudata, block=(32, 1, 1), grid=(4, 1))
print(y_gpu)
assert numpy.allclose(y_gpu.get(), 2 * x)

x_gpu.bind_to_texref_ext(MyTexture)
copied = gpuarray.zeros(5, float32)
texture_mode.get_function("copy_texture")(
    copied.gpudata, numpy.int32(5), block=(32, 1, 1), texrefs=[MyTexture]
)
assert numpy.array_equal(copied.get(), x)
cuda.Context.synchronize()
print("gpuarray_tour: gpuarray arithmetic, slicing, .gpudata calls and a texture checked")
