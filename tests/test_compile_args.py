"""Tests of pycuda._compile_args through pycuda.compiler: what compile(), SourceModule and
DynamicModule accept as source, options and include_dirs, and what they refuse (CPU only: every
refusal comes before any compiler runs)."""

from __future__ import annotations

import pathlib

import pytest

from pycuda import _compile_args as A
from pycuda import _driver
from pycuda import compiler as C

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
SMALL = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_memo", {})
    return str(tmp_path / "cache")


def test_source_text():
    class Module:
        def __str__(self):
            return "int x;"

    assert A.source_text("int x;") == "int x;"
    assert A.source_text(Module()) == "int x;"
    assert A.source_text(b"int x;") == "int x;"
    assert A.source_text(bytearray(b"int x;")) == "int x;"
    with pytest.raises(ValueError, match="NUL"):
        A.source_text("int x;\0int y;")


def test_string_list():
    assert A.string_list(("-DX", "-O3"), "options") == ["-DX", "-O3"]
    assert A.string_list([pathlib.Path("inc")], "include_dirs", paths=True) == ["inc"]
    with pytest.raises(TypeError, match=r"not a single str .*\['-O3'\]"):
        A.string_list("-O3", "options")
    with pytest.raises(TypeError, match="must hold strings"):
        A.string_list(["-O3", 3], "options")
    with pytest.raises(TypeError, match="must hold strings"):
        A.string_list([pathlib.Path("inc")], "options")
    with pytest.raises(TypeError, match="list of strings, got int"):
        A.string_list(3, "options")
    with pytest.raises(ValueError, match="NUL"):
        A.string_list(["-DX=1\0-o/x"], "options")


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"options": "-O3"}, TypeError, "options must be a list of strings"),
        ({"options": ["-O3", None]}, TypeError, "options must hold strings"),
        ({"options": [1]}, TypeError, "options must hold strings"),
        ({"include_dirs": "incd"}, TypeError, "include_dirs must be a list of strings"),
        ({"include_dirs": [1]}, TypeError, "include_dirs must hold strings"),
        ({"options": ["-DX=1\0-o/x"]}, ValueError, "NUL"),
        ({"include_dirs": ["inc\0/etc"]}, ValueError, "NUL"),
        ({"arch": "sm_90\0garbage"}, ValueError, "NUL"),
        ({"code": "sm_90\0"}, ValueError, "NUL"),
        ({"nvcc": "nvcc\0"}, ValueError, "NUL"),
        ({"arch": 90}, TypeError, "arch must be a str"),
    ],
)
def test_compile_refuses_bad_arguments(kwargs, error, match, cache_dir):
    kwargs = {"arch": "sm_90", **kwargs}
    with pytest.raises(error, match=match):
        C.compile(SMALL, cache_dir=cache_dir, **kwargs)


def test_nul_in_the_source_is_refused(cache_dir):
    with pytest.raises(ValueError, match="the source contains a NUL"):
        C.compile(SMALL + "\0}", arch="sm_90", no_extern_c=True, cache_dir=cache_dir)


@needs_nvrtc
def test_include_dirs_take_paths(tmp_path, cache_dir):
    (tmp_path / "h.h").write_text("#define N 3\n")
    src = '#include "h.h"\n__global__ void f(int *a) { a[0] = N; }'
    assert C.compile(src, arch="sm_90", include_dirs=[tmp_path], cache_dir=cache_dir)[:4] == (
        b"\x7fELF"
    )


def test_dynamic_modules_refuse_a_bare_string(monkeypatch):
    import pycuda.driver as drv

    monkeypatch.setattr(drv.Context, "get_current", staticmethod(lambda: None))
    monkeypatch.setattr(drv, "Linker", lambda *a: None)
    with pytest.raises(TypeError, match="include_dirs must be a list of strings"):
        C.DynamicModule(include_dirs="incd")
    with pytest.raises(TypeError, match="options must be a list of strings"):
        C.DynamicSourceModule(SMALL, options="-O3", arch="sm_90")
    with pytest.raises(ValueError, match="name contains a NUL"):
        C.DynamicModule(arch="sm_90").add_source(SMALL, name="k.ptx\0x")


@needs_nvrtc
@pytest.mark.parametrize(
    "source, name, options",
    [
        (SMALL + "\0}", "k.cu", ["-arch=sm_90"]),
        (SMALL, "k.cu\0x", ["-arch=sm_90"]),
        (SMALL, "k.cu", ["-arch=sm_90\0garbage"]),
    ],
)
def test_the_nvrtc_binding_refuses_a_nul_too(source, name, options):
    with pytest.raises(ValueError, match="NUL"):
        _driver.nvrtc_compile(source, name, options)
