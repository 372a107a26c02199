"""Nothing is printed at interpreter exit: programs that use every module exit with an empty
stderr and their own exit code, whatever contexts they leave pushed.

nanobind checks at exit (after Python has finalized) that every instance, type and function of
the extension was freed, and prints "nanobind: leaked ..." otherwise: in every CPython build
except free-threaded ones, unless an extension turns it off (nb::set_leak_warnings(false),
which ours never does); test_leak_checker_reports_here proves it reports in this build. So an
empty stderr here means no reference to our objects outlives the interpreter's teardown.

CPU: programs run without a driver, and against a fake libcuda (tests/fake_libcuda.py, built
here: contexts, memory, copies, modules and textures behave; kernels do nothing, so results are
not checked). GPU (marked `gpu`): the same programs on the real driver, with
their results compared to NumPy's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import pycuda

NOWHERE = "/nonexistent/pycuda-test/libcuda.so.1"

# Uses every module on the current context; with CHECK set, compares results with NumPy.
WORK = """
import warnings
import numpy as np
import pycuda.driver as drv
import pycuda.gpuarray as ga
import pycuda.cumath as cumath
import pycuda.curandom as curandom
import pycuda.tools as tools
from pycuda.compiler import SourceModule
from pycuda.elementwise import ElementwiseKernel
from pycuda.reduction import ReductionKernel
from pycuda.scan import ExclusiveScanKernel, InclusiveScanKernel
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)  # the original's deprecation notice
    from pycuda.sparse.coordinate import CoordinateSpMV
    from pycuda.sparse.packeted import PacketedSpMV


def check(got, want):
    if CHECK:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def work():
    h = np.arange(64, dtype=np.float32)
    a, b = ga.to_gpu(h), ga.to_gpu(np.ones(64, np.float32))
    for _ in range(4):  # repeated: the C++ table of remembered launches serves the later ones
        c = a + b
        d = 2.0 * a
        e = a * b - 1
    check(c.get(), h + 1)
    check(d.get(), 2 * h)
    c += 1
    s, m, dot = ga.sum(a), ga.max(a), ga.dot(a, b)
    check(s.get(), h.sum())
    check(m.get(), h.max())
    check(dot.get(), h.sum())
    check(cumath.sqrt(a).get(), np.sqrt(h))
    check(a[::2].get(), h[::2])
    check(ga.take(a, ga.to_gpu(np.arange(4, dtype=np.int32))).get(), h[:4])
    twice = ElementwiseKernel("float *x, float *y", "y[i] = 2 * x[i]", "twice")
    twice(a, b)
    check(b.get(), 2 * h)
    dotk = ReductionKernel(np.float32, "0", "a+b", "x[i]*y[i]", "float *x, float *y")
    check(dotk(a, a).get(), (h * h).sum())
    sc = a.copy()
    InclusiveScanKernel(np.float32, "a+b")(sc)
    check(sc.get(), np.cumsum(h))
    ExclusiveScanKernel(np.float32, "a+b", "0")(sc)
    u = curandom.rand((64,))
    gen = curandom.XORWOWRandomNumberGenerator()
    n = gen.gen_normal((64,), np.float32)
    mod = SourceModule('''
    texture<float, 1> tex;
    __global__ void fetch(float *out) { out[threadIdx.x] = tex1Dfetch(tex, threadIdx.x); }
    __global__ void mul(float *out, const float *x, const float *y)
    { out[threadIdx.x] = x[threadIdx.x] * y[threadIdx.x]; }
    ''')
    tex = mod.get_texref("tex")
    a.bind_to_texref_ext(tex)
    got = np.zeros(64, np.float32)
    mod.get_function("fetch")(drv.Out(got), block=(64, 1, 1), texrefs=[tex])
    check(got, h)
    mul = mod.get_function("mul")
    out = ga.empty_like(a)
    mul(out, a, a, block=(64, 1, 1))  # GPUArrays as arguments of __call__
    check(out.get(), h * h)
    mul(drv.Out(got), drv.In(h), a.gpudata, block=(64, 1, 1))
    mul.prepare("PPP")
    mul.prepared_call((1, 1), (64, 1, 1), out.gpudata, a.gpudata, a.gpudata)
    ary = drv.np_to_array(np.ones((8, 8), np.float32), "C")
    texobj = drv.TextureObject.from_array(ary)
    stream, event = drv.Stream(), drv.Event()
    drv.memcpy_htod_async(a.gpudata, h, stream)
    event.record(stream)
    event.synchronize()
    pool, hostpool = tools.DeviceMemoryPool(), tools.PageLockedMemoryPool()
    block, hostblock = pool.allocate(1024), hostpool.allocate((16,), np.float32)
    dense = (np.eye(8) * 4 + np.eye(8, k=1) + np.eye(8, k=-1)).astype(np.float32)
    spmv = PacketedSpMV(dense, True, np.float32)
    x = ga.to_gpu(np.arange(8, dtype=np.float32))
    y = spmv.unpermute(spmv(spmv.permute(x)))
    check(y.get(), dense @ np.arange(8, dtype=np.float32))
    coo = CoordinateSpMV(dense, np.float32)
    check(coo(x).get(), dense @ np.arange(8, dtype=np.float32))
    # Everything stays alive until exit, in globals.
    return [a, b, c, d, e, s, m, dot, twice, dotk, sc, u, gen, n, mod, tex, mul, out, ary,
            texobj, stream, event, pool, hostpool, block, hostblock, spmv, coo, x, y]
