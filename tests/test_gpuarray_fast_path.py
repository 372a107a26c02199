"""Tests of GPUArray's fast paths (operators on contiguous arrays of one shape, 0-d results,
small get()): they must launch exactly what the general path launches, give the same dtypes and
errors, and keep their caches per context. CPU (recorded launches, host stand-in) and GPU."""

from __future__ import annotations

import threading
import warnings
from functools import partial

import array_seams
import host_device
import numpy as np
import pytest
from launch_log import Memory

from pycuda import _array_core, gpuarray
from pycuda import _operators as ops
from pycuda._ufuncs import BINARY_OPS
from pycuda.gpuarray import GPUArray

DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.uint64, np.int64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]  # fmt: skip
SCALARS = [0, 1, 3, -1, 2**40, -(2**70), 2.5, -0.0, True, 1j, np.float32(2), np.int8(-3),
           np.float64(0.5), np.uint16(7), np.complex64(1 + 2j), np.bool_(False)]  # fmt: skip


class _Recorder(Memory):
    """Launches recorded (and memory handed out) instead of run."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def kernel(self, kind, out_dtype, operands, expr, p):
        rec = self

        class Func:
            def prepared_call(self, grid, block, *args):
                rec.calls.append((kind, out_dtype, operands, expr, p, grid, block, args))

            def prepared_async_call(self, grid, block, stream, *args):
                self.prepared_call(grid, block, *args)

        return Func()


class _Config:
    def __init__(self, n, items):
        self.grid = (n % 7 + items, 1, 1)  # depends on both, so a mixed-up cache shows
        self.block = (256, 1, 1)


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    array_seams.replace(
        monkeypatch, kernel=rec.kernel, allocate=rec.allocate, launch_config=_Config
    )
    return rec


def _strict(run):
    """run(), with warnings raised as errors (a conversion that warns must do so both ways)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return run()


