"""pycuda._gpuarray_helpers: the original gpuarray module's private helper functions, which
client code calls (reikna's ``_memcpy_discontig``, pycuda.sparse's ``_get_common_dtype``, ...);
gpuarray exports them under their original names. They take GPUArrays and NumPy arrays alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from pycuda._broadcast import broadcast_shapes
from pycuda.characterize import has_double_support
from pycuda.compyte.array import get_common_dtype

__all__ = [
    "_array_like_helper",
    "_compact_strides",
    "_get_broadcasted_binary_op_result",
    "_get_common_dtype",
    "_memcpy_discontig",
]


def _get_common_dtype(obj1: Any, obj2: Any) -> np.dtype:
    """The dtype of ``obj1 + obj2`` (an array and an array or scalar), float32/complex64 where
    the current device has no float64."""
    return get_common_dtype(obj1, obj2, has_double_support())


def _get_broadcasted_binary_op_result(
    obj1: Any, obj2: Any, dtype_getter: Callable[[Any, Any], Any] = _get_common_dtype
) -> Any:
    """A new array for ``obj1 op obj2``: made by the operand whose shape the result has (its
    ``_new_like_me``), as the original; shapes that broadcast otherwise (which the original
    refused) by ``obj1._new_with_changes``."""
    dtype = np.dtype(dtype_getter(obj1, obj2))
    if obj1.shape == obj2.shape or obj2.shape == ():
        return obj1._new_like_me(dtype)
    if obj1.shape == ():
        return obj2._new_like_me(dtype)
    shape = broadcast_shapes(obj1.shape, obj2.shape)
    return obj1._new_with_changes(None, 0, shape=shape, dtype=dtype)


def _compact_strides(a: Any) -> list[int]:
    """Strides of a new contiguous array in ``a``'s axis order (axes sorted by stride, then
    by length, then by position, as the original)."""
    order = sorted((a.strides[axis], a.shape[axis], axis) for axis in range(len(a.shape)))
    strides = [0] * len(a.shape)
    step = a.dtype.itemsize
    for _, n, axis in order:
        strides[axis] = step
        step *= n
    return strides


def _array_like_helper(other_ary: Any, dtype: Any, order: str) -> tuple[Any, str, list[int] | None]:
    """``(dtype, order, strides)`` of an ``empty_like(other_ary, dtype, order)``, as NumPy's
    ``*_like`` functions pick them: 'A' and 'K' resolved to 'C' or 'F', and 'K' of an array
    that is neither keeping its (absolute) strides, rescaled to the new item size."""
    strides = None
    if order == "A":
        flags = other_ary.flags
        order = "F" if flags.f_contiguous and not flags.c_contiguous else "C"
    elif order == "K":
        flags = other_ary.flags
        if flags.c_contiguous or other_ary.ndim <= 1:
            order = "C"
        elif flags.f_contiguous:
            order = "F"
        else:
            strides = [abs(int(s)) for s in other_ary.strides]
            if dtype is not None and np.dtype(dtype) != other_ary.dtype:
                old = other_ary.dtype.itemsize
                strides = [s * np.dtype(dtype).itemsize // old for s in strides]
    elif order not in ("C", "F"):
        raise ValueError(f"Unsupported order: {order!r}")
    if dtype is None:
        dtype = other_ary.dtype
    return dtype, order, strides


def _is_device_array(x: Any) -> bool:
    return hasattr(x, "gpudata") and not isinstance(x, np.ndarray)


def _memcpy_discontig(dst: Any, src: Any, async_: bool = False, stream: Any = None) -> None:
    """Copy ``src`` into ``dst`` (each a GPUArray or a NumPy array, of the same shape and
    dtype, any strides): host to device, device to host, device to device or host to host."""
    for name, x in (("src", src), ("dst", dst)):
        if not (isinstance(x, np.ndarray) or _is_device_array(x)):
            raise TypeError(f"{name} must be GPUArray or ndarray, got {type(x).__name__}")
    if src.shape != dst.shape:
        raise ValueError(f"src and dst must be same shape, got {src.shape} and {dst.shape}")
    if src.dtype != dst.dtype:
        raise TypeError(f"src and dst must have same dtype, got {src.dtype} and {dst.dtype}")
    if isinstance(src, np.ndarray) and isinstance(dst, np.ndarray):
        dst[...] = src
    elif isinstance(src, np.ndarray):
        dst.set(src, async_=async_, stream=stream)
    elif isinstance(dst, np.ndarray):
        src.get(dst, async_=async_, stream=stream)
    else:
        dst.set(src, async_=async_, stream=stream)
