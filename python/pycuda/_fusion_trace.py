"""pycuda._fusion_trace: tracing a function of GPUArrays into one expression graph, for fuse().

fuse() calls the function once per kind of arguments with stand-ins: a :class:`TracedArray` for
each GPUArray and a :class:`TracedScalar` for each number. Operators, pycuda.cumath's functions
and gpuarray.where/maximum/minimum on a TracedArray add a node to the :class:`Graph`, whose
dtype and C expression pycuda._fusion_ops decides, as the unfused call would. Arithmetic among
TracedScalars is recorded as a small host program that each later call runs again on its own
numbers, as the function's Python would; where the function turns such a number into a Python
value (``if alpha > 0``, ``int(n)``), the trace holds only for that value, and a call with
another traces again (a guard). What one kernel cannot compute (a Python ``if`` on an array
value, indexing, NumPy's functions, in-place operators, a GPUArray that is not an argument)
raises TypeError naming the construct.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycuda._array_core import ArrayBase
from pycuda._dtypes import SUPPORTED_DTYPES
from pycuda._fusion_ops import op_expression
from pycuda._ufuncs import rows

_DTYPES = frozenset(SUPPORTED_DTYPES)
_WEAK = (bool, int, float, complex)
# Ranges of Python ints that every dtype decision treats alike: which integer dtypes hold it.
_INT_LIMITS = (7, 8, 15, 16, 31, 32, 63, 64)


def is_number(x: Any) -> bool:
    """A scalar operand: a Python bool/int/float/complex or a NumPy scalar of a GPUArray dtype."""
    return type(x) in _WEAK or (isinstance(x, np.generic) and x.dtype in _DTYPES)


def scalar_key(x: Any) -> Any:
    """What the dtype rules see of a number: its type (a Python int: also which integer dtypes
    hold it); None for what is not a number."""
    t = type(x)
    if t is int:
        bits = x.bit_length() if x >= 0 else (~x).bit_length()
        return (int, x < 0, next((b for b in _INT_LIMITS if bits <= b), 65))
    if t in _WEAK or (isinstance(x, np.generic) and x.dtype in _DTYPES):
        return t
    return None


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and (a == b or (a != a and b != b))


# {{{ the graph's nodes


class HostNode:
    """A value the host computes: argument ``arg``, a constant ``value``, or ``func`` of the
    values of ``children`` (``value`` is then the traced call's)."""

    __slots__ = ("arg", "children", "func", "value")

    def __init__(self, value: Any, arg: int | None = None, func: Any = None, children=()):
        self.value, self.arg, self.func, self.children = value, arg, func, tuple(children)

    def evaluate(self, args: Sequence[Any]) -> Any:
        if self.func is not None:
            return self.func(*[c.evaluate(args) for c in self.children])
        return self.value if self.arg is None else args[self.arg]

    @property
    def constant(self) -> bool:
        return self.func is None and self.arg is None


class Leaf:
    """A GPUArray argument (``arg``: its position), read as C variable ``name``."""

    __slots__ = ("arg", "dtype", "name")

    def __init__(self, arg: int, dtype: np.dtype) -> None:
        self.arg, self.dtype, self.name = arg, dtype, f"fa{arg}"


class ScalarOperand:
    """A host value the kernel takes as an argument, converted to ``dtype`` (the argument has
    its compute type), read as C variable ``name``."""

    __slots__ = ("dtype", "host", "name")

    def __init__(self, host: HostNode, dtype: np.dtype, name: str) -> None:
        self.host, self.dtype, self.name = host, dtype, name


class OpNode:
    """One operation's result: ``expr`` (C, of the dtype's C type) over ``inputs``' names."""

    __slots__ = ("dtype", "expr", "inputs", "name")

    def __init__(self, dtype: np.dtype, expr: str, inputs: tuple[Any, ...], name: str) -> None:
        self.dtype, self.expr, self.inputs, self.name = dtype, expr, inputs, name


# }}}


class Graph:
    """What one trace of ``fn_name`` records: operation nodes, and the guards (host node,
    conversion, value) under which it holds."""

    def __init__(self, fn_name: str, arg_names: Sequence[str], fenced: bool) -> None:
        self.fn_name, self.arg_names, self.fenced = fn_name, list(arg_names), fenced
        self.count = 0
        self.guards: list[tuple[HostNode, Callable[[Any], Any], Any]] = []

    def error(self, what: str, hint: str = "") -> TypeError:
        hint = f"; {hint}" if hint else ""
        return TypeError(f"fuse cannot trace {what} in function {self.fn_name}{hint}")

    def not_an_argument(self, what: str) -> TypeError:
        return TypeError(
            f"fuse: function {self.fn_name} uses {what} that is not one of its arguments (a "
            "fused function's arrays must be its arguments); pass it as an argument"
        )

    def arg_name(self, arg: int) -> str:
        return self.arg_names[arg] if arg < len(self.arg_names) else f"#{arg}"

    def guard(self, host: HostNode, convert: Callable[[Any], Any], value: Any) -> None:
        """The trace holds where ``convert(host's value)`` is ``value`` (constants always do)."""
        if not host.constant:
            self.guards.append((host, convert, value))

    def holds(self, args: Sequence[Any]) -> bool:
        """Whether the trace holds for ``args`` (same argument kinds given)."""
        return all(_same(c(h.evaluate(args)), v) for h, c, v in self.guards)

    def _name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def host_of(self, x: Any, what: str) -> HostNode:
        """The host node of a non-array operand (a traced or constant number)."""
        if isinstance(x, TracedScalar):
            self.own(x)
            return x._host
        if isinstance(x, ArrayBase):
            raise self.not_an_argument("a GPUArray")
        if isinstance(x, np.ndarray):
            raise self.not_an_argument("a NumPy array")
        if not is_number(x):
            raise self.error(f"{what} with an operand of type {type(x).__name__}")
        return HostNode(x)

    def own(self, x: Any) -> None:
        """TypeError for a traced value of another trace."""
        if x._graph is not self:
            raise TypeError(
                f"fuse: function {self.fn_name} uses a traced value of another trace (kept from "
                "an earlier call of a fused function)"
            )

    def apply(
        self,
        op: str,
        operands: Sequence[Any],
        params: tuple[Any, ...] = (),
        what: str | None = None,
        optional: bool = False,
    ) -> TracedArray:
        """The node of ``op`` of ``operands`` (traced arrays, traced or constant numbers, None
        for an absent operand where ``optional``)."""
        what = what or op
        exprs: list[str | None] = []
        kinds: list[Any] = []
        nodes: list[Any] = []
        for x in operands:
            if isinstance(x, TracedArray):
                self.own(x)
                node = x._node
                exprs.append(node.name)
                kinds.append(node.dtype)
            elif x is None and optional:
                node = None
                exprs.append(None)
                kinds.append(None)
            else:
                node = self.host_of(x, what)
                if not is_number(node.value):
                    raise self.error(f"{what} with an operand of type {type(node.value).__name__}")
                exprs.append(self._name("fs"))
                kinds.append(node.value)
            nodes.append(node)
        if not any(isinstance(x, TracedArray) for x in operands):
            raise TypeError(f"{what}: at least one argument must be a GPUArray")
        result = op_expression(op, exprs, kinds, params, fenced=self.fenced)
        inputs: list[Any] = []
        for node, dtype, name in zip(nodes, result.scalars, exprs, strict=True):
            if isinstance(node, HostNode):
                if dtype is None:
                    continue  # an operand the operation does without (a clip bound)
                if node.func is not None:  # (an argument's kind is in the call's key)
                    self.guard(node, scalar_key, scalar_key(node.value))
                inputs.append(ScalarOperand(node, dtype, name))  # type: ignore[arg-type]
            elif node is not None:
                inputs.append(node)
        return TracedArray(OpNode(result.dtype, result.expr, tuple(inputs), self._name("fv")), self)

    def binary(self, op: str, a: Any, b: Any, symbol: str) -> Any:
        """``a symbol b`` where one of them is a TracedArray; NotImplemented for an operand that
        is no array or number (Python then tries the other's method, or raises)."""
        for x in (a, b):
            if not isinstance(x, (TracedArray, TracedScalar, ArrayBase, np.ndarray)):
                if not is_number(x):
                    return NotImplemented
        return self.apply(op, (a, b), what=f"`{symbol}`")


# {{{ the stand-ins


def _binary(op: str, symbol: str, reflected: bool = False) -> Callable[..., Any]:
    def method(self: TracedArray, other: Any) -> Any:
        a, b = (other, self) if reflected else (self, other)
        return self._graph.binary(op, a, b, symbol)

    expr = f"other {symbol} self" if reflected else f"self {symbol} other"
    method.__doc__ = f"``{expr}``, traced."
    return method


def _inplace(symbol: str) -> Callable[..., Any]:
    def method(self: TracedArray, other: Any) -> Any:
        graph, node = self._graph, self._node
        if isinstance(node, Leaf):
            raise graph.error(
                f"in-place `{symbol}=` on argument '{graph.arg_name(node.arg)}'",
                f"it would change the argument; write `y = x {symbol} ...` for a new array",
            )
        raise graph.error(
            f"in-place `{symbol}=`",
            f"write `t = t {symbol} ...` (with .astype(t.dtype) for the in-place result's dtype)",
        )

    method.__doc__ = f"``self {symbol}= other``: refused (fused functions do not change arrays)."
    return method


def _unary(op: str, symbol: str) -> Callable[..., Any]:
    what = symbol if symbol.endswith("()") else f"`{symbol}`"

    def method(self: TracedArray) -> Any:
        return self._graph.apply(op, (self,), what=what)

    written = f"{symbol[:-2]}(self)" if symbol.endswith("()") else f"{symbol}self"
    method.__doc__ = f"``{written}``, traced."
    return method


def _refused(what: str, hint: str = "") -> Callable[..., Any]:
    def method(self: Any, *args: Any, **kwargs: Any) -> Any:
        raise self._graph.error(what, hint)

    method.__doc__ = f"Refused: fuse cannot trace {what}."
    return method


# Operator ufuncs NumPy hands to __array_ufunc__ (``numpy.float32(2) * x``).
_UFUNC_OPERATORS = {
    "add": "+", "subtract": "-", "multiply": "*", "divide": "/", "true_divide": "/",
    "floor_divide": "//", "remainder": "%", "power": "**", "bitwise_and": "&",
    "bitwise_or": "|", "bitwise_xor": "^", "left_shift": "<<", "right_shift": ">>",
    "equal": "==", "not_equal": "!=", "less": "<", "less_equal": "<=", "greater": ">",
    "greater_equal": ">=",
}  # fmt: skip


class TracedArray:
    """Stands for an array value while fuse() traces a function: a GPUArray argument or the
    result of an operation on such. It offers the operators, ``dtype``, ``astype``, ``real``,
    ``imag`` and ``conj``; pycuda.cumath's functions and gpuarray.where, maximum and minimum
    take it."""

    __slots__ = ("_graph", "_node")
    __hash__ = None  # type: ignore[assignment]  # unhashable, as GPUArray

    def __init__(self, node: Any, graph: Graph) -> None:
        self._node, self._graph = node, graph

    @property
    def dtype(self) -> np.dtype:
        """The dtype the unfused chain's array would have here."""
        return self._node.dtype

    def __repr__(self) -> str:
        return f"<traced {self.dtype} array in fuse({self._graph.fn_name})>"

    # The operators (made from the table's rows below); __eq__ makes it unhashable, as a
    # class-body __eq__ would.
    __hash__ = None  # type: ignore[assignment]

    def astype(self, dtype: Any, stream: Any = None) -> TracedArray:
        """``GPUArray.astype``: NumPy's cast."""
        if stream is not None:
            raise self._graph.error("astype(stream=...)")
        return self._graph.apply("cast", (self,), (np.dtype(dtype),), what="astype")

    @property
    def real(self) -> TracedArray:
        """``GPUArray.real``: the real part (the value itself where it is real)."""
        if self.dtype.kind != "c":
            return self
        return self._graph.apply("real", (self,), what=".real")

    @property
    def imag(self) -> TracedArray:
        """``GPUArray.imag``: the imaginary part (zeros where the value is real)."""
        op = "imag" if self.dtype.kind == "c" else "zeros_like"
        return self._graph.apply(op, (self,), what=".imag")

    def conj(self, out: Any = None) -> TracedArray:
        """``GPUArray.conj``: the complex conjugate."""
        if out is not None:
            raise self._graph.error("conj(out=...)")
        return self._graph.apply("conj", (self,), what="conj()")

    conjugate = conj

    # What one element-wise kernel cannot compute.
    __bool__ = _refused(
        "`if` on an array value (bool() of a traced array)", "use pycuda.gpuarray.where"
    )
    __len__ = _refused("len() of a traced array")
    __iter__ = _refused("iteration over a traced array (a for loop, unpacking)")
    __getitem__ = _refused("indexing (x[...]) of a traced array", "index the arguments instead")
    __setitem__ = _refused("assignment to x[...] of a traced array")
    __int__ = _refused("int() of an array value")
    __float__ = _refused("float() of an array value")
    __complex__ = _refused("complex() of an array value")
    __index__ = _refused("an array value used as an index or count")
    __round__ = _refused("round() of a traced array", "use pycuda.cumath.round")
    __matmul__ = __rmatmul__ = _refused("`@` (a matrix product)")
    __array__ = _refused("a conversion of a traced array to a NumPy array")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        raise self._graph.error(
            f"numpy.{func.__name__}", "use pycuda.cumath's and pycuda.gpuarray's functions"
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        symbol = _UFUNC_OPERATORS.get(ufunc.__name__)
        if method == "__call__" and not kwargs and symbol is not None and len(inputs) == 2:
            op = "true_divide" if ufunc.__name__ == "divide" else ufunc.__name__
            return self._graph.binary(op, inputs[0], inputs[1], symbol)
        raise self._graph.error(
            f"numpy.{ufunc.__name__}", f"use pycuda.cumath.{ufunc.__name__} or an operator"
        )

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        graph = object.__getattribute__(self, "_graph")
        if name in ("gpudata", "ptr", "get", "get_async", "_c", "flags", "allocator"):
            raise graph.error(
                f"`.{name}` of a traced array (it has no memory: the function passes it to "
                "something that needs an array in memory, such as gpuarray.sum or a kernel)",
                "for a final sum, max or min use fuse(..., reduce='sum')",
            )
        if name in ("shape", "size", "ndim", "strides", "nbytes"):
            raise graph.error(
                f"`.{name}` of a traced array (one trace serves every shape)",
                "pass what the function needs of shapes as arguments",
            )
        raise graph.error(
            f"`.{name}` of a traced array",
            "traced arrays offer operators, dtype, astype, real, imag and conj",
        )

    @staticmethod
    def __pycuda_fusion__(name: str, operands: Sequence[Any], params: dict[str, Any]) -> Any:
        return traced_call(name, operands, params)


def _host_operator(func: Callable[..., Any], reflected: bool = False) -> Callable[..., Any]:
    def method(self: TracedScalar, *others: Any) -> Any:
        operands = (others[0], self) if reflected else (self, *others)
        return self._host_op(func, operands)

    method.__doc__ = f"``{func.__name__}`` of the number, as Python computes it."
    return method


def _concrete(convert: Callable[[Any], Any]) -> Callable[..., Any]:
    def method(self: TracedScalar) -> Any:
        value = convert(self._host.value)
        self._graph.guard(self._host, convert, value)
        return value

    method.__doc__ = f"``{convert.__name__}()`` of the number (the trace then holds for it only)."
    return method


class TracedScalar:
    """Stands for a number argument (or a number computed from them) while fuse() traces a
    function: Python's arithmetic on it is recorded and replayed at each call; where the
    function needs its value as a Python object (``if``, ``int()``), the trace holds for that
    value only."""

    __slots__ = ("_graph", "_host")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, host: HostNode, graph: Graph) -> None:
        self._host, self._graph = host, graph

    def __repr__(self) -> str:
        return f"<traced number {self._host.value!r} in fuse({self._graph.fn_name})>"

    def __format__(self, spec: str) -> str:
        return format(self._host.value, spec)

    def _host_op(self, func: Callable[..., Any], operands: Sequence[Any]) -> Any:
        nodes = []
        for x in operands:
            if isinstance(x, TracedArray):
                return NotImplemented  # the array's reflected operator traces it
            if isinstance(x, TracedScalar):
                self._graph.own(x)
                nodes.append(x._host)
            elif isinstance(x, ArrayBase):
                raise self._graph.not_an_argument("a GPUArray")
            else:
                nodes.append(HostNode(x))
        value = func(*[n.value for n in nodes])
        return TracedScalar(HostNode(value, func=func, children=nodes), self._graph)

    # Python's operators, as on a number (made from the table's rows below); the rest here.
    __hash__ = None  # type: ignore[assignment]
    __round__ = _host_operator(round)
    __trunc__, __floor__ = _host_operator(math.trunc), _host_operator(math.floor)
    __ceil__ = _host_operator(math.ceil)

    __bool__ = _concrete(bool)
    __int__ = _concrete(int)
    __float__ = _concrete(float)
    __complex__ = _concrete(complex)
    __index__ = _concrete(operator.index)
    __array__ = _concrete(np.asarray)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if any(isinstance(x, TracedArray) for x in inputs):
            return next(x for x in inputs if isinstance(x, TracedArray)).__array_ufunc__(
                ufunc, method, *inputs, **kwargs
            )
        if method != "__call__" or kwargs:
            raise self._graph.error(f"numpy.{ufunc.__name__}.{method} of a number argument")
        return self._host_op(ufunc, inputs)

    @staticmethod
    def __pycuda_fusion__(name: str, operands: Sequence[Any], params: dict[str, Any]) -> Any:
        return traced_call(name, operands, params)


def _operators_from_the_table() -> None:
    """The Python operators of the stand-ins, one for each operator of the table of element-wise
    operations (pycuda._ufuncs): a TracedArray's trace the row, a TracedScalar's compute it on
    the host as Python does (the operator module's function of the same dunder name)."""
    for row in rows():
        for name in row.dunders:
            made = _binary(row.name, row.symbol) if row.arity == 2 else _unary(row.name, row.symbol)
            setattr(TracedArray, name, made)
        for name in row.rdunders:
            setattr(TracedArray, name, _binary(row.name, row.symbol, True))
        for name in row.idunders:
            setattr(TracedArray, name, _inplace(row.symbol))
        # The first of a row's names is Python 3's (__truediv__; __div__ is an alias).
        host = getattr(operator, row.dunders[0], None) if row.dunders else None
        if host is not None:
            setattr(TracedScalar, row.dunders[0], _host_operator(host))
            for name in row.rdunders[:1]:
                setattr(TracedScalar, name, _host_operator(host, True))


_operators_from_the_table()

# }}}

# {{{ cumath's and gpuarray's functions of traced values (pycuda._fusion_hook)


def traced_call(name: str, operands: Sequence[Any], params: dict[str, Any]) -> Any:
    """The traced result of cumath's or gpuarray's function ``name`` (as pycuda._fusion_hook
    names it: ``cumath.<function>``, ``binary_function``, ``select``, ``unary``) of
    ``operands``, one of which is a traced value."""
    graph = next(x._graph for x in operands if isinstance(x, (TracedArray, TracedScalar)))
    for key in ("out", "stream", "stream_or_out"):
        if params.get(key) is not None:
            raise graph.error(f"the {key}= argument of {name}", "fused functions return arrays")
    if name == "binary_function":  # maximum, minimum, logical_and/or, arctan2, hypot, power
        return graph.apply(params["op"], operands, what=params["op"])
    if name == "select":  # where, if_positive
        return graph.apply("select", operands, (params["condition"],), what="where")
    if name == "unary":  # logical_not
        return graph.apply(params["op"], operands, what=params["op"])
    if not name.startswith("cumath."):
        raise graph.error(name)
    function = name[len("cumath.") :]
    if function in ("frexp", "modf"):
        raise graph.error(name, "it returns two arrays; a fused function computes one")
    if not isinstance(operands[0], TracedArray):
        raise TypeError(f"{name} takes a GPUArray, got {type(operands[0]).__name__}")
    if function == "round":
        return graph.apply("round", operands, (params["decimals"],), what=name)
    return graph.apply(function, operands, what=name, optional=function == "clip")


# }}}
