"""Tests of pycuda.gpuarray: kernel sources (CPU), layouts and launches (CPU, recorded), and
every operator against NumPy (GPU)."""

from __future__ import annotations

import collections.abc
import operator
import warnings

import array_seams
import host_device
import numpy as np
import pytest

from pycuda import _array_core, gpuarray
from pycuda import _array_kernels as ak
from pycuda._kernel_layout import RowsLayout
from pycuda._ufuncs import OPERATORS, binary_op_dtypes, result_dtype
from pycuda.compiler import compile as cuda_compile
from pycuda.gpuarray import GPUArray

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
]  # fmt: skip
NAMES = [np.dtype(d).name for d in DTYPES]
OPS = [*OPERATORS, "maximum", "minimum"]
UNARY = ("negative", "positive", "absolute", "invert", "conj", "logical_not")


def _all_kernels(dtype: np.dtype) -> str:
    source, k = ak.HELPERS, 0
    for op in OPS:
        try:
            operand, result = binary_op_dtypes(op, dtype, dtype)
        except (TypeError, ValueError):
            continue
        expr = ak.binary_expression(op, dtype, dtype, operand, result)
        for width in [w for w in (1, 2, 4, 8, 16) if w * dtype.itemsize <= 16]:
            ops = [ak.Operand(dtype), ak.Operand(dtype, True)]
            source += ak.flat_kernel(f"f{k}_{width}", result, ops, expr, width)
        source += ak.strided_kernel(f"s{k}", result, [ak.Operand(dtype)] * 2, expr, 3)
        ops = [ak.Operand(dtype), ak.Operand(dtype, True)]
        source += ak.strided_kernel(f"t{k}", result, ops, expr, 2, "unsigned int")
        k += 1
    for op in UNARY:
        try:
            result = dtype if op == "conj" else result_dtype(op, dtype)
        except TypeError:
            continue
        expr = ak.unary_expression(op, dtype, result)
        source += ak.flat_kernel(f"u{k}", result, [ak.Operand(dtype)], expr, 1)
        k += 1
    for other in map(np.dtype, DTYPES):
        expr = ak.unary_expression("cast", dtype, other)
        source += ak.strided_kernel(f"c{k}", other, [ak.Operand(dtype)], expr, 2)
        k += 1
    return source


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
def test_every_generated_kernel_compiles(dtype):
    """Every operator, cast and layout kind for this dtype, compiled by NVRTC for sm_90."""
    source = _all_kernels(np.dtype(dtype))
    cubin = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


@pytest.mark.parametrize(
    "dtype, width", [(np.float32, 4), (np.float16, 8), (np.float64, 2), (np.int8, 16)]
)
def test_wide_path_uses_16_byte_accesses(dtype, width):
    """The flat kernel's main loop loads and stores 16 bytes per operand per access."""
    d = np.dtype(dtype)
    expr = ak.binary_expression("add", d, d, d, d)
    source = ak.flat_source("k", d, [ak.Operand(d)] * 2, expr, width)
    ptx = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False, target="ptx")
    ptx = ptx.decode()
    assert "ld.global.v4." in ptx or "ld.global.v2.f64" in ptx or "ld.global.v2.u64" in ptx
    assert "st.global.v4." in ptx or "st.global.v2.f64" in ptx or "st.global.v2.u64" in ptx


def test_mixed_dtype_expression_casts_operands():
    expr = ak.binary_expression(
        "add", np.dtype(np.int8), np.dtype(np.float32), np.dtype(np.float32), np.dtype(np.float32)
    )
    assert expr == "pc_cast<float>((pc_cast<float>(x0) + pc_cast<float>(x1)))"
    source = ak.flat_source("k", np.dtype(np.float32), [ak.Operand(np.dtype(np.int8))] * 2, expr, 4)
    cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)


def test_complex_order_is_lexicographic():
    c = np.dtype(np.complex64)
    assert "pc_clt" in ak.binary_expression("less", c, c, c, np.dtype(bool))
    assert "pc_cle(pc_cast<pycuda::complex<float>>(x1)" in ak.binary_expression(
        "greater_equal", c, c, c, np.dtype(bool)
    )


# {{{ layouts without a device (made-up addresses)

BASE = 1 << 30


def _fake(shape, dtype=np.float32, order="C"):
    return GPUArray(shape, dtype, gpudata=BASE, order=order)


