"""pycuda._fusion_hook: how cumath's and gpuarray's functions hand a traced value to fuse().

While pycuda.elementwise.fuse traces a function, its arguments are stand-ins (pycuda._fusion_trace)
whose class has a ``__pycuda_fusion__`` method. A function that finds no GPUArray where it needs
one asks :func:`call` before it raises: a stand-in among the operands answers with the traced
result. The question is asked only on that path, so calls on GPUArrays pay nothing for it, and
this module imports nothing, so the functions need not import the tracer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def call(name: str, operands: Sequence[Any], params: dict[str, Any]) -> Any:
    """The traced result of the function ``name`` (``cumath.sqrt``, ``select``, ...) of
    ``operands`` with ``params`` (its other arguments), where an operand is a traced value;
    NotImplemented where none is (the caller then raises its own error)."""
    for x in operands:
        handler = getattr(type(x), "__pycuda_fusion__", None)
        if handler is not None:
            return handler(name, operands, params)
    return NotImplemented
