"""Tests of pycuda.cumath: kernel sources compile (CPU), functions against NumPy (GPU)."""

from __future__ import annotations

import host_device
import kernel_recorder
import numpy as np
import pytest

from pycuda import _array_kernels as ak
from pycuda import cumath
from pycuda._dtype_rules import float_result_dtype
from pycuda.compiler import compile as cuda_compile

UNARY = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh"]  # fmt: skip
COMPLEX_OK = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
              "sinh", "cosh", "tanh"]  # fmt: skip
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan}
FLOATS = [np.float16, np.float32, np.float64]
ALL = FLOATS + [np.int32, np.uint8, np.complex64, np.complex128]


# The functions added beyond the original's 20 (NumPy's names).
NEW_UNARY = ["exp2", "log2", "log1p", "expm1", "sign", "trunc", "round", "isnan", "isinf",
             "isfinite", "arcsinh", "arccosh", "arctanh"]  # fmt: skip
NEW_BINARY = ["arctan2", "hypot", "power"]
COMPILED = [np.float32, np.float64, np.complex64, np.complex128, np.float16, np.int32, np.uint8,
            np.int64, np.bool_]  # fmt: skip


def _numpy(name):
    return NUMPY.get(name) or getattr(np, name)


def _numpy_raises(func, *args):
    """True when NumPy refuses these arguments with a TypeError (no loop for the dtypes)."""
    try:
        with np.errstate(all="ignore"):
            func(*args)
    except TypeError:
        return True
    return False


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_every_function_source_compiles(dtype):
    dtype = np.dtype(dtype)
    source, k = ak.HELPERS, 0
    names = COMPLEX_OK if dtype.kind == "c" else UNARY
    result = float_result_dtype(dtype)
    for name in names:
        expr = ak.unary_expression(name, dtype, result)
        source += ak.flat_kernel(f"u{k}", result, [ak.Operand(dtype)], expr, 1)
        source += ak.strided_kernel(f"s{k}", result, [ak.Operand(dtype)], expr, 2)
        k += 1
    if dtype.kind != "c":
        ct = ak.compute_ctype(result)
        t = ak.dtype_to_ctype(result)
        x = f"pc_cast<{ct}>(x0)"
        for expr in (
            f"pc_cast<{t}>([&] {{ int e; return frexp({x}, &e); }}())",
            f"[&] {{ int e; frexp({x}, &e); return e; }}()",
            f"pc_cast<{t}>([&] {{ {ct} w; return modf({x}, &w); }}())",
        ):
            source += ak.flat_kernel(f"m{k}", result, [ak.Operand(dtype)], expr, 1)
            k += 1
        for op in ("fmod", "ldexp"):
            expr = ak.binary_expression(op, result, result, result, result)
            ops = [ak.Operand(result), ak.Operand(result)]
            source += ak.flat_kernel(f"b{k}", result, ops, expr, 2)
            k += 1
    cubin = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


@pytest.mark.parametrize("dtype", COMPILED, ids=lambda d: np.dtype(d).name)
def test_every_new_function_kernel_compiles(monkeypatch, dtype):
    """Every kernel the new functions generate for ``dtype`` (flat and strided, array and
    scalar operands) compiles with NVRTC; dtypes NumPy refuses raise TypeError instead."""
    from pycuda import gpuarray

    recorder = kernel_recorder.install(monkeypatch)
    x = gpuarray.empty((4, 6), dtype)
    host = np.zeros((4, 6), dtype)
    for view in (x, x[:, ::2]):
        for name in NEW_UNARY:
            if _numpy_raises(getattr(np, name), host):
                with pytest.raises(TypeError):
                    getattr(cumath, name)(view)
            else:
                getattr(cumath, name)(view)
        if np.dtype(dtype).kind != "b":
            cumath.round(view, 2)
            cumath.round(view, -1)
        for name in NEW_BINARY:
            func = getattr(cumath, name)
            if _numpy_raises(getattr(np, name), host, host):
                with pytest.raises(TypeError):
                    func(view, view)
                continue
            func(view, view)
            func(view, 2)
            func(3, view)
            func(view, x[:1, :1])
        cumath.clip(view, 0, 1)
        cumath.clip(view, view, None)
        cumath.clip(view, None, view[:1])
        cumath.clip(view, x[:1, :1], view)
    assert len(recorder.compile_all()) > 0


