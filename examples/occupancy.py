"""examples/occupancy.py: launch configurations from the occupancy calculator, thread block
clusters and a cooperative grid-wide sync, each result checked against NumPy.

suggested_block_size() picks the block size of highest occupancy for a grid-stride kernel and
the fewest blocks that fill the device. Where the device has thread block clusters (compute
capability 9.0 and newer), a kernel launched with cluster=(2, 2, 1) reports each block's rank in
its cluster; where it can launch cooperative kernels, one launched with cooperative=True
synchronizes the whole grid between writing and reading.
"""

import numpy as np

import pycuda.autoinit  # noqa: F401 - makes the context current
import pycuda.driver as drv
from pycuda.compiler import SourceModule

device = drv.Context.get_device()
sms = device.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)

# {{{ a grid-stride kernel, launched as the occupancy calculator suggests

saxpy = SourceModule("""
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = a * x[i] + y[i];
}
""").get_function("saxpy")

min_grid, block = saxpy.suggested_block_size()
per_sm = saxpy.max_active_blocks_per_multiprocessor(block)
print(f"saxpy: {block} threads per block, {per_sm} blocks per multiprocessor, grid {min_grid}")
assert min_grid == per_sm * sms

n = 3_000_017
rng = np.random.default_rng(1)
x = rng.standard_normal(n).astype(np.float32)
y = rng.standard_normal(n).astype(np.float32)
y_gpu = drv.to_device(y)
saxpy(np.float32(2), drv.In(x), y_gpu, np.int32(n), block=(block, 1, 1), grid=(min_grid, 1))
result = drv.from_device_like(y_gpu, y)
assert np.allclose(result, np.float32(2) * x + y, rtol=1e-6, atol=1e-6), "saxpy is wrong"

# }}}

# {{{ thread block clusters

if device.get_attribute(drv.device_attribute.CLUSTER_LAUNCH):
    ranks = SourceModule(r"""
    __global__ void ranks(unsigned *out)
    {
        unsigned rank;
        asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
        if (threadIdx.x == 0)
            out[blockIdx.x + gridDim.x * blockIdx.y] = rank;
    }
    """).get_function("ranks")
    largest = ranks.max_potential_cluster_size((128, 1, 1))
    print(f"clusters: at most {largest} blocks of 128 threads per cluster")
    grid, cluster = (16, 8), (2, 2, 1)
    out = np.zeros(grid[::-1], np.uint32)
    ranks(drv.Out(out), block=(128, 1, 1), grid=grid, cluster=cluster)
    by, bx = np.indices(grid[::-1])
    assert np.array_equal(out, bx % 2 + 2 * (by % 2)), "cluster ranks are wrong"
else:
    print("clusters: this device has none (compute capability 9.0 and newer have them)")

# }}}

# {{{ a cooperative launch: grid-wide synchronization

if device.get_attribute(drv.device_attribute.COOPERATIVE_LAUNCH):
    rotate = SourceModule(
        r"""
    #include <cooperative_groups.h>

    // Every thread writes, the whole grid waits, then each reads what another block wrote.
    extern "C" __global__ void rotate(int *scratch, int *out, int n)
    {
        cooperative_groups::grid_group grid = cooperative_groups::this_grid();
        unsigned i = (unsigned)grid.thread_rank();
        if (i < n)
            scratch[i] = 3 * (int)i + 1;
        grid.sync();
        if (i < n)
            out[i] = scratch[(i + n / 2) % n];
    }
    """,
        no_extern_c=True,
    ).get_function("rotate")
    blocks = rotate.max_active_blocks_per_multiprocessor(256) * sms  # all resident at once
    n = 256 * blocks
    scratch = drv.mem_alloc(4 * n)
    out = np.empty(n, np.int32)
    rotate(scratch, drv.Out(out), np.int32(n), block=(256, 1, 1), grid=(blocks, 1),
           cooperative=True)  # fmt: skip
    written = 3 * np.arange(n, dtype=np.int32) + 1
    assert np.array_equal(out, np.roll(written, -(n // 2))), "the grid did not synchronize"
    print(f"cooperative: {blocks} blocks synchronized")
else:
    print("cooperative: this device cannot launch cooperative kernels")

# }}}

print("occupancy: every result matches NumPy")
