"""Tests of bfloat16 GPUArrays (ml_dtypes.bfloat16): kernels compile (CPU), values against NumPy
with ml_dtypes on the host stand-in and the GPU. Skipped where ml_dtypes is not installed."""

from __future__ import annotations

import host_device
import kernel_recorder
import numpy as np
import pytest

from pycuda import cumath

ml_dtypes = pytest.importorskip("ml_dtypes")
BF16 = np.dtype(ml_dtypes.bfloat16)

OTHERS = [np.bool_, np.int8, np.uint8, np.int16, np.int32, np.uint64, np.float16, np.float32,
          np.float64, np.complex64, np.complex128]  # fmt: skip
OPERATORS = ["__add__", "__sub__", "__mul__", "__truediv__", "__floordiv__", "__mod__",
             "__pow__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"]  # fmt: skip
UNARY = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh", "exp2", "log2", "log1p", "expm1", "sign",
         "trunc", "round", "isnan", "isinf", "isfinite", "arcsinh", "arccosh",
         "arctanh"]  # fmt: skip
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan}
ULP = 2.0**-7  # bfloat16 keeps 8 significant bits


def test_c_name():
    from pycuda._array_kernels import compute_ctype
    from pycuda._c_types import ctype_to_dtype, dtype_to_ctype

    assert dtype_to_ctype(BF16) == "__nv_bfloat16"
    assert ctype_to_dtype("__nv_bfloat16") == BF16
    assert compute_ctype(BF16) == "float"


def test_every_generated_kernel_compiles(monkeypatch):
    """Each kernel that bfloat16 arrays make (copies, casts both ways, fills, operators with
    every dtype and scalar, cumath) compiles with NVRTC."""
    from pycuda import gpuarray

    recorder = kernel_recorder.install(monkeypatch)
    x = gpuarray.empty((4, 6), BF16)
    x.fill(1.5)
    for view in (x, x[:, ::2]):
        view.copy()
        -view, abs(view)  # noqa: B018 - the kernels are what is tested
        for other in OTHERS:
            view.astype(other)
            gpuarray.empty(view.shape, other).astype(BF16)
            for op in OPERATORS:
                if other in (np.complex64, np.complex128) and op in ("__floordiv__", "__mod__"):
                    continue
                getattr(view, op)(gpuarray.empty(view.shape, other))
        for op in OPERATORS:
            for scalar in (2, 2.5, ml_dtypes.bfloat16(3), np.float32(2)):
                getattr(view, op)(scalar)
        for name in UNARY:
            getattr(cumath, name)(view)
        for name in ("arctan2", "hypot", "power", "fmod"):
            getattr(cumath, name)(view, view)
            getattr(cumath, name)(view, 2)
        cumath.clip(view, 0, view[:1])
        cumath.frexp(view), cumath.modf(view), cumath.ldexp(view, 3)
        cumath.round(view, 2)
    assert len(recorder.compile_all()) > 0


# {{{ on the GPU, and on the host stand-in (tests/host_device.py) where no GPU is


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _bf16(rng, shape, low=-8.0, high=8.0):
    return rng.uniform(low, high, shape).astype(BF16)


def test_transfers_fill_and_creation(device):
    from pycuda import gpuarray

    rng = np.random.default_rng(0)
    x = _bf16(rng, (7, 9))
    gx = gpuarray.to_gpu(x)
    assert gx.dtype == BF16 and gx.itemsize == 2 and gx.nbytes == x.nbytes
    np.testing.assert_array_equal(gx.get(), x)
    np.testing.assert_array_equal(gx[::2, ::-3].get(), x[::2, ::-3])
    np.testing.assert_array_equal(gpuarray.to_gpu(x.T).get(), x.T)
    np.testing.assert_array_equal(gx[1:3].copy().get(), x[1:3])
    assert gpuarray.zeros((3, 2), BF16).get().tolist() == [[0, 0]] * 3
    np.testing.assert_array_equal(gpuarray.ones(5, BF16).get(), np.ones(5, BF16))
    filled = gpuarray.empty((4, 5), BF16).fill(1.1)
    np.testing.assert_array_equal(filled.get(), np.full((4, 5), 1.1, BF16))
    gx[1:3, ::2] = 2.25
    x[1:3, ::2] = 2.25
    np.testing.assert_array_equal(gx.get(), x)


@pytest.mark.parametrize("other", OTHERS, ids=lambda d: np.dtype(d).name)
def test_astype_both_ways(device, other):
    from pycuda import gpuarray

    rng = np.random.default_rng(1)
    other = np.dtype(other)
    if other.kind in "iu":
        # float to integer out of the integer's range (and NaN) is undefined in C: x86 and
        # CUDA differ, so only values in range are compared
        info = np.iinfo(other)
        x = _bf16(rng, 300, max(info.min, -200), min(info.max, 200))
    else:
        x = _bf16(rng, 300, -200, 200)
        x[:5] = [np.nan, np.inf, -np.inf, -0.0, 0.5]
    np.testing.assert_array_equal(gpuarray.to_gpu(x).astype(other).get(), x.astype(other))
    y = rng.uniform(-300, 300, 300)
    if other.kind == "c":
        y = y + 1j
    # values at and between bfloat16's steps, so the rounding (to nearest even) is tested
    y = y * (1 + 2.0**-9)
    y = y.astype(other) if other.kind != "u" else np.abs(y).astype(other)
    np.testing.assert_array_equal(gpuarray.to_gpu(y).astype(BF16).get(), y.astype(BF16))


