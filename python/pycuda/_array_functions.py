"""pycuda._array_functions: gpuarray's module functions (to_gpu, zeros, arange, maximum, where...).

They make GPUArrays from host data or shapes, or apply one element-wise operation to them;
pycuda.gpuarray re-exports each of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _fusion_hook as fusion_hook
from pycuda import _operators as ops
from pycuda._arg_checks import require, require_array
from pycuda._array_kernels import compute_ctype
from pycuda._broadcast import broadcast_shapes
from pycuda._c_types import dtype_to_ctype
from pycuda._dtype_rules import promote
from pycuda._shape import compact_strides, like_strides

if TYPE_CHECKING:
    from pycuda.gpuarray import GPUArray


def to_gpu(ary: Any, allocator: Callable[[int], Any] | None = None) -> GPUArray:
    """A GPUArray copy of the host array ``ary`` (same axis order)."""
    return core.to_device(ary, allocator)


def to_gpu_async(
    ary: Any, allocator: Callable[[int], Any] | None = None, stream: Any = None
) -> GPUArray:
    """to_gpu() queued on ``stream`` (``ary`` should be page-locked to overlap)."""
    ary = np.asarray(ary)
    strides = compact_strides(ary.shape, ary.strides, ary.itemsize)
    result = core.new_array(ary.shape, ary.dtype, allocator, strides=strides)
    result.set_async(ary, stream)
    return result


def zeros(
    shape: Any,
    dtype: Any = np.float64,
    allocator: Callable[[int], Any] | None = None,
    order: str = "C",
) -> GPUArray:
    """A new array of zeros."""
    return core.new_array(shape, dtype, allocator, order=order).fill(0)


def ones(
    shape: Any,
    dtype: Any = np.float64,
    allocator: Callable[[int], Any] | None = None,
    order: str = "C",
) -> GPUArray:
    """A new array of ones."""
    return core.new_array(shape, dtype, allocator, order=order).fill(1)


def empty_like(other_ary: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    """A new uninitialized GPUArray with ``other_ary``'s shape and allocator (and axis order,
    for 'K'), as the original's."""
    require(other_ary, "shape dtype strides allocator", "empty_like", "a GPUArray")
    dtype = other_ary.dtype if dtype is None else np.dtype(dtype)
    itemsize = other_ary.dtype.itemsize
    strides = like_strides(other_ary.shape, other_ary.strides, itemsize, order)
    strides = tuple(s // itemsize * dtype.itemsize for s in strides)
    return core.new_array(other_ary.shape, dtype, other_ary.allocator, strides=strides)


def zeros_like(other_ary: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    """empty_like() filled with zeros."""
    return empty_like(other_ary, dtype, order).fill(0)


def ones_like(other_ary: GPUArray, dtype: Any = None, order: str = "K") -> GPUArray:
    """empty_like() filled with ones."""
    return empty_like(other_ary, dtype, order).fill(1)


def arange(*args: Any, **kwargs: Any) -> GPUArray:
    """``arange([start,] stop[, step], dtype=None, allocator=None, stream=None)`` like NumPy
    (the values are NumPy's own, copied to the device; ``stream=`` queues the copy)."""
    dtype = kwargs.pop("dtype", None)
    allocator = kwargs.pop("allocator", None)
    stream = kwargs.pop("stream", None)
    start, stop, step = (
        kwargs.pop("start", None),
        kwargs.pop("stop", None),
        kwargs.pop("step", None),
    )
    if kwargs:
        raise TypeError(f"arange() got unexpected keyword arguments {sorted(kwargs)}")
    args = list(args)
    if args and isinstance(args[-1], np.dtype):
        dtype = args.pop()
    if len(args) > 3:
        raise TypeError("arange() takes at most 3 positional numbers: [start,] stop[, step]")
    if len(args) == 1 and stop is None:
        stop = args[0]
    elif len(args) == 1:
        start = args[0]
    elif len(args) == 2:
        start, stop = args
    elif len(args) == 3:
        start, stop, step = args
    if stop is None:
        raise TypeError("arange() needs a stop value")
    start = 0 if start is None else start
    step = 1 if step is None else step
    if step == 0:
        raise ValueError("arange(): step must not be zero")
    host = np.arange(start, stop, step, dtype=dtype)
    if stream is None:
        return to_gpu(host, allocator)
    return to_gpu_async(host, allocator, stream)


def binary_function(op: str, a: Any, b: Any, out: Any, stream: Any) -> Any:
    """`a op b` element-wise (``op`` a binary row of pycuda._ufuncs) where either operand is a
    GPUArray (the other an array or a scalar): the array operators' path, for the module
    functions and cumath's functions of two operands."""
    if core.is_array(a):
        return ops.binary(a, op, b, False, out, stream)
    if core.is_array(b):
        return ops.binary(b, op, a, True, out, stream)
    traced = fusion_hook.call("binary_function", (a, b), {"op": op, "out": out, "stream": stream})
    if traced is NotImplemented:
        raise TypeError(f"{op}: at least one argument must be a GPUArray")
    return traced


def maximum(a: Any, b: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """The element-wise maximum (NumPy's: NaN propagates); either argument may be a scalar."""
    return binary_function("maximum", a, b, out, stream)


def minimum(a: Any, b: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """The element-wise minimum (NumPy's: NaN propagates); either argument may be a scalar."""
    return binary_function("minimum", a, b, out, stream)


def logical_and(x1: Any, x2: Any, /, out: GPUArray | None = None, *, allocator: Any = None):
    """Element-wise ``x1 and x2`` as a bool array."""
    return binary_function("logical_and", x1, x2, out, None)


def logical_or(x1: Any, x2: Any, /, out: GPUArray | None = None, *, allocator: Any = None):
    """Element-wise ``x1 or x2`` as a bool array."""
    return binary_function("logical_or", x1, x2, out, None)


def logical_not(x: GPUArray, /, out: GPUArray | None = None, *, allocator: Any = None):
    """Element-wise ``not x`` as a bool array."""
    if not core.is_array(x):
        traced = fusion_hook.call("unary", (x,), {"op": "logical_not", "out": out})
        if traced is NotImplemented:
            raise TypeError(f"logical_not takes a GPUArray, got {type(x).__name__}")
        return traced
    return ops.unary(x, "logical_not", np.dtype(np.bool_), out)


def _select(
    condition: str, criterion: GPUArray, then_: Any, else_: Any, out: Any, stream: Any
) -> GPUArray:
    if not core.is_array(criterion):
        params = {"condition": condition, "out": out, "stream": stream}
        traced = fusion_hook.call("select", (criterion, then_, else_), params)
        if traced is NotImplemented:
            raise TypeError(f"the criterion must be a GPUArray, got {type(criterion).__name__}")
        return traced
    operands = [criterion, then_, else_]
    shapes = [x.shape for x in operands if core.is_array(x)]
    shape = broadcast_shapes(*shapes)
    values = [x.dtype if core.is_array(x) or isinstance(x, np.generic) else x for x in operands[1:]]
    dtype = promote(values[0], values[1])
    if out is None:
        out = core.new_array(shape, dtype, criterion.allocator)
    else:  # the values cast to out's dtype (the original wrote then_'s dtype into it unchecked)
        core.require_array_out(out)
        core.check_out(out, shape, out.dtype, "where")
        dtype = out.dtype
    inputs: list[Any] = []
    for x in operands:
        if core.is_array(x):
            inputs.append(x.copy(stream) if core.overlaps(out, x) else x)
        else:
            inputs.append((x, dtype))
    t = dtype_to_ctype(dtype)
    c = condition.format(x=f"pc_cast<{compute_ctype(criterion.dtype)}>(x0)")
    expr = f"({c} ? pc_cast<{t}>(x1) : pc_cast<{t}>(x2))"
    core.elementwise(out, inputs, expr, stream)
    return out


def where(
    criterion: GPUArray, then_: Any, else_: Any, out: GPUArray | None = None, stream: Any = None
) -> GPUArray:
    """``then_`` where ``criterion`` is nonzero, else ``else_`` (arrays broadcast, or scalars)."""
    return _select("pc_cast<bool>({x})", criterion, then_, else_, out, stream)


def if_positive(
    criterion: GPUArray, then_: Any, else_: Any, out: GPUArray | None = None, stream: Any = None
) -> GPUArray:
    """``then_`` where ``criterion > 0``, else ``else_`` (arrays broadcast, or scalars)."""
    require_array(criterion, "if_positive: criterion")
    if criterion.dtype.kind == "c":
        raise TypeError("if_positive: complex criteria have no order")
    return _select("({x} > 0)", criterion, then_, else_, out, stream)


def transpose(a: GPUArray, axes: Any = None) -> GPUArray:
    """``a.transpose(axes)``."""
    require(a, "transpose", "transpose", "a GPUArray")
    return a.transpose(axes)


def reshape(a: GPUArray, *shape: Any, **kwargs: Any) -> GPUArray:
    """``a.reshape(*shape, order=...)``."""
    require(a, "reshape", "reshape", "a GPUArray")
    return a.reshape(*shape, **kwargs)
