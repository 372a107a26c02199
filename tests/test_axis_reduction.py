"""Tests of the NumPy-style axis reductions and scans of GPUArray (pycuda._axis_plan,
_axis_kernels, _axis_reduction, _axis_scan, _reduction_methods).

CPU: the axis arguments and result shapes against NumPy; the merged layouts and launch choices;
every generated kernel compiled with NVRTC for every dtype; and the whole host-side plan (passes,
partials, chunks, var's means, out strides, compaction) run end to end with the kernels replaced
by an emulation of their documented semantics, on host memory (tests/host_device.py).
GPU: every reduction against a float64 NumPy reference over shapes, strides, axes, keepdims,
dtype and out.
"""

from __future__ import annotations

import ctypes
import itertools
import math

import host_device
import numpy as np
import pytest

from pycuda import _axis_plan as P
from pycuda import _driver

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
    )
]  # fmt: skip
OPS = ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all"]
ORDERED = ("argmax", "argmin")


def _axis_choices(ndim):
    yield None
    for k in range(1, ndim + 1):
        yield from itertools.combinations(range(ndim), k)
    for k in range(ndim):
        yield k - ndim  # negative


# {{{ CPU: axis arguments, shapes, layouts, launches


@pytest.mark.parametrize("ndim", [0, 1, 2, 3])
def test_normalize_axes_and_result_shape_match_numpy(ndim):
    shape = (2, 3, 4)[:ndim]
    host = np.zeros(shape)
    for axis in _axis_choices(ndim):
        axes = P.normalize_axes(axis, ndim)
        for keepdims in (False, True):
            expected = np.sum(host, axis=axis, keepdims=keepdims).shape
            assert P.result_shape(shape, axes, keepdims) == expected


def test_axis_errors_are_numpys():
    with pytest.raises(np.exceptions.AxisError):
        P.normalize_axes(2, 2)
    with pytest.raises(np.exceptions.AxisError):
        P.normalize_axes((0, -3), 2)
    with pytest.raises(ValueError, match="duplicate"):
        P.normalize_axes((0, 0), 2)
    with pytest.raises(ValueError, match="duplicate"):
        P.normalize_axes((1, -1), 2)
    with pytest.raises(TypeError):
        P.normalize_axes(1.5, 2)
    with pytest.raises(TypeError):
        P.normalize_axes((0, 1), 2, allow_tuple=False)
    assert P.normalize_axes(np.int64(-1), 3) == (2,)
    assert P.normalize_axes((2, 0), 3) == (0, 2)


def test_layout_merges_contiguous_runs():
    # C array (4, 5, 6) of float32, reduce the last axis: one kept, one reduced dimension.
    lay = P.axis_layout((4, 5, 6), (120, 24, 4), (2,), (20, 4))
    assert lay.kept_shape == (20,) and lay.kept_in == (24,) and lay.kept_out == (4,)
    assert lay.red_shape == (6,) and lay.red_in == (4,)
    # Reduce axis 0: the kept (5, 6) merge; the reduced stride is a row.
    lay = P.axis_layout((4, 5, 6), (120, 24, 4), (0,), (24, 4))
    assert lay.kept_shape == (30,) and lay.red_in == (120,)
    # Reduce (0, 2) of a transposed array: kept axis 1, reduced axes sorted by stride.
    lay = P.axis_layout((6, 5, 4), (4, 24, 120), (0, 2), (4,))
    assert lay.red_shape == (4, 6) and lay.red_in == (120, 4)
    # argmax keeps the reduced axes in C order.
    lay = P.axis_layout((6, 5, 4), (4, 24, 120), (0, 2), (4,), ordered=True)
    assert lay.red_shape == (6, 4) and lay.red_in == (4, 120)
    # Everything of length 1 drops; nothing left is one dimension of one element.
    lay = P.axis_layout((1, 1), (8, 8), (0,), (8,))
    assert lay.kept_shape == (1,) and lay.red_shape == (1,) and lay.n_red == 1


def test_launch_choices_for_the_benchmark_shapes():
    wave = 132 * 8  # an H100: 132 multiprocessors of 8 blocks of 256 threads
    rows = P.axis_layout((4096, 16384), (65536, 4), (1,), (4,))
    launch = P.choose_launch(rows, 4, wave)
    assert launch.kind == "block" and launch.chunks == 1 and launch.block == 256
    assert launch.block % 32 == 0 and launch.block * launch.rows <= 256
    assert launch.grid[0] * launch.rows >= 4096  # every row has its group of threads
    cols = P.axis_layout((4096, 16384), (65536, 4), (0,), (4,))
    launch = P.choose_launch(cols, 4, wave, vec=4)
    assert launch.kind == "thread" and launch.vec == 4
    assert launch.block * launch.rows <= 256 and launch.grid[0] * launch.block * 4 >= 16384
    threads = launch.grid[0] * launch.chunks * launch.block * launch.rows
    assert wave * 256 // 8 <= threads <= wave * 256  # enough loads in flight, few partials
    assert launch.chunk_len * launch.chunks >= 4096 and launch.chunk_len // launch.rows <= 1024
    part_out, cstride, nxt = P.partial_layouts(cols, launch, 4)
    assert part_out == (4,) and cstride == 16384 * 4
    assert nxt.red_shape == (launch.chunks,) and nxt.kept_out == cols.kept_out
    assert P.choose_launch(nxt, 4, wave).chunks == 1  # the second pass finishes
    assert P.choose_launch(cols, 4, wave).vec == 1  # scalar loads unless the caller allows
    big = P.choose_launch(cols, 4, wave, vec=4, max_threads=1024)  # blocks of 1024: one pass
    assert big.kind == "thread" and big.chunks == 1 and big.block * big.rows == 1024
    assert big.chunk_len // big.rows <= 1024
    whole = P.axis_layout((1 << 26,), (4,), (0,), ())
    launch = P.choose_launch(whole, 4, wave)
    assert launch.kind == "block" and launch.block == 256 and launch.chunks > wave // 8
    _, _, nxt = P.partial_layouts(whole, launch, 4)
    assert P.choose_launch(nxt, 4, wave).chunks == 1


