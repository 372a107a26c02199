"""pycuda._fast_ops: the fast paths of the commonest operations for C-contiguous operands.

``a + b``, ``a * 2``, ``a += b``, ``-a``, ``cumath.exp(a)``, ``a.astype(t)``, ``a.fill(x)``: where
every operand is C-contiguous (or a scalar) of one shape, these resolve the operator once per
combination of types (a _FastOp), keep each context's pool and launches (a _FastContext) and
launch the flat kernel with one dict look-up for each. They return None (False for fill) where
the general path of GPUArray must decide, and raise nothing of their own.
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from pycuda import _driver
from pycuda import driver as drv
from pycuda._array_kernels import Operand, binary_expression, compute_dtype, unary_expression
from pycuda._dtype_rules import binary_op_dtypes
from pycuda._shape import new_array_strides
from pycuda.elementwise import grid_block
from pycuda.tools import context_dependent_memoized_functions

# Set by bind() when pycuda.gpuarray is imported (it imports this module before it defines
# GPUArray): the array type the fast paths recognise and make, and gpuarray itself, whose
# _kernel, _default_allocator and _scalar_value (hooks that tests replace there) the paths call
# when they make an entry or a launch, never per operation.
GPUArray: Any = None
_gpuarray: Any = None


def bind(gpuarray: ModuleType) -> None:
    """Gives the fast paths ``gpuarray``'s GPUArray and hooks (see above)."""
    global GPUArray, _gpuarray
    GPUArray = gpuarray.GPUArray
    _gpuarray = gpuarray
    _FLAT.bind(GPUArray)


def binary_operator(name: str, op: str, reflected: bool = False) -> Any:
    """GPUArray's operator ``name`` (``__add__``) for ufunc ``op`` (``add``): a C++ method
    descriptor (_driver.FlatOperator) that serves the launches _FLAT remembers, else calls
    _fast_binary, else ``array._binary_general(op, other, reflected)``."""
    return _FLAT.operator(name, op, reflected)


# Operands of an operator that take the fast path with an array: Python's scalars (weak, in
# NEP 50's terms) and NumPy's numeric scalar types.
_FAST_SCALAR_TYPES = frozenset(
    [bool, int, float, complex] + [np.dtype(c).type for c in "?bhilqBHILQefdFD"]
)
_UNBOUNDED = (-float("inf"), float("inf"))


class _FastOp:
    """One operator on one combination of operand types, resolved once: its result dtype, its
    kernel's operands and expression, and how a scalar operand is converted.

    ``lo``/``hi``: the Python ints for which all of that holds (the dtype rules depend on an
    int's value only through the range of an integer array's dtype, and powers' sign).
    """

    __slots__ = (
        "convert",
        "expr",
        "flat_convert",
        "hi",
        "itemsize",
        "lo",
        "operands",
        "result",
        "strides1",
        "wide",
    )

    def __init__(self, result: np.dtype, operands: tuple[Operand, ...], expr: str) -> None:
        self.result = result
        self.operands = operands
        self.expr = expr
        self.itemsize = result.itemsize
        self.strides1 = (result.itemsize,)
        sizes = [result.itemsize] + [o.dtype.itemsize for o in operands if not o.scalar]
        # The width of the flat kernel when every address is 16-byte aligned (_width_of).
        pow2 = builtins.all(s & (s - 1) == 0 and s <= 16 for s in sizes)
        self.wide = 16 // builtins.max(sizes) if pow2 else 1
        self.convert: Any = None
        self.lo, self.hi = _UNBOUNDED
        # A scalar operand as FlatLaunches packs it: None where the kernel's parameter takes
        # the Python scalar as it is (a float for a float64, an int in range for an integer
        # type), else the conversion.
        self.flat_convert: Any = None


# (op, array dtype, other dtype or scalar type, reflected) -> _FastOp
_FAST_OPS: dict[tuple[Any, ...], _FastOp] = {}


def _fast_array_op(op: str, dtype: np.dtype, other: np.dtype, reflected: bool) -> _FastOp:
    lhs, rhs = (other, dtype) if reflected else (dtype, other)
    operand, result = binary_op_dtypes(op, lhs, rhs)
    expr = binary_expression(op, lhs, rhs, operand, result)
    entry = _FAST_OPS[(op, dtype, other, reflected)] = _FastOp(
        result, (Operand(lhs), Operand(rhs)), expr
    )
    return entry


def _half_scalar(value: Any) -> np.float32:
    return np.float32(np.float16(value))


