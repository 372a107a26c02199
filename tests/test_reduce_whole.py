"""Tests of gpuarray.sum/max/min over whole plain arrays (reduction.reduce_whole): their plans,
looked up per context by (kernel, n, aligned) as every plain call of the kernel does (the kernel
by (factory, dtype)), must launch exactly what the general path (ReductionKernel.__call__ with
all its checks) launches, give the same result arrays, be used only where they apply, and be
kept per context. CPU (recorded launches) and GPU (values against NumPy and the general
path)."""

from __future__ import annotations

import array_seams
import fake_libcuda
import numpy as np
import pytest
from launch_log import FakeDevice, LaunchLog, Memory, without_new_memory

from pycuda import _array_core, _reduce_ops, gpuarray, reduction
from pycuda._dtypes import info
from pycuda.gpuarray import GPUArray

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.uint16, np.int32, np.int64, np.uint64, np.float16, np.float32,
        np.float64, np.complex64, np.complex128,
    )
]  # fmt: skip
REAL = [d for d in DTYPES if d.kind != "c"]
SIZES = [1, 3, 1000, 4097, 10**7]


def _forget_kernels():
    for factory in (reduction.get_sum_kernel, reduction.get_minmax_kernel):
        factory.clear_cache()


@pytest.fixture
def recorder(monkeypatch):
    from pycuda import compiler, driver

    rec = LaunchLog()
    monkeypatch.setattr(compiler, "SourceModule", rec.module)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    # addresses of their own: memory from mem_alloc would show (the pool is the default)
    monkeypatch.setattr(driver, "mem_alloc", Memory(1 << 50).allocate)
    array_seams.replace(monkeypatch, allocate=rec.allocate)  # no context, no plans yet
    _forget_kernels()  # kernels memoized by other tests' stand-ins (context handle 0)
    yield rec
    _forget_kernels()  # and ours are not for later tests


_FACTORIES = (_reduce_ops._sum_kernel, _reduce_ops._max_kernel, _reduce_ops._min_kernel)


def _entries(handle=0):
    """The plans of the context ``handle`` of the kernels of the module functions' factories
    (keyed by (kernel, n, aligned))."""
    state = _array_core.STATES.get(handle)
    if state is None:
        return {}
    kernels = {id(k) for (f, _), k in state.reduction_kernels.items() if f in _FACTORIES and k}
    return {key: plan for key, plan in state.reductions.items() if id(key[0]) in kernels}


def _plan(factory, a, handle=0):
    """The plan reduce_whole launches ``a`` by (``factory``'s kernel), or None."""
    state = _array_core.STATES.get(handle)
    krnl = None if state is None else state.reduction_kernels.get((factory, a.dtype))
    if krnl is None:
        return None
    return state.reductions.get((krnl, a.size, krnl._aligned(a.ptr)))


def _general(krnl, a, allocator):
    """``krnl(a)`` by the general path (with a kernel_wrapper, no plan is looked up)."""
    return krnl(a, allocator=allocator, kernel_wrapper=lambda launch: launch)


def _same_result(fast, general):
    keys = ("dtype", "shape", "strides", "size", "allocator", "base", "nbytes", "_c")
    assert [getattr(fast, k) for k in keys] == [getattr(general, k) for k in keys]
    assert fast.ptr == int(fast.gpudata)


def _kernel_of(what, dtype):
    if what == "sum":
        return reduction.get_sum_kernel(info(dtype).sum_dtype, dtype)
    return reduction.get_minmax_kernel(what, dtype)


