"""NumPy-style reductions of GPUArrays along axes: ``sum``, ``prod``, ``max``, ``min``, ``mean``,
``var``, ``std``, ``argmax``, ``argmin``, ``any``, ``all`` with ``axis=`` (None, an int or a tuple),
``keepdims=``, ``dtype=`` and ``out=``, over any strides, with NumPy's result dtypes.

The result is a GPUArray (0-d when every axis is reduced, as the original's whole-array
reductions). Whole contiguous arrays go to the original's kernels (``pycuda._reduce_ops``);
everything else is planned by ``pycuda._axis_plan`` and run by the kernels of
``pycuda._axis_kernels``. ``var``/``std`` take two passes (the means, then the squared
deviations from them), and are real for complex input, as NumPy's.

    from pycuda import gpuarray
    col_sums = a_gpu.sum(axis=0)
    spread = gpuarray.std(a_gpu, axis=(0, 2), ddof=1, keepdims=True)
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import compiler
from pycuda._axis_kernels import (
    ReduceOp,
    arg_format,
    kernel_names,
    reduction_source,
    thread_vector_width,
    vector_threads,
    vector_width,
)
from pycuda._axis_plan import (
    MAX_DIMS,
    AxisLayout,
    axis_layout,
    c_strides,
    choose_launch,
    normalize_axes,
    partial_layouts,
    result_shape,
)
from pycuda._c_types import dtype_to_ctype
from pycuda._dtypes import find, info
from pycuda._launch_config import THREADS_PER_BLOCK, one_wave
from pycuda.reduction import get_minmax_neutral
from pycuda.tools import context_dependent_memoize

_NAME = "pycuda_axis_reduce"
_ARG_OPS = ("argmax", "argmin")
_EMPTY_ERRORS = {
    "max": "zero-size array to reduction operation maximum which has no identity",
    "min": "zero-size array to reduction operation minimum which has no identity",
    "argmax": "attempt to get argmax of an empty sequence",
    "argmin": "attempt to get argmin of an empty sequence",
}


# {{{ dtypes and C of each operation


def _float_dtype(dtype: np.dtype) -> np.dtype:
    """mean's working dtype: integers and bool in float64, others as they are."""
    return np.dtype(np.float64) if dtype.kind in "biu" else dtype


def _real(dtype: np.dtype) -> np.dtype:
    return np.dtype(dtype.char.lower()) if dtype.kind == "c" else dtype


def result_dtype(name: str, in_dtype: np.dtype, dtype: Any = None) -> np.dtype:
    """NumPy's result dtype of reduction ``name`` of an array of ``in_dtype``."""
    if name in ("sum", "prod"):
        return info(in_dtype).sum_dtype if dtype is None else np.dtype(dtype)
    if name in ("max", "min"):
        return in_dtype
    if name in _ARG_OPS:
        return np.dtype(np.int64)
    if name in ("any", "all"):
        return np.dtype(np.bool_)
    if name == "mean":
        return _float_dtype(in_dtype) if dtype is None else np.dtype(dtype)
    if name in ("var", "std"):
        return _real(_float_dtype(in_dtype)) if dtype is None else np.dtype(dtype)
    raise ValueError(f"unknown reduction {name!r}")


def _pair(ctype_dtype: np.dtype) -> np.dtype:
    return np.dtype([("v", ctype_dtype), ("i", np.int64)], align=True)


