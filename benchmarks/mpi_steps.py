"""benchmarks/mpi_steps.py: strong scaling over MPI ranks, one GPU each: time per step, fixed size.

A step over N float32 elements split evenly between the ranks: y = a*x + y in place
(ElementwiseKernel) on each rank's part, the part's sum brought to the host
(gpuarray.sum(y).get()), and the ranks' sums added with comm.allreduce: the shape of an
iterative solver's step, local streaming work and then a small reduction every rank waits for.
Each rank works on device rank % device count, in that device's primary context. After warm-up,
K steps are timed between barriers, then K steps of the local work alone (no allreduce); the
figures are per step, of the slowest rank. The result is checked: after k updates every y is
k*a, so the global sum is N*k*a. Effective bandwidth: 16 bytes an element a step (x and y read
by the update, y written, y read by the sum) over the time per step, all ranks together.

    mpirun -np 1 python benchmarks/mpi_steps.py --json np1.json
    mpirun -np 2 python benchmarks/mpi_steps.py --json np2.json
    python benchmarks/mpi_steps.py --table np1.json np2.json    # one markdown table; no GPU

scripts/gpu_mpi_bench.sh runs the three; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray
from pycuda._array_core import default_pool
from pycuda.elementwise import ElementwiseKernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _gpu import require_gpu  # noqa: E402
from _report import report  # noqa: E402

BYTES_PER_ELEMENT = 16
WARMUP = 5
A = np.float32(2.0**-10)  # k*A is exact in float32 for every k this runs
Row = tuple[str, float, str]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--log2-elements", type=int, nargs="+", default=[20, 24, 28], metavar="K",
        help="total sizes 2^K, each timed in turn (20 24 28)",
    )  # fmt: skip
    parser.add_argument("--steps", type=int, help="timed steps per size (200; 50 with --quick)")
    parser.add_argument("--quick", action="store_true", help="fewer steps")
    parser.add_argument("--json", help="write the results to this path (rank 0)")
    parser.add_argument(
        "--table", nargs="+", metavar="JSON", help="only print the markdown table of saved results"
    )
    args = parser.parse_args(argv)
    if args.steps is None:
        args.steps = 50 if args.quick else 200
    if args.steps < 1 or any(not 0 <= k <= 40 for k in args.log2_elements):
        parser.error("need --steps >= 1 and sizes 2^0 .. 2^40")
    return args


def part(n_total: int, ranks: int, rank: int) -> int:
    """This rank's share of n_total elements: even, the remainder to the first ranks."""
    return n_total // ranks + (rank < n_total % ranks)


def timed_steps(comm, add, update, n_total: int, steps: int) -> dict[str, Any]:
    """One size on this rank: seconds of ``steps`` full steps and of ``steps`` local-only
    steps, and whether the final global sum is what the updates must give (``add``: MPI.SUM,
    ``update(a, x, y)``: y = a*x + y)."""
    n = part(n_total, comm.size, comm.rank)
    x = gpuarray.empty(n, np.float32)
    x.fill(1.0)
    y = gpuarray.zeros(n, np.float32)

    def local() -> float:
        update(A, x, y)
        return float(gpuarray.sum(y).get()) if n else 0.0

    def step() -> float:
        return comm.allreduce(local(), op=add)

    for _ in range(WARMUP):
        step()
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        total = step()
    step_s = time.perf_counter() - t0
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(steps):
        local()
    local_s = time.perf_counter() - t0
    # The last global sum came after WARMUP + steps updates of every element.
    expected = float(n_total) * (WARMUP + steps) * float(A)
    return {"step_s": step_s, "local_s": local_s, "ok": abs(total - expected) <= 1e-3 * expected}


