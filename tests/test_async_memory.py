"""Stream-ordered allocation (core/async_memory): MemPool, mem_alloc_async, StreamOrderedAllocator.

CPU tests check arguments without a driver, and run the rest in child interpreters against the
fake driver of tests/fake_libcuda.py (which emulates memory pools and their statistics, and
can withhold entry points as an older driver lacks them); GPU tests compare with NumPy.
"""

from __future__ import annotations

import gc

import fake_libcuda
import numpy as np
import pytest
from child_process import noise_in, run_python

import pycuda.driver as drv
from pycuda import _array_core, _operators, gpuarray, tools

ENTRIES = (
    "cuMemAllocAsync,cuMemFreeAsync,cuMemAllocFromPoolAsync,cuMemPoolCreate,cuMemPoolDestroy,"
    "cuMemPoolSetAttribute,cuMemPoolGetAttribute,cuMemPoolTrimTo,cuDeviceGetDefaultMemPool,"
    "cuDeviceGetMemPool"
)


# {{{ CPU, no driver


def test_bad_arguments_are_type_errors_before_any_driver_call():
    with pytest.raises(TypeError):
        drv.mem_alloc_async(-1)
    with pytest.raises(TypeError):
        drv.mem_alloc_async(8, pool="the default")
    with pytest.raises(TypeError, match="stream must be"):
        drv.mem_alloc_async(8, stream=object())
    with pytest.raises(TypeError):
        drv.StreamOrderedAllocator(pool=3)
    with pytest.raises(TypeError, match="stream must be"):
        drv.StreamOrderedAllocator(stream="s")
    with pytest.raises(TypeError):
        drv.MemPool(device="cuda:0")


def test_the_names_are_exported():
    assert tools.StreamOrderedAllocator is drv.StreamOrderedAllocator
    assert tools.StreamOrderedAllocation is drv.StreamOrderedAllocation
    assert callable(drv.mem_alloc_async) and callable(tools.set_default_allocator)


@pytest.fixture
def choice(monkeypatch):
    """The default-allocator choice, restored (to the environment's) after the test."""
    monkeypatch.delenv("PYCUDA_DEFAULT_ALLOCATOR", raising=False)
    yield
    tools.set_default_allocator(None)


def test_default_allocator_comes_from_the_environment(choice, monkeypatch):
    assert tools.get_default_allocator() == "pool"
    monkeypatch.setenv("PYCUDA_DEFAULT_ALLOCATOR", "stream_ordered")
    assert tools.get_default_allocator() == "stream_ordered"
    monkeypatch.setenv("PYCUDA_DEFAULT_ALLOCATOR", " ")
    assert tools.get_default_allocator() == "pool"
    monkeypatch.setenv("PYCUDA_DEFAULT_ALLOCATOR", "cupy")
    with pytest.raises(ValueError, match="PYCUDA_DEFAULT_ALLOCATOR.*'stream_ordered'.*'cupy'"):
        tools.get_default_allocator()
    # Read when a context's allocator is chosen (its first array, or In/Out, after
    # clear_context_caches()): a bad value fails there, before any driver call.
    tools.clear_context_caches()
    with pytest.raises(ValueError, match="PYCUDA_DEFAULT_ALLOCATOR"):
        _array_core.seams.default_allocator()


def test_set_default_allocator_overrides_the_environment(choice, monkeypatch):
    monkeypatch.setenv("PYCUDA_DEFAULT_ALLOCATOR", "stream_ordered")
    tools.set_default_allocator("pool")
    assert tools.get_default_allocator() == "pool"

    def factory():
        return drv.mem_alloc

    tools.set_default_allocator(factory)
    assert tools.get_default_allocator() is factory
    assert _array_core.seams.default_allocator() is drv.mem_alloc
    tools.set_default_allocator(None)
    assert tools.get_default_allocator() == "stream_ordered"
    with pytest.raises(ValueError, match="set_default_allocator.*'pool'"):
        tools.set_default_allocator("stream-ordered")
    tools.set_default_allocator(lambda: 42)
    with pytest.raises(TypeError, match="not callable"):
        _array_core.seams.default_allocator()


def test_set_default_allocator_forgets_the_context_states(choice):
    _array_core.STATES[12345] = _array_core.ContextState(None, drv.mem_alloc)
    assert not _array_core.STATES[12345].flat
    tools.set_default_allocator("stream_ordered")
    assert 12345 not in _array_core.STATES


# }}}

# {{{ CPU, against the fake driver


