"""benchmarks/launch.py: host cost of a kernel launch, pycuda against a C++ floor and CuPy.

Launches an empty 3-argument kernel `k(float* a, int n, float x)` many times through
Function.__call__, Function.prepared_call, CuPy's RawKernel (where importable) and a C++ loop
of cuLaunchKernel on the same cubin (benchmarks/launch_floor.cpp, built here with g++).
Every contender synchronizes every SYNC_EVERY launches so the launch queue never fills; the
figure is the median over repeats of microseconds per launch. Also runs
benchmarks/_compile_bench.py's run() where importable, prints one table and, with
--json PATH, writes the rows there.

    python benchmarks/launch.py --json launch.json
"""

from __future__ import annotations

import argparse
import datetime
import json
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


def time_loop(
    launch: Callable[[], object],
    sync: Callable[[], object],
    launches: int,
    sync_every: int,
    repeats: int,
) -> float:
    """Median microseconds per launch over `repeats` loops of `launches` launches."""
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for i in range(launches):
            launch()
            if (i + 1) % sync_every == 0:
                sync()
        sync()
        samples.append((time.perf_counter() - t0) / launches * 1e6)
    return statistics.median(samples)


def build_cubin(workdir: str, arch: str) -> str:
    src = os.path.join(workdir, "k.cu")
    cubin = os.path.join(workdir, "k.cubin")
    with open(src, "w") as f:
        f.write(SOURCE)
    nvcc = os.path.join(CUDA_HOME, "bin", "nvcc")
    subprocess.run([nvcc, "-cubin", f"-arch={arch}", "-o", cubin, src], check=True)
    return cubin


def cpp_floor(workdir: str, cubin: str, launches: int, sync_every: int, repeats: int) -> float:
    exe = os.path.join(workdir, "launch_floor")
    cmd = [
        "g++",
        "-O2",
        "-std=c++20",
        f"-I{REPO}",
        f"-I{CUDA_HOME}/include",
        os.path.join(HERE, "launch_floor.cpp"),
        os.path.join(REPO, "core", "driver_api.cpp"),
        os.path.join(REPO, "core", "error.cpp"),
        "-ldl",
        "-o",
        exe,
    ]
    subprocess.run(cmd, check=True)
    out = subprocess.run(
        [exe, cubin, "k", str(launches), str(sync_every), str(repeats)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return statistics.median(float(line) for line in out.split())


def cupy_rawkernel(launches: int, sync_every: int, repeats: int) -> float | None:
    try:
        import cupy
    except ImportError:
        return None
    kernel = cupy.RawKernel(SOURCE, "k")
    a = cupy.zeros(256, cupy.float32)
    n, x = np.int32(3), np.float32(2)
    sync = cupy.cuda.Device().synchronize
    kernel((1,), (32,), (a, n, x))
    return time_loop(lambda: kernel((1,), (32,), (a, n, x)), sync, launches, sync_every, repeats)


def pycuda_rows(cubin: str, launches: int, sync_every: int, repeats: int) -> list[Row]:
    import pycuda.driver as drv

    func = drv.module_from_file(cubin).get_function("k")
    a = drv.mem_alloc(1024)
    n, x = np.int32(3), np.float32(2)
    sync = drv.Context.synchronize
    rows: list[Row] = []
    call = time_loop(
        lambda: func(a, n, x, block=(32, 1, 1), grid=(1, 1)), sync, launches, sync_every, repeats
    )
    rows.append(("pycuda Function.__call__", call, "us/launch"))
    func.prepare("Pif")
    grid, block = (1, 1), (32, 1, 1)
    prepared = time_loop(
        lambda: func.prepared_call(grid, block, a, n, x), sync, launches, sync_every, repeats
    )
    rows.append(("pycuda prepared_call", prepared, "us/launch"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    parser.add_argument("--launches", type=int, default=20000)
    parser.add_argument("--sync-every", type=int, default=256)
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    sys.path.insert(0, os.path.join(REPO, "python"))
    import pycuda.driver as drv

    drv.init()
    dev = drv.Device(0)
    ctx = dev.retain_primary_context()
    ctx.push()
    major, minor = dev.compute_capability()
    loop = (args.launches, args.sync_every, args.repeats)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as workdir:
        cubin = build_cubin(workdir, f"sm_{major}{minor}")
        floor = cpp_floor(workdir, cubin, *loop)
        rows.append(("C++ cuLaunchKernel loop (floor)", floor, "us/launch"))
        for name, value, unit in pycuda_rows(cubin, *loop):
            rows.append((name, value, unit))
            rows.append((name + " - floor", value - floor, "us/launch"))
        cupy_time = cupy_rawkernel(*loop)
        if cupy_time is not None:
            rows.append(("CuPy RawKernel", cupy_time, "us/launch"))
    sys.path.insert(0, HERE)
    try:
        from _compile_bench import run as compile_run
    except ImportError:
        compile_run = None
    if compile_run is not None:
        rows.extend(compile_run())
    drv.Context.pop()

    info = {
        "device": dev.name(),
        "driver_version": drv.get_driver_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "launches": args.launches,
        "sync_every": args.sync_every,
        "repeats": args.repeats,
    }
    print(f"device: {info['device']}   driver: {info['driver_version']}   date: {info['date']}")
    width = max(len(r[0]) for r in rows)
    for name, value, unit in rows:
        print(f"{name:<{width}}  {value:10.3f}  {unit}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**info, "rows": [list(r) for r in rows]}, f, indent=2)


if __name__ == "__main__":
    main()
