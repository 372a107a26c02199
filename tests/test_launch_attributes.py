"""Launch attributes (cluster=, cooperative=) and the occupancy queries of Function.

CPU: each case runs in a child interpreter against the fake driver of tests/hostemu.c, which
records what reaches cuLaunchKernel and cuLaunchKernelEx (grid, block, cluster shape,
cooperative flag), answers the occupancy queries with fixed figures (16 blocks per
multiprocessor, 4 multiprocessors, clusters of up to 8 blocks), refuses a cooperative grid of
more than 64 blocks as the driver does, and hides the entry points named in $HOSTEMU_WITHOUT.
The kernels of the GPU tests are compiled here with NVRTC for sm_90. GPU: the same launches on a
device, their results checked against NumPy.
"""

from __future__ import annotations

import textwrap

import hostemu
import numpy as np
import pytest

import pycuda.driver as drv
from pycuda import compiler

needs_cc = pytest.mark.skipif(hostemu.compiler() is None, reason="no C compiler for the fake")

# Each block's rank in its cluster and the cluster's size, read from PTX's special registers.
CLUSTER_RANKS = r"""
__global__ void cluster_ranks(unsigned *out)
{
    unsigned rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) {
        unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
        out[2 * b] = rank;
        out[2 * b + 1] = size;
    }
}
"""

# Each thread writes, the whole grid synchronizes, then each reads what another block wrote.
GRID_SYNC = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void reverse_via_grid_sync(int *scratch, int *out, int n)
{
    cg::grid_group grid = cg::this_grid();
    unsigned i = (unsigned)grid.thread_rank();
    if (i < n)
        scratch[i] = (int)i + 1;
    grid.sync();
    if (i < n)
        out[i] = scratch[n - 1 - i];
}
"""

SCALE = r"""
__global__ void scale(float *a, float factor, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] *= factor;
}
"""


# {{{ CPU: the kernels compile


def test_the_gpu_tests_kernels_compile_for_sm90():
    compiler.compile(CLUSTER_RANKS, arch="sm_90")
    compiler.compile(GRID_SYNC, arch="sm_90", no_extern_c=True)
    compiler.compile(SCALE, arch="sm_90")


# }}}

# {{{ CPU, against the fake driver

PRELUDE = """
from pycuda.compiler import compile
mod = drv.module_from_buffer(compile("__global__ void k(float *a, int n) {}", arch="sm_90"))
f = mod.get_function("k")
buf = drv.mem_alloc(64)
n = np.int32(16)

def launches():
    out = (ctypes.c_longlong * 13)()
    _FAKE.hostemu_launches(out)
    plain, ex, *rest = out
    return {"plain": plain, "ex": ex, "grid": tuple(rest[0:3]), "block": tuple(rest[3:6]),
            "cluster": tuple(rest[6:9]), "cooperative": rest[9], "attrs": rest[10]}

def raises(exc, text, call):
    try:
        call()
    except exc as e:
        assert text in str(e), (text, str(e))
        return e
    raise AssertionError(f"no {exc.__name__}")
