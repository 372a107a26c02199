"""Tests of pycuda.reduction and the module reductions (pycuda._reduce_ops): every generated
kernel compiles with NVRTC for every dtype (CPU), and every reduction agrees with NumPy (GPU)."""

from __future__ import annotations

import numpy as np
import pytest
from launch_log import FakeDevice, LaunchLog, Memory, without_new_memory

from pycuda import _array_core, _driver, _reduction_source
from pycuda import reduction as R
from pycuda.tools import parse_c_arg

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
        np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
    )
]  # fmt: skip
REAL = [d for d in DTYPES if d.kind != "c"]
ARCHS = ("sm_80", "sm_90")

# The struct reduction of the original's test suite: min and max of a float array at once.
MMC_DTYPE = np.dtype([("cur_min", np.int32), ("cur_max", np.int32), ("pad0", np.int32),
                      ("pad1", np.int32)])  # fmt: skip
MMC_PREAMBLE = """
struct minmax_collector {
    int cur_min;
    int cur_max;
    int pad0;
    int pad1;
    __device__ minmax_collector() {}
    __device__ minmax_collector(int cmin, int cmax) : cur_min(cmin), cur_max(cmax) {}
};
__device__ minmax_collector mmc_neutral() { return minmax_collector(2147483647, -2147483647); }
__device__ minmax_collector mmc_from_scalar(float x) { return minmax_collector(x, x); }
__device__ minmax_collector agg_mmc(minmax_collector a, minmax_collector b) {
    return minmax_collector(min(a.cur_min, b.cur_min), max(a.cur_max, b.cur_max));
}
"""


def _register_mmc() -> None:
    from pycuda.tools import register_dtype

    try:
        register_dtype(MMC_DTYPE, "minmax_collector")
    except RuntimeError:
        pass  # registered by an earlier test


# {{{ CPU: kernels compile


class _FakeFunction:
    def __init__(self, name: str) -> None:
        self.name = name
        self.format = None

    def prepare(self, fmt: str) -> None:
        self.format = fmt


@pytest.fixture
def nvrtc_modules(monkeypatch):
    """SourceModule replaced by NVRTC compiles for sm_80 and sm_90 (no GPU needed); the
    kernels asked for must be in both cubins."""
    from pycuda import compiler, driver

    sources: list[str] = []

    class NvrtcOnlyModule:
        def __init__(self, source, options=None, keep=False, no_extern_c=False, **kw):
            sources.append(source)
            self.cubins = [
                compiler.compile(source, options=options, no_extern_c=no_extern_c, arch=arch)
                for arch in ARCHS
            ]

        def get_function(self, name):
            for cubin in self.cubins:
                assert name.encode() in cubin, f"{name} missing from the cubin"
            return _FakeFunction(name)

    monkeypatch.setattr(compiler, "SourceModule", NvrtcOnlyModule)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    return sources


def _sum_out(dtype: np.dtype) -> np.dtype:
    return np.sum(np.zeros(1, dtype)).dtype


@needs_nvrtc
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_factories_compile(nvrtc_modules, dtype):
    kernels = [
        R.get_sum_kernel.__wrapped__(_sum_out(dtype), dtype),
        R.get_subset_sum_kernel.__wrapped__(_sum_out(dtype), np.int32, dtype),
        R.get_dot_kernel.__wrapped__(dtype, dtype, dtype),
        R.get_subset_dot_kernel.__wrapped__(dtype, np.int64, dtype, dtype),
        R.get_any_kernel.__wrapped__(np.bool_, dtype),
        R.get_all_kernel.__wrapped__(np.bool_, dtype),
    ]
    if dtype.kind != "c":
        for what in ("max", "min"):
            kernels.append(R.get_minmax_kernel.__wrapped__(what, dtype))
            kernels.append(R.get_subset_minmax_kernel.__wrapped__(what, dtype, np.uint32))
            kernels.append(R.get_argminmax_kernel.__wrapped__(what, dtype))
    for k in kernels:
        assert k.stage1_func.format.startswith("P") and k.stage1_func.format.endswith("q")
        assert k.stage2_func.format == "PPq"
    # Plain loads (sum, dot, max, argmax) get the 16-byte-load variant; gathers do not.
    assert kernels[0].stage1_vec_func is not None
    assert kernels[2].stage1_vec_func is not None
    assert kernels[1].stage1_vec_func is None


