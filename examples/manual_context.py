"""examples/manual_context.py: init, make and push a context by hand, run a kernel, pop, detach.

From the seed "Python+CUDA = PyCUDA" (the manual initialization and double_array_new), ported to
Python 3.
"""

import numpy

import pycuda.driver as cuda
from pycuda.compiler import SourceModule

device_nr = 0

cuda.init()  # init pycuda driver
current_dev = cuda.Device(device_nr)  # device we are working on
ctx = current_dev.make_context()  # make a working context
ctx.push()  # let context make the lead

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

N = 128

a = numpy.array(range(N)).astype(numpy.float32)
info = numpy.array([N]).astype(numpy.int32)
b = numpy.zeros_like(a)

a_gpu = cuda.mem_alloc(a.nbytes)
cuda.memcpy_htod(a_gpu, a)

b_gpu = cuda.mem_alloc(b.nbytes)
cuda.memcpy_htod(b_gpu, b)

info_gpu = cuda.mem_alloc(info.nbytes)
cuda.memcpy_htod(info_gpu, info)

func(b_gpu, a_gpu, info_gpu, block=(32, 1, 1), grid=(4, 1))

a_doubled = numpy.empty_like(a)
cuda.memcpy_dtoh(a_doubled, b_gpu)

print("result:", a_doubled)

a_gpu.free()
b_gpu.free()
info_gpu.free()

ctx.pop()  # deactivate again
ctx.detach()  # delete it

# The check this example adds.
assert numpy.array_equal(a_doubled, 2 * a), "double_array_new did not double every element"
print(f"manual_context: {N} elements doubled in a context made by hand")
