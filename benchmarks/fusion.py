"""benchmarks/fusion.py: pycuda.elementwise.fuse against the unfused chain, CuPy and the copy.

On 2^26-element float32 arrays, ``sqrt(x*x + y*y) * z + 1``: unfused (six GPUArray kernels),
fused (one kernel: three arrays read, one written), fused with a final sum (one reduction:
three arrays read), and the unfused chain followed by gpuarray.sum; cupy.fuse of both where CuPy
is importable; and the host cost of a fused call on 1000 elements against the unfused chain's.
Each device figure is the median over rounds of the mean of a burst of launches timed with
events, after warm-up (benchmarks/_timing.py). Bandwidth counts the bytes the fused operation
must move (each input read once, the output written once), for every contender alike, so the
unfused chain's figure is its effective rate; the ceiling is a device-to-device copy of the same
size measured in the same run (bytes read + bytes written).

    python benchmarks/fusion.py --json fusion.json
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import pycuda.driver as drv
from pycuda import cumath, gpuarray
from pycuda.elementwise import fuse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _gpu import require_gpu  # noqa: E402
from _host_cost import host_us  # noqa: E402
from _report import report  # noqa: E402
from _timing import cupy_timer, device_ms, pycuda_timer  # noqa: E402

N = 1 << 26
Row = tuple[str, float, str]


def target(x, y, z):
    """The benchmark's expression, written once for pycuda (and, with cupy's sqrt, for CuPy)."""
    return cumath.sqrt(x * x + y * y) * z + 1


def pycuda_ops(n: int) -> dict[str, object]:
    rng = np.random.default_rng(1)
    x, y, z = (gpuarray.to_gpu(rng.standard_normal(n, dtype=np.float32)) for _ in range(3))
    fused = fuse(target)
    fused_fma = fuse(target, fma=True)
    fused_sum = fuse(target, reduce="sum")
    return {
        "unfused": lambda: target(x, y, z),
        "fused": lambda: fused(x, y, z),
        "fused, fma=True": lambda: fused_fma(x, y, z),
        "unfused + gpuarray.sum": lambda: gpuarray.sum(target(x, y, z)),
        "fused, reduce='sum'": lambda: fused_sum(x, y, z),
    }


def cupy_ops(cp, n: int) -> dict[str, object]:
    x, y, z = (cp.random.standard_normal(n, dtype=cp.float32) for _ in range(3))

    def cupy_target(x, y, z):  # (cupy.fuse names its kernel after the function)
        return cp.sqrt(x * x + y * y) * z + 1

    def cupy_target_sum(x, y, z):
        return cp.sum(cp.sqrt(x * x + y * y) * z + 1)

    fused, fused_sum = cp.fuse(cupy_target), cp.fuse(cupy_target_sum)
    return {"cupy.fuse": lambda: fused(x, y, z), "cupy.fuse, sum": lambda: fused_sum(x, y, z)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    args = parser.parse_args()
    require_gpu("benchmarks/fusion.py")
    import pycuda.autoinit  # noqa: F401 - after the check, which fails politely without a GPU

    sync = drv.Context.synchronize
    record = pycuda_timer()
    src = gpuarray.empty(N, np.float32)
    dst = gpuarray.empty_like(src)
    copy_ms = device_ms(lambda: drv.memcpy_dtod(dst.gpudata, src.gpudata, src.nbytes), sync, record)
    copy_tbs = 8 * N / copy_ms / 1e9
    rows: list[Row] = [("device-to-device copy (ceiling)", copy_tbs, "TB/s")]
    ops = pycuda_ops(N)
    times = {name: device_ms(op, sync, record) for name, op in ops.items()}
    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        csync = cp.cuda.Device().synchronize
        for name, op in cupy_ops(cp, N).items():
            times[name] = device_ms(op, csync, cupy_timer(cp))
    for name, ms in times.items():
        nbytes = 12 * N if "sum" in name else 16 * N  # read x, y, z (and write the result)
        tbs = nbytes / ms / 1e9
        rows.append((f"{name}", tbs, f"TB/s ({100 * tbs / copy_tbs:.0f}% of copy, {ms:.3f} ms)"))
    rows.append(("fused speed-up over unfused", times["unfused"] / times["fused"], "x"))
    rows.append((
        "fused+sum speed-up over unfused+sum",
        times["unfused + gpuarray.sum"] / times["fused, reduce='sum'"], "x",
    ))  # fmt: skip
    if "cupy.fuse" in times:
        rows.append(("fused / cupy.fuse time", times["fused"] / times["cupy.fuse"], "(<1: faster)"))
    small = pycuda_ops(1000)
    costs = host_us({name: (small[name], sync) for name in ("unfused", "fused")})
    for name, us in costs.items():
        rows.append((f"host cost of {name}, 1000 float32", us, "us per call"))
    report(rows, args.json, elements=N)


if __name__ == "__main__":
    main()