def test_thread_chains_stay_short():
    # Many outputs and a long reduced axis still split, so no thread adds 1M values serially.
    lay = P.axis_layout((1 << 20, 1 << 14), (1 << 16, 4), (0,), (4,))
    for vec in (1, 4):
        launch = P.choose_launch(lay, 4, 1056, vec)
        assert launch.kind == "thread" and launch.chunk_len // launch.rows <= 1024


@pytest.mark.parametrize("n_out", [1, 3, 32, 100, 4096, 1 << 20])
@pytest.mark.parametrize("n_red", [1, 31, 64, 1000, 1 << 16])
def test_launches_cover_every_element(n_out, n_red):
    """Both kinds: groups of whole warps, at most 256 threads, every output and reduced
    element in the grid, and short serial runs."""
    wave = 132 * 8
    for kept_in, red_in in (((4 * n_red,), (4,)), ((4,), (4 * n_out,))):
        lay = AxisLayoutFor(n_out, n_red, kept_in, red_in)
        for vec, most in ((1, 256), (4, 256), (4, 1024)):
            if n_out % vec:
                continue
            launch = P.choose_launch(lay, 4, wave, vec, most)
            assert launch.block * launch.rows <= most and launch.rows >= 1
            assert launch.rows & (launch.rows - 1) == 0  # a power of two
            assert launch.chunks * launch.chunk_len >= n_red
            assert (launch.chunks - 1) * launch.chunk_len < max(n_red, 1)
            if launch.kind == "block":
                assert launch.block % 32 == 0 and launch.vec == 1
                assert launch.chunk_len <= launch.block * P.GROUP * 512
            else:
                assert launch.chunk_len <= launch.rows * 1024
                assert n_out % launch.vec == 0
            per_x = launch.rows if launch.kind == "block" else launch.block * launch.vec
            assert launch.grid[0] * per_x >= min(n_out, (1 << 20) * per_x)


def AxisLayoutFor(n_out, n_red, kept_in, red_in):  # noqa: N802 - reads as a constructor
    return P.AxisLayout((n_out,), kept_in, (4,), (n_red,), red_in)


# }}}

# {{{ CPU: every kernel compiles


class _FakeFunction:
    def __init__(self, name):
        self.name, self.format = name, None

    def prepare(self, fmt):
        self.format = fmt


@pytest.fixture
def nvrtc_modules(monkeypatch):
    """SourceModule replaced by an NVRTC compile for sm_90 (no GPU needed)."""
    from pycuda import compiler

    class NvrtcOnlyModule:
        def __init__(self, source, options=None, keep=False, no_extern_c=False, **kw):
            self.cubin = compiler.compile(source, no_extern_c=no_extern_c, arch="sm_90")

        def get_function(self, name):
            assert name.encode() in self.cubin, f"{name} missing from the cubin"
            return _FakeFunction(name)

    monkeypatch.setattr(compiler, "SourceModule", NvrtcOnlyModule)


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_reduction_kernel_compiles(nvrtc_modules, dtype):
    from pycuda import _axis_kernels as K
    from pycuda import _axis_reduction as R

    for name in OPS:
        if dtype.kind == "c" and name in ("max", "min", "argmax", "argmin"):
            with pytest.raises(TypeError):
                R.reduce_op(name, dtype, R.result_dtype(name, dtype))
            continue
        op, acc = R.reduce_op(name, dtype, R.result_dtype(name, dtype))
        vec = K.vector_width(dtype.itemsize, 1)
        funcs = R._module.__wrapped__(op, 2, 1, vec)
        assert funcs[("block", True)].format == "PPPqqqqdi" + "q" * 8
        assert funcs[("thread", False)].format == "PPPqqqqdi" + "q" * 8
        assert (("block_vec", True) in funcs) == (dtype.itemsize <= 8)
        if name == "var":
            mean_acc = R._mean_acc(dtype, None)
            R._module.__wrapped__(R.reduce_op("mean", dtype, mean_acc, mean_acc)[0], 2, 1, vec)


@needs_nvrtc
@pytest.mark.parametrize("name", OPS)
def test_many_dimension_kernels_compile(nvrtc_modules, name):
    from pycuda import _axis_reduction as R

    dtype = np.dtype(np.float32)
    op, acc = R.reduce_op(name, dtype, R.result_dtype(name, dtype))
    funcs = R._module.__wrapped__(op, 3, P.MAX_DIMS)
    assert funcs[("block", True)].format == "PPPqqqqdi" + "q" * (9 + 2 * P.MAX_DIMS)
    assert funcs[("block", False)].format == "PPPqqqqdi" + "q" * 11


@needs_nvrtc
def test_dtype_arguments_compile(nvrtc_modules):
    from pycuda import _axis_reduction as R

    for name, in_dtype, dtype in [
        ("sum", np.int8, np.float32), ("sum", np.float16, np.float16), ("mean", np.int32,
         np.float32), ("var", np.complex64, np.complex128), ("std", np.int16, np.float32),
        ("prod", np.bool_, np.int32), ("mean", np.float32, np.int64),
    ]:  # fmt: skip
        in_dtype = np.dtype(in_dtype)
        res = R.result_dtype(name, in_dtype, dtype)
        assert res == np.dtype(dtype)
        R._module.__wrapped__(R.reduce_op(name, in_dtype, res, dtype)[0], 1, 1)


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_scan_kernel_compiles(nvrtc_modules, dtype):
    from pycuda import _axis_scan as S

    for name in ("cumsum", "cumprod"):
        res, acc = S.scan_dtypes(dtype, None)
        funcs = S._axis_module.__wrapped__(dtype, res, acc, name, 2)
        assert funcs["block"].format == "PPqqqq" + "q" * 6