@functools.lru_cache(maxsize=256)  # a call per reduction: its host time counts
def reduce_op(
    name: str, in_dtype: np.dtype, res: np.dtype, dtype: Any = None
) -> tuple[ReduceOp, np.dtype]:
    """(the C of reduction ``name`` of ``in_dtype`` into ``res``, its accumulator dtype).

    For var/std this is the second pass (squared deviations from the means in ``pr_aux``).
    """
    in_c, res_c = dtype_to_ctype(in_dtype), dtype_to_ctype(res)
    if name in ("sum", "prod", "mean"):
        acc = info(result_dtype(name, in_dtype, dtype)).accumulator
        if name == "mean" and acc.kind in "biu":
            acc = np.dtype(np.float64)
        neutral, op = ("1", "a*b") if name == "prod" else ("0", "a+b")
        final = "pc_cast<res_t>(pr_div_by(a, d))" if name == "mean" else "pc_cast<res_t>(a)"
        c = ReduceOp(in_c, dtype_to_ctype(acc), res_c, neutral, op, "pc_cast<acc_t>(x)", final)
        return c, acc
    if name in ("max", "min"):
        if in_dtype.kind == "c":
            raise TypeError(f"{name} of complex values ({in_dtype}) is not defined")
        acc = info(in_dtype).compute
        neutral = get_minmax_neutral(name, acc)
        c = ReduceOp(in_c, dtype_to_ctype(acc), res_c, neutral, f"pycuda_nan_{name}(a, b)",
                     "pc_cast<acc_t>(x)")  # fmt: skip
        return c, acc
    if name in _ARG_OPS:
        what = name[3:]
        if in_dtype.kind == "c":
            raise TypeError(f"{name} of complex values ({in_dtype}) is not defined")
        v = info(in_dtype).compute
        vc = dtype_to_ctype(v)
        neutral = f"pycuda_make_arg<{vc}>({get_minmax_neutral(what, v)}, 0x7fffffffffffffffLL)"
        ext = f"pycuda_arg_ext<{str(what == 'max').lower()}>(a, b)"
        make = f"pycuda_make_arg<{vc}>(pc_cast<{vc}>(x), r)"
        c = ReduceOp(
            in_c, f"pycuda_arg_pair<{vc}>", res_c, neutral, ext, make, "pc_cast<res_t>(a.i)"
        )
        return c, _pair(v)
    if name in ("any", "all"):
        neutral, op = ("false", "a || b") if name == "any" else ("true", "a && b")
        c = ReduceOp(in_c, "bool", res_c, neutral, op, "pc_cast<bool>(x)")
        return c, np.dtype(np.bool_)
    if name in ("var", "std"):
        mean_acc = _mean_acc(in_dtype, dtype)
        acc = _real(mean_acc)
        value = "pr_div_by(a, d)" if name == "var" else "sqrt(pr_div_by(a, d))"
        c = ReduceOp(in_c, dtype_to_ctype(acc), res_c, "0", "a+b",
                     "pr_sqdev(pc_cast<aux_t>(x), pr_aux[o])", f"pc_cast<res_t>({value})",
                     dtype_to_ctype(mean_acc))  # fmt: skip
        return c, acc
    raise ValueError(f"unknown reduction {name!r}")


def _mean_acc(in_dtype: np.dtype, dtype: Any) -> np.dtype:
    """var's means: in float64 for integer input (or an integer dtype=), else the dtype."""
    work = _float_dtype(in_dtype if dtype is None else np.dtype(dtype))
    return info(work).accumulator


# }}}

# {{{ compiling and launching


@context_dependent_memoize
def _module(op: ReduceOp, kept: int, red: int, vec: int = 0) -> dict[tuple[str, bool], Any]:
    """The prepared kernels of ``op`` over ``kept`` and ``red`` merged dimensions (and the
    vector first pass of ``vec`` elements per load, when ``vec``)."""
    mod = compiler.SourceModule(reduction_source(_NAME, op, kept, red, vec), no_extern_c=True)
    funcs = {}
    for (kind, first), kname in kernel_names(_NAME, vec).items():
        func = mod.get_function(kname)
        func.prepare(arg_format(kept, red if first and kind != "block_vec" else 1))
        funcs[(kind, first)] = func
    return funcs


