"""NumPy-style cumulative sums and products of GPUArrays: ``cumsum`` and ``cumprod`` with
``axis=`` (None flattens, as NumPy), ``dtype=`` and ``out=``, over any strides, with NumPy's
result dtypes (bool and narrow integers widen to int64/uint64, as ``numpy.cumsum`` on Linux).

The flattened scan is ``pycuda.scan.InclusiveScanKernel`` over a contiguous copy in the result
dtype. Along an axis, two kernels of this module: one block per row when the scanned axis is
contiguous (each thread scans a run of ``_ITEMS`` elements, warps and the block combine the runs'
totals, and a carry moves from tile to tile), else one thread per row walking the axis (rows
side by side in memory, such as the columns of a C array scanned along axis 0, read coalesced).

    from pycuda import gpuarray
    running = gpuarray.cumsum(a_gpu, axis=1)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import compiler
from pycuda._array_kernels import HELPERS as _ARRAY_HELPERS
from pycuda._axis_plan import axis_layout, normalize_axes
from pycuda._c_types import dtype_to_ctype
from pycuda._dtypes import info
from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda._lazy_import import lazy_module
from pycuda.tools import context_dependent_memoize

# The flattened scan (pycuda.scan) loads at its first use.
_flat_scan = lazy_module("pycuda.scan", globals(), "_flat_scan")

_NAME = "pycuda_axis_scan"
_ITEMS = 8  # elements each thread of a block-kind scan takes per tile
_BLOCK = THREADS_PER_BLOCK  # named in the kernels' text
_FEW_ROWS, _LONG = 16, 1 << 16  # rows this few and this long go to the single-pass scan
_OPS = {"cumsum": ("a+b", "0"), "cumprod": ("a*b", "1")}


def scan_dtypes(in_dtype: np.dtype, dtype: Any) -> tuple[np.dtype, np.dtype]:
    """(result dtype, accumulator dtype) of a cumsum/cumprod of ``in_dtype``."""
    res = info(in_dtype).sum_dtype if dtype is None else np.dtype(dtype)
    return res, info(res).accumulator


_SHFL_UP = r"""
template <class T>
__device__ __forceinline__ T pycuda_shfl_up(const T &v, unsigned delta) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned w[W] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k)
        w[k] = __shfl_up_sync(0xffffffffu, w[k], delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
"""


def _split_kept(kept: int) -> str:
    lines = ["long long pr_ki = 0, pr_ko = 0, pr_rem = o;"]
    for d in range(kept - 1, 0, -1):
        lines.append(
            f"{{ const long long q = pr_rem / kd{d}, i = pr_rem - q * kd{d};"
            f" pr_ki += i * ks{d}; pr_ko += i * ko{d}; pr_rem = q; }}"
        )
    lines.append("pr_ki += pr_rem * ks0; pr_ko += pr_rem * ko0;")
    return "\n        ".join(lines)


def scan_source(in_dtype: np.dtype, res: np.dtype, acc: np.dtype, name: str, kept: int) -> str:
    """The module of scan ``name`` (cumsum/cumprod) with ``kept`` merged row dimensions:
    ``<_NAME>_thread`` and ``<_NAME>_block``, parameters ``char *out, const char *in,
    long long nrows, long long len, long long in_step, long long out_step, kd.., ks.., ko..``."""
    expr, neutral = _OPS[name]
    params = ", ".join(
        ["char *pr_out", "const char *pr_in", "long long pr_rows", "long long pr_len",
         "long long pr_is", "long long pr_os"]
        + [f"long long {p}{d}" for p in ("kd", "ks", "ko") for d in range(kept)]
    )  # fmt: skip
    nw = _BLOCK // 32
    return f"""{_ARRAY_HELPERS}
{_SHFL_UP}
typedef {dtype_to_ctype(in_dtype)} in_t;
typedef {dtype_to_ctype(acc)} acc_t;
typedef {dtype_to_ctype(res)} res_t;
__device__ __forceinline__ acc_t pr_op(acc_t a, acc_t b) {{ return acc_t({expr}); }}
__device__ __forceinline__ acc_t pr_load(const char *p) {{
    return pc_cast<acc_t>(*(const in_t *)p);
}}
__device__ __forceinline__ void pr_store(char *p, acc_t v) {{ *(res_t *)p = pc_cast<res_t>(v); }}

extern "C" __global__ void __launch_bounds__({_BLOCK}) {_NAME}_thread({params})
{{
    for (long long o = (long long)blockIdx.x * blockDim.x + threadIdx.x; o < pr_rows;
         o += (long long)gridDim.x * blockDim.x) {{
        {_split_kept(kept)}
        const char *pr_src = pr_in + pr_ki;
        char *pr_dst = pr_out + pr_ko;
        acc_t pr_run = acc_t({neutral});
        for (long long j = 0; j < pr_len; j += {_ITEMS}) {{
            acc_t pr_x[{_ITEMS}];
            #pragma unroll
            for (int k = 0; k < {_ITEMS}; ++k)  // the loads first: all in flight at once
                if (j + k < pr_len)
                    pr_x[k] = pr_load(pr_src + (j + k) * pr_is);
            #pragma unroll
            for (int k = 0; k < {_ITEMS}; ++k)
                if (j + k < pr_len) {{
                    pr_run = pr_op(pr_run, pr_x[k]);
                    pr_store(pr_dst + (j + k) * pr_os, pr_run);
                }}
        }}
    }}
}}

__device__ __forceinline__ acc_t pr_warp_scan(acc_t v, int lane) {{
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {{
        const acc_t other = pycuda_shfl_up(v, d);
        if (lane >= d)
            v = pr_op(other, v);
    }}
    return v;
}}

extern "C" __global__ void __launch_bounds__({_BLOCK}) {_NAME}_block({params})
{{
    __shared__ __align__(16) unsigned char pr_raw[({nw} + 1) * sizeof(acc_t)];
    acc_t *pr_warps = reinterpret_cast<acc_t *>(pr_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (long long o = blockIdx.x; o < pr_rows; o += gridDim.x) {{
        {_split_kept(kept)}
        const char *pr_src = pr_in + pr_ki;
        char *pr_dst = pr_out + pr_ko;
        acc_t pr_carry = acc_t({neutral});
        for (long long t0 = 0; t0 < pr_len; t0 += {_BLOCK * _ITEMS}) {{
            const long long j0 = t0 + (long long)threadIdx.x * {_ITEMS};
            acc_t pr_x[{_ITEMS}];
            #pragma unroll
            for (int k = 0; k < {_ITEMS}; ++k)
                pr_x[k] = j0 + k < pr_len ? pr_load(pr_src + (j0 + k) * pr_is) : acc_t({neutral});
            #pragma unroll
            for (int k = 1; k < {_ITEMS}; ++k)
                pr_x[k] = pr_op(pr_x[k - 1], pr_x[k]);
            const acc_t incl = pr_warp_scan(pr_x[{_ITEMS - 1}], lane);
            acc_t excl = pycuda_shfl_up(incl, 1);
            if (lane == 0)
                excl = acc_t({neutral});
            if (lane == 31)
                pr_warps[warp] = incl;
            __syncthreads();
            if (warp == 0) {{
                acc_t w = lane < {nw} ? pr_warps[lane] : acc_t({neutral});
                w = pr_warp_scan(w, lane);
                if (lane < {nw})
                    pr_warps[lane] = w;
            }}
            __syncthreads();
            acc_t pre = warp > 0 ? pr_op(pr_carry, pr_warps[warp - 1]) : pr_carry;
            pre = pr_op(pre, excl);
            #pragma unroll
            for (int k = 0; k < {_ITEMS}; ++k)
                if (j0 + k < pr_len)
                    pr_store(pr_dst + (j0 + k) * pr_os, pr_op(pre, pr_x[k]));
            pr_carry = pr_op(pr_carry, pr_warps[{nw} - 1]);
            __syncthreads();  // pr_warps is rewritten by the next tile
        }}
    }}
}}
"""


@context_dependent_memoize
def _axis_module(in_dtype: np.dtype, res: np.dtype, acc: np.dtype, name: str, kept: int):
    mod = compiler.SourceModule(scan_source(in_dtype, res, acc, name, kept), no_extern_c=True)
    funcs = {}
    for kind in ("thread", "block"):
        func = mod.get_function(f"{_NAME}_{kind}")
        func.prepare("PPqqqq" + "q" * 3 * kept)
        funcs[kind] = func
    return funcs


@context_dependent_memoize
def _flat_kernel(dtype: np.dtype, name: str) -> Any:
    return _flat_scan.InclusiveScanKernel(dtype, _OPS[name][0])


def scan(
    name: str,
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """``numpy.cumsum``/``numpy.cumprod`` (``name``) of the GPUArray ``a``."""
    if not core.is_array(a):
        raise TypeError(f"{name}: a must be a GPUArray, got {type(a).__name__}")
    res, acc = scan_dtypes(a.dtype, dtype)
    shape = (a.size,) if axis is None else a.shape
    axes = () if axis is None else normalize_axes(axis, a.ndim, allow_tuple=False)
    if out is not None:
        if not core.is_array(out):
            raise TypeError(f"{name}: out must be a GPUArray, got {type(out).__name__}")
        if out.shape != shape:
            raise ValueError(f"{name}: out has shape {out.shape}, expected {shape}")
    allocator = allocator or a.allocator
    if axis is None:
        target = out
        if out is None or out.dtype != res or not out.flags.c_contiguous or core.overlaps(out, a):
            target = core.new_result(a, shape, res, allocator=allocator)
        if a.size:
            target.reshape(a.shape)[...] = a
            scratch = allocator or core.context_allocator()
            _flat_kernel(res, name)(target, allocator=scratch, stream=stream)
    else:
        target = out
        if out is None or core.overlaps(out, a):
            target = core.new_result(
                a, shape, res if out is None else out.dtype, allocator=allocator
            )
        if a.size and a.size // a.shape[axes[0]] <= _FEW_ROWS and a.shape[axes[0]] >= _LONG:
            scratch = allocator or core.context_allocator()
            _scan_few_long_rows(name, a, axes[0], target, stream, scratch)
        elif a.size:
            _scan_axis(name, a, axes[0], target, acc, stream)
    if out is not None and target is not out:
        out[...] = target
        return out
    return target


def _scan_few_long_rows(
    name: str, a: Any, axis: int, target: Any, stream: Any, scratch: Any
) -> None:
    """A few long rows: each by the single-pass scan of the whole GPU (one block per row, or
    one thread walking a row, would leave it nearly idle), on a contiguous copy in the result
    dtype with the scanned axis last."""
    order = [k for k in range(a.ndim) if k != axis] + [axis]
    moved = a.transpose(order)
    tmp = core.new_array(moved.shape, target.dtype, scratch)
    tmp[...] = moved
    rows = tmp.reshape(-1, a.shape[axis])
    kernel = _flat_kernel(target.dtype, name)
    for i in range(rows.shape[0]):
        kernel(rows[i], allocator=scratch, stream=stream)
    target[...] = tmp.transpose(tuple(int(k) for k in np.argsort(order)))


def _scan_axis(name: str, a: Any, axis: int, target: Any, acc: np.dtype, stream: Any) -> None:
    kept_out = tuple(s for k, s in enumerate(target.strides) if k != axis)
    layout = axis_layout(a.shape, a.strides, (axis,), kept_out)
    kept = len(layout.kept_shape)
    funcs = _axis_module(a.dtype, target.dtype, acc, name, kept)
    rows, length = layout.n_out, a.shape[axis]
    args = [target.ptr, a.ptr, rows, length, a.strides[axis], target.strides[axis],
            *layout.kept_shape, *layout.kept_in, *layout.kept_out]  # fmt: skip
    if abs(a.strides[axis]) == a.itemsize and length >= _BLOCK:
        func, block, grid = funcs["block"], _BLOCK, min(rows, 1 << 20)
    else:
        func, block = funcs["thread"], min(_BLOCK, max(32, -(-rows // 32) * 32))
        grid = min(-(-rows // block), 1 << 20)
    core.launch(func, (grid, 1), (block, 1, 1), stream, args)


def cumsum(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The cumulative sum of ``a`` along ``axis`` (None: of the flattened array), as
    numpy.cumsum."""
    return scan("cumsum", a, axis, dtype, out, stream, allocator)


def cumprod(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    *,
    stream: Any = None,
    allocator: Any = None,
) -> Any:
    """The cumulative product of ``a`` along ``axis`` (None: of the flattened array), as
    numpy.cumprod."""
    return scan("cumprod", a, axis, dtype, out, stream, allocator)
