"""benchmarks/reductions.py: reductions, scans and random numbers against the copy bandwidth.

One run on the GPU: sum, max, dot and argmax of 2^26 float32, an inclusive scan of 2^26 int32
(benchmarks/_reduction_bench.py), sums along each axis of a 4096x16384 float32 array, rand and
randn of 2^26 float32 (benchmarks/_random_bench.py), the host cost of sum(a).get() on 1000
elements; CuPy beside each where importable, and the device-to-device copy bandwidth measured in
the same run.

    python benchmarks/reductions.py --json reductions.json
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _random_bench import run as random_run  # noqa: E402
from _reduction_bench import run as reduction_run  # noqa: E402
from _report import report  # noqa: E402

Row = tuple[str, float, str]
ROWS, COLS = 4096, 16384


def _events_ms(op, sync, event_pair, burst: int = 10, rounds: int = 11) -> float:
    for _ in range(3):
        op()
    sync()
    times = []
    for _ in range(rounds):
        start, stop = event_pair()
        start.record()
        for _ in range(burst):
            op()
        stop.record()
        stop.synchronize()
        times.append(stop.time_since(start) / burst)
    return statistics.median(times)


def axis_rows() -> list[Row]:
    """Sums along each axis of a 4096x16384 float32 array: bytes read per second, and as a
    percentage of the device-to-device copy bandwidth of the same array measured here (bytes
    read + written); CuPy's ``cp.sum(x, axis=...)`` beside them."""
    from pycuda import gpuarray

    rng = np.random.default_rng(3)
    host = rng.standard_normal((ROWS, COLS), dtype=np.float32)
    a = gpuarray.to_gpu(host)
    dst = gpuarray.empty_like(a)
    nbytes = host.nbytes

    def pycuda_events():
        return drv.Event(), drv.Event()

    copy_ms = _events_ms(
        lambda: drv.memcpy_dtod(dst.gpudata, a.gpudata, nbytes),
        drv.Context.synchronize,
        pycuda_events,
    )
    copy = 2 * nbytes / copy_ms / 1e9
    rows: list[Row] = [(f"device-to-device copy {ROWS}x{COLS} float32 (read+write)", copy, "TB/s")]
    for axis in (0, 1):
        ms = _events_ms(lambda axis=axis: a.sum(axis=axis), drv.Context.synchronize, pycuda_events)
        rate = nbytes / ms / 1e9
        rows.append((f"pycuda sum(axis={axis}) {ROWS}x{COLS} float32", rate, "TB/s"))
        rows.append(
            (f"pycuda sum(axis={axis}) {ROWS}x{COLS} float32 / copy", 100 * rate / copy, "%")
        )
    try:
        import cupy as cp
    except ImportError:
        return rows
    ca = cp.asarray(host)

    def cupy_events():
        return _CupyEvent(cp), _CupyEvent(cp)

    for axis in (0, 1):
        ms = _events_ms(
            lambda axis=axis: cp.sum(ca, axis=axis), cp.cuda.Device().synchronize, cupy_events
        )
        rate = nbytes / ms / 1e9
        rows.append((f"cupy   sum(axis={axis}) {ROWS}x{COLS} float32", rate, "TB/s"))
        rows.append(
            (f"cupy   sum(axis={axis}) {ROWS}x{COLS} float32 / copy", 100 * rate / copy, "%")
        )
    return rows


class _CupyEvent:
    """A CuPy event with pycuda.driver.Event's record/synchronize/time_since."""

    def __init__(self, cp) -> None:
        self.cp = cp
        self.event = cp.cuda.Event()

    def record(self) -> None:
        self.event.record()

    def synchronize(self) -> None:
        self.event.synchronize()

    def time_since(self, start: _CupyEvent) -> float:
        return self.cp.cuda.get_elapsed_time(start.event, self.event)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    args = parser.parse_args()
    rows: list[Row] = []
    for part in (reduction_run, axis_rows, random_run):
        try:
            rows.extend(part())
        except Exception as exc:  # one failing part must not hide the others' figures
            rows.append((f"{part.__module__}.{part.__name__} FAILED: {exc}", float("nan"), ""))
    report(rows, args.json)


if __name__ == "__main__":
    main()
