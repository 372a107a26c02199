"""Device memory helpers of pycuda.driver that are plain compositions of the core calls.

buf = drv.to_device(numpy.arange(4, dtype=numpy.float32))
back = drv.from_device(buf, (4,), numpy.float32)
"""

from __future__ import annotations

from typing import Any

from pycuda import _driver
from pycuda._arg_checks import require
from pycuda._lazy_import import lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)

__all__ = ["mem_alloc_like", "to_device", "from_device", "from_device_like"]


def mem_alloc_like(ary: Any) -> _driver.DeviceAllocation:
    """Device memory of ``ary.nbytes`` bytes."""
    require(ary, "nbytes", "mem_alloc_like", "an array (with .nbytes)")
    return _driver.mem_alloc(ary.nbytes)


def to_device(bf_obj: Any) -> _driver.DeviceAllocation:
    """A new device allocation holding a copy of the (contiguous) host buffer ``bf_obj``."""
    nbytes = memoryview(bf_obj).nbytes
    result = _driver.mem_alloc(nbytes)
    _driver.memcpy_htod(result, bf_obj)
    return result


def from_device(devptr: Any, shape: Any, dtype: Any, order: str = "C") -> np.ndarray:
    """A new host array of ``shape`` and ``dtype`` copied from ``devptr``."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    result = np.empty(shape, dtype, order=order)
    _driver.memcpy_dtoh(result, devptr)
    return result


def from_device_like(devptr: Any, other_ary: np.ndarray) -> np.ndarray:
    """A new host array like ``other_ary`` (shape, dtype, order) copied from ``devptr``."""
    result = np.empty_like(other_ary)
    _driver.memcpy_dtoh(result, devptr)
    return result
