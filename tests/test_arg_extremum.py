"""Tests of pycuda._arg_extremum (argmax/argmin): its kernels compile with NVRTC for every real
dtype (CPU), and agree with numpy.argmax/argmin on the GPU on the cases its per-thread shortcut
must get right: ties, NaN, runs of the extreme value, misaligned arrays, tails."""

from __future__ import annotations

import numpy as np
import pytest

from pycuda import _arg_extremum as A
from pycuda import _driver, compiler

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

REAL = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64,
    )
]  # fmt: skip


# {{{ CPU


@needs_nvrtc
@pytest.mark.parametrize("dtype", REAL, ids=str)
@pytest.mark.parametrize("what", ["max", "min"])
def test_kernels_compile(dtype, what):
    source = A.source(what, dtype, "k")
    for arch in ("sm_80", "sm_90"):
        cubin = compiler.compile(source, arch=arch, no_extern_c=True, cache_dir=False)
        for name in (b"k_stage1", b"k_stage1_vec", b"k_stage2"):
            assert name in cubin


@needs_nvrtc
@pytest.mark.parametrize("block, unroll", [(128, 1), (512, 4)])
def test_other_settings_compile(block, unroll):
    source = A.source("max", np.float32, "k", block, unroll)
    assert f"__launch_bounds__({block})" in source
    compiler.compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)


def test_complex_is_refused():
    with pytest.raises(TypeError, match="complex"):
        A.source("max", np.complex64, "k")


# }}}

# {{{ GPU


def _cases(dtype: np.dtype, n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    if dtype.kind == "b":
        return [rng.integers(0, 2, n).astype(bool), np.zeros(n, bool), np.ones(n, bool)]
    base = rng.integers(0, 20, n).astype(dtype)  # many ties
    cases = [base, np.full(n, base[0])]
    if dtype.kind == "f":
        runs = np.full(n, -np.inf, dtype)
        runs[n // 2 :] = np.inf
        cases.append(runs)
        nan = base.copy()
        nan[[n // 3, n - 1]] = np.nan
        cases.append(nan)
    else:
        info = np.iinfo(dtype)
        cases.append(np.where(base % 2 == 0, dtype.type(info.min), dtype.type(info.max)))
    return cases


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 3, 257, 4097, 1_000_003])
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_agrees_with_numpy(ctx, dtype, n):
    from pycuda import _reduce_ops, gpuarray

    for a in _cases(dtype, n):
        for offset in (0, 1):  # 1: a misaligned view, the one-element-load kernel
            if offset >= n:
                continue
            whole = gpuarray.to_gpu(a)
            view = whole[offset:]
            host = a[offset:]
            assert int(_reduce_ops.argmax(view).get()) == int(np.argmax(host))
            assert int(_reduce_ops.argmin(view).get()) == int(np.argmin(host))


@pytest.mark.gpu
def test_out_stream_and_errors(ctx):
    from pycuda import driver, gpuarray

    k = A.ArgExtremumKernel("max", np.float32)
    a = np.arange(1000, dtype=np.float32)[::-1].copy()
    a_gpu = gpuarray.to_gpu(a)
    out = gpuarray.empty((), np.int64)
    stream = driver.Stream()
    assert k(a_gpu, stream=stream, out=out) is out
    stream.synchronize()
    assert int(out.get()) == 0
    with pytest.raises(TypeError, match="dtype"):
        k(gpuarray.to_gpu(a.astype(np.float64)))
    with pytest.raises(ValueError, match="not contiguous"):
        k(a_gpu[::2])
    with pytest.raises(ValueError, match="empty"):
        k(a_gpu[:0])
    with pytest.raises(TypeError, match="out must be"):
        k(a_gpu, out=gpuarray.empty((), np.int32))


# }}}
