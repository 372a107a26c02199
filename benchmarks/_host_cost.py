"""benchmarks/_host_cost.py: the host cost of small operations, contenders side by side.

A host's launch cost drifts by a microsecond within one process (CPU clocks, other tenants of
the machine): timed one after the other, two contenders could differ by the drift alone. Here
each round times ``calls`` calls of every contender in turn, draining the GPU's queue (untimed)
after each batch, as benchmarks/launch.py times its floor: a full queue would make the host
wait for the GPU, and the time would then be the kernels'. Reported: each contender's median
over the rounds, in microseconds per call.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

Op = Callable[[], object]


def host_us(
    contenders: dict[str, tuple[Op, Op]], calls: int = 256, rounds: int = 41, warmup: int = 3
) -> dict[str, float]:
    """``{name: median µs per call}`` for ``{name: (op, drain)}``, timed in interleaved
    rounds (the first ``warmup`` rounds untimed)."""
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    for r in range(warmup + rounds):
        for name, (op, drain) in contenders.items():
            drain()
            t0 = time.perf_counter()
            for _ in range(calls):
                op()
            elapsed = time.perf_counter() - t0
            drain()
            if r >= warmup:
                samples[name].append(elapsed / calls * 1e6)
    return {name: statistics.median(values) for name, values in samples.items()}
