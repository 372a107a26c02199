"""python/pycuda/_ufuncs.py: the one table of element-wise operations (NumPy's ufuncs, and ours).

One :class:`Ufunc` row per operation: its names (NumPy's, the Python operators', the GPUArray
method's, the ``cumath`` function's), the class of NumPy dtype rule it follows (one of
``_dtype_rules.BINARY_RULES``/``UNARY_RULES``), and its C for each kind of the dtype it computes
in. Every reader asks the table and decides nothing about an operation itself:

- ``op_dtypes`` (``binary_op_dtypes``, ``unary_op_dtypes``, ``result_dtype``): NumPy's operand
  and result dtypes, for ``_operators``' plans and the unary operators;
- ``_array_kernels.binary_expression``/``unary_expression``: kernel expressions over ``x0, x1``;
- ``_array_arithmetic``: GPUArray's operators, made from the rows' dunder names;
- ``cumath`` and ``_array_functions``: their functions, by the rows' names.

The C is written with placeholders: ``A`` and ``B`` (the operands, already cast to the compute
type of the operand dtype: float16 and bfloat16 compute in float), ``T`` (that compute type) and
``R`` (its real type: a complex's component type, else ``T`` itself). The result is cast to the
result dtype's storage type. Expressions may call the device helpers of
``_array_kernels.HELPERS`` (``pc_*``) and ``pycuda-complex.hpp``; :attr:`Ufunc.needs` lists them.

Adding an operation is adding a row to ``_ROWS`` (see docs/architecture.md for the steps);
``tests/test_ufuncs.py`` then checks its dtypes against NumPy and compiles its C for every dtype.
Compositions that are not one expression of their operands stay with their module: ``round``
(its ``decimals``), ``frexp``/``modf`` (two outputs), ``clip`` (three operands).

For a kernel generator of its own (fusion), :func:`expression` is the whole door::

    from pycuda import _ufuncs
    c, dtype = _ufuncs.expression("multiply", ["a", "s"], [np.dtype("int8"), 2.5])
    # dtype: float64 (a weak Python float with int8); c: "pc_cast<double>((pc_cast<double>(a)
    # * pc_cast<double>(s)))"; each arg a C expression of its dtype's storage or compute type
    operand, result = _ufuncs.op_dtypes("multiply", np.dtype("int8"), 2.5)
    # operand: the dtype each argument is cast to first (a scalar parameter's natural type)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from pycuda import _dtypes
from pycuda._dtype_rules import (
    BINARY_RULES,
    UNARY_RULES,
    binary_dtypes,
    is_weak,
    kind_of,
    unary_dtypes,
)

_KINDS = "biufc"


class ByKind(NamedTuple):
    """An operation's C per kind of the dtype it computes in: bool, signed and unsigned
    integers, floats (float16/bfloat16 too), complex, and structs/vector types (``v``, casts
    only). None: the operation has no loop for that kind."""

    b: str | None = None
    i: str | None = None
    u: str | None = None
    f: str | None = None
    c: str | None = None
    v: str | None = None


def by_kind(every: str | None = None, **kinds: str | None) -> ByKind:
    """``every`` for each of the kinds ``biufc``, but where ``kinds`` names others: keys are
    kind letters, several at once (``iu="pc_abs_int(A)"``); a None value removes a kind."""
    c = dict.fromkeys(_KINDS, every)
    for letters, value in kinds.items():
        c.update(dict.fromkeys(letters, value))
    return ByKind(**c)


@dataclass(frozen=True)
class Ufunc:
    """One element-wise operation: a row of the table."""

    name: str
    """NumPy's ufunc name (our own where NumPy has none: ``cast``, ``real``, ``imag``)."""
    arity: int
    rule: str
    """Its dtype-rule class: a key of ``_dtype_rules.BINARY_RULES`` or ``UNARY_RULES``."""
    c: ByKind
    """Its C per kind of the operand dtype, in ``A``, ``B``, ``T``, ``R``."""
    dunders: tuple[str, ...] = ()
    """GPUArray's Python operators (the first is the operator, others aliases)."""
    rdunders: tuple[str, ...] = ()
    """The reflected operators (``__radd__``)."""
    idunders: tuple[str, ...] = ()
    """The in-place operators (``__iadd__``)."""
    symbol: str | None = None
    """How Python code writes the operator (``+``, ``abs()``), for messages."""
    method: str | None = None
    """The GPUArray method or property that computes it, where its name differs."""
    cumath: str | None = None
    """The ``pycuda.cumath`` function, where there is one."""
    gpuarray: str | None = None
    """The ``pycuda.gpuarray`` module function, where there is one."""
    refuse_bool: str | None = None
    """NumPy's own message refusing bool operands (``-`` of bools), where it has one."""
    numpy: bool = True
    """False where NumPy has no ufunc of this name (the tests compare with NumPy's otherwise)."""
    loops: str = field(init=False, repr=False, compare=False)
    """The kinds with C (the kinds the operation has loops for)."""

    def __post_init__(self) -> None:
        if (self.rule not in BINARY_RULES) if self.arity == 2 else (self.rule not in UNARY_RULES):
            raise ValueError(f"{self.name}: no {self.arity}-operand dtype rule {self.rule!r}")
        object.__setattr__(self, "loops", "".join(k for k in _KINDS if self.c_of(k)))

    def c_of(self, kind: str) -> str | None:
        """The C for operands of ``kind`` (NumPy's kind letter; any but ``biufc`` reads
        ``v``), or None."""
        return getattr(self.c, kind if kind in _KINDS else "v")

    @property
    def names(self) -> tuple[str, ...]:
        """Every name the table finds this row by."""
        return tuple(dict.fromkeys(
            n for n in (self.name, self.method, self.cumath, self.gpuarray) if n
        ))  # fmt: skip

    @property
    def needs(self) -> tuple[str, ...]:
        """What its C calls beyond CUDA's math library: ``_array_kernels.HELPERS``' helpers
        (``pc_*``) and ``pycuda-complex.hpp`` where it computes complex numbers. Every row
        also computes float16 and bfloat16 in float (the dtype table's compute dtype)."""
        text = " ".join(c for c in self.c if c)
        helpers = sorted(set(re.findall(r"\bpc_\w+", text)))
        return tuple(helpers + (["pycuda-complex.hpp"] if self.c.c else []))