@pytest.mark.parametrize(
    "key",
    [
        (slice(None), 1),
        (Ellipsis, slice(None, None, -2)),
        (1, None, slice(2, 0, -1)),
        (slice(5, 3),),
        (-1, -2, 0, Ellipsis),
        (None, Ellipsis, None),
        (slice(1, None, 2), Ellipsis),
    ],
)
def test_views_match_numpy(key):
    host = np.zeros((3, 4, 5), np.float32)
    dev = _fake(host.shape)
    view, expected = dev[key], host[key]
    assert view.shape == expected.shape
    assert view.strides == expected.strides
    offset = expected.__array_interface__["data"][0] - host.__array_interface__["data"][0]
    assert view.ptr == BASE + offset
    assert view.base is dev
    assert view.flags.c_contiguous == expected.flags.c_contiguous
    assert view.flags.f_contiguous == expected.flags.f_contiguous


def test_attributes():
    a = _fake((3, 4), np.complex64)
    assert (a.size, a.nbytes, a.itemsize, a.ndim, a.mem_size) == (12, 96, 8, 2, 12)
    assert a.T.shape == (4, 3) and a.T.strides == (8, 32)
    assert a.transpose((1, 0)).shape == (4, 3)
    assert a.reshape(2, -1).shape == (2, 6)
    assert a.reshape((12,)).strides == (8,)
    assert a[:, None].squeeze().shape == (3, 4)
    assert a.view(np.float32).shape == (3, 8)
    assert a.ravel().shape == (12,)
    assert len(a) == 3
    iface = a.__cuda_array_interface__
    assert iface["version"] == 3 and iface["data"] == (BASE, False)
    assert iface["strides"] == (32, 8) and iface["stream"] is None  # explicit, as the original
    assert iface["typestr"] == "<c8" and iface["shape"] == (3, 4)
    assert a.T.__cuda_array_interface__["strides"] == (8, 32)
    import pycuda.driver as drv

    view = a[1:, ::2]
    assert isinstance(view.gpudata, drv.PointerHolderBase)  # Function() takes it as a pointer
    assert int(view.gpudata) == view.ptr == BASE + 32 and a[:2].gpudata == BASE
    f = _fake((3, 4), order="F")
    assert f.strides == (4, 12) and f.flags.f_contiguous
    with pytest.raises(TypeError, match="unsized"):
        len(_fake(()))
    # No __iter__, as the original: iteration goes through __getitem__ (a 0-d array has no
    # items), and a GPUArray is not a collections.abc.Iterable (reikna relies on that)
    assert list(_fake(())) == [] and not isinstance(a, collections.abc.Iterable)
    assert [row.ptr for row in a] == [BASE, BASE + 32, BASE + 64]
    with pytest.raises(TypeError, match="not hashable"):
        hash(a)


def test_bad_indices_raise_numpy_errors():
    a = _fake((3, 4))
    with pytest.raises(IndexError):
        a[3]
    with pytest.raises(IndexError):
        a[0, 0, 0]
    with pytest.raises(IndexError):
        a[..., ...]
    with pytest.raises(ValueError, match="cannot reshape"):
        a.reshape(5, 3)


# }}}

# {{{ launches recorded without a device


class _Recorder:
    def __init__(self):
        self.calls = []
        self.next = BASE

    def allocate(self, size):
        ptr = self.next
        self.next += (size + 255) // 256 * 256 + 256
        return ptr

    def kernel(self, kind, out_dtype, operands, expr, p):
        rec = self

        class Func:
            def prepared_call(self, grid, block, *args):
                rec.calls.append((kind, out_dtype, operands, expr, p, args))

            def prepared_async_call(self, grid, block, stream, *args):
                rec.calls.append((kind, out_dtype, operands, expr, p, args))

        return Func()


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    array_seams.replace(
        monkeypatch,
        kernel=rec.kernel,
        allocate=rec.allocate,
        launch_config=lambda n, items=1: _Config(),
    )
    return rec


class _Config:
    grid = (1, 1, 1)
    block = (256, 1, 1)


