"""Running out of device memory: an allocation that fails first collects garbage and frees the
blocks every DeviceMemoryPool holds, then retries, and only then raises
pycuda.driver.MemoryError; GPUArray operations that run out leave their operands as they were
and leak nothing (GPU tests; each fills the device with plain cuMemAlloc blocks, never managed
memory, and frees everything before it ends)."""

from __future__ import annotations

import gc
import os

import numpy as np
import pytest

pytestmark = [
    pytest.mark.gpu,
    # These fill the device's memory and measure what is free: beside other test processes
    # (pytest-xdist workers sharing the GPU) both the outcome and the others' tests would be
    # racy. scripts/gpu_reliability.sh runs them alone.
    pytest.mark.skipif(
        os.environ.get("PYTEST_XDIST_WORKER") is not None,
        reason="fills the GPU's memory: runs alone (scripts/gpu_reliability.sh), not beside "
        "other pytest-xdist workers",
    ),
]

MIB = 1 << 20
GIB = 1 << 30
# Free memory moves by the driver's granularity (2 MiB pages) and its own bookkeeping.
LEAK_TOLERANCE = 16 * MIB


def _drain_pools(drv) -> None:
    """Frees what every pool holds, through the public door: a failing allocation collects
    garbage and empties the pools before it raises."""
    gc.collect()
    with pytest.raises(drv.MemoryError):
        drv.mem_alloc(drv.Context.get_device().total_memory() + GIB)


def _free_bytes(drv) -> int:
    drv.Context.synchronize()
    return drv.mem_get_info()[0]


def _fill_leaving(drv, headroom: int) -> list:
    """cuMemAlloc blocks that leave between `headroom` and `headroom` + 64 MiB free."""
    blocks = []
    size = _free_bytes(drv) - headroom
    while size >= 64 * MIB:
        try:
            blocks.append(drv.mem_alloc(size))
        except drv.MemoryError:
            size //= 2  # the free figure includes memory one block cannot take
            continue
        size = _free_bytes(drv) - headroom
    return blocks


def _warm_up_kernels(gpuarray, cumath) -> None:
    """Compiles and loads the kernels below while memory is plentiful (a module load also
    takes device memory)."""
    a = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
    for result in (a + 1, a * 2, cumath.exp(a), a.astype(np.float64), gpuarray.sum(a)):
        result.get()
    a *= 2


def test_impossible_allocations_raise_memory_error_and_leak_nothing(ctx):
    import pycuda.driver as drv
    from pycuda import gpuarray

    _drain_pools(drv)
    before = _free_bytes(drv)
    too_big = drv.Context.get_device().total_memory() + GIB
    pool = drv.DeviceMemoryPool()
    for what, call in [
        ("mem_alloc", lambda: drv.mem_alloc(too_big)),
        ("pool.allocate", lambda: pool.allocate(too_big)),
        ("gpuarray.empty", lambda: gpuarray.empty(too_big // 4, np.float32)),
        ("gpuarray.zeros", lambda: gpuarray.zeros(too_big // 8, np.float64)),
    ]:
        with pytest.raises(drv.MemoryError) as info:
            call()
        assert isinstance(info.value, drv.Error), what
        assert "CUDA_ERROR_OUT_OF_MEMORY" in str(info.value), (what, str(info.value))
        assert info.value.name == "CUDA_ERROR_OUT_OF_MEMORY"
    assert pool.active_blocks == 0 and pool.held_blocks == 0
    assert abs(_free_bytes(drv) - before) <= LEAK_TOLERANCE


def test_running_out_frees_blocks_held_by_pools_then_retries(ctx):
    import pycuda.driver as drv
    from pycuda import gpuarray

    _drain_pools(drv)
    before = _free_bytes(drv)
    filler = _fill_leaving(drv, 3 * GIB)
    try:
        pool = drv.DeviceMemoryPool()
        for block in [pool.allocate(512 * MIB) for _ in range(4)]:
            block.free()
        assert pool.held_blocks == 4  # 2 GiB held, about 1 GiB free on the device
        assert _free_bytes(drv) < 2 * GIB

        # A direct allocation that fits only in what the pool holds.
        big = drv.mem_alloc(2 * GIB)
        assert pool.held_blocks == 0
        big.free()

        # Another pool's allocation and a GPUArray (the context's pool), the same way.
        for block in [pool.allocate(512 * MIB) for _ in range(4)]:
            block.free()
        other = drv.DeviceMemoryPool()
        lent = other.allocate(2 * GIB)
        assert pool.held_blocks == 0
        lent.free()
        other.free_held()
        for block in [pool.allocate(512 * MIB) for _ in range(4)]:
            block.free()
        a = gpuarray.empty((2 * GIB) // 4, np.float32)
        assert pool.held_blocks == 0
        a.fill(1)
        assert float(gpuarray.max(a).get()) == 1.0
        del a, big, lent, other, pool
    finally:
        del filler
    _drain_pools(drv)
    assert abs(_free_bytes(drv) - before) <= LEAK_TOLERANCE


def test_running_out_collects_garbage_then_retries(ctx):
    import pycuda.driver as drv

    _drain_pools(drv)
    before = _free_bytes(drv)
    filler = _fill_leaving(drv, 3 * GIB)

    class Cycle:
        pass

    gc.disable()
    try:
        # Unreachable but uncollected: 2 GiB that only gc.collect() gives back.
        c = Cycle()
        c.me = c
        c.memory = drv.mem_alloc(2 * GIB)
        del c
        assert _free_bytes(drv) < 2 * GIB
        got = drv.mem_alloc(2 * GIB)
        got.free()
    finally:
        gc.enable()
        del filler
    _drain_pools(drv)
    assert abs(_free_bytes(drv) - before) <= LEAK_TOLERANCE


def test_gpuarray_operations_that_run_out_leave_no_partial_state(ctx):
    import pycuda.driver as drv
    from pycuda import cumath, gpuarray

    _warm_up_kernels(gpuarray, cumath)
    _drain_pools(drv)
    before = _free_bytes(drv)
    n = (176 * MIB) // 4
    host = np.arange(n, dtype=np.float32) % 1000
    filler = _fill_leaving(drv, 256 * MIB)  # leaves 256 to 320 MiB
    try:
        a = gpuarray.to_gpu(host)  # 176 MiB of those: no room for a second one
        for what, call in [
            ("a + 1", lambda a: a + 1),
            ("cumath.exp", cumath.exp),
            ("astype", lambda a: a.astype(np.float64)),
            ("copy", lambda a: a.copy()),
            ("to_gpu", lambda a: gpuarray.to_gpu(np.ones(2 * n, np.float32))),
        ]:
            with pytest.raises(drv.MemoryError):
                call(a)
            np.testing.assert_array_equal(a[:1000].get(), host[:1000], err_msg=what)
        # Operations that need no new array still work under pressure.
        a *= 2
        assert float(gpuarray.sum(a[:1000]).get()) == float((2 * host[:1000]).sum())
        np.testing.assert_array_equal(a.get(), 2 * host)
        del a
    finally:
        del filler
    _drain_pools(drv)
    assert abs(_free_bytes(drv) - before) <= LEAK_TOLERANCE