@pytest.mark.parametrize("op", OPERATORS)
def test_operators_against_numpy(device, op):
    from pycuda import gpuarray

    rng = np.random.default_rng(2)
    x = _bf16(rng, (6, 7))
    y = _bf16(rng, (7,))
    y[y == 0] = 1
    if op == "__pow__":
        x = np.abs(x)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    others = [
        (gy, y),
        (gpuarray.to_gpu(y.astype(np.float32)), y.astype(np.float32)),
        (gpuarray.to_gpu(y.astype(np.int16)), y.astype(np.int16)),
        (3, 3),
        (2.5, 2.5),
        (ml_dtypes.bfloat16(1.7), ml_dtypes.bfloat16(1.7)),
    ]
    for g_other, other in others:
        with np.errstate(all="ignore"):
            expected = getattr(x, op)(other)
        result = getattr(gx, op)(g_other)
        assert result.dtype == expected.dtype, (op, other)
        got = result.get()
        if op == "__pow__" or expected.dtype != BF16:
            # powf may differ from the host's in the last float bit, once in a while a
            # bfloat16 step after rounding; float32 results carry float32's rounding
            tol = ULP if expected.dtype == BF16 else 1e-6
            np.testing.assert_allclose(got.astype(float), expected.astype(float), rtol=tol)
        else:
            np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal((-gx).get(), -x)
    np.testing.assert_array_equal(abs(gx[::-1]).get(), abs(x[::-1]))


@pytest.mark.parametrize("name", UNARY)
def test_cumath_against_numpy(device, name):
    from pycuda import gpuarray

    rng = np.random.default_rng(3)
    low, high = {"arccosh": (1, 9), "arctanh": (-0.9, 0.9), "asin": (-1, 1), "acos": (-1, 1)}.get(
        name, (0.01, 9) if name.startswith("log") or name == "sqrt" else (-4, 4)
    )
    x = _bf16(rng, (40, 25), low, high)
    if name in ("isnan", "isinf", "isfinite", "sign", "trunc", "round", "fabs"):
        x[0, :5] = [np.nan, np.inf, -np.inf, 2.5, -0.5]
    func = NUMPY.get(name) or getattr(np, name.replace("fabs", "abs"))
    with np.errstate(all="ignore"):
        expected = func(x)
    result = getattr(cumath, name)(gpuarray.to_gpu(x)[:, ::-1])
    expected = expected[:, ::-1]
    assert result.dtype == expected.dtype
    got = result.get()
    if expected.dtype == BF16:
        # CUDA's float functions are within 2 float ulps: at most one bfloat16 step apart
        np.testing.assert_allclose(got.astype(float), expected.astype(float), rtol=ULP, atol=0)
    else:
        np.testing.assert_array_equal(got, expected)


def test_binary_cumath_and_clip(device):
    from pycuda import gpuarray

    rng = np.random.default_rng(4)
    x, y = _bf16(rng, (5, 8)), _bf16(rng, (8,), 0.5, 4)
    gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    for name in ("arctan2", "hypot"):
        expected = getattr(np, name)(x, y)
        result = getattr(cumath, name)(gx, gy)
        assert result.dtype == expected.dtype == BF16
        np.testing.assert_allclose(result.get().astype(float), expected.astype(float), rtol=ULP)
    expected = np.clip(x, ml_dtypes.bfloat16(-1), y)
    result = cumath.clip(gx, ml_dtypes.bfloat16(-1), gy)
    assert result.dtype == BF16
    np.testing.assert_array_equal(result.get(), expected)


# }}}


# {{{ reductions and scans (the dtype table's accumulator: float32), on the GPU


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_reductions_against_numpy(ctx, axis):
    """Integer values: the float32 sums are exact, so each result is the exact value rounded
    once to bfloat16, as NumPy's float32 sum of the same values rounded to bfloat16."""
    from pycuda import gpuarray

    rng = np.random.default_rng(7)
    host = rng.integers(-3, 4, size=(37, 300)).astype(BF16)
    exact = host.astype(np.float32)
    a = gpuarray.to_gpu(host)
    sums = a.sum(axis=axis).get()
    assert sums.dtype == np.sum(host, axis=axis).dtype == BF16
    expected = np.asarray(exact.sum(axis=axis)).astype(BF16)
    np.testing.assert_array_equal(sums.astype(np.float32), expected.astype(np.float32))
    for name in ("max", "min"):
        got = getattr(a, name)(axis=axis).get()
        np.testing.assert_array_equal(got, getattr(np, name)(host, axis=axis))
    mean = a.mean(axis=axis).get().astype(np.float32)
    np.testing.assert_allclose(mean, exact.mean(axis=axis), rtol=2**-7, atol=2**-9)
    if not isinstance(axis, tuple):
        for name in ("argmax", "argmin"):
            got = getattr(a, name)(axis=axis).get()
            np.testing.assert_array_equal(got, getattr(np, name)(host, axis=axis))


@pytest.mark.gpu
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_cumsum_against_numpy(ctx, axis):
    """Ones and zeros, 240 of them: every partial sum is exact in bfloat16 too."""
    from pycuda import gpuarray

    rng = np.random.default_rng(8)
    host = rng.integers(0, 2, size=(8, 30)).astype(BF16)
    got = gpuarray.cumsum(gpuarray.to_gpu(host), axis=axis).get()
    expected = np.cumsum(host.astype(np.float32), axis=axis)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.astype(np.float32), expected)


# }}}
