"""take, multi_take, multi_put, multi_take_put, concatenate and stack against NumPy."""

from __future__ import annotations

import warnings

import host_device
import numpy as np
import pytest

from pycuda import gpuarray


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    dev = host_device.install(monkeypatch)
    host_device.install_elementwise(monkeypatch, dev)
    _stub_bounds(monkeypatch)
    return dev


def _stub_bounds(monkeypatch):
    # The host stand-in runs element-wise kernels, not reductions: bounds come from the host.
    from pycuda import _gather

    def host_bounds(indices, size, what):
        values = indices.get()
        if values.size and (values.max() >= size or values.min() < -size):
            bad = values.max() if values.max() >= size else values.min()
            raise IndexError(f"index {bad} is out of bounds for axis 0 with size {size}")

    monkeypatch.setattr(_gather, "_check_indices", host_bounds)


def test_take_matches_numpy(device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(50).astype(np.float32)
    idx = rng.integers(-50, 50, size=(4, 7)).astype(np.int64)
    got = gpuarray.take(gpuarray.to_gpu(a), gpuarray.to_gpu(idx))
    assert got.shape == idx.shape
    np.testing.assert_array_equal(got.get(), np.take(a, idx))


def test_take_out_of_range_is_index_error(device):
    a = gpuarray.to_gpu(np.arange(5, dtype=np.float32))
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 0 with size 5"):
        gpuarray.take(a, gpuarray.to_gpu(np.array([0, 5], np.int64)))


def test_multi_take_and_put(device):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(30).astype(np.float32) for _ in range(3)]
    idx = rng.permutation(30)[:12].astype(np.int64)
    gpu = [gpuarray.to_gpu(a) for a in arrays]
    taken = gpuarray.multi_take(gpu, gpuarray.to_gpu(idx))
    for t, a in zip(taken, arrays, strict=True):
        np.testing.assert_array_equal(t.get(), a[idx])
    dest = gpuarray.to_gpu(idx)
    outs = [gpuarray.zeros(30, np.float32) for _ in arrays]
    gpuarray.multi_put([g[:12] for g in gpu], dest, out=outs)
    for o, a in zip(outs, arrays, strict=True):
        expect = np.zeros(30, np.float32)
        expect[idx] = a[:12]
        np.testing.assert_array_equal(o.get(), expect)


def test_multi_take_put_with_offsets(device):
    rng = np.random.default_rng(2)
    arrays = [rng.standard_normal(40).astype(np.float32) for _ in range(2)]
    src = rng.integers(0, 20, size=10).astype(np.int64)
    dest = rng.permutation(25)[:10].astype(np.int64)
    outs = [gpuarray.zeros(25, np.float32) for _ in arrays]
    gpuarray.multi_take_put(
        [gpuarray.to_gpu(a) for a in arrays],
        gpuarray.to_gpu(dest),
        gpuarray.to_gpu(src),
        out=outs,
        src_offsets=[0, 20],
    )
    for k, (o, a) in enumerate(zip(outs, arrays, strict=True)):
        expect = np.zeros(25, np.float32)
        expect[dest] = a[src + 20 * k]
        np.testing.assert_array_equal(o.get(), expect)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concatenate_and_stack(device, axis):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal((3, 4)).astype(np.float32)
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    np.testing.assert_array_equal(
        gpuarray.concatenate([ga, gb], axis=axis).get(), np.concatenate([a, b], axis=axis)
    )
    np.testing.assert_array_equal(
        gpuarray.stack([ga, gb], axis=axis).get(), np.stack([a, b], axis=axis)
    )


