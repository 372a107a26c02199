"""Tests of the original's ``pycuda.elementwise.get_*_kernel`` factories: names, parameters and
argument orders, sources that compile (CPU); kernels launched as client code launches them,
against NumPy (GPU, and the host stand-in of tests/host_device.py where no GPU is)."""

from __future__ import annotations

import inspect

import host_device
import numpy as np
import pytest

from pycuda import _elementwise_factories, elementwise
from pycuda import _elementwise_plans as plans
from pycuda.compiler import compile as cuda_compile
from pycuda.tools import memoize_method

F16, F32, F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
C64, C128 = np.dtype(np.complex64), np.dtype(np.complex128)
I32, I64, U8, B = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8), np.dtype(np.bool_)
REQUIRED = inspect.Parameter.empty

# The original's parameters of each factory, in order, with their defaults.
ORIGINAL_PARAMETERS = {
    "get_linear_combination_kernel": [("summand_descriptors", REQUIRED), ("dtype_z", REQUIRED)],
    "get_axpbyz_kernel": [("dtype_x", REQUIRED), ("dtype_y", REQUIRED), ("dtype_z", REQUIRED),
                          ("x_is_scalar", False), ("y_is_scalar", False)],
    "get_axpbz_kernel": [("dtype_x", REQUIRED), ("dtype_z", REQUIRED)],
    "get_binary_op_kernel": [("dtype_x", REQUIRED), ("dtype_y", REQUIRED), ("dtype_z", REQUIRED),
                             ("operator", REQUIRED), ("x_is_scalar", False),
                             ("y_is_scalar", False)],
    "get_scalar_op_kernel": [("dtype_x", REQUIRED), ("dtype_a", REQUIRED), ("dtype_y", REQUIRED),
                             ("operator", REQUIRED)],
    "get_rdivide_elwise_kernel": [("dtype_x", REQUIRED), ("dtype_z", REQUIRED)],
    "get_binary_func_kernel": [("func", REQUIRED), ("dtype_x", REQUIRED), ("dtype_y", REQUIRED),
                               ("dtype_z", REQUIRED)],
    "get_binary_func_scalar_kernel": [("func", REQUIRED), ("dtype_x", REQUIRED),
                                      ("dtype_y", REQUIRED), ("dtype_z", REQUIRED)],
    "get_pow_array_kernel": [("dtype_x", REQUIRED), ("dtype_y", REQUIRED), ("dtype_z", REQUIRED),
                             ("is_base_array", REQUIRED), ("is_exp_array", REQUIRED)],
    "get_fmod_kernel": [],
    "get_modf_kernel": [],
    "get_frexp_kernel": [],
    "get_ldexp_kernel": [],
    "get_unary_func_kernel": [("func_name", REQUIRED), ("in_dtype", REQUIRED),
                              ("out_dtype", None)],
    "get_fill_kernel": [("dtype", REQUIRED)],
    "get_copy_kernel": [("dtype_dest", REQUIRED), ("dtype_src", REQUIRED)],
    "get_reverse_kernel": [("dtype", REQUIRED)],
    "get_real_kernel": [("dtype", REQUIRED), ("real_dtype", REQUIRED)],
    "get_imag_kernel": [("dtype", REQUIRED), ("real_dtype", REQUIRED)],
    "get_conj_kernel": [("dtype", REQUIRED), ("conj_dtype", REQUIRED)],
    "get_arange_kernel": [("dtype", REQUIRED)],
    "get_take_kernel": [("dtype", REQUIRED), ("idx_dtype", REQUIRED), ("vec_count", 1)],
    "get_take_put_kernel": [("dtype", REQUIRED), ("idx_dtype", REQUIRED),
                            ("with_offsets", REQUIRED), ("vec_count", 1)],
    "get_put_kernel": [("dtype", REQUIRED), ("idx_dtype", REQUIRED), ("vec_count", 1)],
    "get_if_positive_kernel": [("crit_dtype", REQUIRED), ("dtype", REQUIRED)],
    "get_where_kernel": [("crit_dtype", REQUIRED), ("dtype", REQUIRED)],
    "get_binary_minmax_kernel": [("func", REQUIRED), ("dtype_x", REQUIRED), ("dtype_y", REQUIRED),
                                 ("dtype_z", REQUIRED), ("use_scalar", REQUIRED)],
    "get_logical_not_kernel": [("dtype_x", REQUIRED), ("dtype_out", REQUIRED)],
}  # fmt: skip


def _plan_builder(factory_name: str):
    return getattr(plans, factory_name.removeprefix("get_").removesuffix("_kernel"))


# {{{ names and signatures


def test_every_factory_is_exported_from_elementwise():
    assert len(ORIGINAL_PARAMETERS) == 28
    assert sorted(_elementwise_factories.__all__) == sorted(ORIGINAL_PARAMETERS)
    for name in ORIGINAL_PARAMETERS:
        assert name in elementwise.__all__
        assert getattr(elementwise, name) is getattr(_elementwise_factories, name)
    from pycuda.elementwise import get_axpbyz_kernel, get_linear_combination_kernel  # noqa: F401


@pytest.mark.parametrize("name", sorted(ORIGINAL_PARAMETERS))
def test_factory_takes_the_originals_parameters(name):
    params = list(inspect.signature(getattr(elementwise, name)).parameters.values())
    original = ORIGINAL_PARAMETERS[name]
    assert [p.name for p in params[: len(original)]] == [n for n, _ in original]
    for param, (_, default) in zip(params, original, strict=False):
        # Ours may make an optional parameter of a required one (conj_dtype), never the reverse.
        if default is not REQUIRED:
            assert param.default == default, param
    for extra in params[len(original) :]:
        assert extra.default is not REQUIRED, f"{name}: added parameter {extra.name} is required"