def test_result_dtypes_are_numpys():
    from pycuda import _axis_reduction as R
    from pycuda import _axis_scan as S

    numpy_ops = {"any": np.any, "all": np.all, "argmax": np.argmax, "argmin": np.argmin}
    for dtype in DTYPES:
        host = np.ones(3, dtype)
        for name in OPS:
            if dtype.kind == "c" and name in ("max", "min", "argmax", "argmin"):
                continue
            ref = numpy_ops.get(name, getattr(np, name))(host, axis=0)
            assert R.result_dtype(name, dtype) == np.asarray(ref).dtype, (name, dtype)
        assert S.scan_dtypes(dtype, None)[0] == np.cumsum(host).dtype
        assert S.scan_dtypes(dtype, None)[0] == np.cumprod(host).dtype


# }}}

# {{{ CPU: the host-side plan end to end, kernels emulated


def _read(address, dtype, count=1):
    dtype = np.dtype(dtype)
    raw = ctypes.string_at(address, dtype.itemsize * count)
    return np.frombuffer(raw, dtype)


def _write(address, value, dtype):
    raw = np.asarray(value, dtype).reshape(1).tobytes()
    ctypes.memmove(address, raw, len(raw))


def _split(index, lengths, strides):
    offset = 0
    for n, s in zip(reversed(lengths), reversed(strides), strict=True):
        index, i = divmod(index, n)
        offset += i * s
    return offset


class _Emulated:
    """A kernel of _axis_kernels emulated on host memory from its documented parameters."""

    def __init__(self, op, first, kept, red, dtypes):
        self.op, self.first, self.kept, self.red = op, first, kept, red
        self.in_t, self.acc_t, self.res_t, self.aux_t = dtypes
        self.launches = []

    def prepare(self, fmt):
        self.format = fmt

    def _map(self, x, r, aux, o):
        m = self.op.map
        if m.startswith("pycuda_make_arg"):
            return (x, r)
        if m.startswith("pr_sqdev"):
            d = complex(x) - complex(_read(aux + o * self.aux_t.itemsize, self.aux_t)[0])
            return abs(d) ** 2
        if m == "pc_cast<bool>(x)":
            return bool(x != 0)
        return x

    def _reduce(self, values):
        red = self.op.reduce
        if red == "a+b":
            return sum(values, start=0)
        if red == "a*b":
            return math.prod(values)
        if red == "a || b":
            return any(values)
        if red == "a && b":
            return all(values)
        if "nan_max" in red or "nan_min" in red:
            pick = max if "max" in red else min
            if any(v != v for v in values):
                return float("nan")
            return pick(values) if values else None
        # argmax/argmin pairs: the first extremum (NaN first)
        nans = [p for p in values if p[0] != p[0]]
        if nans:
            return min(nans, key=lambda p: p[1])
        best = max if "true" in red else min
        value = best(p[0] for p in values)
        return min((p for p in values if p[0] == value), key=lambda p: p[1])

    def _final(self, a, d):
        f = self.op.final
        if f.endswith("(a.i)"):
            return a[1]
        if "sqrt" in f:
            return math.sqrt(a / d) if d else float("inf") if a else float("nan")
        if "pr_div_by" in f:
            return a / d if d else (complex("nan") if isinstance(a, complex) else float("nan"))
        return a

    def _load(self, address, r, aux, o):
        if self.first:
            x = _read(address, self.in_t)[0]
            x = x.item() if self.in_t.kind != "f" or self.in_t.itemsize != 2 else float(x)
            return self._map(x, r, aux, o)
        v = _read(address, self.acc_t)[0]
        return (v["v"].item(), int(v["i"])) if self.acc_t.names else v.item()

    def _store(self, address, value, last, d):
        if last:
            _write(address, self._final(value, d), self.res_t)
        elif self.acc_t.names:
            _write(address, np.array([value], self.acc_t), self.acc_t)
        else:
            _write(address, value, self.acc_t)

    def prepared_call(self, grid, block, *args):
        assert len(args) == len(self.format)
        out, inp, aux, nout, nred, clen, cstride, d, last = args[:9]
        k, r = self.kept, self.red
        kd, ks, ko = args[9 : 9 + k], args[9 + k : 9 + 2 * k], args[9 + 2 * k : 9 + 3 * k]
        rd, rs = args[9 + 3 * k : 9 + 3 * k + r], args[9 + 3 * k + r :]
        self.launches.append((grid, block, nout, nred, clen))
        assert grid[1] * clen >= nred and (grid[1] - 1) * clen < max(nred, 1)
        for o in range(nout):
            ki, kout = _split(o, kd, ks), _split(o, kd, ko)
            for chunk in range(grid[1]):
                rr = range(chunk * clen, min(nred, (chunk + 1) * clen))
                values = [self._load(inp + ki + _split(j, rd, rs), j, aux, o) for j in rr]
                value = self._reduce(values) if values else self._neutral()
                self._store(out + kout + chunk * cstride, value, last, d)

    def _neutral(self):
        return {"a+b": 0, "a*b": 1, "a || b": False, "a && b": True}[self.op.reduce]

    prepared_async_call = None


@pytest.fixture
def emulated(monkeypatch):
    """GPUArrays on host memory and the reduction kernels emulated; a tiny 'GPU' (wave=2)
    so that passes split into chunks."""
    from pycuda import _axis_reduction as R
    from pycuda import _axis_scan as S
    from pycuda._c_types import ctype_to_dtype

    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    device = host_device.install(monkeypatch)
    launches = []

    def dtype_of(ctype):
        if ctype.startswith("pycuda_arg_pair<"):
            return R._pair(ctype_to_dtype(ctype[16:-1]))
        return ctype_to_dtype(ctype)

    def module(op, kept, red, vec=0):
        dtypes = [dtype_of(c) for c in (op.in_ctype, op.acc_ctype, op.res_ctype, op.aux_ctype)]
        funcs = {}
        for kind in ("thread", "block", "block_vec", "thread_vec"):
            for first in (True, False):
                f = _Emulated(op, first, kept, red if first else 1, dtypes)
                f.prepare("PPPqqqqdi" + "q" * (3 * kept + 2 * (red if first else 1)))
                f.kind = kind
                launches.append(f)
                funcs[(kind, first)] = f
        return funcs

    monkeypatch.setattr(R, "_module", module)
    monkeypatch.setattr(R, "_wave", lambda: 2)
    monkeypatch.setattr(S, "_axis_module", _scan_module)
    monkeypatch.setattr(S, "_flat_kernel", lambda dtype, name: _FlatScan(name))
    device.reduction_launches = launches
    return device


