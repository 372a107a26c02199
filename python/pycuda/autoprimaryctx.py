"""pycuda.autoprimaryctx: importing it makes the primary context of the default device current.

    import pycuda.autoprimaryctx
    pycuda.autoprimaryctx.context

The original's variant of autoinit for sharing memory with runtime-API libraries. Here
pycuda.autoinit already uses the primary context, so both modules set up the same context once.
"""

from __future__ import annotations

import atexit

import pycuda.autoinit as _autoinit
from pycuda.tools import make_default_context  # noqa: F401 - the original's module offers it

context = _autoinit.context
device = _autoinit.device


def _forget() -> None:
    # Runs before autoinit's own exit handler (atexit is last-in, first-out), so that the
    # context's last reference is the one autoinit drops.
    global context
    context = None


atexit.register(_forget)