"""

# How a program sets up its contexts before WORK runs, and what it leaves behind at exit.
SETUPS = {
    "autoinit": "import pycuda.autoinit",
    "autoprimaryctx": "import pycuda.autoprimaryctx",
    "make_context_left_pushed": (
        "import pycuda.driver as drv\ndrv.init()\nctx = drv.Device(0).make_context()"
    ),
    "primary_context_left_pushed": (
        "import pycuda.driver as drv\ndrv.init()\n"
        "ctx = drv.Device(0).retain_primary_context()\nctx.push()"
    ),
    "two_contexts_left_pushed": (
        "import pycuda.autoinit\nimport pycuda.driver as drv\nctx = drv.Device(0).make_context()"
    ),
}

# Run after WORK with the objects alive: what the program does last.
ENDINGS = {
    "nothing": "",
    # Objects of a context that is no longer current (nor alive) when the program exits.
    "context_popped_and_detached": (
        "ctx2 = drv.Device(0).make_context()\nKEEP2 = work()\ndrv.Context.pop()\n"
        "tools.clear_context_caches()\nctx2.detach()"
    ),
    "sys_exit_3": "import sys\nsys.exit(3)",
    # Kernel calls still work once the argument types are released (as at exit), and cache none.
    "launch_after_releasing_argument_types": (
        "from pycuda import _driver\n_driver._forget_argument_types()\nKEEP.append(work())"
    ),
    # A cycle through a Function's instance dict and a GPUArray.
    "cycle": (
        "class Holder: pass\nholder = Holder()\nholder.me = holder\nholder.keep = KEEP\n"
        "[f for f in KEEP if isinstance(f, drv.Function)][0].holder = holder\ndel holder"
    ),
    "daemon_thread": (
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()"
    ),
}


def program(setup: str, ending: str, check: bool) -> str:
    return "\n".join(
        [SETUPS[setup], f"CHECK = {check}", WORK, "KEEP = work()", ENDINGS[ending], ""]
    )


def run_program(
    code: str, env: dict[str, str], tmp: Path, *args: str
) -> subprocess.CompletedProcess:
    script = tmp / "program.py"
    script.write_text(code)
    return subprocess.run(
        [sys.executable, *args, str(script)],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def assert_silent_exit(proc: subprocess.CompletedProcess, code: int = 0) -> None:
    assert proc.stderr == "", f"stderr at exit:\n{proc.stderr[-4000:]}"
    assert proc.returncode == code, proc.stdout[-2000:]


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One compile cache for the module's programs (they build the same kernels)."""
    return tmp_path_factory.mktemp("exit-cache")


