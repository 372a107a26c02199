"""Tests of pycuda.compiler: option translation, NVRTC compiles, the cache, nvcc fallback
(CPU only: NVRTC needs no GPU), and SourceModule / DynamicSourceModule on a GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from child_process import run_python

from pycuda import _driver, _nvcc
from pycuda import compiler as C

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
needs_nvcc = pytest.mark.skipif(C._find_nvcc("nvcc") is None, reason="nvcc is not installed")

SEED_KERNELS = {
    "multiply_them": """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}""",
    "doublify": """
    __global__ void doublify(float *a)
    {
      int idx = threadIdx.x + threadIdx.y*4;
      a[idx] *= 2;
    }""",
    "vec_elm_mul": """
    __global__ void vec_elm_mul(float *dest, float *a, float *b)
    {
        const int i = threadIdx.x;
        dest[i] = a[i] * b[i];
    }""",
    "double_array_new": """
  __global__ void double_array_new(float *b, float *a, int *info)
  {
    int datalen = info[0];
    for(int idx = threadIdx.x; idx < datalen; idx += blockDim.x)
    {
      b[idx] = a[idx]*2;
    }
  }""",
    "double_array": """
__global__  void  double_array (float* d_a, unsigned int n_elements, float factor) {
    unsigned int idx = threadIdx.x + blockIdx.x * blockDim.x;
    if (idx < n_elements)
        d_a[idx] *= factor;
}""",
}

SMALL = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache directory and an empty in-process memo for each test."""
    monkeypatch.setattr(C, "_memo", {})
    return str(tmp_path / "cache")


# --- option translation ----------------------------------------------------------------------

TRANSLATIONS = [
    (["--ptxas-options=-v"], ["--ptxas-options=-v"]),
    (["-Xptxas", "-v,-O2"], ["--ptxas-options=-v", "--ptxas-options=-O2"]),
    (["-Xptxas=-v"], ["--ptxas-options=-v"]),
    (["-use_fast_math"], ["--use_fast_math"]),
    (["--use_fast_math"], ["--use_fast_math"]),
    (["-O3"], ["--ptxas-options=-O3"]),
    (["-O0"], ["--ptxas-options=-O0"]),
    (["-lineinfo"], ["-lineinfo"]),
    (["-G"], ["-G"]),
    (["-g"], []),
    (["-m64"], []),
    (["-std=c++17"], ["-std=c++17"]),
    (["-std", "c++20"], ["-std=c++20"]),
    (["-rdc=true"], ["-rdc=true"]),
    (["-dc"], ["-dc"]),
    (["--maxrregcount=32"], ["--maxrregcount=32"]),
    (["-maxrregcount", "32"], ["--maxrregcount=32"]),
    (["-DN=4"], ["-DN=4"]),
    (["-D", "N"], ["-DN"]),
    (["--define-macro=N=4"], ["-DN=4"]),
    (["-UX"], ["-UX"]),
    (["--compiler-options", "-fPIC"], []),
    (["-Xcompiler", "-Wall"], []),
    (["--compiler-options=-fPIC"], []),
    (["-lcudadevrt"], []),
    (["-ftz=true", "--prec-div=false"], ["-ftz=true", "-prec-div=false"]),
    (["--resource-usage"], ["--ptxas-options=-v"]),
    (["-w"], ["-w"]),
]


@pytest.mark.parametrize("nvcc_opts, nvrtc_opts", TRANSLATIONS)
def test_translate_options(nvcc_opts, nvrtc_opts):
    plan = C.translate_options(nvcc_opts)
    assert plan.options == nvrtc_opts


@pytest.mark.parametrize(
    "opts, dirs",
    [
        (["-I", "/a"], ["/a"]),
        (["-I/a"], ["/a"]),
        (["--include-path=/a", "--include-path", "/b"], ["/a", "/b"]),
    ],
)
def test_translate_include_dirs(opts, dirs):
    plan = C.translate_options(opts)
    assert plan.include_dirs == dirs and plan.options == []


