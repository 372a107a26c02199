"""Memory pools of pycuda.tools, exported from pycuda._driver (§1.10, §1.2.15)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import pycuda.driver as drv

# --- without a GPU: bin arithmetic, construction, zero-size blocks -------------------------


@pytest.mark.parametrize(
    "n,expected", [(0, 0), (1, 0), (2, 1), (3, 1), (1023, 9), (1024, 10), (2**40 + 1, 40)]
)
def test_bitlog2(n, expected):
    assert drv.bitlog2(n) == expected


@pytest.mark.parametrize("pool_class", [drv.DeviceMemoryPool, drv.PageLockedMemoryPool])
def test_bins_hold_requests_with_bounded_waste(pool_class):
    for size in list(range(1, 2000)) + [2**20 + 1, 3 * 2**30 + 7]:
        block = pool_class.alloc_size(pool_class.bin_number(size))
        assert size <= block <= size + size // 16, size


def test_bin_number_is_monotonic():
    bins = [drv.DeviceMemoryPool.bin_number(n) for n in range(1, 5000)]
    assert bins == sorted(bins)


def test_pools_construct_without_a_driver_call():
    pool = drv.DeviceMemoryPool()
    assert (pool.held_blocks, pool.active_blocks, pool.managed_bytes, pool.active_bytes) == (
        0,
        0,
        0,
        0,
    )
    pool.free_held()
    pool.stop_holding()
    host = drv.PageLockedMemoryPool()
    assert host.active_blocks == 0
    drv.PageLockedMemoryPool(drv.PageLockedAllocator(drv.host_alloc_flags.PORTABLE))
    assert drv.PageLockedAllocator(4).flags == 4


def test_zero_size_needs_no_memory():
    pool = drv.DeviceMemoryPool()
    block = pool.allocate(0)
    assert isinstance(block, drv.PooledDeviceAllocation)
    assert int(block) == 0 and len(block) == 0
    block.free()
    with pytest.raises(drv.LogicError, match="freed"):
        block.free()
    host = drv.PageLockedMemoryPool().allocate((0, 3), np.float32)
    assert host.shape == (0, 3) and isinstance(host.base, drv.PooledHostAllocation)


def test_host_pool_bad_order():
    with pytest.raises(ValueError, match="order"):
        drv.PageLockedMemoryPool().allocate((2,), np.float32, order="K")


# --- on a GPU ----------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_pool_reuse_and_statistics(ctx):
    pool = drv.DeviceMemoryPool()
    a = pool.allocate(1000)
    assert isinstance(a, drv.PooledDeviceAllocation)
    assert len(a) == 1000
    block = pool.alloc_size(pool.bin_number(1000))
    assert (pool.active_blocks, pool.active_bytes, pool.managed_bytes) == (1, block, block)
    ptr = int(a)
    a.free()
    assert (pool.active_blocks, pool.held_blocks, pool.managed_bytes) == (0, 1, block)
    b = pool.allocate(1010)  # same bin: the held block comes back
    assert int(b) == ptr
    del b
    assert pool.held_blocks == 1
    pool.free_held()
    assert (pool.held_blocks, pool.managed_bytes) == (0, 0)


@pytest.mark.gpu
def test_pooled_allocations_work_as_device_pointers(ctx):
    pool = drv.DeviceMemoryPool()
    a = np.arange(100, dtype=np.float64)
    block = pool.allocate(a.nbytes)
    drv.memcpy_htod(block, a)
    np.testing.assert_array_equal(drv.from_device_like(block, a), a)
    with pytest.raises(ValueError, match="only 800"):
        drv.memcpy_htod(block, np.zeros(101))
    block.free()
    with pytest.raises(drv.LogicError, match="freed"):
        int(block)
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memcpy_dtoh(a, block)


@pytest.mark.gpu
def test_stop_holding(ctx):
    pool = drv.DeviceMemoryPool()
    pool.allocate(4096).free()
    assert pool.held_blocks == 1
    pool.stop_holding()
    assert pool.held_blocks == 0
    pool.allocate(4096).free()
    assert pool.held_blocks == 0 and pool.managed_bytes == 0


@pytest.mark.gpu
def test_out_of_memory_frees_held_blocks_then_raises(ctx):
    pool = drv.DeviceMemoryPool()
    pool.allocate(1 << 20).free()
    free, total = drv.mem_get_info()
    with pytest.raises(drv.MemoryError):
        pool.allocate(total * 2)
    assert pool.held_blocks == 0  # given back while trying
    pool.allocate(1 << 20).free()  # still usable


@pytest.mark.gpu
def test_pool_outlives_its_user_and_frees_in_its_context(ctx):
    pool = drv.DeviceMemoryPool()
    blocks = [pool.allocate(n) for n in (10, 1000, 100000)]
    del pool  # the blocks keep the pool alive
    drv.Context.pop()  # returns nothing; the fixture context is pushed back below
    try:
        del blocks[:]  # freed into the pool, which then frees them in its own context
    finally:
        ctx.push()


@pytest.mark.gpu
def test_page_locked_pool(ctx):
    pool = drv.PageLockedMemoryPool()
    a = pool.allocate((16, 4), np.float32)
    assert isinstance(a.base, drv.PooledHostAllocation)
    assert len(a.base) == a.nbytes
    a[:] = 3
    buf = drv.to_device(a)
    np.testing.assert_array_equal(drv.from_device_like(buf, a), 3)
    f = pool.allocate((5, 7), np.int16, order="F")
    assert f.flags.f_contiguous
    assert pool.active_blocks == 2
    base = a.base
    del a
    base.free()
    assert pool.active_blocks == 1 and pool.held_blocks == 1
    with pytest.raises(drv.LogicError, match="freed"):
        base.free()
    again = pool.allocate(64, np.float32)  # 256 bytes: the same bin as the freed block
    assert pool.held_blocks == 0 and again.nbytes == 256


@pytest.mark.gpu
def test_page_locked_pool_flags(ctx):
    pool = drv.PageLockedMemoryPool(drv.PageLockedAllocator(drv.host_alloc_flags.DEVICEMAP))
    a = pool.allocate(32, np.uint8)
    a[:] = 7
    assert a.base is not None


@pytest.mark.gpu
def test_pools_alive_at_interpreter_exit_do_not_abort():
    script = textwrap.dedent(
        """
        import numpy as np
        import pycuda.driver as drv
        drv.init()
        ctx = drv.Device(0).retain_primary_context()
        ctx.push()
        pool = drv.DeviceMemoryPool()
        blocks = [pool.allocate(1 << k) for k in range(4, 20)]
        pool.allocate(4096).free()
        host = drv.PageLockedMemoryPool()
        arrays = [host.allocate((100,), np.float32) for _ in range(3)]
        buf = drv.mem_alloc(100)
        pinned = drv.pagelocked_empty(10, np.float32)
        # no pop, no free: everything is left to interpreter shutdown
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "abort" not in done.stderr.lower()
