"""benchmarks/transfers.py: host<->device copy bandwidth, pageable and page-locked, against CuPy.

For 1, 16 and 256 MiB: memcpy_htod/memcpy_dtoh from and to pageable NumPy arrays (staged through
page-locked buffers, core/staged_copy.hpp) and from and to page-locked arrays (the driver's
direct copy, the hardware's ceiling measured in the same run); gpuarray.to_gpu and
GPUArray.get; CuPy's cupy.asarray(a) and .get() when CuPy is importable. Plus the wall time of a
kernel call with drv.InOut on 1 Mi float32 (copy in, launch, copy out).
Each figure is the median over rounds of the host wall time of one synchronous call, after
warm-up; GB/s is 10^9 bytes per second.

    python benchmarks/transfers.py --json transfers.json
    python benchmarks/transfers.py --sweep   # also: host threads per chunk, streaming stores
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
from pycuda import _driver, gpuarray
from pycuda.compiler import SourceModule

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import report  # noqa: E402
from _timing import seconds  # noqa: E402

MiB = 1 << 20
SIZES = (1 * MiB, 16 * MiB, 256 * MiB)
Row = tuple[str, float, str]


def gbs(op: Callable[[], object], nbytes: int) -> float:
    return nbytes / seconds(op, nbytes) / 1e9


def pycuda_rows(nbytes: int) -> list[Row]:
    label = f"{nbytes // MiB:>3} MiB"
    rng = np.random.default_rng(0)
    pageable = rng.integers(0, 256, nbytes, dtype=np.uint8)
    pageable_out = np.empty_like(pageable)
    pinned = drv.pagelocked_empty(nbytes, np.uint8)
    pinned[:] = pageable
    dev = drv.mem_alloc(nbytes)
    g = gpuarray.to_gpu(pageable)
    return [
        (f"pycuda htod pageable {label}", gbs(lambda: drv.memcpy_htod(dev, pageable), nbytes),
         "GB/s"),
        (f"pycuda dtoh pageable {label}", gbs(lambda: drv.memcpy_dtoh(pageable_out, dev), nbytes),
         "GB/s"),
        (f"pycuda htod pinned   {label}", gbs(lambda: drv.memcpy_htod(dev, pinned), nbytes),
         "GB/s"),
        (f"pycuda dtoh pinned   {label}", gbs(lambda: drv.memcpy_dtoh(pinned, dev), nbytes),
         "GB/s"),
        (f"pycuda to_gpu        {label}", gbs(lambda: gpuarray.to_gpu(pageable), nbytes), "GB/s"),
        (f"pycuda .get()        {label}", gbs(g.get, nbytes), "GB/s"),
    ]  # fmt: skip


def cupy_rows(cp, nbytes: int) -> list[Row]:
    label = f"{nbytes // MiB:>3} MiB"
    pageable = np.random.default_rng(0).integers(0, 256, nbytes, dtype=np.uint8)
    sync = cp.cuda.Device().synchronize
    g = cp.asarray(pageable)

    def htod():
        cp.asarray(pageable)
        sync()

    def dtoh():
        g.get()
        sync()

    return [
        (f"cupy   asarray       {label}", gbs(htod, nbytes), "GB/s"),
        (f"cupy   .get()        {label}", gbs(dtoh, nbytes), "GB/s"),
    ]


INOUT_SOURCE = """
__global__ void twice(float* a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        a[i] *= 2.0f;
}
"""


def inout_row() -> Row:
    twice = SourceModule(INOUT_SOURCE).get_function("twice")
    a = np.ones(MiB, np.float32)
    n = np.int32(a.size)

    def call():
        twice(drv.InOut(a), n, block=(256, 1, 1), grid=(1024, 1))

    return ("pycuda f(drv.InOut(a)), 1 Mi float32", seconds(call, 2 * a.nbytes) * 1e6, "us")


def sweep_rows() -> list[Row]:
    """Pageable 256 MiB copies with 1-12 host threads per chunk, and dtoh with and without
    non-temporal stores into the destination: the figures behind the staging defaults."""
    tune = _driver._staged_copy_tune
    config = _driver._staged_copy_config()
    nbytes = 256 * MiB
    pageable = np.random.default_rng(1).integers(0, 256, nbytes, dtype=np.uint8)
    out = np.empty_like(pageable)
    dev = drv.mem_alloc(nbytes)
    rows: list[Row] = []
    try:
        for threads in (1, 2, 4, 8, 12):
            for streaming in (False, True):
                tune(memcpy_threads=threads, streaming_min=0 if streaming else 1 << 62)
                tag = f"{threads:>2} threads, {'streaming' if streaming else 'plain    '}"
                if not streaming:
                    rows.append(
                        (
                            f"sweep htod 256 MiB {tag}",
                            gbs(lambda: drv.memcpy_htod(dev, pageable), nbytes),
                            "GB/s",
                        )
                    )
                rows.append(
                    (
                        f"sweep dtoh 256 MiB {tag}",
                        gbs(lambda: drv.memcpy_dtoh(out, dev), nbytes),
                        "GB/s",
                    )
                )
    finally:
        tune(memcpy_threads=config["memcpy_threads"], streaming_min=config["streaming_min"])
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    parser.add_argument("--sweep", action="store_true", help="also time the staging settings")
    args = parser.parse_args()
    try:
        import cupy as cp
    except ImportError:
        cp = None
    rows: list[Row] = []
    for nbytes in SIZES:
        rows += pycuda_rows(nbytes)
        if cp is not None:
            rows += cupy_rows(cp, nbytes)
    rows.append(inout_row())
    if args.sweep:
        rows += sweep_rows()
    # A build without staging (to measure the baseline) has no such function.
    config = getattr(_driver, "_staged_copy_config", None)
    report(rows, args.json, staging=config() if config else None)


if __name__ == "__main__":
    main()
