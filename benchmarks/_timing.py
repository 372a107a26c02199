"""benchmarks/_timing.py: how benchmarks time an operation: CUDA events around bursts, or wall.

Importable without a GPU (importing pycuda.driver needs no driver; nothing here calls one until a
timer is used), so programs that must fail politely where there is none can import it.

- ``device_ms``: the median over rounds of the mean time of one call in a burst of calls,
  between two events: the device's time where the device is the bottleneck, the host's cost
  per call where the calls are too small to keep it busy.
- ``seconds``: the median host wall time of one synchronous call (transfers, or a result
  brought back to the host).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

import pycuda.driver as drv

Op = Callable[[], object]


def device_ms(op: Op, sync: Op, record, burst: int = 20, rounds: int = 15) -> float:
    """Median over rounds of the mean time of one op, from events around a burst."""
    for _ in range(3):
        op()
    sync()
    times = []
    for _ in range(rounds):
        start, end = record()
        for _ in range(burst):
            op()
        times.append(end() / burst)
    return statistics.median(times)


def pycuda_timer():
    """``record()`` for device_ms: records a start event now and returns (event, end), where
    ``end()`` records the stop event, waits for it and returns the milliseconds between."""

    def record():
        a, b = drv.Event(), drv.Event()
        a.record()

        def end():
            b.record()
            b.synchronize()
            return b.time_since(a)

        return a, end

    return record


def cupy_timer(cp):
    """``record()`` for device_ms with CuPy's events (on CuPy's current stream)."""

    def record():
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()

        def end():
            b.record()
            b.synchronize()
            return cp.cuda.get_elapsed_time(a, b)

        return a, end

    return record


def seconds(
    op: Op,
    total_bytes: int,
    budget: int = 2 << 30,
    least: int = 5,
    most: int = 200,
    warmup: int = 3,
) -> float:
    """Median wall time of one call of `op`: ``budget // total_bytes`` rounds (bounded by
    ``least`` and ``most``: ~2 GB moved by default), after ``warmup`` untimed calls."""
    rounds = max(least, min(most, budget // max(total_bytes, 1)))
    for _ in range(warmup):
        op()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        op()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)