def _host_array(device, host):
    from pycuda import gpuarray

    return gpuarray.to_gpu(host, allocator=device.allocate)


def _views(rng, shape, dtype):
    """(base, view of it) pairs: contiguous, stepped, reversed, transposed."""
    c = _values(rng, shape, dtype)
    pairs = [(c, c)]
    if shape:
        stepped = _values(rng, tuple(2 * n + 1 for n in shape), dtype)
        pairs.append((stepped, stepped[tuple(slice(1, None, 2) for n in shape)]))
        rev = _values(rng, shape, dtype)
        pairs.append((rev, rev[(slice(None, None, -1),) * len(shape)]))
        t = _values(rng, tuple(reversed(shape)), dtype)
        pairs.append((t, t.T))
    return pairs


def _values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(0, 4, shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _device_view(device, base_host, view):
    """The GPUArray view of a copy of ``base_host`` that matches the host ``view``."""
    from pycuda import gpuarray

    base = gpuarray.GPUArray(base_host.shape, base_host.dtype, device.allocate,
                             strides=base_host.strides)  # fmt: skip
    base.set(base_host)
    offset = view.__array_interface__["data"][0] - base_host.__array_interface__["data"][0]
    return base._view(view.shape, view.strides, offset)


def _numpy(name, host, axis, keepdims, ddof=0, dtype=None):
    fn = getattr(np, name)
    kw = {"keepdims": keepdims}
    if name in ("var", "std"):
        kw["ddof"] = ddof
    if dtype is not None:
        kw["dtype"] = dtype
    with np.errstate(all="ignore"), _nowarn():
        return np.asarray(fn(host, axis=axis, **kw))


class _nowarn:
    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._cm.__exit__(*exc)


def _check(got, ref, name):
    assert got.shape == ref.shape and got.dtype == ref.dtype, (got.shape, ref.shape, got.dtype)
    if ref.dtype.kind in "fc":
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("shape", [(), (1,), (7,), (3, 5), (2, 3, 4), (4, 1, 3)], ids=str)
@pytest.mark.parametrize("name", OPS)
def test_plan_end_to_end_emulated(emulated, name, shape):
    from pycuda import _axis_reduction as R

    rng = np.random.default_rng(len(shape))
    dtype = np.float64 if name not in ("any", "all") else np.int8
    for base, view in _views(rng, shape, dtype):
        for axis in _axis_choices(len(shape)):
            if name in ORDERED and isinstance(axis, tuple):
                continue
            for keepdims in (False, True):
                arr = _device_view(emulated, base, view)
                with _nowarn():
                    got = R.reduce(name, arr, axis, None, None, keepdims).get()
                _check(got, _numpy(name, view, axis, keepdims), name)


def test_chunked_passes_emulated(emulated, monkeypatch):
    """Long reduced runs split into chunks and a second (or third) pass reduces them."""
    from pycuda import _axis_reduction as R

    monkeypatch.setattr(R, "_wave", lambda: 16)  # few outputs for this 'GPU': chunks
    rng = np.random.default_rng(5)
    wide, tall = rng.standard_normal((2, 20000)), rng.standard_normal((4000, 40))
    for host, axis in ((wide, 1), (wide, None), (tall, 0)):
        arr = _host_array(emulated, host)
        for name in ("sum", "var", "argmax", "max"):
            emulated.reduction_launches.clear()
            got = R.reduce(name, arr, axis, None, None, False).get()
            _check(got, _numpy(name, host, axis, False), name)
            passes = [lc for f in emulated.reduction_launches for lc in f.launches]
            assert len(passes) >= (4 if name == "var" else 2)  # split, then the partials
    host = tall.T.copy()
    arr = _host_array(emulated, host)
    # ddof, dtype= and out= with strides
    from pycuda import gpuarray

    got = R.reduce("var", arr, 1, None, None, False, ddof=1).get()
    _check(got, np.var(host, axis=1, ddof=1), "var")
    got = R.reduce("sum", arr, 1, np.float32, None, False).get()
    _check(got, np.sum(host, axis=1, dtype=np.float32), "sum")
    out_base = gpuarray.GPUArray((40, 2), np.float64, emulated.allocate)
    out = out_base[:, 1]
    result = R.reduce("mean", arr, 1, None, out, False)
    assert result is out
    _check(out.get(), np.mean(host, axis=1), "mean")


def test_many_dimensions_compact_first(emulated):
    from pycuda import _axis_reduction as R

    rng = np.random.default_rng(1)
    base = rng.standard_normal((2,) * 14)
    view = base[(slice(None, None, -1),) * 14]
    arr = _device_view(emulated, base, view)
    axes = tuple(range(0, 14, 2))
    got = R.reduce("sum", arr, axes, None, None, False).get()
    _check(got, np.sum(view, axis=axes), "sum")
    got = R.reduce("argmax", arr, 3, None, None, True).get()
    _check(got, np.argmax(view, axis=3, keepdims=True), "argmax")


def test_empty_reductions_follow_numpy(emulated):
    from pycuda import _axis_reduction as R

    arr = _host_array(emulated, np.zeros((0, 3)))
    _check(R.reduce("sum", arr, 0, None, None, False).get(), np.zeros(3), "sum")
    _check(R.reduce("prod", arr, 0, None, None, False).get(), np.ones(3), "prod")
    _check(R.reduce("all", arr, 0, None, None, False).get(), np.ones(3, bool), "all")
    assert R.reduce("max", arr, 1, None, None, False).shape == (0,)
    assert R.reduce("argmax", arr, 1, None, None, False).shape == (0,)
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum"):
        R.reduce("max", arr, 0, None, None, False)
    with pytest.raises(ValueError, match="argmin of an empty sequence"):
        R.reduce("argmin", arr, None, None, None, False)
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        got = R.reduce("mean", arr, 0, None, None, False).get()
    assert np.isnan(got).all()


def test_bad_arguments_are_clear(emulated):
    from pycuda import gpuarray

    arr = _host_array(emulated, np.zeros((2, 3), np.float32))
    with pytest.raises(np.exceptions.AxisError):
        arr.sum(axis=2)
    with pytest.raises(ValueError, match="duplicate"):
        arr.sum(axis=(1, -1))
    with pytest.raises(TypeError):
        arr.argmax(axis=(0, 1))
    with pytest.raises(ValueError, match="out has shape"):
        arr.sum(axis=0, out=gpuarray.GPUArray((2,), np.float32, emulated.allocate))
    with pytest.raises(TypeError, match="out must be a GPUArray"):
        arr.sum(axis=0, out=np.zeros(3, np.float32))
    with pytest.raises(TypeError, match="complex"):
        _host_array(emulated, np.zeros(3, np.complex64)).max(axis=0)
    with pytest.raises(TypeError):
        gpuarray.max(arr, axis=0, dtype=np.float64)  # numpy.max has no dtype either


def test_methods_and_functions_emulated(emulated):
    from pycuda import gpuarray

    rng = np.random.default_rng(2)
    host = rng.standard_normal((4, 6)).astype(np.float32)
    arr = _host_array(emulated, host)
    _check(arr.sum(axis=1).get(), np.sum(host, axis=1), "sum")
    _check(gpuarray.sum(arr, axis=0).get(), np.sum(host, axis=0), "sum")
    _check(arr.mean(axis=(0, 1), keepdims=True).get(), np.mean(host, keepdims=True), "mean")
    _check(gpuarray.std(arr, axis=0, ddof=1).get(), np.std(host, axis=0, ddof=1), "std")
    _check(arr[:, ::2].max(axis=0).get(), np.max(host[:, ::2], axis=0), "max")
    _check(arr.T.argmin(axis=1).get(), np.argmin(host.T, axis=1), "argmin")
    _check(gpuarray.prod(arr, axis=-1).get(), np.prod(host, axis=-1), "prod")
    _check(arr.any(axis=0).get(), np.any(host, axis=0), "any")
    _check(gpuarray.all(arr, axis=1, keepdims=True).get(), np.all(host, 1, keepdims=True), "all")
    assert arr.var(axis=None).shape == ()


# {{{ scans, emulated


class _FlatScan:
    def __init__(self, name):
        self.name = name

    def __call__(self, ary, output_ary=None, allocator=None, stream=None):
        host = _read(ary.ptr, ary.dtype, ary.size)
        fn = np.cumsum if self.name == "cumsum" else np.cumprod
        result = fn(host, dtype=ary.dtype)
        ctypes.memmove(ary.ptr, result.tobytes(), result.nbytes)
        return ary


class _ScanFunction:
    def __init__(self, name, in_t, res_t, kept):
        self.name, self.in_t, self.res_t, self.kept = name, in_t, res_t, kept

    def prepared_call(self, grid, block, *args):
        out, inp, rows, length, in_step, out_step = args[:6]
        k = self.kept
        kd, ks, ko = args[6 : 6 + k], args[6 + k : 6 + 2 * k], args[6 + 2 * k :]
        for o in range(rows):
            ki, kout = _split(o, kd, ks), _split(o, kd, ko)
            run = 0 if self.name == "cumsum" else 1
            for j in range(length):
                x = _read(inp + ki + j * in_step, self.in_t)[0].item()
                run = run + x if self.name == "cumsum" else run * x
                _write(out + kout + j * out_step, run, self.res_t)


def _scan_module(in_dtype, res, acc, name, kept):
    f = _ScanFunction(name, np.dtype(in_dtype), np.dtype(res), kept)
    return {"thread": f, "block": f}


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_scans_emulated(emulated, name):
    from pycuda import gpuarray

    rng = np.random.default_rng(3)
    for shape in [(5,), (3, 4), (2, 3, 4)]:
        pairs = _views(rng, shape, np.int32)
        for base, view in pairs:
            for axis in [None, *range(-len(shape), len(shape))]:
                arr = _device_view(emulated, base, view)
                got = getattr(arr, name)(axis=axis).get()
                ref = getattr(np, name)(view, axis=axis)
                _check(got, ref, name)
        host = pairs[0][1]
        arr = _host_array(emulated, host)
        out = gpuarray.GPUArray(host.shape, np.float64, emulated.allocate)
        assert getattr(gpuarray, name)(arr, axis=0, out=out) is out
        _check(out.get(), getattr(np, name)(host, axis=0).astype(np.float64), name)
    with pytest.raises(np.exceptions.AxisError):
        _host_array(emulated, np.zeros(3)).cumsum(axis=1)


# }}}

# }}}

# {{{ GPU: against NumPy in float64

GPU_SHAPES = [(), (1,), (0,), (7,), (1000,), (3, 0), (0, 4), (33, 65), (4, 5, 6), (2, 1, 3)]
GPU_DTYPES = [np.dtype(d) for d in (np.bool_, np.int8, np.int32, np.uint16, np.int64,
                                    np.float16, np.float32, np.float64, np.complex64)]  # fmt: skip


def _wide(host):
    """The float64/complex128 copy of ``host`` that references are computed from."""
    if host.dtype.kind == "c":
        return host.astype(np.complex128)
    if host.dtype.kind == "f":
        return host.astype(np.float64)
    return host


def _gpu_values(rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return rng.integers(0, 5, shape).astype(dtype)
    if dtype.kind == "f":  # positive: the rounding tolerance is relative to the sum itself
        return rng.random(shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.random(shape) + 1j * rng.random(shape)).astype(dtype)
    return _values(rng, shape, dtype)


def _gpu_views(rng, shape, dtype):
    from pycuda import gpuarray

    c = _gpu_values(rng, shape, dtype)
    yield c, gpuarray.to_gpu(c)
    if shape and 0 not in shape:
        big = _gpu_values(rng, tuple(2 * n + 1 for n in shape), dtype)
        dev = gpuarray.to_gpu(big)
        index = tuple(slice(1, None, 2) for n in shape)
        yield big[index], dev[index]
        rev = (slice(None, None, -1),) * len(shape)
        yield c[rev], gpuarray.to_gpu(c)[rev]
        t = _gpu_values(rng, tuple(reversed(shape)), dtype)
        yield t.T, gpuarray.to_gpu(t).T


def _reference(name, host, axis, keepdims, ddof=0):
    kw = {"keepdims": keepdims}
    if name in ("var", "std"):
        kw["ddof"] = ddof
    fn = {"any": np.any, "all": np.all}.get(name) or getattr(np, name)
    with np.errstate(all="ignore"), _nowarn():
        typed = np.asarray(fn(host, axis=axis, **kw))
        wide = np.asarray(fn(_wide(host), axis=axis, **kw))
    return typed.dtype, wide


def _assert_gpu_close(got, dtype, ref, name, host, axis):
    assert got.dtype == dtype, (name, got.dtype, dtype)
    assert got.shape == ref.shape, (name, got.shape, ref.shape)
    if dtype.kind in "biu" or name in ORDERED:
        np.testing.assert_array_equal(got, ref.astype(dtype))
        return
    real = np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype
    rtol = {2: 4e-3, 4: 2e-6, 8: 1e-13}[real.itemsize]
    if name == "prod":
        rtol *= 4 * max(1, host.size)  # products of [0,1) values: relative error grows by term
    np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol, equal_nan=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", GPU_DTYPES, ids=str)
@pytest.mark.parametrize("name", OPS)
def test_gpu_reductions_match_numpy(ctx, name, dtype):
    """float32: every shape, view and axis; the other dtypes (each a few more kernels to
    compile): a 2-d array, contiguous and stepped, along each axis and both."""
    rng = np.random.default_rng(7)
    if dtype.kind == "c" and name in ("max", "min", "argmax", "argmin"):
        pytest.skip("NumPy orders complex values; PyCUDA's max/min do not (TypeError)")
    full = dtype == np.float32
    for shape in GPU_SHAPES if full else [(33, 65), (0, 4)]:
        views = list(_gpu_views(rng, shape, dtype))
        for host, arr in views if full else views[:2]:
            for axis in _axis_choices(len(shape)) if full else [None, 0, 1, (0, 1)]:
                if name in ORDERED and isinstance(axis, tuple):
                    continue
                for keepdims in (False, True):
                    axes = P.normalize_axes(axis, host.ndim)
                    n_red = math.prod(host.shape[k] for k in axes)
                    n_out = math.prod(P.result_shape(host.shape, axes, keepdims))
                    if n_red == 0 and n_out and name in R_EMPTY:
                        with pytest.raises(ValueError):
                            getattr(arr, name)(axis=axis, keepdims=keepdims)
                        continue
                    dtype_ref, ref = _reference(name, host, axis, keepdims)
                    with _nowarn():
                        got = getattr(arr, name)(axis=axis, keepdims=keepdims).get()
                    _assert_gpu_close(got, dtype_ref, ref, name, host, axis)


R_EMPTY = ("max", "min", "argmax", "argmin")


@pytest.mark.gpu
def test_gpu_float32_axis_sums_within_few_ulps(ctx):
    """The benchmark's shape: the rounding of either axis' sums stays within a few ulps."""
    from pycuda import gpuarray

    rng = np.random.default_rng(11)
    host = rng.random((4096, 16384), dtype=np.float32)
    arr = gpuarray.to_gpu(host)
    for axis in (0, 1):
        ref = np.sum(host.astype(np.float64), axis=axis)
        got = arr.sum(axis=axis).get().astype(np.float64)
        ulps = np.abs(got - ref) / np.spacing(ref.astype(np.float32)).astype(np.float64)
        assert ulps.max() <= 6 and ulps.mean() <= 1, (axis, ulps.max(), ulps.mean())
    ref = np.sum(host.astype(np.float64))
    got = float(arr.sum().get())
    assert abs(got - ref) <= 4 * float(np.spacing(np.float32(ref)))


@pytest.mark.gpu
def test_gpu_var_std_ddof_dtype_out_and_streams(ctx):
    from pycuda import driver, gpuarray

    rng = np.random.default_rng(12)
    host = rng.standard_normal((50, 3000)) + 3.0
    arr = gpuarray.to_gpu(host)
    for axis in (0, 1, None, (0, 1)):
        for ddof in (0, 1):
            np.testing.assert_allclose(
                arr.var(axis=axis, ddof=ddof).get(), np.var(host, axis=axis, ddof=ddof), rtol=1e-12
            )
            np.testing.assert_allclose(gpuarray.std(arr, axis=axis, ddof=ddof).get(),
                                       np.std(host, axis=axis, ddof=ddof), rtol=1e-12)  # fmt: skip
    c = (rng.standard_normal((40, 70)) + 1j * rng.standard_normal((40, 70))).astype(np.complex64)
    got = gpuarray.to_gpu(c).var(axis=1)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got.get(), np.var(c.astype(np.complex128), axis=1), rtol=1e-5)
    ints = rng.integers(-50, 50, (30, 40)).astype(np.int8)
    iarr = gpuarray.to_gpu(ints)
    got = iarr.sum(axis=0, dtype=np.int8)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got.get(), np.sum(ints, axis=0, dtype=np.int8))
    np.testing.assert_allclose(iarr.mean(axis=1).get(), np.mean(ints, axis=1), rtol=1e-14)
    out_base = gpuarray.zeros((40, 3), np.float64)
    out = out_base[:, 1]
    assert iarr.mean(axis=0, out=out) is out
    np.testing.assert_allclose(out_base.get()[:, 1], np.mean(ints, axis=0), rtol=1e-14)
    assert not out_base.get()[:, 0].any()
    kd = gpuarray.empty((1, 40), np.int64)
    assert iarr.argmax(axis=0, out=kd, keepdims=True) is kd
    np.testing.assert_array_equal(kd.get(), np.argmax(ints, axis=0, keepdims=True))
    stream = driver.Stream()
    got = arr.sum(axis=1, stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(got.get(), np.sum(host, axis=1), rtol=1e-12)
    assert bool(gpuarray.to_gpu(np.ones(3)).any(stream).get())  # the original's positional form


@pytest.mark.gpu
def test_gpu_nan_and_first_index(ctx):
    from pycuda import gpuarray

    host = np.array([[1.0, 5.0, 5.0, np.nan, 2.0], [3.0, 3.0, 1.0, 1.0, 0.0]])
    arr = gpuarray.to_gpu(host)
    np.testing.assert_array_equal(arr.argmax(axis=1).get(), np.argmax(host, axis=1))
    np.testing.assert_array_equal(arr.argmin(axis=1).get(), np.argmin(host, axis=1))
    np.testing.assert_array_equal(arr.max(axis=1).get(), np.max(host, axis=1))
    np.testing.assert_array_equal(arr.min(axis=0).get(), np.min(host, axis=0))
    big = np.zeros((3, 100000), np.float32)
    big[:, 70000] = 1
    big[:, 90000] = 1
    np.testing.assert_array_equal(gpuarray.to_gpu(big).argmax(axis=1).get(), [70000] * 3)
    np.testing.assert_array_equal(gpuarray.to_gpu(big.T.copy()).argmax(axis=0).get(), [70000] * 3)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", [np.int32, np.float32, np.float64, np.bool_, np.complex64])
def test_gpu_scans_match_numpy(ctx, name, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(13)
    dtype = np.dtype(dtype)
    for shape in [(), (0,), (1,), (1000,), (5000,), (3, 4), (7, 3000), (3000, 7), (4, 5, 6)]:
        for host, arr in _gpu_views(rng, shape, dtype):
            if name == "cumprod" and dtype.kind in "fc":
                # Factors within 1% of 1: products of thousands stay inside float32's range
                # (a complex factor's modulus exceeds 1 on average, so wider factors overflow).
                arr = arr * 0.02 + 0.99
                host = arr.get()
            for axis in [None, *range(-len(shape), len(shape))]:
                got = getattr(arr, name)(axis=axis)
                ref = getattr(np, name)(host, axis=axis)
                assert got.dtype == ref.dtype and got.shape == ref.shape
                wide = getattr(np, name)(_wide(host), axis=axis)
                rtol = {"f": 1e-4, "c": 1e-4}.get(dtype.kind, 0)
                np.testing.assert_allclose(got.get(), wide, rtol=rtol * (1 + host.size // 100))
    arr = gpuarray.to_gpu(np.arange(12, dtype=np.int32).reshape(3, 4))
    out = gpuarray.empty((3, 4), np.float32)
    assert gpuarray.cumsum(arr, axis=1, out=out) is out
    np.testing.assert_array_equal(out.get(), np.cumsum(np.arange(12).reshape(3, 4), axis=1))
    got = arr.cumsum(axis=0, dtype=np.int8)
    assert got.dtype == np.int8


# }}}


def test_few_long_rows_scan_row_by_row_emulated(emulated):
    """cumsum along a long axis of few rows: a contiguous copy, one single-pass scan per row."""
    rng = np.random.default_rng(4)
    host = rng.integers(0, 9, (70000, 3)).astype(np.int16)
    arr = _host_array(emulated, host)
    for axis in (0, -2):
        got = arr.cumsum(axis=axis).get()
        _check(got, np.cumsum(host, axis=axis), "cumsum")
    _check(arr.T.cumprod(axis=1).get(), np.cumprod(host.T, axis=1), "cumprod")


@pytest.mark.gpu
def test_gpu_few_long_rows_scan(ctx):
    from pycuda import gpuarray

    rng = np.random.default_rng(14)
    host = rng.integers(-5, 5, (100000, 3)).astype(np.int32)
    arr = gpuarray.to_gpu(host)
    np.testing.assert_array_equal(arr.cumsum(axis=0).get(), np.cumsum(host, axis=0))
    np.testing.assert_array_equal(arr.T.cumsum(axis=1).get(), np.cumsum(host.T, axis=1))
    f = rng.random((2, 200000))
    np.testing.assert_allclose(gpuarray.to_gpu(f).cumsum(axis=1).get(), np.cumsum(f, axis=1))


# {{{ CPU: the thread-kind kernels' own C code, compiled for and run on the host

_HOST_STUBS = r"""
#include <cstring>
#include <cmath>
#define __launch_bounds__(...)
#define __shfl_down_sync(m, v, d) (v)
#define __shfl_up_sync(m, v, d) (v)
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline double __longlong_as_double(long long i) {
    double f; std::memcpy(&f, &i, 8); return f;
}
"""


@pytest.fixture
def host_kernels(monkeypatch):
    """GPUArrays on host memory; the reductions' and scans' thread-kind kernels compiled by
    the host compiler and run thread by thread (one chunk per pass: blockIdx.y is 0 there)."""
    from pycuda import _axis_kernels as K
    from pycuda import _axis_reduction as R
    from pycuda import _axis_scan as S

    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    device = host_device.install(monkeypatch)

    stubs = _HOST_STUBS + "#define __shared__\n#define __syncthreads()\n"

    def module(op, kept, red, vec=0):
        source = stubs + K._head(op).replace(K._ARRAY_HELPERS, "")
        func = device.compile(source + K._thread_kernel("kt", kept, red, True), "kt",
                              K.arg_format(kept, red))  # fmt: skip
        # Both kinds take the same parameters and compute the same values.
        funcs = {("thread", True): func, ("block", True): func}
        if vec:  # the vector thread kind: several neighbouring outputs per thread
            kv = min(4, vec)
            kernel = K._thread_kernel("ktv", kept, red, True, kv)
            funcs[("thread_vec", True)] = device.compile(source + kernel, "ktv",
                                                         K.arg_format(kept, red))  # fmt: skip
            device.vector_launches.append(funcs[("thread_vec", True)])
        return funcs

    def one_chunk(layout, itemsize, wave, vec=1, max_threads=256):
        return P.Launch("thread", 32, (1, 1), 1, layout.n_red, 1, vec)

    def scan_module(in_dtype, res, acc, name, kept):
        source = S.scan_source(in_dtype, res, acc, name, kept).replace(S._ARRAY_HELPERS, "")
        source = source[: source.index("__device__ __forceinline__ acc_t pr_warp_scan")]
        func = device.compile(_HOST_STUBS + source, f"{S._NAME}_thread", "PPqqqq" + "qqq" * kept)
        return {"thread": func, "block": func}

    device.vector_launches = []
    monkeypatch.setattr(R, "_module", module)
    monkeypatch.setattr(R, "choose_launch", one_chunk)
    monkeypatch.setattr(R, "_wave", lambda: 1)
    monkeypatch.setattr(S, "_axis_module", scan_module)
    return device


HOST_KERNEL_DTYPES = [np.dtype(d) for d in (np.bool_, np.int8, np.uint16, np.int64, np.float16,
                                            np.float32, np.float64, np.complex128)]  # fmt: skip


@pytest.mark.parametrize("dtype", HOST_KERNEL_DTYPES, ids=str)
def test_thread_kernels_on_the_host(host_kernels, dtype):
    from pycuda import _axis_reduction as R

    rng = np.random.default_rng(6)
    for name in OPS:
        if dtype.kind == "c" and name in ("max", "min", "argmax", "argmin"):
            continue
        for shape in [(5,), (3, 4), (2, 3, 4)]:
            for base, view in _views(rng, shape, dtype)[::2]:
                for axis in [None, 0, -1, tuple({0, len(shape) - 1})]:
                    if name in ORDERED and isinstance(axis, tuple):
                        continue
                    arr = _device_view(host_kernels, base, view)
                    got = R.reduce(name, arr, axis, None, None, True).get()
                    ref = np.asarray(_reference(name, view, axis, True)[1])
                    dtype_ref = _reference(name, view, axis, True)[0]
                    _assert_host_close(got, dtype_ref, ref, name)
    if dtype.itemsize <= 8:  # sums along axis 0 of (3, 4): four outputs per thread ran
        assert sum(f.launches for f in host_kernels.vector_launches) > 0


def _assert_host_close(got, dtype, ref, name):
    assert got.dtype == dtype and got.shape == ref.shape, (name, got.dtype, dtype)
    if dtype.kind in "biu":
        np.testing.assert_array_equal(got, ref.astype(dtype))
    else:
        rtol = 2e-3 if dtype.itemsize <= 2 or dtype == np.complex64 else 1e-5
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=rtol)


@pytest.fixture
def host_block_kernels(monkeypatch):
    """As host_kernels, with the block-kind kernels run as one-thread blocks (their shuffles
    and barriers then have nothing to exchange: a lane's partner is the neutral element)."""
    from pycuda import _axis_kernels as K
    from pycuda import _axis_reduction as R

    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    device = host_device.install(monkeypatch)
    one_thread = host_device.HostDevice(grid=3, block=1)
    launched: list = []
    device.launched = launched
    stubs = _HOST_STUBS + "#define __shared__\n#define __syncthreads()\n"

    def module(op, kept, red, vec=0):
        source = stubs + K._head(op).replace(K._ARRAY_HELPERS, "")
        funcs = {}
        for kind, width in (("block", 0), ("block_vec", vec)):
            if kind == "block_vec" and not vec:
                continue
            kernel = K._block_kernel("kb", kept, red, True, width)
            kernel = kernel.replace("pycuda_shfl_down(pr_acc, pr_off)", "pr_neutral()")
            funcs[(kind, True)] = one_thread.compile(source + kernel, "kb", K.arg_format(kept, red))
            funcs[(kind, True)].kind = kind
        launched.clear()
        launched.append(funcs)
        return funcs

    def one_chunk(layout, itemsize, wave, vec=1, max_threads=256):
        return P.Launch("block", 32, (1, 1), 1, layout.n_red)

    monkeypatch.setattr(R, "_module", module)
    monkeypatch.setattr(R, "choose_launch", one_chunk)
    monkeypatch.setattr(R, "_wave", lambda: 1)
    return device


@pytest.mark.parametrize("dtype", [np.int8, np.float16, np.float64, np.complex128], ids=str)
def test_block_kernels_on_the_host(host_block_kernels, dtype):
    from pycuda import _axis_reduction as R

    rng = np.random.default_rng(9)
    dtype = np.dtype(dtype)
    for name in OPS:
        if dtype.kind == "c" and name in ("max", "min", "argmax", "argmin"):
            continue
        vector_runs = 0
        for shape in [(21,), (3, 20), (3, 48)]:
            for base, view in _views(rng, shape, dtype)[::3]:
                for axis in [None, -1, 0]:
                    arr = _device_view(host_block_kernels, base, view)
                    got = R.reduce(name, arr, axis, None, None, False).get()
                    dtype_ref, ref = _reference(name, view, axis, False)
                    _assert_host_close(got, dtype_ref, np.asarray(ref), name)
                    funcs = host_block_kernels.launched[-1]
                    if ("block_vec", True) in funcs:
                        vector_runs += funcs[("block_vec", True)].launches
        if dtype.itemsize <= 8:
            assert vector_runs > 0  # the 16-byte loads ran, and agreed with NumPy


@pytest.mark.parametrize("dtype", [np.int8, np.float32, np.complex128, np.bool_], ids=str)
def test_scan_thread_kernel_on_the_host(host_kernels, dtype):
    rng = np.random.default_rng(8)
    for shape in [(6,), (3, 5), (2, 3, 4)]:
        for base, view in _views(rng, shape, dtype):
            for axis in range(len(shape)):
                arr = _device_view(host_kernels, base, view)
                for name in ("cumsum", "cumprod"):
                    got = getattr(arr, name)(axis=axis).get()
                    ref = getattr(np, name)(view, axis=axis)
                    assert got.dtype == ref.dtype
                    np.testing.assert_allclose(got, ref, rtol=1e-5)


# }}}