def test_translate_arch_and_code():
    assert C.translate_options(["-arch", "sm_80"]).arch == "sm_80"
    assert C.translate_options(["--gpu-architecture=compute_90"]).arch == "compute_90"
    assert C.translate_options(["-arch=sm_80"], arch="sm_90").arch == "sm_90"
    assert C.translate_options(["-code=sm_86"]).code == "sm_86"


def test_option_without_nvrtc_equivalent():
    assert C.nvcc_only_reason(["-Xptxas", "-v"]) is None
    assert C.nvcc_only_reason(["--expt-unknown-thing"]) == "--expt-unknown-thing"
    assert C.nvcc_only_reason(["-ccbin=gcc", "--keep-dir", "x"]) == "--keep-dir"
    with pytest.raises(ValueError, match="needs a value"):
        C.translate_options(["-I"])


def test_default_nvcc_flags_from_environment():
    code = "import pycuda.compiler as c; print(c.DEFAULT_NVCC_FLAGS)"
    env = dict(os.environ, PYCUDA_DEFAULT_NVCC_FLAGS="-O3 -lineinfo")
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['-O3', '-lineinfo']"


# --- NVRTC compiles --------------------------------------------------------------------------


@needs_nvrtc
@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("name", sorted(SEED_KERNELS))
def test_seed_kernels_compile_to_cubin(name, arch, cache_dir):
    cubin = C.compile(SEED_KERNELS[name], arch=arch, cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"
    assert name.encode() in cubin  # extern "C": the symbol is the plain name


@needs_nvrtc
def test_ptx_target_and_no_extern_c(cache_dir):
    ptx = C.compile(SMALL, arch="sm_80", target="ptx", cache_dir=cache_dir)
    assert b".entry twice" in ptx and b".target sm_80" in ptx
    mangled = C.compile(SMALL, arch="sm_80", target="ptx", no_extern_c=True, cache_dir=cache_dir)
    assert b".entry _Z5twicePf" in mangled


@needs_nvrtc
def test_compute_arch_ptx_via_options(cache_dir):
    ptx = C.compile(SMALL, options=["-arch=compute_90"], target="ptx", cache_dir=cache_dir)
    assert b".target sm_90" in ptx


@needs_nvrtc
def test_ptxas_verbose_is_a_warning(cache_dir):
    with pytest.warns(UserWarning, match="The CUDA compiler succeeded, but said the following"):
        cubin = C.compile(
            SEED_KERNELS["vec_elm_mul"],
            options=["--ptxas-options=-v"],
            arch="sm_90",
            cache_dir=cache_dir,
        )
    assert cubin[:4] == b"\x7fELF"


@needs_nvrtc
def test_ptxas_verbose_text_reaches_the_user(cache_dir):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        C.compile(SMALL, options=["-Xptxas", "-v"], arch="sm_80", cache_dir=cache_dir)
    text = "\n".join(str(w.message) for w in caught)
    assert "ptxas info" in text and "twice" in text


@needs_nvrtc
def test_quiet_compile_does_not_warn(cache_dir):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)


@needs_nvrtc
def test_compile_error_carries_the_log(cache_dir):
    from pycuda.driver import CompileError

    with pytest.raises(CompileError) as info:
        C.compile("__global__ void f() { no_such_function(); }", arch="sm_80", cache_dir=cache_dir)
    assert "no_such_function" in str(info.value)
    assert "no_such_function" in info.value.stderr


