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

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _cumath_expressions as expressions
from pycuda import _fusion_hook as fusion_hook
from pycuda import _operators as ops
from pycuda import _ufuncs
from pycuda._array_functions import binary_function
from pycuda._array_kernels import compute_ctype
from pycuda._broadcast import broadcast_shapes
from pycuda._c_types import dtype_to_ctype
from pycuda._dtype_rules import float_result_dtype, is_weak, kind_of, promote

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


def _traced(name: str, operands: tuple[Any, ...], **params: Any) -> Any:
    """cumath.``name`` where its array argument is not a GPUArray: fuse()'s traced result where
    an operand is a traced value (pycuda._fusion_hook), else cumath's TypeError."""
    result = fusion_hook.call(f"cumath.{name}", operands, params)
    return _check_array(operands[0], name) if result is NotImplemented else result


def _unary(name: str) -> Any:
    """The cumath function ``name`` of one array (a row of pycuda._ufuncs), with the original's
    signature: ``name(array, stream_or_out=None, *, out=None, stream=None)``."""
    op = _ufuncs.get(name).name  # NumPy's name: the plan's and the NVTX range's

    def func(
        array: GPUArray,
        stream_or_out: Any = None,
        *,
        out: GPUArray | None = None,
        stream: Any = None,
    ) -> GPUArray:
        if not core.is_array(array):
            return _traced(name, (array,), stream_or_out=stream_or_out, out=out, stream=stream)
        out, stream = _out_and_stream(stream_or_out, out, stream)
        return ops.unary(array, op, _ufuncs.unary_op_dtypes(op, array.dtype)[1], out, stream)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = (
        f"``{name}`` of each element: ``{name}(array, out=None, stream=None)`` -> GPUArray."
    )
    return func


def _numpy_unary(name: str, doc: str) -> Any:
    """The cumath function ``name`` of one array (a row of pycuda._ufuncs) that the original
    lacked, with NumPy's signature: ``name(array, out=None, stream=None)``."""
    op = _ufuncs.get(name).name  # NumPy's name: the plan's and the NVTX range's

    def func(array: GPUArray, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
        if not core.is_array(array):
            return _traced(name, (array,), out=out, stream=stream)
        return ops.unary(array, op, _ufuncs.unary_op_dtypes(op, array.dtype)[1], out, stream)

    func.__name__ = func.__qualname__ = name
    func.__doc__ = f"{doc}: ``{name}(array, out=None, stream=None)``."
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
    return float_result_dtype(array.dtype)


def fmod(arg: GPUArray, mod: Any, stream: Any = None, out: GPUArray | None = None) -> GPUArray:
    """C's ``fmod``: the remainder of ``arg / mod`` with the sign of ``arg`` (broadcasting)."""
    if not core.is_array(arg):
        return _traced("fmod", (arg, mod), out=out, stream=stream)
    return ops.binary(arg, "fmod", mod, out=out, stream=stream)


def frexp(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(significand, exponent)`` with ``arg = significand * 2**exponent`` (exponent int32)."""
    if not core.is_array(arg):
        return _traced("frexp", (arg,), stream=stream)
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
    if not core.is_array(significand):
        return _traced("ldexp", (significand, exponent), out=out, stream=stream)
    return ops.binary(significand, "ldexp", exponent, out=out, stream=stream)


def modf(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(fractional part, integral part)``, both with the sign of ``arg``."""
    if not core.is_array(arg):
        return _traced("modf", (arg,), stream=stream)
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

sign = _numpy_unary(
    "sign", "-1, 0 or 1 by the sign of each element (NaN stays NaN; complex: ``z / abs(z)``)"
)
trunc = _numpy_unary(
    "trunc", "Each element rounded towards zero (integers: as the installed NumPy's ``trunc``)"
)


def round(  # NumPy's name, though it hides the builtin in this module
    array: GPUArray, decimals: int = 0, out: GPUArray | None = None, stream: Any = None
) -> GPUArray:
    """``numpy.round``: each element rounded to ``decimals`` decimals, halves to even.

    Integers keep their dtype (negative ``decimals`` round to tens, hundreds...); complex
    values round both parts.
    """
    if not core.is_array(array):
        return _traced("round", (array,), decimals=decimals, out=out, stream=stream)
    decimals = int(decimals)
    kind = kind_of(array.dtype)
    dtype = array.dtype
    if kind == "b":
        if decimals:
            raise TypeError("round: bool arrays can only be rounded with decimals=0")
        dtype = float_result_dtype(dtype)
    expr = expressions.round_half_even(array.dtype, dtype, decimals)
    return ops.unary(array, "round", dtype, out, stream, expr)


def _classifier(name: str, what: str) -> Any:
    return _numpy_unary(
        name,
        f"A bool array: True where the element is {what} (complex: either part for NaN and "
        "infinity, both parts for finite)",
    )


isnan = _classifier("isnan", "NaN")
isinf = _classifier("isinf", "infinite")
isfinite = _classifier("isfinite", "finite")


# }}}


# {{{ functions of two and three operands (broadcasting; either operand may be a scalar)


def _dtype_of(value: Any) -> Any:
    """What the dtype rules take for an operand: a dtype, or a Python scalar itself."""
    if core.is_array(value) or isinstance(value, (np.ndarray, np.generic)):
        return value.dtype
    if is_weak(value):
        return value
    return np.asarray(value).dtype


def arctan2(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """The angle of the point ``(x2, x1)``: ``arctan(x1 / x2)`` in the right quadrant."""
    return binary_function("arctan2", x1, x2, out, stream)


def hypot(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """``sqrt(x1**2 + x2**2)`` without overflow or underflow in the squares."""
    return binary_function("hypot", x1, x2, out, stream)


def power(x1: Any, x2: Any, out: GPUArray | None = None, stream: Any = None) -> GPUArray:
    """``x1 ** x2`` (NumPy's ``power``: integers stay integers, complex powers too)."""
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
    if not core.is_array(a):
        return _traced("clip", (a, a_min, a_max), out=out, stream=stream)
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
            step = _ufuncs.apply(op, ("a", "b"), dtype)
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
