"""KeyboardInterrupt (SIGINT) during a long synchronize, copy or compile: the blocking call runs
to its end (the driver and NVRTC cannot be interrupted; they run with the GIL released), Python
raises KeyboardInterrupt as soon as it returns, and the package stays usable. Each case runs in
a fresh interpreter that the test interrupts."""

from __future__ import annotations

import signal
import subprocess
import tempfile
import time

import pytest
from child_process import ROOT, child_env, noise_in, python_command

import pycuda._driver as _driver

# The child installs Python's own SIGINT handler: a shell that started the tests in the
# background may have passed SIGINT on as ignored.
PROLOGUE = """
import signal
import sys
import time

signal.signal(signal.SIGINT, signal.default_int_handler)
"""

SPIN = r"""
extern "C" __global__ void spin(unsigned long long ns, int *done)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        __nanosleep(10000);
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < ns);
    done[0] = 1;
}
"""

GPU_PROGRAM = (
    PROLOGUE
    + "SPIN = "
    + repr(SPIN)
    + """
import numpy as np

import pycuda.autoinit
import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule

mode = sys.argv[1]
spin = SourceModule(SPIN, no_extern_c=True).get_function("spin")
done = drv.to_device(np.zeros(1, np.int32))
host = np.zeros(1, np.int32)
stream = drv.Stream()
spin(np.uint64(3_000_000_000), done, block=(1, 1, 1), stream=stream if mode == "stream" else None)
event = drv.Event().record()
print("READY", flush=True)
start = time.perf_counter()
try:
    if mode == "context":
        drv.Context.synchronize()
    elif mode == "event":
        event.synchronize()
    elif mode == "stream":
        stream.synchronize()
    else:  # a copy queued behind the kernel on the legacy default stream
        drv.memcpy_dtoh(host, done)
    print("NOT INTERRUPTED", flush=True)
except KeyboardInterrupt:
    print(f"INTERRUPTED after {time.perf_counter() - start:.2f} s", flush=True)
drv.Context.synchronize()
drv.memcpy_dtoh(host, done)
assert host[0] == 1, "the kernel did not finish"
x = np.arange(100, dtype=np.float32)
assert np.array_equal((gpuarray.to_gpu(x) + 1).get(), x + 1)
assert np.array_equal(drv.from_device(drv.to_device(x), x.shape, x.dtype), x)
print("USABLE", flush=True)
"""
)

COMPILE_PROGRAM = (
    PROLOGUE
    + """
import pycuda.compiler as compiler

cache = sys.argv[1]


def source(k):
    # Enough code that NVRTC takes a good fraction of a second.
    kernels = []
    for j in range(6):
        kernels.append(
            f"__global__ void k{j}(float *a, int n) {{ int i = blockIdx.x * blockDim.x + "
            f"threadIdx.x; if (i < n) {{ float v = a[i]; "
            f"for (int r = 0; r < {j + 2}; ++r) v = sinf(v) * {k + 1}.0f + expf(-v) + "
            f"tanhf(v * r); a[i] = v + powf(v, {j % 5}.5f); }} }}"
        )
    return "\\n".join(kernels)


print("READY", flush=True)
start = time.perf_counter()
k = 0
try:
    while time.perf_counter() - start < 60:
        compiler.compile(source(k), arch="sm_90", cache_dir=cache)
        k += 1
    print("NOT INTERRUPTED", flush=True)
except KeyboardInterrupt:
    print(f"INTERRUPTED in compile {k}", flush=True)
# The interrupted source compiles now, and an earlier one comes from the same cache.
assert compiler.compile(source(k), arch="sm_90", cache_dir=cache)[:4] == b"\\x7fELF"
assert compiler.compile(source(0), arch="sm_90", cache_dir=cache)[:4] == b"\\x7fELF"
print("USABLE", flush=True)
"""
)


def _interrupt(program: str, args: list[str], delay: float) -> tuple[str, str, int]:
    """Starts `program`, sends SIGINT `delay` seconds after it prints READY; its stdout,
    stderr and exit status."""
    # stdout is read through one file object only (communicate() would bypass what readline()
    # has buffered); stderr goes to a file, so neither pipe can fill up and block the child.
    with tempfile.TemporaryFile("w+") as err_file:
        proc = subprocess.Popen(
            [*python_command(program), *args], cwd=ROOT, env=child_env(),
            stdout=subprocess.PIPE, stderr=err_file, text=True,
        )  # fmt: skip
        try:
            first = proc.stdout.readline()
            if first.strip() == "READY":
                time.sleep(delay)
                proc.send_signal(signal.SIGINT)
            proc.wait(timeout=120)
            out = first + proc.stdout.read()
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
        err_file.seek(0)
        return out, err_file.read(), proc.returncode


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["context", "event", "stream", "memcpy"])
def test_interrupted_wait_leaves_the_package_usable(mode):
    out, err, rc = _interrupt(GPU_PROGRAM, [mode], delay=0.5)
    assert rc == 0, err
    lines = out.splitlines()
    interrupted = [line for line in lines if line.startswith("INTERRUPTED")]
    assert interrupted, out
    # Raised when the wait returned (the kernel runs 3 s), not lost and not earlier.
    assert float(interrupted[0].split()[2]) > 1.0, out
    assert lines[-1] == "USABLE", out
    assert not noise_in(err), err


@pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
def test_interrupted_compile_leaves_the_package_usable(tmp_path):
    out, err, rc = _interrupt(COMPILE_PROGRAM, [str(tmp_path / "cache")], delay=1.0)
    assert rc == 0, err
    lines = out.splitlines()
    assert any(line.startswith("INTERRUPTED") for line in lines), out
    assert lines[-1] == "USABLE", out
    assert not noise_in(err), err


# In the first compile of a process, NVRTC's front end puts its own SIGINT handler in place while
# it parses, one that ends the process with status 4 (issue 22). Tens of thousands of unused
# functions keep a compile in its front end for seconds and out of ptxas, so the signal lands
# there; a fresh name per run keeps NVRTC's own cache of programs out of it.
FRONT_END_PROGRAM = (
    PROLOGUE
    + """
import os

import pycuda.compiler as compiler
from pycuda import _driver

tag = f"{os.getpid()}_{time.monotonic_ns()}"
big = "\\n".join(
    f"__device__ inline float g{i}_{tag}(float x) {{ return x * {i}.0f + 1.0f; }}"
    for i in range(60000)
) + "\\n__global__ void k(float *a) { a[0] = 1; }"
# Loads NVRTC without compiling: NVRTC puts its handler in place in the first compile of a process
# only, and loading it first leaves less time between READY and that compile's front end.
_driver.nvrtc_version()
print("READY", flush=True)
start = time.perf_counter()
try:
    compiler.compile(big, arch="sm_90", cache_dir=False)
    print("NOT INTERRUPTED", flush=True)
except KeyboardInterrupt:
    print(f"INTERRUPTED after {time.perf_counter() - start:.2f} s", flush=True)
assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
assert compiler.compile("__global__ void q() {}", arch="sm_90", cache_dir=False)[:4] == b"\\x7fELF"
print("USABLE", flush=True)
"""
)


@pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
def test_interrupt_in_nvrtc_front_end_raises_keyboard_interrupt():
    out, err, rc = _interrupt(FRONT_END_PROGRAM, [], delay=0.5)
    assert rc == 0, f"exit status {rc}\n{out}\n{err}"
    lines = out.splitlines()
    assert any(line.startswith("INTERRUPTED") for line in lines), out
    assert lines[-1] == "USABLE", out
    assert not noise_in(err), err
