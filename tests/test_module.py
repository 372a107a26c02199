"""Modules, linking and the profiler: module_from_file/buffer, get_function/global, Linker."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest

import pycuda.driver as drv

SOURCE = r"""
extern "C" __global__ void fill(int* out, int value) { out[threadIdx.x] = value; }
__global__ void mangled(int* out) {}
extern "C" __device__ int table[4] = {1, 2, 3, 4};
"""

# Relocatable device code calling a function defined in another image.
CALLER = r"""
extern "C" __device__ int helper(int);
extern "C" __global__ void call_helper(int* out) { out[0] = helper(20); }
"""
CALLEE = r"""
extern "C" __device__ int helper(int x) { return x + 22; }
"""


def test_initialize_profiler_explains_removal() -> None:
    with pytest.raises(drv.Error, match="Nsight"):
        drv.initialize_profiler("cfg", "out", 0)


def test_bad_jit_options_are_type_errors() -> None:
    from pycuda import _driver

    with pytest.raises(TypeError):
        _driver.module_from_buffer(b"", options=[(1, 2, 3)])


def _arch() -> str:
    major, minor = drv.Context.get_device().compute_capability()
    return f"sm_{major}{minor}"


def _nvcc(tmp_path, source: str, *flags: str, suffix: str = "cubin") -> str:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    if not os.path.exists(nvcc):
        pytest.skip("nvcc not found")
    src = tmp_path / "k.cu"
    src.write_text(source)
    out = tmp_path / f"k_{abs(hash(source + ''.join(flags)))}.{suffix}"
    subprocess.run(
        [nvcc, f"-{suffix}", f"-arch={_arch()}", *flags, "-o", str(out), str(src)], check=True
    )
    return str(out)


@pytest.mark.gpu
def test_module_from_file_and_functions(ctx, tmp_path) -> None:
    mod = drv.module_from_file(_nvcc(tmp_path, SOURCE))
    fill = mod.get_function("fill")
    out = drv.mem_alloc(4 * 32)
    fill(out, np.int32(42), block=(32, 1, 1))
    np.testing.assert_array_equal(drv.from_device(out, (32,), np.int32), 42)
    ptr, size = mod.get_global("table")
    assert size == 16
    np.testing.assert_array_equal(drv.from_device(ptr, (4,), np.int32), [1, 2, 3, 4])
    with pytest.raises(drv.LogicError, match=r"no kernel named 'mangled'.*extern \"C\""):
        mod.get_function("mangled")
    with pytest.raises(drv.LogicError, match="no __device__ or __constant__ variable"):
        mod.get_global("nope")


@pytest.mark.gpu
def test_function_keeps_module_alive(ctx, tmp_path) -> None:
    fill = drv.module_from_file(_nvcc(tmp_path, SOURCE)).get_function("fill")
    import gc

    gc.collect()
    out = drv.mem_alloc(4)
    fill(out, np.int32(7), block=(1, 1, 1))
    assert drv.from_device(out, (1,), np.int32)[0] == 7


@pytest.mark.gpu
def test_module_from_file_missing(ctx, tmp_path) -> None:
    with pytest.raises(drv.Error, match="nothing.cubin"):
        drv.module_from_file(str(tmp_path / "nothing.cubin"))


@pytest.mark.gpu
def test_module_from_buffer_ptx_with_message_handler(ctx, tmp_path) -> None:
    ptx = open(_nvcc(tmp_path, SOURCE, suffix="ptx"), "rb").read()
    seen = []
    mod = drv.module_from_buffer(
        ptx,
        options=[(drv.jit_option.OPTIMIZATION_LEVEL, 3), (drv.jit_option.LOG_VERBOSE, 1)],
        message_handler=lambda ok, info, err: seen.append((ok, info, err)),
    )
    assert seen and seen[0][0] is True and isinstance(seen[0][1], str)
    assert mod.get_function("fill").num_regs > 0


@pytest.mark.gpu
def test_module_from_buffer_failure_carries_log(ctx) -> None:
    bad_ptx = b".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry broken( { bogus; }\n"
    seen = []
    with pytest.raises(drv.Error) as info:
        drv.module_from_buffer(bad_ptx, message_handler=lambda *a: seen.append(a))
    assert seen and seen[0][0] is False and seen[0][2]
    assert seen[0][2].strip().splitlines()[0] in str(info.value)


@pytest.mark.gpu
def test_linker_links_relocatable_code(ctx, tmp_path) -> None:
    caller = open(_nvcc(tmp_path, CALLER, "-rdc=true"), "rb").read()
    callee_path = _nvcc(tmp_path, CALLEE, "-rdc=true")
    logs = []
    linker = drv.Linker(message_handler=lambda *a: logs.append(a), log_verbose=True)
    linker.add_data(caller, drv.jit_input_type.CUBIN, "caller")
    linker.add_file(callee_path, drv.jit_input_type.CUBIN)
    mod = linker.link_module()
    assert logs and logs[-1][0] is True
    out = drv.mem_alloc(4)
    mod.get_function("call_helper")(out, block=(1, 1, 1))
    assert drv.from_device(out, (1,), np.int32)[0] == 42


@pytest.mark.gpu
def test_linker_with_devrt_library(ctx, tmp_path) -> None:
    lib = "/usr/local/cuda/lib64/libcudadevrt.a"
    if not os.path.exists(lib):
        pytest.skip("libcudadevrt.a not found")
    linker = drv.Linker()
    linker.add_data(
        open(_nvcc(tmp_path, CALLEE + CALLER, "-rdc=true"), "rb").read(), drv.jit_input_type.CUBIN
    )
    linker.add_file(lib, drv.jit_input_type.LIBRARY)
    assert linker.link_module().get_function("call_helper") is not None
    with pytest.raises(drv.Error):
        linker.link_module()  # a completed linker is closed


@pytest.mark.gpu
def test_linker_unresolved_symbol_reports_log(ctx, tmp_path) -> None:
    seen = []
    linker = drv.Linker(message_handler=lambda *a: seen.append(a))
    linker.add_data(
        open(_nvcc(tmp_path, CALLER, "-rdc=true"), "rb").read(), drv.jit_input_type.CUBIN
    )
    with pytest.raises(drv.Error, match="helper"):
        linker.link_module()
    assert seen and seen[-1][0] is False


@pytest.mark.gpu
def test_profiler_start_stop(ctx) -> None:
    drv.start_profiler()
    drv.stop_profiler()
