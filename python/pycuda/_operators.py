"""pycuda._operators: GPUArray's element-wise operators (binary, in-place, unary, fill), each
decided in one place and launched from a plan.

An operation on one combination of operand types is decided once, by ``binary_plan`` /
``inplace_plan`` / ``unary_plan`` / ``fill_plan``: NumPy's result dtype (pycuda._dtype_rules),
the kernel's operands and expression (pycuda._array_kernels), how a scalar operand is converted,
and the Python ints for which all of that holds. Those decisions depend on dtypes and scalar
types only, so one ``Plan`` per key serves every context (``PLANS``). Every call, whatever its
operands' layout, takes its dtypes from that plan. Where the operands are C-contiguous of one
shape (or a scalar), the call is one flat kernel, whose launch per (plan, size, vector width) is
kept in the context's state (pycuda._array_core); anything else goes through
``_array_core.elementwise`` with the plan's dtypes.

The binary operators' flat launches are also served in C++ (``FLAT``, a _driver.FlatLaunches):
``binary`` hands it the launches it makes for plain operands (exact GPUArrays with the context
pool's allocator, 16-byte aligned), which it then launches for later calls of the same key
without running Python; its misses call ``binary``.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _dtypes
from pycuda._array_kernels import (
    Operand,
    binary_expression,
    compute_ctype,
    unary_expression,
)
from pycuda._broadcast import broadcast_shapes, shape_text
from pycuda._c_types import dtype_to_ctype
from pycuda._nvtx import AUTO, AutoRange
from pycuda._shape import new_array_strides
from pycuda._ufuncs import binary_op_dtypes

# Operands of an operator that are decided by their type alone: Python's scalars (weak, in
# NEP 50's terms) and NumPy's numeric scalar types.
SCALAR_TYPES = frozenset(
    [bool, int, float, complex] + [np.dtype(c).type for c in "?bhilqBHILQefdFD"]
)
_UNBOUNDED = (-float("inf"), float("inf"))


class Plan:
    """One operation on one combination of operand types, decided once.

    ``operand``/``result``: the dtype the operation computes in and the result's;
    ``operands``/``expr``: the flat kernel's; ``convert``: a scalar operand's conversion for
    the kernel (``flat_convert``: for the C++ table, None where the kernel's parameter takes
    the Python scalar as it is); ``lo``/``hi``: the Python ints the plan holds for.

    The C++ flat launches read ``result``, ``itemsize``, ``flat_convert``, ``lo`` and ``hi``
    (tests/test_layout.py pins these names against bindings/flat_launches.cpp).
    """

    __slots__ = (
        "convert",
        "expr",
        "flat_convert",
        "hi",
        "itemsize",
        "lo",
        "operand",
        "operands",
        "result",
        "strides1",
        "wide",
    )

    def __init__(
        self, operand: np.dtype, result: np.dtype, operands: tuple[Operand, ...], expr: str
    ) -> None:
        self.operand = operand
        self.result = result
        self.operands = operands
        self.expr = expr
        self.itemsize = result.itemsize
        self.strides1 = (result.itemsize,)
        sizes = [result.itemsize] + [o.dtype.itemsize for o in operands if not o.scalar]
        # The flat kernel's width when every address is 16-byte aligned.
        pow2 = builtins.all(s & (s - 1) == 0 and s <= 16 for s in sizes)
        self.wide = 16 // builtins.max(sizes) if pow2 else 1
        self.convert: Any = None
        self.lo, self.hi = _UNBOUNDED
        self.flat_convert: Any = None

    def takes(self, value: Any) -> bool:
        """Whether the plan holds for the scalar ``value`` (ints: within ``lo``..``hi``)."""
        return type(value) is not int or self.lo <= value <= self.hi


# (operation, array dtype, other operand's dtype or scalar type, reflected) -> Plan
PLANS: dict[tuple[Any, ...], Plan] = {}


def _scalar_conversion(operand: np.dtype) -> Callable[[Any], Any]:
    """How a scalar operand of the kernel's ``operand`` dtype is converted: the dtype table's
    conversion (the dtype's own scalar type where it computes as itself)."""
    return _dtypes.info(operand).convert


def _int_range(plan: Plan, op: str, dtype: np.dtype, kind: type) -> None:
    """The Python ints an integer or bool array's plan holds for: NumPy's rules depend on an
    int's value only through that range (and powers' sign)."""
    if kind is int and dtype.kind in "biu":
        info = np.iinfo(np.int64 if dtype.kind == "b" else dtype)
        plan.lo, plan.hi = (0 if op == "power" else info.min), info.max


def _scalar_plan(op: str, dtype: np.dtype, value: Any, reflected: bool) -> Plan:
    if reflected:
        operand, result = binary_op_dtypes(op, value, dtype)
        ops = (Operand(operand, True), Operand(dtype))
        expr = binary_expression(op, operand, dtype, operand, result)
    else:
        operand, result = binary_op_dtypes(op, dtype, value)
        ops = (Operand(dtype), Operand(operand, True))
        expr = binary_expression(op, dtype, operand, operand, result)
    plan = Plan(operand, result, ops, expr)
    plan.convert = _scalar_conversion(operand)
    kind = type(value)
    _int_range(plan, op, dtype, kind)
    # (A float for a float32 goes through np.float32, which warns where it overflows.)
    native = plan.convert is operand.type and (
        (kind is float and operand == np.float64)
        or (kind is int and operand.kind in "iu" and plan.lo != _UNBOUNDED[0])
    )
    plan.flat_convert = None if native else plan.convert
    return plan


_DECLINED = object()  # a key whose type-wide decision raised: only values decide it


def binary_plan(op: str, dtype: np.dtype, other: Any, reflected: bool) -> Plan:
    """The plan of ``array op other`` (``other op array`` when ``reflected``) for an array of
    ``dtype`` and ``other`` an array's dtype or a scalar value; NumPy's errors where it has
    none. Kept in PLANS where it holds for every operand of its dtype or scalar type."""
    if isinstance(other, np.dtype):
        key = (op, dtype, other, reflected)
        plan = PLANS.get(key)
        if plan is None:
            lhs, rhs = (other, dtype) if reflected else (dtype, other)
            operand, result = binary_op_dtypes(op, lhs, rhs)
            plan = Plan(operand, result, (Operand(lhs), Operand(rhs)), "")
            plan.expr = binary_expression(op, lhs, rhs, operand, result)
            PLANS[key] = plan
        return plan
    plan = scalar_type_plan(op, dtype, type(other), reflected)
    if plan is not None and plan.takes(other):
        return plan
    return _scalar_plan(op, dtype, other, reflected)  # this value's own (not kept)


def scalar_type_plan(op: str, dtype: np.dtype, kind: type, reflected: bool) -> Plan | None:
    """The plan of ``array op scalar`` for every scalar of type ``kind`` (within its ``lo``..
    ``hi`` for ints); None for a type without one (not a numeric scalar type, or one whose
    values decide, e.g. where its sample raises)."""
    key = (op, dtype, kind, reflected)
    plan = PLANS.get(key)
    if plan is None:
        if kind not in SCALAR_TYPES:
            return None
        try:
            # decided with a value every member of the type shares the rules of
            plan = _scalar_plan(op, dtype, kind(1), reflected)
        except (TypeError, ValueError, OverflowError):
            plan = _DECLINED
        PLANS[key] = plan
    return None if plan is _DECLINED else plan


def inplace_plan(op: str, dtype: np.dtype, other: Any) -> Plan | None:
    """The plan of ``array op= other`` for every ``other`` of its dtype (an array's) or scalar
    type: computed as ``array op other``, stored as ``dtype``; None where it has none (NumPy's
    same-kind casting refuses it, or the scalar's value decides: the general path then
    decides with the value, and raises NumPy's error)."""
    is_dtype = isinstance(other, np.dtype)
    kind = other if is_dtype else type(other)
    key = ("inplace", op, dtype, kind)
    plan = PLANS.get(key)
    if plan is None:
        plan = _DECLINED
        if is_dtype or kind in SCALAR_TYPES:
            try:
                plan = _inplace_plan(op, dtype, other if is_dtype else kind(1), is_dtype)
            except (TypeError, ValueError, OverflowError):
                pass
        PLANS[key] = plan
    if plan is _DECLINED or not (is_dtype or plan.takes(other)):
        return None
    return plan


def _inplace_plan(op: str, dtype: np.dtype, other: Any, is_dtype: bool) -> Plan:
    operand, result = binary_op_dtypes(op, dtype, other)
    if not np.can_cast(result, dtype, "same_kind"):
        raise TypeError(f"{result} does not cast to {dtype}")  # the general path says it
    rhs = other if is_dtype else operand
    plan = Plan(operand, dtype, (Operand(dtype), Operand(rhs, not is_dtype)), "")
    plan.expr = binary_expression(op, dtype, rhs, operand, dtype)
    if not is_dtype:
        plan.convert = _scalar_conversion(operand)
        _int_range(plan, op, dtype, type(other))
    return plan


def unary_plan(op: str, dtype: np.dtype, result: np.dtype) -> Plan:
    """The plan of ``op`` of each element of an array of ``dtype``, into ``result``."""
    key = (op, dtype, result)
    plan = PLANS.get(key)
    if plan is None:
        expr = unary_expression(op, dtype, result)
        plan = PLANS[key] = Plan(dtype, result, (Operand(dtype),), expr)
    return plan


def fill_plan(dtype: np.dtype) -> Plan:
    """The plan of setting every element of an array of ``dtype`` to a scalar."""
    key = ("fill", dtype)
    plan = PLANS.get(key)
    if plan is None:
        expr = unary_expression("cast", dtype, dtype)
        plan = PLANS[key] = Plan(dtype, dtype, (Operand(dtype, True),), expr)
        plan.convert = _scalar_conversion(dtype)
    return plan


# {{{ flat launches


def _width_of(itemsize: int, ptr: int) -> int:
    """``vector_width(itemsize, [ptr])`` for one address, inlined for the flat launches."""
    if itemsize & (itemsize - 1) or itemsize > 16:
        return 1
    width = 16 // itemsize
    while width > 1 and ptr % (width * itemsize):
        width >>= 1
    return width


def _narrower(plan: Plan, out_ptr: int, *arrays: Any) -> int:
    width = _width_of(plan.itemsize, out_ptr)
    for x in arrays:
        if core.is_array(x) and width > 1:
            width = builtins.min(width, _width_of(x.dtype.itemsize, x.ptr))
    return width


def _fresh(
    shape: tuple[int, ...], plan: Plan, n: int, allocator: Any, gpudata: Any, ptr: int
) -> Any:
    if len(shape) == 1:
        strides = plan.strides1
    else:
        strides = new_array_strides(shape, plan.itemsize) if shape else ()
    return core.array_class()._fresh(shape, plan.result, strides, n, allocator, gpudata, ptr)


def _flat_binary(
    a: Any, op: str, plan: Plan, other: Any, array_other: bool, reflected: bool
) -> Any:
    n = a.size
    state = core.STATES.get(core.seams.context_handle()) or core.state()
    allocator = a.allocator
    gpudata = allocator(n * plan.itemsize)
    ptr = int(gpudata)
    if array_other:
        value = other.ptr
        aligned = a.ptr | value | ptr
    else:
        value = plan.convert(other)
        aligned = a.ptr | ptr
    width = plan.wide if not aligned & 15 else _narrower(plan, ptr, a, other)
    launch = state.plans.get((plan, n, width)) or state.flat_launch(plan, n, width)
    first, second = (value, a.ptr) if reflected else (a.ptr, value)
    launch[0](launch[1], launch[2], ptr, first, second, n)
    if state.flat and allocator is state.allocate and width == plan.wide:
        _remember(op, plan, a, other, array_other, reflected, n, launch, state)
    return _fresh(a.shape, plan, n, allocator, gpudata, ptr)


def _remember(
    op: str,
    plan: Plan,
    a: Any,
    other: Any,
    array_other: bool,
    reflected: bool,
    n: int,
    launch: tuple[Any, ...],
    state: core.ContextState,
) -> None:
    """Hands the launch just made to FLAT, which makes the next like it itself."""
    grid, block = launch[1], launch[2]
    if builtins.any(d != 1 for d in grid[1:]) or builtins.any(d != 1 for d in block[1:]):
        return
    rhs = other.dtype if array_other else type(other)
    FLAT.remember(
        op, a.dtype, rhs, reflected, core.seams.context_handle(), n, launch[3], grid[0],
        block[0], state.allocate, plan,
    )  # fmt: skip


# }}}

# {{{ the operations


def _is_scalar(value: Any) -> bool:
    return isinstance(value, (int, float, complex, np.generic)) and not isinstance(
        value, np.ndarray
    )


def binary(
    a: Any,
    op: str,
    other: Any,
    reflected: bool = False,
    out: Any = None,
    stream: Any = None,
    casting: str = "same_kind",
    *,
    ranged: bool = False,
) -> Any:
    """``a op other`` (``other op a`` when ``reflected``) with NumPy's rules: broadcasting,
    any strides, ``out=`` (cast by ``casting``), ``stream=``; ``op`` is a binary row of
    pycuda._ufuncs. NotImplemented for an operand that is neither an array nor a scalar. With
    pycuda's automatic NVTX ranges on, the operation is a range named ``op`` (``ranged``:
    already inside it)."""
    if AUTO.on and not ranged:
        with AutoRange(op):
            return binary(a, op, other, reflected, out, stream, casting, ranged=True)
    if out is None and stream is None:
        result = flat_binary(a, op, other, reflected)
        if result is not None:
            return result
    return general_binary(a, op, other, reflected, out, stream, casting)


def flat_binary(a: Any, op: str, other: Any, reflected: bool = False) -> Any:
    """``a op other`` as one flat kernel where ``a`` is a plain (exact class) C-contiguous array
    and ``other`` one of its shape or a scalar its plan holds for; None elsewhere."""
    n = a.size
    cls = core.array_class()
    if not n or type(a) is not cls or not a._c:
        return None
    kind = type(other)
    if kind is cls:
        if other.shape != a.shape or not other._c:
            return None
        plan = binary_plan(op, a.dtype, other.dtype, reflected)
        return _flat_binary(a, op, plan, other, True, reflected)
    plan = scalar_type_plan(op, a.dtype, kind, reflected)
    if plan is not None and plan.takes(other):
        return _flat_binary(a, op, plan, other, False, reflected)
    return None


def general_binary(
    a: Any,
    op: str,
    other: Any,
    reflected: bool = False,
    out: Any = None,
    stream: Any = None,
    casting: str = "same_kind",
) -> Any:
    """``binary`` for any operands and layouts, through _array_core.elementwise."""
    if core.is_array(other):
        b_dtype: Any = other.dtype
    elif isinstance(other, np.ndarray):
        other = core.to_device(other)
        b_dtype = other.dtype
    elif _is_scalar(other):
        b_dtype = other.dtype if isinstance(other, np.generic) else other
    else:
        return NotImplemented
    return _general_binary(a, op, other, b_dtype, reflected, out, stream, casting)


def _general_binary(
    a: Any,
    op: str,
    b: Any,
    b_dtype: Any,
    reflected: bool,
    out: Any,
    stream: Any,
    casting: str,
) -> Any:
    # NumPy's order: dtypes (TypeError) before shapes (ValueError), for out= too.
    plan = binary_plan(op, a.dtype, b_dtype, reflected)
    operand, result = plan.operand, plan.result
    if out is not None:
        core.require_array_out(out)
    if out is not None and not np.can_cast(result, out.dtype, casting):
        raise TypeError(
            f"Cannot cast ufunc '{op}' output from {result!r} to {out.dtype!r} with "
            f"casting rule '{casting}'"
        )
    b_is_array = core.is_array(b)
    shape = broadcast_shapes(a.shape, b.shape) if b_is_array else a.shape
    fresh = out is None
    if out is None:
        out = core.new_result(a, shape, result, b)
    elif broadcast_shapes(out.shape, shape) != out.shape:
        raise ValueError(
            f"non-broadcastable output operand with shape {shape_text(out.shape)} "
            f"doesn't match the broadcast shape {shape_text(shape)}"
        )
    # A new output overlaps nothing; an existing one may overlap an input in another layout.
    a_in: Any = a.copy(stream) if not fresh and core.overlaps(out, a) else a
    if b_is_array:
        b_in: Any = b.copy(stream) if not fresh and core.overlaps(out, b) else b
    else:
        b_in = (b, operand)
    inputs = [b_in, a_in] if reflected else [a_in, b_in]
    da = operand if isinstance(inputs[0], tuple) else inputs[0].dtype
    db = operand if isinstance(inputs[1], tuple) else inputs[1].dtype
    expr = binary_expression(op, da, db, operand, out.dtype)
    core.elementwise(out, inputs, expr, stream)
    return out


def inplace(a: Any, op: str, other: Any, *, ranged: bool = False) -> Any:
    """``a op= other``: in ``a``'s memory, as NumPy's ``op(a, other, out=a)``; returns ``a``.
    A range named ``op`` where the automatic NVTX ranges are on."""
    if AUTO.on and not ranged:
        with AutoRange(op):
            return inplace(a, op, other, ranged=True)
    result = flat_inplace(a, op, other)
    return binary(a, op, other, out=a, ranged=ranged) if result is None else result


def flat_inplace(a: Any, op: str, other: Any) -> Any:
    """``a op= other`` as one flat kernel where ``a`` is C-contiguous and ``other`` a scalar its
    plan holds for or a C-contiguous array of its shape that is ``a`` itself or does not
    overlap it; None elsewhere."""
    n = a.size
    if not n or not a._c:
        return None
    ptr = a.ptr
    if core.is_array(other):
        if other.shape != a.shape or not other._c:
            return None
        second = other.ptr
        same = second == ptr and other.strides == a.strides
        apart = second >= ptr + n * a.dtype.itemsize or ptr >= second + n * other.dtype.itemsize
        if not (same or apart):
            return None  # overlapping: the general path copies it first
        plan = inplace_plan(op, a.dtype, other.dtype)
        return None if plan is None else _flat_inplace(a, plan, second, ptr | second)
    plan = inplace_plan(op, a.dtype, other)
    return None if plan is None else _flat_inplace(a, plan, plan.convert(other), ptr)


def _flat_inplace(a: Any, plan: Plan, second: Any, aligned: int) -> Any:
    n = a.size
    ptr = a.ptr
    state = core.STATES.get(core.seams.context_handle()) or core.state()
    width = plan.wide if not aligned & 15 else _narrower(plan, ptr, a)
    launch = state.plans.get((plan, n, width)) or state.flat_launch(plan, n, width)
    launch[0](launch[1], launch[2], ptr, ptr, second, n)
    return a


def unary(
    a: Any,
    op: str,
    dtype: np.dtype,
    out: Any = None,
    stream: Any = None,
    expr: str | None = None,
    *,
    ranged: bool = False,
) -> Any:
    """``op`` of each element of ``a`` into ``out`` (or a new array of ``dtype``); ``expr``
    replaces the operation's own C expression (of ``x0``). A range named ``op`` where the
    automatic NVTX ranges are on."""
    if AUTO.on and not ranged:
        with AutoRange(op):
            return unary(a, op, dtype, out, stream, expr, ranged=True)
    if out is None and stream is None and expr is None:
        result = flat_unary(a, op, dtype)
        if result is not None:
            return result
    if out is None:
        out = core.like(a, dtype)
    else:
        core.check_out(out, a.shape, dtype, op)
    src = a.copy(stream) if core.overlaps(out, a) else a
    if expr is None:
        expr = unary_plan(op, a.dtype, dtype).expr
    core.elementwise(out, [src], expr, stream)
    return out


def flat_unary(a: Any, op: str, dtype: np.dtype) -> Any:
    """``op`` of each element of a plain C-contiguous ``a`` into a new array of ``dtype``, as
    one flat kernel; None elsewhere."""
    n = a.size
    if not n or type(a) is not core.array_class() or not a._c:
        return None
    plan = unary_plan(op, a.dtype, dtype)
    state = core.STATES.get(core.seams.context_handle()) or core.state()
    allocator = a.allocator
    gpudata = allocator(n * plan.itemsize)
    ptr = int(gpudata)
    src = a.ptr
    width = plan.wide if not (src | ptr) & 15 else _narrower(plan, ptr, a)
    launch = state.plans.get((plan, n, width)) or state.flat_launch(plan, n, width)
    launch[0](launch[1], launch[2], ptr, src, n)
    return _fresh(a.shape, plan, n, allocator, gpudata, ptr)


_FILL_TYPES = (bool, int, float)  # converted without a ComplexWarning, so without its filter


def fill(a: Any, value: Any, stream: Any = None, *, ranged: bool = False) -> Any:
    """Every element of ``a`` set to ``value``; returns ``a``. A range named "fill" where the
    automatic NVTX ranges are on."""
    if AUTO.on and not ranged:
        with AutoRange("fill"):
            return fill(a, value, stream, ranged=True)
    if _is_zero(value) and a.dtype.kind in "biufc" and a.size and a._dense:
        nbytes = a.size * a.dtype.itemsize
        if stream is None:
            core.seams.driver.memset_d8(a.ptr, 0, nbytes)
        else:
            core.seams.driver.memset_d8_async(a.ptr, 0, nbytes, stream)
        return a
    if not a.size:
        core.scalar_value(value, a.dtype)  # NumPy's errors for the value, even with no element
        return a
    if stream is None and flat_fill(a, value):
        return a
    core.elementwise(a, [(value, a.dtype)], unary_expression("cast", a.dtype, a.dtype), stream)
    return a


def flat_fill(a: Any, value: Any) -> bool:
    """``a.fill(value)`` as one flat kernel for a C-contiguous ``a`` and a Python number;
    False where the general path must do it."""
    if type(value) not in _FILL_TYPES or a.dtype.kind not in "biufc" or not a._c:
        return False
    plan = fill_plan(a.dtype)
    n = a.size
    ptr = a.ptr
    state = core.STATES.get(core.seams.context_handle()) or core.state()
    width = plan.wide if not ptr & 15 else _narrower(plan, ptr, a)
    launch = state.plans.get((plan, n, width)) or state.flat_launch(plan, n, width)
    launch[0](launch[1], launch[2], ptr, plan.convert(value), n)
    return True


def linear_dtype(terms: Sequence[tuple[Any, Any]], constant: Any = None) -> np.dtype:
    """The dtype NumPy gives ``f0 * x0 + f1 * x1 + ... (+ constant)`` for ``(x, f)`` terms."""
    dtype = None
    for x, factor in terms:
        product = binary_op_dtypes("multiply", factor, x.dtype)[1]
        dtype = product if dtype is None else binary_op_dtypes("add", dtype, product)[1]
    if constant is not None:
        dtype = binary_op_dtypes("add", dtype, constant)[1]
    return dtype


def linear_combination(
    out: Any, terms: Sequence[tuple[Any, Any]], constant: Any, stream: Any
) -> None:
    """``out[...] = f0 * x0 + f1 * x1 + ... (+ constant)`` in one kernel, computed in the
    terms' NumPy dtype and cast to ``out``'s (arrays broadcast to ``out``'s shape)."""
    dtype = linear_dtype(terms, constant)
    ct = compute_ctype(dtype)
    inputs: list[Any] = []
    parts = []
    for x, factor in terms:
        k = len(inputs)
        inputs += [x.copy(stream) if core.overlaps(out, x) else x, (factor, dtype)]
        parts.append(f"pc_cast<{ct}>(x{k + 1}) * pc_cast<{ct}>(x{k})")
    if constant is not None:
        parts.append(f"pc_cast<{ct}>(x{len(inputs)})")
        inputs.append((constant, dtype))
    expr = f"pc_cast<{dtype_to_ctype(dtype)}>({' + '.join(parts)})"
    if out.dtype != dtype:
        expr = f"pc_cast<{dtype_to_ctype(out.dtype)}>({expr})"
    core.elementwise(out, inputs, expr, stream)


def _is_zero(value: Any) -> bool:
    try:
        return _is_scalar(value) and value == 0 and not np.signbit(np.real(value))
    except TypeError:
        return False


# }}}

# {{{ the C++ side


FLAT = core.FLAT  # the C++ half of the launch cache (pycuda._array_core owns it)
# Once GPUArray exists, FLAT serves its exact instances and hands its misses to binary().
core.on_register(lambda cls: FLAT.bind(cls, binary))


def binary_operator(name: str, op: str, reflected: bool = False) -> Any:
    """GPUArray's operator ``name`` (``__add__``) for ufunc ``op`` (``add``): a C++ method
    descriptor (_driver.FlatOperator) that serves the launches FLAT remembers and calls
    ``binary`` for every other call."""
    return FLAT.operator(name, op, reflected)


# }}}