# {{{ the rows

_REFUSE_SUBTRACT = (
    "numpy boolean subtract, the `-` operator, is not supported, use the bitwise_xor, the `^` "
    "operator, or the logical_xor function instead."
)
_REFUSE_NEGATIVE = (
    "The numpy boolean negative, the `-` operator, is not supported, use the `~` operator or "
    "the logical_not function instead."
)

_LN2 = "0.693147180559945309417232121458176568"
_LOG2E = "1.442695040888963407359924681001892137"

# NumPy's sign: -1, 0 or 1 (NaN stays NaN); complex z / |z| with NumPy's infinities.
_SIGN_FLOAT = (
    "[&] { const T v = A; return v > T(0) ? T(1) : (v < T(0) ? T(-1) : (v == T(0) ? T(0) : v)); }()"
)
_SIGN_COMPLEX = """[&] {
        const T z = A; const R re = z.real(), im = z.imag(), a = hypot(re, im);
        const R nan = R(0) / R(0);
        if (a != a) return T(nan, nan);
        if (pycuda::detail::is_inf(a)) {
            if (pycuda::detail::is_inf(re))
                return pycuda::detail::is_inf(im) ? T(nan, nan)
                                                  : T(re > R(0) ? R(1) : R(-1), R(0));
            return T(R(0), im > R(0) ? R(1) : R(-1));
        }
        if (a == R(0)) return T(R(0), R(0));
        return T(re / a, im / a);
    }()"""

# Complex functions pycuda::complex lacks, written from its exp and log (NumPy's npymath
# formulas, so results agree with NumPy's to rounding).
_COMPLEX_LOG1P = (
    "[&] { const T z = A; const R re = z.real() + R(1); "
    "return T(log(hypot(re, z.imag())), atan2(z.imag(), re)); }()"
)
_COMPLEX_EXPM1 = (
    "[&] { const T z = A; const R a = sin(z.imag() / R(2)); "
    "return T(expm1(z.real()) * cos(z.imag()) - R(2) * a * a, exp(z.real()) * sin(z.imag())); }()"
)


def _operator(
    name: str, rule: str, c: ByKind, stem: str, reflected: bool = True, **more: Any
) -> Ufunc:
    """A binary row that is a Python operator ``__<stem>__`` (and ``__r<stem>__``,
    ``__i<stem>__`` where ``reflected``)."""
    r = (f"__r{stem}__",) if reflected else ()
    i = (f"__i{stem}__",) if reflected else ()
    return Ufunc(name, 2, rule, c, (f"__{stem}__",), r, i, **more)


def _math(name: str, c: str, complex_c: str | None = None, **more: Any) -> Ufunc:
    """A float function of one operand (CUDA's ``c`` of it), a cumath function (of NumPy's
    name unless ``more`` names it)."""
    more.setdefault("cumath", name)
    return Ufunc(name, 1, "float", by_kind(None, f=c, c=complex_c), **more)


