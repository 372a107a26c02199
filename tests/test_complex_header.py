"""pycuda-complex.hpp and pycuda-helpers.hpp: compile with nvcc and NVRTC, compute like std/numpy.

Without a GPU: the headers' __host__ __device__ functions run on the host against std::complex
(tests/complex_header/host_check.cpp, built with nvcc and with a plain C++ compiler), and a kernel
using every function compiles with nvcc and with NVRTC, whose environment has no host headers.
With a GPU: that kernel runs and is compared with numpy.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import pycuda

HERE = Path(__file__).parent / "complex_header"
HEADER_DIR = Path(pycuda.__file__).parent / "cuda"
CUDA_HOME = Path(os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda")
ARCHES = ["sm_80", "sm_90"]


def _nvcc() -> str | None:
    found = shutil.which("nvcc")
    if found:
        return found
    candidate = CUDA_HOME / "bin" / "nvcc"
    return str(candidate) if candidate.exists() else None


def _host_cxx() -> str | None:
    for name in ("g++", "clang++", "c++"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _load_nvrtc() -> ctypes.CDLL | None:
    candidates = [str(CUDA_HOME / "lib64" / "libnvrtc.so")]
    found = ctypes.util.find_library("nvrtc")
    if found:
        candidates.append(found)
    candidates += ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
    for name in candidates:
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


NVRTC = _load_nvrtc()
needs_nvcc = pytest.mark.skipif(_nvcc() is None, reason="nvcc not found")
needs_nvrtc = pytest.mark.skipif(NVRTC is None, reason="libnvrtc not found")


def nvrtc_compile(source: str, options: list[str]) -> tuple[bool, str]:
    """Compile with NVRTC in-process, as SourceModule does; returns (success, log)."""
    assert NVRTC is not None
    prog = ctypes.c_void_p()
    rc = NVRTC.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"kernel.cu", 0, None, None)
    assert rc == 0, f"nvrtcCreateProgram returned {rc}"
    try:
        opts = [o.encode() for o in options]
        rc = NVRTC.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
        size = ctypes.c_size_t()
        NVRTC.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        NVRTC.nvrtcGetProgramLog(prog, log)
        return rc == 0, log.value.decode(errors="replace")
    finally:
        NVRTC.nvrtcDestroyProgram(ctypes.byref(prog))


def _run(cmd: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


# ---- host: every function against std::complex ------------------------------------------------


def _build_and_run_host_check(compiler: list[str], exe: Path) -> None:
    build = _run([*compiler, f"-I{HEADER_DIR}", "-o", str(exe), str(HERE / "host_check.cpp")])
    assert build.returncode == 0, build.stderr
    assert "warning" not in build.stderr, build.stderr
    result = _run([str(exe)])
    assert result.returncode == 0 and "ALL OK" in result.stdout, result.stdout[-6000:]


@needs_nvcc
def test_host_functions_match_std_complex_through_nvcc(tmp_path):
    # nvcc's host pass compiles the __host__ __device__ functions exactly as kernels include them
    _build_and_run_host_check([_nvcc(), "-std=c++17", "-x", "cu"], tmp_path / "check_nvcc")


@pytest.mark.skipif(_host_cxx() is None, reason="no host C++ compiler")
def test_host_functions_match_std_complex_through_plain_cxx(tmp_path):
    _build_and_run_host_check(
        [_host_cxx(), "-std=c++17", "-O2", "-Wall", "-Wextra"], tmp_path / "check_cxx"
    )


# ---- device: compiles with nvcc and NVRTC -----------------------------------------------------


@needs_nvcc
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("extra", [[], ["-use_fast_math"], ["-std=c++11"]])
def test_every_function_compiles_with_nvcc(tmp_path, arch, extra):
    out = tmp_path / "every_function.cubin"
    build = _run(
        [_nvcc(), f"-arch={arch}", "-cubin", *extra, f"-I{HEADER_DIR}", "-o", str(out),
         str(HERE / "every_function.cu")]
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    assert "warning" not in build.stderr, build.stderr
    assert out.stat().st_size > 0


@needs_nvrtc
@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("std", ["-std=c++11", "-std=c++17", "-std=c++20"])
def test_every_function_compiles_with_nvrtc(arch, std):
    source = (HERE / "every_function.cu").read_text()
    ok, log = nvrtc_compile(
        source,
        [f"--gpu-architecture={arch}", std, f"-I{HEADER_DIR}", f"-I{CUDA_HOME / 'include'}"],
    )
    assert ok, log
    assert "warning" not in log, log


@needs_nvrtc
def test_headers_compile_inside_extern_c_as_sourcemodule_wraps_them():
    # SourceModule puts the user's source, #includes and all, inside extern "C" { }
    source = """extern "C" {
#include <pycuda-complex.hpp>
#include <pycuda-helpers.hpp>
__global__ void scale(pycuda::complex<float>* a, pycuda::complex<double>* b, float s) {
    a[threadIdx.x] = exp(a[threadIdx.x]) * s;
    pycuda::atomicAdd(b, pycuda::complex<double>(a[threadIdx.x]));
}
}
"""
    ok, log = nvrtc_compile(source, ["--gpu-architecture=sm_90", f"-I{HEADER_DIR}"])
    assert ok, log


STORAGE_SOURCE = """#include <pycuda-complex.hpp>
__constant__ pycuda::complex<float> coeffs[4];
__device__ pycuda::complex<double> accumulator;
extern "C" __global__ void k(pycuda::complex<float>* a) {
    extern __shared__ pycuda::complex<float> dyn[];
    __shared__ pycuda::complex<double> fixed[32];
    dyn[threadIdx.x] = a[threadIdx.x] * coeffs[threadIdx.x % 4];
    fixed[threadIdx.x % 32] = accumulator;
    __syncthreads();
    a[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x] + pycuda::complex<float>(fixed[0]);
}
"""


@needs_nvrtc
def test_complex_lives_in_constant_shared_and_global_variables_with_nvrtc():
    # the zeroing default constructor is constexpr, so no dynamic initialization is needed
    ok, log = nvrtc_compile(STORAGE_SOURCE, ["--gpu-architecture=sm_90", f"-I{HEADER_DIR}"])
    assert ok, log
    assert "warning" not in log, log


@needs_nvcc
def test_complex_lives_in_constant_shared_and_global_variables_with_nvcc(tmp_path):
    (tmp_path / "storage.cu").write_text(STORAGE_SOURCE)
    build = _run(
        [_nvcc(), "-arch=sm_90", "-cubin", f"-I{HEADER_DIR}", "-o", str(tmp_path / "s.cubin"),
         str(tmp_path / "storage.cu")]
    )  # fmt: skip
    assert build.returncode == 0, build.stderr
    assert "warning" not in build.stderr, build.stderr


@needs_nvrtc
def test_complex_is_a_float2_double2_for_vector_loads():
    source = """#include <pycuda-complex.hpp>