def _outcome(rec, run):
    """(result dtype, shape, strides, the launch without the output address) or the error."""
    try:
        out = _strict(run)
    except Exception as exc:  # the type and message are what is compared
        return type(exc), str(exc)
    if out is None or out is NotImplemented:
        return out
    kind, dtype, operands, expr, p, grid, block, args = rec.calls[-1]
    assert args[0] == out.ptr
    scalars = [(type(a), a.dtype) for a in args if isinstance(a, np.generic)]
    return (out.dtype, out.shape, out.strides, out._c, out.allocator, out.base,
            kind, dtype, operands, expr, p, grid, block, args[1:], scalars)  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_array_operators_launch_what_the_general_path_launches(recorder, dtype):
    for other in DTYPES:
        a, b = GPUArray((5, 3), dtype), GPUArray((5, 3), other)
        for op in BINARY_OPS:
            for reflected in (False, True):
                fast = _outcome(recorder, partial(ops.flat_binary, a, op, b, reflected))
                slow = _outcome(recorder, partial(ops.general_binary, a, op, b, reflected))
                # The same launch, or the same error: both take their dtypes from one plan
                # (binary_plan), which raises NumPy's error for a pair that has none.
                assert fast == slow, (op, dtype, other, reflected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scalar_operators_launch_what_the_general_path_launches(recorder, dtype):
    a = GPUArray((7,), dtype)
    for value in SCALARS:
        for op in BINARY_OPS:
            for reflected in (False, True):
                run_fast = partial(ops.flat_binary, a, op, value, reflected)
                slow = _outcome(recorder, partial(ops.general_binary, a, op, value, reflected))
                fast = _outcome(recorder, run_fast)
                failed = isinstance(slow[0], type) and issubclass(slow[0], Exception)
                if fast is None:
                    # declined: an int whose value decides (outside the plan's lo..hi), or a
                    # type with no plan (the general path raises NumPy's error)
                    assert type(value) is int or failed, (op, dtype, value)
                    continue
                if failed:
                    assert fast[0] is slow[0], (op, value)  # the same error
                    continue
                assert fast == slow, (op, dtype, value, reflected)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_in_place_operators_launch_what_the_general_path_launches(recorder, dtype):
    a = GPUArray((5, 3), dtype)
    others = [GPUArray((5, 3), d) for d in DTYPES] + SCALARS + [a]
    for other in others:
        for op in BINARY_OPS:
            run_fast = partial(ops.flat_inplace, a, op, other)
            slow = _outcome(recorder, partial(ops.general_binary, a, op, other, out=a))
            try:
                fast_result = _strict(run_fast)
            except Exception as exc:
                fast_result = exc
            if isinstance(slow[0], type) and issubclass(slow[0], Exception):
                assert fast_result is None or type(fast_result) is slow[0], (op, other)
                continue
            if fast_result is None:
                assert type(other) is int, (op, dtype, other)  # an int whose value decides
                continue
            assert fast_result is a
            assert _outcome(recorder, run_fast) == slow, (op, dtype, other)


def test_in_place_operators_take_the_fast_path_only_where_it_applies(recorder):
    a = GPUArray((12,), np.float32)
    fast = ops.flat_inplace
    assert fast(a, "add", a) is a and fast(a, "add", 2) is a
    assert fast(a[:6], "add", a[6:]) is not None  # neighbours, not overlapping
    assert fast(a[:6], "add", a[3:9]) is None  # overlapping: the general path copies first
    assert fast(a, "add", GPUArray((1,), np.float32)) is None  # broadcasting
    assert fast(GPUArray((3,), np.int32), "add", 1.5) is None  # same_kind: the general raises
    with pytest.raises(TypeError, match="same_kind"):
        i = GPUArray((3,), np.int32)
        i += 1.5
    b = a
    b += 1
    assert b is a and recorder.calls[-1][7][:3] == (a.ptr, a.ptr, np.float32(1))


UNARY = ["negative", "positive", "absolute", "invert", "conj", "logical_not", "sqrt", "exp",
         "fabs", "floor", "cast"]  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_unary_operations_launch_what_the_general_path_launches(recorder, dtype):
    stream = object()  # a stream takes the general path (recorded alike)
    for shape in [(), (1,), (7,), (3, 4)]:
        a = GPUArray(shape, dtype)
        for op in UNARY:
            for out in map(np.dtype, DTYPES):
                fast = _outcome(recorder, partial(ops.flat_unary, a, op, out))
                slow = _outcome(recorder, partial(ops.unary, a, op, out, None, stream))
                if isinstance(slow[0], type) and issubclass(slow[0], Exception):
                    assert fast is None or fast[0] is slow[0], (op, dtype, out)
                    continue
                assert fast == slow, (op, dtype, out, shape)
    a = GPUArray((5, 2), dtype)
    for out in map(np.dtype, DTYPES):
        assert _outcome(recorder, partial(a.astype, out)) == _outcome(
            recorder, partial(a.astype, out, stream)
        )


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_fill_launches_what_the_general_path_launches(recorder, dtype):
    stream = object()
    for shape in [(), (9,), (3, 4)]:
        a = GPUArray(shape, dtype)
        for value in [1, -1, 2.5, True, 300, 1e40, -0.0]:
            recorder.calls.clear()
            fast = _outcome(recorder, partial(a.fill, value))
            slow = _outcome(recorder, partial(a.fill, value, stream))
            if isinstance(slow[0], type) and issubclass(slow[0], Exception):
                assert fast[0] is slow[0], (dtype, value)
            else:
                assert fast == slow, (dtype, value)
                assert len(recorder.calls) == 2  # each filled with one launch


def test_operators_take_the_fast_path_only_where_it_applies(recorder):
    a, b = GPUArray((4, 6), np.float32), GPUArray((4, 6), np.float32)
    fast = ops.flat_binary
    assert fast(a, "add", b, False) is not None
    assert fast(a, "add", 2, False) is not None and fast(a, "add", 2.0, True) is not None
    assert fast(a, "add", np.float64(2), False).dtype == np.float64
    assert fast(a, "add", GPUArray((6,), np.float32), False) is None  # broadcasting
    assert fast(a, "add", b.T, False) is None and fast(a.T, "add", b, False) is None
    assert fast(a[:, ::2], "add", a[:, ::2], False) is None  # strided
    assert fast(GPUArray((0,), np.float32), "add", 1, False) is None  # empty
    assert fast(a, "add", np.ones(3), False) is None  # host arrays go to the general path
    assert fast(a, "add", "text", False) is None
    i8 = GPUArray((3,), np.int8)
    assert fast(i8, "add", 127, False) is not None and fast(i8, "add", 128, False) is None
    assert fast(i8, "power", 2, False) is not None and fast(i8, "power", -2, False) is None
    with pytest.raises(OverflowError):
        i8 + 128
    with pytest.raises(ValueError, match="negative integer powers"):
        i8**-2
    assert (i8 < 1000).dtype == np.bool_
    assert (GPUArray((3,), np.uint8) < -1).dtype == np.bool_


def test_the_operators_use_the_fast_path(recorder, monkeypatch):
    a, b = GPUArray((10,), np.float32), GPUArray((10,), np.float32)
    seen = []
    real = ops.flat_binary

    def spy(x, op, other, reflected):
        result = real(x, op, other, reflected)
        seen.append((op, reflected, result is not None))
        return result

    monkeypatch.setattr(ops, "flat_binary", spy)  # the operators' C++ side misses into it
    a + b, 2 - a, a * 3.0, a / b, a**2, a < b, a == 1, a % b
    assert seen == [("add", False, True), ("subtract", True, True), ("multiply", False, True),
                    ("true_divide", False, True), ("power", False, True), ("less", False, True),
                    ("equal", False, True), ("remainder", False, True)]  # fmt: skip


def test_results_are_what_the_constructor_makes(recorder):
    for shape in [(), (1,), (9,), (3, 4), (2, 1, 5)]:
        a = GPUArray(shape, np.float32)
        made = GPUArray(shape, np.float64)
        out = a + np.float64(1)  # the result's itemsize differs from the operand's
        assert (out.shape, out.strides, out.size, out.dtype) == (
            made.shape, made.strides, made.size, made.dtype)  # fmt: skip
        assert out._c and out.flags.c_contiguous and out.base is None
        assert out.allocator is made.allocator and out.base is made.base is None
        assert (out.nbytes, out.mem_size, out.itemsize) == (made.nbytes, made.mem_size, 8)


def test_results_keep_the_operands_allocator(recorder):
    mine = _Recorder()
    allocate = mine.allocate
    a = GPUArray((8,), np.float32, allocator=allocate)
    out = a + a
    assert out.allocator is allocate and mine.next > (1 << 20) + 256 * 2
    assert (a * 2).allocator is allocate
    # arrays given no allocator hold the context's default one; their results too
    default = GPUArray((8,), np.float32)
    assert default.allocator is _array_core.context_allocator()
    assert (default + a).allocator is default.allocator


def test_misaligned_operands_get_narrower_accesses(recorder):
    a = GPUArray((100,), np.float32)
    a + a
    assert recorder.calls[-1][4] == 4
    a[1:] + a[1:]  # views: _c_contiguous is worked out, then the fast path
    assert recorder.calls[-1][4] == 1
    b = GPUArray((100,), np.float64)
    a[2:] + b[2:]  # 8-byte aligned float32 with 16-byte aligned float64: as the general path
    fast_width = recorder.calls[-1][4]
    ops.general_binary(a[2:], "add", b[2:])
    assert recorder.calls[-1][4] == fast_width == 2


def test_launches_are_cached_per_context_and_size(recorder, monkeypatch):
    handle = [0]
    monkeypatch.setattr(_array_core.seams, "context_handle", lambda: handle[0])
    a = GPUArray((10,), np.float32)
    a + a
    first = recorder.calls[-1]
    handle[0] = 1234  # another context: its own allocator, kernels and launches
    other = _Recorder()
    monkeypatch.setattr(_array_core.seams, "default_allocator", lambda: other.allocate)
    monkeypatch.setattr(_array_core.drv.Context, "get_current", staticmethod(lambda: "ctx"))
    out = a + a
    assert out.ptr >= other.next - 512 and set(_array_core.STATES) == {0, 1234}
    assert _array_core.STATES[1234].context == "ctx"
    assert recorder.calls[-1][5] == first[5]
    b = GPUArray((11,), np.float32)
    b + b
    assert recorder.calls[-1][5] == _Config(11, 4).grid
    from pycuda.tools import clear_context_caches

    clear_context_caches()
    assert _array_core.STATES == {}


def test_launch_cache_is_bounded(recorder, monkeypatch):
    monkeypatch.setattr(_array_core, "MAX_ENTRIES", 4)
    for n in range(1, 20):
        a = GPUArray((n,), np.float32)
        a + a
        assert recorder.calls[-1][5] == _Config(n, recorder.calls[-1][4]).grid
    state = _array_core.STATES[0]
    assert len(state.plans) <= 4 and len(state.grids) <= 4


def test_empty_0d_is_what_the_constructor_makes(recorder):
    for allocator in (None, _Recorder().allocate):
        out = _array_core.empty_0d(np.dtype(np.int64), allocator)
        made = GPUArray((), np.int64, allocator)
        keys = ("dtype", "shape", "strides", "size", "allocator", "base", "nbytes", "_c")
        assert [getattr(out, k) for k in keys] == [getattr(made, k) for k in keys]


# {{{ on the host stand-in (and the GPU): values


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


CASES = [
    (np.float32, np.float32, "add"), (np.float32, 2.5, "multiply"), (np.float32, 3, "power"),
    (np.int8, 3, "floor_divide"), (np.int8, np.int8, "true_divide"), (np.float16, 1.5, "add"),
    (np.float16, np.float16, "subtract"), (np.bool_, True, "bitwise_xor"),
    (np.int64, 2**40, "less"), (np.complex128, 1j, "multiply"), (np.uint16, np.float32(2), "add"),
]  # fmt: skip


@pytest.mark.parametrize("dtype, other, op", CASES, ids=[f"{c[2]}-{c[0].__name__}" for c in CASES])
def test_fast_and_general_paths_agree(device, dtype, other, op):
    rng = np.random.default_rng(7)
    host = np.abs(rng.standard_normal((3, 37)) * 8 + 2).astype(dtype)
    a = gpuarray.to_gpu(host)
    if isinstance(other, type):
        b: object = gpuarray.to_gpu(np.abs(rng.standard_normal((3, 37)) * 8 + 9).astype(other))
    else:
        b = other
    with np.errstate(all="ignore"):
        for reflected in (False, True):
            if reflected and op == "power" and np.dtype(dtype).kind == "i":
                continue
            fast = ops.flat_binary(a, op, b, reflected)
            assert fast is not None
            slow = ops.general_binary(a, op, b, reflected)
            assert (fast.dtype, fast.shape, fast.strides) == (slow.dtype, slow.shape, slow.strides)
            np.testing.assert_array_equal(fast.get(), slow.get())
        fast, slow = a.copy(), a.copy()
        if ops.flat_inplace(fast, op, b) is not None:  # where the result casts back
            ops.general_binary(slow, op, b, out=slow)
            np.testing.assert_array_equal(fast.get(), slow.get())


def test_small_get_matches_the_general_get(device):
    for host in [np.float32(3.5), np.arange(1, dtype=np.int64), np.arange(9, dtype=np.float16)]:
        host = np.asarray(host)
        a = gpuarray.to_gpu(host)
        lean = a.get()
        general = a.get(ary=np.empty_like(host))  # ary= takes the general path
        assert lean.shape == general.shape == host.shape and lean.dtype == host.dtype
        assert lean.strides == general.strides and lean.flags.c_contiguous
        np.testing.assert_array_equal(lean, host)
    empty = gpuarray.to_gpu(np.zeros(0, np.float32))
    lean, general = empty.get(), empty.get(pagelocked=True)  # nothing is allocated for 0 bytes
    assert (lean.shape, lean.dtype, lean.strides) == ((0,), np.float32, general.strides)


# }}}

# {{{ GPU: contexts


@pytest.mark.gpu
def test_current_context_handle(ctx):
    from pycuda import _driver

    assert _driver._current_context_handle() == ctx.handle
    seen = []
    thread = threading.Thread(target=lambda: seen.append(_driver._current_context_handle()))
    thread.start()
    thread.join()
    assert seen == [0]


@pytest.mark.gpu
def test_operators_in_two_contexts(ctx):
    import pycuda.driver as drv

    host = np.arange(1000, dtype=np.float32)
    a = gpuarray.to_gpu(host)
    np.testing.assert_array_equal((a + a).get(), 2 * host)
    other = drv.Device(0).make_context()
    try:
        b = gpuarray.to_gpu(host)
        np.testing.assert_array_equal((b + b).get(), 2 * host)  # its own kernel and pool
        np.testing.assert_array_equal((b * 3.0).get(), 3 * host)
        assert gpuarray.sum(b).get() == host.sum()
    finally:
        drv.Context.pop()
        other.detach()
    np.testing.assert_array_equal((a + a).get(), 2 * host)
    assert gpuarray.sum(a).get() == host.sum()


# }}}

# {{{ GPU: the launches served in C++ (_driver.FlatLaunches)

FLAT_CASES = [
    (np.float32, np.float32, "add"), (np.float64, np.float64, "subtract"),
    (np.int32, np.int32, "floor_divide"), (np.complex64, np.complex64, "multiply"),
    (np.float32, 2.5, "multiply"), (np.float32, 3, "add"), (np.int32, 7, "remainder"),
    (np.int8, -3, "multiply"), (np.uint64, 5, "add"), (np.float64, 0.5, "true_divide"),
    (np.float32, np.float32(2), "subtract"), (np.int16, np.float64, "add"),
    (np.float16, 1.5, "add"), (np.bool_, True, "bitwise_and"), (np.float32, np.float32, "less"),
]  # fmt: skip


def _twice(op, a, b, reflected):
    """The operator as gpuarray's operators call it: the first call made by the Python path
    (and remembered), the second served in C++."""
    first = ops.FLAT.binary(a, op, b, reflected)
    before = len(ops.FLAT)
    second = ops.FLAT.binary(a, op, b, reflected)
    return first, second, before


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1000,), (3, 37), (1,), (2, 1, 5)])
@pytest.mark.parametrize(
    "dtype, other, op", FLAT_CASES, ids=[f"{c[2]}-{c[0].__name__}" for c in FLAT_CASES]
)
def test_flat_launches_match_the_python_path(ctx, dtype, other, op, shape):
    rng = np.random.default_rng(3)
    host = (np.abs(rng.standard_normal(shape)) * 8 + 2).astype(dtype)
    a = gpuarray.to_gpu(host)
    b = other
    if isinstance(other, type):
        b = gpuarray.to_gpu((np.abs(rng.standard_normal(shape)) * 8 + 1).astype(other))
    with np.errstate(all="ignore"):
        for reflected in (False, True):
            first, second, remembered = _twice(op, a, b, reflected)
            assert remembered >= 1, "the Python path remembered nothing"
            hb = b.get() if isinstance(b, GPUArray) else b
            want = getattr(np, op)(hb, host) if reflected else getattr(np, op)(host, hb)
            for out in (first, second):
                assert type(out) is GPUArray and out.base is None
                assert out.allocator is a.allocator is _array_core.context_allocator()
                assert (out.dtype, out.shape, out.strides) == (want.dtype, want.shape, want.strides)
                assert out.ptr == int(out.gpudata) and out.flags.c_contiguous
                assert out.size == want.size and out.nbytes == want.nbytes
            assert second.ptr != first.ptr
            np.testing.assert_array_equal(second.get(), want)
            np.testing.assert_array_equal(first.get(), want)
            assert vars(second).keys() == vars(first).keys()


