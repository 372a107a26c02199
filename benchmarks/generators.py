"""benchmarks/generators.py: the cuRAND-backed generator classes of pycuda.curandom on large arrays.

For each generator class (the original's six, XORWOW, MRG32k3a, Sobol32/64 and their scrambled
forms, plus Philox): the device time of fill_uniform, fill_normal and fill_log_normal into
float32 and fill_poisson into uint32, as bandwidth of the bytes written and as a share of a
device-to-device copy of the same size measured in the same run (a generator only writes, so
the copy's write half is what it could reach: the figure counts the written bytes against the
copy's bytes read plus written over the same time). Then the original's test as a program runs
it: every generator makes each of the four distributions with gen_* and fetches it with .get(),
timed on the host wall clock.

    python benchmarks/generators.py                  # 2^31 elements (8 GiB a float32 array)
    python benchmarks/generators.py --log2 26 --json generators.json
    python benchmarks/generators.py --arithmetic     # and the arithmetic alone (no stores)
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time

import numpy as np

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
from pycuda import curandom, gpuarray

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import report  # noqa: E402

Row = tuple[str, float, str]
LAMBDA = 5.0  # the Poisson mean

CLASSES = (
    curandom.XORWOWRandomNumberGenerator,
    curandom.MRG32k3aRandomNumberGenerator,
    curandom.Sobol32RandomNumberGenerator,
    curandom.ScrambledSobol32RandomNumberGenerator,
    curandom.Sobol64RandomNumberGenerator,
    curandom.ScrambledSobol64RandomNumberGenerator,
    curandom.PhiloxRandomNumberGenerator,
)


def event_ms(op, rounds: int) -> float:
    """Median device time of one op, each between its own pair of events, after one warm-up."""
    op()
    times = []
    for _ in range(rounds):
        start, end = drv.Event(), drv.Event()
        start.record()
        op()
        end.record()
        end.synchronize()
        times.append(end.time_since(start))
    return statistics.median(times)


def fill_rows(n: int, rounds: int, log2: int) -> list[Row]:
    """Device time of each fill of each generator, against a copy of the same size."""
    nbytes = 4 * n
    a = gpuarray.empty(n, np.float32)
    b = gpuarray.empty(n, np.float32)
    copy_ms = event_ms(lambda: drv.memcpy_dtod(b.gpudata, a.gpudata, nbytes), rounds)
    b.gpudata.free()
    copy_tbs = 2 * nbytes / copy_ms / 1e9
    rows: list[Row] = [(f"device-to-device copy, 2^{log2} float32", copy_tbs, "TB/s")]
    u = gpuarray.empty(n, np.uint32)
    for cls in CLASSES:
        gen = cls()
        name = cls.__name__.replace("RandomNumberGenerator", "")
        fills = {
            "uniform": (gen.fill_uniform, a),
            "normal": (gen.fill_normal, a),
            "log_normal": (lambda data, g=gen: g.fill_log_normal(data, 0.0, 1.0), a),
            "poisson": (lambda data, g=gen: g.fill_poisson(data, LAMBDA), u),
        }
        for kind, (fill, data) in fills.items():
            ms = event_ms(lambda f=fill, d=data: f(d), rounds)
            tbs = nbytes / ms / 1e9
            rows.append((f"{name} {kind}", tbs, "TB/s"))
            rows.append((f"{name} {kind}, % of the copy", 100 * tbs / copy_tbs, "%"))
    return rows


# The numbers of a fill made with the same calls and layout, summed instead of stored: the
# arithmetic alone, which no fill of these numbers can beat.
ARITHMETIC = """#include <curand_kernel.h>
extern "C" __global__ void arithmetic(%(state)s *s, float *d, unsigned long long n)
{
    const unsigned int id = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    %(state)s st = s[id];
    float sum = 0.0f;
    for (unsigned long long i = id; i < n; i += stride) {
        const %(type)s r = %(call)s;
        sum += %(sum)s;
    }
    if (sum == 12345.678f)  // keeps the loop; never true
        d[id] = sum;
}
"""
# (the fill, the call its kernel makes, the numbers a call): the Philox calls are its fast
# fills' (pycuda._curand_split), the others the original's kernels'.
CALLS = {
    curandom.XORWOWRandomNumberGenerator: [
        ("uniform", "float", "curand_uniform(&st)", "r", 1),
        ("normal", "float2", "curand_normal2(&st)", "r.x + r.y", 2),
        ("log_normal", "float2", "curand_log_normal2(&st, 0.0f, 1.0f)", "r.x + r.y", 2),
    ],
    curandom.MRG32k3aRandomNumberGenerator: [
        ("uniform", "float", "curand_uniform(&st)", "r", 1),
        ("normal", "float2", "curand_normal2(&st)", "r.x + r.y", 2),
    ],
    curandom.PhiloxRandomNumberGenerator: [
        ("uniform", "float4", "curand_uniform4(&st)", "r.x + r.y + r.z + r.w", 4),
        ("normal", "float4", "curand_normal4(&st)", "r.x + r.y + r.z + r.w", 4),
        ("log_normal", "float4", "curand_log_normal4(&st, 0.0f, 1.0f)", "r.x + r.y + r.z + r.w", 4),
    ],
}


def arithmetic_rows(n: int, rounds: int, copy_tbs: float) -> list[Row]:
    """The arithmetic alone of the pseudo-random fills, as a share of the copy time."""
    from pycuda.compiler import SourceModule

    out = gpuarray.empty(1, np.float32)
    rows: list[Row] = []
    for cls, calls in CALLS.items():
        gen = cls()
        name = cls.__name__.replace("RandomNumberGenerator", "")
        for kind, vector, call, total, per_call in calls:
            keys = {"state": gen.state_type, "type": vector, "call": call, "sum": total}
            f = SourceModule(ARITHMETIC % keys, no_extern_c=True).get_function("arithmetic")
            launch = functools.partial(
                f, gen.state, out.gpudata, np.uint64(n // per_call),
                block=(gen.generators_per_block, 1, 1), grid=(gen.block_count, 1),
            )  # fmt: skip
            ms = event_ms(launch, rounds)
            share = 100 * 4 * n / ms / 1e9 / copy_tbs
            rows.append((f"{name} {kind}, arithmetic alone, % of the copy", share, "%"))
    return rows


def program_seconds(n: int) -> float:
    """As the original's test does: gen_* of each distribution, each result fetched."""
    drv.Context.synchronize()
    t0 = time.perf_counter()
    for cls in CLASSES[:6]:
        gen = cls()
        gen.gen_uniform(n, np.float32).get()
        gen.gen_normal(n, np.float32).get()
        gen.gen_log_normal(n, np.float32, 0.0, 1.0).get()
        gen.gen_poisson(n, np.uint32, LAMBDA).get()
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2", type=int, default=31, help="elements: 2**LOG2 (default 31)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-program", action="store_true", help="skip the gen_* + .get() part")
    parser.add_argument(
        "--arithmetic", action="store_true", help="also time the arithmetic alone, no stores"
    )
    parser.add_argument("--json", help="write the results to this path")
    args = parser.parse_args()
    n = 1 << args.log2
    rows = fill_rows(n, args.rounds, args.log2)
    if args.arithmetic:
        rows += arithmetic_rows(n, args.rounds, rows[0][1])
    if not args.no_program:
        label = f"six generators x four distributions, 2^{args.log2}, with .get()"
        rows.append((label, program_seconds(n), "s"))
    report(rows, args.json, elements=n)


if __name__ == "__main__":
    main()
