"""Pageable memcpy_htod/memcpy_dtoh through page-locked staging buffers (core/staged_copy).

CPU tests run each case in a child interpreter against the fake driver (tests/fake_libcuda.py),
which defers page-locked async copies until an event is synchronized (so a staging buffer reused
too early gives wrong data) and counts the copies it ran. GPU tests repeat the identity checks on a
device with 256 MiB, kernels and a user stream.
"""

from __future__ import annotations

import textwrap
import threading

import fake_libcuda
import numpy as np
import pytest

import pycuda.driver as drv
from pycuda import _driver

# {{{ CPU, against the fake driver


def test_sizes_around_the_threshold_and_the_chunks(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        cfg = _driver._staged_copy_config()
        T, B = cfg["threshold"], cfg["buffer_bytes"]
        rng = np.random.default_rng(0)

        def read_back(dev, n):  # page-locked: the driver's own copy, never staged
            out = drv.pagelocked_empty(n, np.uint8)
            drv.memcpy_dtoh(out, dev)
            return out

        for n in [0, 1, T - 1, T, T + 1, 4 * T + 12345, 5 * B + 4097]:
            staged = n >= T
            chunks = -(-n // _driver._staging_chunk_bytes(n)) if staged else 0
            for offset in (0, 3):  # unaligned host pointers
                src = rng.integers(0, 256, n + offset, dtype=np.uint8)[offset:]
                dev = drv.mem_alloc(max(n, 1))
                before = stats()
                drv.memcpy_htod(dev, src)
                after = stats()
                assert after["async_htod"] - before["async_htod"] == chunks, (n, after, before)
                assert after["sync_htod"] - before["sync_htod"] == (not staged), n
                assert after["pending"] == 0, n  # all on the device when the call returns
                assert np.array_equal(read_back(dev, n), src), n

                # dtoh: the device written through page-locked memory, read into pageable.
                pinned = drv.pagelocked_empty(n, np.uint8)
                pinned[:] = rng.integers(0, 256, n, dtype=np.uint8)
                drv.memcpy_htod(dev, pinned)
                dest = np.full(n + 5, 7, np.uint8)[5 - offset:][:n]
                before = stats()
                drv.memcpy_dtoh(dest, dev)
                after = stats()
                assert after["async_dtoh"] - before["async_dtoh"] == chunks, n
                assert after["sync_dtoh"] - before["sync_dtoh"] == (not staged), n
                assert np.array_equal(dest, pinned), n
                dev.free()
        print("ok")
    """,
    )


def test_known_memory_and_async_forms_are_not_staged(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        n = 3 * _driver._staged_copy_config()["threshold"]
        a = np.random.default_rng(1).integers(0, 256, n, dtype=np.uint8)
        dev = drv.mem_alloc(n)
        stream = drv.Stream()

        def direct(copy, *args):
            before = stats()
            copy(*args)
            after = stats()
            assert after["async_htod"] == before["async_htod"], copy
            assert after["async_dtoh"] == before["async_dtoh"], copy

        pinned = drv.pagelocked_empty(n, np.uint8)
        pinned[:] = a
        direct(drv.memcpy_htod, dev, pinned)
        pinned[:] = 0
        direct(drv.memcpy_dtoh, pinned, dev)
        assert np.array_equal(pinned, a)

        registered = drv.register_host_memory(np.zeros(n, np.uint8))
        direct(drv.memcpy_dtoh, registered, dev)
        assert np.array_equal(registered, a)
        direct(drv.memcpy_htod, dev, registered)

        # The async forms keep the driver's own handling of pageable memory.
        b = a[::-1].copy()
        direct(drv.memcpy_htod_async, dev, b, stream)
        back = np.zeros_like(b)
        direct(drv.memcpy_dtoh_async, back, dev, stream)
        stream.synchronize()
        assert np.array_equal(back, b)
        assert _driver._staging_bytes_held() == 0

        # Non-contiguous buffers are refused as before, in both directions.
        for call in (lambda: drv.memcpy_htod(dev, a[::2]),
                     lambda: drv.memcpy_dtoh(back[::2], dev)):
            try:
                call()
            except ValueError as exc:
                assert "contiguous" in str(exc)
            else:
                raise AssertionError("a strided buffer was accepted")
        print("ok")
    """,
    )


def test_arrays_and_argument_handlers_are_staged(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import gpuarray

        a = np.random.default_rng(2).standard_normal(1 << 20).astype(np.float32)  # 4 MiB

        def staged(direction, run):
            before = stats()
            result = run()
            after = stats()
            assert after["async_" + direction] > before["async_" + direction], direction
            assert after["sync_" + direction] == before["sync_" + direction], direction
            return result

        g = staged("htod", lambda: gpuarray.to_gpu(a))
        assert np.array_equal(staged("dtoh", g.get), a)
        staged("htod", lambda: g.set(-a))
        out = np.empty_like(a)
        staged("dtoh", lambda: g.get(out))
        assert np.array_equal(out, -a)

        inout = drv.InOut(a.copy())
        staged("htod", lambda: inout.pre_call(None))
        dev = inout.get_device_alloc()
        check = drv.pagelocked_empty(a.shape, a.dtype)
        drv.memcpy_dtoh(check, dev)
        assert np.array_equal(check, a)
        check *= 2  # what a kernel would have done
        drv.memcpy_htod(dev, check)
        staged("dtoh", lambda: inout.post_call(None))
        assert np.array_equal(inout.array, 2 * a)

        target = np.zeros_like(a)
        out_handler = drv.Out(target)
        out_handler.dev_alloc = dev
        staged("dtoh", lambda: out_handler.post_call(None))
        assert np.array_equal(target, 2 * a)
        in_handler = drv.In(a)
        staged("htod", lambda: in_handler.pre_call(None))
        drv.memcpy_dtoh(check, in_handler.get_device_alloc())
        assert np.array_equal(check, a)

        dev2 = staged("htod", lambda: drv.to_device(a))
        assert np.array_equal(staged("dtoh", lambda: drv.from_device_like(dev2, a)), a)
        print("ok")
    """,
    )


def test_four_threads_at_once(fake_libcuda_so):
    out = fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        cfg = _driver._staged_copy_config()
        T, B = cfg["threshold"], cfg["buffer_bytes"]
        errors = []
        start = threading.Barrier(4)

        def work(seed):
            ctx.push()
            try:
                rng = np.random.default_rng(seed)
                start.wait()
                for _ in range(6):
                    n = int(rng.integers(T - 10, 3 * B + 10))
                    a = rng.integers(0, 256, n, dtype=np.uint8)
                    dev = drv.mem_alloc(n)
                    drv.memcpy_htod(dev, a)
                    b = np.empty_like(a)
                    drv.memcpy_dtoh(b, dev)
                    if not np.array_equal(a, b):
                        errors.append(f"thread {seed}: {n} bytes differ")
                    dev.free()
            except Exception as exc:
                errors.append(f"thread {seed}: {exc!r}")
            finally:
                drv.Context.pop()

        threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors, errors
        held = _driver._staging_bytes_held()
        assert 0 < held <= cfg["buffers"] * B, held  # one set for the context, however many threads
        assert stats()["live_host_bytes"] == held
        print("ok")
    """,
    )
    assert out.strip() == "ok"


def test_staging_is_bounded_and_freed_with_its_context(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        import gc

        cfg = _driver._staged_copy_config()
        full = cfg["buffers"] * cfg["buffer_bytes"]
        a = np.arange(full // 2, dtype=np.uint32)  # 4 chunks or more: every buffer used
        b = np.empty_like(a)
        dev = drv.mem_alloc(a.nbytes)
        assert _driver._staging_bytes_held() == 0 and stats()["live_host_allocs"] == 0
        for i in range(12):
            drv.memcpy_htod(dev, a[: a.size // (i % 4 + 1)])
            drv.memcpy_dtoh(b, dev)
        assert _driver._staging_bytes_held() == full
        assert stats()["live_host_allocs"] == cfg["buffers"]
        assert stats()["live_host_bytes"] == full

        _driver._free_staging_buffers()
        assert _driver._staging_bytes_held() == 0 and stats()["live_host_allocs"] == 0
        drv.memcpy_htod(dev, a)
        assert _driver._staging_bytes_held() == full

        # Another context has its own set, freed when that context goes.
        other = drv.Device(0).make_context()
        dev2 = drv.mem_alloc(a.nbytes)
        drv.memcpy_htod(dev2, a)
        assert _driver._staging_bytes_held() == 2 * full
        drv.Context.pop()
        del dev2
        other.detach()
        gc.collect()
        assert _driver._staging_bytes_held() == full
        assert stats()["live_host_bytes"] == full

        del dev
        drv.Context.pop()
        ctx.detach()
        gc.collect()
        assert _driver._staging_bytes_held() == 0
        assert stats()["live_host_allocs"] == 0

        # A context that keeps its buffers until exit leaves cleanly (the runner checks stderr).
        last = drv.Device(0).make_context()
        drv.memcpy_htod(drv.mem_alloc(a.nbytes), a)
        assert _driver._staging_bytes_held() == full
        print("ok")
    """,
    )


def test_a_child_forked_after_staging_is_refused_not_hung(fake_libcuda_so):
    out = fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        a = np.ones(4 * _driver._staged_copy_config()["threshold"], np.uint8)
        dev = drv.mem_alloc(a.nbytes)
        drv.memcpy_htod(dev, a)  # staging set and memcpy workers exist now
        pid = os.fork()
        if pid == 0:
            try:
                drv.memcpy_htod(dev, a)
            except drv.Error as exc:
                os._exit(0 if "forked" in str(exc) else 3)
            os._exit(4)
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, status
        drv.memcpy_dtoh(a, dev)  # the parent goes on
        print("ok")
        """,
        timeout=120,
    )
    assert out.strip() == "ok"


def test_staging_constants_are_consistent():
    cfg = _driver._staged_copy_config()
    assert 1 << 20 <= cfg["threshold"] <= 4 << 20
    assert cfg["buffers"] >= 2
    assert cfg["min_chunk"] <= cfg["buffer_bytes"]
    assert 1 <= cfg["memcpy_threads"] <= 16
    big = _driver._staging_chunk_bytes(256 << 20)
    assert big == cfg["buffer_bytes"]
    assert _driver._staging_chunk_bytes(cfg["threshold"]) == cfg["min_chunk"]


# }}}

# {{{ GPU

MiB = 1 << 20


@pytest.mark.gpu
@pytest.mark.parametrize("nbytes", [256 * MiB, 256 * MiB + 12345, 16 * MiB + 1, MiB, MiB - 1])
def test_round_trip_on_the_device(ctx, nbytes):
    rng = np.random.default_rng(nbytes)
    dev = drv.mem_alloc(nbytes)
    check = drv.pagelocked_empty(nbytes, np.uint8)  # the driver's direct copies
    held = []
    for _ in range(2):
        src = rng.integers(0, 256, nbytes + 3, dtype=np.uint8)[3:]  # unaligned
        drv.memcpy_htod(dev, src)
        drv.memcpy_dtoh(check, dev)
        assert np.array_equal(check, src)
        check[:] = rng.integers(0, 256, nbytes, dtype=np.uint8)
        drv.memcpy_htod(dev, check)
        back = np.zeros(nbytes + 1, np.uint8)[1:]
        drv.memcpy_dtoh(back, dev)
        assert np.array_equal(back, check)
        held.append(_driver._staging_bytes_held())
    assert held[0] == held[1]  # the buffers are reused, not added to


@pytest.mark.gpu
def test_gpuarray_256_mib(ctx):
    from pycuda import gpuarray

    a = np.random.default_rng(3).standard_normal(64 * MiB).astype(np.float32)
    g = gpuarray.to_gpu(a)
    assert np.array_equal(g.get(), a)
    assert np.array_equal((2 * g).get(), 2 * a)


KERNELS = """
__global__ void twice(float* a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] *= 2.0f;
}
// Slow on purpose (many passes), so a copy that does not wait for it reads stale data.
__global__ void fill_slowly(unsigned* a, unsigned n, unsigned passes) {
    for (unsigned p = 0; p < passes; ++p)
        for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
             i += gridDim.x * blockDim.x)
            a[i] = i * 2654435761u + p;
}
"""


@pytest.mark.gpu
def test_inout_with_a_kernel(ctx):
    from pycuda.compiler import SourceModule

    twice = SourceModule(KERNELS).get_function("twice")
    a = np.random.default_rng(4).standard_normal(MiB).astype(np.float32)
    b = a.copy()
    twice(drv.InOut(b), np.int32(b.size), block=(256, 1, 1), grid=(1024, 1))
    assert np.array_equal(b, 2 * a)


@pytest.mark.gpu
@pytest.mark.parametrize("on_user_stream", [False, True])
def test_dtoh_waits_for_earlier_kernels(ctx, on_user_stream):
    # A blocking user stream, as the legacy stream, is waited for by a synchronous copy.
    from pycuda.compiler import SourceModule

    fill = SourceModule(KERNELS).get_function("fill_slowly")
    n = 64 * MiB
    dev = drv.mem_alloc(4 * n)
    drv.memset_d32(dev, 0, n)
    stream = drv.Stream() if on_user_stream else None
    fill(dev, np.uint32(n), np.uint32(20), block=(256, 1, 1), grid=(264, 1), stream=stream)
    out = np.empty(n, np.uint32)
    drv.memcpy_dtoh(out, dev)
    expected = np.arange(n, dtype=np.uint32) * np.uint32(2654435761) + np.uint32(19)
    assert np.array_equal(out, expected)


@pytest.mark.gpu
def test_four_threads_on_the_device(ctx):
    errors: list[str] = []
    _driver._free_staging_buffers()
    held = _driver._staging_bytes_held()  # other contexts' sets, if any

    def work(seed: int) -> None:
        ctx.push()
        try:
            rng = np.random.default_rng(seed)
            for _ in range(4):
                n = int(rng.integers(MiB - 10, 48 * MiB))
                a = rng.integers(0, 256, n, dtype=np.uint8)
                dev = drv.mem_alloc(n)
                drv.memcpy_htod(dev, a)
                b = np.empty_like(a)
                drv.memcpy_dtoh(b, dev)
                if not np.array_equal(a, b):
                    errors.append(f"thread {seed}: {n} bytes differ")
        except Exception as exc:  # reported below
            errors.append(f"thread {seed}: {exc!r}")
        finally:
            drv.Context.pop()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    # One set serves the context, whichever thread copies.
    cfg = _driver._staged_copy_config()
    assert _driver._staging_bytes_held() - held <= cfg["buffers"] * cfg["buffer_bytes"]


# }}}


# Which pool a handler's device copy comes from: the context's one allocator, whether or not the
# array layer was imported (the tutorials' first program imports the driver and the compiler
# only). Per case: what the program imports, and what it checks after the common part.
_POOL_CASES = {
    "then arrays": (
        "import sys",
        """
        assert "pycuda._array_core" not in sys.modules and "pycuda.gpuarray" not in sys.modules
        from pycuda import _array_core, _default_allocator, gpuarray

        # GPUArrays' temporaries come from the pool the handlers' copies came from.
        assert _array_core.context_allocator() is _default_allocator.context_allocator()
        block = gpuarray.empty(1 << 18, np.float32).gpudata
        assert type(block).__name__ == "PooledDeviceAllocation" and int(block) == address
        del block
        assert int(drv.In(a).get_device_alloc()) == address
        """,
    ),
    "handlers": (
        "import sys\nfrom pycuda import _default_allocator, tools",
        """
        assert "pycuda._array_core" not in sys.modules and "pycuda.gpuarray" not in sys.modules
        (kept,) = _default_allocator._KEPT.values()
        assert kept.context == drv.Context.get_current() and kept.pool.held_blocks == 1
        assert kept.allocate.__self__ is kept.pool
        tools.clear_context_caches()  # the pool goes with the other per-context caches
        assert not _default_allocator._KEPT
        """,
    ),
}


@pytest.mark.parametrize("case", sorted(_POOL_CASES))
def test_argument_handlers_take_their_device_copies_from_a_pool(fake_libcuda_so, case):
    # A handler lives for one call: a cuMemAlloc/cuMemFree pair per call would cost more than
    # the copies.
    imports, after = _POOL_CASES[case]
    common = """
        a = np.ones(1 << 18, np.float32)
        first = drv.InOut(a).get_device_alloc()
        assert type(first).__name__ == "PooledDeviceAllocation", type(first)
        address = int(first)
        del first  # back to the pool: the next handler of that size gets the same block
        assert int(drv.In(a).get_device_alloc()) == address
        assert int(drv.Out(a).get_device_alloc()) == address
        """
    parts = [imports, textwrap.dedent(common), textwrap.dedent(after), 'print("ok")']
    assert fake_libcuda.run_on_fake(fake_libcuda_so, "\n".join(parts)).strip() == "ok"


def test_the_host_side_settings_are_checked_and_restored():
    cfg = _driver._staged_copy_config()
    try:
        _driver._staged_copy_tune(memcpy_threads=1, min_chunks=3, min_chunk=128 << 10)
        now = _driver._staged_copy_config()
        assert (now["memcpy_threads"], now["min_chunks"], now["min_chunk"]) == (1, 3, 128 << 10)
        assert _driver._staging_chunk_bytes(3 << 20) == 1 << 20
        for bad in ({"memcpy_threads": 0}, {"memcpy_threads": 17}, {"min_chunks": 0},
                    {"min_chunk": 1000}, {"min_chunk": 1 << 30}):  # fmt: skip
            with pytest.raises(ValueError):
                _driver._staged_copy_tune(**bad)
    finally:
        _driver._staged_copy_tune(
            memcpy_threads=cfg["memcpy_threads"],
            streaming_min=cfg["streaming_min"],
            min_chunks=cfg["min_chunks"],
            min_chunk=cfg["min_chunk"],
        )
    assert _driver._staged_copy_config() == cfg


@pytest.mark.parametrize("value, expected", [("1", 1), ("abc", None), ("0", None), ("", None)])
def test_memcpy_threads_come_from_the_environment(value, expected):
    import os
    import subprocess
    import sys

    code = "from pycuda import _driver; print(_driver._staged_copy_config()['memcpy_threads'])"
    env = {**os.environ, "PYCUDA_MEMCPY_THREADS": value}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    default = min(8, os.cpu_count() or 1)  # what a bad value leaves: the default
    assert int(out.stdout) == (expected if expected is not None else default)
