"""benchmarks/host_overhead.py: the Python (host) cost of ``a+b``, ``sum(a).get()``, ..., on a CPU.

Runs without a GPU: the kernel launch, the device allocation and the copies are replaced by
no-ops (a Python function each, ~0.05 µs), so what is timed is the work our Python code does
around them. On a GPU, the launch itself (``prepared_call``: 3.63 µs on an H200, of which 3.38
µs is ``cuLaunchKernel``) and the 4-byte copy come on top. ``--profile`` prints cProfile's view.

    python benchmarks/host_overhead.py [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import timeit
from types import SimpleNamespace
from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import compiler, cumath, gpuarray, reduction
from pycuda import driver as drv
from pycuda.elementwise import ElementwiseKernel


def _noop(*args: Any) -> None:
    return None


class _Function:
    """What the tools' compiled functions are, with nothing behind the calls."""

    prepared_call = staticmethod(_noop)
    prepared_async_call = staticmethod(_noop)

    def prepare(self, fmt: str) -> _Function:
        return self

    def max_active_blocks_per_multiprocessor(self, block: int) -> int:
        return 8


class _Module:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def get_function(self, name: str) -> _Function:
        return _Function()


class _Device:
    def get_attribute(self, attr: Any) -> int:
        return 2048 if "THREADS" in str(attr) else 132


class _Allocator:
    """Distinct addresses, 256-byte aligned as the pool's blocks are (never reused)."""

    def __init__(self) -> None:
        self.next = 1 << 32

    def __call__(self, size: int) -> int:
        self.next += (size + 511) // 256 * 256
        return self.next


def install() -> _Allocator:
    """Route gpuarray and reduction to the no-op stand-ins (for this process)."""
    allocator = _Allocator()
    compiler.SourceModule = _Module  # type: ignore[misc]
    drv.Context.get_device = staticmethod(lambda: _Device())  # type: ignore[method-assign]
    copies = ("memcpy_dtoh", "memcpy_htod", "memcpy_dtod", "memset_d8")
    noop = SimpleNamespace(**{n + s: _noop for n in copies for s in ("", "_async")})
    # The array layer's seams (as tests/array_seams.py replaces them): one stand-in context.
    core.seams.default_allocator = lambda: allocator
    core.seams.driver = noop
    core.seams.context_handle = lambda: 0
    core.STATES.clear()
    reduction.get_sum_kernel.clear_cache()
    return allocator


def time_us(stmt: Any, number: int = 2000, repeat: int = 100) -> float:
    """The least over ``repeat`` rounds of the mean time of one call, in µs (the least
    disturbed by other work on the machine)."""
    stmt()
    return min(t / number * 1e6 for t in timeit.repeat(stmt, number=number,
                                                                        repeat=repeat))  # fmt: skip


def cases(allocator: _Allocator) -> dict[str, Any]:
    a = gpuarray.GPUArray((1000,), np.float32)
    b = gpuarray.GPUArray((1000,), np.float32)
    x, y = a[::2], b[::2]
    z = gpuarray.GPUArray((1000,), np.float32)
    lin_comb = ElementwiseKernel(
        "float a, float *x, float b, float *y, float *z", "z[i] = a*x[i] + b*y[i]", "lin_comb"
    )
    two, three = np.float32(2), np.float32(3)
    return {
        "a+b, 1000 float32": lambda: a + b,
        "a*2.0, 1000 float32": lambda: a * 2.0,
        "a += b, 1000 float32": lambda: a.__iadd__(b),
        "-a, 1000 float32": lambda: -a,
        "cumath.sqrt(a), 1000 float32": lambda: cumath.sqrt(a),
        "a.fill(2.0), 1000 float32": lambda: a.fill(2.0),
        "x+y, x=a[::2] (strided)": lambda: x + y,
        "ElementwiseKernel z=a*x+b*y": lambda: lin_comb(two, a, three, b, z),
        "GPUArray((1000,), float32)": lambda: gpuarray.GPUArray((1000,), np.float32),
        "sum(a), 1000 float32": lambda: gpuarray.sum(a, allocator=allocator),
        "sum(a).get(), 1000 float32": lambda: gpuarray.sum(a, allocator=allocator).get(),
        "no-op call (the stand-in's own cost)": lambda: _noop(1, 2, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true", help="cProfile each case too")
    args = parser.parse_args()
    allocator = install()
    for name, stmt in cases(allocator).items():
        print(f"{name:40s} {time_us(stmt):8.3f} µs")
        if args.profile:
            profile = cProfile.Profile()
            profile.enable()
            for _ in range(20000):
                stmt()
            profile.disable()
            pstats.Stats(profile).sort_stats("tottime").print_stats(12)


if __name__ == "__main__":
    main()