def _rounding(name: str) -> Ufunc:
    return Ufunc(name, 1, "rounding", by_kind("A", f=f"{name}(A)", c=None), cumath=name)


def _classifier(name: str, helper: str) -> Ufunc:
    integral = "true" if name == "isfinite" else "false"
    c = by_kind(f"((void)A, {integral})", f=f"pycuda::detail::{helper}(A)", c=f"pycuda::{name}(A)")
    return Ufunc(name, 1, "predicate", c, cumath=name)


_ROWS: tuple[Ufunc, ...] = (
    # arithmetic operators
    _operator("add", "arithmetic", by_kind("(A + B)", b="(A || B)"), "add", symbol="+"),
    _operator("subtract", "arithmetic", by_kind("(A - B)", b=None), "sub", symbol="-",
              refuse_bool=_REFUSE_SUBTRACT),
    _operator("multiply", "arithmetic", by_kind("(A * B)", b="(A && B)"), "mul", symbol="*"),
    Ufunc("true_divide", 2, "true_divide", by_kind(None, fc="(A / B)"),
          ("__truediv__", "__div__"), ("__rtruediv__", "__rdiv__"), ("__itruediv__", "__idiv__"),
          symbol="/"),
    _operator("floor_divide", "arithmetic",
              by_kind(None, iu="pc_floordiv_int(A, B)", f="pc_floordiv_f(A, B)"), "floordiv",
              symbol="//"),
    _operator("remainder", "arithmetic",
              by_kind(None, iu="pc_mod_int(A, B)", f="pc_mod_f(A, B)"), "mod", symbol="%"),
    _operator("power", "power", by_kind(None, iu="pc_pow_int(A, B)", fc="pow(A, B)"), "pow",
              symbol="**", cumath="power"),
    # comparisons (Python reflects them itself: a < b falls back to b > a)
    _operator("equal", "comparison", by_kind("(A == B)"), "eq", False, symbol="=="),
    _operator("not_equal", "comparison", by_kind("(A != B)"), "ne", False, symbol="!="),
    _operator("less", "comparison", by_kind("(A < B)", c="pc_clt(A, B)"), "lt", False, symbol="<"),
    _operator("less_equal", "comparison", by_kind("(A <= B)", c="pc_cle(A, B)"), "le", False,
              symbol="<="),
    _operator("greater", "comparison", by_kind("(A > B)", c="pc_clt(B, A)"), "gt", False,
              symbol=">"),
    _operator("greater_equal", "comparison", by_kind("(A >= B)", c="pc_cle(B, A)"), "ge", False,
              symbol=">="),
    # bit operators (shifts of any count, as NumPy's: pc_lshift/pc_rshift)
    _operator("bitwise_and", "arithmetic", by_kind(None, biu="(A & B)"), "and", symbol="&"),
    _operator("bitwise_or", "arithmetic", by_kind(None, biu="(A | B)"), "or", symbol="|"),
    _operator("bitwise_xor", "arithmetic", by_kind(None, biu="(A ^ B)"), "xor", symbol="^"),
    _operator("left_shift", "arithmetic", by_kind(None, iu="pc_lshift(A, B)"), "lshift",
              symbol="<<"),
    _operator("right_shift", "arithmetic", by_kind(None, iu="pc_rshift(A, B)"), "rshift",
              symbol=">>"),
    # NumPy's extrema: NaN propagates (A != A), ties keep the first operand, complex by
    # lexicographic order
    Ufunc("maximum", 2, "arithmetic",
          by_kind("(((A >= B) || A != A) ? A : B)", c="((pc_cle(B, A) || A != A) ? A : B)"),
          gpuarray="maximum"),
    Ufunc("minimum", 2, "arithmetic",
          by_kind("(((A <= B) || A != A) ? A : B)", c="((pc_cle(A, B) || A != A) ? A : B)"),
          gpuarray="minimum"),
    Ufunc("logical_and", 2, "logical", by_kind("(pc_cast<bool>(A) && pc_cast<bool>(B))"),
          gpuarray="logical_and"),
    Ufunc("logical_or", 2, "logical", by_kind("(pc_cast<bool>(A) || pc_cast<bool>(B))"),
          gpuarray="logical_or"),
    # cumath's functions of two operands. C's fmod, with NumPy's integer cases (no division by
    # 0, nor of the most negative value by -1)
    Ufunc("fmod", 2, "arithmetic",
          by_kind(None, i="((B == 0 || B == -1) ? (A - A) : (A % B))",
                  u="((B == 0) ? (A - A) : (A % B))", f="fmod(A, B)"), cumath="fmod"),
    Ufunc("arctan2", 2, "float", by_kind(None, f="atan2(A, B)"), cumath="arctan2"),
    Ufunc("hypot", 2, "float", by_kind(None, f="hypot(A, B)"), cumath="hypot"),
    Ufunc("ldexp", 2, "ldexp", by_kind(None, f="ldexp(A, (int)B)"), cumath="ldexp"),
    # unary operators and methods
    Ufunc("negative", 1, "same", by_kind("(-A)", b=None), ("__neg__",),
          refuse_bool=_REFUSE_NEGATIVE, symbol="-"),
    Ufunc("positive", 1, "same", by_kind("A", b=None), ("__pos__",),
          refuse_bool="ufunc 'positive' did not contain a loop with signature matching bool",
          symbol="+"),
    Ufunc("absolute", 1, "to_real", by_kind("abs(A)", b="A", iu="pc_abs_int(A)"), ("__abs__",),
          symbol="abs()"),
    Ufunc("invert", 1, "same", by_kind(None, b="(!A)", iu="(~A)"), ("__invert__",), symbol="~"),
    Ufunc("logical_not", 1, "predicate", by_kind("(!pc_cast<bool>(A))"), gpuarray="logical_not"),
    Ufunc("conjugate", 1, "same", by_kind("A", b=None, c="conj(A)"), method="conj"),
    Ufunc("real", 1, "to_real", by_kind("A", c="A.real()"), numpy=False),
    Ufunc("imag", 1, "to_real", by_kind(None, c="A.imag()"), numpy=False),
    Ufunc("cast", 1, "cast", by_kind("A", v="A"), method="astype", numpy=False),
    # cumath's functions of one operand: CUDA's math functions (pycuda::complex's overloads
    # for complex)
    Ufunc("fabs", 1, "magnitude", by_kind(None, f="fabs(A)", c="abs(A)"), cumath="fabs"),
    _rounding("ceil"),
    _rounding("floor"),
    _rounding("trunc"),
    _math("exp", "exp(A)", "exp(A)"),
    _math("log", "log(A)", "log(A)"),
    _math("log10", "log10(A)", "log10(A)"),
    _math("sqrt", "sqrt(A)", "sqrt(A)"),
    _math("sin", "sin(A)", "sin(A)"),
    _math("cos", "cos(A)", "cos(A)"),
    _math("tan", "tan(A)", "tan(A)"),
    _math("arcsin", "asin(A)", "asin(A)", cumath="asin"),
    _math("arccos", "acos(A)", "acos(A)", cumath="acos"),
    _math("arctan", "atan(A)", "atan(A)", cumath="atan"),
    _math("sinh", "sinh(A)", "sinh(A)"),
    _math("cosh", "cosh(A)", "cosh(A)"),
    _math("tanh", "tanh(A)", "tanh(A)"),
    _math("arcsinh", "asinh(A)", "asinh(A)"),
    _math("arccosh", "acosh(A)", "acosh(A)"),
    _math("arctanh", "atanh(A)", "atanh(A)"),
    _math("exp2", "exp2(A)", f"exp(A * (R){_LN2})"),
    _math("log2", "log2(A)", f"(log(A) * (R){_LOG2E})"),
    _math("log1p", "log1p(A)", _COMPLEX_LOG1P),
    _math("expm1", "expm1(A)", _COMPLEX_EXPM1),
    Ufunc("sign", 1, "same", by_kind(None, u="A > 0", i="(A > 0) - (A < 0)", f=_SIGN_FLOAT,
                                     c=_SIGN_COMPLEX), cumath="sign",
          refuse_bool="ufunc 'sign' did not contain a loop with signature matching types bool"),
    _classifier("isnan", "is_nan"),
    _classifier("isinf", "is_inf"),
    _classifier("isfinite", "is_finite"),
)  # fmt: skip