def test_join_errors_are_numpys(device):
    a = gpuarray.to_gpu(np.zeros((2, 3), np.float32))
    b = gpuarray.to_gpu(np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match="along dimension 0"):
        gpuarray.concatenate([a, b], axis=1)
    with pytest.raises(ValueError, match="same shape"):
        gpuarray.stack([a, b])
    with pytest.raises(np.exceptions.AxisError):
        gpuarray.concatenate([a, a], axis=2)


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float64, np.complex64, np.bool_])
@pytest.mark.parametrize("index_dtype", [np.int32, np.uint32, np.int64])
def test_gather_kernels_compile_with_nvrtc(monkeypatch, dtype, index_dtype):
    """The take/put kernels for every element and index dtype compile for sm_90 (no GPU), and
    the compiler has nothing to say about them (unsigned indices once drew #186-D)."""
    from pycuda import _gather, _grid_stride, compiler, elementwise
    from pycuda._c_types import dtype_to_ctype

    binaries = []
    monkeypatch.setattr(compiler, "_memo", {})
    compiler.disk_cache.cache_clear()  # compiled afresh: a cache hit would hide a warning

    def compile_only(source, keep, options):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            binaries.append(
                compiler.compile(
                    source, options=options, no_extern_c=True, arch="sm_90", cache_dir=False
                )
            )
        raise StopIteration  # compiled: nothing to launch without a GPU

    monkeypatch.setattr(_grid_stride, "_module", compile_only)
    t, it = dtype_to_ctype(np.dtype(dtype)), dtype_to_ctype(np.dtype(index_dtype))
    kernel = _gather._kernel(
        f"{t} *out, {t} *a, {it} *idx, long long size",
        f"out[i] = a[{_gather._index_expr('idx[i]', 'size')}]",
        "pycuda_take",
    )
    monkeypatch.setattr(
        elementwise,
        "drv",
        type("D", (), {"Context": type("C", (), {"get_current": staticmethod(lambda: "cpu")})}),
    )
    with pytest.raises(StopIteration):
        kernel.get_kernel(False)
    assert binaries and binaries[0][:4] == b"\x7fELF"


KEYS = [
    lambda: np.array([2, 0, -1]),
    lambda: (np.array([[0, 1], [2, 3]]), slice(None)),
    lambda: (slice(1, 4), [0, 2, 2]),
    lambda: (np.array([0, 3]), slice(None), np.array([1, 2])),  # separated: index dims first
    lambda: (Ellipsis, np.array([1, 0])),
    lambda: None,  # replaced by a boolean mask over the first two axes below
]


@pytest.mark.parametrize("case", range(len(KEYS)))
def test_advanced_getitem_and_setitem_match_numpy(device, case):
    rng = np.random.default_rng(case)
    a = rng.standard_normal((5, 4, 3)).astype(np.float32)
    key = KEYS[case]()
    if key is None:
        key = a[:, :, 0] > 0
    g = gpuarray.to_gpu(a)
    np.testing.assert_array_equal(g[key].get(), a[key])
    strided = gpuarray.to_gpu(a)[::-1, :, 1:]  # a non-contiguous view indexes the same way
    view = a[::-1, :, 1:]
    if isinstance(key, np.ndarray) and key.dtype == bool:
        key_view = view[:, :, 0] > 0
        np.testing.assert_array_equal(strided[key_view].get(), view[key_view])
    else:
        try:
            expected = view[key]
        except IndexError:
            with pytest.raises(IndexError):
                strided[key]
        else:
            np.testing.assert_array_equal(strided[key].get(), expected)
    expect = a.copy()
    expect[key] = 7
    g[key] = 7
    np.testing.assert_array_equal(g.get(), expect)


def test_device_index_arrays_and_errors(device):
    a = np.arange(10, dtype=np.float32)
    g = gpuarray.to_gpu(a)
    idx = gpuarray.to_gpu(np.array([9, 1, -10], np.int64))
    np.testing.assert_array_equal(g[idx].get(), a[[9, 1, -10]])
    mask = gpuarray.to_gpu(a > 4)
    np.testing.assert_array_equal(g[mask].get(), a[a > 4])
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 10"):
        g[np.array([10])]
    with pytest.raises(IndexError):
        g[np.ones(3, bool)]
