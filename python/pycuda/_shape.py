"""Shapes, strides and contiguity flags: the layout rules GPUArray shares with NumPy.

Everything here is arithmetic on tuples of Python ints (shapes in elements, strides in bytes) so
that it runs, and is tested against NumPy, without a GPU.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

Shape = tuple[int, ...]
Strides = tuple[int, ...]


def as_index(value: Any, what: str, allow_bool: bool = False) -> int:
    """Turn one integer-like value (int, numpy integer, 0-d integer array) into a Python int.
    NumPy refuses bools; ``allow_bool`` takes them as 0 and 1, as the original's shapes do."""
    if isinstance(value, (bool, np.bool_)):
        if allow_bool:
            return int(value)
        raise TypeError(f"{what} must be integers, not bool")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(
            f"'{type(value).__name__}' object cannot be interpreted as an integer "
            f"(expected integers for {what})"
        ) from None


def normalize_shape(shape: Any) -> Shape:
    """Turn a shape argument into a tuple of Python ints, as ``numpy.empty`` accepts it.

    Accepts an int, a numpy integer, a tuple or list of those, or an integer ndarray of
    dimension 0 or 1. Raises :exc:`TypeError` for non-integers and :exc:`ValueError` for
    negative dimensions.
    """
    if isinstance(shape, np.ndarray):
        if shape.ndim > 1:
            raise TypeError(
                f"a shape must be 0- or 1-dimensional, got an array of shape {shape.shape}"
            )
        if shape.size and not np.issubdtype(shape.dtype, np.integer):
            raise TypeError(f"a shape array must hold integers, not {shape.dtype}")
        shape = shape.tolist()
    # The original multiplies the dimensions as they come, so True counts as 1 there (as it
    # does in block=(True, 1, 1)): accepted here too, where NumPy refuses it.
    if isinstance(shape, (list, tuple)):
        dims = tuple(as_index(d, "shape dimensions", allow_bool=True) for d in shape)
    else:
        dims = (as_index(shape, "shape dimensions", allow_bool=True),)
    if any(d < 0 for d in dims):
        raise ValueError("negative dimensions are not allowed")
    return dims


def normalize_order(order: str, allowed: str = "CF") -> str:
    """Check a memory-order letter (case-insensitive) and return it in upper case."""
    if not isinstance(order, str) or order.upper() not in allowed or len(order) != 1:
        choices = ", ".join(repr(c) for c in allowed)
        raise ValueError(f"order must be one of {choices}, got {order!r}")
    return order.upper()


def contiguous_strides(shape: Sequence[int], itemsize: int, order: str = "C") -> Strides:
    """Byte strides of a contiguous array of ``shape`` in C (row-major) or F (column-major) order.

    Like NumPy, an axis of length 0 counts as length 1 when the strides of the others are built.
    """
    order = normalize_order(order)
    strides = [0] * len(shape)
    step = itemsize
    axes = range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))
    for axis in axes:
        strides[axis] = step
        step *= max(shape[axis], 1)
    return tuple(strides)


def new_array_strides(shape: Sequence[int], itemsize: int, order: str = "C") -> Strides:
    """Byte strides of a new array, as ``numpy.empty(shape, order=order)`` gives them.

    These are :func:`contiguous_strides`, except that NumPy 2 gives an empty new array all-zero
    strides (its reshape and slices keep the regular ones).
    """
    if 0 in shape:
        normalize_order(order)
        return (0,) * len(shape)
    return contiguous_strides(shape, itemsize, order)


def _is_contiguous(
    shape: Sequence[int], strides: Sequence[int], itemsize: int, axes: Iterable[int]
) -> bool:
    # NumPy's rule: empty arrays are contiguous, and axes of length 1 may have any stride.
    if 0 in shape:
        return True
    expected = itemsize
    for axis in axes:
        if shape[axis] != 1:
            if strides[axis] != expected:
                return False
            expected *= shape[axis]
    return True