@pytest.mark.parametrize("name", sorted(ORIGINAL_PARAMETERS))
def test_each_factory_has_a_plan_with_its_parameters(name):
    factory = inspect.signature(getattr(elementwise, name)).parameters
    plan = inspect.signature(_plan_builder(name)).parameters
    assert [(p.name, p.default) for p in plan.values()] == [
        (p.name, p.default) for p in factory.values()
    ]


def test_helpers_of_the_original_module():
    assert elementwise._get_real_dtype(C64) == F32
    assert elementwise._get_real_dtype(np.complex128) == F64
    assert elementwise._get_real_dtype(F32) == F32

    class Counter:
        def __init__(self):
            self.calls = 0

        @elementwise.memoize_method
        def twice(self, x, scale=2):
            self.calls += 1
            return scale * x

    c, d = Counter(), Counter()
    assert elementwise.memoize_method is memoize_method
    assert (c.twice(3), c.twice(3), c.twice(3, scale=3), c.twice(3, scale=3)) == (6, 6, 9, 9)
    assert c.calls == 2
    assert d.twice(3) == 6 and d.calls == 1  # per instance
    Counter.twice.clear_cache(c)
    c.twice(3)
    assert c.calls == 3
    assert callable(elementwise.ElementwiseKernel.generate_stride_kernel_and_types)


# }}}


# {{{ argument orders (the launch contract), without a GPU


def _names(plan):
    return [a.name for a in plan.arguments]


def _chars(plan):
    return "".join(a.struct_char for a in plan.arguments)


def test_kernel_arguments_are_in_the_originals_order():
    take = plans.take(F32, I32, 2)
    assert _names(take) == ["idx", "dest0", "dest1"] and _chars(take) == "PPP"
    assert take.texrefs == ("tex_src0", "tex_src1")
    take_put = plans.take_put(F64, I32, True, 2)
    assert _names(take_put) == [
        "gmem_dest_idx", "gmem_src_idx", "dest0", "dest1", "offset0", "offset1",
    ]  # fmt: skip
    assert _chars(take_put) == "PPPPii" and take_put.texrefs == ("tex_src0", "tex_src1")
    assert _chars(plans.take_put(F32, I64, False, 3)) == "PPPPP"
    put = plans.put(F32, I64, 2)
    assert _names(put) == ["gmem_dest_idx", "dest0", "dest1", "src0", "src1"]
    combo = plans.linear_combination([(False, F32, F32), (True, F64, F64), (False, C64, C64)], C64)
    assert _names(combo) == ["a0", "x0", "x1", "a2", "x2", "z"] and _chars(combo) == "fPPFPP"
    assert combo.texrefs == ("tex_a1",)
    assert "double a1 = fp_tex1Dfetch(tex_a1, 0)" in combo.loop_prep
    expected = {
        plans.copy(F32, I32): ["dest", "src"],
        plans.axpbyz(F32, F64, F64): ["a", "x", "b", "y", "z"],
        plans.axpbz(I32, F32): ["a", "x", "b", "z"],
        plans.binary_op(F32, F32, F32, "+"): ["x", "y", "z"],
        plans.scalar_op(F32, F64, F32, "*"): ["x", "a", "y"],
        plans.rdivide_elwise(F32, F32): ["x", "y", "z"],
        plans.binary_func("atan2", F32, F32, F32): ["x", "y", "z"],
        plans.binary_func_scalar("atan2", F32, F32, F32): ["x", "y", "z"],
        plans.binary_minmax("max", F32, F32, F32, True): ["x", "y", "z"],
        plans.pow_array(F32, F32, F32, False, True): ["x", "y", "z"],
        plans.fmod(): ["arg", "mod", "z"],
        plans.modf(): ["x", "intpart", "fracpart"],
        plans.frexp(): ["x", "significand", "exponent"],
        plans.ldexp(): ["sig", "expt", "z"],
        plans.unary_func("sqrt", F32): ["y", "z"],
        plans.fill(F32): ["a", "z"],
        plans.reverse(F32): ["y", "z"],
        plans.real(C64, F32): ["y", "z"],
        plans.imag(C64, F32): ["y", "z"],
        plans.conj(C64, C64): ["y", "z"],
        plans.arange(F32): ["z", "start", "step"],
        plans.if_positive(I32, F32): ["crit", "then_", "else_", "result"],
        plans.where(I32, F32): ["crit", "then_", "else_", "result"],
        plans.logical_not(F32, B): ["x", "out"],
    }
    for plan, names in expected.items():
        assert _names(plan) == names, plan.name
    assert _chars(plans.axpbyz(F32, F64, C128)) == "fPdPP"
    assert _chars(plans.axpbz(I32, C64)) == "FPFP"
    assert _chars(plans.binary_func_scalar("f", F32, I32, F32)) == "PiP"
    assert _chars(plans.binary_minmax("min", F32, F64, F64, True)) == "PdP"
    assert _chars(plans.pow_array(F32, F64, F64, True, False)) == "PdP"
    assert _chars(plans.pow_array(F64, F32, F64, False, True)) == "dPP"
    assert _chars(plans.arange(I32)) == "Pii"


