"""benchmarks/graphs.py: 1000 small `a + b` as one CUDA graph launch against 1000 eager launches.

Eager: the GPUArray operator, one kernel launch (and one pool allocation) per sum, each paying
the host's cost of a launch. Graph: the same 1000 sums recorded once by stream capture,
instantiated once, then launched with one call. Reported: median wall microseconds over rounds
for all 1000 sums (synchronized at the end), per sum, and the one-off cost of capturing and
instantiating. Without a GPU it exits with one line.

    python benchmarks/graphs.py [--ops 1000] [--n 1024] [--rounds 15] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _gpu import require_gpu  # noqa: E402


def wall_us(run: Callable[[], object], sync: Callable[[], object], rounds: int) -> float:
    """Median wall microseconds of run() followed by sync(), after two untimed warm-ups."""
    for _ in range(2):
        run()
        sync()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=1000, help="sums per round (default 1000)")
    parser.add_argument("--n", type=int, default=1024, help="elements per array (default 1024)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    require_gpu("benchmarks/graphs.py")

    import pycuda.autoinit  # noqa: F401 - only once require_gpu has found a device

    rng = np.random.default_rng(0)
    a = gpuarray.to_gpu(rng.random(args.n, dtype=np.float32))
    b = gpuarray.to_gpu(rng.random(args.n, dtype=np.float32))
    stream = drv.Stream()

    def eager() -> None:
        for _ in range(args.ops):
            a + b  # noqa: B018 - the launch is what is measured

    a + b  # the kernel is compiled and loaded before anything is timed
    drv.Context.synchronize()
    t0 = time.perf_counter()
    with stream.capture() as cap:
        sums = [a + b for _ in range(args.ops)]
    graph = cap.graph.instantiate()
    setup_us = (time.perf_counter() - t0) * 1e6

    eager_us = wall_us(eager, drv.Context.synchronize, args.rounds)
    graph_us = wall_us(lambda: graph.launch(stream), stream.synchronize, args.rounds)
    assert np.allclose(sums[-1].get(), a.get() + b.get()), "the graph's sums are wrong"

    rows = {
        "ops": args.ops,
        "n": args.n,
        "eager_us": eager_us,
        "graph_us": graph_us,
        "capture_and_instantiate_us": setup_us,
        "device": drv.Context.get_device().name(),
    }
    print(f"{args.ops} x a+b (n={args.n}) on {rows['device']}")
    print(f"  eager : {eager_us:10.1f} us  ({eager_us / args.ops:.2f} us per sum)")
    print(f"  graph : {graph_us:10.1f} us  ({graph_us / args.ops:.2f} us per sum)")
    print(f"  capture + instantiate, once: {setup_us:.1f} us; speedup {eager_us / graph_us:.1f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