@needs_nvrtc
def test_mixed_dot_and_dtype_arguments_compile(nvrtc_modules):
    R.get_dot_kernel.__wrapped__(np.complex128, np.complex64, np.float64)
    R.get_dot_kernel.__wrapped__(np.float32, np.float16, np.float16)
    R.get_sum_kernel.__wrapped__(np.float16, np.int32)
    R.get_sum_kernel.__wrapped__(np.bool_, np.int32)


@needs_nvrtc
def test_struct_reduction_uses_shared_memory(nvrtc_modules):
    _register_mmc()
    k = R.ReductionKernel(
        MMC_DTYPE, neutral="mmc_neutral()", reduce_expr="agg_mmc(a, b)",
        map_expr="mmc_from_scalar(x[i])", arguments="float *x", preamble=MMC_PREAMBLE,
    )  # fmt: skip
    kernel_text = k.source.split('extern "C"', 1)[1]
    assert "__syncwarp" in kernel_text and "pycuda_shfl_down(pr_acc" not in kernel_text
    assert k.stage1_vec_func is not None  # x[i] only: 16-byte loads, 4 floats each


@needs_nvrtc
def test_custom_kernel_with_scalars_compiles(nvrtc_modules):
    k = R.ReductionKernel(
        np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i] + alpha*z[i] + i",
        arguments="const float *x, const double *y, double alpha, const short *z",
    )  # fmt: skip
    assert k.stage1_func.format == "PPPdPq"
    assert k._plan.vec == 2  # limited by the 8-byte doubles


def test_vector_map_detection():
    args = [parse_c_arg(a) for a in ("float *x", "double *y", "int *s", "float c")]
    assert _reduction_source._vector_map("x[i]", args)[2] == 4
    assert _reduction_source._vector_map("x[ i ]*y[i] + c", args)[2] == 2
    assert _reduction_source._vector_map("x[s[i]]", args) is None
    assert _reduction_source._vector_map("x[i+1]", args) is None
    assert _reduction_source._vector_map("c*i", args) is None
    rewritten = _reduction_source._vector_map("x[i]*i", args)[0]
    assert "x[" not in rewritten and "pr_elt_x*i" in rewritten


def test_minmax_neutral():
    assert R.get_minmax_neutral("max", np.int8) == "-128LL"
    assert R.get_minmax_neutral("min", np.uint64) == f"{2**64 - 1}ULL"
    assert R.get_minmax_neutral("max", np.int64) == "(-9223372036854775807LL - 1)"
    assert R.get_minmax_neutral("min", np.bool_) == "true"
    assert "-" in R.get_minmax_neutral("max", np.float32)
    with pytest.raises(TypeError, match="complex"):
        R.get_minmax_neutral("max", np.complex64)
    with pytest.raises(ValueError, match="'max' or 'min'"):
        R.get_minmax_neutral("mean", np.float32)


def test_arguments_required():
    with pytest.raises(TypeError, match="needs arguments"):
        _reduction_source.reduction_arguments(None)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sum_dtype_is_numpys(dtype):
    from pycuda._dtypes import info

    assert info(dtype).sum_dtype == np.sum(np.zeros(3, dtype)).dtype


class _HostArray:
    """Just enough of a GPUArray to reach the argument checks."""

    def __init__(self, size, dtype=np.float32, contiguous=True):
        self.size, self.dtype, self.gpudata = size, np.dtype(dtype), 0
        self.nbytes = size * self.dtype.itemsize

        class Flags:
            c_contiguous = contiguous
            f_contiguous = contiguous and size <= 1

        self.flags = Flags()


def test_dot_size_mismatch_is_a_value_error():
    from pycuda import _reduce_ops

    with pytest.raises(ValueError, match="must match"):
        _reduce_ops.dot(_HostArray(3), _HostArray(4))


