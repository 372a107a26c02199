"""Tests of pycuda._nvcc: nvcc run as a process, and the options refused because they would
choose where it writes or make it run a program (CPU; the nvcc runs need nvcc installed)."""

from __future__ import annotations

import os

import pytest

from pycuda import _nvcc
from pycuda import compiler as C
from pycuda._nvcc_options import refuse_output_options

needs_nvcc = pytest.mark.skipif(_nvcc.find_nvcc("nvcc") is None, reason="nvcc is not installed")
SMALL = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"

REFUSED = [
    ["-o", "victim"],
    ["-o=victim"],
    ["--output-file", "victim"],
    ["--output-file=victim"],
    ["-odir", "d"],
    ["--output-directory=d"],
    ["-keep-dir", "d"],
    ["--keep-dir", "d"],
    ["-run"],
    ["--run"],
    ["--run-args", "x"],
    ["-run-args=x"],
    ["-optf", "opts.txt"],
    ["--options-file=opts.txt"],
    ["-MF", "deps.d"],
    ["--time", "t.csv"],
    ["-fdevice-time-trace=trace.json"],
    ["--clean-targets"],
    ["-DN=1", "-o", "victim"],
]


@pytest.mark.parametrize("options", REFUSED)
def test_output_and_run_options_are_refused(options):
    with pytest.raises(ValueError, match="is not allowed: it would"):
        refuse_output_options(options)


@pytest.mark.parametrize("options", [["-D", "-o"], ["-Xcompiler", "-o"], ["-DX=-o"], ["-O3"]])
def test_an_option_value_is_not_an_option(options):
    refuse_output_options(options)


@pytest.mark.parametrize("options", REFUSED[:4] + [["--run"]])
def test_compile_refuses_them_before_any_compiler_runs(options, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(_nvcc, "run_nvcc", _no_compiler)
    monkeypatch.setattr(C, "_compile_nvrtc", _no_compiler)
    with pytest.raises(ValueError, match="not allowed"):
        C.compile(SMALL, arch="sm_90", options=options, cache_dir=False)
    with pytest.raises(ValueError, match="not allowed"):
        C.compile_plain(SMALL, options, False, "nvcc", None)
    with pytest.raises(ValueError, match="not allowed"):
        C.preprocess_source(SMALL, options, "nvcc")
    assert os.listdir(tmp_path) == []


def _no_compiler(*args, **kwargs):
    raise AssertionError("a compiler ran")


@needs_nvcc
def test_compile_plain_compiles_and_caches(tmp_path, monkeypatch):
    runs = []
    real = _nvcc.run_nvcc
    monkeypatch.setattr(_nvcc, "run_nvcc", lambda *a: runs.append(1) or real(*a))
    cache = str(tmp_path / "cache")
    cubin = C.compile_plain('extern "C" ' + SMALL, ["-arch", "sm_90"], False, "nvcc", cache)
    assert cubin[:4] == b"\x7fELF"
    _nvcc.disk_cache(cache).clear_memory()
    assert C.compile_plain('extern "C" ' + SMALL, ["-arch", "sm_90"], False, "nvcc", cache) == (
        cubin
    )
    assert runs == [1]


@needs_nvcc
def test_nvcc_making_no_output_says_so():
    from pycuda.driver import CompileError

    # -M: nvcc lists dependencies, exits 0 and writes no cubin.
    with pytest.raises(CompileError, match="it made no kernel.cubin"):
        C.compile(SMALL, arch="sm_90", options=["-M"], cache_dir=False)
