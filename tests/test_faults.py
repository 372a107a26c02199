"""Kernels that fault: an illegal address, a trap and a failed device assert each give a
pycuda.driver error naming the fault; later calls in the poisoned context raise clearly; the
process exits with status 0 and nothing printed by us; a fresh process then works. Each fault
runs in its own interpreter, since it poisons the context for good (GPU tests)."""

from __future__ import annotations

import json

import pytest
from child_process import noise_in, run_python

import pycuda._driver as _driver

gpu = pytest.mark.gpu

FAULT_KERNELS = r"""
#include <assert.h>

extern "C" {
// `in` is a null pointer: no allocation covers the addresses read.
__global__ void read_illegal(float *out, const float *in)
{
    out[threadIdx.x] = in[threadIdx.x + 16];
}

__global__ void trap(float *out)
{
    out[0] = 1.0f;
    __trap();
}

__global__ void failing_assert(const int *flag)
{
    assert(flag[0] == 0);
}

__global__ void fill_two(float *out)
{
    out[threadIdx.x] = 2.0f;
}
}
"""

# The CUresult names each fault may give: __trap() is an illegal instruction on current GPUs
# and an unspecified launch failure on older ones.
EXPECTED = {
    "illegal_address": {"CUDA_ERROR_ILLEGAL_ADDRESS"},
    "trap": {"CUDA_ERROR_ILLEGAL_INSTRUCTION", "CUDA_ERROR_LAUNCH_FAILED"},
    "assert": {"CUDA_ERROR_ASSERT"},
}

FAULTING_PROGRAM = """
import json
import sys

import numpy as np

import pycuda.autoinit
import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule

kind = sys.argv[1]
mod = SourceModule(KERNELS, no_extern_c=True)
# Objects alive at the fault and freed at exit, in the poisoned context.
keep = gpuarray.to_gpu(np.arange(16, dtype=np.float32))
out = drv.mem_alloc(256)
stream = drv.Stream()
if kind == "illegal_address":
    mod.get_function("read_illegal")(out, np.intp(0), block=(32, 1, 1))
elif kind == "trap":
    mod.get_function("trap")(out, block=(1, 1, 1))
else:
    flag = drv.to_device(np.ones(1, np.int32))
    mod.get_function("failing_assert")(flag, block=(1, 1, 1))


def outcome(call):
    try:
        call()
        return {"raised": False}
    except drv.Error as exc:  # anything else propagates: a traceback fails the test
        return {"raised": True, "cls": type(exc).__name__, "name": exc.name, "code": exc.code,
                "message": str(exc)}


report = {"fault": outcome(drv.Context.synchronize)}
later = {
    "synchronize": drv.Context.synchronize,
    "launch": lambda: mod.get_function("fill_two")(out, block=(32, 1, 1)),
    "get": keep.get,
    "arithmetic": lambda: (keep * 2).get(),
    "mem_alloc": lambda: drv.mem_alloc(1 << 20),
    "to_gpu": lambda: gpuarray.to_gpu(np.ones(8, np.float32)),
    "stream_synchronize": stream.synchronize,
    "compile_and_load": lambda: SourceModule("__global__ void g(float *a) { a[0] = 3; }"),
}
report["later"] = {name: outcome(call) for name, call in later.items()}
print(json.dumps(report))
""".replace("KERNELS", repr(FAULT_KERNELS), 1)

FRESH_PROGRAM = """
import numpy as np
import pycuda.autoinit
from pycuda import gpuarray
x = np.arange(1000, dtype=np.float32)
assert np.array_equal((gpuarray.to_gpu(x) * 2).get(), 2 * x)
print("fresh process OK")
"""


@gpu
@pytest.mark.parametrize("kind", sorted(EXPECTED))
def test_kernel_fault_is_reported_and_the_process_exits_cleanly(kind):
    import pycuda.driver as drv

    proc = run_python(FAULTING_PROGRAM, args=(kind,))
    assert proc.returncode == 0, proc.stderr
    assert not noise_in(proc.stderr), proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])

    fault = report["fault"]
    assert fault["raised"], f"{kind}: synchronize did not report the fault"
    assert fault["name"] in EXPECTED[kind], fault
    assert fault["name"] in fault["message"] and "cuCtxSynchronize" in fault["message"], fault
    assert "start a new process" in fault["message"], fault
    # The original's classes: a launch failure is a LaunchError, the other faults LogicErrors;
    # both are pycuda.driver.Error.
    want_cls = "LaunchError" if fault["name"] == "CUDA_ERROR_LAUNCH_FAILED" else "LogicError"
    assert fault["cls"] == want_cls, fault
    assert getattr(drv, want_cls).__mro__[1] is drv.Error

    later = report["later"]
    # The context stays poisoned: waiting on it says so again, with the fault's name; launching
    # in it and copying from it raise too; every other call either works or raises a
    # pycuda.driver error naming its CUresult (never crashes).
    assert later["synchronize"]["raised"], later["synchronize"]
    assert later["synchronize"]["name"] == fault["name"], later["synchronize"]
    for name in ("launch", "get", "arithmetic"):
        assert later[name]["raised"], (name, later[name])
    for name, result in later.items():
        if result["raised"]:
            assert result["name"] in result["message"], (name, result)
    if kind == "assert":
        # The device's own report of the assertion (through its printf buffer: stdout).
        assert "flag[0] == 0" in proc.stdout + proc.stderr

    fresh = run_python(FRESH_PROGRAM)
    assert fresh.returncode == 0, fresh.stderr
    assert fresh.stdout.strip() == "fresh process OK"
    assert not noise_in(fresh.stderr), fresh.stderr


@pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
def test_fault_kernels_compile(tmp_path):
    """Without a GPU: the kernels above (with the toolkit's assert) compile for sm_90."""
    from pycuda.compiler import compile as compile_cuda

    cubin = compile_cuda(FAULT_KERNELS, arch="sm_90", no_extern_c=True, cache_dir=str(tmp_path))
    for name in (b"read_illegal", b"trap", b"failing_assert", b"fill_two"):
        assert name in cubin