def test_choices_the_original_makes():
    assert plans.unary_func("sqrt", F32, F64).name == "sqrt_kernel"
    assert plans.unary_func("pycuda::abs", C64, F32).name == "pycuda__abs_kernel"
    assert plans.axpbyz(F32, F32, F32, x_is_scalar=True).operation.count("x[0]") == 1
    assert "y[0]" in plans.binary_op(F32, F32, F32, "-", y_is_scalar=True).operation
    # real operands of complex arithmetic are cast to the complex type's real type
    assert "((float) x[i])" in plans.axpbyz(F32, C64, C64).operation
    assert "((double) x[i])" in plans.binary_op(F32, C128, C128, "*").operation
    assert "powf(" in plans.pow_array(F32, F32, F32, True, True).operation
    assert "powf(" not in plans.pow_array(F32, F64, F64, True, True).operation
    funcs = {
        (F32, F32, F32): "fmaxf", (F32, I32, F32): "fmaxf", (F64, F32, F64): "fmax",
        (I32, I32, I32): "max", (U8, U8, U8): "max",
    }  # fmt: skip
    for dtypes, func in funcs.items():
        assert plans.binary_minmax("max", *dtypes, False).operation.startswith(f"z[i] = {func}(")
    assert plans.binary_minmax("min", F32, F32, F32, False).name == "fminf_kernel"


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="array base, exponent or both"):
        plans.pow_array(F32, F32, F32, False, False)
    with pytest.raises(ValueError, match="'max' or 'min'"):
        plans.binary_minmax("maximum", F32, F32, F32, False)
    with pytest.raises(TypeError, match="complex"):
        plans.binary_minmax("max", C64, C64, C64, False)
    with pytest.raises(TypeError, match="float32 or float64"):
        plans.fmod(I32)
    with pytest.raises(ValueError, match="vec_count"):
        plans.take(F32, I32, 0)
    with pytest.raises(ValueError, match="at least one summand"):
        plans.linear_combination([], F32)


# }}}


# {{{ every kernel's source compiles (NVRTC, no GPU needed)

COMPILE_CASES = [
    *[("get_take_kernel", (dt, I32, 2)) for dt in (F32, F64, C64, C128, I32, U8)],
    ("get_take_kernel", (F32, I64)),
    *[("get_take_put_kernel", (dt, I32, True, 2)) for dt in (F32, F64, C64, I32)],
    ("get_take_put_kernel", (C128, I64, False)),
    *[("get_put_kernel", (dt, I64, 2)) for dt in (F32, C128, I32, F16)],
    ("get_copy_kernel", (C128, C64)), ("get_copy_kernel", (C64, F64)),
    ("get_copy_kernel", (F16, F32)), ("get_copy_kernel", (I32, F64)),
    ("get_linear_combination_kernel", (((True, F32, F32), (False, F64, F64)), F64)),
    ("get_linear_combination_kernel", (((True, C64, C64), (False, C64, F32)), C64)),
    ("get_linear_combination_kernel", (((True, C128, C128), (True, I32, F64)), C128)),
    *[("get_axpbyz_kernel", dts) for dts in [(F32, F32, F32), (F32, F64, F64), (C64, F32, C64),
                                             (F32, C128, C128), (I32, I32, F32), (F16, F16, F16)]],
    ("get_axpbyz_kernel", (F32, F32, F32, True, False)),
    ("get_axpbyz_kernel", (C64, C64, C64, False, True)),
    *[("get_axpbz_kernel", dts) for dts in [(F32, F32), (I32, F64), (F32, C64), (C128, C128)]],
    *[("get_binary_op_kernel", (*dts, op)) for dts in [(F32, F32, F32), (I32, I32, F64),
                                                       (C64, F32, C64), (F32, C128, C128)]
      for op in ("+", "/")],
    ("get_binary_op_kernel", (F32, F64, B, "<")), ("get_binary_op_kernel", (I32, I32, I32, "%")),
    ("get_binary_op_kernel", (F64, F64, F64, "*", True, False)),
    *[("get_scalar_op_kernel", (*dts, op)) for dts in [(F32, F32, F32), (C64, F64, C64),
                                                       (I32, I32, I32)] for op in ("*", "-")],
    ("get_scalar_op_kernel", (I32, F64, B, "==")),
    *[("get_rdivide_elwise_kernel", dts) for dts in [(F32, F32), (I32, F64), (F32, C64)]],
    ("get_binary_func_kernel", ("atan2", F32, F32, F32)),
    ("get_binary_func_kernel", ("pow", F64, F64, F64)),
    ("get_binary_func_scalar_kernel", ("fmodf", F32, F32, F32)),
    *[("get_binary_minmax_kernel", (func, *dts, scalar)) for func in ("max", "min")
      for dts in [(F32, F32, F32), (F32, F64, F64), (I32, I32, I32), (I64, I32, I64),
                  (U8, U8, U8), (F16, F16, F16)] for scalar in (False, True)],
    *[("get_pow_array_kernel", (*dts, base, exp)) for dts in [(F32, F32, F32), (F64, F32, F64),
                                                              (I32, I32, I32), (C64, C64, C64),
                                                              (C128, F64, C128)]
      for base, exp in [(True, True), (False, True), (True, False)]],
    *[(name, ()) for name in ("get_fmod_kernel", "get_modf_kernel", "get_frexp_kernel",
                              "get_ldexp_kernel")],
    *[(name, (F64,)) for name in ("get_fmod_kernel", "get_modf_kernel", "get_frexp_kernel",
                                  "get_ldexp_kernel")],
    ("get_unary_func_kernel", ("sqrt", F32)), ("get_unary_func_kernel", ("exp", C128)),
    ("get_unary_func_kernel", ("pycuda::abs", C64, F32)),
    *[("get_fill_kernel", (dt,)) for dt in (F32, F64, C64, I32, B, F16)],
    *[("get_reverse_kernel", (dt,)) for dt in (F32, C128, I64, U8)],
    *[(name, (dt, plans._get_real_dtype(dt))) for name in ("get_real_kernel", "get_imag_kernel")
      for dt in (C64, C128, F32)],
    ("get_conj_kernel", (C64, C64)), ("get_conj_kernel", (C128,)), ("get_conj_kernel", (F64, F64)),
    *[("get_arange_kernel", (dt,)) for dt in (F32, F64, I32, I64, C64)],
    *[(name, (crit, dt)) for name in ("get_if_positive_kernel", "get_where_kernel")
      for crit, dt in [(I32, F32), (F32, C64), (B, I64), (F16, F64)]],
    ("get_where_kernel", (C64, F32)),
    *[("get_logical_not_kernel", (dt, B)) for dt in (F32, I32, C64, F16, B)],
]  # fmt: skip


