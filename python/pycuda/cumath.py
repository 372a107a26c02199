"""pycuda.cumath: element-wise math functions of GPUArrays (NumPy's, for every GPUArray dtype).

    import numpy
    import pycuda.autoinit
    from pycuda import cumath, gpuarray

    x = gpuarray.to_gpu(numpy.linspace(0, 1, 100).astype(numpy.float32))
    y = cumath.sin(x)                       # a new array
    cumath.exp(x, out=y)                    # into an existing one
    mantissa, exponent = cumath.frexp(x)
    angle = cumath.arctan2(y, x)            # binary functions broadcast, as NumPy's
    z = cumath.clip(x, 0.25, None)

Integer arrays give floating results as NumPy's functions do (int32 -> float64); any strides
are accepted. ``out=`` must have the result's shape and dtype. float16 and bfloat16 (with
ml_dtypes) compute in float32.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _cumath_expressions as expressions
from pycuda import _operators as ops
from pycuda._array_functions import binary_function
from pycuda._array_kernels import binary_c, compute_ctype
from pycuda._broadcast import broadcast_shapes
from pycuda._c_types import dtype_to_ctype
from pycuda._dtype_rules import (
    binary_float_result_dtype,
    is_weak,
    kind_of,
    promote,
    unary_result_dtype,
)

if TYPE_CHECKING:
    from pycuda.gpuarray import GPUArray

__all__ = [
    "acos",
    "arccosh",
    "arcsinh",
    "arctan2",
    "arctanh",
    "asin",
    "atan",
    "ceil",
    "clip",
    "cos",
    "cosh",
    "exp",
    "exp2",
    "expm1",
    "fabs",
    "floor",
    "fmod",
    "frexp",
    "hypot",
    "isfinite",
    "isinf",
    "isnan",
    "ldexp",
    "log",
    "log10",
    "log1p",
    "log2",
    "modf",
    "power",
    "round",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "trunc",
]

# Functions NumPy defines for complex arguments too (pycuda::complex overloads them).
_COMPLEX_OK = {
    "arcsinh",
    "arccosh",
    "arctanh",
    "exp",
    "log",
    "log10",
    "sqrt",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
}


# NumPy 2.3 made ceil and floor of integer arrays return the integers unchanged; follow the
# installed NumPy, as the rest of the dtype rules do.
_ROUNDING_KEEPS_INTEGERS = np.ceil(np.zeros(1, np.int32)).dtype.kind == "i"

# cumath names whose CUDA C function has another name.
_C_NAMES = {"arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh"}
# Complex functions that pycuda::complex lacks, written from its exp and log (as NumPy does).
_COMPLEX_BY_FORMULA = {"exp2", "log2", "log1p", "expm1"}


def _out_and_stream(stream_or_out: Any, out: Any, stream: Any) -> tuple[Any, Any]:
    """The original's deprecated positional ``stream_or_out``: a GPUArray is ``out``."""
    if stream_or_out is None:
        return out, stream
    warnings.warn(
        "passing stream or out positionally is deprecated; use out= or stream=",
        DeprecationWarning,
        stacklevel=3,
    )
    if core.is_array(stream_or_out):
        if out is not None:
            raise TypeError("out given both positionally and as a keyword")
        return stream_or_out, stream
    if stream is not None:
        raise TypeError("stream given both positionally and as a keyword")
    return out, stream_or_out


def _check_array(array: Any, name: str) -> GPUArray:
    if not core.is_array(array):
        raise TypeError(f"cumath.{name} takes a GPUArray, got {type(array).__name__}")
    return array


