"""pycuda._default_allocator: which allocator the arrays of a context use when given none.

The choice is made when a context's array state is made (its first array), from
``pycuda.tools.set_default_allocator(...)`` where that was called, else from the environment
variable ``PYCUDA_DEFAULT_ALLOCATOR``:

- ``"pool"`` (the default): the context's caching ``DeviceMemoryPool``, as in the original;
- ``"stream_ordered"``: a ``StreamOrderedAllocator`` on the default stream, taking blocks from
  the device's current driver pool with ``cuMemAllocAsync`` (CUDA 11.2+).

    from pycuda.tools import set_default_allocator
    set_default_allocator("stream_ordered")
    a = gpuarray.zeros(1000, numpy.float32)  # a.gpudata is a StreamOrderedAllocation
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

__all__ = ["ENV_VAR", "KINDS", "set_default_allocator", "get_default_allocator", "on_change"]

ENV_VAR = "PYCUDA_DEFAULT_ALLOCATOR"
KINDS = ("pool", "stream_ordered")

AllocatorFactory = Callable[[], Callable[[int], Any]]


class _Choice:
    made: str | AllocatorFactory | None = None  # None: the environment decides
    listeners: list[Callable[[], None]] = []


def set_default_allocator(kind: str | AllocatorFactory | None) -> None:
    """Choose the allocator of arrays given none: ``"pool"`` (a caching DeviceMemoryPool per
    context, the default), ``"stream_ordered"`` (a StreamOrderedAllocator on the default stream
    per context), a callable that returns an allocator (called once per context, with the
    context current), or None (back to ``$PYCUDA_DEFAULT_ALLOCATOR``).

    Arrays made from now on use it, in every context; arrays made before keep their allocator.
    """
    if kind is not None and not callable(kind) and kind not in KINDS:
        raise ValueError(
            f"set_default_allocator: expected one of {', '.join(map(repr, KINDS))}, a callable "
            f"returning an allocator, or None; got {kind!r}"
        )
    _Choice.made = kind
    for listener in _Choice.listeners:
        listener()


def get_default_allocator() -> str | AllocatorFactory:
    """The choice in force: what set_default_allocator() set, else ``$PYCUDA_DEFAULT_ALLOCATOR``
    (``"pool"`` when unset or empty). A value of the variable that names no kind is ValueError."""
    if _Choice.made is not None:
        return _Choice.made
    kind = os.environ.get(ENV_VAR, "").strip() or "pool"
    if kind not in KINDS:
        raise ValueError(
            f"${ENV_VAR} must be one of {', '.join(map(repr, KINDS))} (or unset), not {kind!r}"
        )
    return kind


def on_change(listener: Callable[[], None]) -> None:
    """Call ``listener()`` whenever set_default_allocator() is called (the array layer forgets
    its per-context states, so that each context takes the new choice)."""
    _Choice.listeners.append(listener)
