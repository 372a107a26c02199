"""benchmarks/_compile_bench.py: the cost of getting a kernel binary, cold and cached.

run() -> [(name, value, unit)]: a cold NVRTC compile (no cache), the same kernel through an
`nvcc --cubin` process, a cache hit in this process (median of many), and a cache hit from disk
in a fresh process (timed inside that process, around the compile() call only).
Targets: cold compile <= 30 ms, in-process hit <= 5 us, disk hit <= 1 ms.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

KERNEL = """
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

_FRESH_PROCESS = """
import sys, time
from pycuda import compiler
source, arch, cache_dir = sys.argv[1], sys.argv[2], sys.argv[3]
t0 = time.perf_counter()
binary = compiler.compile(source, arch=arch, cache_dir=cache_dir)
t1 = time.perf_counter()
print((t1 - t0) * 1e6)
"""


def _arch() -> str:
    """The current device's architecture, or sm_90 where no context is current."""
    try:
        import pycuda.driver as drv

        if drv.Context.get_current() is not None:
            major, minor = drv.Context.get_device().compute_capability()
            return f"sm_{major}{minor}"
    except Exception:  # no driver here: compiling needs none
        pass
    return "sm_90"


def _cold_nvrtc_ms(arch: str, repeats: int = 7) -> float:
    from pycuda import compiler

    times = []
    for _ in range(repeats + 1):
        compiler._memo.clear()
        compiler.disk_cache("").clear_memory()  # the memory-only cache of cache_dir=False
        t0 = time.perf_counter()
        compiler.compile(KERNEL, arch=arch, cache_dir=False)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times[1:])  # the first also loads NVRTC


def _nvcc_ms(arch: str, repeats: int = 3) -> float | None:
    from pycuda import compiler

    nvcc = compiler._find_nvcc("nvcc")
    if nvcc is None:
        return None
    times = []
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "kernel.cu"), "w") as f:
            f.write('extern "C" {\n' + KERNEL + "\n}\n")
        for _ in range(repeats):
            t0 = time.perf_counter()
            subprocess.run(
                [nvcc, "--cubin", "-arch", arch, "kernel.cu"], cwd=tmp, check=True,
                capture_output=True,
            )  # fmt: skip
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _memory_hit_us(arch: str, cache_dir: str, repeats: int = 20000) -> float:
    from pycuda import compiler

    compiler.compile(KERNEL, arch=arch, cache_dir=cache_dir)
    times = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        t0 = clock()
        compiler.compile(KERNEL, arch=arch, cache_dir=cache_dir)
        times.append(clock() - t0)
    return statistics.median(times) / 1e3


def _disk_hit_us(arch: str, cache_dir: str, processes: int = 5) -> float:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    times = []
    for _ in range(processes):
        out = subprocess.run(
            [sys.executable, "-c", _FRESH_PROCESS, KERNEL, arch, cache_dir],
            env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        times.append(float(out.stdout.strip().splitlines()[-1]))
    return statistics.median(times)


def run() -> list[tuple[str, float, str]]:
    """[(name, value, unit)] for the compile paths (see the module docstring)."""
    arch = _arch()
    results = [(f"compile cold, NVRTC in process ({arch})", _cold_nvrtc_ms(arch), "ms")]
    nvcc = _nvcc_ms(arch)
    if nvcc is not None:
        results.append((f"compile cold, nvcc --cubin process ({arch})", nvcc, "ms"))
    with tempfile.TemporaryDirectory() as cache_dir:
        results.append(("compile cache hit, in process", _memory_hit_us(arch, cache_dir), "us"))
        disk = _disk_hit_us(arch, cache_dir)
        results.append(("compile cache hit, disk, fresh process", disk, "us"))
    return results


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"{name:50s} {value:10.2f} {unit}")
