"""The original's element-wise kernel factories, ``pycuda.elementwise.get_*_kernel``.

Each returns a prepared :class:`pycuda.driver.Function` (the take family and
``get_linear_combination_kernel``: ``(function, [texture references])``), compiled once per
context and arguments. The function takes the listed arguments and then the element count
``n``, and runs a grid-stride loop, so any launch configuration covers every element::

    import numpy
    import pycuda.autoinit
    from pycuda import gpuarray
    from pycuda.elementwise import get_axpbyz_kernel

    x = gpuarray.to_gpu(numpy.arange(5, dtype=numpy.float32))
    y = gpuarray.to_gpu(numpy.ones(5, dtype=numpy.float32))
    z = gpuarray.empty_like(x)
    func = get_axpbyz_kernel(x.dtype, y.dtype, z.dtype)
    grid, block = gpuarray.splay(x.size)
    func.prepared_async_call(grid, block, None, 2, x.gpudata, 3, y.gpudata, z.gpudata, x.size)

The kernels themselves are described in :mod:`pycuda._elementwise_plans`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _elementwise_plans as plans
from pycuda._elementwise_plans import KernelPlan
from pycuda._grid_stride import get_elwise_kernel, get_elwise_kernel_and_types
from pycuda.tools import context_dependent_memoize

__all__ = [
    "get_arange_kernel",
    "get_axpbyz_kernel",
    "get_axpbz_kernel",
    "get_binary_func_kernel",
    "get_binary_func_scalar_kernel",
    "get_binary_minmax_kernel",
    "get_binary_op_kernel",
    "get_conj_kernel",
    "get_copy_kernel",
    "get_fill_kernel",
    "get_fmod_kernel",
    "get_frexp_kernel",
    "get_if_positive_kernel",
    "get_imag_kernel",
    "get_ldexp_kernel",
    "get_linear_combination_kernel",
    "get_logical_not_kernel",
    "get_modf_kernel",
    "get_pow_array_kernel",
    "get_put_kernel",
    "get_rdivide_elwise_kernel",
    "get_real_kernel",
    "get_reverse_kernel",
    "get_scalar_op_kernel",
    "get_take_kernel",
    "get_take_put_kernel",
    "get_unary_func_kernel",
    "get_where_kernel",
]


def _prepared(plan: KernelPlan) -> Any:
    """The plan's kernel, compiled in the current context and prepared (arguments, then n)."""
    return get_elwise_kernel(
        list(plan.arguments), plan.operation, plan.name,
        preamble=plan.preamble, loop_prep=plan.loop_prep,
    )  # fmt: skip


def _prepared_with_texrefs(plan: KernelPlan) -> tuple[Any, list[Any]]:
    """``(prepared function, [its texture references])``: the client binds each reference
    (``bind_to_texref_ext``) before launching."""
    mod, func, args = get_elwise_kernel_and_types(
        list(plan.arguments), plan.operation, plan.name,
        preamble=plan.preamble, loop_prep=plan.loop_prep,
    )  # fmt: skip
    texrefs = [mod.get_texref(name) for name in plan.texrefs]
    if texrefs:
        # Prepared with references not bound yet, as the original: Function.prepare records
        # them and the launch checks that they are bound.
        func.prepare("".join(a.struct_char for a in args), texrefs=texrefs)
    return func, texrefs


# {{{ gather and scatter