def is_c_contiguous(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    """Whether the layout is C-contiguous by NumPy's rules (size-0 and size-1 axes relaxed)."""
    return _is_contiguous(shape, strides, itemsize, range(len(shape) - 1, -1, -1))


def is_f_contiguous(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> bool:
    """Whether the layout is Fortran-contiguous by NumPy's rules."""
    return _is_contiguous(shape, strides, itemsize, range(len(shape)))


@dataclass(frozen=True)
class ArrayFlags:
    """The contiguity flags of an array, as ``GPUArray.flags`` reports them.

    >>> ArrayFlags.of((2, 3), (12, 4), 4)
    ArrayFlags(c_contiguous=True, f_contiguous=False)
    """

    c_contiguous: bool
    f_contiguous: bool

    @property
    def forc(self) -> bool:
        """True when the array is C- or Fortran-contiguous."""
        return self.c_contiguous or self.f_contiguous

    @classmethod
    def of(cls, shape: Sequence[int], strides: Sequence[int], itemsize: int) -> ArrayFlags:
        """Compute the flags of a layout with NumPy's rules."""
        return cls(
            is_c_contiguous(shape, strides, itemsize), is_f_contiguous(shape, strides, itemsize)
        )


def compact_strides(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> Strides:
    """Strides of a new contiguous array that keeps the axis order of ``strides``.

    ``get()`` gives its host array these strides so that a transposed device array is copied
    with one memcpy. Axes are ordered by decreasing absolute stride (ties keep the axis order,
    as C order would), and all resulting strides are positive.
    """
    order = sorted(range(len(shape)), key=lambda axis: -abs(strides[axis]))
    result = [0] * len(shape)
    step = itemsize
    for axis in reversed(order):
        result[axis] = step
        step *= max(shape[axis], 1)
    return tuple(result)


def span_bytes(shape: Sequence[int], strides: Sequence[int], itemsize: int) -> tuple[int, int]:
    """The byte range ``(low, high)`` a strided layout touches, relative to its first element.

    ``high`` is exclusive. An empty array touches nothing: ``(0, 0)``.
    """
    if 0 in shape:
        return (0, 0)
    low = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s < 0)
    high = sum((n - 1) * s for n, s in zip(shape, strides, strict=True) if s > 0)
    return (low, high + itemsize)


def check_aligned_strides(strides: Sequence[int], dtype: np.dtype) -> None:
    """ValueError for strides that are not multiples of ``dtype``'s alignment: NumPy allows
    them on the host, but on the device a kernel reading such an element faults (misaligned
    address) and takes the context with it."""
    if [s for s in strides if s % dtype.alignment]:
        raise ValueError(
            f"strides {tuple(strides)} must be multiples of {dtype}'s alignment "
            f"({dtype.alignment} bytes): a kernel cannot read misaligned elements"
        )


def check_addressable(size: int, itemsize: int) -> None:
    """ValueError for an array of more bytes than an address can span."""
    if size * itemsize > sys.maxsize:
        raise ValueError(
            f"array is too big: {size} elements of {itemsize} bytes exceed the largest "
            f"possible size ({sys.maxsize} bytes)"
        )


def size_of(shape: Sequence[int]) -> int:
    """Number of elements of ``shape`` (1 for the 0-d shape)."""
    return prod(shape)


def like_strides(
    shape: Sequence[int], strides: Sequence[int], itemsize: int, order: str = "K"
) -> Strides:
    """Strides of ``empty_like(a, order=order)`` for an array ``a`` of this layout.

    ``C``/``F`` give those orders; ``A`` gives F when ``a`` is Fortran- but not C-contiguous,
    else C; ``K`` keeps ``a``'s axis order (:func:`compact_strides`).
    """
    order = normalize_order(order, "CFAK")
    if order == "A":
        fortran = is_f_contiguous(shape, strides, itemsize) and not is_c_contiguous(
            shape, strides, itemsize
        )
        order = "F" if fortran else "C"
    if order == "K":
        if is_c_contiguous(shape, strides, itemsize):
            order = "C"
        elif is_f_contiguous(shape, strides, itemsize):
            order = "F"
        else:
            return compact_strides(shape, strides, itemsize)
    return new_array_strides(shape, itemsize, order)
