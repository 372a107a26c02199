"""Argument handlers: In, Out and InOut copy host arrays to and from a kernel call.

func(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))
"""

from __future__ import annotations

from typing import Any

import numpy as np


class ArgumentHandler:
    """Wraps a host array for a kernel call; the kernel gets a device copy of it."""

    def __init__(self, array: Any) -> None:
        self.array = array
        self.dev_alloc = None

    def get_device_alloc(self) -> Any:
        if self.dev_alloc is None:
            from pycuda._driver import mem_alloc

            nbytes = (
                np.asarray(self.array).nbytes
                if not hasattr(self.array, "nbytes")
                else (self.array.nbytes)
            )
            self.dev_alloc = mem_alloc(max(nbytes, 1))
        return self.dev_alloc

    def pre_call(self, stream: Any) -> None:
        pass

    def post_call(self, stream: Any) -> None:
        pass


class In(ArgumentHandler):
    """Copy the array to the device before the call."""

    def pre_call(self, stream: Any) -> None:
        from pycuda._driver import memcpy_htod, memcpy_htod_async

        if stream is None:
            memcpy_htod(self.get_device_alloc(), self.array)
        else:
            memcpy_htod_async(self.get_device_alloc(), self.array, stream)


class Out(ArgumentHandler):
    """Copy the device copy back into the array after the call."""

    def post_call(self, stream: Any) -> None:
        from pycuda._driver import memcpy_dtoh, memcpy_dtoh_async

        if stream is None:
            memcpy_dtoh(self.array, self.get_device_alloc())
        else:
            memcpy_dtoh_async(self.array, self.get_device_alloc(), stream)


class InOut(In, Out):
    """Copy to the device before the call and back after it."""
