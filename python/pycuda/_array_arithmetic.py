"""GPUArray's arithmetic: the operators (NumPy's rules), and the original's arithmetic methods
and kernel-call helpers (``mul_add``, ``_axpbyz``, ``_axpbz``, ``_elwise_multiply``, ``_div``,
``_rdiv_scalar``, ``_pow``), which client code calls. Each one asks pycuda._operators; this
class only gives them their names on the array."""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _operators as ops
from pycuda import _ufuncs
from pycuda._array_core import ArrayBase
from pycuda._broadcast import broadcast_shapes
from pycuda._ufuncs import unary_op_dtypes


class Arithmetic:
    """The arithmetic of an array class (GPUArray's): a mixin over :class:`ArrayBase`. Its
    Python operators are set below, one per dunder name of the table of operations."""

    __hash__: Any = None  # __eq__ is element-wise (GPUArray defines its own hash)

    def mul_add(
        self,
        selffac: Any,
        other: ArrayBase,
        otherfac: Any,
        add_timer: Any = None,
        stream: Any = None,
        out: ArrayBase | None = None,
    ) -> ArrayBase:
        """``selffac * self + otherfac * other`` in one kernel (broadcasting, NumPy's dtype)."""
        if not isinstance(other, ArrayBase):
            raise TypeError(f"mul_add: other must be a GPUArray, got {type(other).__name__}")
        terms = [(self, selffac), (other, otherfac)]
        dtype = ops.linear_dtype(terms)
        shape = broadcast_shapes(self.shape, other.shape)
        if out is None:
            out = core.new_result(self, shape, dtype, other)
        else:  # computed into out's dtype, as the original's _axpbyz (it made no dtype check)
            core.require_array_out(out)
            core.check_out(out, shape, out.dtype, "mul_add")
        ops.linear_combination(out, terms, None, stream)
        if add_timer is not None:
            add_timer(3 * self.size, 0.0)  # the original reports (flops, seconds)
        return out

    # {{{ the original's kernel-call helpers, which client code calls

    def _axpbyz(
        self,
        selffac: Any,
        other: ArrayBase,
        otherfac: Any,
        out: ArrayBase,
        add_timer: Any = None,
        stream: Any = None,
    ) -> ArrayBase:
        """``out = selffac * self + otherfac * other`` (either array may be 0-d), cast to
        ``out``'s dtype; returns ``out``."""
        ops.linear_combination(out, [(self, selffac), (other, otherfac)], None, stream)
        if add_timer is not None:
            add_timer(3 * self.size, 0.0)
        return out

    def _axpbz(self, selffac: Any, other: Any, out: ArrayBase, stream: Any = None) -> ArrayBase:
        """``out = selffac * self + other`` (``other`` a scalar), cast to ``out``'s dtype."""
        ops.linear_combination(out, [(self, selffac)], other, stream)
        return out

    def _elwise_multiply(self, other: ArrayBase, out: ArrayBase, stream: Any = None) -> ArrayBase:
        """``out = self * other``, cast to ``out``'s dtype."""
        return ops.binary(self, "multiply", other, out=out, stream=stream, casting="unsafe")

    def _div(self, other: ArrayBase, out: ArrayBase, stream: Any = None) -> ArrayBase:
        """``out = self / other``, cast to ``out``'s dtype."""
        return ops.binary(self, "true_divide", other, out=out, stream=stream, casting="unsafe")

    def _rdiv_scalar(self, other: Any, out: ArrayBase, stream: Any = None) -> ArrayBase:
        """``out = other / self`` (``other`` a scalar), cast to ``out``'s dtype."""
        return ops.binary(
            self, "true_divide", other, reflected=True, out=out, stream=stream, casting="unsafe"
        )

    def _pow(self, other: Any, new: bool) -> ArrayBase:
        """``self ** other`` into a new array when ``new``, else into ``self``."""
        return self.__pow__(other) if new else self.__ipow__(other)

    # }}}

    def _unary(
        self,
        op: str,
        dtype: np.dtype,
        out: ArrayBase | None = None,
        stream: Any = None,
        expr: str | None = None,
    ) -> ArrayBase:
        """``op`` of each element into ``out`` (or a new array of ``dtype``); ``expr`` replaces
        the operation's own C expression (of ``x0``)."""
        return ops.unary(self, op, dtype, out, stream, expr)

    def _binary(
        self,
        op: str,
        other: Any,
        reflected: bool = False,
        out: ArrayBase | None = None,
        stream: Any = None,
    ) -> ArrayBase:
        """``self op other`` with NumPy's rules (broadcasting, strides, ``out=``)."""
        return ops.binary(self, op, other, reflected, out, stream)


# {{{ the operators, from the rows of pycuda._ufuncs


def _inplace_operator(name: str, op: str) -> Any:
    def method(self: ArrayBase, other: Any) -> ArrayBase:
        return ops.inplace(self, op, other)

    method.__name__, method.__qualname__ = name, f"Arithmetic.{name}"
    return method


def _unary_operator(name: str, op: str) -> Any:
    def method(self: ArrayBase) -> ArrayBase:
        return ops.unary(self, op, unary_op_dtypes(op, self.dtype)[1])

    method.__name__, method.__qualname__ = name, f"Arithmetic.{name}"
    return method


def _operators() -> dict[str, Any]:
    """Every row's dunders: binary operators are C++ method descriptors
    (_operators.binary_operator) that launch remembered flat kernels for plain contiguous
    operands without a Python frame, and call _operators.binary for everything else; in-place
    ones call _operators.inplace, unary ones _operators.unary. A row's later names (``__div__``)
    are aliases of its first."""
    methods: dict[str, Any] = {}
    for row in _ufuncs.rows():
        made = []
        if row.arity == 1 and row.dunders:
            made.append((row.dunders, _unary_operator(row.dunders[0], row.name)))
        elif row.dunders:
            made.append((row.dunders, ops.binary_operator(row.dunders[0], row.name)))
        if row.rdunders:
            made.append((row.rdunders, ops.binary_operator(row.rdunders[0], row.name, True)))
        if row.idunders:
            made.append((row.idunders, _inplace_operator(row.idunders[0], row.name)))
        for names, method in made:
            methods.update(dict.fromkeys(names, method))
    return methods


for _name, _method in _operators().items():
    setattr(Arithmetic, _name, _method)

# }}}