@pytest.mark.parametrize("name", ["arctan2", "hypot"])
def test_binary_float_result_dtype_is_numpys(name):
    """The dtype rule of arctan2 and hypot, for every pair of supported dtypes and for weak
    Python scalars: NumPy's first float loop that both operands cast to."""
    from pycuda._dtype_rules import SUPPORTED_DTYPES, binary_float_result_dtype

    reference = getattr(np, name)
    for a in SUPPORTED_DTYPES:
        for b in [*SUPPORTED_DTYPES, 2, 2.5, True]:
            host_b = b if isinstance(b, (bool, int, float)) else np.ones(1, b)
            ours = binary_float_result_dtype(a, b)
            if _numpy_raises(reference, np.ones(1, a), host_b):
                assert ours.kind == "c", (a, b)  # cumath raises TypeError for complex
            else:
                assert ours == reference(np.ones(1, a), host_b).dtype, (a, b)


# {{{ on the GPU, and on the host stand-in (tests/host_device.py) where no GPU is


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _on_host(device):
    return isinstance(device, host_device.HostDevice)


def _values(name, dtype, shape, rng):
    dtype = np.dtype(dtype)
    x = rng.uniform(-0.9, 0.9, shape)
    if name in ("log", "log10", "sqrt"):
        x = np.abs(x) * 10 + 0.1
    elif name in ("exp", "sinh", "cosh", "tanh", "fabs", "ceil", "floor", "sin", "cos"):
        x = x * 5
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(-0.9, 0.9, shape)
    if dtype.kind in "iu":
        x = np.abs(x) * 10
    return np.asarray(x).astype(dtype)


def _tol(dtype):
    # by the precision of the (real) components: complex64 computes in float
    return {2: 2e-3, 4: 5e-6, 8: 1e-13}[np.finfo(dtype).dtype.itemsize]


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_against_numpy(device, name, dtype):
    from pycuda import gpuarray

    func = getattr(cumath, name)
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "c" and name not in COMPLEX_OK + ["fabs"]:
        with pytest.raises(TypeError):
            func(gpuarray.zeros(3, dtype))
        return
    reference = np.abs if name == "fabs" and np.dtype(dtype).kind == "c" else _numpy(name)
    for shape in [(), (0,), (1,), (1000,), (33, 17)]:
        x = _values(name, dtype, shape, rng)
        expected = np.asarray(reference(x))
        result = func(gpuarray.to_gpu(x))
        assert result.dtype == expected.dtype and result.shape == expected.shape
        tol = _tol(expected.dtype) if expected.dtype.kind in "fc" else 0
        np.testing.assert_allclose(result.get(), expected, rtol=tol, atol=tol)
    x = _values(name, dtype, (20, 30), rng)
    gx = gpuarray.to_gpu(x)
    out = gpuarray.empty((10, 10), expected.dtype)
    func(gx[::2, ::3], out=out)
    np.testing.assert_allclose(out.get(), reference(x[::2, ::3]), rtol=tol, atol=tol)
    if not _on_host(device):
        import pycuda.driver as drv

        stream = drv.Stream()
        result = func(gx, stream=stream)
        stream.synchronize()
        np.testing.assert_allclose(result.get(), reference(x), rtol=tol, atol=tol)
    with pytest.warns(DeprecationWarning):
        func(gx[::2, ::3], out)  # the original's positional out is honoured, not dropped
    with pytest.raises(ValueError, match="shape"):
        func(gx, out=out)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_fmod_frexp_ldexp_modf(device, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(1)
    x = (rng.standard_normal(1000) * 100).astype(dtype)
    m = (rng.uniform(0.5, 7, 1000) * np.sign(rng.standard_normal(1000))).astype(dtype)
    gx, gm = gpuarray.to_gpu(x), gpuarray.to_gpu(m)
    np.testing.assert_array_equal(cumath.fmod(gx, gm).get(), np.fmod(x, m))
    np.testing.assert_array_equal(cumath.fmod(gx, 3).get(), np.fmod(x, dtype(3)))
    mant, expo = cumath.frexp(gx)
    e_mant, e_expo = np.frexp(x)
    np.testing.assert_array_equal(mant.get(), e_mant)
    np.testing.assert_array_equal(expo.get(), e_expo)
    assert mant.dtype == x.dtype and expo.dtype == np.int32
    np.testing.assert_array_equal(cumath.ldexp(mant, expo).get(), x)
    np.testing.assert_array_equal(cumath.ldexp(gx, 3).get(), np.ldexp(x, 3))
    frac, whole = cumath.modf(gx[::-2])
    e_frac, e_whole = np.modf(x[::-2])
    np.testing.assert_array_equal(frac.get(), e_frac)
    np.testing.assert_array_equal(whole.get(), e_whole)


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.uint8, np.uint32, np.uint64])
def test_fmod_of_integers_is_numpys(device, dtype):
    """NumPy's integer fmod: 0 for a zero divisor and for -1, and an unsigned divisor of all
    ones is no -1 (uint32 5 fmod 4294967295 is 5)."""
    from pycuda import gpuarray

    info = np.iinfo(dtype)
    a = np.array([5, 7, info.max, info.min, 0, 9], dtype)
    m = np.array([info.max, 3, 2, -1 if info.min else 1, 0, 4], dtype)
    with np.errstate(all="ignore"):
        expected = np.fmod(a, m)
    np.testing.assert_array_equal(
        cumath.fmod(gpuarray.to_gpu(a), gpuarray.to_gpu(m)).get(), expected
    )