def test_compile_cases_cover_every_factory():
    assert {name for name, _ in COMPILE_CASES} == set(ORIGINAL_PARAMETERS)


@pytest.mark.parametrize(
    ("name", "args"),
    COMPILE_CASES,
    ids=[f"{name[4:-7]}-{i}" for i, (name, _) in enumerate(COMPILE_CASES)],
)
def test_kernel_source_compiles(name, args):
    plan = _plan_builder(name)(*args)
    source = plan.source()
    assert f'extern "C" __global__ void {plan.name}(' in source
    for texref in plan.texrefs:
        assert f"> {texref};" in source
    cubin = cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)
    assert len(cubin) > 0


# }}}


# {{{ launched as client code launches them: on the GPU, and on the host stand-in


class _Launcher:
    """Runs a factory's function as client code does: ``prepared_call(grid, block, *args,
    n)`` with ``gpuarray.splay(n)`` (the host stand-in ignores the grid: its own is tiny)."""

    def __init__(self, device):
        self.host = isinstance(device, host_device.HostDevice)

    def config(self, n):
        if self.host:
            return (1, 1), (1, 1, 1)
        from pycuda import gpuarray

        return gpuarray.splay(n)

    def __call__(self, func, n, *args, stream=None):
        from pycuda.gpuarray import GPUArray

        values = [a.gpudata if isinstance(a, GPUArray) else a for a in args]
        grid, block = self.config(n)
        if stream is None:
            func.prepared_call(grid, block, *values, n)
        else:
            func.prepared_async_call(grid, block, stream, *values, n)


def _forget_kernels():
    for name in _elementwise_factories.__all__:
        if name != "get_linear_combination_kernel":  # it calls the memoized one below
            getattr(_elementwise_factories, name).clear_cache()
    _elementwise_factories._linear_combination_kernel.clear_cache()


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def launch(request, monkeypatch):
    """A :class:`_Launcher` on the GPU (``ctx``), or on the host stand-in."""
    if request.param == "gpu":
        yield _Launcher(request.getfixturevalue("ctx"))
        return
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    device = host_device.install(monkeypatch)
    host_device.install_elementwise(monkeypatch, device)
    _forget_kernels()  # kernels of the host and of no context share the key of "no context"
    yield _Launcher(device)
    _forget_kernels()


SIZES = (1, 13, 1000, 70_001)  # none a multiple of a block


def _random(rng, n, dtype, low=-4.0, high=4.0):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(low, high, n) + 1j * rng.uniform(low, high, n)).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(dtype)
    if dtype.kind in "iu":
        low = max(low, 0) if dtype.kind == "u" else low
        return rng.integers(int(low), int(high), n).astype(dtype)
    return rng.uniform(low, high, n).astype(dtype)


def _check(actual, expected, dtype, ulps=4, atol=0.0):
    """Equal for exact dtypes (bool, integers), within ``ulps`` of the dtype's precision else."""
    dtype = np.dtype(dtype)
    if dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        rtol = {"e": 1e-3, "f": 1e-6, "F": 1e-6}.get(dtype.char, 1e-12)
        np.testing.assert_allclose(actual, expected, rtol=ulps * rtol, atol=atol)


def _cancellation(dtype, *terms):
    """An absolute tolerance for a sum of ``terms``: a few ulps of its largest term (a sum
    that nearly cancels has a large relative error, with or without fused multiply-adds)."""
    eps = np.finfo(np.dtype(dtype).char.lower() if np.dtype(dtype).kind == "c" else dtype).eps
    return 4 * eps * max(float(np.max(np.abs(t))) for t in terms)


def _gpu(*arrays):
    from pycuda import gpuarray

    return [gpuarray.to_gpu(a) for a in arrays]


def _empty(n, dtype):
    from pycuda import gpuarray

    return gpuarray.empty(n, dtype)


def test_fill_arange_reverse(launch):
    rng = np.random.default_rng(1)
    for dtype in (F32, F64, C64, I32, U8, I64):
        for n in SIZES:
            z = _empty(n, dtype)
            value = _random(rng, 1, dtype)[0]
            launch(elementwise.get_fill_kernel(dtype), n, value, z)
            np.testing.assert_array_equal(z.get(), np.full(n, value, dtype))
            if dtype.kind != "c":
                launch(elementwise.get_arange_kernel(dtype), n, z, 3, 2)
                np.testing.assert_array_equal(z.get(), (3 + 2 * np.arange(n)).astype(dtype))
            (y,) = _gpu(_random(rng, n, dtype))
            launch(elementwise.get_reverse_kernel(dtype), n, y, z, stream=None)
            np.testing.assert_array_equal(z.get(), y.get()[::-1])
    z = _empty(100, C64)
    launch(elementwise.get_arange_kernel(C64), 100, z, 1 + 2j, 0.5 - 1j)
    np.testing.assert_allclose(z.get(), (1 + 2j) + np.arange(100) * (0.5 - 1j), rtol=1e-6)


