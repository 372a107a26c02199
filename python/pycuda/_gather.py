"""python/pycuda/_gather.py: take, put and joining of GPUArrays (gather and scatter kernels).

The original built take/multi_take/multi_take_put on texture references, which CUDA 12 removed;
these are plain loads. Indices follow NumPy's take: negative ones count from the end, and an
index out of range is an IndexError (checked with two reductions before anything is written).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _reduce_ops as reduce_ops
from pycuda._arg_checks import require
from pycuda._dtypes import info
from pycuda._lazy_import import lazy_module

# The element-wise layer (its factories, fusion) loads at the first gather, not with gpuarray.
elementwise = lazy_module("pycuda.elementwise", globals(), "elementwise")

_KERNELS: dict[tuple[str, str, str], Any] = {}


def _kernel(arguments: str, operation: str, name: str) -> Any:
    key = (arguments, operation, name)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS[key] = elementwise.ElementwiseKernel(arguments, operation, name)
    return kernel


# {{{ the kernels: (arguments, operation, name) of an ElementwiseKernel each


def _take_spec(dtype: np.dtype, index: np.dtype) -> tuple[str, str, str]:
    t, it = info(dtype).c_name, info(index).c_name
    return (
        f"{t} *out, {t} *a, {it} *idx, long long size",
        f"out[i] = a[{_index_expr('idx[i]', 'size')}]",
        "pycuda_take",
    )


def _take_put_spec(dtype: np.dtype, dest: np.dtype, src: np.dtype) -> tuple[str, str, str]:
    t, di, si = info(dtype).c_name, info(dest).c_name, info(src).c_name
    return (
        f"{di} *dest_idx, {si} *src_idx, {t} *out, {t} *a, long long offset, "
        "long long out_size, long long a_size",
        f"out[{_index_expr('dest_idx[i]', 'out_size')}] = "
        f"a[{_index_expr('(src_idx[i] + offset)', 'a_size')}]",
        "pycuda_take_put",
    )


def _put_spec(dtype: np.dtype, dest: np.dtype) -> tuple[str, str, str]:
    t, di = info(dtype).c_name, info(dest).c_name
    return (
        f"{di} *dest_idx, {t} *out, {t} *a, long long out_size",
        f"out[{_index_expr('dest_idx[i]', 'out_size')}] = a[i]",
        "pycuda_put",
    )


def _gather_spec(dtype: np.dtype) -> tuple[str, str, str]:
    t = info(dtype).c_name
    return f"{t} *out, {t} *a, long long *offs", "out[i] = a[offs[i]]", "pycuda_gather"


def _scatter_spec(dtype: np.dtype) -> tuple[str, str, str]:
    t = info(dtype).c_name
    return f"{t} *v, {t} *a, long long *offs", "a[offs[i]] = v[i]", "pycuda_scatter"


def kernel_specs(dtype: Any, index: Any) -> list[tuple[str, str, str]]:
    """Every kernel of this module for elements of ``dtype`` and indices of ``index``."""
    dtype, index = np.dtype(dtype), np.dtype(index)
    return [
        _take_spec(dtype, index), _take_put_spec(dtype, index, index), _put_spec(dtype, index),
        _gather_spec(dtype), _scatter_spec(dtype),
    ]  # fmt: skip


# }}}


def _check_indices(indices: Any, size: int, what: str) -> None:
    """Integer, contiguous, and (NumPy's take) within [-size, size)."""
    if not core.is_array(indices) or indices.dtype.kind not in "iu":
        raise TypeError(f"{what}: indices must be a GPUArray of integers")
    if not indices.flags.c_contiguous:
        raise ValueError(f"{what}: indices must be contiguous")
    if indices.size == 0:
        return
    lo, hi = int(reduce_ops.min(indices).get()), int(reduce_ops.max(indices).get())
    if hi >= size:
        raise IndexError(f"index {hi} is out of bounds for axis 0 with size {size}")
    if lo < -size:
        raise IndexError(f"index {lo} is out of bounds for axis 0 with size {size}")


def _flat(a: Any, what: str) -> None:
    require(a, "flags dtype size", what, "a GPUArray")
    if not a.flags.c_contiguous:
        raise ValueError(f"{what}: arrays must be contiguous (take indexes their flat data)")


def _index_expr(name: str, size: str) -> str:
    # Compared as a signed 64-bit value: with unsigned indices `idx < 0` is a comparison the
    # compiler warns about (#186-D), and _check_indices keeps every index below 2**63.
    signed = f"((long long)({name}))"
    return f"({signed} < 0 ? {signed} + {size} : {signed})"


def take(a: Any, indices: Any, out: Any = None, stream: Any = None) -> Any:
    """``out[i] = a.flat[indices[i]]``; ``out`` has the shape of ``indices``."""
    _flat(a, "take")
    _check_indices(indices, a.size, "take")
    if out is None:
        out = core.new_array(indices.shape, a.dtype, a.allocator)
    elif out.dtype != a.dtype or out.size != indices.size or not out.flags.c_contiguous:
        raise ValueError("take: out must be a contiguous array of a's dtype, sized as indices")
    kernel = _kernel(*_take_spec(a.dtype, indices.dtype))
    kernel(out, a, indices, np.int64(a.size), stream=stream)
    return out


def multi_take(
    arrays: Sequence[Any], indices: Any, out: Sequence[Any] | None = None, stream: Any = None
) -> list[Any]:
    """``[take(a, indices) for a in arrays]`` (the arrays share the index array)."""
    outs = list(out) if out is not None else [None] * len(arrays)
    if len(outs) != len(arrays):
        raise ValueError("multi_take: out must have one array per input array")
    return [take(a, indices, o, stream) for a, o in zip(arrays, outs, strict=True)]


def multi_take_put(
    arrays: Sequence[Any],
    dest_indices: Any,
    src_indices: Any,
    dest_shape: Any = None,
    out: Sequence[Any] | None = None,
    stream: Any = None,
    src_offsets: Sequence[int] | None = None,
) -> list[Any]:
    """``out[k].flat[dest_indices[i]] = arrays[k].flat[src_indices[i] + src_offsets[k]]``."""
    require(dest_indices, "size dtype", "multi_take_put: dest_indices", "a GPUArray")
    require(src_indices, "size dtype", "multi_take_put: src_indices", "a GPUArray")
    if dest_indices.size != src_indices.size:
        raise ValueError("multi_take_put: dest_indices and src_indices differ in size")
    offsets = list(src_offsets) if src_offsets is not None else [0] * len(arrays)
    outs = _outputs(arrays, dest_shape, out, "multi_take_put")
    for a, o, offset in zip(arrays, outs, offsets, strict=True):
        _flat(a, "multi_take_put")
        _flat(o, "multi_take_put")
        _check_indices(dest_indices, o.size, "multi_take_put")
        if src_indices.size:
            shifted = src_indices + offset if offset else src_indices
            _check_indices(shifted, a.size, "multi_take_put")
        kernel = _kernel(*_take_put_spec(a.dtype, dest_indices.dtype, src_indices.dtype))
        kernel(
            dest_indices,
            src_indices,
            o,
            a,
            np.int64(offset),
            np.int64(o.size),
            np.int64(a.size),
            stream=stream,
        )
    return outs


def multi_put(
    arrays: Sequence[Any],
    dest_indices: Any,
    dest_shape: Any = None,
    out: Sequence[Any] | None = None,
    stream: Any = None,
) -> list[Any]:
    """``out[k].flat[dest_indices[i]] = arrays[k].flat[i]``."""
    outs = _outputs(arrays, dest_shape, out, "multi_put")
    for a, o in zip(arrays, outs, strict=True):
        _flat(a, "multi_put")
        _flat(o, "multi_put")
        if a.size != dest_indices.size:
            raise ValueError("multi_put: each array needs one element per destination index")
        _check_indices(dest_indices, o.size, "multi_put")
        kernel = _kernel(*_put_spec(a.dtype, dest_indices.dtype))
        kernel(dest_indices, o, a, np.int64(o.size), stream=stream)
    return outs


def _outputs(
    arrays: Sequence[Any], dest_shape: Any, out: Sequence[Any] | None, what: str
) -> list[Any]:
    for a in arrays:
        require(a, "dtype size allocator", what, "GPUArrays")
    if out is not None:
        outs = list(out)
        for o in outs:
            require(o, "dtype size", what, "GPUArrays")
        if len(outs) != len(arrays):
            raise ValueError(f"{what}: out must have one array per input array")
        for a, o in zip(arrays, outs, strict=True):
            if o.dtype != a.dtype:
                raise TypeError(f"{what}: out arrays must have their inputs' dtypes")
        return outs
    if dest_shape is None:
        raise ValueError(f"{what}: give dest_shape or out")
    return [core.new_array(dest_shape, a.dtype, a.allocator) for a in arrays]


def concatenate(arrays: Sequence[Any], axis: int = 0, allocator: Any = None) -> Any:
    """NumPy's concatenate for GPUArrays (the result dtype is ``np.result_type`` of theirs)."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    for a in arrays:
        require(a, "ndim shape dtype allocator", "concatenate", "GPUArrays")
    ndim = arrays[0].ndim
    if ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    axis %= ndim
    for a in arrays[1:]:
        if a.ndim != ndim:
            raise ValueError(
                "all the input array dimensions except for the concatenation axis must match "
                f"exactly, but along dimension 0, the arrays have {ndim} and {a.ndim} "
                "dimensions"
            )
        for d in range(ndim):
            if d != axis and a.shape[d] != arrays[0].shape[d]:
                raise ValueError(
                    "all the input array dimensions except for the concatenation axis must "
                    f"match exactly, but along dimension {d}, the array at index 0 has size "
                    f"{arrays[0].shape[d]} and the other has size {a.shape[d]}"
                )
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    dtype = np.result_type(*[a.dtype for a in arrays])
    out = core.new_array(tuple(shape), dtype, allocator or arrays[0].allocator)
    start = 0
    for a in arrays:
        stop = start + a.shape[axis]
        if stop > start:
            out[(slice(None),) * axis + (slice(start, stop),)] = a
        start = stop
    return out


def stack(arrays: Sequence[Any], axis: int = 0, allocator: Any = None) -> Any:
    """NumPy's stack: join same-shape arrays along a new axis."""
    arrays = list(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    for a in arrays:
        require(a, "ndim shape dtype allocator", "stack", "GPUArrays")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    ndim = len(shape) + 1
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    axis %= ndim
    expanded = [a[(slice(None),) * axis + (None,)] for a in arrays]
    return concatenate(expanded, axis=axis, allocator=allocator)


# Advanced (integer-array and boolean-mask) indexing: the element offsets of a[key] are worked
# out from the IndexPlan on the host with NumPy, uploaded, and used by one gather or scatter
# kernel. Correct for every key NumPy accepts; a device-side offset computation is the faster
# follow-up for large index arrays.


def _host_index(index: Any) -> np.ndarray:
    """An index array on the host (device index arrays are copied down)."""
    return index.get() if hasattr(index, "gpudata") else np.asarray(index)


def _advanced_offsets(plan: Any, itemsize: int) -> np.ndarray:
    """Element offsets (from the array's first element) of every element of a[key]."""
    index_parts = []
    for entry in plan.advanced:
        values = _host_index(entry.index)
        if entry.is_mask:
            positions = np.nonzero(values)
            part = sum(
                p.astype(np.int64) * s for p, s in zip(positions, entry.strides, strict=True)
            )
            index_parts.append(np.asarray(part, np.int64).reshape(entry.shape))
            continue
        values = values.astype(np.int64)
        (length,), (stride,), (axis,) = entry.lengths, entry.strides, entry.axes
        bad = (values >= length) | (values < -length)
        if bad.any():
            raise IndexError(
                f"index {int(values[bad].flat[0])} is out of bounds for axis {axis} "
                f"with size {length}"
            )
        index_parts.append(np.where(values < 0, values + length, values) * stride)
    advanced = np.zeros(plan.index_shape, np.int64)
    for part in index_parts:
        advanced = advanced + np.broadcast_to(part, plan.index_shape)
    view = np.zeros(plan.shape, np.int64)
    for d, (n, stride) in enumerate(zip(plan.shape, plan.strides, strict=True)):
        axis = [1] * len(plan.shape)
        axis[d] = n
        view = view + (np.arange(n, dtype=np.int64) * stride).reshape(axis)
    at, k = plan.insert_at, len(plan.index_shape)
    view = view.reshape(plan.shape[:at] + (1,) * k + plan.shape[at:])
    advanced = advanced.reshape((1,) * at + plan.index_shape + (1,) * (len(plan.shape) - at))
    total = plan.offset + view + advanced
    if np.any(total % itemsize):
        raise ValueError("advanced indexing needs strides that are multiples of the itemsize")
    return np.ascontiguousarray((total // itemsize).reshape(plan.result_shape))


def _element_zero(a: Any) -> Any:
    """A one-element array at a's first element, standing for a's memory in the kernels."""
    return core.array_class()((1,), a.dtype, gpudata=a.gpudata, base=a)


def advanced_get(a: Any, plan: Any) -> Any:
    """``a[key]`` for a key with integer arrays or boolean masks (a new array, as NumPy)."""
    offsets = _advanced_offsets(plan, a.itemsize)
    out = core.new_array(plan.result_shape, a.dtype, a.allocator)
    if out.size:
        kernel = _kernel(*_gather_spec(a.dtype))
        kernel(out, _element_zero(a), core.to_device(offsets))
    return out


def advanced_set(a: Any, plan: Any, value: Any) -> None:
    """``a[key] = value`` for a key with integer arrays or boolean masks (value broadcast and
    cast as NumPy does; with repeated indices, one of the written values wins)."""
    offsets = _advanced_offsets(plan, a.itemsize)
    if not offsets.size:
        return
    values = core.new_array(plan.result_shape, a.dtype, a.allocator)
    values[...] = value
    kernel = _kernel(*_scatter_spec(a.dtype))
    kernel(values, _element_zero(a), core.to_device(offsets))
