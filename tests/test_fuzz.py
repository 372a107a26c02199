"""Fuzzing every entry point: wrong arguments never crash, hang or raise undocumented errors.

Two kinds of test:
- tests/fuzz_calls.py calls every public function and method of driver, compiler, gpuarray,
  cumath, elementwise, reduction, scan, curandom and tools with hostile arguments, in a
  subprocess (a crash or hang fails the test with the call that did it). CPU: without a driver
  and against the fake libcuda (tests/fake_libcuda.py), with and without a current context. GPU:
  the same on the real driver, >= 10^5 calls.
- Property tests (hypothesis) of GPUArray's arithmetic, cumath and reductions against NumPy on
  odd operands (empty, 0-d, non-contiguous, broadcast, mismatched, wrong dtypes, huge or NaN
  scalars): the result is NumPy's, or both raise. CPU: on the host stand-in
  (tests/host_device.py); GPU: on the device.

The number of calls made goes into the terminal summary ("fuzz: N calls ...") and, where $OUT
is set, into $OUT/fuzz-summary.json.
"""

from __future__ import annotations

import json
import operator
import os
import subprocess
import sys
import warnings
from pathlib import Path

import host_device
import numpy as np
import pytest
from child_process import run_python

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import pycuda  # noqa: E402
import pycuda.driver as drv  # noqa: E402
from pycuda import cumath, gpuarray  # noqa: E402

HERE = Path(__file__).resolve().parent
NOWHERE = "/nonexistent/pycuda-test/libcuda.so.1"
COUNTS: dict[str, int] = {}  # test -> calls made, for the summary (see conftest.py)


def _record(name: str, calls: int) -> None:
    COUNTS[name] = COUNTS.get(name, 0) + calls
    out = os.environ.get("OUT")
    if out and os.path.isdir(out):
        with open(os.path.join(out, "fuzz-summary.json"), "w") as f:
            json.dump({"total_calls": sum(COUNTS.values()), "by_test": COUNTS}, f, indent=1)


# {{{ every entry point, in a subprocess


def test_every_public_name_is_fuzzed_or_excluded_with_a_reason():
    import fuzz_calls

    targets = fuzz_calls.public_targets()
    names = {t[0] for t in targets}
    assert len(targets) > 400, len(targets)
    for module in fuzz_calls.MODULES:
        assert any(n.startswith(module + ".") for n in names), module
    # Exclusions name things that exist, and say why.
    for name, reason in fuzz_calls.EXCLUDED.items():
        module, _, rest = name.partition(".")
        obj = __import__(module)
        for part in name.split(".")[1:]:
            obj = getattr(obj, part)
        assert len(reason) > 20, name
    # Methods are reached: the pool has an instance of these classes.
    for method in ("pycuda.gpuarray.GPUArray.get", "pycuda.driver.Function.prepare"):
        assert method in names


