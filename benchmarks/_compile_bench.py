"""benchmarks/_compile_bench.py: the cost of getting a kernel binary (and a module), cold and warm.

run() -> [(name, value, unit)]:
- cold: an NVRTC compile in this process (no cache), and the same kernel through an
  `nvcc --cubin` process;
- warm-disk: a hit in the disk cache, in this process after `compiler.clear_cache()` dropped
  what it kept in memory, and in a fresh process (timed inside it, around compile() only);
- warm-memory: `compiler.compile` of the same arguments again (median of many);
- with a current context, `SourceModule` of the same source again: with the earlier one
  dropped first (the tutorials' compile-in-a-loop pattern; the context keeps the module
  loaded, see pycuda._shared_modules), also with `.get_function`, which is what CuPy's
  `RawKernel(...).kernel` gives; while an earlier one is alive (its module is shared); and with
  a module that must be loaded each time (one with a `__device__` variable); and CuPy's
  `RawModule(code=...).get_function` and `RawKernel(...).kernel` of the same source again, where
  CuPy is importable (CuPy keeps the loaded module per device).
Targets (issue 2 and 13): cold <= 30 ms, disk hit <= 1 ms, warm compile and warm SourceModule
<= 3 us. `python benchmarks/_compile_bench.py` runs the rows that need no GPU (and the others
where a context can be made).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

KERNEL = """
__global__ void saxpy(float a, const float *x, float *y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

Row = tuple[str, float, str]

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
        compiler.clear_cache()  # also the memory-only cache of cache_dir=False
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


def _median_us(call: Callable[[], object], repeats: int) -> float:
    call()
    times = []
    clock = time.perf_counter_ns
    for _ in range(repeats):
        t0 = clock()
        call()
        times.append(clock() - t0)
    return statistics.median(times) / 1e3


def _memory_hit_us(arch: str, cache_dir: str, repeats: int = 20000) -> float:
    from pycuda import compiler

    return _median_us(lambda: compiler.compile(KERNEL, arch=arch, cache_dir=cache_dir), repeats)


def _disk_hit_in_process_us(arch: str, cache_dir: str, repeats: int = 200) -> float:
    from pycuda import compiler

    compiler.compile(KERNEL, arch=arch, cache_dir=cache_dir)  # the disk entry
    times = []
    for _ in range(repeats):
        compiler.clear_cache()
        t0 = time.perf_counter_ns()
        compiler.compile(KERNEL, arch=arch, cache_dir=cache_dir)
        times.append(time.perf_counter_ns() - t0)
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


def _source_module_rows(cache_dir: str, repeats: int = 5000) -> list[Row]:
    """Warm SourceModules in the current context (none without one)."""
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    if drv.Context.get_current() is None:
        return []
    # Each call's SourceModule is dropped when the call returns, before the next one is made.
    dropped = _median_us(lambda: SourceModule(KERNEL, cache_dir=cache_dir), repeats)
    function = _median_us(
        lambda: SourceModule(KERNEL, cache_dir=cache_dir).get_function("saxpy"), repeats
    )
    earlier = SourceModule(KERNEL, cache_dir=cache_dir)
    shared = _median_us(lambda: SourceModule(KERNEL, cache_dir=cache_dir), repeats)
    # A __device__ variable makes each SourceModule load its own module, as with none alive.
    own = KERNEL + "__device__ int pycuda_bench_state;\n"
    loading = _median_us(lambda: SourceModule(own, cache_dir=cache_dir), repeats // 5)
    del earlier
    return [
        ("SourceModule warm-memory, the earlier one dropped (loop)", dropped, "us"),
        ("SourceModule(...).get_function warm-memory, earlier dropped", function, "us"),
        ("SourceModule warm-memory, an earlier one alive (module shared)", shared, "us"),
        ("SourceModule warm-memory, module loaded (cuModuleLoadData)", loading, "us"),
    ]


def _cupy_rows(repeats: int = 5000) -> list[Row]:
    """CuPy's warm RawModule and RawKernel of the same kernel (none without CuPy or a GPU)."""
    try:
        import cupy

        code = 'extern "C" ' + KERNEL.strip()
        cupy.RawModule(code=code).get_function("saxpy")
    except Exception:  # no CuPy, or no device it can use: nothing to compare with
        return []
    module = _median_us(lambda: cupy.RawModule(code=code).get_function("saxpy"), repeats)
    kernel = _median_us(lambda: cupy.RawKernel(code, "saxpy").kernel, repeats)
    return [
        ("CuPy RawModule(code=).get_function warm", module, "us"),
        ("CuPy RawKernel(code, name).kernel warm", kernel, "us"),
    ]


def run() -> list[Row]:
    """[(name, value, unit)] for the compile paths (see the module docstring)."""
    arch = _arch()
    results = [(f"compile cold, NVRTC in process ({arch})", _cold_nvrtc_ms(arch), "ms")]
    nvcc = _nvcc_ms(arch)
    if nvcc is not None:
        results.append((f"compile cold, nvcc --cubin process ({arch})", nvcc, "ms"))
    with tempfile.TemporaryDirectory() as cache_dir:
        disk = _disk_hit_in_process_us(arch, cache_dir)
        results.append(("compile warm-disk, in process, memory cache dropped", disk, "us"))
        disk = _disk_hit_us(arch, cache_dir)
        results.append(("compile warm-disk, fresh process", disk, "us"))
        memory = _memory_hit_us(arch, cache_dir)
        results.append(("compile warm-memory, compiler.compile", memory, "us"))
        results += _source_module_rows(cache_dir)
    results += _cupy_rows()
    return results


if __name__ == "__main__":
    try:
        import pycuda.autoinit  # noqa: F401 - the SourceModule rows need a context
    except Exception:  # no GPU here: the compile rows need none
        pass
    for name, value, unit in run():
        print(f"{name:64s} {value:10.2f} {unit}")
