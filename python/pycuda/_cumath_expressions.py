"""C expressions of the cumath functions that are more than one call of a CUDA math function.

Each builder returns the expression of one output element from ``x0`` (the input element, of the
input dtype), in the style of ``_array_kernels.unary_expression``: real operands compute in the
compute type (float16 and bfloat16 in float), complex ones with ``pycuda::complex``. Complex
``exp2``, ``log2``, ``log1p``, ``expm1`` and ``sign`` follow NumPy's own formulas (npymath), so
results agree with NumPy's to rounding.
"""

from __future__ import annotations

import numpy as np

from pycuda._array_kernels import compute_ctype
from pycuda._c_types import dtype_to_ctype
from pycuda._dtype_rules import kind_of

_LN2 = "0.693147180559945309417232121458176568"
_LOG2E = "1.442695040888963407359924681001892137"


def _real_ctype(dtype: np.dtype) -> str:
    """The C type of a complex dtype's components (of a real dtype: its compute type)."""
    return compute_ctype(np.dtype(dtype.char.lower()) if kind_of(dtype) == "c" else dtype)


def complex_function(name: str, operand: np.dtype, out: np.dtype) -> str:
    """exp2, log2, log1p or expm1 of a complex element (pycuda::complex has exp and log only)."""
    c, r = compute_ctype(operand), _real_ctype(operand)
    z = f"pc_cast<{c}>(x0)"
    if name == "exp2":
        body = f"exp({z} * ({r}){_LN2})"
    elif name == "log2":
        body = f"(log({z}) * ({r}){_LOG2E})"
    elif name == "log1p":
        body = (
            f"[&] {{ const {c} z = {z}; const {r} re = z.real() + {r}(1); "
            f"return {c}(log(hypot(re, z.imag())), atan2(z.imag(), re)); }}()"
        )
    elif name == "expm1":
        body = (
            f"[&] {{ const {c} z = {z}; const {r} a = sin(z.imag() / {r}(2)); "
            f"return {c}(expm1(z.real()) * cos(z.imag()) - {r}(2) * a * a, "
            f"exp(z.real()) * sin(z.imag())); }}()"
        )
    else:
        raise ValueError(f"no complex expression for {name!r}")
    return f"pc_cast<{dtype_to_ctype(out)}>({body})"


def sign(operand: np.dtype) -> str:
    """NumPy's sign: -1, 0 or 1 (NaN stays NaN); complex ``z / |z|`` with NumPy's infinities."""
    kind = kind_of(operand)
    c = compute_ctype(operand)
    x = f"pc_cast<{c}>(x0)"
    t = dtype_to_ctype(operand)
    if kind == "u":
        return f"pc_cast<{t}>({x} > 0)"
    if kind == "i":
        return f"pc_cast<{t}>(({x} > 0) - ({x} < 0))"
    if kind == "f":
        return (
            f"pc_cast<{t}>([&] {{ const {c} v = {x}; "
            f"return v > {c}(0) ? {c}(1) : (v < {c}(0) ? {c}(-1) : (v == {c}(0) ? {c}(0) : v)); "
            "}())"
        )
    r = _real_ctype(operand)
    return f"""pc_cast<{t}>([&] {{
        const {c} z = {x}; const {r} re = z.real(), im = z.imag(), a = hypot(re, im);
        const {r} nan = {r}(0) / {r}(0);
        if (a != a) return {c}(nan, nan);
        if (pycuda::detail::is_inf(a)) {{
            if (pycuda::detail::is_inf(re))
                return pycuda::detail::is_inf(im) ? {c}(nan, nan)
                                                  : {c}(re > {r}(0) ? {r}(1) : {r}(-1), {r}(0));
            return {c}({r}(0), im > {r}(0) ? {r}(1) : {r}(-1));
        }}
        if (a == {r}(0)) return {c}({r}(0), {r}(0));
        return {c}(re / a, im / a);
    }}())"""


def classify(name: str, operand: np.dtype) -> str:
    """isnan, isinf or isfinite as a bool (integers and bools are always finite)."""
    kind = kind_of(operand)
    if kind in "biu":
        # x0 is read (unused x0 would draw a compiler warning in the user's face)
        return f"((void)x0, {'true' if name == 'isfinite' else 'false'})"
    x = f"pc_cast<{compute_ctype(operand)}>(x0)"
    if kind == "c":
        return f"pycuda::{name}({x})"
    # By comparisons, as pycuda-complex.hpp does: no libm macros, the same under NVRTC and g++.
    helper = {"isnan": "is_nan", "isinf": "is_inf", "isfinite": "is_finite"}[name]
    return f"pycuda::detail::{helper}({x})"


def _round_real(value: str, r: str, storage: str, decimals: int) -> str:
    """``value`` (of C type ``r``) rounded half to even at ``decimals``, as NumPy does it: scale
    by ``10**|decimals|`` in the array's own type (each step rounded to ``storage``), rint,
    scale back."""
    if decimals == 0:
        return f"rint({value})"
    scale = repr(10.0 ** abs(decimals)) if abs(decimals) <= 308 else "(1.0 / 0.0)"
    f = f"{r}(pc_cast<{storage}>({scale}))"
    first, second = ("*", "/") if decimals > 0 else ("/", "*")
    scaled = f"rint(pc_cast<{r}>(pc_cast<{storage}>({value} {first} {f})))"
    return f"pc_cast<{r}>(pc_cast<{storage}>({scaled} {second} {f}))"


def round_half_even(operand: np.dtype, out: np.dtype, decimals: int) -> str:
    """NumPy's ``round(x, decimals)``: half to even; integers with ``decimals < 0`` go through
    float64 as NumPy's do; complex rounds each part."""
    kind = kind_of(operand)
    t_out = dtype_to_ctype(out)
    x = f"pc_cast<{compute_ctype(operand)}>(x0)"
    if kind in "biu":
        if decimals >= 0:
            return f"pc_cast<{t_out}>({x})"
        return f"pc_cast<{t_out}>({_round_real(f'(double){x}', 'double', 'double', decimals)})"
    if kind == "f":
        return f"pc_cast<{t_out}>({_round_real(x, compute_ctype(out), t_out, decimals)})"
    c, r = compute_ctype(operand), _real_ctype(operand)
    re = _round_real("z.real()", r, r, decimals)
    im = _round_real("z.imag()", r, r, decimals)
    return f"pc_cast<{t_out}>([&] {{ const {c} z = {x}; return {c}({re}, {im}); }}())"
