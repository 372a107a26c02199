"""Tests of pycuda.elementwise: generated sources compile (CPU), kernels compute (GPU)."""

from __future__ import annotations

import host_device
import numpy as np
import pytest

from pycuda import _array_core, _grid_stride, elementwise
from pycuda._c_types import dtype_to_ctype
from pycuda.compiler import compile as cuda_compile
from pycuda.gpuarray import GPUArray
from pycuda.tools import ScalarArg, VectorArg

DTYPES = [
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
    np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128,
]  # fmt: skip


def _compiles(source: str) -> None:
    cubin = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


@pytest.mark.parametrize("use_range", [False, True])
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_generated_source_compiles_for_every_dtype(dtype, use_range):
    ctype = dtype_to_ctype(dtype)
    args = _grid_stride.parse_arguments(f"{ctype} a, {ctype} *x, {ctype} *z")
    source = _grid_stride.elwise_source(
        args, "z[i] = (i % 2) ? x[i] : a", "copy_or_fill", "", "", "", use_range
    )
    assert "#include <pycuda-complex.hpp>" in source
    assert 'extern "C" __global__ void copy_or_fill(' in source
    assert "long long i;" in source  # 64-bit indices
    _compiles(source)


def test_preamble_loop_prep_after_loop_are_placed():
    args = _grid_stride.parse_arguments("float *x")
    source = _grid_stride.elwise_source(
        args, "x[i] = f(acc)", "k", "__device__ float f(float v) { return v; }",
        "float acc = 1", "(void)acc", False,
    )  # fmt: skip
    assert source.index("__device__ float f") < source.index("__global__")
    assert source.index("float acc = 1") < source.index("for (")
    assert source.index("(void)acc") > source.rindex("for (")
    _compiles(source)


def test_trips_of_several_elements_only_where_safe():
    args = _grid_stride.parse_arguments("float a, float *x, float b, float *y, float *z")
    safe = ["z[i] = a*x[i] + b*y[i]", "float t = x[ i ]; z[i] = t*t", "z[i] = i == 0 ? x[i] : 0"]
    unsafe = [
        "z[i] = x[i+1]",
        "if (x[i] > 0) return; z[i] = 1",
        "z[i] = y[i]; i++",
        "z[i] = f(x, i)",
        "for (int k = 0; k < 3; ++k) { if (k) break; z[i] = k; }",
        "z[i] = x[i] + tid",  # the original loop's names: its order of elements
        "z[i] = cta_start + total_threads",
    ]
    for op in safe:
        assert _grid_stride._unrollable(args, op, "", ""), op
        source = _grid_stride.elwise_source(args, op, "k", "", "", "", False)
        assert "__restrict__" in source and "pr_k" in source
        _compiles(source)
    for op in unsafe:
        assert not _grid_stride._unrollable(args, op, "", ""), op
        source = _grid_stride.elwise_source(args, op, "k", "", "", "", False)
        assert "__restrict__" not in source and "pr_k" not in source
    assert not _grid_stride._unrollable(args, "z[i] = x[i]", "float q = x[0]", "")
    ranged = _grid_stride.elwise_source(args, safe[0], "k", "", "", "", True)
    assert "__restrict__" not in ranged  # range= kernels keep the one-element loop


def test_arguments_split_outside_templates():
    parts = _grid_stride.split_arguments("pycuda::complex<float> a, float *x,int n")
    assert parts == ["pycuda::complex<float> a", "float *x", "int n"]
    args = _grid_stride.parse_arguments("pycuda::complex<float> a, float *x, int n")
    assert isinstance(args[0], ScalarArg) and args[0].dtype == np.complex64
    assert isinstance(args[1], VectorArg) and args[1].dtype == np.float32
    chars = "".join(a.struct_char for a in args)
    count = "".join(a.struct_char for a in _grid_stride.count_arguments(False))
    ranged = "".join(a.struct_char for a in _grid_stride.count_arguments(True))
    assert (chars, count, ranged) == ("FPi", np.dtype(np.uintp).char, 3 * np.dtype(np.intp).char)