def _registry(rows: Sequence[Ufunc]) -> dict[str, Ufunc]:
    found: dict[str, Ufunc] = {}
    for row in rows:
        for name in row.names:
            if found.setdefault(name, row) is not row:
                raise ValueError(f"two operations are named {name!r}")
    return found


BY_NAME: dict[str, Ufunc] = _registry(_ROWS)
"""Every row by each of its names (NumPy's, the method's, the cumath function's)."""

BINARY_OPS = tuple(r.name for r in _ROWS if r.arity == 2)
"""The names of the operations of two operands."""
OPERATORS = tuple(r.name for r in _ROWS if r.arity == 2 and r.dunders)
"""The names of GPUArray's binary Python operators' operations."""

# }}}

# {{{ queries


def rows() -> tuple[Ufunc, ...]:
    """Every row, in the table's order."""
    return _ROWS


def get(op: str | Ufunc) -> Ufunc:
    """The row of ``op`` (any of its names); ValueError for an unknown name."""
    if isinstance(op, Ufunc):
        return op
    row = BY_NAME.get(op)
    if row is None:
        raise ValueError(f"unknown element-wise operation {op!r}; the table has {sorted(BY_NAME)}")
    return row


def _dtype_of(operand: Any) -> np.dtype:
    if isinstance(operand, np.generic):
        return operand.dtype
    return np.result_type(operand) if is_weak(operand) else np.dtype(operand)


