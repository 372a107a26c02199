"""The module reductions of ``pycuda.gpuarray``: ``sum``, ``dot``, ``max``, ``argmax``, ... over
whole arrays, each returning a 0-d GPUArray, with NumPy's result dtypes; and, through
``pycuda._axis_reduction``, along axes (``axis=``, ``out=``, ``keepdims=``, keyword-only after the
original's arguments) and ``prod``, ``mean``, ``var``, ``std`` (NumPy's signatures).

``sum`` widens like ``numpy.sum`` (bool and signed integers narrower than 64 bits to int64,
unsigned ones to uint64); ``dot`` keeps ``numpy.result_type`` of its operands, as ``numpy.dot``
of 1-D arrays does (no conjugation of complex values). float16 and bfloat16 accumulate in
float32 (the dtype table's accumulator).
``max``/``min`` propagate NaN; ``argmax``/``argmin`` return the int64 index of the first
extremum (the first NaN if there is one). ``dot`` and the ``subset_*`` forms need contiguous
arrays; the others take any strides.

    from pycuda import gpuarray
    total = gpuarray.sum(a_gpu).get()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda._array_core import FLAT
from pycuda._dtypes import info
from pycuda._lazy_import import lazy_module

# The kernels' makers load at the first reduction: a program that never reduces never pays
# for their import (about a fifth of the array layer's).
_axis_reduction = lazy_module("pycuda._axis_reduction", globals(), "_axis_reduction")
reduction = lazy_module("pycuda.reduction", globals(), "reduction")


def _check_array(a: Any, what: str) -> None:
    if not hasattr(a, "gpudata") or not hasattr(a, "dtype"):
        raise TypeError(f"{what} must be a GPUArray, got {type(a).__name__}")


def _sum_kernel(dtype: np.dtype) -> reduction.ReductionKernel:
    """The kernel of ``sum(a)`` for an array of ``dtype`` (the fast path's factory)."""
    return reduction.get_sum_kernel(info(dtype).sum_dtype, dtype)


def _max_kernel(dtype: np.dtype) -> reduction.ReductionKernel:
    return reduction.get_minmax_kernel("max", dtype)


def _min_kernel(dtype: np.dtype) -> reduction.ReductionKernel:
    return reduction.get_minmax_kernel("min", dtype)


def _check_subset(subset: Any) -> None:
    _check_array(subset, "subset")
    if subset.dtype.kind not in "iu":
        raise TypeError(f"subset must hold integer indices, got dtype {subset.dtype}")


def _check_nonempty(a: Any, what: str) -> None:
    if a.size == 0:
        raise ValueError(
            f"zero-size array to reduction operation {what} which has no identity"
            if what in ("maximum", "minimum")
            else f"attempt to get {what} of an empty sequence"
        )


def _whole(a: Any, axis: Any, out: Any, keepdims: bool) -> bool:
    """Whether the original's whole-array kernel serves this call (a contiguous array, every
    axis, no out= or keepdims=)."""
    return axis is None and out is None and not keepdims and (a.size == 0 or a.flags.c_contiguous)


def _along(name: str, a: Any, axis: Any, out: Any, keepdims: bool, stream: Any, allocator: Any,
           dtype: Any = None, ddof: int = 0) -> Any:  # fmt: skip
    return _axis_reduction.reduce(name, a, axis, dtype, out, keepdims, stream, allocator, ddof)


def sum(  # noqa: A001
    a: Any,
    dtype: Any = None,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """The sum of the elements of ``a`` (dtype as numpy.sum's): over every axis a 0-d
    GPUArray, as the original; ``axis``, ``out`` and ``keepdims`` as NumPy's."""
    if dtype is None and stream is None and axis is None and out is None and not keepdims:
        result = FLAT.reduce(_sum_kernel, a, allocator, reduction.reduce_whole)
        if result is not None:
            return result
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along("sum", a, axis, out, keepdims, stream, allocator, dtype)
    dtype_out = info(a.dtype).sum_dtype if dtype is None else np.dtype(dtype)
    krnl = reduction.get_sum_kernel(dtype_out, a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def subset_sum(
    subset: Any, a: Any, dtype: Any = None, stream: Any = None, allocator: Any = None
) -> Any:
    """The sum of ``a[subset]`` (``subset``: a GPUArray of integer indices)."""
    _check_subset(subset)
    _check_array(a, "a")
    dtype_out = info(a.dtype).sum_dtype if dtype is None else np.dtype(dtype)
    krnl = reduction.get_subset_sum_kernel(dtype_out, subset.dtype, a.dtype)
    return krnl(subset, a, stream=stream, allocator=allocator)


def _dot_dtype(a: Any, b: Any, dtype: Any) -> np.dtype:
    return np.result_type(a.dtype, b.dtype) if dtype is None else np.dtype(dtype)


def dot(a: Any, b: Any, dtype: Any = None, stream: Any = None, allocator: Any = None) -> Any:
    """``sum(a*b)`` over all elements (numpy.dot of 1-D arrays: no conjugation)."""
    _check_array(a, "a")
    _check_array(b, "b")
    if a.size != b.size:
        raise ValueError(f"dot: a has {a.size} elements and b has {b.size}; they must match")
    krnl = reduction.get_dot_kernel(_dot_dtype(a, b, dtype), a.dtype, b.dtype)
    return krnl(a, b, stream=stream, allocator=allocator)


def subset_dot(
    subset: Any, a: Any, b: Any, dtype: Any = None, stream: Any = None, allocator: Any = None
) -> Any:
    """``sum(a[subset]*b[subset])``."""
    _check_subset(subset)
    _check_array(a, "a")
    _check_array(b, "b")
    if a.size != b.size:
        raise ValueError(f"subset_dot: a has {a.size} elements and b has {b.size}; must match")
    dtype_out = _dot_dtype(a, b, dtype)
    krnl = reduction.get_subset_dot_kernel(dtype_out, subset.dtype, a.dtype, b.dtype)
    return krnl(subset, a, b, stream=stream, allocator=allocator)


def _minmax(what: str, a: Any, stream: Any, allocator: Any, axis: Any = None, out: Any = None,
            keepdims: bool = False) -> Any:  # fmt: skip
    if stream is None and axis is None and out is None and not keepdims:
        kernel_of = _max_kernel if what == "max" else _min_kernel
        result = FLAT.reduce(kernel_of, a, allocator, reduction.reduce_whole)
        if result is not None:
            return result
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along(what, a, axis, out, keepdims, stream, allocator)
    _check_nonempty(a, "maximum" if what == "max" else "minimum")
    return reduction.get_minmax_kernel(what, a.dtype)(a, stream=stream, allocator=allocator)


def max(  # noqa: A001
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """The largest element of ``a`` (NaN if any element is NaN); a 0-d GPUArray over every
    axis, or along ``axis`` (``out``, ``keepdims`` as NumPy's)."""
    return _minmax("max", a, stream, allocator, axis, out, keepdims)


def min(  # noqa: A001
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """The smallest element of ``a`` (NaN if any element is NaN); a 0-d GPUArray over every
    axis, or along ``axis`` (``out``, ``keepdims`` as NumPy's)."""
    return _minmax("min", a, stream, allocator, axis, out, keepdims)


def _subset_minmax(what: str, subset: Any, a: Any, stream: Any, allocator: Any) -> Any:
    _check_subset(subset)
    _check_array(a, "a")
    _check_nonempty(subset, "maximum" if what == "max" else "minimum")
    krnl = reduction.get_subset_minmax_kernel(what, a.dtype, subset.dtype)
    return krnl(subset, a, stream=stream, allocator=allocator)


def subset_max(subset: Any, a: Any, stream: Any = None, allocator: Any = None) -> Any:
    """The largest element of ``a[subset]``."""
    return _subset_minmax("max", subset, a, stream, allocator)


def subset_min(subset: Any, a: Any, stream: Any = None, allocator: Any = None) -> Any:
    """The smallest element of ``a[subset]``."""
    return _subset_minmax("min", subset, a, stream, allocator)


def argmax(
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """The flat index (int64, 0-d GPUArray) of the first largest element (or first NaN)."""
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along("argmax", a, axis, out, keepdims, stream, allocator)
    _check_nonempty(a, "argmax")
    krnl = reduction.get_argminmax_kernel("max", a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def argmin(
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """The flat index (int64, 0-d GPUArray) of the first smallest element (or first NaN)."""
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along("argmin", a, axis, out, keepdims, stream, allocator)
    _check_nonempty(a, "argmin")
    krnl = reduction.get_argminmax_kernel("min", a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def any(  # noqa: A001
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """Whether any element of ``a`` is nonzero; a 0-d bool GPUArray (False when empty)."""
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along("any", a, axis, out, keepdims, stream, allocator)
    return reduction.get_any_kernel(np.dtype(np.bool_), a.dtype)(
        a, stream=stream, allocator=allocator
    )


def all(  # noqa: A001
    a: Any,
    stream: Any = None,
    allocator: Any = None,
    *,
    axis: Any = None,
    out: Any = None,
    keepdims: bool = False,
) -> Any:
    """Whether every element of ``a`` is nonzero; a 0-d bool GPUArray (True when empty)."""
    _check_array(a, "a")
    if not _whole(a, axis, out, keepdims):
        return _along("all", a, axis, out, keepdims, stream, allocator)
    return reduction.get_all_kernel(np.dtype(np.bool_), a.dtype)(
        a, stream=stream, allocator=allocator
    )


def prod(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The product of the elements of ``a`` over ``axis`` (dtype as numpy.prod's)."""
    _check_array(a, "a")
    return _along("prod", a, axis, out, keepdims, stream, allocator, dtype)


def mean(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The mean of ``a`` over ``axis`` (float64 for integer input, as numpy.mean)."""
    _check_array(a, "a")
    return _along("mean", a, axis, out, keepdims, stream, allocator, dtype)


def var(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The variance of ``a`` over ``axis``: ``sum(|x - mean|**2) / (N - ddof)`` (real for
    complex input, as numpy.var)."""
    _check_array(a, "a")
    return _along("var", a, axis, out, keepdims, stream, allocator, dtype, ddof)


def std(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: int = 0,
    keepdims: bool = False,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The standard deviation of ``a`` over ``axis``: the square root of :func:`var`."""
    _check_array(a, "a")
    return _along("std", a, axis, out, keepdims, stream, allocator, dtype, ddof)


__all__ = [
    "all",
    "any",
    "argmax",
    "argmin",
    "dot",
    "max",
    "mean",
    "min",
    "prod",
    "std",
    "subset_dot",
    "subset_max",
    "subset_min",
    "subset_sum",
    "sum",
    "var",
]
