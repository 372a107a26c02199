"""Tests of compile()'s in-process memo (CPU: NVRTC needs no GPU): a warm call is a look-up
that runs no compiler and touches no file, every argument that decides the binary is part of
its key, clear_cache() forgets it, and user headers are still checked."""

from __future__ import annotations

import builtins
import io
import os
import subprocess

import pytest

from pycuda import _compile_cache, _driver, _nvcc, driver
from pycuda import compiler as C

pytestmark = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

SMALL = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"
# Compiles with and without extern "C", and its code depends on X.
DEFINED = "__global__ void g(int *a) { a[0] = X; }"


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """An empty memo and disk cache; returns the cache directory and a list that records each
    call that went past the memo."""
    monkeypatch.setattr(C, "_memo", {})
    C.disk_cache.cache_clear()
    slow = []
    real = C._compile_checked
    monkeypatch.setattr(C, "_compile_checked", lambda *a: slow.append(a) or real(*a))
    return str(tmp_path / "cache"), slow


def _forbid(monkeypatch, target, name):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a warm compile called {name}")

    monkeypatch.setattr(target, name, refuse)


def _forbid_files_and_compilers(monkeypatch):
    """Make every file-system call, header scan, cache key, disk cache and compiler that a
    compile could reach fail the test."""
    for target, name in [
        (builtins, "open"), (io, "open"), (os, "open"), (os, "stat"), (os, "lstat"),
        (os, "listdir"), (os, "scandir"), (os, "getcwd"), (os, "access"), (os.path, "isfile"),
        (os.path, "exists"), (os.path, "isdir"), (os.path, "realpath"), (subprocess, "run"),
        (_compile_cache, "scan_includes"), (_compile_cache, "cache_key"), (C, "cache_key"),
        (C, "disk_cache"), (C, "store"), (C, "_compile_nvrtc"), (C, "_nvrtc_identity"),
        (_driver, "nvrtc_compile"), (_driver, "CompileCache"), (_nvcc, "get_nvcc_version"),
        (_nvcc, "run_nvcc"), (C, "_context_arch"),
    ]:  # fmt: skip
        _forbid(monkeypatch, target, name)


def test_a_warm_compile_runs_no_compiler_and_touches_no_file(fresh, monkeypatch):
    cache_dir, slow = fresh
    options = ["-DX=1", "--use_fast_math"]
    first = C.compile(DEFINED, options=options, arch="sm_80", cache_dir=cache_dir)
    first_ptx = C.compile(DEFINED, options=options, arch="sm_80", target="ptx")
    assert len(slow) == 2
    with monkeypatch.context() as m:
        _forbid_files_and_compilers(m)
        # Equal arguments, not the same objects: a new str, a new list, a tuple of options.
        source = "".join(list(DEFINED))
        again = C.compile(source, options=list(options), arch="sm_80", cache_dir=cache_dir)
        again_ptx = C.compile(DEFINED, options=tuple(options), arch="sm_80", target="ptx")
    assert again is first and again_ptx is first_ptx
    assert len(slow) == 2


def test_bytes_sources_and_the_originals_defaults_hit_too(fresh, monkeypatch):
    cache_dir, slow = fresh
    first = C.compile(SMALL.encode(), arch="sm_80", cache_dir=cache_dir)
    second = C.compile(SMALL, arch="sm_80", include_dirs=None, options=None, cache_dir=False)
    with monkeypatch.context() as m:
        _forbid_files_and_compilers(m)
        assert C.compile(SMALL.encode(), arch="sm_80", cache_dir=cache_dir) is first
        assert (
            C.compile(SMALL, arch="sm_80", include_dirs=None, options=None, cache_dir=False)
            is second
        )
    assert len(slow) == 2


@pytest.mark.parametrize(
    "change, differs",
    [
        ({"options": ["-DX=2"]}, True),
        ({"options": ["-DX=1", "-DY=1"]}, False),
        ({"options": ["-DX=1", "--use_fast_math"]}, False),
        ({"arch": "sm_90"}, True),
        ({"target": "ptx"}, True),
        ({"no_extern_c": True}, True),  # a C++ (mangled) name
        ({"include_dirs": ["."]}, False),
        ({"cache_dir": False}, False),
        ({"cache_dir": "other"}, False),
    ],
    ids=lambda value: repr(value),
)
def test_what_decides_the_binary_is_in_the_key(fresh, change, differs, tmp_path):
    cache_dir, slow = fresh
    base = {"options": ["-DX=1"], "arch": "sm_80", "cache_dir": cache_dir}
    first = C.compile(DEFINED, **base)
    if change.get("cache_dir") == "other":
        change = {"cache_dir": str(tmp_path / "other")}
    second = C.compile(DEFINED, **{**base, **change})
    assert len(slow) == 2
    assert (second != first) == differs
    C.compile(DEFINED, **{**base, **change})  # and that call is then a hit
    assert len(slow) == 2