@pytest.mark.gpu
def test_flat_launches_keep_numpy_errors_and_fallbacks(ctx):
    a = gpuarray.to_gpu(np.arange(1, 101, dtype=np.int8))
    a + 3, a + 3  # remembered for int8 + Python int
    with pytest.raises(OverflowError):
        a + 300  # outside int8: NumPy (NEP 50) refuses it
    assert (a + (-128)).dtype == np.int8
    big = gpuarray.to_gpu(np.arange(100, dtype=np.uint64))
    big + 1, big + 1
    np.testing.assert_array_equal((big + 2**63).get(), np.arange(100, dtype=np.uint64) + 2**63)
    f = gpuarray.to_gpu(np.arange(1000, dtype=np.float32))
    f + f, f + f
    f * 2.0, f * 2.0
    for _ in range(2):  # the Python path, then the remembered launch: both as NumPy
        with pytest.warns(RuntimeWarning, match="overflow"):
            assert np.isinf((f * 1e40).get()[1:]).all()
    host = np.arange(1000, dtype=np.float32)
    np.testing.assert_array_equal((f[1:] + f[1:]).get(), 2 * host[1:])  # unaligned
    np.testing.assert_array_equal((f[::2] + f[::2]).get(), 2 * host[::2])  # strided
    with pytest.raises(ValueError):
        f + f[:10]
    with pytest.raises(TypeError):
        f + "x"

    class Sub(GPUArray):
        pass

    s = Sub((1000,), np.float32)
    s.set(np.ones(1000, np.float32))
    np.testing.assert_array_equal((s + f).get(), np.arange(1000, dtype=np.float32) + 1)