def test_a_driver_without_the_entries_gives_a_clear_error(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import gpuarray, tools
        calls = [
            lambda: drv.mem_alloc_async(8),
            lambda: drv.MemPool(),
            lambda: drv.MemPool.default(),
            lambda: drv.StreamOrderedAllocator(),
        ]
        for call in calls:
            try:
                call()
            except drv.LogicError as e:
                assert isinstance(e, drv.Error)
                assert "needs CUDA 11.2+" in str(e) and "cuMemAllocAsync" in str(e), e
                assert e.name == "CUDA_ERROR_NOT_SUPPORTED", e.name
            else:
                raise AssertionError("no error")
        drv.mem_alloc(8).free()  # the rest of the driver works
        tools.set_default_allocator("stream_ordered")
        try:
            gpuarray.empty(4, np.float32)
        except drv.LogicError as e:
            assert "needs CUDA 11.2+" in str(e)
        else:
            raise AssertionError("no error")
        tools.set_default_allocator("pool")
        assert gpuarray.zeros(4, np.float32).get().tolist() == [0, 0, 0, 0]
        print("ok")
        """,
        HOSTEMU_WITHOUT=ENTRIES,
    )
    # One entry missing is enough, and named.
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        try:
            drv.mem_alloc_async(8)
        except drv.LogicError as e:
            assert "lacks cuMemPoolTrimTo;" in str(e), e
        else:
            raise AssertionError("no error")
        """,
        HOSTEMU_WITHOUT="cuMemPoolTrimTo",
    )


def test_a_device_without_memory_pools_gives_a_clear_error(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import gpuarray, tools
        calls = [
            lambda: drv.mem_alloc_async(8),
            lambda: drv.MemPool(),
            lambda: drv.MemPool.default(ctx.get_device()),
            lambda: drv.MemPool.current(),
            lambda: drv.StreamOrderedAllocator(),
            lambda: tools.StreamOrderedAllocator(drv.Stream()),
        ]
        for call in calls:
            try:
                call()
            except drv.LogicError as e:
                assert "device 0 does not support memory pools" in str(e), e
                assert "MEMORY_POOLS_SUPPORTED" in str(e) and "DeviceMemoryPool" in str(e), e
                assert e.name == "CUDA_ERROR_NOT_SUPPORTED", e.name
            else:
                raise AssertionError("no error")
        tools.set_default_allocator("stream_ordered")
        try:
            gpuarray.zeros(4, np.float32)
        except drv.LogicError as e:
            assert "does not support memory pools" in str(e), e
        else:
            raise AssertionError("no error")
        tools.set_default_allocator(None)
        assert gpuarray.zeros(4, np.float32).get().tolist() == [0, 0, 0, 0]
        print("ok")
        """,
        HOSTEMU_NO_MEMORY_POOLS="1",
    )


def test_allocations_on_streams_and_pool_statistics(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        import gc
        pool = drv.MemPool()
        assert pool.owned and pool.device == ctx.get_device()
        assert pool != drv.MemPool.default() and drv.MemPool.default() == drv.MemPool.current()
        assert not drv.MemPool.default().owned
        assert (pool.reserved_current, pool.used_current, pool.release_threshold) == (0, 0, 0)

        s = drv.Stream()
        buf = drv.mem_alloc_async(1000, s, pool=pool)
        assert isinstance(buf, drv.StreamOrderedAllocation) and len(buf) == 1000
        assert int(buf) != 0 and buf.stream is s and "1000 bytes" in repr(buf)
        assert (pool.used_current, pool.reserved_current) == (1000, 1000)
        host = np.arange(250, dtype=np.float32)
        drv.memcpy_htod_async(buf, host, s)
        back = np.empty_like(host)
        drv.memcpy_dtoh_async(back, buf, s)
        s.synchronize()
        assert np.array_equal(back, host)
        try:
            drv.memcpy_htod(buf, np.zeros(1001, np.uint8))
        except ValueError as e:
            assert "1000" in str(e)
        else:
            raise AssertionError("the size is known")

        buf.free()
        assert pool.used_current == 0 and pool.reserved_current == 1000  # kept until a sync
        for use in (buf.free, lambda: int(buf)):
            try:
                use()
            except drv.LogicError as e:
                assert "freed" in str(e)
            else:
                raise AssertionError("used after free")
        assert "freed" in repr(buf)
        s.synchronize()  # the release threshold is 0: all unused memory goes back
        assert pool.reserved_current == 0

        pool.release_threshold = 1 << 20
        assert pool.release_threshold == 1 << 20
        other = drv.Stream()
        for size in (300, 500):
            b = drv.mem_alloc_async(size, s, pool=pool)
            b.free(stream=other)  # freed on another stream
        b = drv.mem_alloc_async(64, pool=pool)  # the default stream
        assert b.stream is None and pool.used_current == 64
        del b
        gc.collect()
        assert pool.used_current == 0
        ctx.synchronize()
        assert pool.reserved_current == 500  # below the threshold: kept
        assert (pool.reserved_high, pool.used_high) == (1000, 1000)
        pool.reset_high_water_marks()
        assert (pool.reserved_high, pool.used_high) == (500, 0)
        pool.trim(200)
        assert pool.reserved_current == 200
        pool.trim()
        assert pool.reserved_current == 0

        zero = drv.mem_alloc_async(0, pool=pool)
        assert int(zero) == 0 and len(zero) == 0 and pool.used_current == 0
        zero.free()

        # The device's current pool, used without a pool argument.
        default = drv.MemPool.default()
        before = default.used_current
        c = drv.mem_alloc_async(128)
        assert default.used_current == before + 128
        c.free()
        assert default.used_current == before
        print("ok")
        """,
    )