LIBC_SOURCES = {
    "stdio": (
        '#include <stdio.h>\n__global__ void f() { printf("%d\\n", threadIdx.x); }',
        False,
    ),
    "math": (
        "#include <math.h>\n__global__ void f(float *a) { a[0] = sinf(a[1]) + M_PI + "
        "(isinf(a[2]) ? INFINITY : 0.f); }",
        False,
    ),
    "stdlib_assert": (
        "#include <stdlib.h>\n#include <assert.h>\n"
        "__global__ void f(int *a) { int *p = (int *)malloc(4); assert(p != NULL); "
        "*p = abs(a[0]); a[1] = *p; free(p); }",
        False,
    ),
    "stdint": (
        "#include <stdint.h>\n__global__ void f(uint32_t *a, int64_t *b) { b[0] = a[0]; }",
        False,
    ),
    "fp16": (
        "#include <cuda_fp16.h>\n"
        "__global__ void f(__half *a) { a[threadIdx.x] = __hadd(a[threadIdx.x], a[0]); }",
        True,
    ),
    "bf16": (
        "#include <cuda_bf16.h>\n"
        "__global__ void f(__nv_bfloat16 *a) { a[0] = __float2bfloat16(2.f * "
        "__bfloat162float(a[1])); }",
        True,
    ),
    "curand": (
        "#include <curand_kernel.h>\n"
        'extern "C" __global__ void f(curandState *s, float *out) {\n'
        "  int i = threadIdx.x; curand_init(1234, i, 0, &s[i]);"
        " out[i] = curand_uniform(&s[i]); }",
        True,
    ),
}


@needs_nvrtc
@pytest.mark.parametrize("name", sorted(LIBC_SOURCES))
def test_headers_compile_under_nvrtc(name, cache_dir, monkeypatch):
    source, no_extern_c = LIBC_SOURCES[name]
    # Make sure NVRTC, not the nvcc fallback, compiled it.
    monkeypatch.setattr(C, "_nvcc_cached", _no_nvcc)
    cubin = C.compile(source, arch="sm_90", no_extern_c=no_extern_c, cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"


def _no_nvcc(*args, **kwargs):
    raise AssertionError("nvcc was used where NVRTC should have compiled")


@needs_nvrtc
def test_user_include_dirs_and_defines(tmp_path, cache_dir):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "factor.h").write_text("#define FACTOR SCALE\n")
    src = '#include "factor.h"\n__global__ void f(float *a) { a[0] *= FACTOR; }'
    cubin = C.compile(
        src,
        arch="sm_80",
        options=["-DSCALE=3.0f"],
        include_dirs=[str(tmp_path / "inc")],
        cache_dir=cache_dir,
    )
    assert cubin[:4] == b"\x7fELF"
    cubin2 = C.compile(
        src, arch="sm_80", options=["-DSCALE=3.0f", "-I", str(tmp_path / "inc")], cache_dir=False
    )
    assert cubin2[:4] == b"\x7fELF"


def test_no_arch_and_no_context_is_a_clear_error(cache_dir):
    import pycuda.driver as drv

    try:
        if drv.Context.get_current() is not None:
            pytest.skip("a context is current")
    except drv.Error:
        pass
    with pytest.raises(drv.LogicError, match="arch"):
        C.compile(SMALL, cache_dir=cache_dir)


# --- what nvcc's host headers give every kernel ----------------------------------------------

HOST_TYPE_SOURCES = {
    "glibc names": "__global__ void f(uint *a, ushort *b, ulong *c, u_char *d, u_short *e,"
    " u_int *g, u_long *h, u_int8_t *i, u_int16_t *j, u_int32_t *k, u_int64_t *l, quad_t *m,"
    " u_quad_t *n) { a[0] = b[0] + c[0] + d[0] + e[0] + g[0] + h[0] + i[0] + j[0] + k[0] + l[0]"
    " + m[0] + n[0]; }",
    "own typedefs": "typedef unsigned int uint;\ntypedef unsigned long int ulong;\n"
    "__global__ void f(uint *a, ulong *b) { a[0] = b[0]; }",
    "own define": "#define uint unsigned long long\n"
    '__global__ void f(uint *a) { static_assert(sizeof(uint) == 8, ""); a[0] = 1; }',
    "with stdint": "#include <stdint.h>\n__global__ void f(uint *a, uint32_t *b, int64_t *c) {"
    " a[0] = b[0] + c[0]; }",
    "same widths as glibc": "__global__ void f(int *a) {"
    " static_assert(sizeof(ulong) == 8 && sizeof(ushort) == 2 && sizeof(uint) == 4"
    ' && sizeof(u_int64_t) == 8 && (ulong)-1 > 0, ""); a[0] = 1; }',
}