@pytest.mark.parametrize("sig_dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("exp_dtype", [np.float16, np.float32, np.float64])
def test_ldexp_with_a_float_exponent_casts_it_as_c(device, sig_dtype, exp_dtype):
    """The original's kernel read float exponents and passed int(e): truncation toward zero."""
    from pycuda import gpuarray

    rng = np.random.default_rng(2)
    x = rng.standard_normal(300).astype(sig_dtype)
    e = rng.uniform(-9.9, 9.9, 300).astype(exp_dtype)
    e[:4] = [2.999, -2.999, 0.5, -0.5]
    expected = np.ldexp(x, np.trunc(e.astype(np.float64)).astype(np.int32))
    got = cumath.ldexp(gpuarray.to_gpu(x), gpuarray.to_gpu(e))
    assert got.dtype == expected.dtype == x.dtype
    np.testing.assert_array_equal(got.get(), expected)
    # A float scalar exponent, and integer ones still as NumPy.
    np.testing.assert_array_equal(cumath.ldexp(gpuarray.to_gpu(x), 3.7).get(), np.ldexp(x, 3))
    ints = e.astype(np.int16)
    np.testing.assert_array_equal(
        cumath.ldexp(gpuarray.to_gpu(x), gpuarray.to_gpu(ints)).get(), np.ldexp(x, ints)
    )


def test_ldexp_refuses_complex_exponents(device):
    from pycuda import gpuarray

    with pytest.raises(TypeError, match="integers or floats"):
        cumath.ldexp(gpuarray.zeros(3, np.float32), gpuarray.zeros(3, np.complex64))


def test_bad_input(device):
    from pycuda import gpuarray

    with pytest.raises(TypeError, match="GPUArray"):
        cumath.sin(np.zeros(3))
    with pytest.raises(TypeError):
        cumath.frexp(gpuarray.zeros(3, np.complex64))
    with pytest.raises(TypeError, match="dtype"):
        cumath.sqrt(gpuarray.zeros(3), out=gpuarray.zeros(3, np.float32))


def _new_values(name, dtype, shape, rng):
    """Inputs in each function's domain, with NaN, infinities, halves and signed zeros among the
    floats where the function is defined for them."""
    dtype = np.dtype(dtype)
    x = rng.uniform(-4, 4, shape)
    if name == "arccosh":
        x = np.abs(x) + 1
    elif name == "arctanh":
        x = x / 4.5
    elif name in ("log2", "log1p"):
        x = np.abs(x) * 3 + 0.01
    elif name in ("round", "trunc", "sign"):
        x = np.round(x * 4) / 4  # many exact halves and quarters: the ties to even
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(-2, 2, shape)
    if dtype.kind in "iu":
        x = np.abs(x) * 10 if dtype.kind == "u" or name in ("arccosh",) else x * 10
    if dtype.kind == "b":
        x = x > 0
    x = np.asarray(x).astype(dtype)
    specials = name in ("isnan", "isinf", "isfinite", "sign", "trunc", "round")
    if dtype.kind in "fc" and specials and x.size >= 6:
        flat = x.reshape(-1)
        flat[:6] = [np.nan, np.inf, -np.inf, -0.0, 2.5, -3.5]
        if dtype.kind == "c":
            flat[:3] = [complex(np.nan, 1), complex(1, np.inf), complex(-np.inf, np.nan)]
    return x


def _check(result, expected, exact):
    expected = np.asarray(expected)
    assert result.dtype == expected.dtype and result.shape == expected.shape
    got = result.get()
    if exact or expected.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, expected)
    else:
        tol = _tol(expected.dtype)
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


