"""benchmarks/_host_breakdown.py: where the host cost of a small ``a+b`` goes, on a GPU.

Times, in interleaved rounds (benchmarks/_host_cost.py), ``a+b`` on 1000 float32 elements, the
C++ path alone (``_array_core.FLAT.binary``) and the bare ``prepared_call`` of the same kernel;
then again with two 2^26-element arrays alive, after big operations, and after the pool freed
its blocks (the conditions of benchmarks/arrays.py). Diagnostic, not part of the reported set:

    python benchmarks/_host_breakdown.py
"""

from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _host_cost import host_us  # noqa: E402


def main() -> None:
    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv
    import pycuda.gpuarray as ga
    from pycuda import _array_core, cumath

    sync = drv.Context.synchronize
    small = ga.to_gpu(np.ones(1000, np.float32))
    out = small + small  # the Python path makes and remembers the launch
    state = _array_core.state()
    (launch,) = [v for k, v in state.plans.items() if k[1] == 1000]
    call, grid, block = launch[:3]
    flat = _array_core.FLAT

    def bare() -> None:
        call(grid, block, out.ptr, small.ptr, small.ptr, 1000)

    def show(when: str) -> None:
        rows = host_us(
            {
                "a+b": (lambda: small + small, sync),
                "FlatLaunches.binary": (lambda: flat.binary(small, "add", small, False), sync),
                "prepared_call": (bare, sync),
            },
            rounds=21,
        )  # fmt: skip
        print(f"{when:24s} " + "  ".join(f"{k} {v:6.3f} us" for k, v in rows.items()))

    show("alone")
    n = 1 << 26
    x, y = ga.to_gpu(np.ones(n, np.float32)), ga.to_gpu(np.ones(n, np.float32))
    show("two 2^26 arrays")
    for _ in range(20):
        2 * x, x + y, cumath.sqrt(cumath.fabs(x)), x[::2] + y[::2]
    sync()
    show("after big operations")
    del x, y
    _array_core.default_pool().free_held()
    show("pool freed")


if __name__ == "__main__":
    main()