def test_bad_construction_is_refused():
    with pytest.raises(ValueError, match="at least one vector argument"):
        elementwise.ElementwiseKernel("float a", "a = 1")
    with pytest.raises(TypeError, match="unexpected keyword"):
        elementwise.ElementwiseKernel("float *x", "x[i] = 1", bogus=1)
    with pytest.raises(TypeError, match="VectorArg"):
        elementwise.ElementwiseKernel(["float *x"], "x[i] = 1")


def _fake(shape, strides, dtype=np.float32):
    # A GPUArray over a made-up address: layout logic only, no device memory is touched.
    return GPUArray(shape, dtype, gpudata=1 << 20, strides=strides)


def test_non_contiguous_arrays_are_refused_before_launch():
    kernel = elementwise.ElementwiseKernel("float *x, float *z", "z[i] = x[i]")
    good = _fake((4, 4), (16, 4))
    strided = _fake((4, 2), (16, 8))
    with pytest.raises(ValueError, match="'x' is not contiguous"):
        kernel._invocation_args((strided, good))
    fortran = _fake((4, 4), (4, 16))
    with pytest.raises(ValueError, match="cannot be mixed"):
        kernel._invocation_args((fortran, good))
    values, size = kernel._invocation_args((good, good))
    assert size == 16 and values == [1 << 20, 1 << 20]
    arrays: list = []
    kernel._invocation_args((good, good), arrays)
    assert [arg for _, arg in arrays] == [good, good]  # for the dtype and bounds checks
    with pytest.raises(TypeError, match="takes 2 arguments"):
        kernel._invocation_args((good,))


def test_known_contiguous_vectors_take_the_shortcut_with_the_same_result():
    kernel = elementwise.ElementwiseKernel("float a, float *x, float *z", "z[i] = a*x[i]")
    for n in (1, 5):
        x = GPUArray((n,), np.float32, gpudata=1 << 20, strides=(4,))
        z = GPUArray((n,), np.float32, gpudata=1 << 21)
        assert x._c and z._c  # worked out once per layout: the shortcut
        wide = GPUArray((n, 1), np.float32, gpudata=1 << 20)  # 2-D: the general checks
        assert (
            kernel._invocation_args((np.float32(2), x, z))
            == ([np.float32(2), 1 << 20, 1 << 21], n)
            == kernel._invocation_args((np.float32(2), wide, z))
        )
    column = _fake((4, 1), (4, 4))  # 2-D: the general check of C and F order
    fortran = _fake((4, 4), (4, 16))
    with pytest.raises(ValueError, match="cannot be mixed"):
        elementwise.ElementwiseKernel("float *x, float *z", "z[i] = x[i]")._invocation_args(
            (fortran, GPUArray((4, 4), np.float32, gpudata=1 << 20))
        )
    assert kernel._invocation_args((1, column, column))[1] == 4


# {{{ on the GPU, and on the host stand-in (tests/host_device.py) where no GPU is


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (``ctx``), or the host stand-in that runs the same kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    device = host_device.install(monkeypatch)
    host_device.install_elementwise(monkeypatch, device)
    return device


def test_linear_combination(device):
    from pycuda import gpuarray

    kernel = elementwise.ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb"
    )
    rng = np.random.default_rng(0)
    for n in (0, 1, 31, 1000, 100_003):
        x = rng.random(n, dtype=np.float32)
        y = rng.random(n, dtype=np.float32)
        gx, gy = gpuarray.to_gpu(x), gpuarray.to_gpu(y)
        gz = gpuarray.empty_like(gx)
        kernel(5, gx, 6, gy, gz)
        np.testing.assert_allclose(gz.get(), 5 * x + 6 * y, rtol=1e-6)