def base_env(cache: Path, **extra: str) -> dict[str, str]:
    """The environment of a program: the pycuda these tests import (programs run elsewhere, so
    a relative PYTHONPATH would not find it), a compile cache of the module's own."""
    package_root = str(Path(pycuda.__file__).resolve().parent.parent)
    path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, PYCUDA_CACHE_DIR=str(cache), PYTHONPATH=path, **extra)
    env.pop("PYTHONWARNINGS", None)
    # A pytest the program runs gets neither this run's options (-n) nor the plugins installed
    # beside it (pytest-benchmark warns about xdist at exit).
    env.pop("PYTEST_ADDOPTS", None)
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


# {{{ the leak checker itself


def test_leak_checker_reports_here(tmp_path: Path, cache_dir: Path):
    """A deliberately leaked instance is reported: so an empty stderr below means no leak."""
    if sysconfig.get_config_var("Py_GIL_DISABLED"):
        pytest.skip("nanobind does not report leaks on free-threaded Python")
    code = """
        import ctypes
        from pycuda import _driver
        leak = _driver.FlatLaunches(1)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(leak))
    """
    proc = run_program(textwrap.dedent(code), base_env(cache_dir), tmp_path)
    assert "nanobind: leaked 1 instances!" in proc.stderr, proc.stderr
    assert "FlatLaunches" in proc.stderr


# }}}

# {{{ CPU: no driver


def test_without_a_driver_autoinit_error_is_the_last_word(tmp_path: Path, cache_dir: Path):
    code = """
        import pycuda, pycuda.driver, pycuda.compiler, pycuda.gpuarray, pycuda.cumath
        import pycuda.elementwise, pycuda.reduction, pycuda.scan, pycuda.curandom, pycuda.tools
        import pycuda.characterize, pycuda.debug
        import pycuda.autoinit
    """
    env = base_env(cache_dir, PYCUDA_LIBCUDA=NOWHERE)
    proc = run_program(textwrap.dedent(code), env, tmp_path, "-W", "default")
    if proc.returncode == 0:
        pytest.skip("a CUDA driver is installed here, so autoinit finds it")
    error = "\npycuda._driver.DriverNotFoundError: no CUDA driver found"
    assert proc.stderr.startswith("Traceback") and error in proc.stderr, proc.stderr
    # The error's message (its "Looked in:" lines) and nothing after it.
    rest = proc.stderr.split(error, 1)[1].splitlines()[1:]
    assert all(line.startswith("  ") or not line for line in rest), proc.stderr