@needs_nvrtc
@pytest.mark.parametrize("name", sorted(HOST_TYPE_SOURCES))
def test_host_type_names_compile_under_nvrtc(name, cache_dir, monkeypatch):
    monkeypatch.setattr(C, "_nvcc_cached", _no_nvcc)
    cubin = C.compile(HOST_TYPE_SOURCES[name], arch="sm_90", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"


@needs_nvrtc
def test_host_type_macro_option_wins(cache_dir, monkeypatch):
    monkeypatch.setattr(C, "_nvcc_cached", _no_nvcc)
    src = '__global__ void f(uint *a) { static_assert(sizeof(uint) == 2, ""); a[0] = 1; }'
    cubin = C.compile(src, options=["-Duint=unsigned short"], arch="sm_90", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"


@needs_nvrtc
def test_prelude_leaves_line_numbers_as_they_are(cache_dir, monkeypatch):
    from pycuda.driver import CompileError

    monkeypatch.setattr(C, "_find_nvcc", lambda nvcc: None)  # NVRTC's own error, alone
    src = "__global__ void f(uint *a)\n{\n  a[0] = not_declared;\n}\n"
    with pytest.raises(CompileError) as info:
        C.compile(src, arch="sm_90", no_extern_c=True, cache_dir=cache_dir)
    assert "kernel.cu(3)" in info.value.stderr
    assert "pycuda-host-types.h" in " ".join(info.value.command_line)


@needs_nvrtc
def test_the_prelude_is_part_of_the_key(cache_dir, monkeypatch):
    key_before = C._nvrtc_identity()
    C._nvrtc_identity.cache_clear()
    monkeypatch.setattr(C, "_NVRTC_SHIM_DIR", cache_dir)
    os.makedirs(cache_dir)
    with open(os.path.join(cache_dir, "pycuda-host-types.h"), "w") as f:
        f.write("typedef unsigned int uint;\n")
    try:
        assert C._nvrtc_identity() != key_before
    finally:
        C._nvrtc_identity.cache_clear()


@needs_nvrtc
def test_the_key_names_the_nvrtc_file_core_opens():
    # The key's compiler part is the file core opens (found by core without opening it), with
    # its size and time: a changed or different NVRTC is a different key.
    if _driver.find_nvrtc() is None:
        pytest.skip("core finds NVRTC only through the loader's own search here")
    real = os.path.realpath(_driver.nvrtc_library_path())
    st = os.stat(real)
    assert C._nvrtc_identity().startswith(f"nvrtc-file:{real}:{st.st_size}:{st.st_mtime_ns}:")


@needs_nvrtc
def test_core_reports_the_nvrtc_it_then_opens(tmp_path):
    # A fresh process, so that nothing has opened NVRTC before find_nvrtc() answers.
    code = """
        from pycuda import _driver
        print(_driver.find_nvrtc())
        print(_driver.nvrtc_library_path())
    """
    found, opened = run_python(code).stdout.split()
    assert found in (opened, "None")
    # $PYCUDA_LIBNVRTC comes first, also as a link of another name.
    link = tmp_path / "libnvrtc-link.so"
    link.symlink_to(os.path.realpath(opened))
    found, opened = run_python(code, PYCUDA_LIBNVRTC=str(link)).stdout.split()
    assert found == opened == str(link)


# --- the source and the arguments -------------------------------------------------------------


class _CgenLikeModule:
    """What cgen's Module is to compile(): an object whose str() is the source."""

    def __str__(self) -> str:
        return SMALL


@needs_nvrtc
def test_source_is_taken_through_str(cache_dir):
    assert C.compile(_CgenLikeModule(), arch="sm_90", cache_dir=cache_dir) == C.compile(
        SMALL, arch="sm_90", cache_dir=cache_dir
    )
    assert C.compile(SMALL.encode(), arch="sm_90", cache_dir=cache_dir)[:4] == b"\x7fELF"


@needs_nvrtc
def test_source_module_takes_a_non_str_source(cache_dir, monkeypatch):
    import pycuda.driver as drv

    loaded = []
    monkeypatch.setattr(drv, "module_from_buffer", lambda cubin: loaded.append(cubin) or "m")
    mod = C.SourceModule(_CgenLikeModule(), arch="sm_90", cache_dir=cache_dir)
    assert mod.module == "m" and loaded[0][:4] == b"\x7fELF"


# --- nvcc when NVRTC fails ----------------------------------------------------------------------

NVCC_ONLY = "__global__ void f(int64_t *a) { a[0] = 1; }"  # int64_t: glibc's, through nvcc


@needs_nvcc
@needs_nvrtc
def test_what_only_nvcc_compiles_goes_to_nvcc_then_hits_the_cache(cache_dir, monkeypatch):
    nvrtc_runs, nvcc_runs = [], []
    real_nvrtc, real_nvcc = C._compile_nvrtc, _nvcc.run_nvcc
    monkeypatch.setattr(C, "_compile_nvrtc", lambda *a: nvrtc_runs.append(1) or real_nvrtc(*a))
    monkeypatch.setattr(_nvcc, "run_nvcc", lambda *a: nvcc_runs.append(1) or real_nvcc(*a))
    cubin = C.compile(NVCC_ONLY, arch="sm_90", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF" and nvrtc_runs == [1] and nvcc_runs == [1]
    # A new process: memo and memory gone; the disk entry under the NVRTC key answers.
    C._memo.clear()
    C.disk_cache.cache_clear()
    monkeypatch.setattr(_nvcc, "get_nvcc_version", _no_nvcc)
    assert C.compile(NVCC_ONLY, arch="sm_90", cache_dir=cache_dir) == cubin
    assert nvrtc_runs == [1] and nvcc_runs == [1]


@needs_nvcc
@needs_nvrtc
def test_both_compilers_failing_shows_both_logs(cache_dir):
    from pycuda.driver import CompileError

    src = "__global__ void f(int *a) { a[0] = undefined_name; }"
    with pytest.raises(CompileError) as info:
        C.compile(src, arch="sm_90", cache_dir=cache_dir)
    text = str(info.value)
    nvrtc_part, _, nvcc_part = text.partition("--- nvcc")
    assert "NVRTC" in text and "--- NVRTC" in nvrtc_part
    assert "undefined_name" in nvrtc_part and "undefined_name" in nvcc_part
    assert "kernel.cu(2)" in nvrtc_part and "kernel.cu(2)" in nvcc_part
    assert "nvcc" in " ".join(info.value.command_line)


@needs_nvrtc
def test_without_nvcc_the_nvrtc_error_stands_alone(cache_dir, monkeypatch):
    from pycuda.driver import CompileError

    monkeypatch.setattr(C, "_find_nvcc", lambda nvcc: None)
    with pytest.raises(CompileError, match="NVRTC compilation of kernel.cu failed") as info:
        C.compile(NVCC_ONLY, arch="sm_90", cache_dir=cache_dir)
    assert "int64_t" in info.value.stderr and "--- nvcc" not in str(info.value)


# --- the cache -------------------------------------------------------------------------------


def _entries(cache_dir):
    return sorted(f for f in os.listdir(cache_dir) if f.endswith(".bin"))


@needs_nvrtc
def test_cache_miss_then_memory_and_disk_hit(cache_dir, monkeypatch):
    calls = []
    real = C._compile_nvrtc
    monkeypatch.setattr(C, "_compile_nvrtc", lambda *a: calls.append(1) or real(*a))
    first = C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)
    assert len(calls) == 1 and len(_entries(cache_dir)) == 1
    assert C.compile(SMALL, arch="sm_80", cache_dir=cache_dir) == first  # memory
    monkeypatch.setattr(C, "_memo", {})
    C.disk_cache(cache_dir).clear_memory()
    assert C.compile(SMALL, arch="sm_80", cache_dir=cache_dir) == first  # disk
    assert len(calls) == 1
    C.compile(SMALL, arch="sm_90", cache_dir=cache_dir)  # another arch: another entry
    C.compile(SMALL, arch="sm_80", options=["-DX"], cache_dir=cache_dir)  # other options
    assert len(calls) == 3 and len(_entries(cache_dir)) == 3


@needs_nvrtc
def test_changed_header_invalidates(tmp_path, cache_dir):
    inc = tmp_path / "inc"
    inc.mkdir()
    (inc / "outer.h").write_text('#include "inner.h"\n')
    (inc / "inner.h").write_text("#define VALUE 1.5f\n")
    src = "#include <outer.h>\n__global__ void f(float *a) { a[0] = VALUE; }"
    ptx1 = C.compile(src, arch="sm_80", target="ptx", include_dirs=[str(inc)], cache_dir=cache_dir)
    (inc / "inner.h").write_text("#define VALUE 2.5f\n")  # a header included by a header
    ptx2 = C.compile(src, arch="sm_80", target="ptx", include_dirs=[str(inc)], cache_dir=cache_dir)
    assert ptx1 != ptx2
    assert b"1075838976" in ptx2  # the bits of 2.5f
    assert len(_entries(cache_dir)) == 2


@needs_nvrtc
def test_header_rewritten_within_the_clock_tick(tmp_path, cache_dir):
    """Same size, possibly the same mtime: the contents decide, not the stamps."""
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "v.h"
    results = []
    for value in ("1", "2", "3"):
        header.write_text(f"#define VALUE {value}\n")
        src = '#include "v.h"\n__global__ void f(int *a) { a[0] = VALUE; }'
        dirs = [str(inc)]
        results.append(
            C.compile(src, arch="sm_80", target="ptx", include_dirs=dirs, cache_dir=cache_dir)
        )
    assert len(set(results)) == 3
    assert b"mov.u32 \t%r1, 3;" in results[2] or b", 3;" in results[2]


@needs_nvrtc
def test_corrupt_entry_is_a_miss(cache_dir):
    first = C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)
    [entry] = _entries(cache_dir)
    path = os.path.join(cache_dir, entry)
    with open(path, "r+b") as f:
        f.seek(-8, os.SEEK_END)
        f.write(b"garbage!")
    C._memo.clear()
    fresh = _driver.CompileCache(cache_dir)
    assert fresh.get(entry[: -len(".bin")]) is None
    C.disk_cache.cache_clear()
    assert C.compile(SMALL, arch="sm_80", cache_dir=cache_dir) == first
    assert fresh.get(entry[: -len(".bin")]) == first  # rewritten whole


@needs_nvrtc
def test_disable_cache_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_memo", {})
    monkeypatch.setenv("PYCUDA_DISABLE_CACHE", "1")
    monkeypatch.delenv("PYCUDA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    C.compile(SMALL, arch="sm_80")
    assert not (tmp_path / "pycuda").exists()
    monkeypatch.delenv("PYCUDA_DISABLE_CACHE")
    C._memo.clear()
    C.compile(SMALL, arch="sm_80")
    assert len(_entries(tmp_path / "pycuda" / "compiler-cache-v3")) == 1
    monkeypatch.setenv("PYCUDA_CACHE_DIR", str(tmp_path / "explicit"))
    C._memo.clear()
    C.compile(SMALL, arch="sm_80")
    assert len(_entries(tmp_path / "explicit")) == 1


WRITER = textwrap.dedent(
    """
    import sys
    from pycuda import compiler as C
    cache_dir, barrier_file = sys.argv[1], sys.argv[2]
    import os, time
    while not os.path.exists(barrier_file):
        time.sleep(0.001)
    out = C.compile("__global__ void race(float *a) { a[0] = 7; }", arch="sm_80",
                    cache_dir=cache_dir)
    sys.stdout.write(out.hex())
    """
)


@needs_nvrtc
def test_processes_writing_the_same_entry(tmp_path, cache_dir):
    barrier = tmp_path / "go"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, cache_dir, str(barrier)],
            stdout=subprocess.PIPE,
            env=env,
        )
        for _ in range(6)
    ]
    barrier.write_text("")
    outputs = {p.communicate(timeout=120)[0] for p in procs}
    assert all(p.returncode == 0 for p in procs)
    assert len(outputs) == 1
    [entry] = _entries(cache_dir)  # one whole entry, no temporary files left
    assert sorted(os.listdir(cache_dir)) == [entry]
    assert _driver.CompileCache(cache_dir).get(entry[:-4]) == bytes.fromhex(outputs.pop().decode())