def configuration(per_rank: list[dict[str, Any]], n_total: int, steps: int) -> dict[str, Any]:
    """One line of the table from every rank's figures (rank 0 has them all after gather)."""
    step_ms = max(r["step_s"] for r in per_rank) / steps * 1e3
    return {
        "ranks": len(per_rank),
        "gpus": len({r["device"] for r in per_rank}),
        "devices": [f"{r['device']}: {r['name']}" for r in per_rank],
        "elements": n_total,
        "steps": steps,
        "step_ms": step_ms,
        "step_ms_fastest_rank": min(r["step_s"] for r in per_rank) / steps * 1e3,
        "local_ms": max(r["local_s"] for r in per_rank) / steps * 1e3,
        "gbs": BYTES_PER_ELEMENT * n_total / (step_ms * 1e-3) / 1e9,
        "checked": all(r["ok"] for r in per_rank),
    }


def rows(configs: list[dict[str, Any]]) -> list[Row]:
    out: list[Row] = []
    for c in configs:
        name = f"{c['ranks']} rank(s) on {c['gpus']} GPU(s), 2^{c['elements'].bit_length() - 1}"
        check = "" if c["checked"] else "  RESULT WRONG"
        out.append((f"{name}: step (slowest rank)", c["step_ms"], "ms" + check))
        out.append((f"{name}: local work alone", c["local_ms"], "ms"))
    return out


HEADER = (
    "| ranks | GPUs | elements | steps | ms/step (slowest rank) | local work ms/step "
    "| exchange ms/step | speedup vs 1 rank | GB/s (all ranks) | result |\n"
    "|---|---|---|---|---|---|---|---|---|---|"
)


def table(configs: list[dict[str, Any]]) -> str:
    """The markdown table of configurations (sorted by size, then ranks); the speedup is
    against the 1-rank configuration of the same size, where one is among them."""
    configs = sorted(configs, key=lambda c: (c["elements"], c["ranks"]))
    one = {c["elements"]: c["step_ms"] for c in configs if c["ranks"] == 1}
    lines = [HEADER]
    for c in configs:
        base = one.get(c["elements"])
        speedup = f"{base / c['step_ms']:.2f}x" if base else "(no 1-rank run)"
        lines.append(
            f"| {c['ranks']} | {c['gpus']} | 2^{c['elements'].bit_length() - 1} | {c['steps']} "
            f"| {c['step_ms']:.4f} | {c['local_ms']:.4f} | {c['step_ms'] - c['local_ms']:.4f} "
            f"| {speedup} | {c['gbs']:.1f} | {'ok' if c['checked'] else 'WRONG'} |"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace) -> None:
    count = require_gpu("mpi_steps.py")
    try:
        from mpi4py import MPI
    except ImportError as exc:
        sys.exit(f"mpi_steps.py: mpi4py is not importable ({exc}); nothing was measured")
    comm = MPI.COMM_WORLD
    device = drv.Device(comm.rank % count)
    ctx = device.retain_primary_context()
    ctx.push()
    try:
        update = ElementwiseKernel("float a, float *x, float *y", "y[i] = a*x[i] + y[i]", "axpy")
        configs = []
        for k in args.log2_elements:
            mine = timed_steps(comm, MPI.SUM, update, 1 << k, args.steps)
            default_pool().free_held()  # the next size starts from the same free memory
            mine.update(device=comm.rank % count, name=device.name())
            per_rank = comm.gather(mine, root=0)
            if comm.rank == 0:
                configs.append(configuration(per_rank, 1 << k, args.steps))
                print(f"mpi_steps: {comm.size} rank(s), 2^{k}: {configs[-1]['step_ms']:.4f} "
                      "ms/step", file=sys.stderr)  # fmt: skip
        if comm.rank == 0:
            report(rows(configs), args.json, configurations=configs)
            print(table(configs))
    finally:
        ctx.pop()


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    if args.table:
        configs = []
        for path in args.table:
            with open(path) as f:
                configs += json.load(f)["configurations"]
        print(table(configs))
        return
    run(args)


if __name__ == "__main__":
    main()
