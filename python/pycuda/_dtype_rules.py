"""Result dtypes of element-wise operations, by NumPy 2's rules (NEP 50 weak Python scalars).

An operand is either a dtype (an array, or a NumPy scalar: both 'strong') or a Python
``bool``/``int``/``float``/``complex`` (a 'weak' scalar that takes the array's kind when it can).
The rules are coded here, not delegated to NumPy, so they are the same under NumPy 1.x, and they
are tested against NumPy 2 for every pair of the dtypes GPUArray supports (``pycuda._dtypes``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

# The dtypes GPUArray supports (bfloat16 last, where ml_dtypes is installed) and their kinds are
# the dtype table's; re-exported here, where the rules that use them live.
from pycuda._dtypes import BFLOAT16, SUPPORTED_DTYPES, kind_of  # noqa: F401 - re-exported

Operand = Any  # np.dtype, a numpy scalar, or a Python bool/int/float/complex

_DEFAULT_INT = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)

ARITHMETIC = ("add", "subtract", "multiply", "true_divide", "floor_divide", "remainder", "power")
COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
EXTREMA = ("maximum", "minimum")
BINARY_OPS = ARITHMETIC + COMPARISON + BITWISE + EXTREMA
UNARY_OPS = ("negative", "positive", "absolute", "invert", "logical_not", "float_function")


def is_bfloat16(dtype: Any) -> bool:
    """True when ``dtype`` is ml_dtypes' bfloat16.

    The one safe test: ``dtype == BFLOAT16`` is true for float64 when ml_dtypes is absent,
    because NumPy reads ``np.dtype(None)`` as float64.
    """
    return BFLOAT16 is not None and dtype == BFLOAT16


def _not_supported(op: str) -> TypeError:
    return TypeError(
        f"ufunc '{op}' not supported for the input types, and the inputs could not be safely "
        "coerced to any supported types according to the casting rule ''safe''"
    )


def is_weak(operand: Operand) -> bool:
    """True for Python scalars (bool, int, float, complex), which NEP 50 treats as 'weak'."""
    return type(operand) in (bool, int, float, complex)


def _strong_dtype(operand: Operand) -> np.dtype:
    if isinstance(operand, np.generic):
        return operand.dtype
    return np.dtype(operand)


def _weak_with(value: bool | int | float | complex, dtype: np.dtype, op: str) -> np.dtype:
    """The dtype a weak Python scalar and an array of ``dtype`` promote to."""
    kind = kind_of(dtype)
    if is_bfloat16(dtype) and not isinstance(value, int):
        # ml_dtypes promotes bfloat16 with a Python float to float32, with complex to complex64.
        return np.dtype(np.complex64 if isinstance(value, complex) else np.float32)
    if isinstance(value, bool):
        return dtype
    if isinstance(value, int):
        if op == "true_divide" and kind in "biu":
            return _FLOAT64  # only float loops: the int converts to float64, whatever its size
        comparable = kind in "iu" and op in COMPARISON
        if kind == "b":
            dtype, kind = _DEFAULT_INT, "i"
        if kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                if comparable:
                    # NumPy 2 compares out-of-range Python ints by value: int64 does that
                    # exactly where both fit; float64 (exact below 2**53) is the fallback.
                    fits = -(2**63) <= value < 2**63 and dtype != np.dtype(np.uint64)
                    return _DEFAULT_INT if fits else _FLOAT64
                raise OverflowError(f"Python integer {value} out of bounds for {dtype}")
        return dtype
    if isinstance(value, float):
        return _FLOAT64 if kind in "biu" else dtype
    if kind in "biu":
        return np.dtype(np.complex128)
    if kind == "f":
        return np.dtype(np.complex64) if dtype.itemsize <= 4 else np.dtype(np.complex128)
    return dtype


def promote(a: Operand, b: Operand, op: str = "add") -> np.dtype:
    """The common dtype of two operands (``np.result_type`` with NEP 50 weak Python scalars)."""
    if is_weak(a) and is_weak(b):
        return np.result_type(np.asarray(a), np.asarray(b))
    if is_weak(a):
        return _weak_with(a, _strong_dtype(b), op)
    if is_weak(b):
        return _weak_with(b, _strong_dtype(a), op)
    return _promote_strong(_strong_dtype(a), _strong_dtype(b))


def _promote_strong(a: np.dtype, b: np.dtype) -> np.dtype:
    if not (is_bfloat16(a) or is_bfloat16(b)):
        return np.promote_types(a, b)
    # ml_dtypes' ufunc loops take the first of these that both operands cast to safely (NumPy's
    # promote_types refuses e.g. int16 with bfloat16, but the ufuncs compute it in float32).
    for candidate in (BFLOAT16, np.float32, np.float64, np.complex64, np.complex128):
        if np.can_cast(a, candidate) and np.can_cast(b, candidate):
            return np.dtype(candidate)
    raise TypeError(f"no common dtype for {a} and {b}")


def binary_op_dtypes(op: str, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of the ufunc ``op`` applied to ``a`` and ``b``.

    Both inputs are cast to the operand dtype before the operation, whose result has the result
    dtype: ``int8 / int8`` computes in float64, comparisons give bool, ``bool // bool`` gives
    int8. Raises :exc:`TypeError` as NumPy does for unsupported combinations (``-`` of bools,
    ``//`` and ``%`` of complex, bit operations on floats), :exc:`OverflowError` for a Python int
    out of range of an integer array, and :exc:`ValueError` for an integer array raised to a
    negative Python int.
    """
    if op not in BINARY_OPS:
        raise ValueError(f"unknown binary operation {op!r}; expected one of {BINARY_OPS}")
    dtype = promote(a, b, op)
    kind = kind_of(dtype)
    if op in COMPARISON:
        return dtype, _BOOL
    if op == "subtract" and kind == "b":
        raise TypeError(
            "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, "
            "the `^` operator, or the logical_xor function instead."
        )
    if op == "true_divide" and kind in "biu":
        return _FLOAT64, _FLOAT64
    if op in ("floor_divide", "remainder") and kind == "c":
        raise _not_supported(op)
    if op in ("bitwise_and", "bitwise_or", "bitwise_xor") and kind not in "biu":
        raise _not_supported(op)
    if op in ("left_shift", "right_shift") and kind not in "biu":
        raise _not_supported(op)
    if op == "power" and kind in "iu" and is_weak(b) and not isinstance(b, bool) and b < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    if kind == "b" and op in ("floor_divide", "remainder", "power", "left_shift", "right_shift"):
        # These ufuncs have no bool loop; NumPy's first loop that bool casts to is int8.
        dtype = np.dtype(np.int8)
    return dtype, dtype


