"""The module reductions of ``pycuda.gpuarray``: ``sum``, ``dot``, ``max``, ``argmax``, ... over
whole arrays, each returning a 0-d GPUArray, with NumPy's result dtypes.

``sum`` widens like ``numpy.sum`` (bool and signed integers narrower than 64 bits to int64,
unsigned ones to uint64); ``dot`` keeps ``numpy.result_type`` of its operands, as ``numpy.dot``
of 1-D arrays does (no conjugation of complex values). float16 accumulates in float32.
``max``/``min`` propagate NaN; ``argmax``/``argmin`` return the int64 index of the first
extremum (the first NaN if there is one). Arrays must be contiguous.

    from pycuda import gpuarray
    total = gpuarray.sum(a_gpu).get()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import reduction


def _check_array(a: Any, what: str) -> None:
    if not hasattr(a, "gpudata") or not hasattr(a, "dtype"):
        raise TypeError(f"{what} must be a GPUArray, got {type(a).__name__}")


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    """numpy.sum's result dtype for an array of ``dtype`` with no dtype= given."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return dtype


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


def sum(a: Any, dtype: Any = None, stream: Any = None, allocator: Any = None) -> Any:  # noqa: A001
    """The sum of all elements of ``a`` as a 0-d GPUArray (dtype as numpy.sum's)."""
    _check_array(a, "a")
    dtype_out = _sum_dtype(a.dtype) if dtype is None else np.dtype(dtype)
    krnl = reduction.get_sum_kernel(dtype_out, a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def subset_sum(
    subset: Any, a: Any, dtype: Any = None, stream: Any = None, allocator: Any = None
) -> Any:
    """The sum of ``a[subset]`` (``subset``: a GPUArray of integer indices)."""
    _check_subset(subset)
    _check_array(a, "a")
    dtype_out = _sum_dtype(a.dtype) if dtype is None else np.dtype(dtype)
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


def _minmax(what: str, a: Any, stream: Any, allocator: Any) -> Any:
    _check_array(a, "a")
    _check_nonempty(a, "maximum" if what == "max" else "minimum")
    return reduction.get_minmax_kernel(what, a.dtype)(a, stream=stream, allocator=allocator)


def max(a: Any, stream: Any = None, allocator: Any = None) -> Any:  # noqa: A001
    """The largest element of ``a`` (NaN if any element is NaN); a 0-d GPUArray."""
    return _minmax("max", a, stream, allocator)


def min(a: Any, stream: Any = None, allocator: Any = None) -> Any:  # noqa: A001
    """The smallest element of ``a`` (NaN if any element is NaN); a 0-d GPUArray."""
    return _minmax("min", a, stream, allocator)


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


def argmax(a: Any, stream: Any = None, allocator: Any = None) -> Any:
    """The flat index (int64, 0-d GPUArray) of the first largest element (or first NaN)."""
    _check_array(a, "a")
    _check_nonempty(a, "argmax")
    krnl = reduction.get_argminmax_kernel("max", a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def argmin(a: Any, stream: Any = None, allocator: Any = None) -> Any:
    """The flat index (int64, 0-d GPUArray) of the first smallest element (or first NaN)."""
    _check_array(a, "a")
    _check_nonempty(a, "argmin")
    krnl = reduction.get_argminmax_kernel("min", a.dtype)
    return krnl(a, stream=stream, allocator=allocator)


def any(a: Any, stream: Any = None, allocator: Any = None) -> Any:  # noqa: A001
    """Whether any element of ``a`` is nonzero; a 0-d bool GPUArray (False when empty)."""
    _check_array(a, "a")
    return reduction.get_any_kernel(a.dtype)(a, stream=stream, allocator=allocator)


def all(a: Any, stream: Any = None, allocator: Any = None) -> Any:  # noqa: A001
    """Whether every element of ``a`` is nonzero; a 0-d bool GPUArray (True when empty)."""
    _check_array(a, "a")
    return reduction.get_all_kernel(a.dtype)(a, stream=stream, allocator=allocator)


__all__ = [
    "all",
    "any",
    "argmax",
    "argmin",
    "dot",
    "max",
    "min",
    "subset_dot",
    "subset_max",
    "subset_min",
    "subset_sum",
    "sum",
]
