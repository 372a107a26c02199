"""A kernel whose source includes Thrust and CUB: a block-wide sum with cub::BlockReduce."""

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
from pycuda.compiler import SourceModule

mod = SourceModule(
    """
#include <thrust/device_vector.h>
#include <cub/cub.cuh>

extern "C" __global__ void block_sum(const float *in, float *out)
{
    typedef cub::BlockReduce<float, 256> Reduce;
    __shared__ typename Reduce::TempStorage temp;
    float total = Reduce(temp).Sum(in[blockIdx.x * 256 + threadIdx.x]);
    if (threadIdx.x == 0)
        out[blockIdx.x] = total;
}
""",
    no_extern_c=True,
)
block_sum = mod.get_function("block_sum")
x = np.random.rand(64 * 256).astype(np.float32)
sums = np.zeros(64, np.float32)
block_sum(drv.In(x), drv.Out(sums), block=(256, 1, 1), grid=(64, 1))
assert np.allclose(sums, x.reshape(64, 256).sum(axis=1), rtol=1e-4)
print("thrust_kernel: ok")
