"""The original's reduction factories (``get_sum_kernel``, ``get_dot_kernel``,
``get_minmax_kernel``, ...; pycuda.reduction re-exports them): each makes the ReductionKernel of one
operation for its dtypes, once per context."""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _dtypes
from pycuda._arg_extremum import ArgExtremumKernel
from pycuda._reduction_kernel import ReductionKernel
from pycuda._reduction_parts import minmax_neutral
from pycuda.tools import context_dependent_memoize, dtype_to_ctype


def _accumulator(dtype_out: np.dtype) -> np.dtype:
    """What a sum of result dtype ``dtype_out`` adds up in: the table's accumulator (a struct
    the table does not know adds up as itself)."""
    row = _dtypes.find(dtype_out)
    return dtype_out if row is None else row.accumulator


def _sum_like(dtype_out: Any, arguments: str, map_expr: str, name: str) -> ReductionKernel:
    """A sum whose map is ``map_expr`` (written in the accumulator's C type), converted once
    at the end where the accumulator is wider than ``dtype_out``."""
    dtype_out = np.dtype(dtype_out)
    acc = _accumulator(dtype_out)
    final = None if acc == dtype_out else (dtype_out, dtype_to_ctype(dtype_out), "a")
    return ReductionKernel(
        acc, "0", "a+b", map_expr=map_expr, arguments=arguments, name=name,
        _out_ctype=dtype_to_ctype(acc), _final=final,
    )  # fmt: skip


@context_dependent_memoize
def get_sum_kernel(dtype_out: Any, dtype_in: Any) -> ReductionKernel:
    """Sum of ``in`` in ``dtype_out`` (float16 accumulates in float32)."""
    dtype_out = np.dtype(dtype_in if dtype_out is None else dtype_out)
    acc_ctype = dtype_to_ctype(_accumulator(dtype_out))
    return _sum_like(
        dtype_out, f"const {dtype_to_ctype(dtype_in)} *in", f"({acc_ctype})(in[i])", "sum"
    )


@context_dependent_memoize
def get_subset_sum_kernel(dtype_out: Any, dtype_subset: Any, dtype_in: Any) -> ReductionKernel:
    """Sum of ``in[subset[i]]``."""
    dtype_out = np.dtype(dtype_in if dtype_out is None else dtype_out)
    acc_ctype = dtype_to_ctype(_accumulator(dtype_out))
    args = f"const {dtype_to_ctype(dtype_subset)} *subset, const {dtype_to_ctype(dtype_in)} *in"
    return _sum_like(dtype_out, args, f"({acc_ctype})(in[subset[i]])", "subset_sum")


@context_dependent_memoize
def get_dot_kernel(dtype_out: Any, dtype_a: Any = None, dtype_b: Any = None) -> ReductionKernel:
    """Sum of ``a[i]*b[i]`` (no conjugation), compiled without keep (the original kept files)."""
    dtype_a = np.dtype(dtype_out if dtype_a is None else dtype_a)
    dtype_b = np.dtype(dtype_a if dtype_b is None else dtype_b)
    acc_ctype = dtype_to_ctype(_accumulator(np.dtype(dtype_out)))
    args = f"const {dtype_to_ctype(dtype_a)} *a, const {dtype_to_ctype(dtype_b)} *b"
    return _sum_like(dtype_out, args, f"({acc_ctype})(a[i])*({acc_ctype})(b[i])", "dot")


@context_dependent_memoize
def get_subset_dot_kernel(
    dtype_out: Any, dtype_subset: Any, dtype_a: Any = None, dtype_b: Any = None
) -> ReductionKernel:
    """Sum of ``a[subset[i]]*b[subset[i]]``."""
    dtype_a = np.dtype(dtype_out if dtype_a is None else dtype_a)
    dtype_b = np.dtype(dtype_a if dtype_b is None else dtype_b)
    acc_ctype = dtype_to_ctype(_accumulator(np.dtype(dtype_out)))
    args = (
        f"const {dtype_to_ctype(dtype_subset)} *subset, const {dtype_to_ctype(dtype_a)} *a, "
        f"const {dtype_to_ctype(dtype_b)} *b"
    )
    expr = f"({acc_ctype})(a[subset[i]])*({acc_ctype})(b[subset[i]])"
    return _sum_like(dtype_out, args, expr, "subset_dot")


def get_minmax_neutral(what: str, dtype: Any) -> str:
    """The C expression of the identity of ``what`` ("max" or "min") for ``dtype``."""
    return minmax_neutral(what, dtype)


@context_dependent_memoize
def get_minmax_kernel(what: str, dtype: Any) -> ReductionKernel:
    """Maximum or minimum (``what``) of ``in``, propagating NaN like numpy."""
    dtype = np.dtype(dtype)
    ctype = dtype_to_ctype(dtype)
    return ReductionKernel(
        dtype, get_minmax_neutral(what, dtype), f"pycuda_nan_{what}(a, b)", map_expr="in[i]",
        arguments=f"const {ctype} *in", name=f"{what}_kernel",
    )  # fmt: skip


@context_dependent_memoize
def get_subset_minmax_kernel(what: str, dtype: Any, dtype_subset: Any) -> ReductionKernel:
    """Maximum or minimum of ``in[subset[i]]``."""
    dtype = np.dtype(dtype)
    args = f"const {dtype_to_ctype(dtype_subset)} *subset, const {dtype_to_ctype(dtype)} *in"
    return ReductionKernel(
        dtype, get_minmax_neutral(what, dtype), f"pycuda_nan_{what}(a, b)",
        map_expr="in[subset[i]]", arguments=args, name=f"subset_{what}_kernel",
    )  # fmt: skip


@context_dependent_memoize
def get_argminmax_kernel(what: str, dtype: Any) -> Any:
    """Index (int64) of the first maximum or minimum (``what``) of ``in``; NaN counts first.

    A dedicated kernel (``pycuda._arg_extremum``), not a ReductionKernel of (value, index)
    pairs: each thread keeps a plain value and index, which is what runs at memory bandwidth.
    """

    return ArgExtremumKernel(what, dtype)


def _truth_kernel(
    dtype_out: Any, dtype_in: Any, neutral: str, op: str, name: str
) -> ReductionKernel:
    ctype = dtype_to_ctype(dtype_in)
    return ReductionKernel(
        dtype_out, neutral, op, map_expr="pycuda_truth(in[i])",
        arguments=f"const {ctype} *in", name=name,
    )  # fmt: skip


@context_dependent_memoize
def get_any_kernel(dtype_out: Any, dtype_in: Any) -> ReductionKernel:
    """Whether any element of ``in`` (``dtype_in``) is nonzero (NaN counts as true), as a
    ``dtype_out`` (``bool``, as gpuarray.any asks)."""
    return _truth_kernel(dtype_out, dtype_in, "false", "a || b", "any_kernel")


@context_dependent_memoize
def get_all_kernel(dtype_out: Any, dtype_in: Any) -> ReductionKernel:
    """Whether every element of ``in`` (``dtype_in``) is nonzero (NaN counts as true), as a
    ``dtype_out``."""
    return _truth_kernel(dtype_out, dtype_in, "true", "a && b", "all_kernel")