def test_the_default_options_are_in_the_key(fresh, monkeypatch):
    cache_dir, slow = fresh
    monkeypatch.setattr(C, "DEFAULT_NVCC_FLAGS", ["-DX=1"])
    one = C.compile(DEFINED, arch="sm_80", cache_dir=cache_dir)
    C.DEFAULT_NVCC_FLAGS.append("-DY=2")  # changed in place, as a client may
    C.compile(DEFINED, arch="sm_80", cache_dir=cache_dir)
    monkeypatch.setattr(C, "DEFAULT_NVCC_FLAGS", ["-DX=2"])
    two = C.compile(DEFINED, arch="sm_80", cache_dir=cache_dir)
    assert len(slow) == 3 and one != two


def test_the_current_devices_architecture_is_in_the_key(fresh, monkeypatch):
    cache_dir, slow = fresh
    device_arch = ["sm_80"]
    monkeypatch.setattr(C, "_context_arch", lambda: device_arch[0])
    for_80 = C.compile(SMALL, cache_dir=cache_dir)
    assert C.compile(SMALL, cache_dir=cache_dir) is for_80
    device_arch[0] = "sm_90"
    for_90 = C.compile(SMALL, cache_dir=cache_dir)
    assert len(slow) == 2 and for_90 != for_80
    assert for_80 == C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)


def test_debugging_mode_and_keep_are_never_memoized(fresh, monkeypatch):
    assert C._memo_key(SMALL, "nvcc", None, False, "sm_80", None, None, (), "cubin") is not None
    monkeypatch.setattr(driver, "CUDA_DEBUGGING", True)
    assert C._memo_key(SMALL, "nvcc", None, False, "sm_80", None, None, (), "cubin") is None


def test_arguments_that_could_change_are_not_looked_up(fresh):
    cache_dir, slow = fresh

    class Source:  # cgen's Module: its str() could change between calls
        def __str__(self) -> str:
            return SMALL

    for _ in range(2):
        C.compile(Source(), arch="sm_80", cache_dir=cache_dir)
        C.compile(SMALL, options=(o for o in ["-DX=1"]), arch="sm_80", cache_dir=cache_dir)
    assert len(slow) == 4
    assert C.compile(SMALL, options=iter(["-DX=3"]), arch="sm_80")[:4] == b"\x7fELF"


def test_bad_arguments_are_still_refused(fresh):
    cache_dir, _ = fresh
    with pytest.raises(TypeError, match="options must hold strings"):
        C.compile(SMALL, options=[["-DX=1"]], arch="sm_80", cache_dir=cache_dir)
    with pytest.raises(TypeError, match="not a single str"):
        C.compile(SMALL, options="-DX=1", arch="sm_80", cache_dir=cache_dir)
    with pytest.raises(ValueError, match="target"):
        C.compile(SMALL, arch="sm_80", target="elf", cache_dir=cache_dir)


def test_clear_cache_forgets_and_the_disk_answers(fresh, monkeypatch):
    cache_dir, slow = fresh
    first = C.compile(SMALL, arch="sm_80", cache_dir=cache_dir)
    C.clear_cache()
    nvrtc = []
    real = C._compile_nvrtc
    monkeypatch.setattr(C, "_compile_nvrtc", lambda *a: nvrtc.append(1) or real(*a))
    assert C.compile(SMALL, arch="sm_80", cache_dir=cache_dir) == first  # from disk
    assert len(slow) == 2 and nvrtc == []
    C.clear_cache()
    C.compile(SMALL, arch="sm_80", cache_dir=False)
    assert nvrtc == [1]  # nothing in memory or on disk for cache_dir=False


def test_a_user_header_costs_one_stat_and_an_edit_is_seen(fresh, monkeypatch, tmp_path):
    cache_dir, slow = fresh
    inc = tmp_path / "inc"
    inc.mkdir()
    header = inc / "value.h"
    header.write_text("#define VALUE 1234567\n")
    long_ago = 1_000_000_000 * 10**9
    os.utime(header, ns=(long_ago, long_ago))  # older than the racy window
    src = '#include "value.h"\n__global__ void f(int *a) { a[0] = VALUE; }'
    args = {"arch": "sm_80", "target": "ptx", "include_dirs": [str(inc)], "cache_dir": cache_dir}
    first = C.compile(src, **args)
    stats = []
    real_stat = os.stat
    with monkeypatch.context() as m:
        _forbid_files_and_compilers(m)
        m.setattr(os, "stat", lambda path, *a, **k: stats.append(path) or real_stat(path, *a, **k))
        assert C.compile(src, **args) is first
    assert stats == [str(header)] and len(slow) == 1
    header.write_text("#define VALUE 7654321 + 1\n")  # another size
    os.utime(header, ns=(long_ago + 10**9, long_ago + 10**9))
    second = C.compile(src, **args)
    assert len(slow) == 2 and b"7654322" in second and b"1234567" in first


def test_pycudas_own_headers_are_not_stamped(fresh):
    cache_dir, _ = fresh
    src = "#include <pycuda-complex.hpp>\n__global__ void f(pycuda::complex<float> *a) {}"
    C.compile(src, arch="sm_80", cache_dir=cache_dir)
    [(binary, stamps)] = C._memo.values()
    assert stamps == ()
