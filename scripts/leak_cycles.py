"""scripts/leak_cycles.py: create and destroy every kind of driver object many times over and
check that device memory (mem_get_info) and host memory (RSS) stay flat.

Each phase runs a warm-up (so that one-time growth such as a pool's first blocks, the driver's
lazily made tables or NumPy's caches is not counted), measures, runs its cycles, and measures
again after a synchronize, gc.collect() and malloc_trim(0). A phase fails when either
measurement grew by more than the tolerance. A phase whose time budget runs out stops early and
says how many cycles it ran (context creation is slow: tens of milliseconds each).

    python scripts/leak_cycles.py                  # the issue's counts, < ~2 min on an H100
    python scripts/leak_cycles.py --scale 0.01     # a quick smoke run
    python scripts/leak_cycles.py --only pool,contexts --json out.json

Exit status: 0 when every phase is flat within the tolerances, 1 when one is not, 2 on an error.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

MIB = 1 << 20

KERNEL = """
__global__ void scale(float *out, const float *in, float k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = k * in[i];
}
"""


@dataclass
class Phase:
    name: str
    what: str
    count: int
    budget_s: float
    warmup: int


# The counts (10^5 allocations, 10^4 modules, ...) with time budgets that keep the whole
# run under ~2 minutes on an H100 even where a driver is slower than expected.
PHASES = [
    Phase("pool", "DeviceMemoryPool allocate/free (16 sizes)", 100_000, 20, 1_000),
    Phase("mem_alloc", "mem_alloc/free, direct (16 sizes)", 100_000, 25, 1_000),
    Phase("modules", "module_from_buffer + unload", 10_000, 15, 100),
    Phase("textures", "TextureObject + SurfaceObject create/destroy", 10_000, 10, 100),
    Phase("contexts", "Device.make_context + pop + detach", 1_000, 40, 5),
    Phase("streams", "Stream + Event (recorded) create/destroy", 100_000, 20, 1_000),
    Phase("gpuarray", "mixed GPUArray operations", 10_000, 20, 100),
]


@dataclass
class Result:
    name: str
    what: str
    requested: int
    ran: int
    seconds: float
    device_growth_mib: float
    rss_growth_mib: float
    flat: bool
    note: str = ""


def _malloc_trim() -> None:
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass  # not glibc: RSS is then noisier, the tolerance covers it


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _settle(drv: Any) -> tuple[int, int]:
    """(free device bytes, host RSS bytes) after the GPU is idle and garbage is gone."""
    drv.Context.synchronize()
    gc.collect()
    drv.Context.synchronize()
    _malloc_trim()
    free, _total = drv.mem_get_info()
    return free, _rss_bytes()


def _sizes() -> list[int]:
    # From 1 byte to 8 MiB: sub-allocated small blocks and blocks of their own.
    return [1, 100, 512, 4096, 10_000, 65_536, 100_003, 1 << 20, 3 << 20, 8 << 20] + [
        24,
        256,
        1000,
        2048,
        50_000,
        500_000,
    ]


def _cycle_pool(drv: Any) -> Callable[[int], None]:
    pool = drv.DeviceMemoryPool()
    sizes = _sizes()

    def step(i: int) -> None:
        a = pool.allocate(sizes[i % len(sizes)])
        b = pool.allocate(sizes[(i * 7) % len(sizes)])
        a.free()
        del b  # returned by its destructor

    step.keep = pool  # type: ignore[attr-defined]
    return step


def _cycle_mem_alloc(drv: Any) -> Callable[[int], None]:
    sizes = _sizes()

    def step(i: int) -> None:
        a = drv.mem_alloc(sizes[i % len(sizes)])
        b = drv.mem_alloc(sizes[(i * 7) % len(sizes)])
        a.free()
        del b

    return step


def _cycle_modules(drv: Any) -> Callable[[int], None]:
    from pycuda.compiler import compile as compile_cuda

    cubin = compile_cuda(KERNEL)

    def step(i: int) -> None:
        mod = drv.module_from_buffer(cubin)
        mod.get_function("scale")
        del mod

    return step


def _cycle_textures(drv: Any) -> Callable[[int], None]:
    host = np.arange(4096, dtype=np.float32)
    linear = drv.to_device(host)
    descr = drv.ArrayDescriptor3D()
    descr.width, descr.height, descr.depth = 64, 16, 0
    descr.format = drv.array_format.FLOAT
    descr.num_channels = 1
    descr.flags = drv.array3d_flags.SURFACE_LDST
    array = drv.Array(descr)

    def step(i: int) -> None:
        tex = drv.TextureObject.from_linear(linear, host.nbytes, drv.array_format.FLOAT)
        tex2 = drv.TextureObject.from_array(array)
        surf = drv.SurfaceObject(array)
        del tex, tex2, surf

    step.keep = (linear, array)  # type: ignore[attr-defined]
    return step


def _cycle_contexts(drv: Any) -> Callable[[int], None]:
    dev = drv.Context.get_device()

    def step(i: int) -> None:
        ctx = dev.make_context()
        try:
            if i % 4 == 0:  # sometimes with something allocated in it
                drv.mem_alloc(1 << 20).free()
        finally:
            drv.Context.pop()
            ctx.detach()

    return step


def _cycle_streams(drv: Any) -> Callable[[int], None]:
    def step(i: int) -> None:
        s = drv.Stream()
        e = drv.Event()
        e.record(s)
        if i % 64 == 0:
            e.synchronize()
        del s, e

    return step


def _cycle_gpuarray(drv: Any) -> Callable[[int], None]:
    from pycuda import cumath, gpuarray

    rng = np.random.default_rng(1)
    hosts = [rng.random(n, dtype=np.float32) for n in (1, 1000, 4097, 65_536)]
    matrix = gpuarray.to_gpu(rng.random((64, 48), dtype=np.float32))
    idx = gpuarray.to_gpu(np.arange(0, 1000, 3, dtype=np.int32))

    def step(i: int) -> None:
        host = hosts[i % len(hosts)]
        a = gpuarray.to_gpu(host)
        b = a * 2 + 1
        c = cumath.sqrt(b)
        s = gpuarray.sum(c)
        m = gpuarray.max(a)
        d = b[::2].copy() if a.size > 1 else b.copy()
        t = matrix.T.copy() + 1
        if a.size >= 1000:
            g = gpuarray.take(a, idx)
            del g
        if i % 100 == 0:  # results are checked now and then, not on every cycle
            np.testing.assert_allclose(c.get(), np.sqrt(host * 2 + 1), rtol=1e-5)
            np.testing.assert_allclose(float(s.get()), np.sqrt(host * 2 + 1).sum(), rtol=1e-3)
            assert float(m.get()) == host.max()
        del a, b, c, s, m, d, t

    step.keep = (matrix, idx)  # type: ignore[attr-defined]
    return step


CYCLES: dict[str, Callable[[Any], Callable[[int], None]]] = {
    "pool": _cycle_pool,
    "mem_alloc": _cycle_mem_alloc,
    "modules": _cycle_modules,
    "textures": _cycle_textures,
    "contexts": _cycle_contexts,
    "streams": _cycle_streams,
    "gpuarray": _cycle_gpuarray,
}


def run_phase(drv: Any, phase: Phase, args: argparse.Namespace) -> Result:
    count = max(1, int(phase.count * args.scale))
    warmup = max(1, min(phase.warmup, count // 10 or 1))
    budget = phase.budget_s * args.budget_scale
    step = CYCLES[phase.name](drv)
    for i in range(warmup):
        step(i)
    free0, rss0 = _settle(drv)
    start = time.perf_counter()
    ran = 0
    deadline = start + budget
    while ran < count:
        step(ran)
        ran += 1
        # The clock is read every 64 cycles: cheap enough for the fast phases.
        if ran % 64 == 0 and time.perf_counter() > deadline:
            break
    seconds = time.perf_counter() - start
    free1, rss1 = _settle(drv)
    dev_growth = (free0 - free1) / MIB
    rss_growth = (rss1 - rss0) / MIB
    flat = dev_growth <= args.device_tol_mib and rss_growth <= args.rss_tol_mib
    note = ""
    if ran < count:
        note = f"time budget {budget:.0f} s: ran {ran} of {count}"
    del step
    gc.collect()
    return Result(phase.name, phase.what, count, ran, seconds, dev_growth, rss_growth, flat, note)


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scale", type=float, default=1.0, help="multiply every phase's count")
    p.add_argument(
        "--budget-scale", type=float, default=1.0, help="multiply every phase's time budget"
    )
    p.add_argument("--only", default="", help="comma-separated phases: " + ",".join(CYCLES))
    p.add_argument("--device-tol-mib", type=float, default=4.0)
    p.add_argument("--rss-tol-mib", type=float, default=16.0)
    p.add_argument("--json", default=None, help="also write the results here")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv

    chosen = [p for p in PHASES if not args.only or p.name in args.only.split(",")]
    unknown = set(filter(None, args.only.split(","))) - set(CYCLES)
    if unknown:
        print(f"unknown phases: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    dev = drv.Context.get_device()
    print(
        f"device: {dev.name()}, driver {drv.get_driver_version()}, "
        f"tolerances: device {args.device_tol_mib} MiB, RSS {args.rss_tol_mib} MiB"
    )
    header = (
        f"{'phase':<10} {'cycles':>15} {'seconds':>8} {'dev MiB':>8} {'RSS MiB':>8}  "
        f"{'B/cycle':>8}  verdict"
    )
    print(header)
    print("-" * len(header))
    results = []
    errors = []
    for phase in chosen:
        try:
            r = run_phase(drv, phase, args)
        except Exception as exc:  # reported, and the other phases still run
            errors.append(phase.name)
            first = next((line for line in str(exc).splitlines() if line.strip()), "")
            print(f"{phase.name:<10} ERROR {type(exc).__name__}: {first}", flush=True)
            continue
        results.append(r)
        per = max(r.device_growth_mib, r.rss_growth_mib, 0.0) * MIB / max(r.ran, 1)
        print(
            f"{r.name:<10} {f'{r.ran}/{r.requested}':>15} {r.seconds:8.1f} "
            f"{r.device_growth_mib:8.2f} {r.rss_growth_mib:8.2f}  {per:8.1f}  "
            f"{'flat' if r.flat else 'GROWS'}{'  (' + r.note + ')' if r.note else ''}",
            flush=True,
        )
    bad = [r.name for r in results if not r.flat]
    print(
        f"leak_cycles: {len(results) - len(bad)}/{len(chosen)} phases flat"
        + (f"; growing: {', '.join(bad)}" if bad else "")
        + (f"; raised: {', '.join(errors)}" if errors else "")
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "device": dev.name(),
                    "driver": drv.get_driver_version(),
                    "device_tol_mib": args.device_tol_mib,
                    "rss_tol_mib": args.rss_tol_mib,
                    "phases": [asdict(r) for r in results],
                },
                f,
                indent=1,
            )
    return 2 if errors else 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