def run_fuzz(
    state: str, tmp_path: Path, env: dict[str, str], examples: int, budget: float = 0.0
) -> dict:
    """Runs tests/fuzz_calls.py; fails with the last call logged if the process died."""
    out, log = tmp_path / "report.json", tmp_path / "calls.log"
    package_root = str(Path(pycuda.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    # (TMPDIR: what SourceModule(keep=True) keeps stays in the test's directory.)
    (tmp_path / "tmp").mkdir()
    env = dict(
        env, PYTHONPATH=path, PYCUDA_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path / "tmp")
    )
    cmd = [sys.executable, str(HERE / "fuzz_calls.py"), "--state", state]
    cmd += ["--examples", str(examples), "--out", str(out), "--log", str(log)]
    cmd += ["--budget", str(budget), "--timeout", "60"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    if proc.returncode != 0 or not out.exists():
        last = log.read_text(errors="replace").splitlines()[-3:] if log.exists() else []
        pytest.fail(
            f"the fuzzing process died (exit {proc.returncode}) on:\n  "
            + "\n  ".join(last)
            + f"\nstderr:\n{proc.stderr[-3000:]}"
        )
    # Nothing the calls made outlives the process (nanobind reports what does at exit).
    assert "nanobind: leaked" not in proc.stderr, proc.stderr[-3000:]
    report = json.loads(out.read_text())
    _record(f"{state} (every entry point)", report["calls"])
    print(
        f"fuzz[{state}]: {report['calls']} calls of {report['targets']} entry points in "
        f"{report['seconds']} s: {report['outcomes']}; {len(report['unclear'])} unclear messages"
    )
    for item in report["unclear"]:
        print("  unclear:", item["error"], "\n     from", item["call"][:200])
    return report


def assert_no_failures(report: dict) -> None:
    failures = report["failures"]
    assert not failures, "\n".join(f"{f['error']}\n    from {f['call']}" for f in failures)


NEVER_NVCC_PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
import fuzz_calls
from pycuda import compiler
from pycuda.driver import CompileError
fuzz_calls.never_start_nvcc()
try:
    compiler.compile("__global__ void f() {}", arch="sm_80", target="fatbin")  # nvcc's alone
except (CompileError, OSError) as e:  # as where nvcc is not installed
    print("refused:", "nvcc not found" in str(e))
"""


def test_the_fuzzer_never_starts_nvcc(tmp_path: Path):
    # Where nvcc is installed too: a fuzzed nvcc option (-o, --run) would write files or run
    # programs, and each run costs seconds (the GPU fuzzer ran past its time when it did).
    proc = run_python(NEVER_NVCC_PROBE, args=(str(HERE),), PYCUDA_CACHE_DIR=str(tmp_path / "c"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "refused: True", proc.stdout + proc.stderr[-2000:]


def test_fuzz_every_entry_point_without_a_driver(tmp_path: Path):
    report = run_fuzz("nodriver", tmp_path, dict(os.environ, PYCUDA_LIBCUDA=NOWHERE), 3, 30)
    assert report["calls"] > 5000
    assert_no_failures(report)


@pytest.fixture(scope="module")
def fake_env(fake_libcuda_so: Path) -> dict[str, str]:
    return dict(os.environ, PYCUDA_LIBCUDA=str(fake_libcuda_so))


@pytest.mark.parametrize("state", ["fake", "fake-nocontext"])
def test_fuzz_every_entry_point_on_the_fake_driver(state: str, fake_env, tmp_path: Path):
    report = run_fuzz(state, tmp_path, fake_env, 3, budget=30)
    assert report["calls"] > 5000
    assert_no_failures(report)


@pytest.mark.gpu
def test_fuzz_every_entry_point_on_the_gpu(tmp_path: Path):
    env = dict(os.environ)
    env.pop("PYCUDA_LIBCUDA", None)
    report = run_fuzz("gpu", tmp_path, env, 40, budget=120)
    assert report["calls"] >= 100_000
    assert_no_failures(report)


# }}}

# {{{ what the fuzzing found, fixed


def _identity(x):
    return x


class _NoWarps:
    """Has get_attribute, as a Function does, and answers 0 to everything."""

    def get_attribute(self, attr):
        return 0


def _findings():
    from pycuda import _curand_host, _texref, curandom, tools
    from pycuda.elementwise import ElementwiseKernel
    from pycuda.reduction import ReductionKernel
    from pycuda.scan import InclusiveScanKernel

    rows = [
        ("pagelocked_empty_like", drv.pagelocked_empty_like, (5,), TypeError, "NumPy array"),
        ("aligned_empty_like", drv.aligned_empty_like, (5,), TypeError, "NumPy array"),
        ("managed_zeros_like", drv.managed_zeros_like, (5,), TypeError, "NumPy array"),
        ("mem_alloc_like", drv.mem_alloc_like, (5,), TypeError, ".nbytes"),
        ("empty_like", gpuarray.empty_like, (5,), TypeError, "empty_like takes a GPUArray"),
        ("zeros_like", gpuarray.zeros_like, ((1, 2),), TypeError, "takes a GPUArray"),
        ("transpose", gpuarray.transpose, (5,), TypeError, "transpose takes a GPUArray"),
        ("reshape", gpuarray.reshape, (5, 2), TypeError, "reshape takes a GPUArray"),
        ("if_positive", gpuarray.if_positive, (5, 1, 2), TypeError, "criterion"),
        ("generator_source", curandom.generator_source, (5,), TypeError, "GeneratorSpec"),
        ("kernel_formats", curandom.kernel_formats, ("x",), TypeError, "GeneratorSpec"),
        ("cycled negative", _curand_host.cycled, (np.arange(3), -2), ValueError, "negative"),
        ("DeviceData", tools.DeviceData, (5,), TypeError, "Device"),
        ("DeviceData of a Function", tools.DeviceData, (_NoWarps(),), ValueError, "warp size"),
        ("OccupancyRecord", tools.OccupancyRecord, ((1,), 32), TypeError, "DeviceData"),
        ("memoize_method", tools.memoize_method, (5,), TypeError, "decorates a method"),
        ("register_dtype", tools.register_dtype, (np.float32, [5]), TypeError, "must be str"),
        ("np_to_array order", drv.np_to_array, (np.ones((2, 2), np.float32), 1), TypeError,
         "order must be a str"),
        ("bind_array_to_texref", drv.bind_array_to_texref, (None, [1]), TypeError,
         "texture reference"),
        ("bind_to_texref", _texref.bind_gpuarray_to_texref_plain, (np.zeros(4), 5), TypeError,
         "texture reference"),
        ("PointerHolderBase", lambda: drv.PointerHolderBase().get_pointer(), (),
         NotImplementedError, "must override"),
        ("int(PointerHolderBase)", lambda: int(drv.PointerHolderBase()), (),
         NotImplementedError, "must override"),
        ("Memcpy2D without a source", lambda: drv.Memcpy2D()(), (), drv.LogicError,
         "no source set"),
        ("aligned_empty_like(class)", drv.aligned_empty_like, (np.float32,), TypeError,
         "the class float32"),
        ("concatenate", gpuarray.concatenate, ([1, 2],), TypeError, "concatenate takes"),
        ("stack", gpuarray.stack, ([1, 2],), TypeError, "stack takes"),
        ("multi_put", gpuarray.multi_put, ([1], 2), TypeError, "multi_put takes"),
        ("multi_take_put", gpuarray.multi_take_put, ([], 1, 2), TypeError, "dest_indices"),
        ("scan of a size-0 dtype", lambda: InclusiveScanKernel(np.dtype([]), "a+b"), (),
         TypeError, "no size"),
        ("ReductionKernel arguments", lambda: ReductionKernel(np.float32, "0", "a+b",
         arguments=[1]), (), TypeError, "VectorArg/ScalarArg"),
        ("aligned_zeros_like(object array)", drv.aligned_zeros_like,
         (np.array([object(), 1], dtype=object),), TypeError, "cannot hold Python objects"),
        ("aligned_empty(object)", drv.aligned_empty, (3, object), TypeError,
         "cannot hold Python objects"),
        ("pagelocked_empty(object)", drv.pagelocked_empty, (3, object), TypeError,
         "cannot hold Python objects"),
        ("memcpy_dtoh into an object array", drv.memcpy_dtoh, (np.empty(2, object), 4096),
         TypeError, "holds Python objects"),
        ("memcpy_htod from an object array", drv.memcpy_htod,
         (4096, np.array([object(), 1], dtype=object)), TypeError, "holds Python objects"),
        ("register_host_memory(object array)", drv.register_host_memory,
         (np.empty(2, object),), TypeError, "holds Python objects"),
        ("ElementwiseKernel arguments", ElementwiseKernel, (5, "x[i] = 1"), TypeError,
         "C declaration string"),
        ("memoized with a list", tools.context_dependent_memoize(_identity), ([1],), TypeError,
         r"_identity\(\) takes hashable arguments"),
        ("get_or_register_dtype", tools.get_or_register_dtype, (5,), TypeError, "C type names"),
        ("philox key", curandom.philox_stream, ({}, 4), TypeError, "pair of ints"),
        ("gpuarray_to_array", drv.gpuarray_to_array, (np.ones(3), "C"), TypeError,
         "takes a GPUArray"),
        # (An int past 64 bits escaped as RuntimeError: std::bad_cast.)
        ("StreamCapture mode past 64 bits", drv.StreamCapture, (None, 2**70), ValueError,
         "capture mode must be 0"),
    ]  # fmt: skip
    return [pytest.param(fn, args, exc, text, id=name) for name, fn, args, exc, text in rows]


@pytest.mark.parametrize("fn, args, exc, text", _findings())
def test_fuzz_findings_raise_clear_errors(fn, args, exc, text):
    with pytest.raises(exc, match=text):
        fn(*args)


def test_binary_functions_refuse_an_out_that_is_not_an_array(fake_libcuda_so):
    # (The GPU fuzzer's finding: out=() reached out.dtype, an AttributeError from inside.)
    import fake_libcuda

    fake_libcuda.run_on_fake(
        fake_libcuda_so,
        """
        from pycuda import cumath, gpuarray

        a = gpuarray.to_gpu(np.ones(4, np.float32))
        for f in (gpuarray.maximum, gpuarray.minimum, cumath.arctan2, cumath.hypot, cumath.power):
            try:
                f(a, np.ones(4, np.float32), ())
            except TypeError as exc:
                assert "out must be a GPUArray, got tuple" in str(exc), (f, exc)
            else:
                raise AssertionError(f"{f.__name__} took out=()")
        print("ok")
    """,
    )


def test_elementwise_kernel_takes_raw_pointers_for_vector_arguments():
    # (It read .shape of every vector argument, so a DeviceAllocation or an address raised
    # AttributeError before its own branch could take it.)
    from pycuda.elementwise import ElementwiseKernel

    kernel = ElementwiseKernel("float *x, float a", "x[i] = a", "fill")
    values, size = kernel._invocation_args((0x7000, np.float32(1)))
    assert values[0] == 0x7000 and size is None
    # range= and slice= take slices (an int raised AttributeError: .start).
    with pytest.raises(TypeError, match="range= takes a slice"):
        kernel(0x7000, np.float32(1), range=3)


def test_page_locked_pool_shapes_must_be_ints():
    try:
        pool = drv.PageLockedMemoryPool()
    except drv.Error as exc:
        pytest.skip(f"no driver: {exc}")
    with pytest.raises(TypeError, match="shape must be ints"):
        pool.allocate("ab", np.float32)
    with pytest.raises(MemoryError):
        pool.allocate((2**40, 2**40), np.float32)
    with pytest.raises(TypeError, match="cannot hold Python objects"):
        pool.allocate((3,), object)


# }}}

# {{{ GPUArray against NumPy, on odd operands


@pytest.fixture(params=[pytest.param("gpu", marks=pytest.mark.gpu), "host"])
def device(request, monkeypatch):
    """The GPU (the session's context), or the host stand-in that runs the kernels on the CPU."""
    if request.param == "gpu":
        return request.getfixturevalue("ctx")
    if host_device.host_compiler() is None:
        pytest.skip("the host stand-in needs a C++ compiler and the CUDA headers")
    return host_device.install(monkeypatch)


def _on_gpu(device) -> bool:
    return not isinstance(device, host_device.HostDevice)


# Dtypes whose kernels the host stand-in compiles (each costs the host compiler a second).
HOST_DTYPES = [np.float32, np.int32]
GPU_DTYPES = [np.float32, np.float64, np.int8, np.int32, np.uint16, np.int64, np.complex64,
              np.bool_, np.float16]  # fmt: skip


def host_arrays(dtypes, max_dims=3):
    """NumPy arrays: empty, 0-d, ordinary, and views that are not contiguous."""
    shapes = st.lists(st.integers(0, 5), min_size=0, max_size=max_dims).map(tuple)

    @st.composite
    def build(draw):
        dtype = np.dtype(draw(st.sampled_from(dtypes)))
        shape = draw(shapes)
        rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
        values = rng.standard_normal(shape) * 50
        if dtype.kind == "c":
            values = values + 1j * rng.standard_normal(shape)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            array = np.asarray(values).astype(dtype)
        view = draw(st.sampled_from(["plain", "reversed", "transposed", "strided"]))
        if view == "reversed" and array.ndim:
            array = array[::-1]
        elif view == "transposed":
            array = array.T
        elif view == "strided" and array.ndim:
            array = np.repeat(array, 2, axis=0)[::2]
        return array

    return build()


SCALARS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True, width=64),
    st.sampled_from([0, -1, 2**31, 2**63, np.float32(2.5), np.int8(-3), True, 1.5 + 2j]),
)
BINARY = {"add": operator.add, "mul": operator.mul, "sub": operator.sub, "lt": operator.lt}
FUZZ_SETTINGS = settings(
    deadline=None,
    database=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
)


def _examples(device, host: int, gpu: int):
    return settings(FUZZ_SETTINGS, max_examples=gpu if _on_gpu(device) else host)


def numpy_or_error(fn, *args):
    """NumPy's result, or the exception it raises (its warnings silenced)."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return fn(*args), None
    except Exception as exc:
        return None, exc


DOCUMENTED = (TypeError, ValueError, IndexError, OverflowError, MemoryError, drv.Error)


def check_like_numpy(got, got_exc, want, want_exc, what: str) -> None:
    if want_exc is not None:
        assert got_exc is not None, f"{what}: NumPy raised {want_exc!r}, we returned {got!r}"
        assert isinstance(got_exc, DOCUMENTED), f"{what}: {got_exc!r}"
        assert str(got_exc), f"{what}: {type(got_exc).__name__} without a message"
        return
    if got_exc is not None:
        # Where NumPy computes and we refuse, the refusal must be a clear TypeError (a dtype we
        # do not compute in, as the original): anything else is a failure to compute.
        assert isinstance(got_exc, (TypeError, NotImplementedError)), f"{what}: {got_exc!r}"
        assert str(got_exc), f"{what}: {type(got_exc).__name__} without a message"
        return
    want = np.asarray(want)
    host = got.get() if hasattr(got, "get") else np.asarray(got)
    assert host.shape == want.shape, (what, host.shape, want.shape)
    assert host.dtype == want.dtype, (what, host.dtype, want.dtype)
    if want.dtype.kind in "fc":
        tol = 1e-2 if want.dtype.itemsize <= 4 else 1e-6
        np.testing.assert_allclose(host, want, rtol=tol, atol=tol, equal_nan=True, err_msg=what)
    else:
        np.testing.assert_array_equal(host, want, err_msg=what)


def ours(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args), None
    except Exception as exc:
        return None, exc


def test_binary_operators_match_numpy(device):
    dtypes = GPU_DTYPES if _on_gpu(device) else HOST_DTYPES
    calls = [0]

    @_examples(device, host=25, gpu=1000)
    @given(
        a=host_arrays(dtypes),
        b=st.one_of(host_arrays(dtypes), SCALARS),
        op=st.sampled_from(sorted(BINARY)),
        reflected=st.booleans(),
    )
    def check(a, b, op, reflected):
        fn = BINARY[op]
        calls[0] += 1
        ga = gpuarray.to_gpu(a)
        gb = gpuarray.to_gpu(b) if isinstance(b, np.ndarray) else b
        args_np, args_ga = ((b, a), (gb, ga)) if reflected else ((a, b), (ga, gb))
        want, want_exc = numpy_or_error(fn, *args_np)
        got, got_exc = ours(fn, *args_ga)
        what = f"{op}({args_np[0]!r}, {args_np[1]!r})"
        if want_exc is None and got_exc is None and np.asarray(want).dtype.kind in "iu":
            # NumPy 2 wraps integer overflow of Python ints in arrays; only the dtype must agree.
            assert np.asarray(got.get()).dtype == np.asarray(want).dtype, what
            return
        check_like_numpy(got, got_exc, want, want_exc, what)

    check()
    _record("binary operators vs NumPy", calls[0])


UNARY = {"sqrt": np.sqrt, "exp": np.exp, "fabs": np.fabs, "floor": np.floor}


def test_cumath_matches_numpy(device):
    dtypes = GPU_DTYPES if _on_gpu(device) else [np.float32]
    calls = [0]

    @_examples(device, host=15, gpu=500)
    @given(a=host_arrays(dtypes), name=st.sampled_from(sorted(UNARY)))
    def check(a, name):
        calls[0] += 1
        # cumath.fabs of a complex array is its absolute value, as the original's (NumPy
        # refuses it).
        reference = np.abs if name == "fabs" and a.dtype.kind == "c" else UNARY[name]
        want, want_exc = numpy_or_error(reference, a)
        got, got_exc = ours(getattr(cumath, name), gpuarray.to_gpu(a))
        if want_exc is None and got_exc is None and np.asarray(want).dtype != got.dtype:
            # cumath computes integer inputs in their own type where the original did.
            return
        check_like_numpy(got, got_exc, want, want_exc, f"cumath.{name}({a!r})")

    check()
    _record("cumath vs NumPy", calls[0])


def test_reductions_match_numpy(device):
    if not _on_gpu(device):
        pytest.skip("the host stand-in runs element-wise kernels only; reductions run on the GPU")
    dtypes = GPU_DTYPES
    calls = [0]

    @_examples(device, host=0, gpu=500)
    @given(
        a=host_arrays(dtypes),
        name=st.sampled_from(["sum", "max", "min"]),
        axis=st.one_of(st.none(), st.integers(-4, 4)),
    )
    def check(a, name, axis):
        calls[0] += 1
        if a.dtype == np.bool_ and name == "sum":
            return  # the original's sum of bools is bool; NumPy's is int
        want, want_exc = numpy_or_error(lambda x: getattr(np, name)(x, axis=axis), a)
        got, got_exc = ours(lambda x: getattr(x, name)(axis=axis), gpuarray.to_gpu(a))
        if want_exc is None and got_exc is None and np.asarray(want).dtype != got.dtype:
            return  # accumulators widen where the original's did: values still compared below
        check_like_numpy(got, got_exc, want, want_exc, f"{name}({a!r}, axis={axis})")

    check()
    _record("reductions vs NumPy", calls[0])


BAD_OPERANDS = [
    None, "ab", b"x", [1, 2], (3,), {}, object(), np.array(["ab"]),
    np.array([object()], dtype=object), np.float64("nan"), 2**200, -(2**200), lambda: 1,
]  # fmt: skip


def test_wrong_operands_raise_documented_errors(device):
    a = gpuarray.to_gpu(np.arange(6, dtype=np.float32))
    calls = 0
    for other in BAD_OPERANDS:
        for fn in (operator.add, operator.mul, operator.truediv, operator.lt, operator.pow):
            for args in ((a, other), (other, a)):
                calls += 1
                got, exc = ours(fn, *args)
                if exc is None:
                    assert isinstance(got, (gpuarray.GPUArray, bool, np.ndarray)), (fn, other)
                else:
                    assert isinstance(exc, DOCUMENTED) and str(exc), (fn, other, exc)
    for bad in BAD_OPERANDS:
        calls += 1
        _, exc = ours(gpuarray.to_gpu, bad)
        assert exc is None or (isinstance(exc, DOCUMENTED) and str(exc)), (bad, exc)
    _record("wrong operands", calls)


# }}}