def _unary(name: str) -> Any:
    def func(
        array: GPUArray,
        stream_or_out: Any = None,
        *,
        out: GPUArray | None = None,
        stream: Any = None,
    ) -> GPUArray:
        array = _check_array(array, name)
        out, stream = _out_and_stream(stream_or_out, out, stream)
        kind = kind_of(array.dtype)
        if kind == "c" and name not in _COMPLEX_OK | _COMPLEX_BY_FORMULA and name != "fabs":
            raise TypeError(f"ufunc '{name}' not supported for the input types ({array.dtype})")
        if kind == "c" and name == "fabs":
            return ops.unary(array, "absolute", np.dtype(array.dtype.char.lower()), out, stream)
        if name in ("ceil", "floor") and kind in "biu" and _ROUNDING_KEEPS_INTEGERS:
            return ops.unary(array, "cast", array.dtype, out, stream)
        if kind not in "biufc":
            raise TypeError(f"cumath.{name}: unsupported dtype {array.dtype}")
        dtype = unary_result_dtype("float_function", array.dtype)
        if kind == "c" and name in _COMPLEX_BY_FORMULA:
            expr = expressions.complex_function(name, array.dtype, dtype)
            return ops.unary(array, name, dtype, out, stream, expr)
        return ops.unary(array, _C_NAMES.get(name, name), dtype, out, stream)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"``{name}`` of each element: ``{name}(array, out=None, stream=None)`` -> GPUArray."
    )
    return func


fabs = _unary("fabs")
ceil = _unary("ceil")
floor = _unary("floor")
exp = _unary("exp")
log = _unary("log")
log10 = _unary("log10")
sqrt = _unary("sqrt")
sin = _unary("sin")
cos = _unary("cos")
tan = _unary("tan")
asin = _unary("asin")
acos = _unary("acos")
atan = _unary("atan")
sinh = _unary("sinh")
cosh = _unary("cosh")
tanh = _unary("tanh")
exp2 = _unary("exp2")
log2 = _unary("log2")
log1p = _unary("log1p")
expm1 = _unary("expm1")
arcsinh = _unary("arcsinh")
arccosh = _unary("arccosh")
arctanh = _unary("arctanh")


def _real_float(array: GPUArray, name: str) -> np.dtype:
    array = _check_array(array, name)
    if kind_of(array.dtype) not in "biuf":
        raise TypeError(f"ufunc '{name}' not supported for the input types ({array.dtype})")
    return unary_result_dtype("float_function", array.dtype)


def fmod(arg: GPUArray, mod: Any, stream: Any = None, out: GPUArray | None = None) -> GPUArray:
    """C's ``fmod``: the remainder of ``arg / mod`` with the sign of ``arg`` (broadcasting)."""
    arg = _check_array(arg, "fmod")
    mod_dtype = (
        mod.dtype if core.is_array(mod) or isinstance(mod, (np.ndarray, np.generic)) else mod
    )
    kind = kind_of(promote(arg.dtype, mod_dtype, "remainder"))
    if kind == "c":
        raise TypeError("ufunc 'fmod' not supported for complex inputs")
    if kind in "iub":
        body = "((B == 0 || B == -1) ? (A - A) : (A % B))"
    else:
        body = "fmod(A, B)"
    return ops.binary(arg, "remainder", mod, out=out, stream=stream, body=body)


