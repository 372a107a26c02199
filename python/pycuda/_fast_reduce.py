"""pycuda._fast_reduce: the fast path of ``gpuarray.sum(a)``, ``max(a)`` and ``min(a)`` over a
whole C-contiguous array.

The general path (pycuda._reduce_ops, then ReductionKernel.__call__) checks its arguments and
works out the launches on every call. Here they are worked out once per (reduction, dtype, n,
address modulo 16) and context, from the same kernel and ReductionKernel._stage1, so the same
kernels run with the same grids: the results are bit-identical. What is kept lives in the
context's _FastContext (pycuda._fast_ops), so tools.clear_context_caches() forgets it. The path
returns None where the general path must decide, and raises nothing of its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from pycuda import _fast_ops


class _Launches(NamedTuple):
    """What one reduction of n elements at one alignment launches, and its result."""

    stage1: Callable[..., None]  # stage 1's prepared_call
    grid: tuple[int, int]  # stage 1's grid
    block: tuple[int, int, int]
    stage2: Callable[..., None] | None  # None: stage 1 writes the result
    blocks: int  # stage 1's blocks: the partials stage 2 reduces
    partial_bytes: int
    result: np.dtype
    itemsize: int  # the result's


_ONE_BLOCK = (1, 1)


def _launches(
    state: Any, kernel_of: Callable[[np.dtype], Any], a: Any, n: int, ptr: int
) -> _Launches | None:
    """Works out (and keeps in ``state``) the launches of ``kernel_of(a.dtype)`` over ``a``
    as ReductionKernel.__call__ makes them; None where that kernel is not the one-array kind."""
    dtype = a.dtype
    try:
        krnl = kernel_of(dtype)
    except (TypeError, ValueError, KeyError):
        return None  # the general path raises it, with its own message
    if krnl._single is None or krnl._single[0] != dtype:
        return None
    align = krnl._single[1]
    if align is not None and 16 % align:
        return None  # whether 16-byte loads apply would depend on more than ptr % 16
    func, blocks, direct = krnl._stage1(n, align is not None and not ptr % align)
    stage2 = None if direct else krnl.stage2_func.prepared_call
    result = krnl.result_dtype
    entry = _Launches(
        func.prepared_call, (blocks, 1), krnl._block, stage2, blocks,
        blocks * krnl.dtype_out.itemsize, result, result.itemsize,
    )  # fmt: skip
    if len(state.reductions) >= _fast_ops._MAX_LAUNCHES:
        state.reductions.clear()
    state.reductions[(kernel_of, dtype, n, ptr & 15)] = entry
    return entry


def reduce_whole(kernel_of: Callable[[np.dtype], Any], a: Any, allocator: Any) -> Any:
    """``kernel_of(a.dtype)(a, allocator=allocator)`` (a new 0-d GPUArray) when ``a`` is a
    non-empty C-contiguous GPUArray; None where the general path must decide.

    ``kernel_of``: the module reduction's kernel factory for a dtype (part of the key).
    """
    fast = _fast_ops  # whose bind() gives it gpuarray's GPUArray
    array_type = fast.GPUArray
    if type(a) is not array_type:
        return None
    n = a.size
    if not n or not a._c:
        return None
    state = fast._FAST_CONTEXTS.get(fast._context_handle()) or fast._fast_context()
    ptr = a.ptr
    entry = state.reductions.get((kernel_of, a.dtype, n, ptr & 15))
    if entry is None:
        entry = _launches(state, kernel_of, a, n, ptr)
        if entry is None:
            return None
    stage1, grid, block, stage2, blocks, partial_bytes, result, itemsize = entry
    if allocator is None:
        allocator = a.allocator
    gpudata = (allocator or state.allocate)(itemsize)
    out = int(gpudata)
    if stage2 is None:
        stage1(_ONE_BLOCK, block, out, ptr, n)
    else:
        # As the general path's partials: from the allocator, else the context's pool.
        partials = (allocator or state.allocate)(partial_bytes)
        stage1(grid, block, partials, ptr, n)
        stage2(_ONE_BLOCK, block, out, partials, blocks)
    return array_type._fresh((), result, (), 1, allocator, gpudata, out)