@pytest.mark.gpu
def test_flat_launches_return_blocks_to_the_pool_and_are_cleared(ctx):
    from pycuda import tools

    a = gpuarray.to_gpu(np.ones(4096, np.float32))
    pool = a.allocator.__self__  # the context's pool, whose allocate the array holds
    a + a, a + a
    active = pool.active_blocks
    results = [a + a for _ in range(10)]
    assert pool.active_blocks == active + 10
    del results
    assert pool.active_blocks == active
    assert len(ops.FLAT) >= 1
    tools.clear_context_caches()
    assert len(ops.FLAT) == 0
    np.testing.assert_array_equal((a + a).get(), np.full(4096, 2, np.float32))


@pytest.mark.gpu
def test_flat_launches_per_context(ctx):
    import pycuda.driver as drv

    host = np.arange(1000, dtype=np.float32)
    a = gpuarray.to_gpu(host)
    a + a, a + a
    other = drv.Device(0).make_context()
    try:
        b = gpuarray.to_gpu(host)
        for _ in range(3):
            np.testing.assert_array_equal((b + b).get(), 2 * host)
        assert (b + b).gpudata is not None
    finally:
        drv.Context.pop()
        other.detach()
    np.testing.assert_array_equal((a + a).get(), 2 * host)


# }}}


