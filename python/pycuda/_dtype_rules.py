"""NumPy 2's dtype rules of element-wise operations (NEP 50 weak Python scalars), by class.

An operand is either a dtype (an array, or a NumPy scalar: both 'strong') or a Python
``bool``/``int``/``float``/``complex`` (a 'weak' scalar that takes the array's kind when it can).
The rules are coded here, not delegated to NumPy, so they are the same under NumPy 1.x, and they
are tested against NumPy 2 for every pair of the dtypes GPUArray supports (``pycuda._dtypes``).

Each rule is a class of operations (``arithmetic``, ``comparison``, ``float``...), never an
operation's name: ``pycuda._ufuncs`` gives each operation its class, the kinds it has loops for
and its own refusal, and asks :func:`binary_dtypes` / :func:`unary_dtypes` here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

# The dtypes GPUArray supports (bfloat16 last, where ml_dtypes is installed) and their kinds are
# the dtype table's; re-exported here, where the rules that use them live.
from pycuda._dtypes import BFLOAT16, SUPPORTED_DTYPES, kind_of  # noqa: F401 - re-exported

if TYPE_CHECKING:
    from pycuda._ufuncs import Ufunc

Operand = Any  # np.dtype, a numpy scalar, or a Python bool/int/float/complex

_DEFAULT_INT = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
_BOOL = np.dtype(np.bool_)
_INT8 = np.dtype(np.int8)

# NumPy 2.3 made ceil, floor and trunc of integer arrays return the integers unchanged; follow
# the installed NumPy, as the rest of the rules do.
ROUNDING_KEEPS_INTEGERS = np.ceil(np.zeros(1, np.int32)).dtype.kind == "i"


def is_bfloat16(dtype: Any) -> bool:
    """True when ``dtype`` is ml_dtypes' bfloat16.

    The one safe test: ``dtype == BFLOAT16`` is true for float64 when ml_dtypes is absent,
    because NumPy reads ``np.dtype(None)`` as float64.
    """
    return BFLOAT16 is not None and dtype == BFLOAT16


def not_supported(op: str) -> TypeError:
    """NumPy's error for an operation without a loop for its operands' dtypes."""
    return TypeError(
        f"ufunc '{op}' not supported for the input types, and the inputs could not be safely "
        "coerced to any supported types according to the casting rule ''safe''"
    )


def is_weak(operand: Operand) -> bool:
    """True for Python scalars (bool, int, float, complex), which NEP 50 treats as 'weak'."""
    return type(operand) in (bool, int, float, complex)


def _weak_dtype(value: bool | int | float | complex) -> np.dtype:
    """The dtype a weak Python scalar has alone (an int: the default int, whatever its value)."""
    return np.dtype(
        {bool: np.bool_, int: np.int64, float: np.float64}.get(type(value), np.complex128)
    )


def _strong_dtype(operand: Operand) -> np.dtype:
    if isinstance(operand, np.generic):
        return operand.dtype
    return np.dtype(operand)


def _weak_with(value: bool | int | float | complex, dtype: np.dtype, rule: str) -> np.dtype:
    """The dtype a weak Python scalar and an array of ``dtype`` promote to."""
    kind = kind_of(dtype)
    if is_bfloat16(dtype) and not isinstance(value, int):
        # ml_dtypes promotes bfloat16 with a Python float to float32, with complex to complex64.
        return np.dtype(np.complex64 if isinstance(value, complex) else np.float32)
    if isinstance(value, bool):
        return dtype
    if isinstance(value, int):
        if rule == "true_divide" and kind in "biu":
            return _FLOAT64  # only float loops: the int converts to float64, whatever its size
        comparable = kind in "iu" and rule == "comparison"
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


def promote(a: Operand, b: Operand, rule: str = "arithmetic") -> np.dtype:
    """The common dtype of two operands (``np.result_type`` with NEP 50 weak Python scalars);
    ``rule``, the operation's class, decides how a weak Python int meets an integer array."""
    if is_weak(a) and is_weak(b):
        return np.result_type(np.asarray(a), np.asarray(b))
    if is_weak(a):
        return _weak_with(a, _strong_dtype(b), rule)
    if is_weak(b):
        return _weak_with(b, _strong_dtype(a), rule)
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


def float_result_dtype(dtype: Any) -> np.dtype:
    """The dtype of a float function (``sqrt``...) of an array of ``dtype``: floats and complex
    keep theirs, integers take the smallest float that holds them exactly, as NumPy's loops do
    (int8 -> float16, int32 -> float64)."""
    dtype = np.dtype(dtype)
    return dtype if kind_of(dtype) in "fc" else np.promote_types(dtype, np.float16)


def binary_float_result_dtype(a: Operand, b: Operand) -> np.dtype:
    """The dtype of a float function of two operands (``arctan2``, ``hypot``).

    NumPy takes its first float loop that both operands cast to safely, so int8 with uint8 gives
    float16 (not the float32 of their common int16). A weak Python int with an integer array
    takes the array's loop whatever its value (int8 with ``1000`` is float16, uint32 with
    ``-3`` float64); other weak scalars promote first (int8 with ``2.0`` is float64).
    """
    strong = [_strong_dtype(x) for x in (a, b) if not is_weak(x)]
    if len(strong) == 1 and kind_of(strong[0]) in "biu" and int in (type(a), type(b)):
        # (with a bool array: the default int's loop, float64, whatever the value)
        return float_result_dtype(strong[0] if kind_of(strong[0]) in "iu" else _DEFAULT_INT)
    if len(strong) < 2 or any(is_bfloat16(d) for d in strong):
        return float_result_dtype(promote(a, b))
    f = [float_result_dtype(d) for d in strong]
    return np.promote_types(f[0], f[1])


