"""benchmarks/_compare_versions.py: host costs of two builds of pycuda, same card, same run.

    python benchmarks/_compare_versions.py --before SITE_DIR --after SITE_DIR [--rounds 3]

Each ``SITE_DIR`` holds an installed ``pycuda`` (e.g. ``pip install --target DIR``). The two
are timed in alternating child processes (a host's launch cost drifts between processes too),
each child timing ``a + b`` and ``a * 2`` on 1000 float32, ``sum(a).get()``, and a prepared
launch and a call of an empty kernel, in interleaved rounds (benchmarks/_host_cost.py).
Printed: the median over the children of each figure, in microseconds per call.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

_CHILD = r"""
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import _host_cost
import pycuda.autoinit
import pycuda.driver as drv
from pycuda import gpuarray
from pycuda.compiler import SourceModule

ctx = drv.Context.get_current()
a = gpuarray.to_gpu(np.ones(1000, np.float32))
b = gpuarray.to_gpu(np.ones(1000, np.float32))
f = SourceModule("__global__ void empty(float *x, int n) {}").get_function("empty")
f.prepare("Pi")
grid, block = (1, 1), (32, 1, 1)
ptr = int(a.gpudata)
drain = ctx.synchronize
figures = _host_cost.host_us({
    "a+b": (lambda: a + b, drain),
    "a*2": (lambda: a * 2, drain),
    "sum(a).get()": (lambda: gpuarray.sum(a).get(), drain),
    "prepared_call": (lambda: f.prepared_call(grid, block, ptr, 1000), drain),
    "__call__": (lambda: f(a, np.int32(1000), grid=grid, block=block), drain),
}, rounds=21)
print(json.dumps(figures))
"""


def run_child(site: str, bench_dir: str) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=site)
    out = subprocess.run(
        [sys.executable, "-c", _CHILD, bench_dir],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="site dir holding the older pycuda")
    parser.add_argument("--after", required=True, help="site dir holding the newer pycuda")
    parser.add_argument("--rounds", type=int, default=3, help="child processes per build")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    bench_dir = os.path.dirname(os.path.abspath(__file__))
    samples: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for _ in range(args.rounds):
        for name in ("before", "after"):
            samples[name].append(run_child(getattr(args, name), bench_dir))
    keys = list(samples["before"][0])
    table = {
        name: {k: statistics.median(s[k] for s in runs) for k in keys}
        for name, runs in samples.items()
    }
    print(f"{'host cost, µs per call':<24}{'before':>10}{'after':>10}")
    for k in keys:
        print(f"{k:<24}{table['before'][k]:>10.2f}{table['after'][k]:>10.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"medians": table, "children": samples}, f, indent=1)


if __name__ == "__main__":
    main()