def test_without_a_driver_using_every_module_exits_silently(tmp_path: Path, cache_dir: Path):
    code = """
        import warnings
        import numpy as np
        import pycuda.driver as drv, pycuda.compiler as compiler, pycuda.gpuarray as ga
        import pycuda.cumath, pycuda.reduction, pycuda.scan, pycuda.curandom
        import pycuda.tools as tools
        from pycuda.elementwise import ElementwiseKernel
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            import pycuda.sparse.packeted, pycuda.sparse.coordinate, pycuda.sparse.cg
        try:
            drv.init()
        except drv.Error as exc:
            ERROR = exc
        KEEP = [ElementwiseKernel("float *x", "x[i] = 1", "one"),
                tools.parse_c_arg("float *x"), drv.Context.get_current(), drv.TextureReference()]
        try:
            KEEP.append(compiler.compile("__global__ void k(int *x) { *x = 1; }", arch="sm_90"))
        except Exception as exc:  # no NVRTC here: the rest still counts
            KEEP.append(exc)
    """
    env = base_env(cache_dir, PYCUDA_LIBCUDA=NOWHERE)
    proc = run_program(textwrap.dedent(code), env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


# }}}

# {{{ CPU: a fake driver


@pytest.fixture(scope="module")
def fake_env(fake_libcuda_so: Path, cache_dir: Path) -> dict[str, str]:
    try:
        import pycuda.compiler

        pycuda.compiler.compile("__global__ void k() {}", arch="sm_90")
    except Exception as exc:
        pytest.skip(f"the fake driver's programs compile kernels, which fails here: {exc}")
    return base_env(cache_dir, PYCUDA_LIBCUDA=str(fake_libcuda_so))


@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_fake_driver_every_module_exits_silently(setup: str, fake_env, tmp_path: Path):
    proc = run_program(program(setup, "nothing", False), fake_env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


@pytest.mark.parametrize("ending", sorted(set(ENDINGS) - {"nothing"}))
def test_fake_driver_endings_exit_silently(ending: str, fake_env, tmp_path: Path):
    proc = run_program(program("autoinit", ending, False), fake_env, tmp_path, "-W", "default")
    assert_silent_exit(proc, 3 if ending == "sys_exit_3" else 0)


def test_fake_driver_unhandled_exception_prints_only_its_traceback(fake_env, tmp_path: Path):
    code = program("autoinit", "nothing", False) + "raise KeyError('deliberate')\n"
    proc = run_program(code, fake_env, tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("Traceback (most recent call last):"), proc.stderr
    assert proc.stderr.rstrip().endswith("KeyError: 'deliberate'"), proc.stderr


# Programs in the classic tutorial style that never import the array layer (whose exit handlers
# would clear caches and hide a leak): their own context, a kernel called with In/Out, the
# Function still held at exit (issue 22: nanobind reported the In/Out pool and its Context).
DRIVER_ONLY = {
    "make_context_source_module": """
        import numpy as np
        import pycuda.driver as drv
        drv.init()
        ctx = drv.Device(0).make_context()
        from pycuda.compiler import SourceModule
        f = SourceModule(
            "__global__ void k(float *a, const float *b) { a[threadIdx.x] = b[threadIdx.x] + 1; }"
        ).get_function("k")
        out = np.zeros(4, np.float32)
        f(drv.Out(out), drv.In(np.zeros(4, np.float32)), block=(4, 1, 1))
        if CHECK:
            assert (out == 1).all(), out
        ctx.pop()
        ctx.detach()
    """,
    # Neither the array layer nor pycuda.tools (whose exit handler frees the In/Out pools) is
    # imported, even lazily: nothing but the objects' own lifetimes frees them.
    "primary_context_module_from_buffer": """
        import sys
        import numpy as np
        import pycuda.driver as drv
        from pycuda.compiler import compile
        drv.init()
        ctx = drv.Device(0).retain_primary_context()
        ctx.push()
        arch = "sm_%d%d" % drv.Device(0).compute_capability()
        cubin = compile("__global__ void k(float *a) { a[threadIdx.x] = 1; }", arch=arch)
        f = drv.module_from_buffer(cubin).get_function("k")
        out = np.zeros(4, np.float32)
        f(drv.Out(out), block=(4, 1, 1))
        if CHECK:
            assert (out == 1).all(), out
        assert not {"pycuda.tools", "pycuda.gpuarray"} & set(sys.modules), sorted(sys.modules)
    """,
}


def driver_only(name: str, check: bool) -> str:
    return f"CHECK = {check}\n" + textwrap.dedent(DRIVER_ONLY[name])


@pytest.mark.parametrize("name", sorted(DRIVER_ONLY))
def test_fake_driver_driver_only_programs_exit_silently(name: str, fake_env, tmp_path: Path):
    proc = run_program(driver_only(name, False), fake_env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


def test_fake_driver_python_m_pycuda_exits_silently(fake_env, tmp_path: Path):
    """The report's self-test calls a kernel with In/Out; the fake computes nothing, so the
    report says the test kernel failed (status 1), but nothing may come after it."""
    proc = subprocess.run(
        [sys.executable, "-m", "pycuda"], cwd=tmp_path, env=fake_env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert proc.stderr == "", proc.stderr
    assert "test kernel" in proc.stdout, proc.stdout


ORIGINAL_SUITE_STYLE = """
import numpy as np
import pycuda.driver as drv
import pycuda.gpuarray as gpuarray
from pycuda.compiler import SourceModule
from pycuda.tools import mark_cuda_test


class TestLikeTheOriginal:
    @mark_cuda_test
    def test_kernel_with_arrays(self):
        mod = SourceModule(
            "__global__ void mul(float *d, float *a, float *b)"
            "{ int i = threadIdx.x; d[i] = a[i] * b[i]; }"
        )
        mul = mod.get_function("mul")
        a = gpuarray.to_gpu(np.ones(8, np.float32))
        b = a + a
        b = a + a
        dest = np.zeros(8, np.float32)
        mul(drv.Out(dest), drv.In(np.ones(8, np.float32)), b, block=(8, 1, 1))
        mul(b, a, b, block=(8, 1, 1))

    @mark_cuda_test
    def test_arrays(self):
        a = gpuarray.to_gpu(np.arange(8, dtype=np.float32))
        assert (a * 2).shape == (8,)
"""


def test_fake_driver_pytest_run_of_an_original_style_suite_exits_silently(fake_env, tmp_path: Path):
    """The original's test suite decorates its tests with mark_cuda_test (a fresh context per
    test) and passes GPUArrays to kernels."""
    (tmp_path / "test_original_style.py").write_text(ORIGINAL_SUITE_STYLE)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_original_style.py"],
        cwd=tmp_path,
        env=fake_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert_silent_exit(proc)
    assert "2 passed" in proc.stdout


# }}}

# {{{ GPU


@pytest.fixture(scope="module")
def gpu_env(cache_dir: Path) -> dict[str, str]:
    env = base_env(cache_dir)
    env.pop("PYCUDA_LIBCUDA", None)
    return env


@pytest.mark.gpu
@pytest.mark.parametrize("setup", sorted(SETUPS))
def test_gpu_every_module_exits_silently(setup: str, gpu_env, tmp_path: Path):
    proc = run_program(program(setup, "nothing", True), gpu_env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


@pytest.mark.gpu
@pytest.mark.parametrize("ending", sorted(set(ENDINGS) - {"nothing"}))
def test_gpu_endings_exit_silently(ending: str, gpu_env, tmp_path: Path):
    proc = run_program(program("autoinit", ending, True), gpu_env, tmp_path, "-W", "default")
    assert_silent_exit(proc, 3 if ending == "sys_exit_3" else 0)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(DRIVER_ONLY))
def test_gpu_driver_only_programs_exit_silently(name: str, gpu_env, tmp_path: Path):
    proc = run_program(driver_only(name, True), gpu_env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


@pytest.mark.gpu
def test_gpu_python_m_pycuda_exits_silently(gpu_env, tmp_path: Path):
    proc = subprocess.run(
        [sys.executable, "-m", "pycuda"], cwd=tmp_path, env=gpu_env, capture_output=True,
        text=True, timeout=300,
    )  # fmt: skip
    assert_silent_exit(proc)
    assert "test kernel: ok" in proc.stdout, proc.stdout


BESIDE_TORCH = """
import numpy as np
import torch
import pycuda.autoprimaryctx
import pycuda.driver as drv
from pycuda.compiler import SourceModule

t = torch.arange(8, dtype=torch.float32, device="cuda")
f = SourceModule("__global__ void twice(float *a) { a[threadIdx.x] *= 2; }").get_function("twice")
f(t, block=(8, 1, 1))
torch.cuda.synchronize()
assert t.cpu().tolist() == [2.0 * i for i in range(8)], t
host = np.ones(8, np.float32)
f(drv.InOut(host), block=(8, 1, 1))
assert (host == 2).all(), host
"""


@pytest.mark.gpu
def test_gpu_autoprimaryctx_beside_torch_exits_silently(gpu_env, tmp_path: Path):
    pytest.importorskip("torch")
    proc = run_program(BESIDE_TORCH, gpu_env, tmp_path, "-W", "default")
    assert_silent_exit(proc)


@pytest.mark.gpu
def test_gpu_pytest_run_of_an_original_style_suite_exits_silently(gpu_env, tmp_path: Path):
    (tmp_path / "test_original_style.py").write_text(ORIGINAL_SUITE_STYLE)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_original_style.py"],
        cwd=tmp_path,
        env=gpu_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert_silent_exit(proc)
    assert "2 passed" in proc.stdout


# }}}
