"""pycuda.compyte.array: the original's array helpers shared with PyOpenCL (strides, flags,
common dtypes, ``as_strided``), which client code imports from here or through gpuarray's
private names (``gpuarray._c_contiguous_strides`` ...)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "ArrayFlags",
    "as_strided",
    "bound",
    "c_contiguous_strides",
    "equal_strides",
    "f_contiguous_strides",
    "get_common_dtype",
    "is_c_contiguous_strides",
    "is_f_contiguous_strides",
    "may_share_memory",
]


def f_contiguous_strides(itemsize: int, shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of a Fortran-ordered array of ``shape`` (``()`` for 0-d); an axis of
    length 0 counts as 1 for the strides of the others, as in NumPy."""
    strides = []
    step = itemsize
    for n in shape:
        strides.append(step)
        step *= max(1, n)
    return tuple(strides)


def c_contiguous_strides(itemsize: int, shape: Sequence[int]) -> tuple[int, ...]:
    """The strides of a C-ordered array of ``shape`` (``()`` for 0-d)."""
    return f_contiguous_strides(itemsize, tuple(shape)[::-1])[::-1]


def equal_strides(strides1: Sequence[int], strides2: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether two stride tuples address the same elements of ``shape``: equal except on axes
    of length 1, whose stride is never used."""
    if tuple(strides1) == tuple(strides2):
        return True
    if not len(strides1) == len(strides2) == len(shape):
        return False
    return all(n == 1 or a == b for n, a, b in zip(shape, strides1, strides2, strict=True))


def is_f_contiguous_strides(strides: Sequence[int], itemsize: int, shape: Sequence[int]) -> bool:
    """Whether ``strides`` lay out ``shape`` in Fortran order without gaps (empty: always)."""
    return equal_strides(strides, f_contiguous_strides(itemsize, shape), shape) or (
        0 in tuple(shape)
    )


def is_c_contiguous_strides(strides: Sequence[int], itemsize: int, shape: Sequence[int]) -> bool:
    """Whether ``strides`` lay out ``shape`` in C order without gaps (empty: always)."""
    return equal_strides(strides, c_contiguous_strides(itemsize, shape), shape) or (
        0 in tuple(shape)
    )


class ArrayFlags:
    """``c_contiguous``, ``f_contiguous`` and ``forc`` of an array (any object with ``shape``,
    ``strides`` and ``dtype``), by NumPy's rule as the original's: axes of length 1 may have
    any stride, and an empty array is contiguous."""

    def __init__(self, ary: Any) -> None:
        itemsize, shape, strides = ary.dtype.itemsize, tuple(ary.shape), tuple(ary.strides)
        self.f_contiguous = is_f_contiguous_strides(strides, itemsize, shape)
        self.c_contiguous = is_c_contiguous_strides(strides, itemsize, shape)
        self.forc = self.f_contiguous or self.c_contiguous

    def __repr__(self) -> str:
        return f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}"


def get_common_dtype(obj1: Any, obj2: Any, allow_double: bool) -> np.dtype:
    """The dtype of ``obj1 + obj2`` where ``obj1`` is an array and ``obj2`` an array or a
    scalar (a scalar takes part by its value, as in NumPy's arithmetic); float64 and
    complex128 become float32 and complex64 when ``allow_double`` is false."""
    other = getattr(obj2, "dtype", None)
    if other is None:
        result = (np.zeros(1, obj1.dtype) + obj2).dtype
    else:
        result = np.result_type(obj1.dtype, other)
    if not allow_double:
        result = {np.dtype(np.float64): np.dtype(np.float32)}.get(result, result)
        result = {np.dtype(np.complex128): np.dtype(np.complex64)}.get(result, result)
    return np.dtype(result)


def bound(a: np.ndarray) -> tuple[int, int]:
    """``(low, high)``: the host addresses a NumPy array's elements span (``high`` is the
    address of its last element's first byte, as the original's)."""
    low = high = a.__array_interface__["data"][0]
    for stride, n in zip(a.strides, a.shape, strict=True):
        if stride < 0:
            low += stride * (n - 1)
        else:
            high += stride * (n - 1)
    return low, high


def may_share_memory(a: Any, b: Any) -> bool:
    """Whether two arrays of the same class may overlap (False for different classes)."""
    if a is b:
        return True
    if a.__class__ is not b.__class__:
        return False
    a_low, a_high = bound(a)
    b_low, b_high = bound(b)
    return not (b_low >= a_high or a_low >= b_high)


def as_strided(
    x: np.ndarray, shape: Sequence[int] | None = None, strides: Sequence[int] | None = None
) -> np.ndarray:
    """A view of the host array ``x`` with the given shape and strides (NumPy's
    ``as_strided``)."""
    return np.lib.stride_tricks.as_strided(
        x,
        shape=None if shape is None else tuple(shape),
        strides=None if strides is None else tuple(strides),
    )