def test_empty_max_is_a_value_error():
    from pycuda import _reduce_ops

    with pytest.raises(ValueError, match="zero-size array"):
        _reduce_ops.max(_HostArray(0))
    with pytest.raises(ValueError, match="empty sequence"):
        _reduce_ops.argmin(_HostArray(0))
    with pytest.raises(TypeError, match="GPUArray"):
        _reduce_ops.sum(np.zeros(3))


@needs_nvrtc
def test_bad_arguments_are_clear(nvrtc_modules):
    k = R.ReductionKernel(np.float32, "0", "a+b", arguments="const float *in")
    with pytest.raises(TypeError, match="takes 1 arguments"):
        k._launch_args((_HostArray(3), _HostArray(3)))
    with pytest.raises(ValueError, match="not contiguous"):
        k._launch_args((_HostArray(3, contiguous=False),))
    # Another dtype is the original's reinterpretation: a warning while the kernel reads
    # inside the array (docs/migrating.md), a refusal where it would read past its end.
    with pytest.warns(UserWarning, match="'in' has dtype float64.*declared with float32"):
        k._launch_args((_HostArray(3, np.float64),))
    with pytest.raises(TypeError, match="dtype float16.*past its end"):
        k._launch_args((_HostArray(3, np.float16),))
    with pytest.raises(TypeError, match="GPUArray"):
        k._launch_args((np.zeros(3, np.float32),))


# }}}

# {{{ CPU: the one-array shortcut launches what the general path launches


@pytest.fixture
def launch_log(monkeypatch):
    import array_seams

    from pycuda import compiler, driver

    log = LaunchLog()
    monkeypatch.setattr(compiler, "SourceModule", log.module)
    monkeypatch.setattr(driver.Context, "get_device", staticmethod(lambda: FakeDevice()))
    array_seams.replace(monkeypatch)  # no context (as without a GPU), no plans kept yet
    return log


@pytest.mark.parametrize("n", [1, 1000, 4097, 10**7])
def test_plain_arrays_launch_what_the_general_path_launches(launch_log, n):
    from pycuda.gpuarray import GPUArray

    class Sub(GPUArray):  # a subclass takes the general path
        pass

    allocate = Memory().allocate
    k = R.ReductionKernel(np.float32, "0", "a+b", arguments="const float *in")
    for offset in (0, 1, 4):
        base = GPUArray((n + offset,), np.float32, allocator=allocate)
        a = base[offset:]
        general = Sub((n,), np.float32, allocate, gpudata=a.gpudata, strides=(4,))
        launch_log.calls.clear()
        out = k(a)
        plain_calls = without_new_memory(launch_log.calls)
        assert launch_log.calls[-1][3][0] == out.ptr and out.shape == () and out._c
        assert out.dtype == np.float32 and out.allocator is allocate and type(out) is GPUArray
        state = _array_core.state()
        assert (k, n, k._aligned(a.ptr)) in state.reductions  # the plan it launched from is kept
        launch_log.calls.clear()
        k(general)
        assert plain_calls == without_new_memory(launch_log.calls)
        stages = [call[0] for call in plain_calls]
        # one launch where one block's worth of work (with 16-byte loads where aligned)
        assert len(stages) == (1 if n <= 256 * (16 if offset % 4 == 0 else 8) else 2)


def test_plain_path_leaves_the_checks_to_the_general_path(launch_log):
    from pycuda.gpuarray import GPUArray

    k = R.ReductionKernel(np.float32, "0", "a+b", arguments="const float *in")
    a = GPUArray((10, 10), np.float32, allocator=Memory().allocate)
    assert k._call_plain(a[:, ::2], None) is None
    assert k._call_plain(GPUArray((3,), np.float64, allocator=Memory().allocate), None) is None
    assert k._call_plain(GPUArray((0,), np.float32, allocator=Memory().allocate), None) is None
    with pytest.raises(ValueError, match="not contiguous"):
        k(a[:, ::2])
    with pytest.raises(TypeError, match="dtype int16.*past its end"):
        k(GPUArray((3,), np.int16, allocator=Memory().allocate))
    two = R.ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]", "const float *x, const float *y")
    assert two._single is None