# {{{ the rule classes: (operation's row, operands) -> (operand dtype, result dtype)


def _looped(row: Ufunc, dtype: np.dtype) -> np.dtype:
    """``dtype`` as the loops of ``row`` take it: itself where the row has a loop for its kind,
    int8 for bool where the row has integer loops only (NumPy's first loop bool casts to);
    NumPy's TypeError (or the row's own refusal of bool) elsewhere."""
    kind = kind_of(dtype)
    if kind in row.loops:
        return dtype
    if kind == "b" and row.refuse_bool:
        raise TypeError(row.refuse_bool)
    if kind == "b" and "i" in row.loops:
        return _INT8
    raise not_supported(row.name)


def _arithmetic(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    dtype = _looped(row, promote(a, b))
    return dtype, dtype


def _true_divide(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    dtype = promote(a, b, "true_divide")
    if kind_of(dtype) in "biu":
        return _FLOAT64, _FLOAT64  # the float64 loop, whatever the integers' size
    return dtype, dtype


def _power(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    dtype = promote(a, b)
    if kind_of(dtype) in "iu" and is_weak(b) and not isinstance(b, bool) and b < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")
    dtype = _looped(row, dtype)
    return dtype, dtype


def _comparison(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    return _looped(row, promote(a, b, "comparison")), _BOOL


def _c_long(*operands: Operand) -> None:
    """NumPy's error where it reads a Python int operand as a C long, whatever the other."""
    if any(type(x) is int and not -(2**63) <= x < 2**63 for x in operands):
        raise OverflowError("Python int too large to convert to C long")


def _logical(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    _c_long(a, b)
    return _comparison(row, a, b)


def _float2(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    dtype = _looped(row, binary_float_result_dtype(a, b))
    return dtype, dtype


def _ldexp(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    # NumPy's loops take integer exponents; floats are cast toward zero, as the original's
    # kernel did. Both compute in the significand's float dtype.
    dtype = _looped(row, float_result_dtype(_weak_dtype(a) if is_weak(a) else _strong_dtype(a)))
    _c_long(b)
    exponent = _weak_dtype(b) if is_weak(b) else _strong_dtype(b)
    if kind_of(exponent) not in "biuf":
        raise TypeError(f"ldexp: the exponent must be integers or floats, got {exponent}")
    return dtype, dtype


def _same(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    dtype = _looped(row, dtype)
    return dtype, dtype


def _cast(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    return dtype, dtype  # any dtype (structs too); the caller names the result's


def _to_real(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    dtype = _looped(row, dtype)
    return dtype, (np.dtype(dtype.char.lower()) if kind_of(dtype) == "c" else dtype)


def _predicate(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    return _looped(row, dtype), _BOOL


def _float1(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    if kind_of(dtype) not in "biufc":
        raise not_supported(row.name)
    dtype = _looped(row, float_result_dtype(dtype))
    return dtype, dtype


def _rounding(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    if kind_of(dtype) in "biu" and ROUNDING_KEEPS_INTEGERS:
        return _same(row, dtype)
    return _float1(row, dtype)


def _magnitude(row: Ufunc, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    operand, result = _float1(row, dtype)
    return operand, (np.dtype(result.char.lower()) if kind_of(result) == "c" else result)


BINARY_RULES: dict[str, Callable[[Any, Operand, Operand], tuple[np.dtype, np.dtype]]] = {
    "arithmetic": _arithmetic,  # the common dtype, where the row has a loop for its kind
    "true_divide": _true_divide,  # arithmetic, but integers divide in float64
    "power": _power,  # arithmetic, refusing integers to negative Python int powers
    "comparison": _comparison,  # the common dtype (weak ints compared by value) -> bool
    "logical": _logical,  # comparison, refusing Python ints beyond int64 (logical_and, _or)
    "float": _float2,  # the first float loop both operands cast to (arctan2, hypot)
    "ldexp": _ldexp,  # the significand's float dtype; a real exponent
}
"""The binary rule classes: each maps (row, a, b) to (operand dtype, result dtype)."""

UNARY_RULES: dict[str, Callable[[Any, np.dtype], tuple[np.dtype, np.dtype]]] = {
    "same": _same,  # the dtype itself, where the row has a loop for its kind
    "cast": _cast,  # the dtype itself, any (the caller names the result)
    "to_real": _to_real,  # the same, complex giving its real dtype (absolute, real, imag)
    "predicate": _predicate,  # -> bool (logical_not, isnan...)
    "float": _float1,  # the smallest float that holds the dtype (sqrt, sin...)
    "rounding": _rounding,  # integers kept (NumPy >= 2.3), else "float" (ceil, floor, trunc)
    "magnitude": _magnitude,  # "float", complex giving its real dtype (cumath.fabs)
}
"""The unary rule classes: each maps (row, dtype) to (operand dtype, result dtype)."""


def binary_dtypes(row: Ufunc, a: Operand, b: Operand) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of the binary operation ``row`` on ``a`` and ``b``.

    Both inputs are cast to the operand dtype before the operation, whose result has the result
    dtype: ``int8 / int8`` computes in float64, comparisons give bool, ``bool // bool`` gives
    int8. Raises :exc:`TypeError` as NumPy does for unsupported combinations (``-`` of bools,
    ``//`` and ``%`` of complex, bit operations on floats), :exc:`OverflowError` for a Python int
    out of range of an integer array, and :exc:`ValueError` for an integer array raised to a
    negative Python int.
    """
    return BINARY_RULES[row.rule](row, a, b)


def unary_dtypes(row: Ufunc, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of the unary operation ``row`` on an array of
    ``dtype``: sqrt of int32 computes in float64, absolute of complex64 gives float32."""
    return UNARY_RULES[row.rule](row, np.dtype(dtype))


# }}}