def test_allocator_counts_and_gpuarray(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        import gc
        from pycuda import gpuarray, tools
        pool = drv.MemPool()
        alloc = tools.StreamOrderedAllocator(pool=pool)
        assert alloc.pool == pool and alloc.stream is None
        assert (alloc.active_blocks, alloc.active_bytes, alloc.managed_bytes) == (0, 0, 0)
        assert alloc.held_bytes == 0
        x = np.arange(10, dtype=np.float64)
        a = gpuarray.to_gpu(x, allocator=alloc)
        assert isinstance(a.gpudata, drv.StreamOrderedAllocation) and a.allocator is alloc
        assert np.array_equal(a.get(), x)
        b = a.copy()
        assert b.allocator is alloc and isinstance(b.gpudata, drv.StreamOrderedAllocation)
        assert (alloc.active_blocks, alloc.active_bytes) == (2, 160)
        assert pool.used_current == 160 and alloc.managed_bytes == pool.reserved_current
        c = a + b  # results take the operands' allocator
        assert c.allocator is alloc and alloc.active_blocks == 3
        assert alloc(0) is not None and alloc.active_blocks == 3  # size 0: counted nowhere
        del a, b, c
        gc.collect()
        assert (alloc.active_blocks, alloc.active_bytes, pool.used_current) == (0, 0, 0)
        pool.release_threshold = 1 << 30
        alloc.allocate(4096).free()
        ctx.synchronize()
        assert pool.reserved_current == 4096 and alloc.held_bytes == 4096
        keep = alloc(1000)
        assert alloc.held_bytes == 3096 and alloc.managed_bytes == 4096
        del keep
        alloc.free_held()
        assert pool.reserved_current == 0 and alloc.held_bytes == 0

        s = drv.Stream()
        on_stream = tools.StreamOrderedAllocator(stream=s)
        assert on_stream.stream is s and on_stream.pool == drv.MemPool.current()
        block = on_stream(64)
        assert block.stream is s
        del s  # the allocator and its blocks keep the stream alive
        gc.collect()
        block.free()

        # 10**4 allocations through the allocator and through arrays leave nothing in use.
        for i in range(10_000):
            alloc(1 + i % 777)
        for i in range(2_000):
            gpuarray.empty(1 + i % 100, np.float32, allocator=alloc).fill(1)
        gc.collect()
        assert (alloc.active_blocks, alloc.active_bytes, pool.used_current) == (0, 0, 0)
        print("ok")
        """,
    )


def test_the_default_allocator_setting(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import _operators, gpuarray, tools
        a = gpuarray.zeros(64, np.float32)
        assert isinstance(a.gpudata, drv.StreamOrderedAllocation), type(a.gpudata)
        alloc = a.allocator
        assert isinstance(alloc, drv.StreamOrderedAllocator) and alloc.pool == drv.MemPool.current()
        assert gpuarray.empty(3, np.int32).allocator is alloc  # one per context
        results = [a + a for _ in range(3)] + [a * 2.0 for _ in range(3)]
        assert len(_operators.FLAT) >= 2  # the later ones were served in C++
        for r in results:
            assert r.allocator is alloc and isinstance(r.gpudata, drv.StreamOrderedAllocation)
        active = alloc.active_blocks
        del results, r
        assert alloc.active_blocks == active - 6

        tools.set_default_allocator("pool")
        b = gpuarray.zeros(64, np.float32)
        assert isinstance(b.gpudata, drv.PooledDeviceAllocation)
        assert isinstance(a.gpudata, drv.StreamOrderedAllocation) and (a + a).allocator is alloc

        pool = drv.MemPool()
        tools.set_default_allocator(lambda: drv.StreamOrderedAllocator(pool=pool))
        c = gpuarray.empty(100, np.float64)
        assert pool.used_current == 800 and (c + c).allocator is c.allocator
        assert c.allocator is not alloc
        print("ok")
        """,
        PYCUDA_DEFAULT_ALLOCATOR="stream_ordered",
    )