"""


def run(fake, code: str, **env: str) -> None:
    """``code`` (indented as in a test) after PRELUDE, against the fake driver."""
    hostemu.run_with_hostemu(fake, PRELUDE + textwrap.dedent(code), **env)


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return hostemu.build(tmp_path_factory.mktemp("hostemu"))


@needs_cc
def test_call_keywords_reach_cuLaunchKernelEx(fake):
    run(
        fake,
        """
        f(buf, n, block=(32, 1, 1), grid=(4, 2))
        assert launches()["plain"] == 1 and launches()["ex"] == 0
        f(buf, n, block=(32, 1, 1), grid=(4, 2), cluster=(2, 1, 1))
        got = launches()
        assert got["ex"] == 1 and got["plain"] == 1, got
        assert got["grid"] == (4, 2, 1) and got["block"] == (32, 1, 1), got
        assert got["cluster"] == (2, 1, 1) and got["cooperative"] == 0 and got["attrs"] == 1, got
        f(buf, n, block=(64, 1, 1), grid=(8, 1), cooperative=True)
        got = launches()
        assert got["cluster"] == (0, 0, 0) and got["cooperative"] == 1 and got["attrs"] == 1, got
        f(buf, n, block=(64, 1, 1), grid=(4, 4), cluster=[2, 2], cooperative=np.bool_(True))
        got = launches()
        assert got["cluster"] == (2, 2, 1) and got["cooperative"] == 1 and got["attrs"] == 2, got
        # Asking for nothing is the plain launch.
        f(buf, n, block=(32, 1, 1), grid=(3, 1), cluster=None, cooperative=False)
        assert launches()["plain"] == 2 and launches()["ex"] == 3
        seconds = f(buf, n, block=(32, 1, 1), grid=(2, 1), cluster=(2, 1, 1), time_kernel=True)
        assert isinstance(seconds, float) and launches()["ex"] == 4
        """,
    )


@needs_cc
def test_prepared_calls_take_the_keywords(fake):
    run(
        fake,
        """
        f.prepare("Pi")
        f.prepared_call((4, 1), (32, 1, 1), buf, 16, cluster=(4, 1, 1))
        got = launches()
        assert got["ex"] == 1 and got["cluster"] == (4, 1, 1) and got["cooperative"] == 0, got
        s = drv.Stream()
        f.prepared_async_call((2, 1), (32, 1, 1), s, buf, 16, shared_size=0, cooperative=True)
        got = launches()
        assert got["ex"] == 2 and got["cooperative"] == 1 and got["cluster"] == (0, 0, 0), got
        timer = f.prepared_timed_call((2, 2), (32, 1, 1), buf, 16, cluster=(1, 2, 1))
        assert isinstance(timer(), float)
        got = launches()
        assert got["ex"] == 3 and got["cluster"] == (1, 2, 1) and got["grid"] == (2, 2, 1), got
        f.prepared_call((4, 1), (32, 1, 1), buf, 16)
        f.prepared_call((4, 1), (32, 1, 1), buf, 16, shared_size=0)
        assert launches()["plain"] == 2 and launches()["ex"] == 3
        raises(TypeError, "cluster=None, cooperative=False",
               lambda: f.prepared_call((4, 1), (32, 1, 1), buf, 16, clusters=(2, 1, 1)))
        raises(ValueError, "grid x = 3 is not divisible by cluster x = 2",
               lambda: f.prepared_call((3, 1), (32, 1, 1), buf, 16, cluster=(2, 1, 1)))
        assert launches()["ex"] == 3
        """,
    )


@needs_cc
def test_bad_clusters_are_refused_before_any_launch(fake):
    run(
        fake,
        """
        go = lambda **kw: f(buf, n, block=(32, 1, 1), **kw)
        raises(ValueError, "grid x = 3 is not divisible by cluster x = 2",
               lambda: go(grid=(3, 1), cluster=(2, 1, 1)))
        raises(ValueError, "grid y = 5 is not divisible by cluster y = 2",
               lambda: go(grid=(4, 5), cluster=(2, 2)))
        raises(ValueError, "grid (1, 1, 1) is not a whole number of clusters (2, 1, 1)",
               lambda: go(cluster=(2,)))
        raises(ValueError, "cluster[1] = 0 must be a positive int", lambda: go(cluster=(1, 0)))
        raises(ValueError, "cluster must have 1 to 3 entries", lambda: go(cluster=()))
        raises(TypeError, "cluster must be a tuple", lambda: go(cluster=2))
        raises(TypeError, "cluster[0] must be an int", lambda: go(cluster=(2.0, 1)))
        raises(ValueError, "extra keyword arguments: clusters", lambda: go(clusters=(1, 1, 1)))
        assert launches()["ex"] == 0 and launches()["plain"] == 0
        """,
    )


@needs_cc
def test_a_cooperative_grid_too_large_says_how_many_fit(fake):
    run(
        fake,
        """
        f(buf, n, block=(32, 1, 1), grid=(64, 1), cooperative=True)
        e = raises(drv.LogicError, "its grid of 65 blocks exceeds the 64 that can be resident",
                   lambda: f(buf, n, block=(32, 1, 1), grid=(65, 1), cooperative=True))
        assert e.code == 720 and e.name == "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", e
        assert e.routine == "cuLaunchKernelEx" and "'k' cooperatively" in str(e)
        assert "(16 per multiprocessor x 4 multiprocessors" in str(e), str(e)
        # Without cooperative=, the same grid is an ordinary launch.
        f(buf, n, block=(32, 1, 1), grid=(65, 1))
        assert launches()["plain"] == 1 and launches()["ex"] == 1
        """,
    )


@needs_cc
def test_occupancy_queries(fake):
    run(
        fake,
        """
        assert f.suggested_block_size() == (64, 256)
        assert f.suggested_block_size(shared=1024, limit=128) == (64, 128)
        raises(ValueError, "limit must be 0 (none) or a positive",
               lambda: f.suggested_block_size(limit=-1))
        raises(TypeError, "incompatible function arguments",
               lambda: f.suggested_block_size(shared=-1))
        assert f.max_active_blocks_per_multiprocessor(128) == 16
        assert f.max_potential_cluster_size((128, 1, 1)) == 8
        assert f.max_potential_cluster_size(128, shared=4096) == 8
        raises(ValueError, "block x = 2048 exceeds the limit of 1024",
               lambda: f.max_potential_cluster_size(2048))
        assert f.max_active_clusters((2, 1, 1), (128, 1, 1)) == 32
        assert f.max_active_clusters(4, 128) == 16
        assert f.max_active_clusters((2, 2, 2), 128, shared=0) == 8
        raises(ValueError, "cluster[0] = 0 must be a positive int",
               lambda: f.max_active_clusters(0, 128))
        """,
    )


@needs_cc
def test_a_driver_without_the_entry_points_says_so(fake):
    run(
        fake,
        """
        f(buf, n, block=(32, 1, 1), grid=(2, 1))  # the plain launch needs none of them
        e = raises(drv.LogicError, "this driver has no cuLaunchKernelEx (CUDA 11.6",
                   lambda: f(buf, n, block=(32, 1, 1), grid=(2, 1), cluster=(2, 1, 1)))
        assert e.name == "CUDA_ERROR_NOT_SUPPORTED"
        raises(drv.LogicError, "cuOccupancyMaxPotentialClusterSize failed",
               lambda: f.max_potential_cluster_size(128))
        raises(drv.LogicError, "this driver does not provide it",
               lambda: f.max_active_clusters(2, 128))
        assert launches()["plain"] == 1
        """,
        HOSTEMU_WITHOUT="cuLaunchKernelEx,cuOccupancyMaxPotentialClusterSize,"
        "cuOccupancyMaxActiveClusters",
    )


@needs_cc
def test_a_device_without_clusters_says_so(fake):
    run(
        fake,
        """
        raises(drv.LogicError, "(compute capability 8.0) has no thread block clusters",
               lambda: f.max_potential_cluster_size(128))
        raises(drv.LogicError, "they need compute capability 9.0",
               lambda: f.max_active_clusters(2, 128))
        e = raises(drv.LogicError, "device 'HostEmu GPU' (compute capability 8.0) has no thread",
                   lambda: f(buf, n, block=(32, 1, 1), grid=(2, 1), cluster=(2, 1, 1)))
        assert e.routine == "cuLaunchKernelEx" and e.name == "CUDA_ERROR_NOT_SUPPORTED"
        f(buf, n, block=(32, 1, 1), grid=(2, 1), cooperative=True)  # cooperative is no cluster
        assert launches()["ex"] == 1 and launches()["cooperative"] == 1
        """,
        HOSTEMU_CC="80",
    )


# }}}

# {{{ GPU


def _cluster_capable() -> bool:
    return drv.Context.get_device().get_attribute(drv.device_attribute.CLUSTER_LAUNCH) == 1


@pytest.mark.gpu
def test_suggested_block_size_is_one_the_device_runs(ctx):
    f = compiler.SourceModule(SCALE).get_function("scale")
    dev = drv.Context.get_device()
    sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    for shared, limit in ((0, 0), (16 * 1024, 0), (0, 96)):
        min_grid, block = f.suggested_block_size(shared=shared, limit=limit)
        assert 0 < block <= f.max_threads_per_block, (shared, limit, block)
        assert block % dev.get_attribute(drv.device_attribute.WARP_SIZE) == 0
        if limit:
            assert block <= limit
        per_sm = f.max_active_blocks_per_multiprocessor(block, shared)
        assert per_sm >= 1 and min_grid == per_sm * sms, (min_grid, per_sm, sms)
    # Launched as suggested, the grid-stride kernel covers every element.
    n = 1_000_003
    host = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    dev_a = drv.to_device(host)
    min_grid, block = f.suggested_block_size()
    f(dev_a, np.float32(3), np.int32(n), block=(block, 1, 1), grid=(min_grid, 1))
    np.testing.assert_array_equal(drv.from_device_like(dev_a, host), host * np.float32(3))


@pytest.mark.gpu
def test_cluster_launch_gives_each_block_its_rank(ctx):
    f = compiler.SourceModule(CLUSTER_RANKS).get_function("cluster_ranks")
    if not _cluster_capable():
        with pytest.raises(drv.LogicError, match="compute capability 9.0"):
            f.max_potential_cluster_size(64)
        pytest.skip("the device has no thread block clusters (compute capability < 9.0)")
    grid, cluster = (8, 4, 2), (2, 2, 1)
    blocks = int(np.prod(grid))
    out = np.zeros(2 * blocks, np.uint32)
    dev_out = drv.to_device(out)
    f(dev_out, block=(64, 1, 1), grid=grid, cluster=cluster)
    got = drv.from_device_like(dev_out, out).reshape(blocks, 2)
    bz, by, bx = np.meshgrid(*(np.arange(g) for g in grid[::-1]), indexing="ij")
    rank = (bx % 2) + 2 * (by % 2)  # x fastest within the cluster, then y
    np.testing.assert_array_equal(got[:, 0], rank.ravel())
    np.testing.assert_array_equal(got[:, 1], np.full(blocks, 4))
    # prepared_call, the same
    f.prepare("P")
    drv.memset_d32(dev_out, 0, 2 * blocks)
    f.prepared_call(grid, (64, 1, 1), dev_out, cluster=cluster)
    np.testing.assert_array_equal(drv.from_device_like(dev_out, out).reshape(blocks, 2), got)


@pytest.mark.gpu
def test_cluster_occupancy_queries(ctx):
    f = compiler.SourceModule(CLUSTER_RANKS).get_function("cluster_ranks")
    if not _cluster_capable():
        pytest.skip("the device has no thread block clusters (compute capability < 9.0)")
    size = f.max_potential_cluster_size((128, 1, 1))
    assert 1 <= size <= 16, size
    assert f.max_potential_cluster_size(1024) >= 1
    assert f.max_active_clusters((2, 1, 1), 128) >= 1
    # The largest cluster it allows launches.
    out = drv.mem_alloc(2 * 4 * size)
    f(out, block=(128, 1, 1), grid=(size, 1), cluster=(size, 1, 1))
    drv.Context.synchronize()


@pytest.mark.gpu
def test_cooperative_launch_syncs_the_whole_grid(ctx):
    f = compiler.SourceModule(GRID_SYNC, no_extern_c=True).get_function("reverse_via_grid_sync")
    dev = drv.Context.get_device()
    if not dev.get_attribute(drv.device_attribute.COOPERATIVE_LAUNCH):
        pytest.skip("the device cannot launch cooperative kernels")
    sms = dev.get_attribute(drv.device_attribute.MULTIPROCESSOR_COUNT)
    resident = f.max_active_blocks_per_multiprocessor(128) * sms
    blocks = min(2 * sms, resident)
    n = 128 * blocks - 5
    scratch, out = drv.mem_alloc(4 * n), drv.mem_alloc(4 * n)
    f(scratch, out, np.int32(n), block=(128, 1, 1), grid=(blocks, 1), cooperative=True)
    got = np.empty(n, np.int32)
    drv.memcpy_dtoh(got, out)
    np.testing.assert_array_equal(got, np.arange(n, 0, -1, dtype=np.int32))
    f.prepare("PPi")
    drv.memset_d32(out, 0, n)
    f.prepared_call((blocks, 1), (128, 1, 1), scratch, out, n, cooperative=True)
    drv.memcpy_dtoh(got, out)
    np.testing.assert_array_equal(got, np.arange(n, 0, -1, dtype=np.int32))
    # One block more than fit at once: the driver refuses, and the message says how many fit.
    with pytest.raises(drv.LogicError, match=f"exceeds the {resident} that can be resident"):
        f(scratch, out, np.int32(n), block=(128, 1, 1), grid=(resident + 1, 1), cooperative=True)
    drv.Context.synchronize()  # the refused launch left the context usable


# }}}
