"""Tests of pycuda.elementwise.fuse (pycuda/_fusion.py, _fusion_trace.py, _fusion_ops.py).

Without a GPU: the adapter's answer for every operation and dtype against the kernel the
unfused call launches (recorded, nothing run); tracing, its errors, its cache and guards; the
launches a fused call makes (recorded); the generated sources compiled by NVRTC; and fused
against unfused results computed on the host stand-in (tests/host_device.py). On a GPU (marked
``gpu``): fused against unfused over operations, dtypes, random broadcast shapes and scalars,
bit for bit; reductions against gpuarray.sum/max/min; ``fma=True`` within its tolerance.
"""

from __future__ import annotations

import warnings

import array_seams
import host_device
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes
from launch_log import FakeDevice, LaunchLog, Memory

from pycuda import _array_core as core
from pycuda import _array_kernels as ak
from pycuda import _driver, cumath, gpuarray
from pycuda._fusion_ops import op_expression
from pycuda.compiler import compile as cuda_compile
from pycuda.elementwise import fuse

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

INTS = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
FLOATS = [np.float16, np.float32, np.float64]
COMPLEX = [np.complex64, np.complex128]
DTYPES = [np.dtype(d) for d in [np.bool_, *INTS, *FLOATS, *COMPLEX]]


# {{{ recording what the element-wise layer would launch (nothing runs)


class _Config:
    grid, block = (2, 1, 1), (128, 1, 1)


class Recorder:
    """Stands in for _array_core.seams.kernel: keeps (kind, out dtype, operands, expression,
    p) of every kernel asked for, and (that kernel, its arguments) of every launch."""

    def __init__(self) -> None:
        self.kernels: list[tuple] = []
        self.launches: list[tuple] = []

    def kernel(self, kind, out_dtype, operands, expr, p):
        info = (kind, np.dtype(out_dtype), tuple(operands), expr, p)
        self.kernels.append(info)
        recorder = self

        class Function:
            def prepared_call(self, grid, block, *args):
                recorder.launches.append((info, args))

            def prepared_async_call(self, grid, block, stream, *args):
                recorder.launches.append((info, args))

        return Function()


@pytest.fixture
def recorder(monkeypatch):
    """Kernels recorded, memory handed out (never touched), no context: runs anywhere."""
    r = Recorder()
    array_seams.replace(
        monkeypatch, kernel=r.kernel, allocate=Memory().allocate,
        launch_config=lambda n, items=1: _Config(),
    )  # fmt: skip
    return r


def _empty(shape, dtype):
    return gpuarray.GPUArray(shape, dtype)


def _last(recorder):
    """What the latest launch ran: (out dtype, operands, expression)."""
    kind, out, operands, expr, p = recorder.launches[-1][0]
    return out, operands, expr


# }}}

# {{{ the adapter answers as the unfused call decides