@pytest.mark.parametrize("unroll", [1, 2, 4, 8])
def test_trips_cover_every_element_once(device, monkeypatch, unroll):
    from pycuda import gpuarray

    monkeypatch.setattr(_grid_stride, "_UNROLL", unroll)
    inc = elementwise.ElementwiseKernel("int *z, long long *w", "z[i] += 1; w[i] = i")
    shift = elementwise.ElementwiseKernel("int *z, int *y", "z[i] = y[i] + (i > 0 ? y[i-1] : 0)")
    for n in (1, 7, 1000, 4099):
        z = gpuarray.zeros(n, np.int32)
        w = gpuarray.zeros(n, np.int64)
        inc(z, w)
        np.testing.assert_array_equal(z.get(), np.ones(n, np.int32))
        np.testing.assert_array_equal(w.get(), np.arange(n))
        y = gpuarray.to_gpu(np.arange(n, dtype=np.int32))
        shift(z, y)  # reads another element: the one-element loop
        expected = np.arange(n) + np.concatenate([[0], np.arange(n - 1)])
        np.testing.assert_array_equal(z.get(), expected)


def test_range_slice_and_stream(device):
    from pycuda import gpuarray

    kernel = elementwise.ElementwiseKernel("long long *z", "z[i] = i")
    z = gpuarray.zeros(50, np.int64)
    kernel(z, range=slice(3, 40, 3))
    expected = np.zeros(50, np.int64)
    expected[3:40:3] = np.arange(3, 40, 3)
    np.testing.assert_array_equal(z.get(), expected)
    z.fill(0)
    kernel(z, slice=slice(-10, None))
    expected = np.zeros(50, np.int64)
    expected[-10:] = np.arange(40, 50)
    np.testing.assert_array_equal(z.get(), expected)
    z.fill(0)
    kernel(z, range=slice(45, 10, -5))
    expected = np.zeros(50, np.int64)
    expected[45:10:-5] = np.arange(45, 10, -5)
    np.testing.assert_array_equal(z.get(), expected)
    if isinstance(device, host_device.HostDevice):
        kernel(z)
    else:
        import pycuda.driver as drv

        stream = drv.Stream()
        kernel(z, stream=stream)
        stream.synchronize()
    np.testing.assert_array_equal(z.get(), np.arange(50))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, np.float16, np.int8, np.bool_])
def test_scalar_and_vector_dtypes(device, dtype):
    from pycuda import gpuarray

    ctype = dtype_to_ctype(dtype)
    kernel = elementwise.ElementwiseKernel(
        f"{ctype} a, {ctype} *x, {ctype} *z", "z[i] = (i % 2) ? x[i] : a"
    )
    x = (np.arange(10) % 3).astype(dtype)
    a = np.dtype(dtype).type(1)
    gx = gpuarray.to_gpu(x)
    gz = gpuarray.empty_like(gx)
    kernel(a, gx, gz)
    expected = np.where(np.arange(10) % 2 == 1, x, a)
    np.testing.assert_array_equal(gz.get(), expected)


def test_strided_array_is_refused(device):
    from pycuda import gpuarray

    kernel = elementwise.ElementwiseKernel("float *z", "z[i] = 1")
    z = gpuarray.zeros((4, 4), np.float32)
    with pytest.raises(ValueError, match="not contiguous"):
        kernel(z[:, ::2])
    np.testing.assert_array_equal(z.get(), 0)


def test_get_elwise_kernel(device):
    from pycuda import gpuarray

    func = elementwise.get_elwise_kernel("double *z, double v", "z[i] = v * i", "ramp")
    z = gpuarray.empty(100, np.float64)
    config = _array_core.seams.launch_config(100)
    func.prepared_call(config.grid, config.block, z.gpudata, 0.5, 100)
    np.testing.assert_array_equal(z.get(), 0.5 * np.arange(100))


