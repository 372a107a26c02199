"""benchmarks/_gpu.py: the check a benchmark makes before it needs a GPU: a clear exit if none.

Importing pycuda.driver needs no driver, so a benchmark can be imported (and its argument
parsing and reports tested) anywhere; only measuring needs a device, and where there is none it
should say so in one line rather than with a traceback from deep inside the first allocation.
"""

from __future__ import annotations

import sys

import pycuda.driver as drv


def require_gpu(program: str) -> int:
    """The number of CUDA devices; exits with ``program: no usable CUDA GPU (why)`` (status 1)
    where the driver is missing, fails to start, or reports no device."""
    try:
        drv.init()
        count = drv.Device.count()
        why = "the CUDA driver reports no devices"
    except drv.Error as exc:
        count, why = 0, str(exc).splitlines()[0]
    if count == 0:
        sys.exit(f"{program}: no usable CUDA GPU ({why}); nothing was measured")
    return count