@context_dependent_memoize
def get_take_kernel(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> tuple[Any, list[Any]]:
    """``(func, [tex_src0, ...])`` for ``dest_k[i] = src_k[idx[i]]``, each ``src_k`` read
    through the texture reference ``tex_src_k``. Launch with ``idx, dest0, ..., n`` after
    binding the sources (``src.bind_to_texref_ext(tex, allow_double_hack=True,
    allow_complex_hack=True)``)."""
    return _prepared_with_texrefs(plans.take(dtype, idx_dtype, vec_count))


@context_dependent_memoize
def get_take_put_kernel(
    dtype: Any, idx_dtype: Any, with_offsets: bool, vec_count: int = 1
) -> tuple[Any, list[Any]]:
    """``(func, [tex_src0, ...])`` for ``dest_k[gmem_dest_idx[i]] = src_k[gmem_src_idx[i]
    (+ offset_k)]``, sources read through ``tex_src_k``. Launch with ``gmem_dest_idx,
    gmem_src_idx, dest0, ..., [offset0, ...,] n``."""
    return _prepared_with_texrefs(plans.take_put(dtype, idx_dtype, with_offsets, vec_count))


@context_dependent_memoize
def get_put_kernel(dtype: Any, idx_dtype: Any, vec_count: int = 1) -> Any:
    """``dest_k[gmem_dest_idx[i]] = src_k[i]``; launch with ``gmem_dest_idx, dest0, ...,
    src0, ..., n``."""
    return _prepared(plans.put(dtype, idx_dtype, vec_count))


@context_dependent_memoize
def get_copy_kernel(dtype_dest: Any, dtype_src: Any) -> Any:
    """``dest[i] = src[i]`` (converted); launch with ``dest, src, n``."""
    return _prepared(plans.copy(dtype_dest, dtype_src))


# }}}


# {{{ linear combinations and arithmetic


@context_dependent_memoize
def _linear_combination_kernel(summand_descriptors: tuple, dtype_z: Any) -> Any:
    return _prepared_with_texrefs(plans.linear_combination(summand_descriptors, dtype_z))


def get_linear_combination_kernel(summand_descriptors: Any, dtype_z: Any) -> tuple[Any, list]:
    """``(func, [tex_a...])`` for ``z[i] = a0*x0[i] + a1*x1[i] + ...``.

    ``summand_descriptors`` holds one ``(is_gpu_scalar, scalar_dtype, vector_dtype)`` per
    summand. Launch with ``a0, x0, a1, x1, ..., z, n``, where a summand whose coefficient is a
    GPU scalar passes only ``x_k`` and has its one-element array bound to its texture
    reference (in summand order) instead."""
    descriptors = tuple(tuple(d) for d in summand_descriptors)  # a list is accepted too
    return _linear_combination_kernel(descriptors, dtype_z)


@context_dependent_memoize
def get_axpbyz_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, x_is_scalar: bool = False,
                      y_is_scalar: bool = False) -> Any:  # fmt: skip
    """``z = a*x + b*y`` computed in ``dtype_z``; launch with ``a, x, b, y, z, n``.
    ``x_is_scalar``/``y_is_scalar``: that operand is a 0-d GPUArray, its element 0 is used."""
    return _prepared(plans.axpbyz(dtype_x, dtype_y, dtype_z, x_is_scalar, y_is_scalar))


@context_dependent_memoize
def get_axpbz_kernel(dtype_x: Any, dtype_z: Any) -> Any:
    """``z = a*x + b``; launch with ``a, x, b, z, n`` (``a``, ``b`` of ``dtype_z``)."""
    return _prepared(plans.axpbz(dtype_x, dtype_z))


@context_dependent_memoize
def get_binary_op_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, operator: str,
                         x_is_scalar: bool = False, y_is_scalar: bool = False) -> Any:  # fmt: skip
    """``z = x operator y`` (a C operator such as ``"+"``), computed in ``dtype_z``; launch
    with ``x, y, z, n``. ``x_is_scalar``/``y_is_scalar`` as in :func:`get_axpbyz_kernel`."""
    plan = plans.binary_op(dtype_x, dtype_y, dtype_z, operator, x_is_scalar, y_is_scalar)
    return _prepared(plan)


@context_dependent_memoize
def get_scalar_op_kernel(dtype_x: Any, dtype_a: Any, dtype_y: Any, operator: str) -> Any:
    """``y = x operator a`` for a scalar ``a``; launch with ``x, a, y, n``."""
    return _prepared(plans.scalar_op(dtype_x, dtype_a, dtype_y, operator))


@context_dependent_memoize
def get_rdivide_elwise_kernel(dtype_x: Any, dtype_z: Any) -> Any:
    """``z = y / x`` for a scalar ``y``; launch with ``x, y, z, n``."""
    return _prepared(plans.rdivide_elwise(dtype_x, dtype_z))


@context_dependent_memoize
def get_binary_func_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> Any:
    """``z = func(x, y)`` for a C function name; launch with ``x, y, z, n``."""
    return _prepared(plans.binary_func(func, dtype_x, dtype_y, dtype_z))


@context_dependent_memoize
def get_binary_func_scalar_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any) -> Any:
    """``z = func(x, y)`` for a scalar ``y``; launch with ``x, y, z, n``."""
    return _prepared(plans.binary_func_scalar(func, dtype_x, dtype_y, dtype_z))


@context_dependent_memoize
def get_binary_minmax_kernel(func: str, dtype_x: Any, dtype_y: Any, dtype_z: Any,
                             use_scalar: bool) -> Any:  # fmt: skip
    """``z = max(x, y)`` (``func`` "max" or "min"; fmaxf/fmax for floats); launch with ``x,
    y, z, n``, ``y`` a scalar with ``use_scalar`` (as :func:`get_binary_func_scalar_kernel`)."""
    return _prepared(plans.binary_minmax(func, dtype_x, dtype_y, dtype_z, use_scalar))


