"""pycuda.cumath: element-wise math functions of GPUArrays (float32, float64 and complex).

    import numpy
    import pycuda.autoinit
    from pycuda import cumath, gpuarray

    x = gpuarray.to_gpu(numpy.linspace(0, 1, 100).astype(numpy.float32))
    y = cumath.sin(x)                       # a new array
    cumath.exp(x, out=y)                    # into an existing one
    mantissa, exponent = cumath.frexp(x)

Integer arrays give floating results as NumPy's functions do (int32 -> float64); any strides
are accepted. ``out=`` must have the result's shape and dtype.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from pycuda._array_kernels import compute_ctype
from pycuda._dtype_rules import unary_result_dtype
from pycuda.gpuarray import GPUArray, _elementwise

__all__ = [
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "exp",
    "fabs",
    "floor",
    "fmod",
    "frexp",
    "ldexp",
    "log",
    "log10",
    "modf",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
]

# Functions NumPy defines for complex arguments too (pycuda::complex overloads them).
_COMPLEX_OK = {
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


def _out_and_stream(stream_or_out: Any, out: Any, stream: Any) -> tuple[Any, Any]:
    """The original's deprecated positional ``stream_or_out``: a GPUArray is ``out``."""
    if stream_or_out is None:
        return out, stream
    warnings.warn(
        "passing stream or out positionally is deprecated; use out= or stream=",
        DeprecationWarning,
        stacklevel=3,
    )
    if isinstance(stream_or_out, GPUArray):
        if out is not None:
            raise TypeError("out given both positionally and as a keyword")
        return stream_or_out, stream
    if stream is not None:
        raise TypeError("stream given both positionally and as a keyword")
    return out, stream_or_out


def _check_array(array: Any, name: str) -> GPUArray:
    if not isinstance(array, GPUArray):
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
        kind = array.dtype.kind
        if kind == "c" and name not in _COMPLEX_OK and name != "fabs":
            raise TypeError(f"ufunc '{name}' not supported for the input types ({array.dtype})")
        if kind == "c" and name == "fabs":
            return array._unary("absolute", np.dtype(array.dtype.char.lower()), out, stream)
        if name in ("ceil", "floor") and kind in "iu" and _ROUNDING_KEEPS_INTEGERS:
            return array._unary("cast", array.dtype, out, stream)
        if kind not in "biufc":
            raise TypeError(f"cumath.{name}: unsupported dtype {array.dtype}")
        return array._unary(name, unary_result_dtype("float_function", array.dtype), out, stream)

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


def _real_float(array: GPUArray, name: str) -> np.dtype:
    array = _check_array(array, name)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"ufunc '{name}' not supported for the input types ({array.dtype})")
    return unary_result_dtype("float_function", array.dtype)


def fmod(arg: GPUArray, mod: Any, stream: Any = None, out: GPUArray | None = None) -> GPUArray:
    """C's ``fmod``: the remainder of ``arg / mod`` with the sign of ``arg`` (broadcasting)."""
    arg = _check_array(arg, "fmod")
    if arg.dtype.kind == "c" or getattr(mod, "dtype", np.dtype(float)).kind == "c":
        raise TypeError("ufunc 'fmod' not supported for complex inputs")
    mod_dtype = mod.dtype if hasattr(mod, "dtype") else np.asarray(mod).dtype
    kind = np.result_type(arg.dtype, mod_dtype).kind
    if kind in "iub":
        body = "((B == 0 || B == -1) ? (A - A) : (A % B))"
    else:
        body = "fmod(A, B)"
    return arg._binary("remainder", mod, out=out, stream=stream, body=body)


def frexp(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(significand, exponent)`` with ``arg = significand * 2**exponent`` (exponent int32)."""
    dtype = _real_float(arg, "frexp")
    ct = compute_ctype(dtype)
    significand = arg._new_like_self(dtype)
    exponent = arg._new_like_self(np.int32)
    x = f"pc_cast<{ct}>(x0)"
    _elementwise(
        significand,
        [arg],
        f"pc_cast<{_ctype(dtype)}>([&] {{ int e; return frexp({x}, &e); }}())",
        stream,
    )
    _elementwise(exponent, [arg], f"[&] {{ int e; frexp({x}, &e); return e; }}()", stream)
    return significand, exponent


def ldexp(
    significand: GPUArray, exponent: Any, stream: Any = None, out: GPUArray | None = None
) -> GPUArray:
    """``significand * 2**exponent`` element-wise (exponent: integer array or int)."""
    dtype = _real_float(significand, "ldexp")
    exp_dtype = getattr(exponent, "dtype", None)
    if exp_dtype is not None and exp_dtype.kind not in "biu":
        raise TypeError(f"ldexp: the exponent must be integers, got {exp_dtype}")
    ct = compute_ctype(dtype)
    body = f"ldexp(pc_cast<{ct}>(A), (int)B)"
    src = significand if significand.dtype == dtype else significand.astype(dtype, stream)
    return src._binary("add", exponent, out=out, stream=stream, body=body, result_dtype=dtype)


def modf(arg: GPUArray, stream: Any = None) -> tuple[GPUArray, GPUArray]:
    """``(fractional part, integral part)``, both with the sign of ``arg``."""
    dtype = _real_float(arg, "modf")
    ct = compute_ctype(dtype)
    frac = arg._new_like_self(dtype)
    whole = arg._new_like_self(dtype)
    x = f"pc_cast<{ct}>(x0)"
    t = _ctype(dtype)
    _elementwise(frac, [arg], f"pc_cast<{t}>([&] {{ {ct} w; return modf({x}, &w); }}())", stream)
    _elementwise(
        whole, [arg], f"pc_cast<{t}>([&] {{ {ct} w; modf({x}, &w); return w; }}())", stream
    )
    return frac, whole


def _ctype(dtype: np.dtype) -> str:
    from pycuda._c_types import dtype_to_ctype

    return dtype_to_ctype(dtype)
