"""CUDA C sources of GPUArray's element-wise kernels: one output, array and scalar operands.

Every operation of ``gpuarray`` and ``cumath`` is one C expression over the operands ``x0, x1,
...`` (already read from memory), wrapped in one of three loops:

- the flat loop (every operand contiguous, see ``_kernel_layout``): a grid-stride loop that moves
  ``width`` elements per operand at a time as one aligned 16-byte (or narrower) access, which is
  what runs at memory bandwidth, then finishes the tail element by element;
- the rows loop (``rows_kernel``): the merged (collapsed) axes seen as rows along the last one,
  a thread per ``width`` neighbouring elements of a row, so the index arithmetic is paid per
  row and operands contiguous along the rows move as wide accesses (broadcasts, strided views);
- the strided loop: a grid-stride loop over the merged axes, element by element (rows too
  short to fill a block's threads).

The lengths and byte strides of the merged axes arrive as kernel arguments, so one compiled
kernel serves every shape of the same number of merged axes.

Casts follow NumPy (complex to real keeps the real part); operands compute in their dtype's
compute dtype (``pycuda._dtypes``: float16 and bfloat16 in float32). This module only writes
sources; ``gpuarray`` compiles, caches and launches them.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda import _dtypes, _ufuncs
from pycuda._c_types import dtype_to_ctype
from pycuda._kernel_layout import CONTIGUOUS, STRIDED, RowsLayout

# Device helpers every generated kernel includes: NumPy's casts and its integer and float
# semantics where C's differ (floor division, modulo, shifts, integer powers, complex order).
# pc_cast has a specialization for every storage type of the dtype table that converts through
# float, so the helpers include every header the table names.
_HELPERS_HEAD = r"""
// The integer helpers are templates shared by signed and unsigned types, where "x < 0" is
// "pointless" for the unsigned ones; that is intended.
#pragma nv_diag_suppress 186

template <class To, class From> struct pc_cast_t {
    static __device__ __forceinline__ To f(From x) { return (To)x; }
};
template <class To, class R> struct pc_cast_t<To, pycuda::complex<R>> {
    static __device__ __forceinline__ To f(pycuda::complex<R> x) {
        return pc_cast_t<To, R>::f(x.real());
    }
};
template <class R> struct pc_cast_t<bool, pycuda::complex<R>> {
    static __device__ __forceinline__ bool f(pycuda::complex<R> x) {
        return x.real() != R(0) || x.imag() != R(0);
    }
};
template <class R, class From> struct pc_cast_t<pycuda::complex<R>, From> {
    static __device__ __forceinline__ pycuda::complex<R> f(From x) {
        return pycuda::complex<R>(pc_cast_t<R, From>::f(x));
    }
};
template <class R1, class R2> struct pc_cast_t<pycuda::complex<R1>, pycuda::complex<R2>> {
    static __device__ __forceinline__ pycuda::complex<R1> f(pycuda::complex<R2> x) {
        return pycuda::complex<R1>((R1)x.real(), (R1)x.imag());
    }
};
"""

# A storage type H that converts through float (the table's via_float: to float, from float,
# from double): casts from H go through float, casts to H from float, and from double directly
# (one rounding, as NumPy and ml_dtypes do).
_VIA_FLOAT_CASTS = r"""
template <class To> struct pc_cast_t<To, {H}> {{
    static __device__ __forceinline__ To f({H} x) {{ return pc_cast_t<To, float>::f({to}(x)); }}
}};
template <class From> struct pc_cast_t<{H}, From> {{
    static __device__ __forceinline__ {H} f(From x) {{ return {from_float}((float)x); }}
}};
template <> struct pc_cast_t<{H}, double> {{
    static __device__ __forceinline__ {H} f(double x) {{ return {from_double}(x); }}
}};
template <> struct pc_cast_t<{H}, {H}> {{
    static __device__ __forceinline__ {H} f({H} x) {{ return x; }}
}};
template <class R> struct pc_cast_t<{H}, pycuda::complex<R>> {{
    static __device__ __forceinline__ {H} f(pycuda::complex<R> x) {{
        return pc_cast_t<{H}, R>::f(x.real());
    }}
}};
template <class R> struct pc_cast_t<pycuda::complex<R>, {H}> {{
    static __device__ __forceinline__ pycuda::complex<R> f({H} x) {{
        return pycuda::complex<R>((R){to}(x));
    }}
}};
"""
# Between two such types: through float.
_VIA_FLOAT_PAIR = r"""
template <> struct pc_cast_t<{A}, {B}> {{
    static __device__ __forceinline__ {A} f({B} x) {{ return {a_from_float}({b_to}(x)); }}
}};
"""

_HELPERS_TAIL = r"""
template <class To, class From> __device__ __forceinline__ To pc_cast(From x) {
    return pc_cast_t<To, From>::f(x);
}

