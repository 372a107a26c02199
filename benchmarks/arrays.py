"""benchmarks/arrays.py: element-wise GPUArray work against the copy bandwidth and CuPy.

On 2^26-element float32 arrays: 2*x, x+y, an ElementwiseKernel z=a*x+b*y, sqrt(fabs(x)),
x[::2]+y[::2], a broadcast (8192,1)+(1,8192), curandom.rand and randn (write only); plus the
host cost of a+b on 1000 elements, pycuda's and CuPy's timed in interleaved rounds
(benchmarks/_host_cost.py).
Each device figure is the median over rounds of the mean of a burst of launches timed with
events, after warm-up; bandwidth counts the bytes each operation must move (every input read
once, every output written once, per kernel launched). The ceiling is a device-to-device copy
of the same size measured in the same run (bytes read + bytes written). x[::2] uses half of
the bytes the memory moves for it (its 32-byte sectors hold the skipped elements too), so its
row also gives the share of the copy counting the bytes moved: the useful bytes can reach only
60% of the copy there.

    python benchmarks/arrays.py --json arrays.json
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
from pycuda import cumath, curandom, gpuarray
from pycuda.elementwise import ElementwiseKernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _host_cost import host_us  # noqa: E402
from _report import report  # noqa: E402
from _timing import cupy_timer, device_ms, pycuda_timer  # noqa: E402

N = 1 << 26
SIDE = 1 << 13  # SIDE * SIDE == N
Row = tuple[str, float, str]


CASES = [
    # name, bytes used (float32 elements read + written, per kernel), bytes the memory moves
    ("2*x", 8 * N, None),
    ("x+y", 12 * N, None),
    ("ElementwiseKernel z=a*x+b*y", 12 * N, None),
    ("sqrt(fabs(x)) (two kernels)", 16 * N, None),
    ("x[::2]+y[::2] (strided)", 6 * N, 10 * N),
    ("(8192,1)+(1,8192) (broadcast)", 4 * N + 8 * SIDE, None),
    ("curandom.rand float32 (write only)", 4 * N, None),
    ("curandom.randn float32 (write only)", 4 * N, None),
]


def pycuda_ops():
    rng = np.random.default_rng(1)
    x = gpuarray.to_gpu(rng.standard_normal(N, dtype=np.float32))
    y = gpuarray.to_gpu(rng.standard_normal(N, dtype=np.float32))
    z = gpuarray.empty_like(x)
    col = gpuarray.to_gpu(rng.standard_normal((SIDE, 1), dtype=np.float32))
    row = gpuarray.to_gpu(rng.standard_normal((1, SIDE), dtype=np.float32))
    axpby = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "axpby"
    )
    a, b = np.float32(2.0), np.float32(3.0)
    ops = [
        lambda: 2 * x,
        lambda: x + y,
        lambda: axpby(a, x, b, y, z),
        lambda: cumath.sqrt(cumath.fabs(x)),
        lambda: x[::2] + y[::2],
        lambda: col + row,
        lambda: curandom.rand((N,), np.float32),
        lambda: curandom.randn((N,), np.float32),
    ]
    small = gpuarray.to_gpu(np.ones(1000, np.float32))
    copy_dst = gpuarray.empty_like(x)

    def copy():
        drv.memcpy_dtod(copy_dst.gpudata, x.gpudata, x.nbytes)

    return ops, (lambda: small + small), copy


def cupy_ops(cp):
    x = cp.random.standard_normal(N, dtype=cp.float32)
    y = cp.random.standard_normal(N, dtype=cp.float32)
    z = cp.empty_like(x)
    col = cp.random.standard_normal((SIDE, 1), dtype=cp.float32)
    row = cp.random.standard_normal((1, SIDE), dtype=cp.float32)
    axpby = cp.ElementwiseKernel(
        "float32 a, float32 x, float32 b, float32 y", "float32 z", "z = a*x + b*y", "axpby"
    )
    ops = [
        lambda: 2 * x,
        lambda: x + y,
        lambda: axpby(cp.float32(2), x, cp.float32(3), y, z),
        lambda: cp.sqrt(cp.abs(x)),
        lambda: x[::2] + y[::2],
        lambda: col + row,
        lambda: cp.random.rand(N, dtype=cp.float32),
        lambda: cp.random.randn(N, dtype=cp.float32),
    ]
    small = cp.ones(1000, cp.float32)
    return ops, (lambda: small + small)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    args = parser.parse_args()
    sync = drv.Context.synchronize
    record = pycuda_timer()
    ops, small_add, copy = pycuda_ops()
    copy_ms = device_ms(copy, sync, record)
    copy_tbs = 8 * N / copy_ms / 1e9
    rows: list[Row] = [("device-to-device copy (ceiling)", copy_tbs, "TB/s")]
    ours = [device_ms(op, sync, record) for op in ops]
    try:
        import cupy as cp
    except ImportError:
        cp = None
    theirs: list[float | None] = [None] * len(ops)
    small = {"pycuda": (small_add, sync)}
    if cp is not None:
        cops, csmall = cupy_ops(cp)
        csync = cp.cuda.Device().synchronize
        theirs = [device_ms(op, csync, cupy_timer(cp)) for op in cops]
        small["cupy  "] = (csmall, csync)
    for (name, nbytes, moved), ms, cms in zip(CASES, ours, theirs, strict=True):
        for who, t in (("pycuda", ms), ("cupy  ", cms)):
            if t is None:
                continue
            tbs = nbytes / t / 1e9
            unit = f"TB/s ({100 * tbs / copy_tbs:.0f}% of copy"
            if moved is not None:
                unit += f"; {100 * moved / t / 1e9 / copy_tbs:.0f}% counting the bytes moved"
            rows.append((f"{who} {name}", tbs, unit + ")"))
    for name, us in host_us(small).items():
        rows.append((f"{name} host cost of a+b, 1000 float32", us, "us"))

    report(rows, args.json, elements=N)


if __name__ == "__main__":
    main()
