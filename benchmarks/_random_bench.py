"""benchmarks/_random_bench.py: curandom.rand and randn of 2^26 float32, beside CuPy's.

Called from benchmarks/reductions.py as ``run()``; needs a current context (pycuda.autoinit).
Each figure is the median over rounds of the mean time of a burst of calls, timed with
events after warm-up, turned into TB/s of bytes written (4 bytes per float32). Each call
allocates its result, as a user's call does.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np

N = 1 << 26
Row = tuple[str, float, str]


def _median_ms(op: Callable[[], object], start_stop, burst: int = 20, rounds: int = 11) -> float:
    for _ in range(3):
        op()
    times = []
    for _ in range(rounds):
        stop = start_stop()
        for _ in range(burst):
            op()
        times.append(stop() / burst)
    return statistics.median(times)


def _pycuda_events():
    import pycuda.driver as drv

    start, end = drv.Event(), drv.Event()
    start.record()

    def stop() -> float:
        end.record()
        end.synchronize()
        return end.time_since(start)

    return stop


def _cupy_events(cp):
    def start_stop():
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()

        def stop() -> float:
            end.record()
            end.synchronize()
            return cp.cuda.get_elapsed_time(start, end)

        return stop

    return start_stop


def _tb_per_s(ms: float) -> float:
    return N * 4 / (ms * 1e-3) / 1e12


def run() -> list[Row]:
    """[(name, TB/s, unit)] for rand and randn of 2^26 float32, ours and CuPy's where present."""
    from pycuda import curandom

    rows: list[Row] = []
    for name, fn in (("rand", curandom.rand), ("randn", curandom.randn)):
        ms = _median_ms(lambda fn=fn: fn((N,), np.float32), _pycuda_events)
        rows.append((f"curandom.{name} 2^26 float32", _tb_per_s(ms), "TB/s"))
    try:
        import cupy as cp
    except ImportError:
        return rows
    for name in ("rand", "randn"):
        fn = getattr(cp.random, name)
        ms = _median_ms(lambda fn=fn: fn(N, dtype=np.float32), _cupy_events(cp))
        rows.append((f"cupy.random.{name} 2^26 float32", _tb_per_s(ms), "TB/s"))
    return rows


if __name__ == "__main__":
    import pycuda.autoinit  # noqa: F401

    for row in run():
        print(f"{row[0]:40s} {row[1]:8.3f} {row[2]}")
