"""Tests of pycuda.sparse.coordinate's pair of kernels from the original (COO_FLAT_KERNEL_TEMPLATE
with get_flat_kernel, COO_SERIAL_KERNEL_TEMPLATE with get_serial_kernel): their sources and
geometry (CPU), and launches the original's way against NumPy (GPU). test_sparse.py tests the
rest of the module."""

from __future__ import annotations

import inspect
import types
import warnings

import numpy as np
import pytest

from pycuda import _driver, gpuarray
from pycuda import driver as drv
from pycuda.compiler import compile as cuda_compile

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from pycuda.sparse import coordinate

try:
    import scipy.sparse as sp
except ImportError:
    sp = None

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
FLOATS = [np.float32, np.float64]
dtype_ids = {"ids": lambda d: np.dtype(d).name}

# What the original's get_flat_kernel formatted its template with; its users format ours alike.
ORIGINAL_FLAT_KEYS = {
    "value_type": "float",
    "tex_value_type": "fp_tex_float",
    "index_type": "int",
    "block_size": 128,
    "warp_size": 32,
}


# {{{ CPU


def test_names_and_signatures_are_the_original_ones():
    for name in ("COO_FLAT_KERNEL_TEMPLATE", "COO_SERIAL_KERNEL_TEMPLATE"):
        assert isinstance(getattr(coordinate, name), str)
    for method in ("get_flat_kernel", "get_serial_kernel"):
        params = inspect.signature(getattr(coordinate.CoordinateSpMV, method)).parameters
        assert list(params) == ["self"]


def test_templates_take_the_original_keys():
    flat = coordinate.COO_FLAT_KERNEL_TEMPLATE % ORIGINAL_FLAT_KEYS
    assert "texture<fp_tex_float, 1, cudaReadModeElementType> tex_x;" in flat
    assert "spmv_coo_flat_kernel(" in flat and "fp_tex1Dfetch(tex_x" in flat
    serial = coordinate.COO_SERIAL_KERNEL_TEMPLATE % {"value_type": "double", "index_type": "int"}
    assert "spmv_coo_serial_kernel(" in serial and "typedef double value_type;" in serial
    keys = coordinate.coo_template_keys(np.float64, np.int32, 128)
    assert keys == ORIGINAL_FLAT_KEYS | {"value_type": "double", "tex_value_type": "fp_tex_double"}


@pytest.mark.parametrize("nnz", [0, 1, 31, 32, 33, 1000, 4096, 123_457])
@pytest.mark.parametrize("num_blocks", [1, 3, 528])
def test_flat_geometry_covers_the_whole_chunks(nnz, num_blocks):
    interval_size, tail = coordinate.flat_geometry(nnz, num_blocks, 128)
    assert tail % 32 == 0 and 0 <= nnz - tail < 32
    assert interval_size % 32 == 0 and interval_size >= 32
    assert num_blocks * 4 * interval_size >= tail  # the launch's warps reach every whole chunk
    # and no more warps than that are idle: one interval fewer would leave entries out
    assert num_blocks * 4 * (interval_size - 32) < max(tail, 1)


