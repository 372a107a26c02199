"""Tests of pycuda.sparse: packet building, partitions and kernel sources (CPU), the sparse
products and the CG solver against NumPy (GPU)."""

from __future__ import annotations

import importlib
import inspect
import sys
import time
import types
import warnings

import host_device
import numpy as np
import pytest

from pycuda import _driver, _grid_stride, gpuarray
from pycuda import driver as drv
from pycuda.compiler import compile as cuda_compile

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import pycuda.sparse
    from pycuda.sparse import _csr, _partition, cg, coordinate, inner, operator, packeted, pkt_build

try:
    import scipy.sparse as sp
except ImportError:
    sp = None

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
needs_scipy = pytest.mark.skipif(sp is None, reason="scipy is not installed")
FLOATS = [np.float32, np.float64]


# {{{ matrices


def random_sparse(n, m, density, rng, dtype=np.float64):
    """A dense array with about ``density`` of its entries nonzero."""
    mask = rng.random((n, m)) < density
    return np.where(mask, rng.uniform(-1, 1, (n, m)), 0).astype(dtype)


def banded_coo(n, rng, dtype=np.float64):
    """A banded matrix plus a few entries far from the diagonal (coupling distant rows), as
    COO triples (so large ones need no dense array)."""
    rows, cols = [], []
    for k in (-3, -1, 0, 1, 2, 5):
        idx = np.arange(max(0, -k), min(n, n - k))
        rows.append(idx)
        cols.append(idx + k)
    far = rng.integers(0, n, (2, n // 10))
    row, col = np.concatenate([*rows, far[0]]), np.concatenate([*cols, far[1]])
    data = rng.uniform(-1, 1, row.size).astype(dtype)
    return types.SimpleNamespace(shape=(n, n), row=row, col=col, data=data)


def coo_matvec(coo, x):
    """``A x`` in float64 for COO triples (repeated coordinates add up)."""
    y = np.zeros(coo.shape[0])
    np.add.at(y, coo.row, coo.data.astype(np.float64) * x[coo.col])
    return y


def banded_with_far_entries(n, rng, dtype=np.float64):
    """banded_coo() as a dense array."""
    coo = banded_coo(n, rng, dtype)
    a = np.zeros(coo.shape, dtype)
    np.add.at(a, (coo.row, coo.col), coo.data)
    return a


def spd_system(n, density, rng):
    """A random symmetric, strictly diagonally dominant (so positive definite) matrix."""
    b = random_sparse(n, n, density / 2, rng)
    a = b + b.T
    a[np.arange(n), np.arange(n)] = np.abs(a).sum(axis=1) + 1
    return a


def no_pymetis(monkeypatch):
    monkeypatch.setitem(sys.modules, "pymetis", None)  # import pymetis raises ImportError


# }}}


# {{{ the public API


ORIGINAL_SIGNATURES = {
    (packeted.PacketedSpMV, "__init__"): ["self", "mat", "is_symmetric", "dtype"],
    (packeted.PacketedSpMV, "__call__"): ["self", "x", "y=None"],
    (packeted.PacketedSpMV, "permute"): ["self", "x"],
    (packeted.PacketedSpMV, "unpermute"): ["self", "x"],
    (packeted.PacketedSpMV, "get_kernel"): ["self"],
    (packeted.PacketedSpMV, "find_simple_index_stuff"): ["self", "packet_nr_to_dofs"],
    (packeted.PacketedSpMV, "find_local_row_costs_and_remaining_coo"): [
        "self", "csr_mat", "dof_to_packet_nr", "old2new_fetch_indices",
    ],
    (packeted.PacketedSpMV, "find_thread_assignment"): [
        "self", "packet_nr_to_dofs", "local_row_cost", "thread_count",
    ],
    (coordinate.CoordinateSpMV, "__init__"): ["self", "mat", "dtype"],
    (coordinate.CoordinateSpMV, "__call__"): ["self", "x", "y=None"],
    (cg.CGStateContainer, "__init__"): [
        "self", "operator", "precon=None", "pagelocked_allocator=None",
    ],
    (cg.CGStateContainer, "make_lc2_kernel"): ["self", "dtype", "a_is_gpu", "b_is_gpu"],
    (cg.CGStateContainer, "lc2"): ["self", "a", "x", "b", "y", "out=None"],
    (cg.CGStateContainer, "guarded_div_kernel"): ["self", "dtype_x", "dtype_y", "dtype_z"],
    (cg.CGStateContainer, "guarded_div"): ["self", "a", "b"],
    (cg.CGStateContainer, "reset"): ["self", "rhs", "x=None"],
    (cg.CGStateContainer, "one_iteration"): ["self", "compute_real_residual=False"],
    (cg.CGStateContainer, "run"): [
        "self", "max_iterations=None", "tol=1e-07", "debug_callback=None",
    ],
    (cg, "solve_pkt_with_cg"): [
        "pkt_spmv", "b", "precon=None", "x=None", "tol=1e-07", "max_iterations=None",
        "debug=False", "pagelocked_allocator=None",
    ],
    (inner.AsyncInnerProduct, "__init__"): ["self", "a", "b", "pagelocked_allocator"],
    (inner.AsyncInnerProduct, "get_host_result"): ["self"],
    (inner, "get_stream"): [],
    (operator.IdentityOperator, "__init__"): ["self", "dtype", "n"],
    (operator.IdentityOperator, "__call__"): ["self", "operand"],
    (operator.DiagonalPreconditioner, "__init__"): ["self", "diagonal"],
    (operator.DiagonalPreconditioner, "__call__"): ["self", "operand"],
    (pkt_build, "build_pkt_data_structure"): [
        "spmv", "packet_nr_to_dofs", "max_thread_costs", "old2new_fetch_indices", "csr_mat",
        "thread_count", "thread_assignments", "local_row_costs",
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    "owner, name", list(ORIGINAL_SIGNATURES), ids=lambda v: getattr(v, "__name__", str(v))
)
def test_public_names_have_the_original_signatures(owner, name):
    params = inspect.signature(getattr(owner, name)).parameters.values()
    got = [p.name if p.default is p.empty else f"{p.name}={p.default!r}" for p in params]
    assert got == ORIGINAL_SIGNATURES[owner, name]


def test_public_classes_and_values():
    assert issubclass(cg.ConvergenceError, RuntimeError)
    assert issubclass(operator.IdentityOperator, operator.OperatorBase)
    assert issubclass(operator.DiagonalPreconditioner, operator.OperatorBase)
    assert inner.STREAM_POOL == [] or all(isinstance(s, drv.Stream) for s in inner.STREAM_POOL)
    for prop in ("dtype", "shape"):
        with pytest.raises(NotImplementedError):
            getattr(operator.OperatorBase(), prop)


def test_import_warns_deprecation_as_the_original():
    with pytest.warns(DeprecationWarning, match="^pycuda.sparse is deprecated"):
        importlib.reload(pycuda.sparse)


def test_operators_on_host_arrays():
    ident = operator.IdentityOperator(np.float32, 5)
    v = np.arange(5.0)
    assert ident(v) is v
    assert ident.shape == (5, 5) and ident.dtype is np.float32
    diag = operator.DiagonalPreconditioner(np.array([1.0, 2.0, 4.0]))
    assert diag.shape == (3, 3) and diag.dtype == np.float64
    np.testing.assert_array_equal(diag(np.array([3.0, 3.0, 3.0])), [3, 6, 12])


def test_host_allocators_get_the_arguments_they_take():
    calls = []

    def user_allocator(shape, dtype, stream):
        calls.append((shape, dtype, stream))
        return np.empty(shape, dtype)

    stream = object()
    inner.allocate_host(user_allocator, (), np.float32, stream)
    assert calls == [((), np.float32, stream)]
    # PyCUDA's own take the memory order third: they get (shape, dtype).
    assert inner._takes_order_third(drv.pagelocked_empty)
    assert inner._takes_order_third(drv.PageLockedMemoryPool().allocate)
    assert not inner._takes_order_third(user_allocator)


# }}}


# {{{ input conversion


def test_dense_input_to_csr_and_coo():
    rng = np.random.default_rng(0)
    a = random_sparse(30, 20, 0.2, rng)
    csr = _csr.to_csr(a, np.float32)
    assert csr.shape == (30, 20) and csr.nnz == np.count_nonzero(a)
    assert csr.data.dtype == np.float32
    dense = np.zeros((30, 20))
    np.add.at(dense, (csr.row_numbers(), csr.indices), csr.data)
    np.testing.assert_allclose(dense, a.astype(np.float32))
    coo = _csr.to_coo(a, np.float64)
    assert np.all(np.diff(coo.row) >= 0)  # sorted by row
    back = np.zeros((30, 20))
    np.add.at(back, (coo.row, coo.col), coo.data)
    np.testing.assert_array_equal(back, a)


def test_coo_like_input_keeps_duplicates_and_sorts_rows():
    coo = types.SimpleNamespace(
        shape=(3, 3),
        row=np.array([2, 0, 2, 0]),
        col=np.array([1, 0, 1, 2]),
        data=np.array([1.0, 2.0, 3.0, 4.0]),
    )
    csr = _csr.to_csr(coo, np.float64)
    np.testing.assert_array_equal(csr.indptr, [0, 2, 2, 4])
    np.testing.assert_array_equal(csr.indices, [0, 2, 1, 1])
    np.testing.assert_array_equal(csr.data, [2.0, 4.0, 1.0, 3.0])


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="2-D"):
        _csr.to_csr(np.zeros((2, 2, 2)), np.float32)
    bad = types.SimpleNamespace(shape=(2, 2), row=[0, 2], col=[0, 0], data=[1.0, 1.0])
    with pytest.raises(ValueError, match="row indices"):
        _csr.to_csr(bad, np.float32)
    with pytest.raises(TypeError, match="float32 and float64"):
        coordinate.check_value_dtype(np.complex64)


@needs_scipy
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo", "lil"])
def test_scipy_input_in_any_format(fmt):
    rng = np.random.default_rng(1)
    a = random_sparse(40, 40, 0.1, rng)
    csr = _csr.to_csr(sp.csr_matrix(a).asformat(fmt), np.float64)
    dense = np.zeros((40, 40))
    np.add.at(dense, (csr.row_numbers(), csr.indices), csr.data)
    np.testing.assert_array_equal(dense, a)


# }}}


# {{{ partitions


def test_partition_without_pymetis_is_contiguous_and_bounded(monkeypatch):
    no_pymetis(monkeypatch)
    rng = np.random.default_rng(2)
    a = banded_with_far_entries(1000, rng)
    csr = _csr.to_csr(a, np.float64)
    parts, blocks = _partition.partition_rows(csr, False, 3, max_rows=300)
    assert blocks == 4  # 1000 rows need 4 packets of at most 300
    sizes = np.bincount(parts, minlength=blocks)
    assert sizes.sum() == 1000 and sizes.max() <= 300
    # A banded matrix cuts only near the packet borders and at the far entries.
    xadj, adjncy = _partition.adjacency(csr, False)
    assert _partition.cut_count(xadj, adjncy, parts) < 0.05 * adjncy.size


def test_adjacency_is_undirected_without_self_loops():
    a = np.array([[1.0, 2, 0], [0, 1, 0], [3, 0, 1]])
    xadj, adjncy = _partition.adjacency(_csr.to_csr(a, np.float64), is_symmetric=False)
    neighbours = [sorted(adjncy[xadj[i] : xadj[i + 1]]) for i in range(3)]
    assert neighbours == [[1, 2], [0], [0]]


def test_diagonal_matrix_has_no_edges_and_partitions(monkeypatch):
    # (Found by the exit tests: a diagonal matrix made adjacency() index an empty array.)
    no_pymetis(monkeypatch)
    csr = _csr.to_csr(np.eye(8), np.float64)
    xadj, adjncy = _partition.adjacency(csr, False)
    assert list(xadj) == [0] * 9 and adjncy.size == 0
    parts, blocks = _partition.partition_rows(csr, True, 1, max_rows=3)
    assert blocks == 3 and np.bincount(parts).max() <= 3


def test_partition_uses_pymetis_and_grows_the_packet_count(monkeypatch):
    seen = []

    def part_graph(nparts, xadj=None, adjncy=None):
        seen.append(nparts)
        n = len(xadj) - 1
        if len(seen) == 1:  # a first answer with one packet too big
            return 0, [0] * (n - 1) + [1]
        return 0, list(np.arange(n) % nparts)

    monkeypatch.setitem(sys.modules, "pymetis", types.SimpleNamespace(part_graph=part_graph))
    csr = _csr.to_csr(banded_with_far_entries(100, np.random.default_rng(3)), np.float64)
    parts, blocks = _partition.partition_rows(csr, False, 2, max_rows=60)
    assert seen == [2, int(2 + 1.05 * 2)] and blocks == seen[-1]
    assert np.bincount(parts).max() <= 60


def test_partition_with_the_real_pymetis():
    pytest.importorskip("pymetis", reason="pymetis is not installed")
    csr = _csr.to_csr(banded_with_far_entries(3000, np.random.default_rng(19)), np.float64)
    parts, blocks = _partition.partition_rows(csr, False, 4, max_rows=1000)
    assert blocks >= 4 and np.bincount(parts, minlength=blocks).max() <= 1000
    xadj, adjncy = _partition.adjacency(csr, False)
    assert _partition.cut_count(xadj, adjncy, parts) < 0.1 * adjncy.size


# }}}


# {{{ packet building


def emulate(layout, x_perm, threads_per_packet):
    """y = A x in the permuted numbering, as the two kernels compute it; also checks that
    each row is added to by one thread only and that no two threads share a position."""
    t = threads_per_packet
    starts, ends = layout.thread_starts.astype(np.int64), layout.thread_ends.astype(np.int64)
    counts = (ends - starts) // t
    assert np.all((ends - starts) % t == 0)
    first = np.concatenate(([0], np.cumsum(counts)))[:-1]
    thread = np.repeat(np.arange(starts.size), counts)
    pos = np.repeat(starts, counts) + t * (np.arange(counts.sum()) - np.repeat(first, counts))
    assert np.unique(pos).size == pos.size and (pos.size == 0 or pos.max() < layout.data_array.size)
    packed = layout.index_array[pos].astype(np.int64)
    base = layout.packet_base_rows[thread // t].astype(np.int64)
    size = np.diff(layout.packet_base_rows)[thread // t]
    rel_rows, rel_cols = packed >> 16, packed & 0xFFFF
    assert np.all(rel_rows < size) and np.all(rel_cols < size)
    rows = base + rel_rows
    owners = np.unique(np.stack([rows, thread]), axis=1)
    assert np.unique(owners[0]).size == owners.shape[1]  # one thread per row
    y = np.zeros(x_perm.size)
    np.add.at(y, rows, layout.data_array[pos] * x_perm[base + rel_cols])
    rem = layout.remaining_coo
    np.add.at(y, rem.row, rem.data * x_perm[rem.col])
    return y


def build(a, threads_per_packet, max_rows, block_count=1, dtype=np.float64):
    csr = _csr.to_csr(a, dtype)
    parts, blocks = _partition.partition_rows(csr, False, block_count, max_rows)
    layout = pkt_build.build_packet_layout(csr, parts, blocks, threads_per_packet, dtype)
    return csr, parts, blocks, layout


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_packet_layout_computes_the_product(monkeypatch, seed):
    no_pymetis(monkeypatch)
    rng = np.random.default_rng(seed)
    n = 1500
    a = random_sparse(n, n, 0.004, rng) + banded_with_far_entries(n, rng)
    _, parts, blocks, layout = build(a, threads_per_packet=32, max_rows=200, block_count=3)
    assert blocks == 8 and np.bincount(parts).max() <= 200
    x = rng.standard_normal(n)
    x_perm = x[layout.new2old_fetch_indices]
    y_perm = emulate(layout, x_perm, 32)
    np.testing.assert_allclose(y_perm[layout.old2new_fetch_indices], a @ x, atol=1e-12)
    assert layout.local_row_costs.sum() + layout.remaining_coo.nnz == np.count_nonzero(a)


def test_packet_layout_of_random_partition_and_empty_rows():
    rng = np.random.default_rng(4)
    n = 400
    a = random_sparse(n, n, 0.02, rng)
    a[rng.integers(0, n, 40)] = 0  # some empty rows
    parts = rng.integers(0, 5, n)
    parts[parts == 3] = 4  # and an empty packet
    csr = _csr.to_csr(a, np.float32)
    layout = pkt_build.build_packet_layout(csr, parts, 5, 16, np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    y_perm = emulate(layout, x[layout.new2old_fetch_indices], 16)
    y = y_perm[layout.old2new_fetch_indices]
    np.testing.assert_allclose(y, a @ x, rtol=1e-5, atol=1e-5)


def test_permutation_round_trip():
    rng = np.random.default_rng(5)
    parts = rng.integers(0, 7, 500)
    new2old, old2new, base = pkt_build.packet_permutation(parts, 7)
    np.testing.assert_array_equal(old2new[new2old], np.arange(500))
    np.testing.assert_array_equal(new2old[old2new], np.arange(500))
    v = rng.standard_normal(500)
    np.testing.assert_array_equal(v[new2old][old2new], v)  # permute, then unpermute
    for p in range(7):  # each packet's rows, consecutive and in their original order
        rows = new2old[base[p] : base[p + 1]]
        assert np.all(parts[rows] == p) and np.all(np.diff(rows) > 0)


def snake_reference(parts, costs, t):
    """The thread of each row by dealing each packet's rows, costliest first, to the threads
    0..t-1, then back t-1..0, and so on (a loop over the rows)."""
    thread = np.empty(len(parts), np.int64)
    for p in np.unique(parts):
        rows = sorted(np.flatnonzero(parts == p), key=lambda r: (costs[r], r), reverse=True)
        offset, step = 0, 1
        for r in rows:
            thread[r] = p * t + offset
            if not 0 <= offset + step < t:
                step = -step  # the end thread takes a second row before turning
            else:
                offset += step
    return thread


def test_thread_assignment_is_the_snake_order():
    rng = np.random.default_rng(6)
    parts = rng.integers(0, 3, 300)
    costs = rng.integers(0, 6, 300)
    thread, turn = pkt_build.assign_threads(parts, costs, 8)
    np.testing.assert_array_equal(thread, snake_reference(parts, costs, 8))
    # Within a thread, the costlier rows come first.
    order = np.lexsort((turn, thread))
    same = thread[order][1:] == thread[order][:-1]
    assert np.all(costs[order][1:][same] <= costs[order][:-1][same])


def _bare_spmv(shape, threads_per_packet, dtype=np.float64):
    spmv = object.__new__(packeted.PacketedSpMV)
    spmv.shape, spmv.threads_per_packet = shape, threads_per_packet
    spmv.dtype, spmv.index_dtype, spmv.packed_index_dtype = np.dtype(dtype), np.int32, np.uint32
    return spmv


def test_original_build_steps_match_the_layout(monkeypatch):
    """The original's step methods and build_pkt_data_structure, given each other's results,
    give the arrays that build_packet_layout does."""
    no_pymetis(monkeypatch)
    rng = np.random.default_rng(7)
    n, t = 600, 16
    a = random_sparse(n, n, 0.01, rng) + banded_with_far_entries(n, rng)
    csr, parts, blocks, layout = build(a, t, max_rows=150)
    spmv = _bare_spmv((n, n), t)
    packet_nr_to_dofs = [np.flatnonzero(parts == p).tolist() for p in range(blocks)]

    new2old, old2new, base = spmv.find_simple_index_stuff(packet_nr_to_dofs)
    np.testing.assert_array_equal(new2old, layout.new2old_fetch_indices)
    np.testing.assert_array_equal(old2new, layout.old2new_fetch_indices)
    np.testing.assert_array_equal(base, layout.packet_base_rows)

    costs, remaining = spmv.find_local_row_costs_and_remaining_coo(csr, parts, old2new)
    np.testing.assert_array_equal(costs, layout.local_row_costs)
    assert remaining.nnz == layout.remaining_coo.nnz

    thread_count = blocks * t
    assignments, thread_costs = spmv.find_thread_assignment(packet_nr_to_dofs, costs, thread_count)
    assert len(assignments) == thread_count and thread_costs.sum() == costs.sum()

    monkeypatch.setattr(gpuarray, "to_gpu", lambda ary: ary)
    pkt_build.build_pkt_data_structure(
        spmv,
        packet_nr_to_dofs,
        thread_costs.max(),
        old2new,
        csr,
        thread_count,
        assignments,
        costs,
    )
    np.testing.assert_array_equal(spmv.thread_starts, layout.thread_starts)
    np.testing.assert_array_equal(spmv.thread_ends, layout.thread_ends)
    np.testing.assert_array_equal(spmv.index_array, layout.index_array)
    np.testing.assert_array_equal(spmv.data_array, layout.data_array)

    with pytest.raises(ValueError, match="local_row_costs"):
        pkt_build.build_pkt_data_structure(
            spmv, packet_nr_to_dofs, 0, old2new, csr, thread_count, assignments, costs + 1
        )


class FakeDevice:
    """An H100's limits, for building on the CPU."""

    def get_attribute(self, attr):
        a = drv.device_attribute
        limits = {
            a.MAX_THREADS_PER_BLOCK: 1024,
            a.WARP_SIZE: 32,
            a.MAX_THREADS_PER_MULTIPROCESSOR: 2048,
            a.MAX_SHARED_MEMORY_PER_BLOCK: 48 * 1024,
            a.MULTIPROCESSOR_COUNT: 132,
        }
        return limits.get(attr, 32)


@pytest.fixture
def host_build(monkeypatch):
    """The constructors run on a fake device, their GPUArrays left as host arrays."""
    no_pymetis(monkeypatch)
    monkeypatch.setattr(drv.Context, "get_device", staticmethod(lambda: FakeDevice()))
    monkeypatch.setattr(gpuarray, "to_gpu", lambda ary: ary)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_constructors_on_a_fake_device(host_build, dtype):
    rng = np.random.default_rng(20)
    n = 5000
    a = banded_coo(n, rng, dtype)
    spmv = packeted.PacketedSpMV(a, False, dtype)
    assert spmv.shape == (n, n) and spmv.dtype == dtype and spmv.threads_per_packet == 1024
    assert spmv.rows_per_packet == 48 * 1024 // (2 * np.dtype(dtype).itemsize)
    assert spmv.block_count == 4  # one per 1024 rows
    coo = spmv.remaining_coo_gpu
    assert coo.shape == (n, n) and coo.nnz == coo.data_gpu.size > 0
    assert coo.row_gpu.dtype == coo.col_gpu.dtype == np.int32
    assert 1 <= coo.num_blocks <= 132 * 16
    layout = types.SimpleNamespace(
        thread_starts=spmv.thread_starts,
        thread_ends=spmv.thread_ends,
        index_array=spmv.index_array,
        data_array=spmv.data_array,
        packet_base_rows=spmv.packet_base_rows,
        remaining_coo=types.SimpleNamespace(
            row=coo.row_gpu, col=coo.col_gpu, data=coo.data_gpu.astype(np.float64)
        ),
    )
    x = rng.standard_normal(n)
    y_perm = emulate(layout, x[spmv.new2old_fetch_indices], 1024)
    expected = coo_matvec(a, x)
    np.testing.assert_allclose(y_perm[spmv.old2new_fetch_indices], expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="square"):
        packeted.PacketedSpMV(np.ones((3, 4)), False, dtype)
    with pytest.raises(TypeError, match="float32 and float64"):
        coordinate.CoordinateSpMV(np.ones((3, 4)), np.int32)


def test_geometry_fits_static_shared_memory():
    rows, blocks = packeted.packet_geometry(100_000, np.dtype(np.float32), 48 * 1024, 1024, 132)
    assert rows == 6144 and blocks == 97  # one packet per row-filled block of threads
    rows, blocks = packeted.packet_geometry(100_000, np.dtype(np.float64), 48 * 1024, 1024, 32)
    assert rows == 3072 and blocks == 33
    assert packeted.packet_geometry(10, np.dtype(np.float64), 48 * 1024, 1024, 32)[1] == 1


def test_building_a_million_entries_takes_seconds(monkeypatch):
    no_pymetis(monkeypatch)
    rng = np.random.default_rng(8)
    n, per_row = 200_000, 5
    rows = np.repeat(np.arange(n), per_row)
    cols = np.clip(rows + rng.integers(-50, 50, rows.size), 0, n - 1)
    coo = types.SimpleNamespace(shape=(n, n), row=rows, col=cols, data=rng.random(rows.size))
    start = time.perf_counter()
    csr = _csr.to_csr(coo, np.float32)
    rpp, blocks = packeted.packet_geometry(n, np.dtype(np.float32), 48 * 1024, 1024, 132)
    parts, blocks = _partition.partition_rows(csr, False, blocks, rpp)
    layout = pkt_build.build_packet_layout(csr, parts, blocks, 1024, np.float32)
    elapsed = time.perf_counter() - start
    assert layout.local_row_costs.sum() + layout.remaining_coo.nnz == n * per_row
    assert elapsed < 30, f"building took {elapsed:.1f} s"


# }}}


# {{{ kernel sources


@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_75", "sm_90"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_kernel_sources_compile(dtype, arch):
    dtype = np.dtype(dtype)
    rows = 48 * 1024 // (2 * dtype.itemsize)
    sources = {
        "spmv_pkt_kernel": packeted.pkt_kernel_source(dtype, rows, 1024),
        "spmv_coo_kernel": coordinate.coo_kernel_source(dtype, 128),
    }
    for name, source in sources.items():
        cubin = cuda_compile(source, arch=arch, no_extern_c=True, cache_dir=False)
        assert name.encode() in cubin


@needs_nvrtc
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_cg_kernels_compile(dtype):
    dtype = np.dtype(dtype)
    kernels = [cg._lc2_kernel(dtype, a, b) for a in (False, True) for b in (False, True)]
    kernels.append(cg._guarded_div_kernel(dtype, dtype, dtype))
    for k in kernels:
        source = _grid_stride.elwise_source(k.arguments, k.operation, k.name, "", "", "", False)
        assert cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)


# }}}


# {{{ GPU


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def elementwise_device(request, monkeypatch):
    """The GPU, or the host stand-in that runs element-wise kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    dev = host_device.install(monkeypatch)
    host_device.install_elementwise(monkeypatch, dev)
    return dev


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_lc2_and_guarded_div(elementwise_device, dtype):
    rng = np.random.default_rng(9)
    x, y = (rng.standard_normal(100).astype(dtype) for _ in range(2))
    x_gpu, y_gpu = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
    two = gpuarray.to_gpu(np.array(2, dtype))
    state = cg.CGStateContainer(operator.IdentityOperator(np.dtype(dtype), 100))
    np.testing.assert_allclose(state.lc2(3, x_gpu, -1, y_gpu).get(), 3 * x - y, rtol=1e-6)
    np.testing.assert_allclose(state.lc2(two, x_gpu, two, y_gpu).get(), 2 * x + 2 * y, rtol=1e-6)
    state.lc2(1, x_gpu, two, y_gpu, out=x_gpu)  # in place
    np.testing.assert_allclose(x_gpu.get(), x + 2 * y, rtol=1e-6)
    zero = gpuarray.to_gpu(np.array(0, dtype))
    assert float(state.guarded_div(two, zero).get()) == 0
    assert float(state.guarded_div(two, two).get()) == 1
    with pytest.raises(TypeError, match="dtype"):
        state.lc2(1, x_gpu, 1, gpuarray.to_gpu(y.astype(np.float16)))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_packeted_spmv_single_packet(ctx, dtype):
    rng = np.random.default_rng(10)
    a = random_sparse(2000, 2000, 0.01, rng, dtype)
    spmv = packeted.PacketedSpMV(a, False, dtype)
    assert spmv.shape == (2000, 2000) and spmv.block_count >= 1
    x = rng.standard_normal(2000).astype(dtype)
    x_gpu = gpuarray.to_gpu(x)
    y = spmv.unpermute(spmv(spmv.permute(x_gpu))).get()
    np.testing.assert_allclose(y, a.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_packeted_spmv_many_packets_adds_to_y(ctx, dtype):
    rng = np.random.default_rng(11)
    n = 20000
    a = banded_coo(n, rng, dtype)
    spmv = packeted.PacketedSpMV(a, False, dtype)
    assert spmv.block_count > 1 and spmv.remaining_coo_gpu.nnz > 0
    x, y0 = (rng.standard_normal(n).astype(dtype) for _ in range(2))
    y_perm = spmv.permute(gpuarray.to_gpu(y0))
    result = spmv(spmv.permute(gpuarray.to_gpu(x)), y_perm)
    assert result is y_perm
    expected = y0 + coo_matvec(a, x)
    np.testing.assert_allclose(spmv.unpermute(result).get(), expected, rtol=1e-4, atol=1e-4)
    with pytest.raises(TypeError, match="dtype"):
        spmv(gpuarray.to_gpu(x.astype(np.float16)))


@pytest.mark.gpu
def test_packeted_spmv_permutation_round_trip(ctx):
    rng = np.random.default_rng(12)
    spmv = packeted.PacketedSpMV(banded_coo(5000, rng), False, np.float64)
    v = rng.standard_normal(5000)
    v_gpu = gpuarray.to_gpu(v)
    np.testing.assert_array_equal(spmv.unpermute(spmv.permute(v_gpu)).get(), v)
    perm = spmv.new2old_fetch_indices.get()
    np.testing.assert_array_equal(spmv.permute(v_gpu).get(), v[perm])


@pytest.mark.gpu
@needs_scipy
def test_packeted_spmv_of_a_scipy_matrix(ctx):
    rng = np.random.default_rng(13)
    a = sp.random(3000, 3000, density=0.003, random_state=13, format="csr") + sp.eye(3000)
    spmv = packeted.PacketedSpMV(a, False, np.float64)
    x = rng.standard_normal(3000)
    y = spmv.unpermute(spmv(spmv.permute(gpuarray.to_gpu(x)))).get()
    np.testing.assert_allclose(y, a @ x, rtol=1e-12, atol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_coordinate_spmv(ctx, dtype):
    rng = np.random.default_rng(14)
    a = random_sparse(700, 900, 0.02, rng, dtype)
    a[5, :] = rng.uniform(-1, 1, 900)  # a row spanning many warps
    spmv = coordinate.CoordinateSpMV(a, dtype)
    assert spmv.shape == (700, 900) and spmv.nnz == np.count_nonzero(a)
    x = rng.standard_normal(900).astype(dtype)
    y = spmv(gpuarray.to_gpu(x)).get()
    np.testing.assert_allclose(y, a.astype(np.float64) @ x, rtol=1e-4, atol=1e-4)
    y0 = rng.standard_normal(700).astype(dtype)
    y_gpu = gpuarray.to_gpu(y0)
    assert spmv(gpuarray.to_gpu(x), y_gpu) is y_gpu
    expected = y0 + a.astype(np.float64) @ x
    np.testing.assert_allclose(y_gpu.get(), expected, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
def test_coordinate_spmv_unsorted_duplicates_and_empty(ctx):
    rng = np.random.default_rng(15)
    nnz = 5000
    coo = types.SimpleNamespace(
        shape=(50, 60),
        row=rng.integers(0, 50, nnz),
        col=rng.integers(0, 60, nnz),
        data=rng.standard_normal(nnz),
    )
    dense = np.zeros((50, 60))
    np.add.at(dense, (coo.row, coo.col), coo.data)
    x = rng.standard_normal(60)
    y = coordinate.CoordinateSpMV(coo, np.float64)(gpuarray.to_gpu(x)).get()
    np.testing.assert_allclose(y, dense @ x, rtol=1e-10, atol=1e-10)
    empty = coordinate.CoordinateSpMV(np.zeros((4, 4)), np.float64)
    assert empty.nnz == 0
    np.testing.assert_array_equal(empty(gpuarray.to_gpu(np.ones(4))).get(), np.zeros(4))


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_async_inner_product(ctx, dtype):
    a = gpuarray.to_gpu(np.arange(100, dtype=dtype))
    ip = inner.AsyncInnerProduct(a, a, drv.pagelocked_empty)
    deadline = time.monotonic() + 10
    value = None
    while value is None and time.monotonic() < deadline:
        value = ip.get_host_result()
    assert value is not None and float(value) == float(np.dot(np.arange(100), np.arange(100)))
    assert ip.get_host_result() is value
    assert inner.STREAM_POOL.count(ip.copy_stream) == 1


def _cg_case(ctx, dtype, use_precon, allocator=None):
    rng = np.random.default_rng(16)
    n = 2000
    a = spd_system(n, 0.01, rng)
    b = rng.standard_normal(n)
    spmv = packeted.PacketedSpMV(a.astype(dtype), True, dtype)
    precon = None
    if use_precon:
        inverse_diagonal = gpuarray.to_gpu((1 / np.diag(a)).astype(dtype))
        precon = operator.DiagonalPreconditioner(spmv.permute(inverse_diagonal))
    tol = 1e-5 if dtype == np.float32 else 1e-10
    x, it_count, res_count = cg.solve_pkt_with_cg(
        spmv, gpuarray.to_gpu(b.astype(dtype)), precon, tol=tol, pagelocked_allocator=allocator
    )
    assert x.dtype == dtype and x.shape == (n,)
    assert 0 < res_count <= it_count
    expected = np.linalg.solve(a, b)
    error = np.linalg.norm(x.get() - expected) / np.linalg.norm(expected)
    assert error < (1e-3 if dtype == np.float32 else 1e-8), error
    return it_count


@pytest.mark.gpu
@pytest.mark.parametrize("use_precon", [False, True], ids=["plain", "diagonal"])
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_cg_solves_spd_system(ctx, dtype, use_precon):
    _cg_case(ctx, dtype, use_precon)


@pytest.mark.gpu
def test_cg_with_a_pagelocked_pool_and_a_start(ctx):
    pool = drv.PageLockedMemoryPool()
    _cg_case(ctx, np.float64, True, allocator=pool.allocate)
    rng = np.random.default_rng(17)
    a = spd_system(300, 0.05, rng)
    b = rng.standard_normal(300)
    spmv = packeted.PacketedSpMV(a, True, np.float64)
    start = gpuarray.to_gpu(b / np.diag(a))  # a Jacobi step's guess
    x, _, _ = cg.solve_pkt_with_cg(spmv, gpuarray.to_gpu(b), x=start, tol=1e-10)
    np.testing.assert_allclose(x.get(), np.linalg.solve(a, b), rtol=1e-7, atol=1e-9)


@pytest.mark.gpu
def test_cg_raises_convergence_error(ctx):
    rng = np.random.default_rng(18)
    a = spd_system(500, 0.05, rng)
    spmv = packeted.PacketedSpMV(a, True, np.float64)
    with pytest.raises(cg.ConvergenceError):
        b = gpuarray.to_gpu(rng.standard_normal(500))
        cg.solve_pkt_with_cg(spmv, b, tol=0, max_iterations=70)


# }}}
