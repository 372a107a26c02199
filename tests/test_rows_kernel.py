"""The rows kernel of strided and broadcast element-wise operations (_array_kernels.rows_kernel).

CPU: its launch geometry and widths, NVRTC compiles of its sources, and the generated kernels
run by the host stand-in (tests/host_device.py) against NumPy; GPU: the same cases on the
device, and shapes big enough to stride over the grid's limits.
"""

from __future__ import annotations

import itertools

import host_device
import numpy as np
import pytest

from pycuda import _array_core, gpuarray
from pycuda import _array_kernels as ak
from pycuda._kernel_layout import (
    RowsLayout,
    kernel_layout,
    rows_launch,
    rows_layout,
)
from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda.compiler import compile as cuda_compile

F4, F8, I1, C8 = (np.dtype(t) for t in (np.float32, np.float64, np.int8, np.complex64))


# {{{ launch geometry and widths


@pytest.mark.parametrize("length", [1, 2, 3, 4, 5, 7, 8, 31, 32, 33, 100, 255, 257, 1000, 8192])
@pytest.mark.parametrize("width", [1, 2, 4, 16])
def test_rows_launch_covers_every_vector_with_few_idle_threads(length, width):
    for rows in (1, 3, 1000, 70000 * 256):
        geometry = rows_launch(rows, length, width)
        vectors = -(-length // width)
        if geometry is None:
            # Only short rows of an awkward length are left to the strided kernel.
            assert vectors < 32
            continue
        (gx, gy, gz), (bx, by, bz) = geometry
        assert bx * by == THREADS_PER_BLOCK and gz == bz == 1
        assert bx & (bx - 1) == 0 and gx >= 1 and 1 <= gy <= 65535
        assert gx * bx >= vectors  # one trip covers a row; the kernel strides over more rows
        assert gy * by >= rows or gy == 65535
        padded = gx * bx
        assert padded - vectors <= padded // (4 if vectors < 32 else 2)


def test_rows_launch_prefers_the_block_width_that_pads_least():
    assert rows_launch(8192, 8192, 4) == ((8, 8192, 1), (256, 1, 1))
    assert rows_launch(10, 257 * 4, 4) == ((9, 2, 1), (32, 8, 1))  # 257 vectors: 288 threads
    assert rows_launch(1000, 4, 4) == ((1, 4, 1), (1, 256, 1))  # a row a thread
    assert rows_launch(10, 6, 2) == ((1, 1, 1), (4, 64, 1))
    assert rows_launch(10, 5, 1) is None


def test_rows_launch_caps_the_blocks_and_lets_the_kernel_loop_over_the_rest():
    assert rows_launch(8192, 8192, 4, max_blocks=6336) == ((8, 792, 1), (256, 1, 1))
    assert rows_launch(8192, 8192, 4, max_blocks=1 << 20) == ((8, 8192, 1), (256, 1, 1))
    # Rows longer than the cap still get one row of blocks.
    assert rows_launch(4, 1 << 24, 4, max_blocks=100) == ((16384, 1, 1), (256, 1, 1))
    with pytest.raises(ValueError):
        rows_launch(0, 4, 1)


def test_rows_layout_classes_and_widths():
    # (8192, 1) + (1, 8192) float32 into a C-ordered result.
    layout = kernel_layout((64, 64), [(256, 4), (4, 0), (0, 4)], [4, 4, 4])
    assert rows_layout(layout, [4, 4, 4], [0, 256, 512]) == RowsLayout(2, 4, "cbc")
    # A misaligned contiguous operand narrows the accesses of all.
    assert rows_layout(layout, [4, 4, 4], [0, 256, 516]).width == 1
    assert rows_layout(layout, [4, 4, 4], [0, 256, 520]).width == 2
    # Rows whose stride is not a multiple of the vector: (64, 6) float32 rows of 24 bytes.
    layout = kernel_layout((64, 6), [(24, 4), (0, 4)], [4, 4])
    assert rows_layout(layout, [4, 4], [0, 0]) == RowsLayout(2, 2, "cc")
    # x[::2] + y[::2]: one row, the output contiguous, the inputs strided: element accesses,
    # each warp access to neighbouring elements.
    layout = kernel_layout((1000,), [(4,), (8,), (8,)], [4, 4, 4])
    assert rows_layout(layout, [4, 4, 4], [0, 0, 0]) == RowsLayout(1, 1, "css")
    layout = kernel_layout((10, 3), [(16, 4), (4, 40)], [4, 4])
    assert rows_layout(layout, [4, 4], [0, 0]) == RowsLayout(2, 1, "cs")
    # Short rows narrow the width.
    layout = kernel_layout((10, 3), [(16, 4), (4, 0)], [4, 4])
    assert rows_layout(layout, [4, 4], [0, 0]) == RowsLayout(2, 2, "cb")
    layout = kernel_layout((10, 3), [(12, 4), (4, 0)], [4, 4])
    assert rows_layout(layout, [4, 4], [0, 0]) == RowsLayout(2, 1, "cb")
    layout = kernel_layout((10, 3), [(8, 80), (8, 80)], [4, 4])
    assert rows_layout(layout, [4, 4], [0, 0]) == RowsLayout(1, 1, "ss")
    with pytest.raises(ValueError):
        rows_layout(layout, [4], [0, 0])


# }}}

# {{{ every kernel compiles


def _sources():
    """Rows kernels of every inner class, width and dtype mix the operations produce."""
    add = ak.binary_expression("add", F4, F4, F4, F4)
    mixed = ak.binary_expression("multiply", I1, F8, F8, F8)
    cplx = ak.binary_expression("add", C8, C8, C8, C8)
    where = "(x0 ? x1 : x2)"
    cases = []
    for ndim, width, index in itertools.product((1, 2, 3, 4), (1, 2, 4), ("r", "r32")):
        kind = f"rows{index[1:]}"
        for inner in ("ccc", "cbc", "bcb", "cbb"):
            cases.append((kind, F4, [ak.Operand(F4)] * 2, add, ndim, width, inner))
        for inner in ("cbs", "scb", "sss"):
            cases.append((kind, F4, [ak.Operand(F4)] * 2, add, ndim, 1, inner))
        cases.append((kind, F8, [ak.Operand(I1), ak.Operand(F8)], mixed, ndim, width, "ccb"))
        cases.append((kind, C8, [ak.Operand(C8), ak.Operand(C8, True)], cplx, ndim, width, "cc"))
        ops = [ak.Operand(np.dtype(np.bool_)), ak.Operand(F4), ak.Operand(F4)]
        cases.append((kind, F4, ops, where, ndim, width, "cbcb"))
        cases.append((kind, F4, ops, where, ndim, 1, "cbcs"))
    return [
        ak.kernel_source(kind, f"k{i}", out, ops, expr, RowsLayout(ndim, width, inner))[0]
        for i, (kind, out, ops, expr, ndim, width, inner) in enumerate(cases)
    ]


def test_rows_kernels_compile_with_nvrtc():
    cubin = cuda_compile(
        ak.HELPERS + "".join(_sources()), arch="sm_90", no_extern_c=True, cache_dir=False
    )
    assert len(cubin) > 1000


def test_rows_kernel_format_matches_its_parameters():
    rl = RowsLayout(3, 4, "cbs")
    source, fmt = ak.kernel_source(
        "rows32", "k", F4, [ak.Operand(F4)] * 2, "x0", RowsLayout(3, 1, "cbs")
    )
    params = source[source.index("(") + 1 : source.index(")")].split(", ")
    assert len(params) == len(fmt) == 3 + 2 + 2 + 2 * 3 + 3
    with pytest.raises(ValueError, match="inner classes"):
        ak.rows_kernel("k", F4, [ak.Operand(F4)], "x0", RowsLayout(3, 4, "cbc"))
    with pytest.raises(ValueError, match="strided"):
        ak.rows_kernel("k", F4, [ak.Operand(F4)] * 2, "x0", rl)
    with pytest.raises(ValueError, match="kind"):
        ak.kernel_source("diagonal", "k", F4, [ak.Operand(F4)], "x0", 1)


# }}}

# {{{ results against NumPy, on the host stand-in and on the GPU


@pytest.fixture(params=["host", pytest.param("gpu", marks=pytest.mark.gpu)])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _kinds(monkeypatch):
    """Record the kind of each element-wise kernel launched."""
    kinds = []
    make = _array_core.seams.kernel

    def kernel(kind, *args):
        kinds.append(kind)
        return make(kind, *args)

    monkeypatch.setattr(_array_core.seams, "kernel", kernel)
    return kinds


RNG = np.random.default_rng(11)


def _a(*shape, dtype=np.float32):
    return (RNG.standard_normal(shape) * 10).astype(dtype)


# (name, host operands, operation): each runs with NumPy and with GPUArrays of the operands.
CASES = [
    ("broadcast column+row", (_a(9, 1), _a(1, 16)), lambda x, y: x + y),
    ("broadcast row tail", (_a(6, 1), _a(1, 13)), lambda x, y: x * y),
    ("broadcast short rows", (_a(40, 1), _a(1, 4)), lambda x, y: x - y),
    ("broadcast middle axis", (_a(3, 1, 8), _a(3, 5, 8)), lambda x, y: x + y),
    ("broadcast 4-d", (_a(2, 3, 1, 12), _a(1, 3, 4, 1)), lambda x, y: x * y),
    ("broadcast float64 rows", (_a(7, 1, dtype=np.float64), _a(1, 6)), lambda x, y: x / y),
    (
        "broadcast int8 to float64",
        (_a(5, 1, dtype=np.int8), _a(1, 8, dtype=np.float64)),
        lambda x, y: x * y,
    ),  # fmt: skip
    ("strided ::2", (_a(100), _a(100)), lambda x, y: x[::2] + y[::2]),
    ("strided ::3 odd tail", (_a(301), _a(301)), lambda x, y: x[::3] * y[::3]),
    ("strided rows", (_a(12, 48),), lambda x: x[::2, ::2] + 1),
    ("offset rows", (_a(12, 41), _a(12, 41)), lambda x, y: x[1:, 1:] + y[:-1, :-1]),
    ("transposed", (_a(16, 12), _a(12, 16)), lambda x, y: x.T + y),
    ("reversed", (_a(8, 12), _a(8, 12)), lambda x, y: x[::-1, ::-1] - y),
    ("sliced 3-d", (_a(5, 6, 20),), lambda x: x[:, 1:5, 2:18] * 3),
    ("scalar operand", (_a(10, 24),), lambda x: x[:, ::2] * 2),
    ("rows of 40 misaligned", (_a(12, 41), _a(12, 41)), lambda x, y: x[1:, 1:] + y[1:, 1:]),
]


ALONG_ROWS_STRIDED = {"strided ::2", "strided ::3 odd tail", "strided rows", "transposed",
                      "reversed", "scalar operand"}  # fmt: skip


@pytest.mark.parametrize("name", [c[0] for c in CASES])
@pytest.mark.parametrize("index32", [True, False], ids=["index32", "index64"])
def test_strided_and_broadcast_operations_match_numpy(device, monkeypatch, name, index32):
    _, hosts, op = next(c for c in CASES if c[0] == name)
    if not index32:
        monkeypatch.setattr(_array_core, "_INDEX32_LIMIT", 0)
    kinds = _kinds(monkeypatch)
    expected = op(*hosts)
    got = op(*[gpuarray.to_gpu(h) for h in hosts]).get()
    assert got.shape == expected.shape and got.dtype == expected.dtype
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    # An operand strided along the rows takes the element-wise strided kernel instead (it is
    # faster there: see _array_core._rows_plan).
    want = "strided" if name in ALONG_ROWS_STRIDED else "rows"
    assert kinds and kinds[-1].startswith(want), kinds


def test_rows_kernel_in_place_and_into_strided_outputs(device):
    x = _a(8, 24)
    gx = gpuarray.to_gpu(x)
    gx[:, ::2] += gpuarray.to_gpu(_a(1, 12) * 0 + 1)
    x[:, ::2] += 1
    gx[::2] *= gpuarray.to_gpu(np.full((4, 1), 2, np.float32))
    x[::2] *= 2
    # Rows of 13 at 96-byte strides: four-wide accesses and a tail of one in every row.
    col = _a(8, 1)
    gx[:, :13] -= gpuarray.to_gpu(col)
    x[:, :13] -= col
    np.testing.assert_allclose(gx.get(), x, rtol=1e-6)


# }}}

# {{{ GPU only: the benchmark's shapes and the grid's limits


@pytest.mark.gpu
def test_big_broadcast_and_strided_match_numpy(ctx):
    col, row = _a(8192, 1), _a(1, 8192)
    got = (gpuarray.to_gpu(col) + gpuarray.to_gpu(row)).get()
    np.testing.assert_array_equal(got, col + row)
    x, y = _a(1 << 22), _a(1 << 22)
    got = (gpuarray.to_gpu(x)[::2] + gpuarray.to_gpu(y)[::2]).get()
    np.testing.assert_array_equal(got, x[::2] + y[::2])


@pytest.mark.gpu
def test_rows_beyond_the_grid_limit_stride(ctx):
    # 70000 rows of 1024 float32: 256 vectors a row, one row a block, more rows than gridDim.y.
    col, row = _a(70000, 1), _a(1, 1024)
    got = (gpuarray.to_gpu(col) * gpuarray.to_gpu(row)).get()
    np.testing.assert_array_equal(got, col * row)
    # 2**25 rows of 4: a row a thread, 256 rows a block, past gridDim.y (65535 * 256 rows).
    col, row = _a(1 << 25, 1), _a(1, 4)
    got = (gpuarray.to_gpu(col) - gpuarray.to_gpu(row)).get()
    np.testing.assert_array_equal(got, col - row)


# }}}