BINARY = ["add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power",
          "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]  # fmt: skip
_OPERATOR = {"add": "__add__", "subtract": "__sub__", "multiply": "__mul__",
             "true_divide": "__truediv__", "floor_divide": "__floordiv__",
             "remainder": "__mod__", "power": "__pow__", "equal": "__eq__",
             "not_equal": "__ne__", "less": "__lt__", "less_equal": "__le__",
             "greater": "__gt__", "greater_equal": "__ge__", "bitwise_and": "__and__",
             "bitwise_or": "__or__", "bitwise_xor": "__xor__", "left_shift": "__lshift__",
             "right_shift": "__rshift__"}  # fmt: skip
FUNCTIONS = ["maximum", "minimum", "arctan2", "hypot", "fmod", "ldexp", "logical_and"]
CUMATH = ["sqrt", "exp", "log1p", "expm1", "exp2", "sin", "arcsinh", "fabs", "ceil", "floor",
          "trunc", "sign", "isnan", "isfinite", "tanh", "asin", "log2"]  # fmt: skip


def _agrees(recorder, unfused, op, exprs, kinds, params=()):
    """``unfused()`` and the adapter's answer for ``op`` (not fenced) agree: both raise the
    same error type, or the kernel ``unfused()`` launched is (out dtype, scalar operand
    dtypes, expression) what the adapter answers."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if unfused() is NotImplemented:  # a comparison: Python reflects it itself
                return
    except (TypeError, ValueError, OverflowError) as exc:
        with pytest.raises(type(exc)):
            op_expression(op, exprs, kinds, params, fenced=False)
        return
    answer = op_expression(op, exprs, kinds, params, fenced=False)
    out, operands, expr = _last(recorder)
    assert (answer.dtype, answer.expr) == (out, expr), (op, kinds)
    scalars = [operand.dtype for operand in operands if operand.scalar]
    assert [d for d in answer.scalars if d is not None] == scalars, (op, kinds)


X01 = ["x0", "x1"]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_binary_operators_agree_with_the_unfused_kernels(recorder, dtype):
    a = _empty((3,), dtype)
    for other in DTYPES[::3] + [dtype]:
        b = _empty((3,), other)
        for op in BINARY:
            method = getattr(a, _OPERATOR[op])
            _agrees(recorder, lambda m=method, b=b: m(b), op, X01, [dtype, other])
    for value in (2, -3, 300, 2.5, 1j, True, np.float32(1.5), np.int16(7)):
        for op in BINARY:
            method = getattr(a, _OPERATOR[op])
            _agrees(recorder, lambda m=method, v=value: m(v), op, X01, [dtype, value])
            reflected = getattr(a, _OPERATOR[op].replace("__", "__r", 1), None)
            if reflected is not None:
                _agrees(recorder, lambda m=reflected, v=value: m(v), op, X01, [value, dtype])


UNARY = {"logical_not": gpuarray.logical_not, "negative": lambda x: -x, "absolute": abs,
         "invert": lambda x: ~x, "positive": lambda x: +x}  # fmt: skip


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_functions_agree_with_the_unfused_kernels(recorder, dtype):
    a = _empty((3,), dtype)
    modules = {"maximum": gpuarray, "minimum": gpuarray, "logical_and": gpuarray}
    for other in (dtype, np.dtype(np.float32), np.dtype(np.int8), 2, 0.5):
        b = _empty((3,), other) if isinstance(other, np.dtype) else other
        for name in FUNCTIONS:
            func = getattr(modules.get(name, cumath), name)
            _agrees(recorder, lambda f=func, b=b: f(a, b), name, X01, [dtype, other])
    for name in CUMATH + list(UNARY):
        func = UNARY.get(name) or getattr(cumath, name)
        _agrees(recorder, lambda f=func: f(a), name, ["x0"], [dtype])
    for target in (np.float32, np.int16, np.complex64, np.bool_):
        _agrees(recorder, lambda t=target: a.astype(t), "cast", ["x0"], [dtype], (target,))
    for d in (0, 2, -1):
        _agrees(recorder, lambda d=d: cumath.round(a, d), "round", ["x0"], [dtype], (d,))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_where_and_clip_agree_with_the_unfused_kernels(recorder, dtype):
    a = _empty((3,), dtype)
    where = ("pc_cast<bool>({x})",)
    for then_, else_ in ((a, 2.5), (3, a), (a, _empty((3,), np.float32)), (1, 2)):
        kinds = [k.dtype if isinstance(k, gpuarray.GPUArray) else k for k in (then_, else_)]
        _agrees(recorder, lambda t=then_, e=else_: gpuarray.where(a, t, e), "select",
                ["x0", "x1", "x2"], [dtype, *kinds], where)  # fmt: skip
    # (A Python int bound at the very end of an integer range, which clip drops, fuse keeps: it
    # clips nothing either, and whether it is there cannot depend on the value in one trace.)
    for lo, hi in ((1, 5), (None, 3), (1.5, None), (-1000, 10**6), (np.int8(3), 100)):
        names = iter(["x1", "x2"])
        exprs = ["x0"] + [next(names) if _bounds(dtype, b) else None for b in (lo, hi)]
        _agrees(recorder, lambda lo=lo, hi=hi: cumath.clip(a, lo, hi), "clip", exprs,
                [dtype, lo, hi])  # fmt: skip


def _bounds(dtype, bound):
    """Whether clip keeps ``bound`` as an operand (a Python int past an integer range's end it
    drops)."""
    if bound is None:
        return False
    if type(bound) is int and dtype.kind in "iu":
        return np.iinfo(dtype).min <= bound <= np.iinfo(dtype).max
    return True


def test_fenced_sums_and_products_round_each_operation():
    f32, f16, c64 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(np.complex64)
    assert "__fmul_rn" in op_expression("multiply", ["a", "b"], [f32, f32]).expr
    assert "__fadd_rn" in op_expression("add", ["a", "b"], [f16, 2.0]).expr  # in float
    assert "__dsub_rn" in op_expression("subtract", ["a", "b"], [f32, np.float64(1)]).expr
    assert op_expression("add", ["a", "b"], [c64, c64]).expr.count("__fadd_rn") == 2
    assert "_rn" not in op_expression("add", ["a", "b"], [f32, f32], fenced=False).expr
    assert "_rn" not in op_expression("add", ["a", "b"], [np.dtype(np.int32), 1]).expr


# }}}

# {{{ tracing: what fuse refuses, and how


def _args(*dtypes):
    return [_empty((4,), d) for d in dtypes]


@pytest.mark.parametrize(
    "body, match",
    [
        (
            lambda x: x if x > 0 else -x,
            r"fuse cannot trace `if` on an array value \(bool\(\) of a traced array\) in function "
            r".*<lambda>; use pycuda.gpuarray.where",
        ),
        (lambda x: np.sqrt(x), r"numpy.sqrt .*use pycuda.cumath.sqrt"),
        (lambda x: np.where(x > 0, x, 0), r"numpy.where"),
        (lambda x: x[0], r"indexing"),
        (lambda x: len(x) * x, r"len\(\)"),
        (lambda x: [v for v in x], r"iteration"),
        (lambda x: float(x), r"float\(\) of an array value"),
        (lambda x: x @ x, r"`@`"),
        (lambda x: x.shape[0] * x, r"`.shape`"),
        (lambda x: x.get(), r"`.get`"),
        (lambda x: gpuarray.sum(x), r"reduce='sum'"),
        (lambda x: cumath.frexp(x), r"cumath.frexp .*two arrays"),
        (lambda x: cumath.sqrt(x, out=x), r"out= argument of cumath.sqrt"),
        (lambda x: np.asarray(x), r"NumPy array"),
        (lambda x: (x, x + 1), r"returns several values"),
    ],
)
def test_untraceable_constructs_are_named(recorder, body, match):
    with pytest.raises(TypeError, match=match):
        fuse(body)(*_args(np.float32))
    assert not recorder.kernels


def test_in_place_operators_are_refused(recorder):
    def on_argument(x):
        x += 1
        return x

    def on_temporary(x):
        t = x * 2
        t *= 3
        return t

    with pytest.raises(TypeError, match=r"in-place `\+=` on argument 'x' in function"):
        fuse(on_argument)(*_args(np.float32))
    with pytest.raises(TypeError, match=r"in-place `\*=` in function .*on_temporary"):
        fuse(on_temporary)(*_args(np.float32))


def test_arrays_must_be_arguments(recorder):
    (w,) = _args(np.float32)
    with pytest.raises(TypeError, match="GPUArray that is not one of its arguments"):
        fuse(lambda x: x * w)(*_args(np.float32))
    with pytest.raises(TypeError, match="GPUArray that is not one of its arguments"):
        fuse(lambda x: w * x)(*_args(np.float32))
    with pytest.raises(TypeError, match="NumPy array"):
        fuse(lambda x: x + np.ones(4))(*_args(np.float32))
    with pytest.raises(TypeError, match="not NumPy arrays"):
        fuse(lambda x: x)(np.ones(4))


def test_the_unfused_dtype_errors_are_raised(recorder):
    with pytest.raises(TypeError, match="boolean subtract"):
        fuse(lambda x: x - x)(*_args(np.bool_))
    with pytest.raises(OverflowError):
        fuse(lambda x: x + 1000)(*_args(np.int8))
    with pytest.raises(TypeError, match="cumath.sqrt takes a GPUArray"):
        fuse(lambda x, a: cumath.sqrt(a) * x)(*_args(np.float32), 2.0)
    with pytest.raises(TypeError, match="criterion must be a GPUArray"):
        fuse(lambda x, a: gpuarray.where(a, x, 0))(*_args(np.float32), 2.0)
    with pytest.raises(ValueError, match="broadcast"):
        fuse(lambda x, y: x + y)(_empty((3,), np.float32), _empty((4,), np.float32))


def test_call_and_options_errors(recorder):
    f = fuse(lambda x, y=1: x * y)
    with pytest.raises(TypeError, match="by position"):
        f(*_args(np.float32), y=2)
    with pytest.raises(TypeError, match="hashable"):
        f(*_args(np.float32), [2])
    with pytest.raises(ValueError, match="reduce must be"):
        fuse(lambda x: x, reduce="mean")
    with pytest.raises(TypeError, match="must return an array value"):
        fuse(lambda x: 2.0, reduce="sum")(*_args(np.float32))


# }}}

# {{{ calls: the kernels and launches a fused function makes


def test_one_flat_kernel_per_call_and_one_trace_per_kind(recorder):
    traces = []

    @fuse
    def f(x, y, z):
        traces.append(1)
        return cumath.sqrt(x * x + y * y) * z + 1

    x, y, z = _args(np.float32, np.float32, np.float32)
    r = f(x, y, z)
    assert (r.shape, r.dtype, r.flags.c_contiguous) == ((4,), np.float32, True)
    kind, out, operands, expr, width = recorder.kernels[-1]
    assert (kind, out, width, len(operands)) == ("flat", np.float32, 4, 4)
    assert [op.scalar for op in operands] == [False, False, False, True]
    for _ in range(3):
        f(x, y, z)
    assert len(traces) == 1 and len(recorder.kernels) == 1 and len(recorder.launches) == 4
    ptr, *rest, n = recorder.launches[-1][1]
    assert rest == [x.ptr, y.ptr, z.ptr, 1] and n == 4
    f(*_args(np.float64, np.float32, np.float32))  # another kind: traced again
    assert len(traces) == 2


def test_numbers_are_kernel_arguments_computed_on_the_host(recorder):
    traces = []

    @fuse
    def f(x, alpha, n):
        traces.append(1)
        return x * (2 * alpha) + n // 2

    (x,) = _args(np.float32)
    f(x, 1.5, 7)
    f(x, 4.0, 9)
    assert len(traces) == 1
    assert recorder.launches[-1][1][2:4] == (8.0, 4)
    f(x, 4.0, 10**10)  # an int of another range: its own trace
    assert len(traces) == 2
    (i,) = _args(np.int32)
    g = fuse(lambda x, n: x + n)
    assert g(i, 7).dtype == np.int32
    with pytest.raises(OverflowError):  # as NumPy 2: out of int32's range
        g(i, 10**10)


def test_python_values_of_numbers_guard_the_trace(recorder):
    traces = []

    @fuse
    def f(x, alpha):
        traces.append(alpha > 0)
        return x * alpha if alpha > 0 else x - alpha

    (x,) = _args(np.float32)
    for a in (1.0, 2.0, -1.0, -3.0, 5.0):
        f(x, a)
    assert len(traces) == 2  # one trace per branch, each reused


def test_results_that_need_no_kernel(recorder):
    (x,) = _args(np.float32)
    assert fuse(lambda x: x)(x) is x
    assert fuse(lambda x, a: a * 2 + 1)(x, 3) == 7
    assert fuse(lambda x, mode: x if mode == "same" else -x)(x, "same") is x
    assert not recorder.kernels


def test_broadcast_and_strided_operands_take_the_general_kernels(recorder):
    f = fuse(lambda x, y: x * y + 1)
    r = f(_empty((5, 1), np.float32), _empty((1, 6), np.float64))
    assert (r.shape, r.dtype) == ((5, 6), np.float64)
    assert recorder.kernels[-1][0] in ("rows", "rows32", "strided", "strided32")
    a = _empty((6, 8), np.float32)
    r = f(a[:, ::2], a[:, 1::2])
    assert r.shape == (6, 4) and recorder.kernels[-1][0] != "flat"


def test_a_fused_method_binds(recorder):
    class Model:
        scale = 3.0

        @fuse
        def apply(self, x):
            return x * self.scale

    (x,) = _args(np.float32)
    assert Model().apply(x).dtype == np.float32


@pytest.fixture
def launch_log(monkeypatch):
    from pycuda import compiler, driver

    log = LaunchLog()
    monkeypatch.setattr(compiler, "SourceModule", log.module)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    array_seams.replace(monkeypatch, allocate=Memory().allocate)
    return log


def test_a_reduction_is_one_reduction_kernel(launch_log):
    f = fuse(lambda x, y: x * y + 2, reduce="sum")
    x, y = _empty((10**6,), np.float32), _empty((10**6,), np.float32)
    r = f(x, y)
    assert (r.shape, r.dtype) == ((), np.float32)
    names = [c[0] for c in launch_log.calls]
    assert names[0] == "fused_sum_stage1_vec" and names[1:] == ["fused_sum_stage2"]
    assert launch_log.calls[0][3][1:] == (x.ptr, y.ptr, np.float32(2), 10**6)
    assert fuse(lambda x: x > 0, reduce="sum")(x).dtype == np.int64  # numpy.sum of bools
    assert fuse(lambda x: x.astype(np.float16), reduce="max")(x).dtype == np.float16


# }}}

# {{{ the generated sources compile (NVRTC, no GPU)


def _sample_functions():
    yield lambda x, y, z, a: cumath.sqrt(x * x + y * y) * z + a, (np.float32,) * 3, (2.5,)
    yield (lambda x, y, a: gpuarray.where(x > a, cumath.exp(x) - y, cumath.clip(y, 0, a)),
           (np.float16, np.float16), (1.5,))  # fmt: skip
    yield lambda x, y: (x // y + x % y) << 1 ^ (x > y), (np.int8, np.uint16), ()
    yield lambda x, y: x * y.conj() + abs(x) / (y - 1j), (np.complex64, np.complex128), ()
    yield lambda x, y: cumath.arctan2(x, y).astype(np.int32) - cumath.round(y, 2), (
        np.float64, np.int32), ()  # fmt: skip
    yield lambda x, y: gpuarray.maximum(x, y) & ~x, (np.bool_, np.bool_), ()


@needs_nvrtc
def test_generated_kernels_compile(recorder, monkeypatch):
    for func, dtypes, numbers in _sample_functions():
        f = fuse(func)
        arrays = [_empty((64,), d) for d in dtypes]
        f(*arrays, *numbers)  # flat
        f(*[_empty((8, 1), d) for d in dtypes[:1]], *[_empty((1, 64), d) for d in dtypes[1:]],
          *numbers)  # fmt: skip  # rows or strided
        fuse(func, fma=True)(*arrays, *numbers)
    sources = {
        ak.kernel_source(kind, f"k{i}", out, operands, expr, p)[0]: None
        for i, (kind, out, operands, expr, p) in enumerate(recorder.kernels)
    }
    assert len(sources) >= 18
    cubin = cuda_compile(ak.HELPERS + "".join(sources), arch="sm_90", no_extern_c=True,
                         cache_dir=False)  # fmt: skip
    assert b"k0" in cubin


@needs_nvrtc
def test_reduction_kernels_compile(monkeypatch):
    from pycuda import compiler, driver

    sources = []

    def module(source, options=None, keep=False, no_extern_c=False, **kw):
        sources.append(source)
        return LaunchLog().module(source)

    monkeypatch.setattr(compiler, "SourceModule", module)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    array_seams.replace(monkeypatch, allocate=Memory().allocate)
    for reduce in ("sum", "max", "min"):
        for dtype in (np.float16, np.int8, np.float64):
            f = fuse(lambda x, y, a: (x - y) * a, reduce=reduce)
            f(_empty((100,), dtype), _empty((100,), dtype), 3)
    f = fuse(lambda x: x * 1j, reduce="sum")
    f(_empty((100,), np.float32))
    for source in sources:
        cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(sources) == 10


# }}}

# {{{ fused against unfused: on the host stand-in, and on the GPU

FENCES = "".join(
    f"inline {t} __{p}{name}_rn({t} a, {t} b) {{ return a {op} b; }}\n"
    for t, p in (("float", "f"), ("double", "d"))
    for name, op in (("add", "+"), ("sub", "-"), ("mul", "*"))
)


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in running the same kernels on the CPU (with the
    CUDA rounding intrinsics the fused kernels call defined for it)."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    dev = host_device.install(monkeypatch)

    def kernel(kind, out_dtype, operands, expr, p):
        source, fmt = ak.kernel_source(kind, "pycuda_elwise", out_dtype, operands, expr, p)
        func = dev.compile(FENCES + source, "pycuda_elwise", fmt)
        if kind.startswith("rows"):
            func.y = (2, 3)
        return func

    monkeypatch.setattr(core.seams, "kernel", kernel)
    return dev


def _on_gpu(device):
    return not isinstance(device, host_device.HostDevice)


def assert_same(fused, unfused):
    """Same shape, dtype and bits (NaN where NaN, of any payload)."""
    fused = fused.get() if hasattr(fused, "get") else np.asarray(fused)
    unfused = unfused.get() if hasattr(unfused, "get") else np.asarray(unfused)
    assert (fused.shape, fused.dtype) == (unfused.shape, unfused.dtype)
    fused, unfused = fused.reshape(-1), unfused.reshape(-1)
    if fused.dtype.kind == "c":
        fused, unfused = fused.view(fused.real.dtype), unfused.view(unfused.real.dtype)
    if fused.dtype.kind == "f":
        nan = np.isnan(fused)
        assert np.array_equal(nan, np.isnan(unfused))
        fused, unfused = fused[~nan], unfused[~nan]
        bits = np.dtype(f"u{fused.dtype.itemsize}")
        fused, unfused = fused.view(bits), unfused.view(bits)
    np.testing.assert_array_equal(fused, unfused)


# Functions of two arrays, run fused and as they are (unfused) on the same arrays.
CASES = {
    "arithmetic": lambda x, y: x * y + x - y * 3,
    "division": lambda x, y: x / (y + 2) + y,
    "floor and remainder": lambda x, y: x // (y + 3) + x % (y + 5),
    "power": lambda x, y: x**2 + (y + 1) ** 3,
    "where": lambda x, y: gpuarray.where(x < y, x, y * 2),
    "extrema": lambda x, y: gpuarray.maximum(x, y) - gpuarray.minimum(x, 1),
    "bits": lambda x, y: (x & y) | (x ^ 3),
    "shifts": lambda x, y: (x << 2) >> 1,
    "unary": lambda x, y: -x + abs(y),
    "math": lambda x, y: cumath.sqrt(abs(x)) * cumath.exp(y * 0.01) - cumath.log1p(abs(y)),
    "trigonometry": lambda x, y: cumath.sin(x) + cumath.cos(y) * cumath.tanh(x),
    "softplus": lambda x, y: cumath.log1p(cumath.exp(x * 0.1)) + cumath.sinh(y * 0.01) // 3,
    "casts": lambda x, y: x.astype(np.float32) * y + (x > 1),
    "clip, fmod, round": lambda x, y: cumath.clip(x, 0, 5) + cumath.fmod(y, 3) - cumath.round(x, 1),
    "complex": lambda x, y: x * y + x / (y + 1j) - (x - y).conj(),
}
HOST_DTYPES = [np.int8, np.uint32, np.float16, np.float32, np.complex64, np.bool_]


def _values(dtype, shape, rng):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) > 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -100), min(info.max, 100), shape, endpoint=True,
                            dtype=dtype)  # fmt: skip
    x = rng.standard_normal(shape) * 4
    if dtype.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return np.asarray(x).astype(dtype)


def _compare(func, x, y, *numbers):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = func(x, y, *numbers)
        except (TypeError, ValueError, OverflowError) as exc:
            with pytest.raises(type(exc)):
                fuse(func)(x, y, *numbers)
            return
        assert_same(fuse(func)(x, y, *numbers), expected)


@pytest.mark.parametrize("name", CASES)
def test_fused_equals_unfused(device, name):
    rng = np.random.default_rng(5)
    dtypes = DTYPES if _on_gpu(device) else HOST_DTYPES
    func = CASES[name]
    for dx in dtypes:
        for dy in (dx, np.float32) if _on_gpu(device) else (dx,):
            x = gpuarray.to_gpu(_values(dx, (3, 37), rng))
            y = gpuarray.to_gpu(_values(dy, (37,), rng))
            _compare(func, x, x, *())  # one shape: the flat kernel
            _compare(func, x, y)  # broadcast


NUMBERS = st.sampled_from([2, -3, 0.5, 1.5j, True, np.float32(0.25), np.int8(-2), 100000])


@settings(
    max_examples=25,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=5),
    dtypes=st.tuples(st.sampled_from(HOST_DTYPES), st.sampled_from(HOST_DTYPES)),
    numbers=st.tuples(NUMBERS, NUMBERS),
    seed=st.integers(0, 2**16),
)
def test_random_shapes_dtypes_and_numbers(device, shapes, dtypes, numbers, seed):
    rng = np.random.default_rng(seed)
    x, y = (
        gpuarray.to_gpu(_values(d, s, rng))
        for d, s in zip(dtypes, shapes.input_shapes, strict=True)
    )
    if x.ndim == 2 and x.shape[1] > 1:
        x = x[:, ::2] if seed % 2 else x.T  # strided operands
    _compare(lambda x, y, a, b: a * x + y * b - (x > b), x, y, *numbers)
    _compare(lambda x, y, a, b: gpuarray.where(y, x * a, b), x, y, *numbers)


@pytest.mark.gpu
@pytest.mark.parametrize("reduce", ["sum", "max", "min"])
@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint16, np.float16, np.float32,
                                   np.float64, np.bool_, np.complex64])  # fmt: skip
def test_reductions_equal_gpuarrays(ctx, reduce, dtype):
    rng = np.random.default_rng(1)
    reference = getattr(gpuarray, reduce)
    func = lambda x, y, a: x * a - y  # noqa: E731
    for shape in [(1,), (1000,), (3, 1000), (12345,), (1 << 22,)]:
        x = gpuarray.to_gpu(_values(dtype, shape, rng))
        y = gpuarray.to_gpu(_values(dtype, shape, rng))
        for a in (2, 0.5):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    expected = reference(func(x, y, a))
                except (TypeError, ValueError) as exc:
                    with pytest.raises(type(exc)):
                        fuse(func, reduce=reduce)(x, y, a)
                    continue
            result = fuse(func, reduce=reduce)(x, y, a)
            assert (result.shape, result.dtype) == ((), expected.dtype)
            if reduce != "sum" or expected.dtype.kind in "biu":
                assert_same(result, expected)
            else:  # the order of additions differs: each partial sum rounds
                tol = {2: 1e-2, 4: 1e-5, 8: 1e-12}[np.finfo(expected.dtype).bits // 8]
                scale = reference(abs(func(x, y, a))).get()
                assert abs(result.get() - expected.get()) <= tol * max(abs(scale), 1)
    empty = gpuarray.empty((0,), dtype)
    if reduce == "sum":
        assert fuse(func, reduce=reduce)(empty, empty, 2).get() == 0
    else:
        with pytest.raises(ValueError):
            fuse(func, reduce=reduce)(empty, empty, 2)
    if np.dtype(dtype).kind != "c":  # (complex numbers have no max)
        x = gpuarray.to_gpu(_values(dtype, (40, 30), rng))
        strided = fuse(lambda x: x * 2, reduce="max")(x[:, ::3])  # element-wise, then reduced
        assert_same(strided, gpuarray.max(x[:, ::3] * 2))


@pytest.mark.gpu
def test_contraction_allowed_stays_within_its_rounding(ctx):
    rng = np.random.default_rng(2)
    for dtype, tol in ((np.float32, 1e-6), (np.float64, 1e-14)):
        x, y, z = (gpuarray.to_gpu(_values(dtype, (1 << 16,), rng)) for _ in range(3))

        def func(x, y, z):
            return x * y + z * x - y

        exact = func(x, y, z).get()
        contracted = fuse(func, fma=True)(x, y, z).get()
        assert_same(fuse(func)(x, y, z), exact)
        scale = np.abs(x.get() * y.get()) + np.abs(z.get() * x.get()) + np.abs(y.get())
        assert np.all(np.abs(contracted - exact) <= 2 * tol * scale)


# }}}