def test_kernel_wrapper_wraps_both_stages_before_launching(launch_log):
    """As the original: kernel_wrapper(launcher) for stage 1 and stage 2, each launcher a
    function's prepared_async_call, called as launcher(grid, block, stream, *args)."""
    from pycuda.gpuarray import GPUArray

    k = R.ReductionKernel(np.float32, "0", "a+b", arguments="const float *in")
    seen = []

    def wrapper(launch):
        seen.append(launch.__func__.__name__)

        def launch_and_note(grid, block, stream, *args):
            seen.append((grid, stream))
            return launch(grid, block, stream, *args)

        return launch_and_note

    for n, launches in ((10, 1), (10**6, 2)):
        a = GPUArray((n,), np.float32, allocator=Memory().allocate)
        launch_log.calls.clear()
        k(a)
        plain = without_new_memory(list(launch_log.calls))
        seen.clear()
        launch_log.calls.clear()
        k(a, kernel_wrapper=wrapper, stream="s")
        assert seen[:2] == ["prepared_async_call"] * 2  # both wrapped first
        assert [stream for _, stream in seen[2:]] == ["s"] * launches
        wrapped = [call[:4] for call in launch_log.calls]
        assert without_new_memory(wrapped) == plain
    with pytest.raises(TypeError, match="unexpected keyword"):
        k(a, kernel_wraper=wrapper)


# {{{ GPU: against NumPy

SIZES = [0, 1, 2, 31, 1000, 2**20 + 3, 2**26]
# 2**26 elements of every dtype for sums; for the other reductions, of these (device time).
BIG_DTYPES = {np.dtype(t) for t in (np.bool_, np.int8, np.float32, np.float64, np.complex64)}
_data_cache: dict = {}


def _skip_big(dtype: np.dtype, n: int) -> None:
    if n >= 2**26 and dtype not in BIG_DTYPES:
        pytest.skip("2**26 elements are tested for a few dtypes only (sums: all)")


def _random(dtype: np.dtype, n: int, seed: int = 0) -> np.ndarray:
    key = (dtype, n, seed)
    if key in _data_cache:
        return _data_cache[key]
    if len(_data_cache) > 4:
        _data_cache.clear()  # the 2**26 arrays are large: keep only a few
    rng = np.random.default_rng(seed + n)
    if dtype.kind == "b":
        a = rng.integers(0, 2, n).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        a = rng.integers(max(info.min, -100), min(info.max, 100), n, endpoint=True).astype(dtype)
    elif dtype.kind == "f":
        a = rng.random(n, dtype=np.float32 if dtype.itemsize <= 4 else np.float64).astype(dtype)
    else:
        a = (rng.random(n) + 1j * rng.random(n)).astype(dtype)
    _data_cache[key] = a
    return a