# {{{ the operators' descriptors (_driver.FlatOperator)


def test_operators_are_method_descriptors(recorder):
    a, b = GPUArray((10,), np.float32), GPUArray((10,), np.float32)
    assert GPUArray.__add__.__name__ == "__add__" and "__radd__" in repr(GPUArray.__radd__)
    for out in (GPUArray.__add__(a, b), a.__add__(b), a + b, GPUArray.__radd__(a, 2.0)):
        assert type(out) is GPUArray and out.shape == (10,) and out.dtype == np.float32
    assert a.__add__("x") is NotImplemented
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(TypeError):
        "x" - a
    with pytest.raises(TypeError, match="requires a 'GPUArray' object"):
        GPUArray.__add__(np.zeros(10, np.float32), a)
    with pytest.raises(TypeError, match="one operand"):
        GPUArray.__add__(a)
    with pytest.raises(TypeError, match="one operand"):
        a.__add__(b, b)
    with pytest.raises(TypeError, match="one operand"):
        a.__add__(other=b)
    with pytest.raises(ValueError):
        a + GPUArray((3,), np.float32)


def test_subclasses_keep_their_own_operators(recorder):
    class Tagged(GPUArray):
        def __add__(self, other):
            return "tagged"

    t, a = Tagged((10,), np.float32), GPUArray((10,), np.float32)
    assert t + a == "tagged"
    assert type(t * a) is Tagged  # inherited: made by its _new_like_me, in its class


# }}}
