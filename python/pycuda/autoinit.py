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
import os
import sys
from typing import Any

import pycuda.driver as cuda
from pycuda import _driver
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


_forked_child = False


def _note_forked_child() -> None:
    # A child of os.fork() owns none of the parent's CUDA state and may not call the driver
    # (it would be refused): at its exit there is nothing to pop.
    global _forked_child
    _forked_child = True


os.register_at_fork(after_in_child=_note_forked_child)


def _finish_up() -> None:
    global context
    ctx, context = context, None
    clear_context_caches()
    if ctx is None or _forked_child:
        return
    try:
        # Pop ours only if it is on top: popping a context the program pushed later would
        # leave that program's stack wrong, and leaving it there is harmless at exit.
        if cuda.Context.get_current() == ctx:
            cuda.Context.pop()
    except cuda.Error as exc:
        # After a kernel fault every call fails with the fault's code, which the program was
        # already given; the context goes with the process.
        if not _driver._is_sticky_fault(exc.code or 0):
            print(f"pycuda.autoinit: could not pop the context at exit: {exc}", file=sys.stderr)


atexit.register(_finish_up)