def test_constructor_sets_the_flat_launch(monkeypatch):
    class FakeDevice:
        def get_attribute(self, attr):
            a = drv.device_attribute
            return {a.MULTIPROCESSOR_COUNT: 132, a.MAX_THREADS_PER_MULTIPROCESSOR: 2048}[attr]

    monkeypatch.setattr(drv.Context, "get_device", staticmethod(lambda: FakeDevice()))
    monkeypatch.setattr(gpuarray, "to_gpu", lambda ary: ary)
    n = 100_003
    coo = types.SimpleNamespace(
        shape=(n, n), row=np.arange(n), col=np.arange(n), data=np.ones(n, np.float32)
    )
    spmv = coordinate.CoordinateSpMV(coo, np.float32)
    assert spmv.num_blocks == -(-n // 128)  # fewer than the 132 * 16 resident blocks
    assert (spmv.interval_size, spmv.tail) == coordinate.flat_geometry(n, spmv.num_blocks, 128)
    assert spmv.tail == n - n % 32


@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
@pytest.mark.parametrize("dtype", FLOATS, **dtype_ids)
def test_templates_compile_to_cubins(dtype, arch):
    # As the original's users compiled them: SourceModule's default extern "C" wrapping.
    keys = coordinate.coo_template_keys(dtype, np.int32, 128)
    for template, name in [
        (coordinate.COO_FLAT_KERNEL_TEMPLATE, b"spmv_coo_flat_kernel"),
        (coordinate.COO_SERIAL_KERNEL_TEMPLATE, b"spmv_coo_serial_kernel"),
    ]:
        cubin = cuda_compile(template % keys, arch=arch, cache_dir=False)
        assert cubin.startswith(b"\x7fELF") and name in cubin
        # The texture reference became a __device__ variable that get_texref finds.
        assert (b"tex_x" in cubin) == (name == b"spmv_coo_flat_kernel")


# }}}


# {{{ GPU


def launch_original_pair(spmv, x_gpu, y_gpu):
    """y += A x as the original's CoordinateSpMV.__call__ did: the flat kernel over the whole
    chunks, x bound to its texture reference, then the serial kernel over the rest."""
    flat_func, x_texref = spmv.get_flat_kernel()
    x_gpu.bind_to_texref_ext(x_texref, allow_double_hack=True)
    flat_func.prepared_call(
        (spmv.num_blocks, 1),
        (spmv.block_size, 1, 1),
        spmv.tail,
        spmv.interval_size,
        spmv.row_gpu.gpudata,
        spmv.col_gpu.gpudata,
        spmv.data_gpu.gpudata,
        y_gpu.gpudata,
    )
    spmv.get_serial_kernel().prepared_call(
        (1, 1),
        (1, 1, 1),
        spmv.nnz - spmv.tail,
        spmv.row_gpu[spmv.tail :].gpudata,
        spmv.col_gpu[spmv.tail :].gpudata,
        spmv.data_gpu[spmv.tail :].gpudata,
        x_gpu.gpudata,
        y_gpu.gpudata,
    )
    return y_gpu


def sample_matrices(rng):
    """(name, matrix): rows short and long, empty, spanning warps and intervals; nnz both a
    multiple of 32 and not. Each matrix supports ``@`` (its product for the reference)."""
    n = 3000
    a = np.where(rng.random((n, 2500)) < 0.004, rng.uniform(-1, 1, (n, 2500)), 0)
    a[7, :] = rng.uniform(-1, 1, 2500)  # one row across many warps' intervals
    a[8:40, :] = 0  # empty rows
    a[-1, :2100] = rng.uniform(-1, 1, 2100)  # the last row, into the serial tail
    tiny = np.zeros((5, 6))
    tiny[[0, 0, 2, 4], [1, 5, 3, 0]] = [1.5, -2.0, 3.0, 0.25]  # fewer than 32: serial only
    full = rng.uniform(-1, 1, (16, 64))  # 1024 entries: no tail
    cases = [("random", a), ("tiny", tiny), ("whole chunks", full)]
    if sp is not None:
        m = 200_000
        diagonals = [rng.uniform(-1, 1, m - abs(k)) for k in (-2, 0, 3)]
        cases.append(("scipy banded", sp.diags(diagonals, [-2, 0, 3], format="csr")))
    return cases


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS, **dtype_ids)
def test_original_pair_computes_the_product(ctx, dtype):
    rng = np.random.default_rng(31)
    tol = 1e-4 if dtype == np.float32 else 1e-11
    for name, mat in sample_matrices(rng):
        spmv = coordinate.CoordinateSpMV(mat, dtype)
        assert spmv.nnz - spmv.tail < 32
        x = rng.standard_normal(mat.shape[1]).astype(dtype)
        y0 = rng.standard_normal(mat.shape[0]).astype(dtype)
        y_gpu = launch_original_pair(spmv, gpuarray.to_gpu(x), gpuarray.to_gpu(y0))
        # float64 products of the values as stored (rounded to dtype)
        expected = y0 + mat.astype(dtype).astype(np.float64) @ x.astype(np.float64)
        np.testing.assert_allclose(y_gpu.get(), expected, rtol=tol, atol=tol, err_msg=name)
        # The same sum as calling the matrix, which uses its own kernel.
        y_call = spmv(gpuarray.to_gpu(x), gpuarray.to_gpu(y0)).get()
        np.testing.assert_allclose(y_gpu.get(), y_call, rtol=tol, atol=tol, err_msg=name)


@pytest.mark.gpu
def test_kernels_are_built_once_per_matrix(ctx):
    spmv = coordinate.CoordinateSpMV(np.eye(40), np.float64)
    func, texref = spmv.get_flat_kernel()
    assert isinstance(texref, drv.TextureReference)
    assert spmv.get_flat_kernel()[0] is func and spmv.get_flat_kernel()[1] is texref
    assert func.texrefs == [texref]
    assert spmv.get_serial_kernel() is spmv.get_serial_kernel()
    # A second product with another x rebinds the texture reference.
    x1, x2 = np.arange(40.0), np.arange(40.0)[::-1].copy()
    for x in (x1, x2):
        y = launch_original_pair(spmv, gpuarray.to_gpu(x), gpuarray.zeros(40, np.float64))
        np.testing.assert_array_equal(y.get(), x)


# }}}