def binary_result_dtype(op: str, a: Operand, b: Operand) -> np.dtype:
    """The dtype of ``op(a, b)``; see :func:`binary_op_dtypes`."""
    return binary_op_dtypes(op, a, b)[1]


def unary_result_dtype(op: str, dtype: Any) -> np.dtype:
    """The dtype of a unary operation on an array of ``dtype``.

    ``op`` is ``negative``, ``positive``, ``absolute`` (complex gives its real type),
    ``invert`` (bool and integers only), ``logical_not`` (bool), or ``float_function`` for the
    cumath functions such as ``sqrt`` (integers give the smallest float that holds them exactly,
    as NumPy's loops do: int8 -> float16, int32 -> float64).
    """
    dtype = np.dtype(dtype)
    kind = kind_of(dtype)
    if op == "negative" and kind == "b":
        raise TypeError(
            "The numpy boolean negative, the `-` operator, is not supported, use the `~` "
            "operator or the logical_not function instead."
        )
    if op == "positive" and kind == "b":
        raise TypeError(f"ufunc 'positive' did not contain a loop with signature matching {dtype}")
    if op in ("negative", "positive"):
        return dtype
    if op == "absolute":
        return np.dtype(dtype.char.lower()) if kind == "c" else dtype
    if op == "invert":
        if kind not in "biu":
            raise _not_supported(op)
        return dtype
    if op == "logical_not":
        return _BOOL
    if op == "float_function":
        return dtype if kind in "fc" else np.promote_types(dtype, np.float16)
    raise ValueError(f"unknown unary operation {op!r}; expected one of {UNARY_OPS}")


def binary_float_result_dtype(a: Operand, b: Operand) -> np.dtype:
    """The dtype of a float function of two operands (``arctan2``, ``hypot``).

    NumPy takes its first float loop that both operands cast to safely, so int8 with uint8 gives
    float16 (not the float32 of their common int16). A weak Python int with an integer array
    takes the array's loop whatever its value (int8 with ``1000`` is float16, uint32 with
    ``-3`` float64); other weak scalars promote first (int8 with ``2.0`` is float64).
    """
    strong = [_strong_dtype(x) for x in (a, b) if not is_weak(x)]
    if len(strong) == 1 and kind_of(strong[0]) in "iu" and int in (type(a), type(b)):
        return unary_result_dtype("float_function", strong[0])
    if len(strong) < 2 or any(is_bfloat16(d) for d in strong):
        return unary_result_dtype("float_function", promote(a, b))
    f = [unary_result_dtype("float_function", d) for d in strong]
    return np.promote_types(f[0], f[1])