def test_contiguous_add_takes_the_wide_flat_path(recorder):
    a, b = GPUArray((1000,), np.float32), GPUArray((1000,), np.float32)
    c = a + b
    kind, out_dtype, operands, expr, width, args = recorder.calls[-1]
    assert (kind, out_dtype, width) == ("flat", np.float32, 4)
    assert args == (c.ptr, a.ptr, b.ptr, 1000)
    d = a[1:] * 2.0  # misaligned by one element: scalar accesses
    kind, out_dtype, operands, expr, width, args = recorder.calls[-1]
    assert (kind, width) == ("flat", 1) and args[1] == a.ptr + 4 and d.dtype == np.float32
    assert operands[1].scalar and args[2] == np.float32(2.0)


def test_broadcast_and_strided_operands_take_the_rows_or_strided_path(recorder):
    col, row = GPUArray((5, 1), np.float64), GPUArray((1, 7), np.int32)
    out = col + row
    assert out.shape == (5, 7) and out.dtype == np.float64
    kind, _, operands, _, rows, args = recorder.calls[-1]
    # Rows of 7 float64 at 56-byte strides: too misaligned for wide accesses.
    assert (kind, rows) == ("rows32", RowsLayout(2, 1, "cbc"))
    # z, p0, p1, rows, length, d0, zs0, ps0_0, ps1_0, zsi, psi0, psi1
    assert args[3:] == (5, 7, 5, 56, 8, 0, 8, 0, 4)
    wide = GPUArray((6, 1), np.float32) * GPUArray((1, 8), np.float32)
    kind, _, _, _, rows, args = recorder.calls[-1]
    assert (kind, rows) == ("rows32", RowsLayout(2, 4, "cbc")) and wide.shape == (6, 8)
    # Rows of 5 would leave 3 of 8 threads idle: the element-wise strided kernel.
    GPUArray((5, 6), np.float32).T - 1
    kind, _, _, _, ndim, args = recorder.calls[-1]
    assert (kind, ndim) == ("strided32", 2)


