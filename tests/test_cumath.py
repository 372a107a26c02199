"""Tests of pycuda.cumath: kernel sources compile (CPU), functions against NumPy (GPU)."""

from __future__ import annotations

import host_device
import numpy as np
import pytest

from pycuda import _array_kernels as ak
from pycuda import cumath
from pycuda._dtype_rules import unary_result_dtype
from pycuda.compiler import compile as cuda_compile

UNARY = ["fabs", "ceil", "floor", "exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin",
         "acos", "atan", "sinh", "cosh", "tanh"]  # fmt: skip
COMPLEX_OK = ["exp", "log", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan",
              "sinh", "cosh", "tanh"]  # fmt: skip
NUMPY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan}
FLOATS = [np.float16, np.float32, np.float64]
ALL = FLOATS + [np.int32, np.uint8, np.complex64, np.complex128]


def _numpy(name):
    return NUMPY.get(name) or getattr(np, name)


@pytest.mark.parametrize("dtype", ALL, ids=lambda d: np.dtype(d).name)
def test_every_function_source_compiles(dtype):
    dtype = np.dtype(dtype)
    source, k = ak.HELPERS, 0
    names = COMPLEX_OK if dtype.kind == "c" else UNARY
    result = unary_result_dtype("float_function", dtype)
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
        for body in ("fmod(A, B)", f"ldexp(pc_cast<{ct}>(A), (int)B)"):
            expr = ak.binary_expression("add", result, result, result, result, body)
            ops = [ak.Operand(result), ak.Operand(result)]
            source += ak.flat_kernel(f"b{k}", result, ops, expr, 2)
            k += 1
    cubin = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


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


def test_bad_input(device):
    from pycuda import gpuarray

    with pytest.raises(TypeError, match="GPUArray"):
        cumath.sin(np.zeros(3))
    with pytest.raises(TypeError):
        cumath.frexp(gpuarray.zeros(3, np.complex64))
    with pytest.raises(TypeError, match="dtype"):
        cumath.sqrt(gpuarray.zeros(3), out=gpuarray.zeros(3, np.float32))


# }}}
