"""Layouts of views: reshape (with -1 and order, view or copy), transpose, squeeze and ravel.

Each function takes a layout (shape in elements, strides in bytes) and returns the layout of the
result, so GPUArray can make views exactly where NumPy makes views and copy where NumPy copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

import numpy as np

from pycuda._shape import (
    Shape,
    Strides,
    as_index,
    contiguous_strides,
    is_c_contiguous,
    is_f_contiguous,
    normalize_order,
)

# numpy.exceptions is NumPy >= 1.25; older versions have AxisError at the top level.
AxisError = getattr(np, "exceptions", np).AxisError


def _shape_text(dims: Sequence[int]) -> str:
    """A requested shape as NumPy's reshape errors print it: -1 printed as 'newaxis'."""
    first = 0
    while first < len(dims) and dims[first] < 0:
        first += 1
    parts = [str(d) if d >= 0 else "newaxis" for d in dims[first:]]
    return "(" + ",".join(parts) + ("," if len(dims) == 1 else "") + ")"


def reshape_args(args: tuple[Any, ...]) -> tuple[int, ...]:
    """Turn ``reshape``'s positional arguments (ints, or one tuple/list) into a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, np.ndarray)):
        args = tuple(args[0])
    return tuple(as_index(d, "reshape dimensions") for d in args)


def resolve_shape(size: int, newshape: Sequence[int]) -> Shape:
    """Replace the one -1 of ``newshape`` so it holds ``size`` elements, with NumPy's errors."""
    # NumPy takes any negative entry as the unknown one.
    unknown = [i for i, d in enumerate(newshape) if d < 0]
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    known = prod(d for d in newshape if d >= 0)
    dims = list(newshape)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(
                f"cannot reshape array of size {size} into shape {_shape_text(newshape)}"
            )
        dims[unknown[0]] = size // known
    elif known != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {_shape_text(newshape)}")
    return tuple(dims)


def _nocopy_strides(
    shape: Sequence[int], strides: Sequence[int], newshape: Sequence[int], itemsize: int, order: str
) -> Strides | None:
    """Strides that read the elements of a non-empty layout as ``newshape`` in ``order``, or None.

    Walk old and new dimensions in groups of equal product; each group of old axes must be one
    contiguous run (in ``order``), and its new axes then take strides inside that run. This is
    NumPy's rule, size-1 axes included, so the strides match NumPy's exactly.
    """
    kept = [(n, s) for n, s in zip(shape, strides, strict=True) if n != 1]
    olddims = [n for n, _ in kept]
    oldstrides = [s for _, s in kept]
    newdims = list(newshape)
    fortran = order == "F"
    newstrides = [0] * len(newdims)
    oi = ni = 0
    while ni < len(newdims) and oi < len(olddims):
        oj, nj = _group_ends(olddims, newdims, oi, ni)
        for k in range(oi, oj - 1):
            inner, outer = (k, k + 1) if fortran else (k + 1, k)
            if oldstrides[outer] != olddims[inner] * oldstrides[inner]:
                return None
        if fortran:
            newstrides[ni] = oldstrides[oi]
            for k in range(ni + 1, nj):
                newstrides[k] = newstrides[k - 1] * newdims[k - 1]
        else:
            newstrides[nj - 1] = oldstrides[oj - 1]
            for k in range(nj - 1, ni, -1):
                newstrides[k - 1] = newstrides[k] * newdims[k]
        ni, oi = nj, oj
    # Trailing new axes of length 1 take the stride just past (F) or at (C) the last group.
    last = newstrides[ni - 1] if ni >= 1 else itemsize
    if fortran and ni >= 1:
        last *= newdims[ni - 1]
    for k in range(ni, len(newdims)):
        newstrides[k] = last
    return tuple(newstrides)


def _group_ends(
    olddims: Sequence[int], newdims: Sequence[int], oi: int, ni: int
) -> tuple[int, int]:
    """Ends (exclusive) of the shortest runs of old and new axes from oi, ni with equal products."""
    oj, nj = oi + 1, ni + 1
    new_product, old_product = newdims[ni], olddims[oi]
    while new_product != old_product:
        if new_product < old_product:
            new_product *= newdims[nj]
            nj += 1
        else:
            old_product *= olddims[oj]
            oj += 1
    return oj, nj