@pytest.mark.parametrize(
    ("dtype_dest", "dtype_src"), [(F32, F32), (F64, F32), (C128, C64), (C64, F64), (I32, F64)]
)
def test_copy(launch, dtype_dest, dtype_src):
    rng = np.random.default_rng(2)
    for n in SIZES:
        src = _random(rng, n, dtype_src)
        (gsrc,) = _gpu(src)
        dest = _empty(n, dtype_dest)
        launch(elementwise.get_copy_kernel(dtype_dest, dtype_src), n, dest, gsrc)
        np.testing.assert_array_equal(dest.get(), src.astype(dtype_dest))


AXPBYZ_DTYPES = [(F32, F32, F32), (F32, F64, F64), (F64, F64, F64), (C64, F32, C64),
                 (F32, C128, C128), (C64, C64, C64), (I32, I32, I32)]  # fmt: skip


@pytest.mark.parametrize(("dtype_x", "dtype_y", "dtype_z"), AXPBYZ_DTYPES)
def test_axpbyz(launch, dtype_x, dtype_y, dtype_z):
    rng = np.random.default_rng(3)
    for n in SIZES:
        x, y = _random(rng, n, dtype_x), _random(rng, n, dtype_y)
        a, b = _random(rng, 1, dtype_x)[0], _random(rng, 1, dtype_y)[0]
        gx, gy = _gpu(x, y)
        z = _empty(n, dtype_z)
        launch(elementwise.get_axpbyz_kernel(dtype_x, dtype_y, dtype_z), n, a, gx, b, gy, z)
        expected = (a * x.astype(dtype_z) + b * y.astype(dtype_z)).astype(dtype_z)
        _check(z.get(), expected, dtype_z, atol=1e-5)
    # a 0-d GPUArray for x: its one element for every i
    n = 1000
    x0, y = _random(rng, 1, dtype_x), _random(rng, n, dtype_y)
    gx0, gy = _gpu(x0.reshape(()), y)
    z = _empty(n, dtype_z)
    func = elementwise.get_axpbyz_kernel(dtype_x, dtype_y, dtype_z, True, False)
    launch(func, n, 2, gx0, 3, gy, z)
    expected = 2 * x0.astype(dtype_z)[0] + 3 * y.astype(dtype_z)
    _check(z.get(), expected.astype(dtype_z), dtype_z)


@pytest.mark.parametrize(("dtype_x", "dtype_z"), [(F32, F32), (I32, F64), (F32, C64), (C128, C128)])
def test_axpbz_and_rdivide(launch, dtype_x, dtype_z):
    rng = np.random.default_rng(4)
    for n in SIZES:
        x = _random(rng, n, dtype_x, 1, 5)
        (gx,) = _gpu(x)
        z = _empty(n, dtype_z)
        a, b = np.array([2.5, -1.5]).astype(dtype_z)
        launch(elementwise.get_axpbz_kernel(dtype_x, dtype_z), n, a, gx, b, z)
        _check(z.get(), a * x.astype(dtype_z) + b, dtype_z)
        launch(elementwise.get_rdivide_elwise_kernel(dtype_x, dtype_z), n, gx, a, z)
        _check(z.get(), a / x.astype(dtype_z), dtype_z)


BINARY_CASES = [
    (F32, F32, F32, "+"), (F32, F64, F64, "*"), (I32, I32, F32, "/"), (I32, I32, I32, "-"),
    (C64, F32, C64, "*"), (F64, C128, C128, "/"), (F32, F64, B, "<"), (I32, I32, B, "=="),
]  # fmt: skip


@pytest.mark.parametrize(("dtype_x", "dtype_y", "dtype_z", "op"), BINARY_CASES)
def test_binary_and_scalar_op(launch, dtype_x, dtype_y, dtype_z, op):
    import operator

    py_op = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
             "<": operator.lt, "==": operator.eq}[op]  # fmt: skip
    compute = np.result_type(dtype_x, dtype_y) if dtype_z.kind == "b" else dtype_z
    rng = np.random.default_rng(5)
    for n in SIZES:
        x, y = _random(rng, n, dtype_x, 1, 4), _random(rng, n, dtype_y, 1, 4)
        gx, gy = _gpu(x, y)
        z = _empty(n, dtype_z)
        launch(elementwise.get_binary_op_kernel(dtype_x, dtype_y, dtype_z, op), n, gx, gy, z)
        expected = py_op(x.astype(compute), y.astype(compute)).astype(dtype_z)
        _check(z.get(), expected, dtype_z)
        a = y[0]
        launch(elementwise.get_scalar_op_kernel(dtype_x, dtype_y, dtype_z, op), n, gx, a, z)
        expected = py_op(x.astype(compute), compute.type(a)).astype(dtype_z)
        _check(z.get(), expected, dtype_z)
    # y a 0-d GPUArray
    x, y = _random(rng, 500, dtype_x, 1, 4), _random(rng, 1, dtype_y, 1, 4)
    gx, gy = _gpu(x, y.reshape(()))
    z = _empty(500, dtype_z)
    func = elementwise.get_binary_op_kernel(dtype_x, dtype_y, dtype_z, op, y_is_scalar=True)
    launch(func, 500, gx, gy, z)
    expected = py_op(x.astype(compute), y.astype(compute)[0]).astype(dtype_z)
    _check(z.get(), expected, dtype_z)


