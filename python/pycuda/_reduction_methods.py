"""GPUArray's NumPy-style reduction and scan methods (``a.sum(axis=0)``, ``a.argmax()``,
``a.cumsum()``, ...), mixed into GPUArray; each forwards to the module function of
``pycuda.gpuarray`` (``pycuda._reduce_ops``, ``pycuda._axis_scan``).

Every method takes NumPy's arguments plus keyword-only ``stream=`` and ``allocator=``, and
returns a GPUArray (0-d when every axis is reduced). ``any`` and ``all`` also accept the
original's positional ``a.any(stream)``.

    col_max = a_gpu.max(axis=0)
    z = (a_gpu - a_gpu.mean(axis=1, keepdims=True)) / a_gpu.std(axis=1, keepdims=True)
"""

from __future__ import annotations

from typing import Any

from pycuda import _axis_scan, _driver, _reduce_ops


def _originals_arguments(axis: Any, out: Any) -> bool:
    """Whether ``any``/``all`` were called as the original's ``(stream, allocator)``: a Stream
    first, or an allocator (a callable that is no array) second."""
    from pycuda import driver

    return isinstance(axis, driver.Stream) or (
        out is not None and callable(out) and not isinstance(out, _driver.ArrayBase)
    )


class ReductionMethods:
    """sum, prod, max, min, mean, var, std, argmax, argmin, any, all, cumsum, cumprod."""

    def sum(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The sum over ``axis`` (numpy.sum's dtype: int64 for narrow signed integers)."""
        return _reduce_ops.sum(
            self, dtype, stream, allocator, axis=axis, out=out, keepdims=keepdims
        )

    def prod(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The product over ``axis`` (numpy.prod's dtype)."""
        return _reduce_ops.prod(
            self, axis, dtype, out, keepdims, stream=stream, allocator=allocator
        )

    def max(
        self,
        axis: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The maximum over ``axis`` (NaN if any element is NaN)."""
        return _reduce_ops.max(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def min(
        self,
        axis: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The minimum over ``axis`` (NaN if any element is NaN)."""
        return _reduce_ops.min(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def mean(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The mean over ``axis`` (float64 for integer arrays)."""
        return _reduce_ops.mean(
            self, axis, dtype, out, keepdims, stream=stream, allocator=allocator
        )

    def var(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The variance over ``axis``, divided by ``N - ddof`` (real for complex arrays)."""
        return _reduce_ops.var(
            self, axis, dtype, out, ddof, keepdims, stream=stream, allocator=allocator
        )

    def std(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: int = 0,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The standard deviation over ``axis`` (the square root of var)."""
        return _reduce_ops.std(
            self, axis, dtype, out, ddof, keepdims, stream=stream, allocator=allocator
        )

    def argmax(
        self,
        axis: Any = None,
        out: Any = None,
        *,
        keepdims: bool = False,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The int64 index of the first maximum along ``axis`` (None: in the flattened array)."""
        return _reduce_ops.argmax(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def argmin(
        self,
        axis: Any = None,
        out: Any = None,
        *,
        keepdims: bool = False,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The int64 index of the first minimum along ``axis`` (None: in the flattened array)."""
        return _reduce_ops.argmin(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def any(
        self,
        axis: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """Whether any element along ``axis`` is nonzero (bool)."""
        if _originals_arguments(axis, out):  # the original's any(stream, allocator)
            axis, stream, out, allocator = None, axis, None, out
        return _reduce_ops.any(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def all(
        self,
        axis: Any = None,
        out: Any = None,
        keepdims: bool = False,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """Whether every element along ``axis`` is nonzero (bool)."""
        if _originals_arguments(axis, out):  # the original's all(stream, allocator)
            axis, stream, out, allocator = None, axis, None, out
        return _reduce_ops.all(self, stream, allocator, axis=axis, out=out, keepdims=keepdims)

    def cumsum(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The cumulative sum along ``axis`` (None: of the flattened array)."""
        return _axis_scan.cumsum(self, axis, dtype, out, stream=stream, allocator=allocator)

    def cumprod(
        self,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        *,
        stream: Any = None,
        allocator: Any = None,
    ) -> Any:
        """The cumulative product along ``axis`` (None: of the flattened array)."""
        return _axis_scan.cumprod(self, axis, dtype, out, stream=stream, allocator=allocator)