def _assert_close_sum(got, ref, dtype, scale):
    """``scale``: the float64 sum of magnitudes the rounding errors are relative to."""
    if dtype.kind in "biu":
        assert got == ref
        return
    if dtype == np.float16 and np.isinf(np.float16(ref)):
        assert got == np.float16(ref)  # numpy's float16 sum overflows just the same
        return
    eps = {2: 2e-3, 4: 4 * np.finfo(np.float32).eps, 8: 64 * np.finfo(np.float64).eps}
    tol = eps[dtype.itemsize if dtype.kind == "f" else dtype.itemsize // 2] * max(scale, 1)
    assert abs(complex(got) - complex(ref)) <= tol, (got, ref, tol)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_sum(ctx, dtype, n):
    from pycuda import _reduce_ops, gpuarray

    a = _random(dtype, n)
    result = _reduce_ops.sum(gpuarray.to_gpu(a))
    assert result.shape == () and result.dtype == np.sum(a).dtype
    wide = np.complex128 if dtype.kind == "c" else np.float64
    if dtype.kind in "biu":
        _assert_close_sum(result.get(), np.sum(a), dtype, 0)
    else:
        ref = np.sum(a.astype(wide))
        _assert_close_sum(result.get(), ref, dtype, float(np.sum(np.abs(a.astype(wide)))))


@pytest.mark.gpu
def test_float32_sum_within_few_ulps(ctx):
    from pycuda import _reduce_ops, gpuarray

    a = _random(np.dtype(np.float32), 2**26)
    ref = np.sum(a.astype(np.float64))
    got = float(_reduce_ops.sum(gpuarray.to_gpu(a)).get())
    ulp = np.spacing(np.float32(ref))
    assert abs(got - ref) <= 4 * ulp, (got, ref, (got - ref) / ulp)


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_dot(ctx, dtype, n):
    from pycuda import _reduce_ops, gpuarray

    _skip_big(dtype, n)

    a, b = _random(dtype, n), _random(dtype, n, seed=1)
    result = _reduce_ops.dot(gpuarray.to_gpu(a), gpuarray.to_gpu(b))
    assert result.dtype == np.dot(a, b).dtype
    if dtype.kind in "biu":
        assert result.get() == np.dot(a, b)
    else:
        wide = np.complex128 if dtype.kind == "c" else np.float64
        aw, bw = a.astype(wide), b.astype(wide)
        _assert_close_sum(result.get(), np.dot(aw, bw), dtype, float(np.sum(np.abs(aw * bw))))


@pytest.mark.gpu
def test_dot_mixed_dtypes_and_dtype_argument(ctx):
    from pycuda import _reduce_ops, gpuarray

    a = _random(np.dtype(np.float32), 1000)
    b = _random(np.dtype(np.complex128), 1000)
    got = _reduce_ops.dot(gpuarray.to_gpu(a), gpuarray.to_gpu(b))
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got.get(), np.dot(a, b), rtol=1e-12)
    i = _random(np.dtype(np.int8), 1000)
    got = _reduce_ops.dot(gpuarray.to_gpu(i), gpuarray.to_gpu(i), dtype=np.int64)
    assert got.dtype == np.int64 and got.get() == np.dot(i.astype(np.int64), i)
    with pytest.raises(ValueError, match="must match"):
        _reduce_ops.dot(gpuarray.to_gpu(a), gpuarray.to_gpu(a[:10]))


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES[1:])
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_max_min_argmax_argmin(ctx, dtype, n):
    from pycuda import _reduce_ops, gpuarray

    _skip_big(dtype, n)

    a = _random(dtype, n)
    a_gpu = gpuarray.to_gpu(a)
    for name in ("max", "min"):
        got = getattr(_reduce_ops, name)(a_gpu)
        assert got.dtype == dtype and got.get() == getattr(np, name)(a)
    for name in ("argmax", "argmin"):
        got = getattr(_reduce_ops, name)(a_gpu)
        assert got.dtype == np.int64 and got.get() == getattr(np, name)(a), name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
def test_nan_propagates(ctx, dtype):
    from pycuda import _reduce_ops, gpuarray

    a = _random(np.dtype(dtype), 2**20 + 3).copy()
    a[777777] = np.nan
    a[900000] = np.nan
    a_gpu = gpuarray.to_gpu(a)
    assert np.isnan(_reduce_ops.max(a_gpu).get()) and np.isnan(_reduce_ops.min(a_gpu).get())
    assert _reduce_ops.argmax(a_gpu).get() == np.argmax(a) == 777777
    assert _reduce_ops.argmin(a_gpu).get() == np.argmin(a) == 777777
    assert _reduce_ops.any(a_gpu).get() and np.isnan(_reduce_ops.sum(a_gpu).get())


@pytest.mark.gpu
def test_extrema_ties_give_first_index(ctx):
    from pycuda import _reduce_ops, gpuarray

    a = np.zeros(2**20 + 3, np.int32)
    a[[5, 70000, 2**20]] = 9
    a[[17, 900000]] = -4
    a_gpu = gpuarray.to_gpu(a)
    assert _reduce_ops.argmax(a_gpu).get() == 5
    assert _reduce_ops.argmin(a_gpu).get() == 17