def test_binary_func_and_minmax(launch):
    rng = np.random.default_rng(6)
    for n in SIZES:
        x, y = _random(rng, n, F32), _random(rng, n, F32)
        gx, gy = _gpu(x, y)
        z = _empty(n, F32)
        launch(elementwise.get_binary_func_kernel("atan2f", F32, F32, F32), n, gx, gy, z)
        np.testing.assert_allclose(z.get(), np.arctan2(x, y), rtol=1e-5, atol=1e-6)
        launch(elementwise.get_binary_func_scalar_kernel("atan2f", F32, F32, F32), n, gx, 0.5, z)
        np.testing.assert_allclose(z.get(), np.arctan2(x, np.float32(0.5)), rtol=1e-5, atol=1e-6)
    cases = [(F32, F32, F32), (F32, F64, F64), (I32, F32, F32)]
    if not launch.host:  # the integer max/min are CUDA's, which the host compiler lacks
        cases += [(I32, I32, I32), (U8, U8, U8), (I64, I32, I64)]
    for dtype_x, dtype_y, dtype_z in cases:
        for func, np_func in (("max", np.maximum), ("min", np.minimum)):
            n = 1000
            x, y = _random(rng, n, dtype_x, 0, 50), _random(rng, n, dtype_y, 0, 50)
            gx, gy = _gpu(x, y)
            z = _empty(n, dtype_z)
            kernel = elementwise.get_binary_minmax_kernel(func, dtype_x, dtype_y, dtype_z, False)
            launch(kernel, n, gx, gy, z)
            np.testing.assert_array_equal(z.get(), np_func(x, y).astype(dtype_z))
            kernel = elementwise.get_binary_minmax_kernel(func, dtype_x, dtype_y, dtype_z, True)
            launch(kernel, n, gx, y[3], z)
            np.testing.assert_array_equal(z.get(), np_func(x, y[3]).astype(dtype_z))


POW_DTYPES = [(F32, F32, F32), (F64, F32, F64), (I32, I32, I32), (C64, C64, C64)]


@pytest.mark.parametrize(("dtype_x", "dtype_y", "dtype_z"), POW_DTYPES)
def test_pow_array(launch, dtype_x, dtype_y, dtype_z):
    rng = np.random.default_rng(7)
    ulps = {"f": 10, "d": 4, "F": 100, "i": 0}[dtype_z.char]
    for n in SIZES:
        x, y = _random(rng, n, dtype_x, 1, 3), _random(rng, n, dtype_y, 0, 3)
        gx, gy = _gpu(x, y)
        z = _empty(n, dtype_z)
        xc, yc = x.astype(dtype_z), y.astype(dtype_z)
        func = elementwise.get_pow_array_kernel(dtype_x, dtype_y, dtype_z, True, True)
        launch(func, n, gx, gy, z)
        _check(z.get(), (xc**yc).astype(dtype_z), dtype_z, ulps)
        func = elementwise.get_pow_array_kernel(dtype_x, dtype_y, dtype_z, False, True)
        launch(func, n, x[0], gy, z)
        _check(z.get(), (xc[0] ** yc).astype(dtype_z), dtype_z, ulps)
        func = elementwise.get_pow_array_kernel(dtype_x, dtype_y, dtype_z, True, False)
        launch(func, n, gx, y[0], z)
        _check(z.get(), (xc ** yc[0]).astype(dtype_z), dtype_z, ulps)


@pytest.mark.parametrize("dtype", [None, F64])
def test_fmod_modf_frexp_ldexp(launch, dtype):
    args = () if dtype is None else (dtype,)
    dtype = F32 if dtype is None else dtype
    rng = np.random.default_rng(8)
    for n in SIZES:
        x, m = _random(rng, n, dtype, -50, 50), _random(rng, n, dtype, 1, 7)
        gx, gm = _gpu(x, m)
        z, w = _empty(n, dtype), _empty(n, dtype)
        launch(elementwise.get_fmod_kernel(*args), n, gx, gm, z)
        np.testing.assert_array_equal(z.get(), np.fmod(x, m))  # fmod is exact
        launch(elementwise.get_modf_kernel(*args), n, gx, z, w)
        frac, whole = np.modf(x)
        np.testing.assert_array_equal(z.get(), whole)
        np.testing.assert_array_equal(w.get(), frac)
        launch(elementwise.get_frexp_kernel(*args), n, gx, z, w)
        significand, exponent = np.frexp(x)
        np.testing.assert_array_equal(z.get(), significand)
        np.testing.assert_array_equal(w.get(), exponent.astype(dtype))
        launch(elementwise.get_ldexp_kernel(*args), n, z, w, gm)
        np.testing.assert_array_equal(gm.get(), x)