def _fast_scalar_op(op: str, dtype: np.dtype, kind: type, reflected: bool) -> _FastOp:
    """The entry for ``array op scalar`` with a scalar of type ``kind`` (see _FastOp.lo)."""
    sample = kind(1)
    if reflected:
        operand, result = binary_op_dtypes(op, sample, dtype)
        ops = (Operand(operand, True), Operand(dtype))
        expr = binary_expression(op, operand, dtype, operand, result)
    else:
        operand, result = binary_op_dtypes(op, dtype, sample)
        ops = (Operand(dtype), Operand(operand, True))
        expr = binary_expression(op, dtype, operand, operand, result)
    entry = _FastOp(result, ops, expr)
    if operand == np.float16:
        entry.convert = _half_scalar
    elif compute_dtype(operand) == operand:
        entry.convert = operand.type
    else:  # computed in a wider type: as the general path converts it
        entry.convert = functools.partial(_gpuarray._scalar_value, dtype=operand)
    if kind is int and dtype.kind in "biu":
        info = np.iinfo(np.int64 if dtype.kind == "b" else dtype)
        entry.lo, entry.hi = (0 if op == "power" else info.min), info.max
    # (A float for a float32 goes through np.float32, which warns where it overflows.)
    native = entry.convert is operand.type and (
        (kind is float and operand == np.float64)
        or (kind is int and operand.kind in "iu" and entry.lo != _UNBOUNDED[0])
    )
    entry.flat_convert = None if native else entry.convert
    _FAST_OPS[(op, dtype, kind, reflected)] = entry
    return entry


class _FastContext:
    """What the fast paths keep per context: the context itself (so that its handle, the key,
    is not reused while cached), its pool's allocate, kernels with their launches, and the
    reductions' launches (pycuda._fast_reduce)."""

    __slots__ = ("allocate", "context", "flat", "kernels", "reductions")

    def __init__(self, context: Any, allocate: Callable[[int], Any]) -> None:
        self.context = context
        self.allocate = allocate
        # Whether _FLAT can serve this context's launches: it allocates from a DeviceMemoryPool
        # only (not from a stand-in's allocator).
        self.flat = isinstance(getattr(allocate, "__self__", None), _driver.DeviceMemoryPool)
        # (operator, n, width) -> (prepared_call, grid, block, Function)
        self.kernels: dict[tuple[_FastOp, int, int], tuple[Any, ...]] = {}
        # (reduction, dtype, n, address % 16) -> its launches (pycuda._fast_reduce)
        self.reductions: dict[tuple[Any, ...], Any] = {}


_context_handle = _driver._current_context_handle
# The current context's handle (0 without one) -> its _FastContext.
_FAST_CONTEXTS: dict[int, _FastContext] = {}
_MAX_LAUNCHES = 4096  # kernels' launches remembered per context (then forgotten, made again)


# The C++ side of _fast_binary (_driver.FlatLaunches): the launches _fast_binary made for plain
# operands (exact GPUArrays, the pool's memory, 16-byte aligned), which it then serves without
# running Python; it calls _fast_binary (looked up here on each miss) for the rest.
_FLAT = _driver.FlatLaunches(globals(), "_fast_binary", _MAX_LAUNCHES)


def _forget_fast_contexts() -> None:
    _FAST_CONTEXTS.clear()
    _FLAT.clear()


# tools.clear_context_caches() forgets these with the memoized kernels.
_forget_fast_contexts.clear_cache = _forget_fast_contexts  # type: ignore[attr-defined]
context_dependent_memoized_functions.append(_forget_fast_contexts)


def _fast_context() -> _FastContext:
    handle = _context_handle()
    state = _FAST_CONTEXTS.get(handle)
    if state is None:
        context = drv.Context.get_current() if handle else None
        state = _FAST_CONTEXTS[handle] = _FastContext(context, _gpuarray._default_allocator())
    return state


def _fast_launch(state: _FastContext, entry: _FastOp, n: int, width: int) -> tuple[Any, ...]:
    """(prepared_call, grid, block) of ``entry``'s flat kernel over ``n`` elements."""
    if len(state.kernels) >= _MAX_LAUNCHES:
        state.kernels.clear()
    func = _gpuarray._kernel("flat", entry.result, entry.operands, entry.expr, width)
    grid, block = grid_block(n, width)
    launch = state.kernels[(entry, n, width)] = (func.prepared_call, grid, block, func)
    return launch


def _width_of(itemsize: int, ptr: int) -> int:
    """``vector_width(itemsize, [ptr])`` for one address, inlined for the fast path."""
    if itemsize & (itemsize - 1) or itemsize > 16:
        return 1
    width = 16 // itemsize
    while width > 1 and ptr % (width * itemsize):
        width >>= 1
    return width


def _unaligned_width(entry: _FastOp, out_ptr: int, a: GPUArray, b: Any) -> int:
    width = _width_of(entry.itemsize, out_ptr)
    for x in (a, b):
        if type(x) is GPUArray and width > 1:
            width = builtins.min(width, _width_of(x.dtype.itemsize, x.ptr))
    return width