EXACT = {"sign", "trunc", "round", "isnan", "isinf", "isfinite"}


@pytest.mark.parametrize(
    "dtype",
    [np.float16, np.float32, np.float64, np.complex64, np.complex128, np.int32, np.uint8, np.bool_],
    ids=lambda d: np.dtype(d).name,
)
@pytest.mark.parametrize("name", NEW_UNARY)
def test_new_unary_functions_against_numpy(device, name, dtype):
    from pycuda import gpuarray

    func, reference = getattr(cumath, name), getattr(np, name)
    rng = np.random.default_rng(2)
    if _numpy_raises(reference, np.zeros(3, dtype)):
        with pytest.raises(TypeError):
            func(gpuarray.zeros(3, dtype))
        return
    # NumPy's complex sign is z / |z|: rounded, so compared with a tolerance like the others.
    exact = name in EXACT and not (name == "sign" and np.dtype(dtype).kind == "c")
    with np.errstate(all="ignore"):
        for shape in [(), (0,), (7,), (1000,), (33, 17)]:
            x = _new_values(name, dtype, shape, rng)
            _check(func(gpuarray.to_gpu(x)), reference(x), exact)
        x = _new_values(name, dtype, (20, 30), rng)
        gx = gpuarray.to_gpu(x)
        expected = reference(x[::2, ::-3])
        out = gpuarray.empty(expected.shape, expected.dtype)
        assert func(gx[::2, ::-3], out=out) is out
        _check(out, expected, exact)
        if not _on_host(device):
            import pycuda.driver as drv

            stream = drv.Stream()
            result = func(gx.T, stream=stream)
            stream.synchronize()
            _check(result, reference(x.T), exact)
    with pytest.raises(ValueError, match="shape"):
        func(gx, out=out)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.complex64, np.int8])
@pytest.mark.parametrize("decimals", [1, 2, -1, -2, 5])
def test_round_decimals(device, decimals, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(3)
    x = rng.uniform(-300, 300, 500)
    x[:6] = [0.25, 0.35, 2.5, -15, 125, 0.125]
    if np.dtype(dtype).kind == "c":
        x = x + 1j * x[::-1]
    x = x.astype(dtype)
    with np.errstate(all="ignore"):
        expected = np.round(x, decimals)
    result = cumath.round(gpuarray.to_gpu(x), decimals)
    assert result.dtype == expected.dtype
    np.testing.assert_array_equal(result.get(), expected)
    with pytest.raises(TypeError, match="decimals"):
        cumath.round(gpuarray.zeros(3, np.bool_), 1)


@pytest.mark.parametrize(
    "dtypes",
    [(np.float32, np.float32), (np.float64, np.float32), (np.int8, np.uint8),
     (np.int32, np.float16), (np.complex64, np.complex128), (np.uint8, np.int64)],
    ids=lambda d: "-".join(np.dtype(t).name for t in d),
)  # fmt: skip
@pytest.mark.parametrize("name", NEW_BINARY)
def test_binary_functions_against_numpy(device, name, dtypes):
    from pycuda import gpuarray

    func, reference = getattr(cumath, name), getattr(np, name)
    rng = np.random.default_rng(4)
    a = (rng.uniform(-3, 3, (5, 1, 7)) * (4 if name == "power" else 1)).astype(dtypes[0])
    b = rng.uniform(-3, 3, (6, 1)).astype(dtypes[1])
    if name == "power":
        a = np.abs(a)
        if np.dtype(dtypes[1]).kind in "iu" or np.dtype(dtypes[0]).kind in "iu":
            b = np.abs(b).astype(dtypes[1])  # NumPy refuses negative integer powers
    if np.dtype(dtypes[0]).kind == "c":
        a = a + 1j
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    if _numpy_raises(reference, a, b):
        with pytest.raises(TypeError):
            func(ga, gb)
        return
    with np.errstate(all="ignore"):
        _check(func(ga, gb), reference(a, b), False)
        _check(func(gb, ga[:, :, ::-2]), reference(b, a[:, :, ::-2]), False)
        _check(func(ga, 2), reference(a, 2), False)
        _check(func(2.0, ga), reference(2.0, a), False)
        _check(func(ga, np.float32(1.5)), reference(a, np.float32(1.5)), False)
        expected = reference(a, b)
        out = gpuarray.empty(expected.shape, expected.dtype)
        assert func(ga, gb, out=out) is out
        _check(out, expected, False)
    with pytest.raises(ValueError, match="broadcast"):
        func(ga, gpuarray.zeros((4,), dtypes[1]))
    with pytest.raises(TypeError, match="GPUArray"):
        func(a, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.uint16, np.complex64])