def test_debugging_mode_skips_cache(tmp_path, cache_dir, monkeypatch, capsys):
    import pycuda.driver as drv

    if not _driver.nvrtc_available():
        pytest.skip("NVRTC is not installed")
    monkeypatch.setattr(drv, "CUDA_DEBUGGING", True)
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)
    assert not os.path.exists(cache_dir) or not _entries(cache_dir)
    assert "*** compiler output in" in capsys.readouterr().out
    [kept] = [d for d in os.listdir(tmp_path) if d.startswith("pycuda-compiler-")]
    assert "-G" in (tmp_path / kept / "nvrtc-options.txt").read_text().split()


# --- nvcc ------------------------------------------------------------------------------------


@needs_nvcc
def test_nvcc_fallback_for_an_option_nvrtc_lacks(cache_dir, monkeypatch):
    calls = []
    real = _nvcc.run_nvcc
    monkeypatch.setattr(_nvcc, "run_nvcc", lambda *a: calls.append(a[1]) or real(*a))
    cubin = C.compile(SMALL, arch="sm_80", options=["--keep-device-functions"], cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF" and len(calls) == 1
    assert "--keep-device-functions" in calls[0]
    C._memo.clear()
    C.disk_cache(cache_dir).clear_memory()
    C.compile(SMALL, arch="sm_80", options=["--keep-device-functions"], cache_dir=cache_dir)
    assert len(calls) == 1  # a disk hit keyed by nvcc --version


@needs_nvcc
@needs_nvrtc
def test_nvcc_fallback_for_a_header_nvrtc_cannot_open(cache_dir, monkeypatch):
    calls = []
    real = _nvcc.run_nvcc
    monkeypatch.setattr(_nvcc, "run_nvcc", lambda *a: calls.append(1) or real(*a))
    src = "#include <sys/types.h>\n__global__ void f(u_int32_t *a) { a[0] = 1; }"
    cubin = C.compile(src, arch="sm_80", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF" and calls == [1]
    # A later process finds it under the NVRTC key: no NVRTC retry, no `nvcc --version`.
    C._memo.clear()
    C.disk_cache.cache_clear()
    monkeypatch.setattr(C, "_compile_nvrtc", _no_nvcc)
    monkeypatch.setattr(_nvcc, "get_nvcc_version", _no_nvcc)
    assert C.compile(src, arch="sm_80", cache_dir=cache_dir) == cubin
    assert calls == [1]


@needs_nvcc
def test_explicit_nvcc_and_fatbin_use_nvcc(cache_dir):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    cubin = C.compile(SMALL, nvcc=nvcc, arch="sm_80", cache_dir=cache_dir)
    assert cubin[:4] == b"\x7fELF"
    fatbin = C.compile(SMALL, arch="sm_80", target="fatbin", cache_dir=cache_dir)
    assert len(fatbin) > 0 and fatbin[:4] != b"\x7fELF"
    assert "release" in C.get_nvcc_version("nvcc")


@needs_nvcc
def test_nvcc_error_is_compile_error(cache_dir):
    from pycuda.driver import CompileError

    with pytest.raises(CompileError, match="nvcc compilation"):
        C.compile("__global__ void f() { nope(); }", nvcc=C._find_nvcc("nvcc"), arch="sm_80",
                  cache_dir=cache_dir)  # fmt: skip


@needs_nvcc
def test_preprocess_source():
    text = C.preprocess_source("#define N 7\nint x = N;\n", [], "nvcc")
    assert "int x = 7;" in text


def test_missing_compiler_is_a_clear_error(cache_dir):
    from pycuda.driver import CompileError

    with pytest.raises(CompileError, match="not found"):
        C.compile(SMALL, nvcc="/nonexistent/nvcc", arch="sm_80", cache_dir=cache_dir)


def test_find_library_asks_cuda_paths_after_cuda_libdir(tmp_path, monkeypatch):
    from pycuda._cuda_paths import Found

    first, second, given = (tmp_path / n for n in ("first", "second", "given"))
    for folder in (first, second, given):
        folder.mkdir()
    (second / "libpycudatest.a").write_bytes(b"!<arch>\n")
    monkeypatch.setattr(
        C._cuda_paths,
        "library_dirs",
        lambda nvrtc: [Found(str(first), "a"), Found(str(second), "b")],
    )
    C._find_library.cache_clear()
    try:
        assert C._find_library("pycudatest", None) == str(second / "libpycudatest.a")
        (given / "libpycudatest.a").write_bytes(b"!<arch>\n")
        assert C._find_library("pycudatest", str(given)) == str(given / "libpycudatest.a")
        with pytest.raises(OSError, match=f"libabsent.a not found; looked in {first}, {second}"):
            C._find_library("absent", None)
    finally:
        C._find_library.cache_clear()


# --- on a GPU --------------------------------------------------------------------------------


@pytest.mark.gpu
def test_source_module_end_to_end(ctx, cache_dir):
    import pycuda.driver as drv

    mod = C.SourceModule(SEED_KERNELS["multiply_them"], cache_dir=cache_dir)
    multiply_them = mod.get_function("multiply_them")
    a = np.random.randn(400).astype(np.float32)
    b = np.random.randn(400).astype(np.float32)
    dest = np.zeros_like(a)
    multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
    np.testing.assert_allclose(dest, a * b, rtol=1e-6)
    assert mod.module is not None


@pytest.mark.gpu
def test_source_module_scalars_and_default_arch(ctx, cache_dir):
    import pycuda.driver as drv

    major, minor = ctx.get_device().compute_capability()
    assert C._context_arch() == f"sm_{major}{minor}"
    mod = C.SourceModule(SEED_KERNELS["double_array"], cache_dir=cache_dir)
    f = mod.get_function("double_array")
    a = np.arange(1000, dtype=np.float32)
    d = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(d, a)
    f(d, np.uint32(a.size), np.float32(3), block=(256, 1, 1), grid=(4, 1))
    out = np.empty_like(a)
    drv.memcpy_dtoh(out, d)
    np.testing.assert_allclose(out, 3 * a)


@pytest.mark.gpu
def test_source_module_globals_and_ptxas_warning(ctx, cache_dir):
    src = "__device__ float scale[4];\n" + SEED_KERNELS["vec_elm_mul"]
    with pytest.warns(UserWarning, match="ptxas info"):
        mod = C.SourceModule(src, options=["--ptxas-options=-v"], cache_dir=cache_dir)
    ptr, size = mod.get_global("scale")
    assert size == 16 and ptr != 0


@pytest.mark.gpu
def test_dynamic_source_module_launches_a_child(ctx, cache_dir):
    import pycuda.driver as drv

    src = """
    __global__ void child(int *a) { a[threadIdx.x] += 1; }
    __global__ void parent(int *a) { if (threadIdx.x == 0) child<<<1, 32>>>(a); }
    """
    mod = C.DynamicSourceModule(src, cache_dir=cache_dir)
    a = np.zeros(32, dtype=np.int32)
    mod.get_function("parent")(drv.InOut(a), block=(1, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(a, np.ones(32, dtype=np.int32))