def _check_launches(rec, what, a, allocator):
    """``gpuarray.<what>(a)`` takes the fast path and launches what the general path does."""
    rec.calls.clear()
    fast = getattr(gpuarray, what)(a, allocator=allocator)
    fast_calls = rec.calls[:]
    factory = {"sum": _reduce_ops._sum_kernel, "max": _reduce_ops._max_kernel}.get(what)
    assert _plan(factory or _reduce_ops._min_kernel, a) is not None  # taken: its entry is there
    count = len(_entries())
    assert fast_calls[-1][3][0] == fast.ptr  # the last launch writes the result
    rec.calls.clear()
    general = _general(_kernel_of(what, a.dtype), a, allocator)
    assert without_new_memory(fast_calls) == without_new_memory(rec.calls)
    _same_result(fast, general)
    rec.calls.clear()
    again = getattr(gpuarray, what)(a, allocator=allocator)  # from the entry
    assert len(_entries()) == count
    assert without_new_memory(rec.calls) == without_new_memory(fast_calls)
    _same_result(again, general)
    return fast_calls


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sum_launches_what_the_general_path_launches(recorder, dtype, n):
    stages = set()
    for offset in (0, 1, 16 // dtype.itemsize):  # aligned, misaligned, aligned again
        base = GPUArray((n + offset,), dtype, recorder.allocate)
        calls = _check_launches(recorder, "sum", base[offset:], None)
        stages.add(tuple(call[0] for call in calls))
    if n == 10**7:
        assert all(len(s) == 2 for s in stages)  # two stages, with and without 16-byte loads
        assert any("vec" in s[0] for s in stages)
        # an element's offset misaligns the 16-byte loads, but for 16-byte elements
        assert any("vec" not in s[0] for s in stages) == (dtype.itemsize < 16)


@pytest.mark.parametrize("what", ["max", "min"])
@pytest.mark.parametrize("n", [1, 1000, 10**7])
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_max_min_launch_what_the_general_path_launches(recorder, what, dtype, n):
    for offset in (0, 1):
        base = GPUArray((n + offset,), dtype, recorder.allocate)
        _check_launches(recorder, what, base[offset:], None)


def test_allocators_as_the_general_path(recorder):
    own = Memory(1 << 30)
    for n in (1000, 10**7):  # one stage and two
        for array_allocator in (None, own.allocate):
            a = GPUArray((n,), np.float32, array_allocator)
            for allocator in (None, Memory(1 << 35).allocate):
                _check_launches(recorder, "sum", a, allocator)
                _array_core.state().reductions.clear()
    gpuarray.sum(GPUArray((10**7,), np.float32))  # no allocator: the partials from the pool
    out_ptr, partials = recorder.calls[-1][3][:2]
    assert partials < 1 << 40 and out_ptr < 1 << 40 and partials != out_ptr
    other = Memory(1 << 40)
    a = GPUArray((10**7,), np.float32)
    out = gpuarray.sum(a, allocator=other.allocate)
    # the result and the partials come from the allocator given
    assert out.allocator == other.allocate and out.ptr >= 1 << 40
    assert recorder.calls[-1][3][0] == out.ptr and recorder.calls[-1][3][1] >= 1 << 40


def test_n_d_arrays_and_cached_contiguity(recorder):
    a = GPUArray((4, 5, 6), np.float64)
    _check_launches(recorder, "sum", a, None)
    view = a[1:3]  # C-contiguous, worked out on first use
    _check_launches(recorder, "sum", view, None)
    assert view._c is True


def test_falls_back_where_the_general_path_decides(recorder, monkeypatch):
    taken = []
    real = reduction.reduce_whole  # _reduce_ops reads it from pycuda.reduction at each call

    def spy(kernel_of, a, allocator):
        result = real(kernel_of, a, allocator)
        taken.append(result is not None)
        return result

    monkeypatch.setattr(reduction, "reduce_whole", spy)
    monkeypatch.setattr(_reduce_ops, "_along", lambda *args: "along")
    a = GPUArray((10, 10), np.float32)
    assert gpuarray.sum(a[:, ::2]) == "along"  # strided: the general path's strided kernels
    empty = gpuarray.sum(GPUArray((0,), np.float32))  # empty: the general path's launch
    assert empty.dtype == np.float32 and recorder.calls[-1][3][-1] == 0
    with pytest.raises(ValueError, match="zero-size array"):
        gpuarray.max(GPUArray((0,), np.float32))
    with pytest.raises(TypeError, match="complex"):  # no kernel: the general path's error
        gpuarray.max(GPUArray((3,), np.complex64))
    assert taken == [False] * 4

    class Sub(GPUArray):
        pass

    sub = Sub((8,), np.float32)
    assert gpuarray.sum(sub).dtype == np.float32 and taken[-1] is False
    assert not _entries()
    recorder.calls.clear()
    taken.clear()
    b = GPUArray((100,), np.float32)
    assert gpuarray.sum(b, dtype=np.float64).dtype == np.float64
    assert gpuarray.sum(b, stream="s").dtype == np.float32
    assert gpuarray.max(b, stream="s").dtype == np.float32
    assert recorder.calls[-1][-1] == "s" and recorder.calls[-2][-1] == "s"
    assert gpuarray.sum(b, out=GPUArray((), np.float32)) == "along"
    assert gpuarray.sum(b, keepdims=True) == "along"
    assert gpuarray.sum(b, axis=0) == "along"
    assert gpuarray.min(b, axis=0) == "along"
    assert taken == [] and not _entries()


def test_entries_per_context_cleared_and_bounded(recorder, monkeypatch):
    handle = [0]
    monkeypatch.setattr(_array_core.seams, "context_handle", lambda: handle[0])
    a = GPUArray((1000,), np.float32)
    gpuarray.sum(a)
    gpuarray.max(a)
    assert len(_entries(0)) == 2
    handle[0] = 1234  # another context: its own entries
    monkeypatch.setattr(_array_core.drv.Context, "get_current", staticmethod(lambda: "ctx"))
    gpuarray.sum(a)
    assert len(_entries(1234)) == 1
    from pycuda.tools import clear_context_caches

    clear_context_caches()
    assert _array_core.STATES == {}
    monkeypatch.setattr(_array_core, "MAX_ENTRIES", 4)
    for n in range(1, 20):
        gpuarray.sum(GPUArray((n,), np.float32))
        assert recorder.calls[-1][3][-1] == n
    state = _array_core.STATES[1234]
    assert 0 < len(_entries(1234)) and len(state.reductions) <= 4
    assert len(state.reduction_kernels) <= 4


# {{{ CPU, against the fake driver: the one-block launches served in C++ (FLAT.reduce)


def test_one_block_reductions_are_served_in_cpp(fake_libcuda_so):
    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import _array_core, gpuarray, reduction, tools
        from pycuda.gpuarray import GPUArray

        def launches():
            out = (ctypes.c_longlong * 13)()
            _FAKE.hostemu_launches(out)
            return out[0] + out[1]

        python_path = reduction.reduce_whole
        calls = []
        def counted(*args):
            calls.append(args)
            return python_path(*args)
        reduction.reduce_whole = counted  # what sum/max/min hand FLAT.reduce for a miss

        keys = ("dtype", "shape", "strides", "size", "allocator", "base", "nbytes", "itemsize",
                "mem_size", "_c")
        served = set()
        for what in ("sum", "max", "min"):
            for dtype in (np.float32, np.float64, np.int8, np.int32, np.uint64, np.complex64):
                if what != "sum" and dtype == np.complex64:
                    continue
                for n in (1, 1000, 4097, 10**6):
                    a = gpuarray.zeros(n, dtype)
                    first = getattr(gpuarray, what)(a)  # the Python path decides, remembers
                    assert len(calls) == 1, (what, dtype, n)
                    state = _array_core.state()
                    krnl = state.reduction_kernels[(calls[0][0], a.dtype)]
                    plan = state.reductions[(krnl, n, krnl._aligned(a.ptr))]
                    count, before = len(_array_core.FLAT), launches()
                    second = getattr(gpuarray, what)(a)
                    if plan.stage2 is not None:  # two launches: the Python path's again
                        assert len(calls) == 2 and launches() == before + 2, (what, dtype, n)
                        calls.clear()
                        continue
                    served.add((what, dtype, n))  # in C++: one launch
                    assert len(calls) == 1 and launches() == before + 1, (what, dtype, n)
                    assert len(_array_core.FLAT) == count
                    assert type(second) is GPUArray and second.ptr == int(second.gpudata)
                    assert [getattr(second, k) for k in keys] == [getattr(first, k) for k in keys]
                    assert vars(second).keys() == vars(first).keys()
                    assert second.ptr != first.ptr and second.get().shape == ()
                    calls.clear()
        assert ("sum", np.float32, 1000) in served and ("max", np.int8, 1) in served
        assert ("sum", np.float32, 10**6) not in served

        # Not served (the Python path, every time): an address not 16-byte aligned, a subclass,
        # an allocator given, an array of another allocator, two stages.
        a = gpuarray.zeros(1000, np.float32)
        gpuarray.sum(a)
        calls.clear()
        class Sub(GPUArray):
            pass
        sub = Sub((1000,), np.float32)
        own = tools.DeviceMemoryPool().allocate
        for x, allocator in ((a[1:], None), (sub, None), (a, drv.mem_alloc),
                             (gpuarray.zeros(1000, np.float32, allocator=own), None),
                             (gpuarray.zeros(10**7, np.float32), None)):
            for _ in range(2):
                r = gpuarray.sum(x, allocator=allocator)
                assert r.allocator is (allocator or x.allocator)
            assert len(calls) == 2, x
            calls.clear()

        # The results' blocks go back; the table is per context and cleared with the caches.
        source = getattr(a.allocator, "__self__", a.allocator)
        active = source.active_blocks
        results = [gpuarray.sum(a) for _ in range(10)]
        assert source.active_blocks == active + 10 and not calls
        del results
        assert source.active_blocks == active
        other = drv.Device(0).make_context()
        b = gpuarray.zeros(1000, np.float32)
        gpuarray.sum(b), gpuarray.sum(b)
        assert len(calls) == 1  # the other context's own entry
        other.pop()
        gpuarray.sum(a)
        assert len(calls) == 1
        tools.clear_context_caches()
        assert len(_array_core.FLAT) == 0
        gpuarray.sum(a), gpuarray.sum(a)  # a's allocator is no longer the context's
        assert len(calls) == 3
        c = gpuarray.zeros(1000, np.float32)
        gpuarray.sum(c), gpuarray.sum(c)
        assert len(calls) == 4
        print("ok")
        """,
    )


# }}}


# {{{ GPU: values against NumPy and the general path


def _host_data(dtype: np.dtype, n: int) -> np.ndarray:
    rng = np.random.default_rng(n)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dtype)
    if dtype.kind == "f":  # mean 0: a float16 sum of 2^20 stays finite
        return (rng.random(n) * 2 - 1).astype(dtype)
    return (rng.random(n) - 0.5 + 1j * rng.random(n)).astype(dtype)


def _aligned_and_not(dtype: np.dtype, n: int):
    """(GPU array, its host copy) of n elements at a 256-byte-aligned address, and one element
    later."""
    host = _host_data(dtype, n + 1)
    base = gpuarray.to_gpu(host)
    return [(base[:n], host[:n]), (base[1:], host[1:])]


def _assert_sum_close(got, host):
    ref = np.sum(host)
    assert got.dtype == ref.dtype
    if host.dtype.kind in "biu":
        assert got == ref
        return
    wide = np.complex128 if host.dtype.kind == "c" else np.float64
    scale = max(float(np.sum(np.abs(host.astype(wide)))), 1.0)
    real = host.dtype if host.dtype.kind == "f" else np.finfo(host.dtype).dtype
    eps = 2e-3 if real == np.float16 else 8 * float(np.finfo(real).eps)
    assert abs(complex(got) - complex(np.sum(host.astype(wide)))) <= eps * scale, (got, ref)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 2**20 + 3])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fast_sum_against_numpy_and_the_general_path(ctx, dtype, n):
    for a, h in _aligned_and_not(dtype, n):
        fast = gpuarray.sum(a)
        assert _plan(_reduce_ops._sum_kernel, a, ctx.handle) is not None
        general = _general(_kernel_of("sum", dtype), a, None)
        got = fast.get()
        assert got.shape == () and got.dtype == general.dtype == np.sum(h).dtype
        assert got.tobytes() == general.get().tobytes()  # the same kernels: bit-identical
        _assert_sum_close(got, h)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 2**20 + 3])
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_fast_max_min_against_numpy(ctx, dtype, n):
    for a, h in _aligned_and_not(dtype, n):
        for what, ref in (("max", np.max(h)), ("min", np.min(h))):
            got = getattr(gpuarray, what)(a).get()
            assert got.dtype == ref.dtype and got == ref


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 4097])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_served_reductions_match_the_python_path(ctx, monkeypatch, dtype, n):
    calls = []
    python_path = reduction.reduce_whole

    def counted(*args):
        calls.append(args)
        return python_path(*args)

    monkeypatch.setattr(reduction, "reduce_whole", counted)
    _array_core.FLAT.clear()  # earlier tests' launches, which FLAT would serve from the start
    host = _host_data(dtype, n)
    a = gpuarray.to_gpu(host)
    for what in ("sum", "max", "min") if dtype.kind != "c" else ("sum",):
        first = getattr(gpuarray, what)(a)  # the Python path, which remembers a one-block launch
        plan = _plan(calls[0][0], a, ctx.handle)
        second = getattr(gpuarray, what)(a)  # then served by FLAT.reduce in C++
        assert len(calls) == (1 if plan.stage2 is None else 2)
        calls.clear()
        assert second.dtype == first.dtype and second.shape == first.shape == ()
        assert second.allocator is first.allocator is a.allocator and second.ptr != first.ptr
        assert second.get().tobytes() == first.get().tobytes()
        ref = getattr(np, what)(host)
        if what == "sum":
            _assert_sum_close(second.get(), host)
        else:
            assert second.get() == ref and second.get().dtype == ref.dtype


@pytest.mark.gpu
def test_fast_sum_allocators_and_nan(ctx):
    import pycuda.driver as drv

    host = np.arange(2**20 + 3, dtype=np.float32) % 7
    a = gpuarray.to_gpu(host)
    ref = gpuarray.sum(a).get()
    assert ref == np.sum(host.astype(np.float64))  # small integers: exact
    for allocator in (drv.mem_alloc, _array_core.context_allocator()):
        out = gpuarray.sum(a, allocator=allocator)  # result and partials from the allocator
        assert out.allocator is allocator and out.get() == ref
    host[5] = np.nan
    a = gpuarray.to_gpu(host)
    assert np.isnan(gpuarray.sum(a).get()) and np.isnan(gpuarray.max(a).get())
    assert np.isnan(gpuarray.min(a[:1000]).get())


# }}}