def _fast_binary(self: GPUArray, op: str, other: Any, reflected: bool) -> GPUArray | None:
    """``self op other`` into a new array when both are C-contiguous of one shape (or other is
    a scalar): one dict look-up for the operator, one for the context, the pool, one launch.
    None where the general path must decide (and for a subclass, whose results its
    _new_like_me makes)."""
    n = self.size
    if not n or type(self) is not GPUArray or not self._c:
        return None
    kind = type(other)
    if kind is GPUArray:
        if other.shape != self.shape or not other._c:
            return None
        entry = _FAST_OPS.get((op, self.dtype, other.dtype, reflected))
        if entry is None:
            try:
                entry = _fast_array_op(op, self.dtype, other.dtype, reflected)
            except (TypeError, ValueError, OverflowError, KeyError):
                return None  # the general path raises it, with its own message
        first, second = (other.ptr, self.ptr) if reflected else (self.ptr, other.ptr)
        aligned = first | second
    elif kind in _FAST_SCALAR_TYPES:
        entry = _FAST_OPS.get((op, self.dtype, kind, reflected))
        if entry is None:
            try:
                entry = _fast_scalar_op(op, self.dtype, kind, reflected)
            except (TypeError, ValueError, OverflowError, KeyError):
                return None  # the general path raises it, with its own message
        if kind is int and not entry.lo <= other <= entry.hi:
            return None  # the rules depend on this int's value
        value = entry.convert(other)
        first, second = (value, self.ptr) if reflected else (self.ptr, value)
        aligned = self.ptr
    else:
        return None
    handle = _context_handle()
    state = _FAST_CONTEXTS.get(handle) or _fast_context()
    allocator = self.allocator
    gpudata = allocator(n * entry.itemsize)
    ptr = int(gpudata)
    width = entry.wide if not (aligned | ptr) & 15 else _unaligned_width(entry, ptr, self, other)
    launch = state.kernels.get((entry, n, width)) or _fast_launch(state, entry, n, width)
    launch[0](launch[1], launch[2], ptr, first, second, n)
    if state.flat and allocator is state.allocate and width == entry.wide:
        _remember(op, self, other, kind, reflected, entry, handle, n, launch, state)
    shape = self.shape
    if len(shape) == 1:
        strides = entry.strides1
    else:
        strides = new_array_strides(shape, entry.itemsize) if shape else ()
    return GPUArray._fresh(shape, entry.result, strides, n, allocator, gpudata, ptr)


def _remember(
    op: str,
    self: GPUArray,
    other: Any,
    kind: type,
    reflected: bool,
    entry: _FastOp,
    handle: int,
    n: int,
    launch: tuple[Any, ...],
    state: _FastContext,
) -> None:
    """Hands the launch just made to _FLAT, which makes the next like it itself."""
    grid, block = launch[1], launch[2]
    if len(grid) > 1 and builtins.any(d != 1 for d in grid[1:]):
        return
    if len(block) > 1 and builtins.any(d != 1 for d in block[1:]):
        return
    scalar = kind is not GPUArray
    lo, hi = (entry.lo, entry.hi) if kind is int else (None, None)
    _FLAT.remember(
        op,
        self.dtype,
        kind if scalar else other.dtype,
        reflected,
        handle,
        n,
        launch[3],
        grid[0],
        block[0],
        state.allocate,
        entry.result,
        entry.itemsize,
        entry.flat_convert if scalar else None,
        None if lo == _UNBOUNDED[0] else lo,
        None if hi == _UNBOUNDED[1] else hi,
    )


def _fast_inplace_op(op: str, dtype: np.dtype, other: Any, kind: Any) -> _FastOp:
    """The entry for ``array op= other``: computed as ``array op other``, stored as ``dtype``
    (``other``: a dtype, or a sample scalar of type ``kind``)."""
    operand, result = binary_op_dtypes(op, dtype, other)
    if not np.can_cast(result, dtype, "same_kind"):
        raise TypeError(f"{result} does not cast to {dtype}")  # the general path says it
    scalar = kind is not GPUArray
    rhs = operand if scalar else other
    expr = binary_expression(op, dtype, rhs, operand, dtype)
    entry = _FastOp(dtype, (Operand(dtype), Operand(rhs, scalar)), expr)
    if scalar:
        if operand == np.float16:
            entry.convert = _half_scalar
        elif compute_dtype(operand) == operand:
            entry.convert = operand.type
        else:
            entry.convert = functools.partial(_gpuarray._scalar_value, dtype=operand)
        if kind is int and dtype.kind in "biu":
            info = np.iinfo(np.int64 if dtype.kind == "b" else dtype)
            entry.lo, entry.hi = (0 if op == "power" else info.min), info.max
    _FAST_OPS[("inplace", op, dtype, rhs if not scalar else kind)] = entry
    return entry