template <class T> __device__ __forceinline__ T pc_floordiv_int(T a, T b) {
    if (b == T(0)) return T(0);
    if (T(-1) < T(0) && b == T(-1)) return (T)(0ull - (unsigned long long)a);
    T q = (T)(a / b);
    if ((T)(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) q = (T)(q - 1);
    return q;
}
template <class T> __device__ __forceinline__ T pc_mod_int(T a, T b) {
    if (b == T(0) || (T(-1) < T(0) && b == T(-1))) return T(0);
    T r = (T)(a % b);
    if (r != T(0) && ((r < T(0)) != (b < T(0)))) r = (T)(r + b);
    return r;
}
// NumPy's npy_divmod: the quotient rounded to the floor, the remainder with the divisor's sign.
template <class T> __device__ __forceinline__ T pc_floordiv_f(T a, T b) {
    if (b == T(0)) return a / b;
    T mod = fmod(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div == T(0)) return copysign(T(0), a / b);
    T fl = floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
}
template <class T> __device__ __forceinline__ T pc_mod_f(T a, T b) {
    T mod = fmod(a, b);
    if (b == T(0)) return mod;
    if (mod != T(0)) {
        if ((b < T(0)) != (mod < T(0))) mod += b;
    } else {
        mod = copysign(T(0), b);
    }
    return mod;
}
template <class T> __device__ __forceinline__ T pc_pow_int(T a, T b) {
    if (b < T(0)) return a == T(1) ? T(1) : (a == T(-1) ? ((b & T(1)) ? T(-1) : T(1)) : T(0));
    T r = T(1);
    while (b) {
        if (b & T(1)) r = (T)(r * a);
        a = (T)(a * a);
        b = (T)(b >> 1);
    }
    return r;
}
template <class T> __device__ __forceinline__ T pc_lshift(T a, T b) {
    return (unsigned long long)b < 8 * sizeof(T) ? (T)(a << b) : T(0);
}
template <class T> __device__ __forceinline__ T pc_rshift(T a, T b) {
    if ((unsigned long long)b < 8 * sizeof(T)) return (T)(a >> b);
    return a < T(0) ? T(-1) : T(0);
}
template <class T> __device__ __forceinline__ T pc_abs_int(T a) {
    return a < T(0) ? (T)(0ull - (unsigned long long)a) : a;
}
// NumPy orders complex numbers lexicographically (real part first).
template <class R>
__device__ __forceinline__ bool pc_clt(pycuda::complex<R> a, pycuda::complex<R> b) {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
}
template <class R>
__device__ __forceinline__ bool pc_cle(pycuda::complex<R> a, pycuda::complex<R> b) {
    return a.real() < b.real() || (a.real() == b.real() && a.imag() <= b.imag());
}

template <class T, int V> struct alignas(sizeof(T) * V) pc_pack { T v[V]; };
"""


def _helpers() -> str:
    via = [row for row in _dtypes.rows() if row.via_float]
    casts = [
        _VIA_FLOAT_CASTS.format(H=r.c_name, to=r.via_float[0], from_float=r.via_float[1],
                                from_double=r.via_float[2])
        for r in via
    ]  # fmt: skip
    casts += [
        _VIA_FLOAT_PAIR.format(A=a.c_name, B=b.c_name, a_from_float=a.via_float[1],
                               b_to=b.via_float[0])
        for a, b in itertools.permutations(via, 2)
    ]  # fmt: skip
    headers = _dtypes.includes(_dtypes.SUPPORTED_DTYPES, first=("pycuda-complex.hpp",))
    return "\n" + headers + _HELPERS_HEAD + "".join(casts) + _HELPERS_TAIL


HELPERS = _helpers()


def compute_dtype(dtype: np.dtype) -> np.dtype:
    """The dtype a kernel computes in for operands of ``dtype`` (the table's ``compute``)."""
    return _dtypes.info(dtype).compute


def compute_ctype(dtype: np.dtype) -> str:
    """The C type of :func:`compute_dtype`."""
    return _dtypes.info(dtype).compute_c_name


@dataclass(frozen=True)
class Operand:
    """One input of an element-wise kernel: an array (read per element) or a scalar argument.

    Scalars arrive by value in their compute type (a float16 scalar as float).
    """

    dtype: np.dtype
    scalar: bool = False

    @property
    def arg_char(self) -> str:
        """The prepare() format code of this operand's kernel argument."""
        if not self.scalar:
            return "P"
        return _dtypes.info(self.dtype).scalar_format

    def c_param(self, k: int) -> str:
        if self.scalar:
            return f"const {compute_ctype(self.dtype)} s{k}"
        return f"const {dtype_to_ctype(self.dtype)} *p{k}"


def _reads(operands: Sequence[Operand], index: str) -> str:
    lines = []
    for k, op in enumerate(operands):
        if op.scalar:
            lines.append(f"const {compute_ctype(op.dtype)} x{k} = s{k};")
        else:
            lines.append(f"const {dtype_to_ctype(op.dtype)} x{k} = {index.format(k=k)};")
    return " ".join(lines)


def flat_source(
    name: str, out_dtype: np.dtype, operands: Sequence[Operand], expression: str, width: int
) -> str:
    """:data:`HELPERS` and :func:`flat_kernel`: a complete source."""
    return HELPERS + flat_kernel(name, out_dtype, operands, expression, width)


def flat_kernel(
    name: str, out_dtype: np.dtype, operands: Sequence[Operand], expression: str, width: int
) -> str:
    """A kernel over contiguous operands: ``z[i] = expression`` with ``width``-element accesses.

    Parameters: ``z, <operands>, long long n``. ``expression`` yields the output's C type from
    ``x0, x1, ...`` (each operand's element, or the scalar).
    """
    out_t = dtype_to_ctype(out_dtype)
    params = ", ".join([f"{out_t} *z"] + [op.c_param(k) for k, op in enumerate(operands)])
    wide = ""
    if width > 1:
        loads = " ".join(
            f"const pc_pack<{dtype_to_ctype(op.dtype)}, {width}> r{k} = "
            f"((const pc_pack<{dtype_to_ctype(op.dtype)}, {width}> *)p{k})[j];"
            for k, op in enumerate(operands)
            if not op.scalar
        )
        wide = f"""
    const long long nv = n / {width};
    for (long long j = tid; j < nv; j += total) {{
        {loads}
        pc_pack<{out_t}, {width}> rz;
#pragma unroll
        for (int e = 0; e < {width}; ++e) {{
            {_reads(operands, "r{k}.v[e]")}
            rz.v[e] = {expression};
        }}
        ((pc_pack<{out_t}, {width}> *)z)[j] = rz;
    }}
    const long long start = nv * {width} + tid;"""
    else:
        wide = "\n    const long long start = tid;"
    return f"""
extern "C" __global__ void {name}({params}, long long n)
{{
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total = (long long)gridDim.x * blockDim.x;{wide}
    for (long long i = start; i < n; i += total) {{
        {_reads(operands, "p{k}[i]")}
        z[i] = {expression};
    }}
}}
"""


def strided_kernel(
    name: str,
    out_dtype: np.dtype,
    operands: Sequence[Operand],
    expression: str,
    ndim: int,
    index: str = "long long",
) -> str:
    """A kernel over ``ndim`` merged axes with any byte strides (0 where broadcast).

    Parameters: ``z, <operands>, long long n``, the ``ndim`` axis lengths ``d0...``, then the
    output's byte strides ``zs0...`` and each array operand ``k``'s ``ps{k}_0...``. ``index``
    is the C type that splits the element number into per-axis indices: ``unsigned int`` when
    ``n < 2**31`` makes that division several times cheaper than 64-bit division.
    """
    out_t = dtype_to_ctype(out_dtype)
    arrays = [k for k, op in enumerate(operands) if not op.scalar]
    params = ["char *z"] + [
        f"const {compute_ctype(op.dtype)} s{k}" if op.scalar else f"const char *p{k}"
        for k, op in enumerate(operands)
    ]
    params.append("long long n")
    params += [f"long long d{a}" for a in range(ndim)]
    params += [f"long long zs{a}" for a in range(ndim)]
    for k in arrays:
        params += [f"long long ps{k}_{a}" for a in range(ndim)]
    offsets = ["oz"] + [f"o{k}" for k in arrays]
    strides = ["zs{a}"] + [f"ps{k}_{{a}}" for k in arrays]
    steps = index_steps(ndim, offsets, strides, index)
    reads = []
    for k, op in enumerate(operands):
        if op.scalar:
            reads.append(f"const {compute_ctype(op.dtype)} x{k} = s{k};")
        else:
            t = dtype_to_ctype(op.dtype)
            reads.append(f"const {t} x{k} = *(const {t} *)(p{k} + o{k});")
    zero = " ".join(f"long long {o} = 0;" for o in offsets)
    return f"""
extern "C" __global__ void {name}({", ".join(params)})
{{
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long total = (long long)gridDim.x * blockDim.x;
    for (long long i = tid; i < n; i += total) {{
        {index} rem = ({index})i; {zero}
        {" ".join(steps)}
        {" ".join(reads)}
        *({out_t} *)(z + oz) = {expression};
    }}
}}
"""


def rows_kernel(
    name: str,
    out_dtype: np.dtype,
    operands: Sequence[Operand],
    expression: str,
    rows: RowsLayout,
    index: str = "long long",
) -> str:
    """A kernel over rows of a merged layout (``_kernel_layout.RowsLayout``): thread ``(x, y)``
    of the grid computes elements ``x*width ... x*width + width - 1`` of row ``y`` (striding
    over both), so the per-element index arithmetic of :func:`strided_kernel` becomes, per
    row, a split of the row number over the ``ndim - 1`` outer axes; contiguous operands move
    ``width`` elements per access and broadcast ones are read once per access (``width`` > 1
    only where no operand is strided along the rows).

    Parameters: ``z, <operands>, long long rows, long long length``, the outer axis lengths
    ``d0...``, the output's outer byte strides ``zs0...`` and each array operand ``k``'s
    ``ps{k}_0...``, then the innermost byte strides ``zsi`` and each array operand's
    ``psi{k}``. ``index`` splits row numbers, as for :func:`strided_kernel`.
    """
    out_t = dtype_to_ctype(out_dtype)
    outer, width = rows.ndim - 1, rows.width
    arrays = [k for k, op in enumerate(operands) if not op.scalar]
    if len(rows.inner) != 1 + len(arrays):
        raise ValueError(f"inner classes {rows.inner!r} do not match {len(arrays)} array operands")
    if width > 1 and STRIDED in rows.inner:
        raise ValueError("strided operands take element accesses (width 1)")
    cls = dict(zip(["z", *arrays], rows.inner, strict=True))
    params = ["char *z"] + [
        f"const {compute_ctype(op.dtype)} s{k}" if op.scalar else f"const char *p{k}"
        for k, op in enumerate(operands)
    ]
    params += ["long long rows", "long long length"]
    params += [f"long long d{a}" for a in range(outer)]
    params += [f"long long zs{a}" for a in range(outer)]
    for k in arrays:
        params += [f"long long ps{k}_{a}" for a in range(outer)]
    params += ["long long zsi"] + [f"long long psi{k}" for k in arrays]
    offsets = ["oz"] + [f"o{k}" for k in arrays]
    strides = ["zs{a}"] + [f"ps{k}_{{a}}" for k in arrays]
    steps = index_steps(outer, offsets, strides, index)
    row_start = " ".join(f"long long {o} = 0;" for o in offsets)
    if outer:
        row_start = f"{index} rem = ({index})r; {row_start} {' '.join(steps)}"

    def element_reads(e: str) -> str:
        """Reads of element ``e`` of the row (any class, through the inner strides)."""
        reads = []
        for k, op in enumerate(operands):
            if op.scalar:
                reads.append(f"const {compute_ctype(op.dtype)} x{k} = s{k};")
            else:
                t = dtype_to_ctype(op.dtype)
                reads.append(f"const {t} x{k} = *(const {t} *)(p{k} + o{k} + ({e}) * psi{k});")
        return " ".join(reads)

    element = f"{element_reads('e')} *({out_t} *)(z + oz + e * zsi) = {expression};"
    if width == 1:
        body = f"const long long e = c; {element}"
    else:
        loads, reads = [], []
        for k, op in enumerate(operands):
            t = dtype_to_ctype(op.dtype)
            if op.scalar:
                reads.append(f"const {compute_ctype(op.dtype)} x{k} = s{k};")
            elif cls[k] == CONTIGUOUS:
                pack = f"pc_pack<{t}, {width}>"
                loads.append(
                    f"const {pack} r{k} = *(const {pack} *)(p{k} + o{k} + j * (long long)"
                    f"sizeof({t}));"
                )
                reads.append(f"const {t} x{k} = r{k}.v[e];")
            else:
                loads.append(f"const {t} r{k} = *(const {t} *)(p{k} + o{k});")
                reads.append(f"const {t} x{k} = r{k};")
        if cls["z"] == CONTIGUOUS:
            pack = f"pc_pack<{out_t}, {width}>"
            prep, store = f"{pack} rz;", "rz.v[e]"
            done = f"*({pack} *)(z + oz + j * (long long)sizeof({out_t})) = rz;"
        else:
            prep, store, done = "", f"*({out_t} *)(z + oz + (j + e) * zsi)", ""
        body = f"""const long long j = c * {width};
            if (j + {width} <= length) {{
                {" ".join(loads)}
                {prep}
#pragma unroll
                for (int e = 0; e < {width}; ++e) {{
                    {" ".join(reads)}
                    {store} = {expression};
                }}
                {done}
            }} else {{
                for (long long e = j; e < length; ++e) {{ {element} }}
            }}"""
    return f"""
extern "C" __global__ void {name}({", ".join(params)})
{{
    const long long vectors = (length + {width - 1}) / {width};
    for (long long r = (long long)blockIdx.y * blockDim.y + threadIdx.y; r < rows;
         r += (long long)gridDim.y * blockDim.y) {{
        {row_start}
        for (long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x; c < vectors;
             c += (long long)gridDim.x * blockDim.x) {{
            {body}
        }}
    }}
}}
"""


def kernel_source(
    kind: str,
    name: str,
    out_dtype: np.dtype,
    operands: Sequence[Operand],
    expression: str,
    p: Any,
) -> tuple[str, str]:
    """``(source without HELPERS, prepare() format)`` of a GPUArray element-wise kernel.

    ``kind``: ``"flat"`` (``p``: the access width), ``"strided"``/``"strided32"`` (``p``: the
    number of merged axes) or ``"rows"``/``"rows32"`` (``p``: a ``RowsLayout``); the ``32``
    kinds split indices in 32 bits.
    """
    chars = "".join(op.arg_char for op in operands)
    arrays = sum(1 for op in operands if not op.scalar)
    index = "unsigned int" if kind.endswith("32") else "long long"
    if kind == "flat":
        return flat_kernel(name, out_dtype, operands, expression, p), "P" + chars + "q"
    if kind in ("strided", "strided32"):
        source = strided_kernel(name, out_dtype, operands, expression, p, index)
        return source, "P" + chars + "q" + "q" * p * (2 + arrays)
    if kind in ("rows", "rows32"):
        source = rows_kernel(name, out_dtype, operands, expression, p, index)
        outer = p.ndim - 1
        return source, "P" + chars + "qq" + "q" * outer * (2 + arrays) + "q" * (1 + arrays)
    raise ValueError(f"unknown element-wise kernel kind {kind!r}")


# {{{ C expressions of NumPy's operations (the rows of pycuda._ufuncs)


@functools.lru_cache(maxsize=4096)
def binary_expression(op: str, a: np.dtype, b: np.dtype, operand: np.dtype, out: np.dtype) -> str:
    """``out(op(operand(x0), operand(x1)))``: the C expression of the binary operation ``op``
    (a row of ``pycuda._ufuncs``) on operands ``x0`` of dtype ``a`` and ``x1`` of ``b``."""
    return _ufuncs.render(op, ("x0", "x1"), operand, out)


@functools.lru_cache(maxsize=4096)
def unary_expression(op: str, dtype: np.dtype, out: np.dtype) -> str:
    """``out(op(x0))`` for an operand ``x0`` of ``dtype``: the C expression of the unary
    operation ``op`` (a row of ``pycuda._ufuncs``: ``negative``, ``cast``, ``conj``, a cumath
    function...), computed in its operand dtype (sqrt of an int32 in double), cast to ``out``."""
    operand = _ufuncs.op_dtypes(op, dtype)[0]
    return _ufuncs.render(op, ("x0",), operand, out)


# }}}


def index_steps(ndim: int, offsets: list[str], strides: list[str], index: str) -> list[str]:
    """C statements that split the flat index ``rem`` (of type ``index``) over axes
    ``ndim-1 .. 0`` (extents ``d1 ..``), adding each axis's index times its stride (``strides``,
    formatted with ``a``, the axis) to each of ``offsets``; axis 0 takes what remains."""
    steps = []
    for a in range(ndim - 1, -1, -1):
        adds = " ".join(
            f"{o} += idx * {st.format(a=a)};" for o, st in zip(offsets, strides, strict=True)
        )
        if a:
            steps.append(
                f"{{ const {index} q = rem / ({index})d{a};"
                f" const long long idx = (long long)(rem - q * ({index})d{a});"
                f" rem = q; {adds} }}"
            )
        else:
            steps.append(f"{{ const long long idx = (long long)rem; {adds} }}")
    return steps
