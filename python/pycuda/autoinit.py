"""pycuda.autoinit: importing it makes the primary context of the default device current.

    import pycuda.autoinit
    pycuda.autoinit.device.name()

The device is $CUDA_DEVICE or ~/.cuda_device, else the first that works. The context is the
device's primary context, the one the CUDA runtime API uses, so CuPy, PyTorch and Numba share
memory with it. At exit it is popped and the kernel caches are cleared; contexts the program left
pushed are left alone (exit never aborts).
"""

from __future__ import annotations

import atexit
import sys
from typing import Any

import pycuda.driver as cuda
from pycuda.tools import clear_context_caches, make_default_context

# Without a driver this raises pycuda.driver.RuntimeError saying what is missing and where it
# looked; it must reach the user as it is.
cuda.init()


def _retain_and_push_primary(dev: cuda.Device) -> Any:
    ctx = dev.retain_primary_context()
    ctx.push()
    return ctx


context = make_default_context(_retain_and_push_primary)
device = context.get_device()


def _finish_up() -> None:
    global context
    ctx, context = context, None
    clear_context_caches()
    if ctx is None:
        return
    try:
        # Pop ours only if it is on top: popping a context the program pushed later would
        # leave that program's stack wrong, and leaving it there is harmless at exit.
        if cuda.Context.get_current() == ctx:
            cuda.Context.pop()
    except cuda.Error as exc:  # e.g. a sticky error from an earlier faulting kernel
        print(f"pycuda.autoinit: could not pop the context at exit: {exc}", file=sys.stderr)


atexit.register(_finish_up)
