"""benchmarks/launch.py: host cost of a kernel launch, pycuda against a C++ floor and CuPy.

Launches an empty 3-argument kernel `k(float* a, int n, float x)` through
Function.__call__, Function.prepared_call, CuPy's RawKernel (where importable) and a C++ loop
of cuLaunchKernel on the same cubin (benchmarks/launch_floor.cpp, built here with g++ as a
shared library and called through ctypes in this process). Contenders run in interleaved
rounds, so drift in the driver's own cost hits all alike. Each launches in batches of
--sync-every and synchronizes (untimed) between batches, so the queue never fills and only the
host's cost of launching is timed. Reported: medians over rounds of microseconds per launch,
and the median of each round's difference to the floor. Also runs
benchmarks/_compile_bench.py's run() where importable, prints one table and, with
--json PATH, writes the rows there.

    python benchmarks/launch.py --json launch.json
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SOURCE = 'extern "C" __global__ void k(float* a, int n, float x) {}\n'
CUDA_HOME = os.environ.get("CUDA_HOME", "/usr/local/cuda")

Row = tuple[str, float, str]
Runner = Callable[[int, int], float]  # (launches, sync_every) -> us per launch


def batched(launch: Callable[[], object], sync: Callable[[], object]) -> Runner:
    """Times `launch` in batches, excluding the synchronization between batches."""

    def run(launches: int, sync_every: int) -> float:
        total = 0.0
        batches = max(1, launches // sync_every)
        for _ in range(batches):
            t0 = time.perf_counter()
            for _ in range(sync_every):
                launch()
            total += time.perf_counter() - t0
            sync()
        return total / (batches * sync_every) * 1e6

    return run


def build_cubin(workdir: str, arch: str) -> str:
    src = os.path.join(workdir, "k.cu")
    cubin = os.path.join(workdir, "k.cubin")
    with open(src, "w") as f:
        f.write(SOURCE)
    nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
    subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-o", cubin, src], check=True)
    return cubin


def cpp_floor(workdir: str, cubin: str) -> Runner:
    lib = os.path.join(workdir, "launch_floor.so")
    cmd = [
        "g++", "-O2", "-std=c++20", "-fPIC", "-shared", f"-I{REPO}", f"-I{CUDA_HOME}/include",
        os.path.join(HERE, "launch_floor.cpp"), os.path.join(REPO, "core", "driver_api.cpp"),
        *(os.path.join(REPO, "core", f"{name}.cpp")
          for name in ("error", "fork_guard", "library_search")),
        "-ldl", "-o", lib,
    ]  # fmt: skip
    subprocess.run(cmd, check=True)
    floor = ctypes.CDLL(lib)
    floor.launch_floor_run.restype = ctypes.c_double
    if floor.launch_floor_init(cubin.encode(), b"k") != 0:
        raise RuntimeError("launch_floor_init failed")
    return lambda launches, sync_every: floor.launch_floor_run(launches, sync_every)


def cupy_runner() -> Runner | None:
    try:
        import cupy
    except ImportError:
        return None
    kernel = cupy.RawKernel(SOURCE, "k")
    a = cupy.zeros(256, cupy.float32)
    n, x = np.int32(3), np.float32(2)
    kernel((1,), (32,), (a, n, x))
    return batched(lambda: kernel((1,), (32,), (a, n, x)), cupy.cuda.Device().synchronize)


def pycuda_runners(cubin: str) -> dict[str, Runner]:
    import pycuda.driver as drv

    func = drv.module_from_file(cubin).get_function("k")
    a = drv.mem_alloc(1024)
    n, x = np.int32(3), np.float32(2)
    sync = drv.Context.synchronize
    prepared = drv.module_from_file(cubin).get_function("k").prepare("Pif")
    grid, block = (1, 1), (32, 1, 1)
    return {
        "pycuda Function.__call__": batched(
            lambda: func(a, n, x, block=(32, 1, 1), grid=(1, 1)), sync
        ),
        "pycuda prepared_call": batched(lambda: prepared.prepared_call(grid, block, a, n, x), sync),
    }


def launch_rows(cubin: str, workdir: str, args: argparse.Namespace) -> list[Row]:
    floor_name = "C++ cuLaunchKernel loop (floor)"
    runners: dict[str, Runner] = {floor_name: cpp_floor(workdir, cubin)}
    runners.update(pycuda_runners(cubin))
    cupy = cupy_runner()
    if cupy is not None:
        runners["CuPy RawKernel"] = cupy
    samples: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(args.repeats):
        for name, run in runners.items():
            samples[name].append(run(args.launches, args.sync_every))
    rows: list[Row] = []
    for name, values in samples.items():
        rows.append((name, statistics.median(values), "us/launch"))
        if name != floor_name:
            diffs = [v - f for v, f in zip(values, samples[floor_name], strict=True)]
            rows.append((name + " - floor", statistics.median(diffs), "us/launch"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    parser.add_argument("--launches", type=int, default=4096, help="launches per round")
    parser.add_argument("--sync-every", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=31, help="rounds")
    args = parser.parse_args()
    import pycuda.driver as drv  # the installed package (scripts/demo.sh or pip install .)

    drv.init()
    dev = drv.Device(0)
    ctx = dev.retain_primary_context()
    ctx.push()
    major, minor = dev.compute_capability()
    with tempfile.TemporaryDirectory() as workdir:
        cubin = build_cubin(workdir, f"sm_{major}{minor}")
        rows = launch_rows(cubin, workdir, args)
    sys.path.insert(0, HERE)
    from _compile_bench import run as compile_run
    from _import_bench import run as import_run
    from _report import report

    rows.extend(compile_run())
    rows.extend(import_run())  # fresh processes: our context being current does not matter
    report(
        rows,
        args.json,
        launches_per_round=args.launches,
        sync_every=args.sync_every,
        rounds=args.repeats,
    )
    drv.Context.pop()


if __name__ == "__main__":
    main()
