"""pycuda._default_allocator: the allocator of each context, which arrays given none use, and
In/Out/InOut's device copies too (``context_allocator()``: one per context, whatever was
imported).

The choice is made when a context's allocator is first asked for, from
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

from pycuda import _driver

__all__ = [
    "ENV_VAR", "KINDS", "set_default_allocator", "get_default_allocator", "on_change",
    "context_allocator", "context_pool", "forget",
]  # fmt: skip

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
    for kept in _KEPT.values():  # each context chooses again (its pool stays)
        kept.allocate = None
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


# {{{ the allocator of each context


class _Kept:
    """What one context keeps: the Context (so that its handle, the key, is not reused while
    kept), its caching pool and its stream-ordered allocator (each made on first use), and the
    allocator chosen for it (None until asked for, and again after a new choice)."""

    __slots__ = ("allocate", "context", "ordered", "pool")

    def __init__(self, context: Any) -> None:
        self.context = context
        self.pool: Any = None
        self.ordered: Any = None
        self.allocate: Callable[[int], Any] | None = None


# The current context's handle (0 without one) -> what it keeps. Forgotten by
# tools.clear_context_caches() (forget()), which frees the blocks the pools hold.
_KEPT: dict[int, _Kept] = {}


def _kept() -> _Kept:
    handle = _driver._current_context_handle()
    kept = _KEPT.get(handle)
    if kept is None:
        kept = _KEPT[handle] = _Kept(_driver.Context.get_current() if handle else None)
    return kept


def context_pool() -> Any:
    """The current context's caching DeviceMemoryPool (whose ``allocate`` is the default
    allocator of its arrays)."""
    kept = _kept()
    if kept.pool is None:
        kept.pool = _driver.DeviceMemoryPool()
    return kept.pool


def context_allocator() -> Callable[[int], Any]:
    """The current context's allocator of arrays given none and of In/Out/InOut's device
    copies: the same object on every call (the C++ flat launches know the arrays they serve by
    it) until a new choice or clear_context_caches().

    ``"pool"``: the ``allocate`` of :func:`context_pool`; ``"stream_ordered"``: the context's
    StreamOrderedAllocator; a factory: what it returned, called once with the context current.
    """
    kept = _KEPT.get(_driver._current_context_handle())
    if kept is None or kept.allocate is None:
        kept = _kept()
        kept.allocate = _chosen(kept)
    return kept.allocate


def _chosen(kept: _Kept) -> Callable[[int], Any]:
    kind = get_default_allocator()
    if kind == "pool":
        return context_pool().allocate
    if kind == "stream_ordered":
        if kept.ordered is None:
            kept.ordered = _driver.StreamOrderedAllocator()
        return kept.ordered
    allocate = kind()
    if not callable(allocate):
        raise TypeError(
            f"the default allocator factory {kind!r} returned {allocate!r}, which is not "
            "callable (an allocator is called with a byte count)"
        )
    return allocate


def forget() -> None:
    """Drop every context's allocator and pool, freeing the blocks the pools hold (called by
    tools.clear_context_caches())."""
    _KEPT.clear()


# }}}