def frexp(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(significand, exponent)`` with ``arg = significand * 2**exponent`` (exponent int32)."""
    dtype = _real_float(arg, "frexp")
    ct = compute_ctype(dtype)
    significand = core.like(arg, dtype)
    exponent = core.like(arg, np.int32)
    x = f"pc_cast<{ct}>(x0)"
    core.elementwise(
        significand,
        [arg],
        f"pc_cast<{_ctype(dtype)}>([&] {{ int e; return frexp({x}, &e); }}())",
        stream,
    )
    core.elementwise(exponent, [arg], f"[&] {{ int e; frexp({x}, &e); return e; }}()", stream)
    return significand, exponent


def ldexp(
    significand: GPUArray, exponent: Any, stream: Any = None, out: GPUArray | None = None
) -> GPUArray:
    """``significand * 2**exponent`` element-wise.

    ``exponent``: an integer array or int (NumPy's ``ldexp``), or a float array or float,
    converted to int by C's cast (toward zero), as the original's kernel did.
    """
    dtype = _real_float(significand, "ldexp")
    exp_dtype = getattr(exponent, "dtype", None)
    if exp_dtype is not None and exp_dtype.kind not in "biuf":
        raise TypeError(f"ldexp: the exponent must be integers or floats, got {exp_dtype}")
    ct = compute_ctype(dtype)
    body = f"ldexp(pc_cast<{ct}>(A), (int)B)"
    src = significand if significand.dtype == dtype else significand.astype(dtype, stream)
    return ops.binary(src, "add", exponent, out=out, stream=stream, body=body, result_dtype=dtype)


def modf(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(fractional part, integral part)``, both with the sign of ``arg``."""
    dtype = _real_float(arg, "modf")
    ct = compute_ctype(dtype)
    frac = core.like(arg, dtype)
    whole = core.like(arg, dtype)
    x = f"pc_cast<{ct}>(x0)"
    t = _ctype(dtype)
    core.elementwise(
        frac, [arg], f"pc_cast<{t}>([&] {{ {ct} w; return modf({x}, &w); }}())", stream
    )
    core.elementwise(
        whole, [arg], f"pc_cast<{t}>([&] {{ {ct} w; modf({x}, &w); return w; }}())", stream
    )
    return frac, whole


# {{{ rounding, signs and classification


def sign(array: GPUArray, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """-1, 0 or 1 by the sign of each element (NaN stays NaN; complex: ``z / abs(z)``)."""
    array = _check_array(array, "sign")
    if kind_of(array.dtype) == "b":
        raise TypeError("ufunc 'sign' did not contain a loop with signature matching types bool")
    return ops.unary(array, "sign", array.dtype, out, stream, expressions.sign(array.dtype))


def trunc(array: GPUArray, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """Each element rounded towards zero (integers: as the installed NumPy's ``trunc``)."""
    array = _check_array(array, "trunc")
    kind = kind_of(array.dtype)
    if kind == "c":
        raise TypeError(f"ufunc 'trunc' not supported for the input types ({array.dtype})")
    if kind in "biu" and _ROUNDING_KEEPS_INTEGERS:
        return ops.unary(array, "cast", array.dtype, out, stream)
    return ops.unary(array, "trunc", unary_result_dtype("float_function", array.dtype), out, stream)


def round(  # NumPy's name, though it hides the builtin in this module
    array: GPUArray, decimals: int = 0, out: GPUArray | None = None, stream: Any = None
) -> GPUArray:
    """``numpy.round``: each element rounded to ``decimals`` decimals, halves to even.

    Integers keep their dtype (negative ``decimals`` round to tens, hundreds...); complex
    values round both parts.
    """
    array = _check_array(array, "round")
    decimals = int(decimals)
    kind = kind_of(array.dtype)
    dtype = array.dtype
    if kind == "b":
        if decimals:
            raise TypeError("round: bool arrays can only be rounded with decimals=0")
        dtype = unary_result_dtype("float_function", dtype)
    expr = expressions.round_half_even(array.dtype, dtype, decimals)
    return ops.unary(array, "round", dtype, out, stream, expr)


def _classifier(name: str) -> Any:
    def func(array: GPUArray, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
        array = _check_array(array, name)
        expr = f"pc_cast<bool>({expressions.classify(name, array.dtype)})"
        return ops.unary(array, name, np.dtype(np.bool_), out, stream, expr)

    what = {"isnan": "NaN", "isinf": "infinite", "isfinite": "finite"}[name]
    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"A bool array: True where the element is {what} (complex: either part for NaN and "
        f"infinity, both parts for finite): ``{name}(array, out=None, stream=None)``."
    )
    return func


isnan = _classifier("isnan")
isinf = _classifier("isinf")
isfinite = _classifier("isfinite")


# }}}


# {{{ functions of two and three operands (broadcasting; either operand may be a scalar)


def _dtype_of(value: Any) -> Any:
    """What the dtype rules take for an operand: a dtype, or a Python scalar itself."""
    if core.is_array(value) or isinstance(value, (np.ndarray, np.generic)):
        return value.dtype
    if is_weak(value):
        return value
    return np.asarray(value).dtype


def _float_binary(name: str, c_name: str, x1: Any, x2: Any, out: Any, stream: Any) -> GPUArray:
    if not core.is_array(x1) and not core.is_array(x2):
        raise TypeError(f"cumath.{name}: at least one argument must be a GPUArray")
    dtype = binary_float_result_dtype(_dtype_of(x1), _dtype_of(x2))
    if kind_of(dtype) == "c":
        raise TypeError(f"ufunc '{name}' not supported for complex inputs (NumPy has none)")
    # A Python int converts to the float loop's type, whatever its value (as in NumPy).
    x1, x2 = (dtype.type(x) if type(x) is int else x for x in (x1, x2))
    ct = compute_ctype(dtype)
    body = f"{c_name}(pc_cast<{ct}>(A), pc_cast<{ct}>(B))"
    return binary_function("add", x1, x2, out, stream, body=body, result_dtype=dtype)


def arctan2(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """The angle of the point ``(x2, x1)``: ``arctan(x1 / x2)`` in the right quadrant."""
    return _float_binary("arctan2", "atan2", x1, x2, out, stream)


def hypot(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """``sqrt(x1**2 + x2**2)`` without overflow or underflow in the squares."""
    return _float_binary("hypot", "hypot", x1, x2, out, stream)


def power(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """``x1 ** x2`` (NumPy's ``power``: integers stay integers, complex powers too)."""
    if not core.is_array(x1) and not core.is_array(x2):
        raise TypeError("cumath.power: at least one argument must be a GPUArray")
    return binary_function("power", x1, x2, out, stream)


def _clip_bound(bound: Any, dtype: np.dtype, lower: bool) -> Any:
    """A bound as clip uses it. As NumPy 2 does, a Python int at or past its end of an integer
    array's range is no bound (None); other out-of-range ints raise OverflowError."""
    if type(bound) is int and kind_of(dtype) in "iu":
        info = np.iinfo(dtype)
        if (lower and bound <= info.min) or (not lower and bound >= info.max):
            return None
    if isinstance(bound, np.ndarray):
        return core.to_device(bound)
    return bound


def clip(
    a: GPUArray, a_min: Any, a_max: Any, out: GPUArray | None = None, stream: Any = None
) -> GPUArray:
    """``minimum(maximum(a, a_min), a_max)`` in one kernel; bounds are arrays (broadcast) or
    scalars, either may be None. NaN in ``a`` or a bound gives NaN, as in NumPy."""
    a = _check_array(a, "clip")
    bounds = [_clip_bound(a_min, a.dtype, True), _clip_bound(a_max, a.dtype, False)]
    dtype = a.dtype
    for b in bounds:
        if b is not None:
            dtype = promote(dtype, _dtype_of(b))
    operands: list[Any] = [a] + [b for b in bounds if b is not None]
    shape = broadcast_shapes(*[x.shape for x in operands if core.is_array(x)])
    if out is None:
        out = core.new_array(shape, dtype, a.allocator)
    else:
        core.check_out(out, shape, dtype, "clip")
    inputs = [
        (x.copy(stream) if core.overlaps(out, x) else x) if core.is_array(x) else (x, dtype)
        for x in operands
    ]
    ct = compute_ctype(dtype)
    value = f"pc_cast<{ct}>(x0)"
    k = 1
    for b, op in zip(bounds, ("maximum", "minimum"), strict=True):
        if b is not None:
            step = re.sub(r"\bB\b", "b", re.sub(r"\bA\b", "a", binary_c(op, dtype)))
            value = (
                f"[&] {{ const {ct} a = {value}; const {ct} b = pc_cast<{ct}>(x{k}); "
                f"return {step}; }}()"
            )
            k += 1
    core.elementwise(out, inputs, f"pc_cast<{_ctype(dtype)}>({value})", stream)
    return out


# }}}


def _ctype(dtype: np.dtype) -> str:
    return dtype_to_ctype(dtype)