@context_dependent_memoize
def _wave() -> int:
    """How many blocks of THREADS_PER_BLOCK threads the current device holds at once."""
    sms, per_sm = core.device_counts()
    return one_wave(per_sm // THREADS_PER_BLOCK, sms)


def _launch(func: Any, launch: Any, stream: Any, args: list[Any]) -> None:
    core.launch(func, launch.grid, (launch.block, launch.rows, 1), stream, args)


def _vector_ok(layout: AxisLayout, launch: Any, in_ptr: int, itemsize: int, vec: int) -> bool:
    """Whether the first pass may read whole 16-byte packs: contiguous rows that start, and
    chunks that begin, on 16-byte boundaries."""
    return (
        vec > 0
        and layout.red_in[0] == itemsize
        and in_ptr % 16 == 0
        and all(s % 16 == 0 for s in layout.kept_in)
        and (launch.chunks == 1 or launch.chunk_len % vec == 0)
    )


def _thread_vec(layout: AxisLayout, in_ptr: int, itemsize: int, vec: int) -> int:
    """How many neighbouring outputs a thread-kind first pass may read in one load (1: one):
    the innermost kept dimension contiguous and a multiple of them long, the pointer and every
    other stride a multiple of the load's size."""
    kv = thread_vector_width(itemsize) if vec else 0
    size = kv * itemsize
    ok = (
        kv > 1
        and layout.kept_in[-1] == itemsize
        and layout.kept_shape[-1] % kv == 0
        and in_ptr % size == 0
        and all(s % size == 0 for s in layout.kept_in[:-1] + layout.red_in)
    )
    return kv if ok else 1


@dataclasses.dataclass(frozen=True)
class _Pass:
    """One launch of a plan: the kernel (kind, first pass), its launch, its layout, and where
    it writes (``kept_out`` strides and chunk stride; ``part_bytes`` > 0: a partials buffer
    of that size, else the output)."""

    kind: str
    first: bool
    launch: Any
    layout: AxisLayout
    kept_out: tuple[int, ...]
    cstride: int
    part_bytes: int


@functools.lru_cache(maxsize=1024)
def _plan(
    layout: AxisLayout, in_itemsize: int, acc_size: int, in_align: int, wave: int, threads: int
) -> tuple[tuple[_Pass, ...], int]:
    """The passes of a reduction over ``layout`` of an input at an address ``in_align`` modulo
    16 (cached: planning costs host time, paid once per layout), and the vector width of the
    module they use; ``threads``: the most of a block of the vector thread-kind kernel."""
    vec = vector_width(in_itemsize, len(layout.red_shape))
    kv = _thread_vec(layout, in_align, in_itemsize, vec) if acc_size <= 8 else 1
    passes, first, itemsize, align = [], True, in_itemsize, in_align
    while True:
        launch = choose_launch(layout, itemsize, wave, kv if first else 1, threads)
        kind = launch.kind
        if first and kind == "block" and _vector_ok(layout, launch, align, in_itemsize, vec):
            kind = "block_vec"
        if first and kind == "thread" and launch.vec > 1:
            kind = "thread_vec"
        if launch.chunks == 1:
            passes.append(_Pass(kind, first, launch, layout, layout.kept_out, 0, 0))
            return tuple(passes), vec
        kept_out, cstride, nxt = partial_layouts(layout, launch, acc_size)
        size = layout.n_out * launch.chunks * acc_size
        passes.append(_Pass(kind, first, launch, layout, kept_out, cstride, size))
        layout, itemsize, first, align = nxt, acc_size, False, 0


def run_passes(
    op: ReduceOp,
    acc_size: int,
    layout: AxisLayout,
    in_ptr: int,
    in_itemsize: int,
    out_ptr: int,
    aux_ptr: int,
    div: float,
    stream: Any,
    allocator: Any,
) -> None:
    """Reduce ``layout`` (input at ``in_ptr``) into ``out_ptr``: one pass, or a split pass and
    passes over its partials."""
    threads = vector_threads(op)
    passes, vec = _plan(layout, in_itemsize, acc_size, in_ptr % 16, _wave(), threads)
    funcs = _module(op, len(layout.kept_shape), len(layout.red_shape), vec)
    keep = []  # the partials stay allocated until every pass is queued
    for p in passes:
        if p.part_bytes:
            buf = allocator(p.part_bytes)
            keep.append(buf)
            dst = int(buf)
        else:
            dst = out_ptr
        lay = p.layout
        args = [dst, in_ptr, aux_ptr, lay.n_out, lay.n_red, p.launch.chunk_len, p.cstride,
                float(div), int(not p.part_bytes), *lay.kept_shape, *lay.kept_in, *p.kept_out,
                *lay.red_shape, *lay.red_in]  # fmt: skip
        _launch(funcs[(p.kind, p.first)], p.launch, stream, args)
        in_ptr = dst


# }}}


def _check_out(out: Any, shape: tuple[int, ...], name: str) -> None:
    if not core.is_array(out):
        raise TypeError(f"{name}: out must be a GPUArray, got {type(out).__name__}")
    if out.shape != shape:
        raise ValueError(f"{name}: out has shape {out.shape}, expected {shape}")


def _compacted(a: Any, axes: tuple[int, ...]) -> tuple[Any, tuple[int, ...]]:
    """A C-contiguous copy of ``a`` with the kept axes first: two merged dimensions at most."""
    kept = [k for k in range(a.ndim) if k not in axes]
    t = a.transpose(kept + list(axes))
    tmp = core.new_array(t.shape, a.dtype, a.allocator)
    tmp[...] = t
    return tmp, tuple(range(len(kept), a.ndim))


def _warn_empty(name: str, n_red: int, ddof: int) -> None:
    if name == "mean" and n_red == 0:
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=4)
    elif name in ("var", "std") and n_red - ddof <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=4)


