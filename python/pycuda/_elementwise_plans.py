"""What each of the original's ``elementwise.get_*_kernel`` factories compiles, as data.

A :class:`KernelPlan` holds a kernel's arguments (before the element count ``n`` that
``get_elwise_kernel`` appends), its operation over the index ``i``, its name, its preamble and
the texture references it declares. The builders below are named for the factories
(``axpbyz`` for ``get_axpbyz_kernel``), take the factories' parameters and need no GPU, so
every kernel's source can be built and compiled on a machine without one;
:mod:`pycuda._elementwise_factories` compiles and prepares them, once per context.

    plan = axpbyz(numpy.float32, numpy.float32, numpy.float32)
    plan.source()  # CUDA C of a kernel taking (float a, float *x, float b, float *y, ...)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda._grid_stride import elwise_source
from pycuda.tools import Argument, ScalarArg, VectorArg, dtype_to_ctype


@dataclass(frozen=True)
class KernelPlan:
    """A grid-stride kernel: ``operation`` for each ``i`` below ``n``."""

    arguments: tuple[Argument, ...]
    operation: str
    name: str
    preamble: str = ""
    loop_prep: str = ""
    texrefs: tuple[str, ...] = ()  # texture references declared in the preamble, in order

    def source(self) -> str:
        """The kernel's CUDA C, as ``get_elwise_kernel_and_types`` compiles it (with ``n``)."""
        return elwise_source(
            self.arguments, self.operation, self.name, self.preamble, self.loop_prep, "", False
        )


def _get_real_dtype(dtype: Any) -> np.dtype:
    """The dtype of the real and imaginary parts of a complex dtype (float32 for complex64).

    A real dtype is its own real dtype (the original accepted complex dtypes only).
    """
    dtype = np.dtype(dtype)
    return np.empty(0, dtype).real.dtype


def _kernel_name(func: str) -> str:
    """``func + "_kernel"`` as a C identifier (``pycuda::conj`` gives ``pycuda__conj_kernel``)."""
    return re.sub(r"\W", "_", func) + "_kernel"


def _operand_ctype(dtype: np.dtype, dtype_compute: np.dtype) -> str:
    """The C type an operand of ``dtype`` is cast to in arithmetic done in ``dtype_compute``:
    that type, or its real part's for a real operand of complex arithmetic (complex<float>
    times float is defined; complex<float> times complex<double>'s parts is not)."""
    if dtype_compute.kind == "c" and dtype.kind != "c":
        return dtype_to_ctype(_get_real_dtype(dtype_compute))
    return dtype_to_ctype(dtype_compute)


def _compute_dtype(dtype_x: np.dtype, dtype_y: np.dtype, dtype_z: np.dtype) -> np.dtype:
    """The dtype ``x op y`` is computed in before it is stored as ``dtype_z``: ``dtype_z`` (so
    int / int stored as float divides as floats, as the original), except for a bool result
    (a comparison), which compares the operands in their common type rather than as bools."""
    if dtype_z.kind == "b":
        return np.result_type(dtype_x, dtype_y)
    return dtype_z


def _zero(dtype: np.dtype) -> str:
    """A literal 0 of ``dtype``'s C type (complex and __half have no comparison with int)."""
    return f"(({dtype_to_ctype(dtype)}) 0)"


def _dtypes(*dtypes: Any) -> list[np.dtype]:
    return [np.dtype(d) for d in dtypes]


def _check_vec_count(vec_count: int) -> int:
    if int(vec_count) < 1:
        raise ValueError(f"vec_count must be at least 1, got {vec_count!r}")
    return int(vec_count)


def _texture(dtype: np.dtype, name: str) -> str:
    """A 1-D texture reference of ``dtype``'s elements: double and complex are declared with
    the fp_tex word types, which the client binds with ``bind_to_texref_ext(...,
    allow_double_hack=True, allow_complex_hack=True)`` and fp_tex1Dfetch puts together."""
    tex_t = dtype_to_ctype(dtype, with_fp_tex_hack=True)
    return f"texture<{tex_t}, 1, cudaReadModeElementType> {name};"


_HELPERS = "#include <pycuda-helpers.hpp>\n"


# {{{ gather and scatter