def reshape_layout(
    shape: Sequence[int],
    strides: Sequence[int],
    itemsize: int,
    newshape: Sequence[int],
    order: str = "C",
) -> tuple[Shape, Strides | None]:
    """Resolve ``reshape(newshape, order=order)`` of a strided layout.

    Returns ``(shape, strides)`` where ``strides`` is None when NumPy would have to copy (the
    elements cannot be read in ``order`` as the new shape through strides alone), and where a
    contiguous layout keeps its shape but is not contiguous in ``order``: NumPy returns a view
    with the old strides there, the original an array laid out in ``order`` (its test suite
    checks ``a.reshape(a.shape, order="F").flags.f_contiguous``), which a copy in ``order``
    gives with NumPy's values.
    """
    order = normalize_order(order)
    contiguous = is_c_contiguous if order == "C" else is_f_contiguous
    other = is_f_contiguous if order == "C" else is_c_contiguous
    in_order = contiguous(shape, strides, itemsize)
    other_order_only = not in_order and other(shape, strides, itemsize)
    if tuple(newshape) == tuple(shape) and not other_order_only:
        return tuple(shape), tuple(strides)  # NumPy returns a plain view, strides untouched
    resolved = resolve_shape(prod(shape), newshape)
    if resolved == tuple(shape) and other_order_only:
        return resolved, None  # the original's layout in `order`: a copy
    if in_order:
        return resolved, contiguous_strides(resolved, itemsize, order)
    return resolved, _nocopy_strides(shape, strides, resolved, itemsize, order)


def ravel_layout(
    shape: Sequence[int], strides: Sequence[int], itemsize: int, order: str = "C"
) -> tuple[Shape, Strides | None]:
    """Layout of ``ravel(order)``; strides None when NumPy copies.

    NumPy's ravel makes a view only of an array contiguous in ``order``: a strided 1-D array is
    copied, although ``reshape(-1)`` of it would be a view.
    """
    order = normalize_order(order)
    contiguous = is_c_contiguous if order == "C" else is_f_contiguous
    if not contiguous(shape, strides, itemsize):
        return (prod(shape),), None
    return reshape_layout(shape, strides, itemsize, (prod(shape),), order)


def normalize_axis(axis: Any, ndim: int) -> int:
    """An axis number in ``range(ndim)``, negatives counted from the end (NumPy's AxisError)."""
    value = as_index(axis, "axes")
    if not -ndim <= value < ndim:
        raise AxisError(value, ndim)
    return value % ndim


def transpose_layout(
    shape: Sequence[int], strides: Sequence[int], axes: Sequence[Any] | None = None
) -> tuple[Shape, Strides]:
    """Layout of ``transpose(axes)``: axes reversed when ``axes`` is None, else permuted."""
    ndim = len(shape)
    if axes is None:
        perm = list(range(ndim))[::-1]
    else:
        if len(axes) != ndim:
            raise ValueError("axes don't match array")
        perm = [normalize_axis(a, ndim) for a in axes]
        if len(set(perm)) != ndim:
            raise ValueError("repeated axis in transpose")
    return tuple(shape[a] for a in perm), tuple(strides[a] for a in perm)


def squeeze_layout(
    shape: Sequence[int], strides: Sequence[int], axis: Any = None
) -> tuple[Shape, Strides]:
    """Layout of ``squeeze(axis)``: drop the given axes (all of length 1 when ``axis`` is None)."""
    ndim = len(shape)
    if axis is None:
        drop = {a for a in range(ndim) if shape[a] == 1}
    else:
        items = axis if isinstance(axis, (tuple, list)) else (axis,)
        drop = {normalize_axis(a, ndim) for a in items}
        if len(drop) != len(items):
            raise ValueError("repeated axis")
        if any(shape[a] != 1 for a in drop):
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    keep = [a for a in range(ndim) if a not in drop]
    return tuple(shape[a] for a in keep), tuple(strides[a] for a in keep)


def dtype_view_layout(
    shape: Sequence[int], strides: Sequence[int], itemsize: int, new_itemsize: int
) -> tuple[Shape, Strides]:
    """Layout of ``view(dtype)`` with elements of ``new_itemsize`` bytes, by NumPy's rules.

    A different element size reinterprets the last axis, which must then be contiguous: its
    length is scaled by ``itemsize / new_itemsize`` and its stride becomes ``new_itemsize``.
    """
    if new_itemsize == itemsize:
        return tuple(shape), tuple(strides)
    if not shape:
        raise ValueError(
            "Changing the dtype of a 0d array is only supported if the itemsize is unchanged"
        )
    last = len(shape) - 1
    if shape[last] != 1 and prod(shape) != 0 and strides[last] != itemsize:
        raise ValueError(
            "To change to a dtype of a different size, the last axis must be contiguous"
        )
    if new_itemsize < itemsize:
        if new_itemsize == 0 or itemsize % new_itemsize:
            raise ValueError(
                "When changing to a smaller dtype, its size must be a divisor of the size of "
                "original dtype"
            )
        length = shape[last] * (itemsize // new_itemsize)
    else:
        if shape[last] * itemsize % new_itemsize:
            raise ValueError(
                "When changing to a larger dtype, its size must be a divisor of the total size "
                "in bytes of the last axis of the array."
            )
        length = shape[last] * itemsize // new_itemsize
    return tuple(shape[:last]) + (length,), tuple(strides[:last]) + (new_itemsize,)