def _fast_inplace(self: GPUArray, op: str, other: Any) -> GPUArray | None:
    """``self op= other`` when ``self`` is C-contiguous and ``other`` a scalar or a C-contiguous
    array of the same shape that is ``self`` or does not overlap it; None where the general
    path must decide."""
    n = self.size
    if not n or not self._c:
        return None
    kind = type(other)
    ptr = self.ptr
    if kind is GPUArray:
        if other.shape != self.shape or not other._c:
            return None
        second = other.ptr
        if second == ptr:
            if other.strides != self.strides:
                return None  # the same memory seen otherwise: the general path copies it
        elif second < ptr + n * self.dtype.itemsize and ptr < second + n * other.dtype.itemsize:
            return None  # overlapping: the general path copies it first
        key: Any = other.dtype
        aligned = ptr | second
    elif kind in _FAST_SCALAR_TYPES:
        key = kind
        aligned = ptr
    else:
        return None
    entry = _FAST_OPS.get(("inplace", op, self.dtype, key))
    if entry is None:
        try:
            sample = other.dtype if kind is GPUArray else kind(1)
            entry = _fast_inplace_op(op, self.dtype, sample, kind)
        except (TypeError, ValueError, OverflowError, KeyError):
            return None  # the general path raises it, with its own message
    if kind is not GPUArray:
        if kind is int and not entry.lo <= other <= entry.hi:
            return None  # the rules depend on this int's value
        second = entry.convert(other)
    state = _FAST_CONTEXTS.get(_context_handle()) or _fast_context()
    width = entry.wide if not aligned & 15 else _unaligned_width(entry, ptr, self, other)
    launch = state.kernels.get((entry, n, width)) or _fast_launch(state, entry, n, width)
    launch[0](launch[1], launch[2], ptr, ptr, second, n)
    return self


def _fast_unary(self: GPUArray, op: str, dtype: np.dtype) -> GPUArray | None:
    """``op(self)`` of ``dtype`` into a new array when ``self`` is C-contiguous (cumath's
    functions, ``-a``, ``abs(a)``, ``astype``...); None where the general path must decide
    (and for a subclass, whose results its _new_like_me makes)."""
    n = self.size
    if not n or type(self) is not GPUArray or not self._c:
        return None
    entry = _FAST_OPS.get((op, self.dtype, dtype))
    if entry is None:
        try:
            expr = unary_expression(op, self.dtype, dtype)
        except (TypeError, ValueError, KeyError):
            return None  # the general path raises it, with its own message
        entry = _FAST_OPS[(op, self.dtype, dtype)] = _FastOp(dtype, (Operand(self.dtype),), expr)
    state = _FAST_CONTEXTS.get(_context_handle()) or _fast_context()
    allocator = self.allocator
    gpudata = allocator(n * entry.itemsize)
    ptr = int(gpudata)
    src = self.ptr
    width = entry.wide if not (src | ptr) & 15 else _unaligned_width(entry, ptr, self, None)
    launch = state.kernels.get((entry, n, width)) or _fast_launch(state, entry, n, width)
    launch[0](launch[1], launch[2], ptr, src, n)
    shape = self.shape
    if len(shape) == 1:
        strides = entry.strides1
    else:
        strides = new_array_strides(shape, entry.itemsize) if shape else ()
    return GPUArray._fresh(shape, dtype, strides, n, allocator, gpudata, ptr)


_FILL_TYPES = (bool, int, float)  # converted without a ComplexWarning, so without its filter


def _fast_fill(self: GPUArray, value: Any) -> bool:
    """``self.fill(value)`` for a C-contiguous array and a Python number; False where the
    general path must do it."""
    n = self.size
    kind = type(value)
    if not n or kind not in _FILL_TYPES or self.dtype.kind not in "biufc":
        return False
    if not self._c:
        return False
    entry = _FAST_OPS.get(("fill", self.dtype))
    if entry is None:
        dtype = self.dtype
        expr = unary_expression("cast", dtype, dtype)
        entry = _FAST_OPS[("fill", dtype)] = _FastOp(dtype, (Operand(dtype, True),), expr)
        entry.convert = _half_scalar if dtype == np.float16 else compute_dtype(dtype).type
    value = entry.convert(value)
    state = _FAST_CONTEXTS.get(_context_handle()) or _fast_context()
    ptr = self.ptr
    width = entry.wide if not ptr & 15 else _unaligned_width(entry, ptr, self, None)
    launch = state.kernels.get((entry, n, width)) or _fast_launch(state, entry, n, width)
    launch[0](launch[1], launch[2], ptr, value, n)
    return True