@pytest.mark.gpu
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_any_all(ctx, dtype, n):
    from pycuda import _reduce_ops, gpuarray

    _skip_big(dtype, n)

    for a in (_random(dtype, n), np.ones(n, dtype), np.zeros(n, dtype)):
        a_gpu = gpuarray.to_gpu(a)
        got_any, got_all = _reduce_ops.any(a_gpu), _reduce_ops.all(a_gpu)
        assert got_any.dtype == np.bool_ and got_all.dtype == np.bool_
        assert got_any.get() == np.any(a) and got_all.get() == np.all(a)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", REAL, ids=str)
def test_subset_reductions(ctx, dtype):
    from pycuda import _reduce_ops, gpuarray

    a, b = _random(dtype, 100003), _random(dtype, 100003, seed=3)
    rng = np.random.default_rng(5)
    for idx_dtype in (np.int32, np.int64, np.uint32):
        subset = rng.integers(0, a.size, 5001).astype(idx_dtype)
        s_gpu, a_gpu, b_gpu = (gpuarray.to_gpu(x) for x in (subset, a, b))
        got = _reduce_ops.subset_sum(s_gpu, a_gpu)
        ref = np.sum(a[subset])
        if dtype.kind in "biu":
            assert got.get() == ref
            assert _reduce_ops.subset_dot(s_gpu, a_gpu, b_gpu).get() == np.dot(a[subset], b[subset])
        else:
            np.testing.assert_allclose(got.get(), ref, rtol=2e-3 if dtype.itemsize == 2 else 1e-5)
        assert _reduce_ops.subset_max(s_gpu, a_gpu).get() == np.max(a[subset])
        assert _reduce_ops.subset_min(s_gpu, a_gpu).get() == np.min(a[subset])


@pytest.mark.gpu
def test_struct_reduction(ctx):
    from pycuda import gpuarray

    _register_mmc()
    k = R.ReductionKernel(
        MMC_DTYPE, neutral="mmc_neutral()", reduce_expr="agg_mmc(a, b)",
        map_expr="mmc_from_scalar(x[i])", arguments="float *x", preamble=MMC_PREAMBLE,
    )  # fmt: skip
    for n in (1, 1000, 2**20 + 3):
        a = np.random.default_rng(n).integers(-(10**6), 10**6, n).astype(np.float32)
        for a_gpu in (
            gpuarray.to_gpu(a),
            gpuarray.to_gpu(np.concatenate([np.zeros(1, np.float32), a]))[1:],
        ):
            got = k(a_gpu).get()
            assert got["cur_min"] == a.min() and got["cur_max"] == a.max()


@pytest.mark.gpu
def test_custom_kernel_map_and_several_arguments(ctx):
    from pycuda import gpuarray

    k = R.ReductionKernel(
        np.float64, neutral="0", reduce_expr="a+b", map_expr="x[i]*y[i] + alpha*z[i]",
        arguments="const float *x, const double *y, double alpha, const short *z",
    )  # fmt: skip
    rng = np.random.default_rng(0)
    n = 2**20 + 3
    x, y = rng.random(n + 1).astype(np.float32), rng.random(n + 1)
    z = rng.integers(-5, 5, n + 1).astype(np.int16)
    xg, yg, zg = (gpuarray.to_gpu(v) for v in (x, y, z))
    # Aligned arrays take the 16-byte loads; offset views (x[1:]) the scalar loads.
    for sl in (slice(0, n), slice(1, n + 1)):
        got = k(xg[sl], yg[sl], 2.5, zg[sl]).get()
        ref = np.sum(x[sl].astype(np.float64) * y[sl] + 2.5 * z[sl])
        np.testing.assert_allclose(got, ref, rtol=1e-12)


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1000, 3_000_001])
def test_kernel_wrapper_times_the_stages(ctx, n):
    import pycuda.driver as drv
    from pycuda import gpuarray

    x = np.random.default_rng(5).standard_normal(n)
    k = R.ReductionKernel(np.float64, "0", "a+b", "x[i]*x[i]", "const double *x")
    timed = []

    def timer(launch):
        def timed_launch(grid, block, stream, *args):
            start, end = drv.Event(), drv.Event()
            start.record(stream)
            launch(grid, block, stream, *args)
            end.record(stream)
            timed.append((start, end))

        return timed_launch

    stream = drv.Stream()
    got = k(gpuarray.to_gpu(x), kernel_wrapper=timer, stream=stream)
    stream.synchronize()
    np.testing.assert_allclose(got.get(), np.dot(x, x), rtol=1e-12)
    assert len(timed) in (1, 2) and all(end.time_since(start) >= 0 for start, end in timed)
    assert k(gpuarray.to_gpu(x), kernel_wrapper=lambda f: f).get() == got.get()