def test_exit_and_fork_with_live_allocations(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        import gc, os
        from pycuda import gpuarray, tools
        pool = drv.MemPool()
        alloc = tools.StreamOrderedAllocator(drv.Stream(), pool)
        kept = [drv.mem_alloc_async(64, pool=pool), alloc(128),
                gpuarray.empty(8, np.float32, allocator=alloc)]
        pid = os.fork()
        if pid == 0:  # the child frees nothing of its parent's (and does not crash trying)
            del kept, alloc, pool
            gc.collect()
            os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert status == 0, status
        assert pool.used_current == 64 + 128 + 32
        # Still alive at exit (with the context, stream and pool they hold): no noise.
        ctx.pop()
        print("ok")
        """,
    )


# }}}

# {{{ GPU


@pytest.fixture
def default_choice():
    yield
    tools.set_default_allocator(None)


@pytest.mark.gpu
@pytest.mark.parametrize("flags", [None, 0, drv.stream_flags.NON_BLOCKING])
def test_gpu_allocate_use_and_free_on_streams(ctx, flags):
    stream = None if flags is None else drv.Stream(flags)
    x = np.random.default_rng(1).standard_normal(100_003).astype(np.float32)
    buf = drv.mem_alloc_async(x.nbytes, stream)
    drv.memcpy_htod_async(buf, x, stream)
    back = drv.pagelocked_empty_like(x)
    drv.memcpy_dtoh_async(back, buf, stream)
    (stream or ctx).synchronize()
    assert np.array_equal(back, x)
    buf.free()
    # Freed on another stream, after an event orders it behind the use.
    other = drv.Stream()
    buf = drv.mem_alloc_async(x.nbytes, stream)
    drv.memcpy_htod_async(buf, x, stream)
    done = drv.Event().record(stream)
    other.wait_for_event(done)
    buf.free(stream=other)
    other.synchronize()
    with pytest.raises(drv.LogicError, match="freed"):
        buf.free()


@pytest.mark.gpu
def test_gpu_kernel_arguments_and_array_interface(ctx):
    from pycuda.compiler import SourceModule

    mod = SourceModule(
        "__global__ void twice(float *a, int n)"
        "{ int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] *= 2; }"
    )
    twice = mod.get_function("twice")
    x = np.arange(1000, dtype=np.float32)
    buf = drv.mem_alloc_async(x.nbytes)
    drv.memcpy_htod(buf, x)
    twice(buf, np.int32(x.size), block=(256, 1, 1), grid=(4, 1))
    a = gpuarray.GPUArray(x.shape, x.dtype, gpudata=buf)
    assert a.__cuda_array_interface__["data"][0] == int(buf)
    assert np.array_equal(a.get(), 2 * x)


@pytest.mark.gpu
def test_gpu_gpuarray_arithmetic_with_the_allocator(ctx):
    from pycuda import cumath

    alloc = drv.StreamOrderedAllocator()
    rng = np.random.default_rng(2)
    x = rng.uniform(1, 2, 30_001).astype(np.float32)
    y = rng.uniform(1, 2, 30_001).astype(np.float32)
    a = gpuarray.to_gpu(x, allocator=alloc)
    b = gpuarray.to_gpu(y, allocator=alloc)
    for _ in range(3):
        r = (a + b) * 2 - a / 3
        assert r.allocator is alloc and isinstance(r.gpudata, drv.StreamOrderedAllocation)
        np.testing.assert_allclose(r.get(), (x + y) * 2 - x / 3, rtol=1e-6)
    np.testing.assert_allclose(cumath.sqrt(a).get(), np.sqrt(x), rtol=1e-6)
    np.testing.assert_allclose(gpuarray.sum(a).get(), x.sum(dtype=np.float64), rtol=1e-4)
    np.testing.assert_allclose(a.reshape(19, -1)[1:].get(), x.reshape(19, -1)[1:])
    assert alloc.active_blocks >= 2


@pytest.mark.gpu
def test_gpu_default_allocator_setting_and_flat_launches(ctx, default_choice):
    tools.set_default_allocator("stream_ordered")
    x = np.arange(4096, dtype=np.float32)
    a = gpuarray.to_gpu(x)
    assert isinstance(a.allocator, drv.StreamOrderedAllocator)
    served = len(_operators.FLAT)
    for _ in range(4):
        r = a + a
        assert isinstance(r.gpudata, drv.StreamOrderedAllocation) and r.allocator is a.allocator
        assert np.array_equal(r.get(), 2 * x)
        s = a * 3.0
        assert np.array_equal(s.get(), 3 * x)
    assert len(_operators.FLAT) > served
    tools.set_default_allocator("pool")
    assert isinstance(gpuarray.to_gpu(x).gpudata, drv.PooledDeviceAllocation)
    assert np.array_equal((a + a).get(), 2 * x)  # old arrays keep their allocator


@pytest.mark.gpu
def test_gpu_pool_statistics_and_trim(ctx):
    pool = drv.MemPool()
    pool.release_threshold = 2**64 - 1  # keep everything across synchronizations
    assert pool.release_threshold == 2**64 - 1
    n = 8 << 20
    blocks = [drv.mem_alloc_async(n, pool=pool) for _ in range(3)]
    assert pool.used_current >= 3 * n and pool.reserved_current >= pool.used_current
    assert pool.used_high >= 3 * n
    for block in blocks:
        block.free()
    ctx.synchronize()
    assert pool.used_current == 0 and pool.reserved_current >= 3 * n  # kept
    pool.reset_high_water_marks()
    assert pool.used_high == 0 and pool.reserved_high == pool.reserved_current
    pool.trim(0)
    assert pool.reserved_current == 0


@pytest.mark.gpu
def test_gpu_allocator_statistics_and_free_held(ctx):
    pool = drv.MemPool()
    pool.release_threshold = 1 << 30
    alloc = drv.StreamOrderedAllocator(pool=pool)
    x = np.arange(1 << 20, dtype=np.float32)
    a = gpuarray.to_gpu(x, allocator=alloc)
    assert (alloc.active_blocks, alloc.active_bytes) == (1, x.nbytes)
    assert pool.used_current >= x.nbytes and alloc.managed_bytes >= x.nbytes
    b = a * 2
    assert np.array_equal(b.get(), 2 * x)
    assert (alloc.active_blocks, alloc.active_bytes) == (2, 2 * x.nbytes)
    assert pool.used_high >= 2 * x.nbytes
    del a, b
    ctx.synchronize()
    assert (alloc.active_blocks, pool.used_current) == (0, 0)
    assert alloc.held_bytes == pool.reserved_current >= 2 * x.nbytes  # below the threshold
    alloc.free_held()
    assert alloc.held_bytes == 0 and pool.reserved_current == 0


@pytest.mark.gpu
def test_gpu_default_allocator_from_the_environment():
    proc = run_python(
        """
        import numpy as np
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda import gpuarray
        x = np.linspace(0, 1, 10_000, dtype=np.float32)
        a = gpuarray.to_gpu(x)
        assert isinstance(a.gpudata, drv.StreamOrderedAllocation), type(a.gpudata)
        assert isinstance(a.allocator, drv.StreamOrderedAllocator)
        for _ in range(3):
            r = (a + a) * 3
            assert r.allocator is a.allocator
            assert np.allclose(r.get(), (x + x) * 3)
        print("ok")
        """,
        PYCUDA_DEFAULT_ALLOCATOR="stream_ordered",
    )
    assert proc.returncode == 0 and not noise_in(proc.stderr), proc.stdout + proc.stderr
    assert proc.stdout.strip() == "ok"


@pytest.mark.gpu
def test_gpu_device_pools(ctx):
    default = drv.MemPool.default()
    assert not default.owned and default.device == ctx.get_device()
    assert drv.MemPool.current() == default  # nothing here sets another
    alloc = drv.StreamOrderedAllocator()
    assert alloc.pool == default and alloc.managed_bytes == default.reserved_current


@pytest.mark.gpu
def test_gpu_no_leak_over_ten_thousand_allocations(ctx):
    pool = drv.MemPool()
    alloc = drv.StreamOrderedAllocator(pool=pool)
    for i in range(10_000):
        alloc(1 + (i * 7919) % (1 << 16))
    x = np.ones(1000, np.float32)
    a = gpuarray.to_gpu(x, allocator=alloc)
    for _ in range(2_000):
        a = a + 1
    assert np.array_equal(a.get(), x + 2000)
    del a
    gc.collect()
    ctx.synchronize()
    assert (alloc.active_blocks, alloc.active_bytes) == (0, 0)
    assert pool.used_current == 0
    pool.trim(0)
    assert pool.reserved_current == 0


# }}}
