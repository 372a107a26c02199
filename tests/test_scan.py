"""Tests of pycuda.scan: the scan kernels compile with NVRTC for every dtype (CPU), and agree
with NumPy's cumulative operations on the GPU, including a non-commutative operator."""

from __future__ import annotations

import numpy as np
import pytest

from pycuda import _driver
from pycuda import scan as S

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
    )
]  # fmt: skip
ARCHS = ("sm_80", "sm_90")

# Composition of affine maps x -> p*x + q (mod 2**32): associative, not commutative.
AFFINE_DTYPE = np.dtype([("p", np.uint32), ("q", np.uint32)])
AFFINE_PREAMBLE = """
struct affine_map {
    unsigned int p, q;
};
__device__ affine_map compose(const affine_map &a, const affine_map &b) {
    affine_map r;  // first a, then b
    r.p = b.p * a.p;
    r.q = b.p * a.q + b.q;
    return r;
}
"""


def _register_affine() -> None:
    from pycuda.tools import register_dtype

    try:
        register_dtype(AFFINE_DTYPE, "affine_map")
    except RuntimeError:
        pass


@pytest.fixture
def nvrtc_modules(monkeypatch):
    """SourceModule replaced by NVRTC compiles for sm_80 and sm_90 (no GPU needed)."""
    from pycuda import compiler

    class Function:
        def prepare(self, fmt):
            self.format = fmt

    class NvrtcOnlyModule:
        def __init__(self, source, options=None, keep=False, no_extern_c=False, **kw):
            self.cubins = [
                compiler.compile(source, options=options, no_extern_c=no_extern_c, arch=arch)
                for arch in ARCHS
            ]

        def get_function(self, name):
            for cubin in self.cubins:
                assert name.encode() in cubin
            return Function()

    monkeypatch.setattr(compiler, "SourceModule", NvrtcOnlyModule)


# {{{ CPU


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_scans_compile(nvrtc_modules, dtype):
    for cls in (S.InclusiveScanKernel, S.ExclusiveScanKernel):
        k = cls(dtype, "a+b", neutral="0")
        assert k.func.format == "PPPPPqi"
    if dtype.kind != "c":
        S.InclusiveScanKernel(dtype, "a < b ? b : a", name_prefix="cummax")


@needs_nvrtc
def test_struct_scan_compiles(nvrtc_modules):
    _register_affine()
    k = S.InclusiveScanKernel(AFFINE_DTYPE, "compose(a, b)", preamble=AFFINE_PREAMBLE)
    assert k.items == S._THREAD_BYTES // 8  # whole 16-byte loads of 8-byte structs


def test_exclusive_needs_neutral():
    with pytest.raises(ValueError, match="neutral"):
        S.ExclusiveScanKernel(np.int32, "a+b")


def test_items_per_thread_fill_whole_16_byte_loads():
    for size in (1, 2, 4, 8, 16):
        items = S._items_per_thread(size)
        assert (items * size) % 16 == 0 and 32 <= items * size <= S._THREAD_BYTES


# }}}

# {{{ GPU

SIZES = [0, 1, 2, 31, 1000, 4096, 4097, 2**20 + 3, 2**26]


def _random(dtype: np.dtype, n: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + n)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind in "iu":
        return rng.integers(0, 100, n).astype(dtype)
    if dtype.kind == "f":
        return rng.random(n).astype(dtype)
    return (rng.random(n) + 1j * rng.random(n)).astype(dtype)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_cumsum(ctx, dtype, n):
    from pycuda import gpuarray

    if dtype == np.float16 and n > 4097:
        pytest.skip("float16 cumulative sums of this many values in [0, 1) overflow")
    if n >= 2**26 and dtype.type not in (np.int8, np.int32, np.float32, np.float64):
        pytest.skip("2**26 elements are scanned for a few dtypes only (device time)")
    a = _random(dtype, n)
    inclusive = S.InclusiveScanKernel(dtype, "a+b")
    exclusive = S.ExclusiveScanKernel(dtype, "a+b", neutral="0")
    a_gpu = gpuarray.to_gpu(a)
    inc = inclusive(a_gpu, output_ary="new")
    exc = exclusive(a_gpu, output_ary="new")
    assert inc is not a_gpu and inc.shape == a.shape and inc.dtype == dtype
    if dtype.kind == "b":
        ref = np.logical_or.accumulate(a)
        np.testing.assert_array_equal(inc.get(), ref)
        np.testing.assert_array_equal(exc.get(), np.concatenate([[False], ref[:-1]])[:n])
    elif dtype.kind in "iu":
        ref = np.cumsum(a, dtype=dtype)  # wraps like the kernel
        np.testing.assert_array_equal(inc.get(), ref)
        np.testing.assert_array_equal(exc.get(), np.concatenate([[0], ref[:-1]]).astype(dtype)[:n])
    else:
        wide = np.complex128 if dtype.kind == "c" else np.float64
        ref = np.cumsum(a.astype(wide))
        scale = np.cumsum(np.abs(a.astype(wide)))
        # A scan is a prefix chain across tiles: its error grows like a serial sum's, slowly.
        real_size = dtype.itemsize // 2 if dtype.kind == "c" else dtype.itemsize
        eps = {2: 4e-3, 4: 1e-4, 8: 1e-12}[real_size]
        assert np.all(np.abs(inc.get() - ref) <= eps * np.maximum(scale, 1))
        ref_exc = np.concatenate([[0], ref[:-1]])[:n]
        assert np.all(np.abs(exc.get() - ref_exc) <= eps * np.maximum(scale, 1))
    inclusive(a_gpu)  # in place by default
    if dtype.kind in "biu":
        np.testing.assert_array_equal(a_gpu.get(), inc.get())
    else:
        # The look-back adds a tile's prefix from whichever predecessor published first, so two
        # float scans of the same data may differ in the last bits (seen on an H200).
        assert np.all(np.abs(a_gpu.get() - ref) <= eps * np.maximum(scale, 1))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 1000, 2**20 + 3, 2**26])