def _reducible(dtype: np.dtype) -> bool:
    row = find(dtype)
    return row is not None and row.arithmetic


def reduce(  # noqa: A001 - NumPy's name for what this does
    name: str,
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    keepdims: bool = False,
    stream: Any = None,
    allocator: Any = None,
    ddof: int = 0,
) -> Any:
    """Reduction ``name`` of the GPUArray ``a`` over ``axis``; see the module's docstring."""
    if not core.is_array(a):
        raise TypeError(f"{name}: a must be a GPUArray, got {type(a).__name__}")
    if not _reducible(a.dtype):
        raise TypeError(
            f"{name} along axes takes bool, integer, float or complex arrays, not "
            f"{a.dtype} (convert first, e.g. a.astype(numpy.float32))"
        )
    if a.ndim == 0 and axis is not None and name not in _ARG_OPS:
        # As NumPy's ufunc reductions: axis 0 (or -1) of a 0-d array is the whole of it.
        normalize_axes(axis, 1, allow_tuple=True)
        axis = None
    axes = normalize_axes(axis, a.ndim, allow_tuple=name not in _ARG_OPS)
    shape = result_shape(a.shape, axes, keepdims)
    n_red = math.prod(a.shape[k] for k in axes)
    n_out = math.prod(shape)
    # (NumPy refuses an empty reduced axis even where the result is empty too.)
    if n_red == 0 and name in _EMPTY_ERRORS:
        raise ValueError(_EMPTY_ERRORS[name])
    if dtype is not None and name not in ("sum", "prod", "mean", "var", "std"):
        raise TypeError(f"{name}() takes no dtype argument")
    res = result_dtype(name, a.dtype, dtype)
    if out is not None:
        _check_out(out, shape, name)
        res = out.dtype
    op, acc = reduce_op(name, a.dtype, res, dtype)
    allocator = allocator or a.allocator
    target = out
    if out is None or core.overlaps(out, a):
        target = core.new_result(a, shape, res, allocator=allocator)
    _warn_empty(name, n_red, ddof)
    if n_out:
        _reduce_into(name, a, axes, keepdims, target, op, acc, dtype, stream, allocator, ddof)
    if out is not None and target is not out:
        out[...] = target
        return out
    return target


def _reduce_into(
    name: str, a: Any, axes: tuple[int, ...], keepdims: bool, target: Any, op: ReduceOp,
    acc: np.dtype, dtype: Any, stream: Any, allocator: Any, ddof: int,
) -> None:  # fmt: skip
    # Partials from the context's caching pool by default: a cuMemFree would synchronize.
    alloc = allocator or core.context_allocator()
    out_strides = target.strides
    if keepdims:
        out_strides = tuple(s for k, s in enumerate(out_strides) if k not in axes)
    layout = axis_layout(a.shape, a.strides, axes, out_strides, ordered=name in _ARG_OPS)
    if max(len(layout.kept_shape), len(layout.red_shape)) > MAX_DIMS:
        a, axes = _compacted(a, axes)
        layout = axis_layout(a.shape, a.strides, axes, out_strides, ordered=name in _ARG_OPS)
    n_red = layout.n_red
    aux, aux_ptr, div = None, 0, float(n_red)
    if name in ("var", "std"):
        aux, aux_ptr = _means(a, layout, dtype, stream, alloc)
        div = float(max(n_red - ddof, 0))
    run_passes(op, acc.itemsize, layout, a.ptr, a.itemsize, target.ptr, aux_ptr, div, stream,
               alloc)  # fmt: skip
    del aux  # the means stay allocated until every pass is queued


def _means(a: Any, layout: AxisLayout, dtype: Any, stream: Any, alloc: Any) -> tuple[Any, int]:
    """var's first pass: the means, contiguous in the kernel's order of the kept elements."""
    mean_acc = _mean_acc(a.dtype, dtype)
    op, acc = reduce_op("mean", a.dtype, mean_acc, mean_acc)
    buf = alloc(layout.n_out * mean_acc.itemsize)
    mean_layout = dataclasses.replace(
        layout, kept_out=c_strides(layout.kept_shape, mean_acc.itemsize)
    )
    run_passes(op, acc.itemsize, mean_layout, a.ptr, a.itemsize, int(buf), 0,
               float(layout.n_red), stream, alloc)  # fmt: skip
    return buf, int(buf)
