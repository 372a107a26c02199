"""Argument handlers: In, Out and InOut copy host arrays to and from a kernel call.

func(drv.Out(dest), drv.In(a), drv.In(b), block=(400, 1, 1), grid=(1, 1))

The kernel receives a pointer to a device copy of the array, made for the call (the handler
keeps it, so a handler reused across calls reuses its allocation). With ``stream=None`` the
copies are synchronous; with a stream they are queued on it (use page-locked arrays there).
"""

from __future__ import annotations

from typing import Any

from pycuda._default_allocator import context_allocator
from pycuda._driver import memcpy_dtoh, memcpy_dtoh_async, memcpy_htod, memcpy_htod_async
from pycuda._lazy_import import lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)

# A handler usually lives for one call, and a cuMemAlloc/cuMemFree pair per call cost more than
# copying a few MiB: so its device copy comes from the current context's allocator, the one its
# GPUArrays' temporaries come from (its caching pool by default), whether or not the array
# layer was imported.


class ArgumentHandler:
    """Wraps a host array for a kernel call; the kernel gets a device copy of it."""

    def __init__(self, ary: Any) -> None:  # the original's parameter name
        if isinstance(ary, np.ndarray) and not (ary.flags.c_contiguous or ary.flags.f_contiguous):
            raise ValueError(
                f"{type(self).__name__}() needs a contiguous array (the device copy is one "
                "block of memory); pass numpy.ascontiguousarray(a) and copy back yourself"
            )
        self.array = ary
        self.dev_alloc: Any = None

    def get_device_alloc(self) -> Any:
        """The device copy (allocated on first use, at least one byte, from the context's
        allocator: pycuda._default_allocator.context_allocator())."""
        if self.dev_alloc is None:
            nbytes = getattr(self.array, "nbytes", None)
            if nbytes is None:
                nbytes = np.asarray(self.array).nbytes
            self.dev_alloc = context_allocator()(max(nbytes, 1))
        return self.dev_alloc

    def pre_call(self, stream: Any) -> None:
        """Runs after packing and before the launch."""

    def post_call(self, stream: Any) -> None:
        """Runs after the launch was queued."""


class In(ArgumentHandler):
    """Copy the array to the device before the call."""

    def pre_call(self, stream: Any) -> None:
        """Copy the host array into the device copy (on `stream` when one is given)."""
        if stream is None:
            memcpy_htod(self.get_device_alloc(), self.array)
        else:
            memcpy_htod_async(self.get_device_alloc(), self.array, stream)


class Out(ArgumentHandler):
    """Copy the device copy back into the array after the call."""

    def post_call(self, stream: Any) -> None:
        """Copy the device copy back into the host array (on `stream` when one is given)."""
        if stream is None:
            memcpy_dtoh(self.array, self.get_device_alloc())
        else:
            memcpy_dtoh_async(self.array, self.get_device_alloc(), stream)


class InOut(In, Out):
    """Copy to the device before the call and back after it."""
