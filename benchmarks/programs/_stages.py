"""The breakdown of first_kernel.py: the same work, with a CLOCK_MONOTONIC stamp printed after
each stage (benchmarks/programs.py takes the process's start and end around them). Runs against
ours or the original PyCUDA; NVRTC's load is a stage of its own only where it is loaded (ours,
on a compile; never on a cache hit)."""

import os
import time

stamps = [("start", time.monotonic())]


def stamp(name):
    stamps.append((name, time.monotonic()))


import numpy as np  # noqa: E402

stamp("import numpy")
import pycuda.driver as drv  # noqa: E402

stamp("import pycuda.driver")
import pycuda.autoinit  # noqa: E402, F401

stamp("cuInit + context")
import pycuda.compiler  # noqa: E402

stamp("import pycuda.compiler")

SOURCE = """
__global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
"""
if os.environ.get("PYCUDA_BENCH_COLD"):
    # Ours opens NVRTC on the first compile: opened here, its load is a stage of its own.
    nvrtc_version = getattr(getattr(pycuda.compiler, "_driver", None), "nvrtc_version", None)
    if nvrtc_version is not None and os.environ.get("PYCUDA_COMPILER") != "nvcc":
        nvrtc_version()
        stamp("NVRTC load")
major, minor = pycuda.autoinit.device.compute_capability()
arch = f"sm_{major}{minor}"
cubin = pycuda.compiler.compile(SOURCE, arch=arch)
stamp("compile or cache hit")
with open("/proc/self/maps") as f:
    nvrtc_loaded = "libnvrtc" in f.read()
module = drv.module_from_buffer(cubin)
multiply_them = module.get_function("multiply_them")
stamp("module load")
a = np.random.randn(400).astype(np.float32)
b = np.random.randn(400).astype(np.float32)
dest = np.zeros_like(a)
multiply_them(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
drv.Context.synchronize()
assert np.allclose(dest, a * b)
stamp("the work")
print("STAMPS", " ".join(f"{name.replace(' ', '_')}={t!r}" for name, t in stamps))
print("NVRTC", "loaded" if nvrtc_loaded else "not-loaded", flush=True)