def test_cummax(ctx, n):
    from pycuda import gpuarray

    a = np.random.default_rng(n).standard_normal(n).astype(np.float32)
    k = S.InclusiveScanKernel(np.float32, "a < b ? b : a", name_prefix="cummax")
    got = k(gpuarray.to_gpu(a), output_ary="new").get()
    np.testing.assert_array_equal(got, np.maximum.accumulate(a))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 33, 5000, 300001])
def test_non_commutative_operator(ctx, n):
    from pycuda import gpuarray

    _register_affine()
    rng = np.random.default_rng(n)
    a = np.zeros(n, AFFINE_DTYPE)
    a["p"] = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    a["q"] = rng.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    ref = a.copy()
    p, q = int(a["p"][0]), int(a["q"][0])
    for k in range(1, n):
        bp, bq = int(a["p"][k]), int(a["q"][k])
        p, q = (bp * p) % 2**32, (bp * q + bq) % 2**32
        ref["p"][k], ref["q"][k] = p, q
    k = S.InclusiveScanKernel(AFFINE_DTYPE, "compose(a, b)", preamble=AFFINE_PREAMBLE)
    got = k(gpuarray.to_gpu(a), output_ary="new").get()
    np.testing.assert_array_equal(got["p"], ref["p"])
    np.testing.assert_array_equal(got["q"], ref["q"])


@pytest.mark.gpu
def test_output_array_allocator_stream(ctx):
    from pycuda import driver, gpuarray

    a = np.arange(100003, dtype=np.int64)
    a_gpu = gpuarray.to_gpu(a)
    out = gpuarray.empty(a.shape, np.int64)
    k = S.ExclusiveScanKernel(np.int64, "a+b", neutral="0")
    calls = []

    def counting_allocator(nbytes):
        calls.append(nbytes)
        return driver.mem_alloc(nbytes)

    stream = driver.Stream()
    assert k(a_gpu, out, allocator=counting_allocator, stream=stream) is out
    stream.synchronize()
    assert calls  # the look-back scratch came from the allocator
    np.testing.assert_array_equal(out.get(), np.concatenate([[0], np.cumsum(a)[:-1]]))
    np.testing.assert_array_equal(a_gpu.get(), a)  # input untouched


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.float64], ids=str)
def test_misaligned_views_and_in_place_exclusive(ctx, dtype):
    """Views that start off a 16-byte boundary take the element-by-element loads; an exclusive
    scan in place reads each element before it is overwritten."""
    from pycuda import gpuarray

    dtype = np.dtype(dtype)
    n = 300_001
    a = _random(dtype, n + 3)
    if dtype.kind == "f":
        a = np.floor(a * 100).astype(dtype)  # whole numbers: sums exact in any order
    a_gpu = gpuarray.to_gpu(a)
    inclusive = S.InclusiveScanKernel(dtype, "a+b")
    exclusive = S.ExclusiveScanKernel(dtype, "a+b", neutral="0")
    got = inclusive(a_gpu[1 : n + 1], output_ary="new").get()
    np.testing.assert_array_equal(got, np.cumsum(a[1 : n + 1], dtype=dtype))
    out = gpuarray.empty(n + 3, dtype)
    inclusive(a_gpu[:n], out[3:])
    np.testing.assert_array_equal(out.get()[3:], np.cumsum(a[:n], dtype=dtype))
    exclusive(a_gpu)
    ref = np.cumsum(a, dtype=dtype)
    np.testing.assert_array_equal(a_gpu.get(), np.concatenate([[0], ref[:-1]]).astype(dtype))


@pytest.mark.gpu
def test_bad_input_is_clear(ctx):
    from pycuda import gpuarray

    k = S.InclusiveScanKernel(np.int32, "a+b")
    a_gpu = gpuarray.to_gpu(np.arange(100, dtype=np.int32))
    with pytest.raises(ValueError, match="not contiguous"):
        k(a_gpu[::2])
    # Another dtype of the same size is read as the scan's, as the original did (warned where
    # the kind differs); a smaller one would be read past its end.
    with pytest.warns(UserWarning, match="dtype float32"):
        k(gpuarray.to_gpu(np.zeros(10, np.float32)))
    with pytest.raises(TypeError, match="dtype int16.*past its end"):
        k(gpuarray.to_gpu(np.zeros(10, np.int16)))
    with pytest.raises(ValueError, match="elements"):
        k(a_gpu, gpuarray.empty(99, np.int32))
    with pytest.raises(ValueError, match="'new'"):
        k(a_gpu, "old")


@pytest.mark.gpu
def test_more_than_2_to_the_31_elements(ctx):
    from pycuda import driver, gpuarray

    n = 2**31 + 77
    free, _ = driver.mem_get_info()
    if free < 2 * n + 2**26:
        pytest.skip(f"needs {2 * n} bytes of free GPU memory, {free} free")
    a = np.zeros(n, np.uint8)
    a[2**31 + 3] = 1
    k = S.InclusiveScanKernel(np.uint8, "a < b ? b : a", name_prefix="cummax")
    got = k(gpuarray.to_gpu(a)).get()
    assert not got[: 2**31 + 3].any() and got[2**31 + 3 :].all()


# }}}