def op_dtypes(op: str | Ufunc, *operands: Any) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of ``op`` on ``operands``: dtypes, NumPy scalars or
    weak Python scalars (NEP 50). The operands are cast to the operand dtype, the operation's
    value to the result dtype. NumPy's TypeError, OverflowError or ValueError where it has one."""
    row = get(op)
    if len(operands) != row.arity:
        raise TypeError(f"{row.name} takes {row.arity} operands, got {len(operands)}")
    if row.arity == 1:
        return unary_op_dtypes(row.name, _dtype_of(operands[0]))
    return binary_dtypes(row, *operands)


# (row name, dtype) -> (operand dtype, result dtype): a unary operation's dtypes depend on its
# operand's dtype alone, and the unary operators and cumath functions ask on every call.
_UNARY: dict[tuple[str, np.dtype], tuple[np.dtype, np.dtype]] = {}


def unary_op_dtypes(name: str, dtype: np.dtype) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of the unary operation ``name`` (a row's own name) on
    an array of ``dtype``; one dict look-up after the first call."""
    found = _UNARY.get((name, dtype))
    if found is None:
        found = _UNARY[name, dtype] = unary_dtypes(get(name), dtype)
    return found


def binary_op_dtypes(op: str | Ufunc, a: Any, b: Any) -> tuple[np.dtype, np.dtype]:
    """``(operand dtype, result dtype)`` of the binary ``op`` on ``a`` and ``b``: see
    ``_dtype_rules.binary_dtypes``."""
    return binary_dtypes(get(op), a, b)


def result_dtype(op: str | Ufunc, *operands: Any) -> np.dtype:
    """The dtype of ``op`` applied to ``operands`` (see :func:`op_dtypes`)."""
    return op_dtypes(op, *operands)[1]


def _real_compute(dtype: np.dtype) -> str:
    """The C type of a complex dtype's components (of a real dtype: its compute type)."""
    real = np.dtype(dtype.char.lower()) if kind_of(dtype) == "c" else dtype
    return _dtypes.info(real).compute_c_name


_PLACEHOLDERS = re.compile(r"\b[ABTR]\b")


def apply(op: str | Ufunc, args: Sequence[str], operand: Any) -> str:
    """The C of ``op`` for operands of dtype ``operand`` with ``args`` (C expressions of the
    operand dtype's compute type) for ``A``, ``B``; not cast to a result type."""
    row, operand = get(op), np.dtype(operand)
    c = row.c_of(kind_of(operand))
    if c is None:
        raise TypeError(f"{row.name} has no C for {operand} operands")
    names = dict(zip("AB", args, strict=False))
    names["T"], names["R"] = _dtypes.info(operand).compute_c_name, _real_compute(operand)
    return _PLACEHOLDERS.sub(lambda m: names[m.group()], c)


def render(op: str | Ufunc, args: Sequence[str], operand: Any, out: Any) -> str:
    """``out(op(operand(arg0), operand(arg1)))``: the C of ``op`` on the C expressions ``args``,
    each cast to the compute type of ``operand`` first, the value cast to ``out``'s storage
    type (``pc_cast``, NumPy's casts)."""
    t = _dtypes.info(operand).compute_c_name
    value = apply(op, [f"pc_cast<{t}>({a})" for a in args], operand)
    return f"pc_cast<{_dtypes.info(out).c_name}>({value})"


def expression(op: str | Ufunc, args: Sequence[str], dtypes: Sequence[Any]) -> tuple[str, np.dtype]:
    """``(C, result dtype)`` of ``op`` applied to the C expressions ``args``, whose dtypes (or
    weak Python scalars, NEP 50) are ``dtypes``: NumPy's dtype rules, the row's C with each
    argument cast to the operand dtype's compute type, the value of the result dtype's storage
    type. Each arg is a C expression of its dtype's storage or compute type (a weak scalar's:
    of the operand dtype, see :func:`op_dtypes`). Raises NumPy's errors (TypeError...)."""
    operand, result = op_dtypes(op, *dtypes)
    return render(op, args, operand, result), result


# }}}