def test_unary_real_imag_conj(launch):
    rng = np.random.default_rng(9)
    for n in SIZES:
        x = _random(rng, n, F32, 0, 9)
        (gx,) = _gpu(x)
        z, w = _empty(n, F32), _empty(n, F64)
        launch(elementwise.get_unary_func_kernel("sqrtf", F32), n, gx, z)
        np.testing.assert_allclose(z.get(), np.sqrt(x), rtol=1e-6)
        launch(elementwise.get_unary_func_kernel("sqrt", F32, F64), n, gx, w)
        np.testing.assert_allclose(w.get(), np.sqrt(x.astype(F64)), rtol=1e-6)
        for dtype in (C64, C128):
            real_dtype = elementwise._get_real_dtype(dtype)
            c = _random(rng, n, dtype)
            (gc,) = _gpu(c)
            r, out = _empty(n, real_dtype), _empty(n, dtype)
            launch(elementwise.get_real_kernel(dtype, real_dtype), n, gc, r)
            np.testing.assert_array_equal(r.get(), c.real)
            launch(elementwise.get_imag_kernel(dtype, real_dtype), n, gc, r)
            np.testing.assert_array_equal(r.get(), c.imag)
            launch(elementwise.get_conj_kernel(dtype, dtype), n, gc, out)
            np.testing.assert_array_equal(out.get(), np.conj(c))
            launch(elementwise.get_unary_func_kernel("pycuda::abs", dtype, real_dtype), n, gc, r)
            _check(r.get(), np.abs(c), real_dtype)


@pytest.mark.parametrize(("crit_dtype", "dtype"), [(I32, F32), (F32, C64), (B, I64), (F64, F64)])
def test_if_positive_where_logical_not(launch, crit_dtype, dtype):
    rng = np.random.default_rng(10)
    for n in SIZES:
        crit = _random(rng, n, crit_dtype, -2, 3)
        then_, else_ = _random(rng, n, dtype), _random(rng, n, dtype)
        gcrit, gthen, gelse = _gpu(crit, then_, else_)
        result = _empty(n, dtype)
        launch(elementwise.get_if_positive_kernel(crit_dtype, dtype), n, gcrit, gthen, gelse,
               result)  # fmt: skip
        np.testing.assert_array_equal(result.get(), np.where(crit > 0, then_, else_))
        launch(elementwise.get_where_kernel(crit_dtype, dtype), n, gcrit, gthen, gelse, result)
        np.testing.assert_array_equal(result.get(), np.where(crit != 0, then_, else_))
        out = _empty(n, B)
        launch(elementwise.get_logical_not_kernel(crit_dtype, B), n, gcrit, out)
        np.testing.assert_array_equal(out.get(), np.logical_not(crit))


@pytest.mark.parametrize("dtype", [F32, C128, I64])
def test_put(launch, dtype):
    rng = np.random.default_rng(11)
    for n in SIZES:
        dest_idx = rng.permutation(n + 5)[:n].astype(I64)
        src0, src1 = _random(rng, n, dtype), _random(rng, n, dtype)
        gidx, gsrc0, gsrc1 = _gpu(dest_idx, src0, src1)
        dest0, dest1 = _gpu(np.zeros(n + 5, dtype), np.zeros(n + 5, dtype))
        func = elementwise.get_put_kernel(dtype, I64, 2)
        launch(func, n, gidx, dest0, dest1, gsrc0, gsrc1)
        for dest, src in ((dest0, src0), (dest1, src1)):
            expected = np.zeros(n + 5, dtype)
            expected[dest_idx] = src
            np.testing.assert_array_equal(dest.get(), expected)


def test_linear_combination_of_host_scalars(launch):
    rng = np.random.default_rng(12)
    descriptors = ((False, F32, F32), (False, F64, F64), (False, F32, F64))
    func, texrefs = elementwise.get_linear_combination_kernel(descriptors, F64)
    assert texrefs == []
    assert elementwise.get_linear_combination_kernel(list(descriptors), F64)[0] is func
    for n in SIZES:
        xs = [_random(rng, n, d) for _, _, d in descriptors]
        gxs = _gpu(*xs)
        z = _empty(n, F64)
        launch(func, n, 2.0, gxs[0], -0.5, gxs[1], 3.0, gxs[2], z)
        expected = 2.0 * xs[0] - 0.5 * xs[1] + 3.0 * xs[2]
        atol = _cancellation(F64, 2.0 * xs[0], 0.5 * xs[1], 3.0 * xs[2])
        _check(z.get(), expected, F64, atol=atol)


def test_kernels_are_memoized(launch):
    assert elementwise.get_fill_kernel(F32) is elementwise.get_fill_kernel(F32)
    assert elementwise.get_fill_kernel(F32) is not elementwise.get_fill_kernel(F64)
    axpbyz = elementwise.get_axpbyz_kernel(F32, F32, F32)
    assert elementwise.get_axpbyz_kernel(F32, F32, F32) is axpbyz
    assert elementwise.get_axpbyz_kernel(F32, F32, F32, True) is not axpbyz


def test_generate_stride_kernel_and_types(launch):
    kernel = elementwise.ElementwiseKernel("float a, float *x", "x[i] = a * i", "ramp")
    mod, func, arguments = kernel.generate_stride_kernel_and_types(False)
    assert [a.name for a in arguments] == ["a", "x", "n"]
    assert [a.name for a in kernel.arguments] == ["a", "x"]  # the kernel's own list is kept
    assert kernel.generate_stride_kernel_and_types(False)[1] is func
    (x,) = _gpu(np.zeros(50, F32))
    launch(func, 50, 2.0, x)
    np.testing.assert_array_equal(x.get(), 2 * np.arange(50, dtype=F32))
    _, ranged, arguments = kernel.generate_stride_kernel_and_types(True)
    assert [a.name for a in arguments] == ["a", "x", "start", "stop", "step"]
    grid, block = launch.config(50)
    ranged.prepared_call(grid, block, 1.0, x.gpudata, 10, 20, 5)
    expected = 2 * np.arange(50, dtype=F32)
    expected[[10, 15]] = [10, 15]
    np.testing.assert_array_equal(x.get(), expected)


# }}}


# {{{ texture kernels, GPU only