static_assert(sizeof(pycuda::complex<float>) == sizeof(float2), "");
static_assert(alignof(pycuda::complex<float>) == alignof(float2), "");
static_assert(sizeof(pycuda::complex<double>) == sizeof(double2), "");
static_assert(alignof(pycuda::complex<double>) == alignof(double2), "");
static_assert(pycuda::is_complex<pycuda::complex64>::value, "");
extern "C" __global__ void copy(const pycuda::complex<double>* a, pycuda::complex<double>* b) {
    b[threadIdx.x] = a[threadIdx.x];
}
"""
    ok, log = nvrtc_compile(source, ["--gpu-architecture=sm_90", f"-I{HEADER_DIR}"])
    assert ok, log
    assert np.dtype(np.complex64).itemsize == 8 and np.dtype(np.complex128).itemsize == 16


@needs_nvrtc
def test_a_wrong_use_fails_to_compile():
    # the check above would be worthless if anything compiled: complex<float> does not narrow
    # implicitly from complex<double>
    source = """#include <pycuda-complex.hpp>
extern "C" __global__ void k(pycuda::complex<float>* a) {
    pycuda::complex<float> f = pycuda::complex<double>(1, 2);
    a[0] = f;
}
"""
    ok, log = nvrtc_compile(source, ["--gpu-architecture=sm_90", f"-I{HEADER_DIR}"])
    assert not ok and "error" in log


# ---- GPU: the kernel against numpy ------------------------------------------------------------

# (name, numpy reference on complex128 inputs z, w); the order is the kernel's switch
FUNCTIONS = [
    ("exp", lambda z, w: np.exp(z)),
    ("log", lambda z, w: np.log(z)),
    ("log10", lambda z, w: np.log10(z)),
    ("sqrt", lambda z, w: np.sqrt(z)),
    ("sin", lambda z, w: np.sin(z)),
    ("cos", lambda z, w: np.cos(z)),
    ("tan", lambda z, w: np.tan(z)),
    ("sinh", lambda z, w: np.sinh(z)),
    ("cosh", lambda z, w: np.cosh(z)),
    ("tanh", lambda z, w: np.tanh(z)),
    ("asin", lambda z, w: np.arcsin(z)),
    ("acos", lambda z, w: np.arccos(z)),
    ("atan", lambda z, w: np.arctan(z)),
    ("asinh", lambda z, w: np.arcsinh(z)),
    ("acosh", lambda z, w: np.arccosh(z)),
    ("atanh", lambda z, w: np.arctanh(z)),
    ("pow(z,w)", lambda z, w: np.power(z, w)),
    ("pow(z,x)", lambda z, w: np.power(z, w.real + 0j)),
    ("pow(x,w)", lambda z, w: np.power(w.real + 0j, z)),
    ("pow(z,3)", lambda z, w: z * z * z),
    ("pow(z,-2)", lambda z, w: 1 / (z * z)),
    ("abs", lambda z, w: np.abs(z) + 0j),
    ("arg", lambda z, w: np.angle(z) + 0j),
    ("norm", lambda z, w: np.abs(z) ** 2 + 0j),
    ("conj", lambda z, w: np.conj(z)),
    ("polar", lambda z, w: z),
    ("z+w", lambda z, w: z + w),
    ("z-w", lambda z, w: z - w),
    ("z*w", lambda z, w: z * w),
    ("z/w", lambda z, w: z / w),
    ("scalars", lambda z, w: 2 * z - z / 4 + 1),
    ("3/z", lambda z, w: 3 / z),
    ("-z", lambda z, w: -z),
    ("compound", lambda z, w: ((z + w) * z - 1) / w),
    ("==,!=", lambda z, w: (z == w) + 1j * (z != w)),
    ("classify", lambda z, w: np.full_like(z, 2j)),
    ("real,imag", lambda z, w: z),
    ("proj", lambda z, w: z),
]


def test_function_table_matches_the_kernel():
    source = (HERE / "every_function.cu").read_text()
    count = int(re.search(r"function_count = (\d+);", source).group(1))
    cases = re.findall(r"case (\d+):", source)
    assert count == len(FUNCTIONS) == len(cases)
    assert [int(c) for c in cases] == list(range(count))


def _sample(dtype, n=4096, seed=0):
    rng = np.random.default_rng(seed)
    z = rng.uniform(-5, 5, n) + 1j * rng.uniform(-5, 5, n)
    w = rng.uniform(-5, 5, n) + 1j * rng.uniform(-5, 5, n)
    # on the branch cuts, with both signs of zero
    cuts = [complex(-2, 0.0), complex(-2, -0.0), complex(3, 0.0), complex(3, -0.0),
            complex(0.0, 2), complex(-0.0, 2), complex(0.0, -2), complex(-0.0, -2),
            complex(0.5, 0.0), complex(0.0, -0.5), complex(1e-3, 1e-3)]  # fmt: skip
    z[: len(cuts)] = cuts
    return z.astype(dtype), w.astype(dtype)


def _tolerance(dtype, name):
    if name.startswith("pow"):
        return 5e-5 if dtype == np.complex64 else 1e-12
    return 2e-5 if dtype == np.complex64 else 5e-14


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_every_function_against_numpy(ctx, dtype):
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    mod = SourceModule((HERE / "every_function.cu").read_text(), no_extern_c=True)
    kernel = mod.get_function(
        "every_function_float" if dtype == np.complex64 else "every_function_double"
    )
    z, w = _sample(dtype)
    n = z.size
    out = np.empty((len(FUNCTIONS), n), dtype)
    kernel(drv.In(z), drv.In(w), drv.Out(out), np.int32(n), block=(128, 1, 1),
           grid=((n + 127) // 128, 1))  # fmt: skip
    z64, w64 = z.astype(np.complex128), w.astype(np.complex128)
    failures = []
    with np.errstate(all="ignore"):
        for (name, reference), got in zip(FUNCTIONS, out, strict=True):
            want = reference(z64, w64)
            err = np.abs(got.astype(np.complex128) - want) / np.maximum(np.abs(want), 1e-300)
            bad = np.flatnonzero(~(err <= _tolerance(dtype, name)))
            if bad.size:
                i = bad[0]
                failures.append(f"{name}({z[i]}, {w[i]}) = {got[i]}, want {want[i]}")
    assert not failures, "\n".join(failures)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_atomic_add_and_warp_shuffles_sum_like_numpy(ctx, dtype):
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    mod = SourceModule((HERE / "every_function.cu").read_text(), no_extern_c=True)
    kernel = mod.get_function("sum_float" if dtype == np.complex64 else "sum_double")
    z, _ = _sample(dtype, n=10_000, seed=1)
    sums = np.zeros(2, dtype)
    kernel(drv.In(z), drv.InOut(sums), np.int32(z.size), block=(256, 1, 1),
           grid=((z.size + 255) // 256, 1))  # fmt: skip
    want = z.astype(np.complex128).sum()
    scale = np.abs(z.astype(np.complex128)).sum()
    tol = 1e-5 if dtype == np.complex64 else 1e-13
    assert abs(sums[0] - want) <= tol * scale
    assert abs(sums[1] - want) <= tol * scale