def test_result_dtypes_follow_numpy(recorder):
    a8 = GPUArray((3,), np.int8)
    f4 = GPUArray((3,), np.float32)
    assert (a8 + 1).dtype == np.int8
    assert (a8 / a8).dtype == np.float64
    assert (a8 + f4).dtype == np.float32
    assert (f4 + 1.5).dtype == np.float32
    assert (f4 + np.float64(1)).dtype == np.float64
    assert (f4 < 1).dtype == np.bool_
    assert (a8 // 2).dtype == np.int8
    assert (-a8).dtype == np.int8 and abs(GPUArray((2,), np.complex64)).dtype == np.float32
    assert (~GPUArray((2,), np.bool_)).dtype == np.bool_
    assert (2**f4).dtype == np.float32


def test_bad_operands_raise_numpy_errors(recorder):
    a = GPUArray((2, 3), np.float32)
    with pytest.raises(
        ValueError, match=r"could not be broadcast together with shapes \(2,3\) \(4,\)"
    ):
        a + GPUArray((4,), np.float32)
    with pytest.raises(TypeError):
        a & 1
    with pytest.raises(TypeError):
        GPUArray((2,), np.bool_) - GPUArray((2,), np.bool_)
    with pytest.raises(TypeError):
        -GPUArray((2,), np.bool_)
    with pytest.raises(TypeError, match="same_kind"):
        i = GPUArray((2, 3), np.int32)
        i += 1.5
    with pytest.raises(ValueError, match="non-broadcastable output"):
        b = GPUArray((3,), np.float32)
        b += a
    with pytest.raises(OverflowError):
        GPUArray((2,), np.int8) + 1000
    with pytest.raises(TypeError):
        a + "text"


def test_strided_kernels_split_indices_in_32_bits_below_2_31(recorder, monkeypatch):
    a = GPUArray((4, 10), np.float32)
    a[:, ::2] + 1  # rows of 5
    assert recorder.calls[-1][0] == "strided32"
    a[:, ::3] + 1  # strided along the rows: the element-wise strided kernel too
    assert recorder.calls[-1][0] == "strided32"
    b = GPUArray((8, 64), np.float32)
    b[1:, 1:] + 1  # 7 rows of 63: the rows kernel
    assert recorder.calls[-1][0] == "rows32"
    monkeypatch.setattr(_array_core, "_INDEX32_LIMIT", 4)
    a[:, ::2] + 1
    assert recorder.calls[-1][0] == "strided"
    b[1:, 1:] + 1
    assert recorder.calls[-1][0] == "rows"


def test_real_and_imag_of_a_complex_array_are_new_contiguous_arrays(recorder):
    # As the original's test_complex_bits expects: new arrays, not views into the complex one.
    a = GPUArray((3, 4), np.complex64)
    for part in (a.real, a.imag):
        assert part.dtype == np.float32 and part.shape == (3, 4) and part.strides == (16, 4)
        assert part.flags.c_contiguous and part.base is None and part.ptr != a.ptr
        assert not (a.ptr <= part.ptr < a.ptr + a.nbytes)
    kinds = [(c[0], c[1], c[3]) for c in recorder.calls[-2:]]
    assert [k[:2] for k in kinds] == [("flat", np.float32)] * 2
    assert ".real()" in kinds[0][2] and ".imag()" in kinds[1][2]
    # A strided view's parts are dense too; a Fortran-ordered array's parts keep its order.
    view = a[:, ::2].imag
    assert view.shape == (3, 2) and view.strides == (8, 4) and view.flags.c_contiguous
    f = GPUArray((3, 4), np.complex128, order="F").real
    assert f.dtype == np.float64 and f.strides == (8, 24) and f.flags.f_contiguous


def test_real_and_imag_of_a_real_array(recorder, monkeypatch):
    cleared = []

    class Driver:
        def memset_d8(self, ptr, value, nbytes):
            cleared.append((ptr, value, nbytes))

    array_seams.replace(monkeypatch, driver=Driver())
    a = GPUArray((5,), np.float32)
    assert a.real is a  # the original returns the array itself
    zeros = a.imag  # and new zeros for the imaginary part
    assert zeros.dtype == np.float32 and zeros.shape == (5,) and zeros.ptr != a.ptr
    assert cleared == [(zeros.ptr, 0, 20)]


def test_in_place_overlap_copies_first(recorder):
    a = GPUArray((10,), np.float32)
    a += a[::-1]
    kinds = [call[0] for call in recorder.calls]
    assert len(kinds) == 2  # a copy of the reversed view, then the addition


# }}}

# {{{ on the GPU, and on the host stand-in (tests/host_device.py) where no GPU is

# The host stand-in compiles each kernel with the host compiler; it covers these dtypes.
HOST_DTYPES = {np.dtype(d) for d in (np.bool_, np.int8, np.uint16, np.int64, np.float16,
                                     np.float32, np.complex128)}  # fmt: skip


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _host_subset(device, *dtypes):
    if isinstance(device, host_device.HostDevice):
        if any(np.dtype(d) not in HOST_DTYPES for d in dtypes):
            pytest.skip("the host stand-in covers a subset of the dtypes")


SHAPES = [(), (0,), (1,), (7,), (1000,), (3, 5), (4, 0, 2), (2, 3, 4), (65, 33)]


def _random(shape, dtype, rng, positive=False):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = 1 if positive else max(info.min, -100)
        return rng.integers(low, min(info.max, 100), shape, endpoint=True).astype(dtype)
    values = rng.standard_normal(shape) * 10
    if positive:
        values = np.abs(values) + 0.5
    if dtype.kind == "c":
        values = values + 1j * rng.standard_normal(shape) * 10
    return np.asarray(values).astype(dtype)


def _compare(result, expected, dtype):
    assert isinstance(result, GPUArray)
    assert result.dtype == expected.dtype, (result.dtype, expected.dtype)
    assert result.shape == expected.shape
    got = result.get()
    if expected.dtype.kind in "fc":
        tol = {2: 2e-3, 4: 2e-3, 8: 1e-5, 16: 1e-12}[expected.dtype.itemsize]
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


BINARY = {
    "add": operator.add,
    "subtract": operator.sub,
    "multiply": operator.mul,
    "true_divide": operator.truediv,
    "floor_divide": operator.floordiv,
    "remainder": operator.mod,
    "power": operator.pow,
    "equal": operator.eq,
    "not_equal": operator.ne,
    "less": operator.lt,
    "less_equal": operator.le,
    "greater": operator.gt,
    "greater_equal": operator.ge,
    "bitwise_and": operator.and_,
    "bitwise_or": operator.or_,
    "bitwise_xor": operator.xor,
    "left_shift": operator.lshift,
    "right_shift": operator.rshift,
}


def _operands(op, dtype, shape, rng):
    a = _random(shape, dtype, rng)
    positive = op in ("floor_divide", "remainder", "true_divide", "power", "left_shift",
                      "right_shift")  # fmt: skip
    b = _random(shape, dtype, rng, positive=positive)
    if op == "power" and np.dtype(dtype).kind in "iu":
        b = (b % 4).astype(dtype)
    if op == "power" and np.dtype(dtype).kind in "fc":
        # moderate magnitudes: both sides finite, so the comparison is of values
        a = (np.abs(a) / 10 + 0.5).astype(dtype)
        b = (b / 10 - 1).astype(dtype)
    if op in ("left_shift", "right_shift"):
        b = (b % (8 * np.dtype(dtype).itemsize)).astype(dtype)
    return a, b


def _supported(op, dtype):
    try:
        binary_op_dtypes(op, np.dtype(dtype), np.dtype(dtype))
        return True
    except (TypeError, ValueError):
        return False


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
@pytest.mark.parametrize("op", list(BINARY))
def test_binary_operators_against_numpy(device, op, dtype):
    _host_subset(device, dtype)
    if not _supported(op, dtype):
        with pytest.raises(TypeError):
            BINARY[op](gpuarray.zeros(3, dtype), gpuarray.zeros(3, dtype))
        return
    rng = np.random.default_rng(hash((op, np.dtype(dtype).name)) % 2**32)
    func = BINARY[op]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for shape in SHAPES:
            a, b = _operands(op, dtype, shape, rng)
            _compare(func(gpuarray.to_gpu(a), gpuarray.to_gpu(b)), func(a, b), dtype)
        # strided views, negative steps, transposes
        a, b = _operands(op, dtype, (12, 10), rng)
        ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
        _compare(func(ga[::2, 1::3], gb[1::2, -2::-3]), func(a[::2, 1::3], b[1::2, -2::-3]), dtype)
        _compare(func(ga.T, gb.T), func(a.T, b.T), dtype)
        # broadcasting
        _compare(func(ga[:, :1], gb[:1, :]), func(a[:, :1], b[:1, :]), dtype)
        _compare(func(ga[3], gb), func(a[3], b), dtype)
        # scalars (weak Python scalars on either side) and 0-d arrays
        s = b.flat[0].item()
        _compare(func(ga, s), func(a, s), dtype)
        if op not in ("left_shift", "right_shift", "power"):
            _compare(func(s, ga), func(s, a), dtype)
        _compare(func(ga, gpuarray.to_gpu(b[0, 0])), func(a, b[0, 0]), dtype)


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
def test_in_place_operators(device, dtype):
    _host_subset(device, dtype)
    rng = np.random.default_rng(1)
    with np.errstate(all="ignore"):
        for op, iop in [("add", operator.iadd), ("multiply", operator.imul),
                        ("bitwise_xor", operator.ixor), ("subtract", operator.isub)]:  # fmt: skip
            if not _supported(op, dtype):
                continue
            a, b = _operands(op, dtype, (6, 8), rng)
            ga = gpuarray.to_gpu(a)
            ga_view = ga[:, ::2]
            iop(ga_view, gpuarray.to_gpu(b[:1, ::2]))
            iop(a[:, ::2], b[:1, ::2])
            _compare(ga, a, dtype)
        if np.dtype(dtype).kind in "iu":
            a = _random((20,), dtype, rng)
            ga = gpuarray.to_gpu(a)
            ga += ga[::-1]  # overlapping operands
            a += a[::-1].copy()
            _compare(ga, a, dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_complex_bits(device, dtype):
    # The original's test_complex_bits: parts equal NumPy's and keep the array's contiguity;
    # a complex array's parts are new arrays (writing to one leaves the array as it was).
    _host_subset(device, dtype)
    rng = np.random.default_rng(3)
    z = _random((20,), dtype, rng)
    for order in ("C", "F"):
        host = np.asarray(z.reshape(4, 5), order=order)
        ga = gpuarray.to_gpu(host)
        for part, want in ((ga.real, host.real), (ga.imag, host.imag), (ga.conj(), host.conj())):
            assert part.dtype == want.dtype and part.shape == want.shape
            assert part.flags.c_contiguous == ga.flags.c_contiguous
            assert part.flags.f_contiguous == ga.flags.f_contiguous
            np.testing.assert_array_equal(part.get(), want)
        if np.dtype(dtype).kind == "c":
            real = ga.real
            real.fill(0)
            np.testing.assert_array_equal(ga.get(), host)
        else:
            assert ga.real is ga


@pytest.mark.parametrize("dtype", DTYPES, ids=NAMES)
def test_unary_operators(device, dtype):
    _host_subset(device, dtype)
    rng = np.random.default_rng(2)
    for shape in SHAPES:
        a = _random(shape, dtype, rng)
        ga = gpuarray.to_gpu(a)
        for name, func in [("negative", operator.neg), ("absolute", abs),
                           ("invert", operator.invert), ("positive", operator.pos)]:  # fmt: skip
            try:
                result_dtype(name, dtype)
            except TypeError:
                with pytest.raises(TypeError):
                    func(ga)
                continue
            with np.errstate(all="ignore"):
                _compare(func(ga), func(a), dtype)
        _compare(ga.conj(), np.conj(a), dtype)


@pytest.mark.parametrize("src", DTYPES, ids=NAMES)
def test_astype_every_pair(device, src):
    _host_subset(device, src)
    rng = np.random.default_rng(3)
    a = _random((5, 7), src, rng, positive=True)
    ga = gpuarray.to_gpu(a)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for dst in DTYPES:
            _compare(ga.astype(dst), a.astype(dst), dst)
            _compare(ga[:, ::-2].astype(dst), a[:, ::-2].astype(dst), dst)


def test_64_bit_strided_kernels(device, monkeypatch):
    monkeypatch.setattr(_array_core, "_INDEX32_LIMIT", 0)
    a = np.arange(60.0).reshape(3, 4, 5)
    ga = gpuarray.to_gpu(a)
    np.testing.assert_array_equal(
        (ga[:, ::-2, 1:] * ga[0, :2, :4]).get(), a[:, ::-2, 1:] * a[0, :2, :4]
    )


def test_transfers_with_any_strides(device):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((6, 8, 4))
    ga = gpuarray.to_gpu(a)
    np.testing.assert_array_equal(ga.get(), a)
    for key in [(slice(None, None, 2),), (Ellipsis, slice(None, None, -1)), (1, slice(1, 5), 2)]:
        np.testing.assert_array_equal(ga[key].get(), a[key])
    t = gpuarray.to_gpu(np.asfortranarray(a))
    assert t.flags.f_contiguous
    np.testing.assert_array_equal(t.get(), a)
    assert t.get().flags.f_contiguous  # same axis order as the device
    v = ga[::2, :, 1]
    v.set(np.ones(v.shape))
    a[::2, :, 1] = 1
    np.testing.assert_array_equal(ga.get(), a)
    out = np.empty((6, 8, 4))
    ga.get(out)
    np.testing.assert_array_equal(out, a)
    strided_out = np.empty((4, 8, 12))[::-1, :, ::2].transpose(2, 1, 0)  # any host layout
    ga.get(strided_out)
    np.testing.assert_array_equal(strided_out, a)
    if not isinstance(device, host_device.HostDevice):
        pinned = ga.get(pagelocked=True)
        np.testing.assert_array_equal(pinned, a)
        import pycuda.driver as drv

        stream = drv.Stream()
        b = gpuarray.to_gpu_async(a, stream=stream)
        got = b.get_async(stream)
        stream.synchronize()
        np.testing.assert_array_equal(got, a)
    back = gpuarray.to_gpu(a[::-1, ::2].T)  # a negative-stride host array
    np.testing.assert_array_equal(back.get(), a[::-1, ::2].T)
    with pytest.raises(ValueError, match="dtype"):
        ga.set(a.astype(np.float32))
    with pytest.raises(ValueError, match="elements"):
        ga.set(np.zeros(3))


def test_setitem_broadcast_and_cast(device):
    a = np.zeros((4, 5), np.float32)
    ga = gpuarray.to_gpu(a)
    ga[1] = 3
    ga[:, 2] = np.arange(4)
    ga[2:, ::2] = gpuarray.to_gpu(np.arange(3, dtype=np.int64))
    a[1] = 3
    a[:, 2] = np.arange(4)
    a[2:, ::2] = np.arange(3)
    np.testing.assert_array_equal(ga.get(), a)
    with pytest.raises(ValueError, match="could not broadcast"):
        ga[0] = np.zeros(3)


def test_constructors(device):
    np.testing.assert_array_equal(gpuarray.zeros((3, 4), np.int16).get(), np.zeros((3, 4)))
    np.testing.assert_array_equal(gpuarray.ones(5).get(), np.ones(5))
    np.testing.assert_array_equal(gpuarray.arange(10).get(), np.arange(10))
    np.testing.assert_array_equal(
        gpuarray.arange(1, 2, 0.25, dtype=np.float32).get(), np.arange(1, 2, 0.25, np.float32)
    )
    if not isinstance(device, host_device.HostDevice):
        import pycuda.driver as drv

        stream = drv.Stream()
        r = gpuarray.arange(0, 100, 7, stream=stream)
        stream.synchronize()
        np.testing.assert_array_equal(r.get(), np.arange(0, 100, 7))
    src = gpuarray.to_gpu(np.asfortranarray(np.ones((3, 4))))
    assert gpuarray.empty_like(src).flags.f_contiguous
    assert gpuarray.zeros_like(src, order="C").flags.c_contiguous
    np.testing.assert_array_equal(gpuarray.ones_like(src, dtype=np.int8).get(), 1)
    f = gpuarray.zeros((2, 3), np.float64).fill(-0.0)
    assert np.signbit(f.get()).all()
    e = gpuarray.empty((0, 3), np.float32)
    assert e.get().shape == (0, 3) and (e + 1).shape == (0, 3)
    z = gpuarray.to_gpu(np.float64(2.5))
    assert z.shape == () and float((z * 2).get()) == 5.0 and bool(z)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(gpuarray.zeros(2))


@pytest.mark.gpu
def test_allocator_is_honoured(ctx):
    import pycuda.driver as drv

    pool = drv.DeviceMemoryPool()
    a = gpuarray.zeros(1000, np.float32, allocator=pool.allocate)
    assert pool.active_blocks >= 1
    held = pool.active_blocks
    b = a + 1
    # Bound methods are new objects at each access: the pool's count shows where b came from.
    assert pool.active_blocks == held + 1
    del a, b


def test_reshape_ravel_copy_where_numpy_copies(device):
    a = np.arange(24.0).reshape(4, 6)
    ga = gpuarray.to_gpu(a)
    np.testing.assert_array_equal(ga.T.reshape(-1).get(), a.T.reshape(-1))
    np.testing.assert_array_equal(ga[:, ::2].ravel().get(), a[:, ::2].ravel())
    np.testing.assert_array_equal(ga.reshape(6, 4, order="F").get(), a.reshape(6, 4, order="F"))
    assert "1." in str(gpuarray.to_gpu(np.ones(2))) and "array(" in repr(ga)


def test_reshape_order_flags_as_the_original_tests_them(device):
    """The original's test_reshape: each reshape is laid out in the order asked, also to the
    same shape; values stay NumPy's (a copy where the layout changes)."""
    a = np.arange(128, dtype=np.float32).reshape(8, 16)
    ga = gpuarray.to_gpu(a)
    assert ga.reshape(-1, 32).shape == (4, 32) and ga.reshape((8, -1, 4)).shape == (8, 4, 4)
    with pytest.raises(ValueError):
        ga.reshape(-1, -1, 4)
    c = ga.reshape((4, 32), order="C")
    assert c.flags.c_contiguous and c.base is not None
    f = c.reshape(4, 32, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    np.testing.assert_array_equal(f.get(), a.reshape(4, 32))
    f2 = f.reshape((4, 32), order="F")
    assert f2.flags.f_contiguous and f2.strides == f.strides
    c2 = f2.reshape((4, 32))
    assert c2.flags.c_contiguous and not c2.flags.f_contiguous
    np.testing.assert_array_equal(c2.get(), a.reshape(4, 32))
    # 1-D contiguous arrays are C and F contiguous at once, as in NumPy and the original.
    flat = ga.reshape(128, order="F")
    assert flat.flags.c_contiguous and flat.flags.f_contiguous
    np.testing.assert_array_equal(flat.get(), a.reshape(128, order="F"))
    assert ga.ravel().flags.forc and ga.reshape(128).reshape(128, order="F").flags.c_contiguous


def test_cuda_array_interface_round_trip(device):
    a = gpuarray.to_gpu(np.arange(12.0).reshape(3, 4))
    iface = a.T.__cuda_array_interface__
    view = GPUArray(iface["shape"], np.dtype(iface["typestr"]), gpudata=iface["data"][0],
                    strides=iface["strides"], base=a)  # fmt: skip
    np.testing.assert_array_equal(view.get(), np.arange(12.0).reshape(3, 4).T)


# }}}


def test_vector_dtypes_copy_and_transfer(device):
    host = np.zeros(10, gpuarray.vec.float3)
    host["x"], host["y"], host["z"] = np.arange(10), -np.arange(10), 2 * np.arange(10)
    dev = gpuarray.to_gpu(host)
    np.testing.assert_array_equal(dev.get(), host)
    np.testing.assert_array_equal(dev[::-3].copy().get(), host[::-3])
    np.testing.assert_array_equal(dev[1::2].get(), host[1::2])
    four = gpuarray.to_gpu(np.zeros((3, 4), gpuarray.vec.double2))
    assert four.T.copy().strides == (16, 64)


def test_mul_add_reverse_pickle(device):
    import pickle

    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((4, 6)).astype(np.float32), rng.standard_normal(6)
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    result = ga.mul_add(2.0, gb, -3.0)
    assert result.dtype == np.float64
    np.testing.assert_allclose(result.get(), 2 * a - 3 * b, rtol=1e-6)
    np.testing.assert_array_equal(gb.reverse().get(), b[::-1])
    back = pickle.loads(pickle.dumps(ga[:, ::2]))
    np.testing.assert_array_equal(back.get(), a[:, ::2])
    with pytest.raises(ValueError, match="1-D"):
        ga.reverse()


def test_arange_arguments(device):
    for args, kwargs in [((5,), {}), ((2, 9), {}), ((9, 2, -2), {}), ((1,), {"stop": 4}),
                         ((), {"start": 1, "stop": 3, "step": 0.5}), ((3, np.dtype(np.int8)), {}),
                         ((0.0, 1.0, 0.1), {"dtype": np.float32})]:  # fmt: skip
        expected_args = [a for a in args if not isinstance(a, np.dtype)]
        dtype = kwargs.get("dtype") or next((a for a in args if isinstance(a, np.dtype)), None)
        rest = {k: v for k, v in kwargs.items() if k != "dtype"}
        expected = np.arange(*expected_args, **rest, dtype=dtype)
        result = gpuarray.arange(*args, **kwargs)
        assert result.dtype == expected.dtype
        np.testing.assert_array_equal(result.get(), expected)
    with pytest.raises(ValueError, match="step"):
        gpuarray.arange(0, 5, 0)
    with pytest.raises(TypeError, match="unexpected"):
        gpuarray.arange(5, bogus=1)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.uint16, np.complex128])
def test_extrema_logical_and_selection(device, dtype):
    _host_subset(device, dtype)
    rng = np.random.default_rng(6)
    a, b = _random((5, 6), dtype, rng), _random((6,), dtype, rng)
    if np.dtype(dtype).kind in "fc":
        a[1, 2], b[3] = np.nan, np.nan
    ga, gb = gpuarray.to_gpu(a), gpuarray.to_gpu(b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _compare(gpuarray.maximum(ga, gb), np.maximum(a, b), dtype)
        _compare(gpuarray.minimum(ga[:, ::-1], gb), np.minimum(a[:, ::-1], b), dtype)
        _compare(gpuarray.maximum(3, ga), np.maximum(3, a), dtype)
        _compare(gpuarray.minimum(ga, 3), np.minimum(a, 3), dtype)
        _compare(gpuarray.logical_and(ga, gb), np.logical_and(a, b), dtype)
        _compare(gpuarray.logical_or(ga, 0), np.logical_or(a, 0), dtype)
        _compare(gpuarray.logical_not(ga.T), np.logical_not(a.T), dtype)
        _compare(gpuarray.where(ga, gb, 7), np.where(a, b, 7), dtype)
        if np.dtype(dtype).kind != "c":
            expected = np.where(a > 0, a, b).astype(np.result_type(a, b))
            _compare(gpuarray.if_positive(ga, ga, gb), expected, dtype)