def take(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> KernelPlan:
    """``dest_k[i] = tex_src_k[idx[i]]``; arguments ``idx, dest0, ...``."""
    dtype, idx_dtype = _dtypes(dtype, idx_dtype)
    count = _check_vec_count(vec_count)
    idx_t = dtype_to_ctype(idx_dtype)
    args = [VectorArg(idx_dtype, "idx")] + [VectorArg(dtype, f"dest{k}") for k in range(count)]
    body = [f"{idx_t} src_idx = idx[i]"]
    body += [f"dest{k}[i] = fp_tex1Dfetch(tex_src{k}, src_idx)" for k in range(count)]
    preamble = _HELPERS + "\n".join(_texture(dtype, f"tex_src{k}") for k in range(count))
    texrefs = tuple(f"tex_src{k}" for k in range(count))
    return KernelPlan(tuple(args), ";\n".join(body), "take", preamble, "", texrefs)


def take_put(dtype: Any, idx_dtype: Any, with_offsets: bool, vec_count: int = 1) -> KernelPlan:
    """``dest_k[gmem_dest_idx[i]] = tex_src_k[gmem_src_idx[i] (+ offset_k)]``; arguments
    ``gmem_dest_idx, gmem_src_idx, dest0, ..., [offset0, ...]``."""
    dtype, idx_dtype = _dtypes(dtype, idx_dtype)
    count = _check_vec_count(vec_count)
    idx_t = dtype_to_ctype(idx_dtype)
    args: list[Argument] = [VectorArg(idx_dtype, "gmem_dest_idx"),
                            VectorArg(idx_dtype, "gmem_src_idx")]  # fmt: skip
    args += [VectorArg(dtype, f"dest{k}") for k in range(count)]
    if with_offsets:
        args += [ScalarArg(idx_dtype, f"offset{k}") for k in range(count)]
    body = [f"{idx_t} src_idx = gmem_src_idx[i]", f"{idx_t} dest_idx = gmem_dest_idx[i]"]
    for k in range(count):
        offset = f" + offset{k}" if with_offsets else ""
        body.append(f"dest{k}[dest_idx] = fp_tex1Dfetch(tex_src{k}, src_idx{offset})")
    preamble = _HELPERS + "\n".join(_texture(dtype, f"tex_src{k}") for k in range(count))
    texrefs = tuple(f"tex_src{k}" for k in range(count))
    return KernelPlan(tuple(args), ";\n".join(body), "take_put", preamble, "", texrefs)


def put(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> KernelPlan:
    """``dest_k[gmem_dest_idx[i]] = src_k[i]``; arguments ``gmem_dest_idx, dest0, ...,
    src0, ...``."""
    dtype, idx_dtype = _dtypes(dtype, idx_dtype)
    count = _check_vec_count(vec_count)
    args = [VectorArg(idx_dtype, "gmem_dest_idx")]
    args += [VectorArg(dtype, f"dest{k}") for k in range(count)]
    args += [VectorArg(dtype, f"src{k}") for k in range(count)]
    body = [f"{dtype_to_ctype(idx_dtype)} dest_idx = gmem_dest_idx[i]"]
    body += [f"dest{k}[dest_idx] = src{k}[i]" for k in range(count)]
    return KernelPlan(tuple(args), ";\n".join(body), "put")


def copy(dtype_dest: Any, dtype_src: Any) -> KernelPlan:
    """``dest[i] = src[i]``, converted to ``dtype_dest``."""
    dtype_dest, dtype_src = _dtypes(dtype_dest, dtype_src)
    args = (VectorArg(dtype_dest, "dest"), VectorArg(dtype_src, "src"))
    return KernelPlan(args, f"dest[i] = ({dtype_to_ctype(dtype_dest)}) src[i]", "copy")


# }}}


# {{{ linear combinations and arithmetic


def linear_combination(summand_descriptors: Any, dtype_z: Any) -> KernelPlan:
    """``z[i] = a0*x0[i] + a1*x1[i] + ...``, one summand per ``(is_gpu_scalar, scalar_dtype,
    vector_dtype)``: a scalar argument ``a_k`` before ``x_k``, or for a GPU scalar a texture
    ``tex_a_k`` whose element 0 is read once per thread."""
    args: list[Argument] = []
    declarations, loop_prep, summands, texrefs = [], [], [], []
    for k, descriptor in enumerate(summand_descriptors):
        is_gpu_scalar, scalar_dtype, vector_dtype = descriptor
        scalar_dtype, vector_dtype = _dtypes(scalar_dtype, vector_dtype)
        if is_gpu_scalar:
            declarations.append(_texture(scalar_dtype, f"tex_a{k}"))
            loop_prep.append(f"{dtype_to_ctype(scalar_dtype)} a{k} = fp_tex1Dfetch(tex_a{k}, 0)")
            texrefs.append(f"tex_a{k}")
        else:
            args.append(ScalarArg(scalar_dtype, f"a{k}"))
        args.append(VectorArg(vector_dtype, f"x{k}"))
        summands.append(f"a{k}*x{k}[i]")
    if not summands:
        raise ValueError("summand_descriptors must describe at least one summand")
    args.append(VectorArg(np.dtype(dtype_z), "z"))
    return KernelPlan(
        tuple(args),
        "z[i] = " + " + ".join(summands),
        "linear_combination",
        _HELPERS + "\n".join(declarations) if declarations else "",
        ";\n".join(loop_prep),
        tuple(texrefs),
    )


def axpbyz(dtype_x: Any, dtype_y: Any, dtype_z: Any, x_is_scalar: bool = False,
           y_is_scalar: bool = False) -> KernelPlan:  # fmt: skip
    """``z[i] = a*x[i] + b*y[i]`` computed in ``dtype_z``; ``x[0]``/``y[0]`` for an operand
    that is a 0-d GPUArray; arguments ``a, x, b, y, z``."""
    dtype_x, dtype_y, dtype_z = _dtypes(dtype_x, dtype_y, dtype_z)
    x_t, y_t = _operand_ctype(dtype_x, dtype_z), _operand_ctype(dtype_y, dtype_z)
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    args = (ScalarArg(dtype_x, "a"), VectorArg(dtype_x, "x"), ScalarArg(dtype_y, "b"),
            VectorArg(dtype_y, "y"), VectorArg(dtype_z, "z"))  # fmt: skip
    operation = f"z[i] = (({x_t}) a)*(({x_t}) {x}) + (({y_t}) b)*(({y_t}) {y})"
    return KernelPlan(args, operation, "axpbyz")


def axpbz(dtype_x: Any, dtype_z: Any) -> KernelPlan:
    """``z[i] = a*x[i] + b``; arguments ``a, x, b, z`` (``a`` and ``b`` of ``dtype_z``)."""
    dtype_x, dtype_z = _dtypes(dtype_x, dtype_z)
    args = (ScalarArg(dtype_z, "a"), VectorArg(dtype_x, "x"), ScalarArg(dtype_z, "b"),
            VectorArg(dtype_z, "z"))  # fmt: skip
    operation = f"z[i] = a * (({_operand_ctype(dtype_x, dtype_z)}) x[i]) + b"
    return KernelPlan(args, operation, "axpb")


def _binary_expression(x: str, dtype_x: np.dtype, operator: str, y: str, dtype_y: np.dtype,
                       dtype_z: np.dtype) -> str:  # fmt: skip
    compute = _compute_dtype(dtype_x, dtype_y, dtype_z)
    x_t, y_t = _operand_ctype(dtype_x, compute), _operand_ctype(dtype_y, compute)
    return f"({dtype_to_ctype(dtype_z)}) ((({x_t}) {x}) {operator} (({y_t}) {y}))"


def binary_op(dtype_x: Any, dtype_y: Any, dtype_z: Any, operator: str,
              x_is_scalar: bool = False, y_is_scalar: bool = False) -> KernelPlan:  # fmt: skip
    """``z[i] = x[i] operator y[i]``, operands cast to ``dtype_z`` (its real type for real
    operands of complex ``dtype_z``; their common type for a bool ``dtype_z``); ``x[0]``/``y[0]``
    for 0-d GPUArrays."""
    dtype_x, dtype_y, dtype_z = _dtypes(dtype_x, dtype_y, dtype_z)
    x = "x[0]" if x_is_scalar else "x[i]"
    y = "y[0]" if y_is_scalar else "y[i]"
    args = (VectorArg(dtype_x, "x"), VectorArg(dtype_y, "y"), VectorArg(dtype_z, "z"))
    expression = _binary_expression(x, dtype_x, operator, y, dtype_y, dtype_z)
    return KernelPlan(args, f"z[i] = {expression}", "binary_op")


def scalar_op(dtype_x: Any, dtype_a: Any, dtype_y: Any, operator: str) -> KernelPlan:
    """``y[i] = x[i] operator a``; arguments ``x, a, y``."""
    dtype_x, dtype_a, dtype_y = _dtypes(dtype_x, dtype_a, dtype_y)
    args = (VectorArg(dtype_x, "x"), ScalarArg(dtype_a, "a"), VectorArg(dtype_y, "y"))
    expression = _binary_expression("x[i]", dtype_x, operator, "a", dtype_a, dtype_y)
    return KernelPlan(args, f"y[i] = {expression}", "scalarop_kernel")


def rdivide_elwise(dtype_x: Any, dtype_z: Any) -> KernelPlan:
    """``z[i] = y / x[i]``; arguments ``x, y, z`` (``y`` a scalar of ``dtype_z``)."""
    dtype_x, dtype_z = _dtypes(dtype_x, dtype_z)
    args = (VectorArg(dtype_x, "x"), ScalarArg(dtype_z, "y"), VectorArg(dtype_z, "z"))
    operation = f"z[i] = y / (({_operand_ctype(dtype_x, dtype_z)}) x[i])"
    return KernelPlan(args, operation, "divide_r")


def binary_func(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> KernelPlan:
    """``z[i] = func(x[i], y[i])``; arguments ``x, y, z``."""
    dtype_x, dtype_y, dtype_z = _dtypes(dtype_x, dtype_y, dtype_z)
    args = (VectorArg(dtype_x, "x"), VectorArg(dtype_y, "y"), VectorArg(dtype_z, "z"))
    return KernelPlan(args, f"z[i] = {func}(x[i], y[i])", _kernel_name(func))


def binary_func_scalar(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> KernelPlan:
    """``z[i] = func(x[i], y)``; arguments ``x, y, z`` (``y`` a scalar)."""
    dtype_x, dtype_y, dtype_z = _dtypes(dtype_x, dtype_y, dtype_z)
    args = (VectorArg(dtype_x, "x"), ScalarArg(dtype_y, "y"), VectorArg(dtype_z, "z"))
    return KernelPlan(args, f"z[i] = {func}(x[i], y)", _kernel_name(func))


def _minmax_function(func: str, dtypes: list[np.dtype]) -> tuple[str, np.dtype]:
    """The C function for ``func`` ("max" or "min") of x, y stored as z, and the dtype both
    operands are cast to for it: fmaxf/fminf in float where a float is involved and neither x
    nor y is float64 (as the original), fmax/fmin in double where one is, else the integer
    max/min in the operands' common type (where the original named a missing maxf)."""
    if func not in ("max", "min"):
        raise ValueError(f"func must be 'max' or 'min', got {func!r}")
    if any(dt.kind == "c" for dt in dtypes):
        raise TypeError(f"{func} of complex numbers is not defined (dtypes {dtypes})")
    if any(dt.kind == "f" for dt in dtypes):
        if np.dtype(np.float64) in dtypes[:2]:
            return "f" + func, np.dtype(np.float64)
        return "f" + func + "f", np.dtype(np.float32)
    return func, np.result_type(*dtypes[:2])


def binary_minmax(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any,
                  use_scalar: bool) -> KernelPlan:  # fmt: skip
    """``z[i] = max(x[i], y[i])`` (``func`` "max" or "min"; ``y`` a scalar with
    ``use_scalar``), operands converted to one type so that one overload is chosen."""
    dtypes = _dtypes(dtype_x, dtype_y, dtype_z)
    c_func, compute = _minmax_function(func, dtypes)
    c_t = dtype_to_ctype(compute)
    y = "y" if use_scalar else "y[i]"
    args = (VectorArg(dtypes[0], "x"),
            ScalarArg(dtypes[1], "y") if use_scalar else VectorArg(dtypes[1], "y"),
            VectorArg(dtypes[2], "z"))  # fmt: skip
    operation = f"z[i] = {c_func}(({c_t}) x[i], ({c_t}) {y})"
    return KernelPlan(args, operation, _kernel_name(c_func))


def pow_array(dtype_x: Any, dtype_y: Any, dtype_z: Any, is_base_array: bool,
              is_exp_array: bool) -> KernelPlan:  # fmt: skip
    """``z[i] = pow(x, y)``, each of ``x`` and ``y`` an array or a scalar (not both scalars);
    powf where ``dtype_z`` is float32 (and float16), complex pow for complex ``dtype_z``,
    double pow otherwise."""
    if not (is_base_array or is_exp_array):
        raise ValueError("get_pow_array_kernel needs an array base, exponent or both")
    dtype_x, dtype_y, dtype_z = _dtypes(dtype_x, dtype_y, dtype_z)
    if dtype_z.kind == "c":
        func, compute = "pow", dtype_z
    elif dtype_z.itemsize <= 4 and dtype_z.kind == "f":
        func, compute = "powf", np.dtype(np.float32)
    else:
        # Integer powers too: the C++ overloads of pow for two ints are ambiguous.
        func, compute = "pow", np.dtype(np.float64)
    x_t, y_t = _operand_ctype(dtype_x, compute), _operand_ctype(dtype_y, compute)
    x = "x[i]" if is_base_array else "x"
    y = "y[i]" if is_exp_array else "y"
    args = (
        VectorArg(dtype_x, "x") if is_base_array else ScalarArg(dtype_x, "x"),
        VectorArg(dtype_y, "y") if is_exp_array else ScalarArg(dtype_y, "y"),
        VectorArg(dtype_z, "z"),
    )
    operation = f"z[i] = ({dtype_to_ctype(dtype_z)}) {func}(({x_t}) {x}, ({y_t}) {y})"
    return KernelPlan(args, operation, "pow_method")


# }}}


# {{{ floating-point decomposition (float32 in the original; float64 too here)


def _real_float(dtype: Any) -> np.dtype:
    dtype = np.dtype(dtype)
    if dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"dtype must be float32 or float64, got {dtype}")
    return dtype


def fmod(dtype: Any = np.float32) -> KernelPlan:
    """``z[i] = fmod(arg[i], mod[i])``; arguments ``arg, mod, z``."""
    dtype = _real_float(dtype)
    args = (VectorArg(dtype, "arg"), VectorArg(dtype, "mod"), VectorArg(dtype, "z"))
    return KernelPlan(args, "z[i] = fmod(arg[i], mod[i])", "fmod_kernel")


def modf(dtype: Any = np.float32) -> KernelPlan:
    """``fracpart[i] = modf(x[i], &intpart[i])``; arguments ``x, intpart, fracpart``."""
    dtype = _real_float(dtype)
    args = (VectorArg(dtype, "x"), VectorArg(dtype, "intpart"), VectorArg(dtype, "fracpart"))
    return KernelPlan(args, "fracpart[i] = modf(x[i], &intpart[i])", "modf_kernel")


def frexp(dtype: Any = np.float32) -> KernelPlan:
    """``significand[i] = frexp(x[i], &e); exponent[i] = e``; arguments ``x, significand,
    exponent`` (the exponent stored as a float)."""
    dtype = _real_float(dtype)
    args = (VectorArg(dtype, "x"), VectorArg(dtype, "significand"),
            VectorArg(dtype, "exponent"))  # fmt: skip
    operation = "int expt = 0; significand[i] = frexp(x[i], &expt); exponent[i] = expt"
    return KernelPlan(args, operation, "frexp_kernel")


def ldexp(dtype: Any = np.float32) -> KernelPlan:
    """``z[i] = ldexp(sig[i], int(expt[i]))``; arguments ``sig, expt, z``."""
    dtype = _real_float(dtype)
    args = (VectorArg(dtype, "sig"), VectorArg(dtype, "expt"), VectorArg(dtype, "z"))
    return KernelPlan(args, "z[i] = ldexp(sig[i], int(expt[i]))", "ldexp_kernel")


# }}}


# {{{ one array in, one out


def unary_func(func_name: str, in_dtype: Any, out_dtype: Any = None) -> KernelPlan:
    """``z[i] = func_name(y[i])``; arguments ``y, z`` (``z`` of ``in_dtype`` by default)."""
    in_dtype = np.dtype(in_dtype)
    out_dtype = in_dtype if out_dtype is None else np.dtype(out_dtype)
    args = (VectorArg(in_dtype, "y"), VectorArg(out_dtype, "z"))
    return KernelPlan(args, f"z[i] = {func_name}(y[i])", _kernel_name(func_name))


def fill(dtype: Any) -> KernelPlan:
    """``z[i] = a``; arguments ``a, z``."""
    dtype = np.dtype(dtype)
    return KernelPlan((ScalarArg(dtype, "a"), VectorArg(dtype, "z")), "z[i] = a", "fill")


def reverse(dtype: Any) -> KernelPlan:
    """``z[i] = y[n-1-i]``; arguments ``y, z``."""
    dtype = np.dtype(dtype)
    args = (VectorArg(dtype, "y"), VectorArg(dtype, "z"))
    return KernelPlan(args, "z[i] = y[n-1-i]", "reverse")


def real(dtype: Any, real_dtype: Any) -> KernelPlan:
    """``z[i] = real(y[i])``; arguments ``y, z``."""
    dtype, real_dtype = _dtypes(dtype, real_dtype)
    part = "pycuda::real(y[i])" if dtype.kind == "c" else "y[i]"
    args = (VectorArg(dtype, "y"), VectorArg(real_dtype, "z"))
    return KernelPlan(args, f"z[i] = ({dtype_to_ctype(real_dtype)}) {part}", "real")


def imag(dtype: Any, real_dtype: Any) -> KernelPlan:
    """``z[i] = imag(y[i])`` (0 for a real ``dtype``); arguments ``y, z``."""
    dtype, real_dtype = _dtypes(dtype, real_dtype)
    part = "pycuda::imag(y[i])" if dtype.kind == "c" else "0"
    args = (VectorArg(dtype, "y"), VectorArg(real_dtype, "z"))
    return KernelPlan(args, f"z[i] = ({dtype_to_ctype(real_dtype)}) {part}", "imag")


def conj(dtype: Any, conj_dtype: Any = None) -> KernelPlan:
    """``z[i] = conj(y[i])`` (``y[i]`` for a real ``dtype``); arguments ``y, z`` (``z`` of
    ``dtype`` by default, as in the original before it took ``conj_dtype``)."""
    dtype = np.dtype(dtype)
    conj_dtype = dtype if conj_dtype is None else np.dtype(conj_dtype)
    value = "pycuda::conj(y[i])" if dtype.kind == "c" else "y[i]"
    args = (VectorArg(dtype, "y"), VectorArg(conj_dtype, "z"))
    return KernelPlan(args, f"z[i] = ({dtype_to_ctype(conj_dtype)}) {value}", "conj")


def arange(dtype: Any) -> KernelPlan:
    """``z[i] = start + i*step``; arguments ``z, start, step``."""
    dtype = np.dtype(dtype)
    args = (VectorArg(dtype, "z"), ScalarArg(dtype, "start"), ScalarArg(dtype, "step"))
    operation = f"z[i] = start + (({_operand_ctype(np.dtype(np.int64), dtype)}) i)*step"
    return KernelPlan(args, operation, "arange")


def logical_not(dtype_x: Any, dtype_out: Any) -> KernelPlan:
    """``out[i] = (x[i] == 0)``; arguments ``x, out``."""
    dtype_x, dtype_out = _dtypes(dtype_x, dtype_out)
    args = (VectorArg(dtype_x, "x"), VectorArg(dtype_out, "out"))
    return KernelPlan(args, f"out[i] = (x[i] == {_zero(dtype_x)})", "logical_not")


# }}}


# {{{ selection


def _select(crit_dtype: Any, dtype: Any, test: str) -> KernelPlan:
    crit_dtype, dtype = _dtypes(crit_dtype, dtype)
    args = (VectorArg(crit_dtype, "crit"), VectorArg(dtype, "then_"), VectorArg(dtype, "else_"),
            VectorArg(dtype, "result"))  # fmt: skip
    operation = f"result[i] = crit[i] {test} {_zero(crit_dtype)} ? then_[i] : else_[i]"
    return KernelPlan(args, operation, "if_positive")


def if_positive(crit_dtype: Any, dtype: Any) -> KernelPlan:
    """``result[i] = crit[i] > 0 ? then_[i] : else_[i]``; arguments ``crit, then_, else_,
    result``."""
    return _select(crit_dtype, dtype, ">")


def where(crit_dtype: Any, dtype: Any) -> KernelPlan:
    """``result[i] = crit[i] != 0 ? then_[i] : else_[i]``; arguments ``crit, then_, else_,
    result``."""
    return _select(crit_dtype, dtype, "!=")


# }}}
