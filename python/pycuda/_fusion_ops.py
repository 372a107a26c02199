"""pycuda._fusion_ops: what fuse() asks about each element-wise operation, in one adapter.

``op_expression(op, exprs, kinds)`` gives, for one operation on operands whose C expressions are
``exprs`` and whose kinds are ``kinds`` (an array's dtype, or a scalar's value), the C
expression of its result (a value of the result dtype's storage type), that dtype, and the dtype
each scalar operand is converted to before the kernel reads it. Each answer is the one the
unfused call makes, from the same sources: the table of operations (pycuda._ufuncs: NumPy's
dtype rules and each operation's C) for every row of it, and the compositions that stay with
their modules (cumath's ``round`` and ``clip``, gpuarray's ``where``), so that a fused chain
rounds, wraps and casts exactly where the unfused chain stores its temporaries.

This module is the only place fuse() learns about operations. ``tests/test_fusion.py`` checks
each answer against the kernel the unfused call records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from pycuda import _cumath_expressions as cx
from pycuda import _dtypes, _ufuncs
from pycuda._dtype_rules import float_result_dtype, kind_of, promote

_BOOL = np.dtype(np.bool_)

# Sums, differences and products of floats with their rounding spelled out, where fuse() must
# keep the compiler from contracting a product and a sum of two operations into one fused
# multiply-add, which the unfused chain, storing the product first, cannot form. By the compute
# type of the operand dtype (float16 and bfloat16 compute in float).
_ROUNDED = {
    ("add", "float"): "__fadd_rn",
    ("subtract", "float"): "__fsub_rn",
    ("multiply", "float"): "__fmul_rn",
    ("add", "double"): "__dadd_rn",
    ("subtract", "double"): "__dsub_rn",
    ("multiply", "double"): "__dmul_rn",
}
# Complex sums and differences: each part rounded; a complex product keeps pycuda::complex's C
# (its own products and sums compile alike fused or not; its result is no bare product).
_COMPLEX_ROUNDED = (
    "[&] {{ const {t} a_ = A; const {t} b_ = B; "
    "return {t}({f}(a_.real(), b_.real()), {f}(a_.imag(), b_.imag())); }}()"
)


class OpResult(NamedTuple):
    """One operation's answer: its C expression (of the result's storage type), its result
    dtype, and per operand the dtype a scalar operand is converted to (its kernel argument has
    that dtype's compute type), or None (an array, or an operand the operation does without)."""

    expr: str
    dtype: np.dtype
    scalars: tuple[np.dtype | None, ...]


def op_expression(
    op: str,
    exprs: Sequence[str | None],
    kinds: Sequence[Any],
    params: tuple[Any, ...] = (),
    *,
    fenced: bool = True,
) -> OpResult:
    """The answer for ``op`` (a name of a pycuda._ufuncs row: ``add``, ``sqrt``, ``cast``...,
    or ``round``, ``clip``, ``select``, ``zeros_like``) over operands with C expressions
    ``exprs`` (simple names) and kinds ``kinds`` (a dtype for an array, the value for a
    scalar, None for an absent clip bound); ``params``: ``cast``'s dtype, ``round``'s decimals,
    ``select``'s condition. ``fenced``: floating-point sums, differences and products are
    written with their rounding explicit. Raises the unfused call's TypeError, ValueError or
    OverflowError where it raises."""
    special = _SPECIAL.get(op)
    if special is not None:
        return special(exprs, kinds, params)
    try:
        row = _ufuncs.get(op)
    except ValueError:
        raise TypeError(f"no element-wise operation {op!r}") from None
    if row.arity == 2:
        operand, result = _ufuncs.op_dtypes(row, kinds[0], kinds[1])
        body = _fenced(row.name, operand) if fenced else None
        if body is None:
            expr = _ufuncs.render(row, exprs, operand, result)
        else:
            t = _dtypes.info(operand).compute_c_name
            args = dict(zip("AB", (f"pc_cast<{t}>({e})" for e in exprs), strict=True))
            value = re.sub(r"\b[AB]\b", lambda m: args[m.group()], body)
            expr = f"pc_cast<{_dtypes.info(result).c_name}>({value})"
        return OpResult(expr, result, _scalars(kinds, operand))
    operand, result = _ufuncs.op_dtypes(row, kinds[0])
    if params:  # cast: the caller names the result dtype
        result = np.dtype(params[0])
    return OpResult(_ufuncs.render(row, exprs, operand, result), result, (None,))


def _fenced(op: str, operand: np.dtype) -> str | None:
    """The C (in ``A``, ``B``) of ``op`` with its rounding explicit, or None where it has no
    multiply-add to fear."""
    kind = kind_of(operand)
    if kind == "f":
        f = _ROUNDED.get((op, _dtypes.info(operand).compute_c_name))
        return None if f is None else f"{f}(A, B)"
    if kind == "c" and op in ("add", "subtract"):
        real = _dtypes.info(np.dtype(operand.char.lower())).compute_c_name
        t = _dtypes.info(operand).compute_c_name
        return _COMPLEX_ROUNDED.format(t=t, f=_ROUNDED[(op, real)])
    return None


def _scalars(kinds: Sequence[Any], dtype: np.dtype) -> tuple[np.dtype | None, ...]:
    return tuple(None if k is None or isinstance(k, np.dtype) else dtype for k in kinds)


def _substitute(expr: str, exprs: Sequence[str | None]) -> str:
    """``expr`` (written in ``x0, x1, ...``) with each ``xk`` replaced by ``exprs[k]``."""
    return re.sub(r"\bx(\d+)\b", lambda m: str(exprs[int(m.group(1))]), expr)


def _strong(kind: Any) -> Any:
    """A kind as the dtype rules take it: a NumPy scalar counts by its dtype."""
    return kind.dtype if isinstance(kind, np.generic) else kind


def _round(exprs, kinds, params) -> OpResult:
    """cumath.round(x, decimals): halves to even, as NumPy's (bool gives float16)."""
    d, decimals = kinds[0], int(params[0])
    dtype = d
    if kind_of(d) == "b":
        if decimals:
            raise TypeError("round: bool arrays can only be rounded with decimals=0")
        dtype = float_result_dtype(d)
    return OpResult(_substitute(cx.round_half_even(d, dtype, decimals), exprs), dtype, (None,))


def _clip(exprs, kinds, params) -> OpResult:
    """cumath.clip(a, a_min, a_max) (a bound None: none): one promoted dtype, then NumPy's
    maximum and minimum in its compute type. As NumPy 2 does, a Python int past its end of an
    integer array's range is no bound (one at the end is kept: it clips nothing either)."""
    kinds = list(kinds)
    if kind_of(kinds[0]) in "iu":
        info = np.iinfo(kinds[0])
        if type(kinds[1]) is int and kinds[1] < info.min:
            kinds[1] = None
        if type(kinds[2]) is int and kinds[2] > info.max:
            kinds[2] = None
    dtype = kinds[0]
    for b in kinds[1:]:
        if b is not None:
            dtype = promote(dtype, _strong(b))
    ct = _dtypes.info(dtype).compute_c_name
    value = f"pc_cast<{ct}>({exprs[0]})"
    for k, op in ((1, "maximum"), (2, "minimum")):
        if kinds[k] is not None:
            step = _ufuncs.apply(op, ("a", "b"), dtype)
            value = (
                f"[&] {{ const {ct} a = {value}; const {ct} b = pc_cast<{ct}>({exprs[k]}); "
                f"return {step}; }}()"
            )
    expr = f"pc_cast<{_dtypes.info(dtype).c_name}>({value})"
    return OpResult(expr, dtype, _scalars(kinds, dtype))


def _select(exprs, kinds, params) -> OpResult:
    """gpuarray.where / if_positive (``params``: the condition, in ``{x}``): the promoted dtype
    of the two values, scalars converted to it."""
    criterion = kinds[0]
    if not isinstance(criterion, np.dtype):
        raise TypeError(f"the criterion must be a GPUArray, got {type(criterion).__name__}")
    dtype = promote(_strong(kinds[1]), _strong(kinds[2]))
    t = _dtypes.info(dtype).c_name
    c = params[0].format(x=f"pc_cast<{_dtypes.info(criterion).compute_c_name}>({exprs[0]})")
    expr = f"({c} ? pc_cast<{t}>({exprs[1]}) : pc_cast<{t}>({exprs[2]}))"
    return OpResult(expr, dtype, _scalars(kinds, dtype))


def _zeros_like(exprs, kinds, params) -> OpResult:
    """Zeros of the operand's dtype (GPUArray.imag of a real array)."""
    d = kinds[0]
    return OpResult(f"((void){exprs[0]}, pc_cast<{_dtypes.info(d).c_name}>(0))", d, (None,))


_SPECIAL = {"round": _round, "clip": _clip, "select": _select, "zeros_like": _zeros_like}
