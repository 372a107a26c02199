"""C expressions of ``cumath.round``: NumPy's rounding to ``decimals`` decimals, halves to even.

Not a row of the table of operations (``pycuda._ufuncs``): its expression depends on
``decimals``, not only on dtypes. Like the rows' expressions, it reads the element ``x0`` (of the
input dtype) and computes real operands in the compute type (float16 and bfloat16 in float),
complex ones with ``pycuda::complex``; results agree with NumPy's exactly.
"""

from __future__ import annotations

import numpy as np

from pycuda._array_kernels import compute_ctype
from pycuda._c_types import dtype_to_ctype
from pycuda._dtype_rules import kind_of


def _real_ctype(dtype: np.dtype) -> str:
    """The C type of a complex dtype's components (of a real dtype: its compute type)."""
    return compute_ctype(np.dtype(dtype.char.lower()) if kind_of(dtype) == "c" else dtype)


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