@pytest.mark.gpu
def test_out_allocator_stream(ctx):
    from pycuda import _reduce_ops, driver, gpuarray

    a = _random(np.dtype(np.float32), 2**20 + 3)
    a_gpu = gpuarray.to_gpu(a)
    out = gpuarray.empty((), np.float32)
    krnl = R.get_sum_kernel(np.float32, np.float32)
    assert krnl(a_gpu, out=out) is out
    np.testing.assert_allclose(out.get(), a.astype(np.float64).sum(), rtol=1e-6)
    with pytest.raises(TypeError, match="out must be"):
        krnl(a_gpu, out=gpuarray.empty((), np.float64))
    calls = []

    def counting_allocator(nbytes):
        calls.append(nbytes)
        return driver.mem_alloc(nbytes)

    got = _reduce_ops.sum(a_gpu, allocator=counting_allocator)
    assert len(calls) == 2  # the result and the partials
    np.testing.assert_allclose(got.get(), a.astype(np.float64).sum(), rtol=1e-6)
    stream = driver.Stream()
    got = _reduce_ops.max(a_gpu, stream=stream)
    stream.synchronize()
    assert got.get() == a.max()


@pytest.mark.gpu
def test_non_contiguous_input(ctx):
    """sum/max/... of a strided view go through the axis reductions; dot still needs
    contiguous arrays."""
    from pycuda import _reduce_ops, gpuarray

    a = np.arange(100, dtype=np.float32)
    a_gpu = gpuarray.to_gpu(a)
    assert _reduce_ops.sum(a_gpu[::2]).get() == np.sum(a[::2])
    assert _reduce_ops.argmax(a_gpu[::-3]).get() == np.argmax(a[::-3])
    with pytest.raises(ValueError, match="not contiguous"):
        _reduce_ops.dot(a_gpu[::2], a_gpu[::2])


@pytest.mark.gpu
def test_more_than_2_to_the_31_elements(ctx):
    from pycuda import _reduce_ops, driver, gpuarray

    n = 2**31 + 77
    free, _ = driver.mem_get_info()
    if free < 3 * n:
        pytest.skip(f"needs {3 * n} bytes of free GPU memory, {free} free")
    a = np.zeros(n, np.int8)
    a[[0, 2**31 + 3, n - 1]] = (1, 7, 5)
    a_gpu = gpuarray.to_gpu(a)
    del a
    assert _reduce_ops.sum(a_gpu).get() == 13
    assert _reduce_ops.max(a_gpu).get() == 7
    assert _reduce_ops.argmax(a_gpu).get() == 2**31 + 3
    assert _reduce_ops.any(a_gpu).get() and not _reduce_ops.all(a_gpu).get()


# }}}


@needs_nvrtc
def test_lower_level_functions(nvrtc_modules):
    for stage, fmt in ((1, "PPPdq"), (2, "PPq")):
        func, types = R.get_reduction_kernel_and_types(
            stage, "double", 512, "0", "a+b", "x[i]*y[i]*s",
            "const float *x, const double *y, double s",
        )  # fmt: skip
        assert func.format == fmt and types[0].name == "pr_out"
    mod = R.get_reduction_module("float", 512, "0", "a+b", None, "const float *in")
    mod.get_function("reduce_kernel_stage1_vec")