def test_clip_against_numpy(device, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(5)
    x = rng.uniform(-50, 50, (6, 9))
    if dtype == np.complex64:
        x = x + 1j * rng.uniform(-1, 1, (6, 9))
    x = x.astype(dtype)
    if np.dtype(dtype).kind == "f":
        x[0, :3] = [np.nan, np.inf, -np.inf]
    lo = rng.uniform(-20, 0, (6, 1)).astype(dtype)
    hi = rng.uniform(0, 20, (9,)).astype(dtype)
    gx, glo, ghi = (gpuarray.to_gpu(v) for v in (x, lo, hi))
    cases = [
        ((gx, -5, 7), (x, -5, 7)),
        ((gx, None, 7), (x, None, 7)),
        ((gx, -5, None), (x, -5, None)),
        ((gx, None, None), (x, None, None)),
        ((gx, glo, ghi), (x, lo, hi)),
        ((gx[::-2, 1::3], glo[::2], 3), (x[::-2, 1::3], lo[::2], 3)),
        ((gx, -1000, 1000), (x, -1000, 1000)),  # out of an int8's range: clipped to it
        ((gx, np.float64(-5.5), hi), (x, np.float64(-5.5), hi)),
    ]
    for args, host_args in cases:
        with np.errstate(all="ignore"):
            expected = np.clip(*host_args)
        _check(cumath.clip(*args), expected, True)
    out = gpuarray.empty(x.shape, x.dtype)
    assert cumath.clip(gx, glo, ghi, out=out) is out
    _check(out, np.clip(x, lo, hi), True)
    if np.dtype(dtype).kind == "f":
        nan_bound = cumath.clip(gx, np.nan, None).get()
        assert np.isnan(nan_bound).all()  # a NaN bound gives NaN everywhere, as in NumPy
    if np.dtype(dtype).kind in "iu":
        with pytest.raises(OverflowError):  # beyond the far end of the range: NumPy's error
            cumath.clip(gx, 100000, None)
    with pytest.raises(ValueError, match="broadcast"):
        cumath.clip(gx, gpuarray.zeros((5,), dtype), None)
    with pytest.raises(TypeError, match="GPUArray"):
        cumath.clip(x, 0, 1)


def test_new_functions_bad_input(device):
    from pycuda import gpuarray

    z = gpuarray.zeros(3, np.complex64)
    for func in (cumath.trunc, lambda a: cumath.arctan2(a, a), lambda a: cumath.hypot(a, 1.0)):
        with pytest.raises(TypeError, match="not supported"):
            func(z)
    with pytest.raises(TypeError, match="bool"):
        cumath.sign(gpuarray.zeros(3, np.bool_))
    with pytest.raises(TypeError, match="GPUArray"):
        cumath.isnan(np.zeros(3))
    with pytest.raises(TypeError, match="dtype"):
        cumath.isnan(gpuarray.zeros(3), out=gpuarray.zeros(3))
    # a Python int takes the float loop's type whatever its value, as in NumPy
    assert cumath.arctan2(gpuarray.zeros(3, np.int8), 1000).dtype == np.float16
    assert cumath.hypot(gpuarray.zeros(3, np.uint32), -3).dtype == np.float64
    with pytest.raises(OverflowError):
        cumath.power(gpuarray.zeros(3, np.uint32), -3)  # integer loops: out of uint32's range


# }}}