def test_get_elwise_module_takes_the_arguments_as_given(device):
    """The original's contract: get_elwise_module's caller lists ``n`` (or ``start, stop,
    step``) itself, as the original's take/put factories do; get_elwise_kernel_and_types
    appends them (n: uintp; start, stop, step: intp) and returns them."""
    from pycuda import gpuarray
    from pycuda.tools import ScalarArg, VectorArg

    args = [VectorArg(np.float64, "z"), ScalarArg(np.float64, "v"), ScalarArg(np.uintp, "n")]
    mod = elementwise.get_elwise_module(args, "z[i] = v * i", "ramp_n")
    func = mod.get_function("ramp_n")
    func.prepare("".join(a.struct_char for a in args))
    z = gpuarray.zeros(100, np.float64)
    config = _array_core.seams.launch_config(100)
    func.prepared_call(config.grid, config.block, z.gpudata, 0.5, 60)
    expected = np.where(np.arange(100) < 60, 0.5 * np.arange(100), 0)
    np.testing.assert_array_equal(z.get(), expected)

    ranged = args[:2] + [ScalarArg(np.intp, k) for k in ("start", "stop", "step")]
    func = elementwise.get_elwise_range_module(ranged, "z[i] = -v", "neg").get_function("neg")
    func.prepare("".join(a.struct_char for a in ranged))
    func.prepared_call(config.grid, config.block, z.gpudata, 1.0, 90, 10, -20)
    expected[[90, 70, 50, 30]] = -1.0
    np.testing.assert_array_equal(z.get(), expected)

    mod, func, full = elementwise.get_elwise_kernel_and_types(args[:2], "z[i] = v", "fill_v")
    assert [(a.name, a.dtype) for a in full[2:]] == [("n", np.dtype(np.uintp))]
    func.prepared_call(config.grid, config.block, z.gpudata, 2.0, 100)  # prepared with n
    np.testing.assert_array_equal(z.get(), 2.0)
    _, ranged_func, full = elementwise.get_elwise_kernel_and_types(
        "double *z, double v", "z[i] = v", "fill_r", use_range=True
    )
    names = ("start", "stop", "step")
    assert [(a.name, a.dtype) for a in full[2:]] == [(k, np.dtype(np.intp)) for k in names]
    ranged_func.prepared_call(config.grid, config.block, z.gpudata, 3.0, 0, 2, 1)
    np.testing.assert_array_equal(z.get()[:3], [3.0, 3.0, 2.0])


def test_original_loop_names_are_defined(device):
    """Operations may use the original's tid (thread in block), cta_start (the block's first
    index) and total_threads, as well as i."""
    from pycuda import gpuarray

    check = elementwise.ElementwiseKernel(
        "int *ok",
        "ok[i] = tid < blockDim.x && cta_start == (long long)blockIdx.x * blockDim.x"
        " && (i - cta_start - tid) % total_threads == 0",
        "loop_names",
    )
    ok = gpuarray.zeros(5000, np.int32)
    check(ok)
    assert ok.get().all()


def test_get_elwise_module_without_n_is_the_callers_error(monkeypatch):
    from pycuda import compiler, driver

    monkeypatch.setattr(compiler, "SourceModule", lambda src, **kw: _compiles(src))
    with pytest.raises(driver.CompileError, match="n"):
        elementwise.get_elwise_module("float *x", "x[i] = 0", "no_n")


# }}}


@pytest.mark.gpu
def test_get_texref_reads_a_bound_texture(ctx):
    import pycuda.driver as drv
    from pycuda import gpuarray

    src = np.arange(100, dtype=np.float32) * 1.5
    x = gpuarray.to_gpu(src)
    out = gpuarray.empty_like(x)
    kernel = elementwise.ElementwiseKernel(
        "float *out",
        "out[i] = tex1Dfetch(src_tex, i)",
        "from_tex",
        preamble="texture<float, 1, cudaReadModeElementType> src_tex;",
    )
    tex = kernel.get_texref("src_tex")
    assert isinstance(tex, drv.TextureReference)
    x.bind_to_texref_ext(tex)
    kernel(out)
    np.testing.assert_array_equal(out.get(), src)