def _bind(ary, texref):
    ary.bind_to_texref_ext(texref, allow_double_hack=True, allow_complex_hack=True)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [F32, F64, C64, C128, I32, U8])
def test_take_kernel(ctx, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(13)
    src0, src1 = _random(rng, 777, dtype, 0, 100), _random(rng, 777, dtype, 0, 100)
    gsrc0, gsrc1 = _gpu(src0, src1)
    func, texrefs = elementwise.get_take_kernel(dtype, I32, 2)
    assert len(texrefs) == 2
    assert elementwise.get_take_kernel(dtype, I32, 2)[0] is func
    _bind(gsrc0, texrefs[0])
    _bind(gsrc1, texrefs[1])
    for n in SIZES:
        idx = rng.integers(0, 777, n).astype(I32)
        (gidx,) = _gpu(idx)
        dest0, dest1 = _empty(n, dtype), _empty(n, dtype)
        grid, block = gpuarray.splay(n)
        func.prepared_call(grid, block, gidx.gpudata, dest0.gpudata, dest1.gpudata, n)
        np.testing.assert_array_equal(dest0.get(), src0[idx])
        np.testing.assert_array_equal(dest1.get(), src1[idx])


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [F32, F64, C64, I32])
@pytest.mark.parametrize("with_offsets", [False, True])
def test_take_put_kernel(ctx, dtype, with_offsets):
    import pycuda.driver as drv
    from pycuda import gpuarray

    rng = np.random.default_rng(14)
    src0, src1 = _random(rng, 900, dtype, 0, 100), _random(rng, 900, dtype, 0, 100)
    gsrc0, gsrc1 = _gpu(src0, src1)
    func, texrefs = elementwise.get_take_put_kernel(dtype, I32, with_offsets, 2)
    _bind(gsrc0, texrefs[0])
    _bind(gsrc1, texrefs[1])
    offsets = (100, 7) if with_offsets else (0, 0)
    stream = drv.Stream()
    for n in SIZES[:3]:
        src_idx = rng.integers(0, 700, n).astype(I32)
        dest_idx = rng.permutation(n + 3)[:n].astype(I32)
        gsrc_idx, gdest_idx = _gpu(src_idx, dest_idx)
        dest0, dest1 = _gpu(np.zeros(n + 3, dtype), np.zeros(n + 3, dtype))
        args = [gdest_idx.gpudata, gsrc_idx.gpudata, dest0.gpudata, dest1.gpudata]
        if with_offsets:
            args += list(offsets)
        grid, block = gpuarray.splay(n)
        func.prepared_async_call(grid, block, stream, *args, n)
        stream.synchronize()
        for dest, src, offset in ((dest0, src0, offsets[0]), (dest1, src1, offsets[1])):
            expected = np.zeros(n + 3, dtype)
            expected[dest_idx] = src[src_idx + offset]
            np.testing.assert_array_equal(dest.get(), expected)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [F32, F64, C64])
def test_linear_combination_with_a_gpu_scalar(ctx, dtype):
    from pycuda import gpuarray

    rng = np.random.default_rng(15)
    descriptors = ((True, dtype, dtype), (False, dtype, dtype))
    func, texrefs = elementwise.get_linear_combination_kernel(descriptors, dtype)
    assert len(texrefs) == 1
    a0 = np.array([2.5 - (0.5j if dtype.kind == "c" else 0)]).astype(dtype)
    (ga0,) = _gpu(a0)
    _bind(ga0, texrefs[0])
    for n in SIZES:
        x0, x1 = _random(rng, n, dtype), _random(rng, n, dtype)
        gx0, gx1 = _gpu(x0, x1)
        z = _empty(n, dtype)
        grid, block = gpuarray.splay(n)
        func.prepared_async_call(grid, block, None, gx0.gpudata, -1.5, gx1.gpudata, z.gpudata, n)
        atol = _cancellation(dtype, a0[0] * x0, 1.5 * x1)
        _check(z.get(), a0[0] * x0 - 1.5 * x1, dtype, atol=atol)


@pytest.mark.gpu
def test_a_new_context_compiles_its_own(ctx):
    import pycuda.driver as drv

    in_primary = elementwise.get_fill_kernel(F32)
    other = drv.Device(0).make_context()
    try:
        assert elementwise.get_fill_kernel(F32) is not in_primary
        assert elementwise.get_fill_kernel(F32) is elementwise.get_fill_kernel(F32)
    finally:
        drv.Context.pop()
    assert elementwise.get_fill_kernel(F32) is in_primary
    elementwise.get_fill_kernel.clear_cache()  # it holds the other context's kernel
    other.detach()


# }}}


def test_integer_textures_are_fetched_in_their_own_type():
    # take of integer data reads through fp_tex1Dfetch, which must not go through float
    # (int32 values past 2**24 would be rounded).
    types = ["int", "unsigned int", "short", "unsigned short", "signed char", "unsigned char",
             "float"]  # fmt: skip
    checks = "\n".join(
        f"texture<{t}, 1, cudaReadModeElementType> tex_{k};\n"
        f'static_assert(same<decltype(fp_tex1Dfetch(tex_{k}, 0)), {t}>::value, "{t}");'
        for k, t in enumerate(types)
    )
    source = f"""#include <pycuda-helpers.hpp>
template <class A, class B> struct same {{ static const bool value = false; }};
template <class A> struct same<A, A> {{ static const bool value = true; }};
{checks}
"""
    assert len(cuda_compile(source, arch="sm_90", no_extern_c=True, cache_dir=False)) > 0