@context_dependent_memoize
def get_pow_array_kernel(dtype_x: Any, dtype_y: Any, dtype_z: Any, is_base_array: bool,
                         is_exp_array: bool) -> Any:  # fmt: skip
    """``z = x ** y``, ``x`` and ``y`` arrays or (where ``is_base_array``/``is_exp_array`` is
    false) scalars; launch with ``x, y, z, n``."""
    plan = plans.pow_array(dtype_x, dtype_y, dtype_z, is_base_array, is_exp_array)
    return _prepared(plan)


# }}}


# {{{ floating-point decomposition: float32 as the original, float64 with dtype=


@context_dependent_memoize
def get_fmod_kernel(dtype: Any = np.float32) -> Any:
    """``z = fmod(arg, mod)``; launch with ``arg, mod, z, n``."""
    return _prepared(plans.fmod(dtype))


@context_dependent_memoize
def get_modf_kernel(dtype: Any = np.float32) -> Any:
    """``fracpart = modf(x, &intpart)``; launch with ``x, intpart, fracpart, n``."""
    return _prepared(plans.modf(dtype))


@context_dependent_memoize
def get_frexp_kernel(dtype: Any = np.float32) -> Any:
    """``significand = frexp(x, &e)``, ``exponent = e``; launch with ``x, significand,
    exponent, n`` (all of ``dtype``)."""
    return _prepared(plans.frexp(dtype))


@context_dependent_memoize
def get_ldexp_kernel(dtype: Any = np.float32) -> Any:
    """``z = ldexp(sig, int(expt))``; launch with ``sig, expt, z, n``."""
    return _prepared(plans.ldexp(dtype))


# }}}


# {{{ one array in, one out


@context_dependent_memoize
def get_unary_func_kernel(func_name: str, in_dtype: Any, out_dtype: Any = None) -> Any:
    """``z = func_name(y)``; launch with ``y, z, n`` (``z`` of ``in_dtype`` by default)."""
    return _prepared(plans.unary_func(func_name, in_dtype, out_dtype))


@context_dependent_memoize
def get_fill_kernel(dtype: Any) -> Any:
    """``z[i] = a``; launch with ``a, z, n``."""
    return _prepared(plans.fill(dtype))


@context_dependent_memoize
def get_reverse_kernel(dtype: Any) -> Any:
    """``z[i] = y[n-1-i]``; launch with ``y, z, n``."""
    return _prepared(plans.reverse(dtype))


@context_dependent_memoize
def get_real_kernel(dtype: Any, real_dtype: Any) -> Any:
    """``z = real(y)``; launch with ``y, z, n``."""
    return _prepared(plans.real(dtype, real_dtype))


@context_dependent_memoize
def get_imag_kernel(dtype: Any, real_dtype: Any) -> Any:
    """``z = imag(y)``; launch with ``y, z, n``."""
    return _prepared(plans.imag(dtype, real_dtype))


@context_dependent_memoize
def get_conj_kernel(dtype: Any, conj_dtype: Any = None) -> Any:
    """``z = conj(y)``; launch with ``y, z, n`` (``z`` of ``dtype`` by default)."""
    return _prepared(plans.conj(dtype, conj_dtype))


@context_dependent_memoize
def get_arange_kernel(dtype: Any) -> Any:
    """``z[i] = start + i*step``; launch with ``z, start, step, n``."""
    return _prepared(plans.arange(dtype))


@context_dependent_memoize
def get_logical_not_kernel(dtype_x: Any, dtype_out: Any) -> Any:
    """``out = (x == 0)``; launch with ``x, out, n``."""
    return _prepared(plans.logical_not(dtype_x, dtype_out))


# }}}


# {{{ selection


@context_dependent_memoize
def get_if_positive_kernel(crit_dtype: Any, dtype: Any) -> Any:
    """``result = crit > 0 ? then_ : else_``; launch with ``crit, then_, else_, result, n``."""
    return _prepared(plans.if_positive(crit_dtype, dtype))


@context_dependent_memoize
def get_where_kernel(crit_dtype: Any, dtype: Any) -> Any:
    """``result = crit != 0 ? then_ : else_``; launch with ``crit, then_, else_, result, n``."""
    return _prepared(plans.where(crit_dtype, dtype))


# }}}
