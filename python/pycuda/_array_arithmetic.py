"""GPUArray's arithmetic: the operators (NumPy's rules), and the original's arithmetic methods
and kernel-call helpers (``mul_add``, ``_axpbyz``, ``_axpbz``, ``_elwise_multiply``, ``_div``,
``_rdiv_scalar``, ``_pow``), which client code calls. Each one asks pycuda._operators; this
class only gives them their names on the array."""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _operators as ops
from pycuda._array_core import ArrayBase
from pycuda._broadcast import broadcast_shapes
from pycuda._dtype_rules import unary_result_dtype


class Arithmetic:
    """The arithmetic of an array class (GPUArray's): a mixin over :class:`ArrayBase`."""

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
        body: str | None = None,
        result_dtype: Any = None,
    ) -> ArrayBase:
        """``self op other`` with NumPy's rules (broadcasting, strides, ``out=``)."""
        return ops.binary(self, op, other, reflected, out, stream, body, result_dtype)

    # The binary operators (NumPy's rules, any operands): C++ method descriptors
    # (_operators.binary_operator) that launch remembered flat kernels for plain contiguous
    # operands without a Python frame, and call _operators.binary for everything else.
    __add__ = ops.binary_operator("__add__", "add")
    __radd__ = ops.binary_operator("__radd__", "add", reflected=True)

    def __iadd__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "add", other)

    __sub__ = ops.binary_operator("__sub__", "subtract")
    __rsub__ = ops.binary_operator("__rsub__", "subtract", reflected=True)

    def __isub__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "subtract", other)

    __mul__ = ops.binary_operator("__mul__", "multiply")
    __rmul__ = ops.binary_operator("__rmul__", "multiply", reflected=True)

    def __imul__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "multiply", other)

    __truediv__ = ops.binary_operator("__truediv__", "true_divide")
    __rtruediv__ = ops.binary_operator("__rtruediv__", "true_divide", reflected=True)

    def __itruediv__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "true_divide", other)

    __div__, __rdiv__, __idiv__ = __truediv__, __rtruediv__, __itruediv__

    __floordiv__ = ops.binary_operator("__floordiv__", "floor_divide")
    __rfloordiv__ = ops.binary_operator("__rfloordiv__", "floor_divide", reflected=True)

    def __ifloordiv__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "floor_divide", other)

    __mod__ = ops.binary_operator("__mod__", "remainder")
    __rmod__ = ops.binary_operator("__rmod__", "remainder", reflected=True)

    def __imod__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "remainder", other)

    __pow__ = ops.binary_operator("__pow__", "power")
    __rpow__ = ops.binary_operator("__rpow__", "power", reflected=True)

    def __ipow__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "power", other)

    __and__ = ops.binary_operator("__and__", "bitwise_and")
    __rand__ = ops.binary_operator("__rand__", "bitwise_and", reflected=True)

    def __iand__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "bitwise_and", other)

    __or__ = ops.binary_operator("__or__", "bitwise_or")
    __ror__ = ops.binary_operator("__ror__", "bitwise_or", reflected=True)

    def __ior__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "bitwise_or", other)

    __xor__ = ops.binary_operator("__xor__", "bitwise_xor")
    __rxor__ = ops.binary_operator("__rxor__", "bitwise_xor", reflected=True)

    def __ixor__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "bitwise_xor", other)

    __lshift__ = ops.binary_operator("__lshift__", "left_shift")
    __rlshift__ = ops.binary_operator("__rlshift__", "left_shift", reflected=True)

    def __ilshift__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "left_shift", other)

    __rshift__ = ops.binary_operator("__rshift__", "right_shift")
    __rrshift__ = ops.binary_operator("__rrshift__", "right_shift", reflected=True)

    def __irshift__(self, other: Any) -> ArrayBase:
        return ops.inplace(self, "right_shift", other)

    __eq__ = ops.binary_operator("__eq__", "equal")
    __ne__ = ops.binary_operator("__ne__", "not_equal")
    __lt__ = ops.binary_operator("__lt__", "less")
    __le__ = ops.binary_operator("__le__", "less_equal")
    __gt__ = ops.binary_operator("__gt__", "greater")
    __ge__ = ops.binary_operator("__ge__", "greater_equal")

    def __neg__(self) -> ArrayBase:
        return ops.unary(self, "negative", unary_result_dtype("negative", self.dtype))

    def __pos__(self) -> ArrayBase:
        return ops.unary(self, "positive", unary_result_dtype("positive", self.dtype))

    def __abs__(self) -> ArrayBase:
        return ops.unary(self, "absolute", unary_result_dtype("absolute", self.dtype))

    def __invert__(self) -> ArrayBase:
        return ops.unary(self, "invert", unary_result_dtype("invert", self.dtype))
