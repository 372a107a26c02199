"""Reductions of whole arrays to one value: ``ReductionKernel`` and the kernel factories behind
``gpuarray.sum``, ``dot``, ``max``, ``min``, ``any``, ``all`` and their subset forms.

How a reduction runs (two launches, no atomics, no counters to reset):

1. Stage 1: a grid of at most one resident wave of 256-thread blocks. Blocks walk the input in
   tiles with a grid-stride loop. Within a tile each thread reduces ``UNROLL`` loads in a tree,
   so the values of one tile never form a serial chain; per-tile results fold into a running
   accumulator that is itself folded into an outer one every 64 tiles (a two-level cascade, so
   a float32 sum of 2^33 elements stays within a few ulps). When the map is a plain load
   (``x[i]``, ``a[i]*b[i]``, ...) and the arrays are aligned, each load is 16 bytes wide.
   Threads then reduce across the warp with ``__shfl_down_sync`` (struct types a shuffle
   cannot be trusted with go through shared memory, with ``__syncwarp`` between steps), and
   each block writes its partial.
2. Stage 2: one block reduces the partials the same way and writes the result.

A single block's worth of input (small arrays) takes one launch that writes the result directly.
The reduction operator must be associative and commutative, as in the original.

    from pycuda.reduction import ReductionKernel
    dot = ReductionKernel(numpy.float32, neutral="0", reduce_expr="a+b",
                          map_expr="x[i]*y[i]", arguments="float *x, float *y")
    result = dot(x_gpu, y_gpu).get()
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from pycuda import _dtypes
from pycuda.tools import (
    Argument,
    ScalarArg,
    VectorArg,
    context_dependent_memoize,
    dtype_to_ctype,
    parse_c_arg,
)

BLOCK_SIZE = 256
_FOLD_EVERY = 64  # tiles per inner accumulator before it folds into the outer one
_LOAD_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "uint2", 16: "uint4"}

# Device helpers shared by every reduction module (guarded: a user preamble may include them).
_HELPERS = r"""
#ifndef PYCUDA_REDUCTION_HELPERS
#define PYCUDA_REDUCTION_HELPERS
// Any trivially copyable value, moved through a warp shuffle in 32-bit words.
template <class T>
__device__ __forceinline__ T pycuda_shfl_down(const T &v, unsigned delta) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned w[W] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k)
        w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
// Maximum and minimum that propagate NaN, as numpy.max/min do (x != x only for NaN).
template <class T>
__device__ __forceinline__ T pycuda_nan_max(const T &a, const T &b) {
    return (a != a) ? a : ((b != b) ? b : (a < b ? b : a));
}
template <class T>
__device__ __forceinline__ T pycuda_nan_min(const T &a, const T &b) {
    return (a != a) ? a : ((b != b) ? b : (b < a ? b : a));
}
// Truth of a value, as numpy's any/all see it (NaN is true).
template <class T>
__device__ __forceinline__ bool pycuda_truth(const T &x) { return x != T(0); }
template <class T>
__device__ __forceinline__ bool pycuda_truth(const pycuda::complex<T> &x) {
    return x.real() != T(0) || x.imag() != T(0);
}
// Value and index, for argmax/argmin: the first extremum wins, a NaN beats every number.
template <class T>
struct pycuda_arg_pair {
    T v;
    long long i;
};
template <class T>
__device__ __forceinline__ pycuda_arg_pair<T> pycuda_make_arg(const T &v, long long i) {
    pycuda_arg_pair<T> p;
    p.v = v;
    p.i = i;
    return p;
}
template <bool Max, class T>
__device__ __forceinline__ pycuda_arg_pair<T> pycuda_arg_ext(const pycuda_arg_pair<T> &a,
                                                             const pycuda_arg_pair<T> &b) {
    const bool an = a.v != a.v, bn = b.v != b.v;
    if (an || bn)
        return (an && bn) ? (a.i < b.i ? a : b) : (an ? a : b);
    if (Max ? (b.v < a.v) : (a.v < b.v))
        return a;
    if (Max ? (a.v < b.v) : (b.v < a.v))
        return b;
    return a.i < b.i ? a : b;
}
#endif
"""


def _parse_arguments(arguments: str | Sequence[Argument] | None) -> list[Argument]:
    if arguments is None:
        raise TypeError("ReductionKernel needs arguments, e.g. arguments='const float *in'")
    if isinstance(arguments, str):
        return [parse_c_arg(a) for a in arguments.split(",") if a.strip()]
    return list(arguments)


def _vector_map(
    map_expr: str, args: Sequence[Argument]
) -> tuple[str, dict[str, tuple[int, str]], int] | None:
    """The map rewritten to read 16-byte register chunks, or None if it cannot be.

    Vectorizable: every use of a vector argument ``x`` in the map is ``x[i]`` (``i`` itself may
    appear too). Returns (rewritten map, {argument: (itemsize, C type)} of those read, elements
    per load).
    """
    used: dict[str, tuple[int, str]] = {}
    rewritten = map_expr
    for arg in args:
        if not isinstance(arg, VectorArg):
            continue
        pattern = re.compile(r"(?<![\w.>])" + re.escape(arg.name) + r"\s*\[\s*i\s*\]")
        if not pattern.search(rewritten):
            if re.search(r"(?<![\w.>])" + re.escape(arg.name) + r"\b", rewritten):
                return None
            continue
        size = arg.dtype.itemsize
        if size not in _LOAD_TYPES:
            return None
        used[arg.name] = (size, dtype_to_ctype(arg.dtype))
        rewritten = pattern.sub(f"pr_elt_{arg.name}", rewritten)
        if re.search(r"(?<![\w.>])" + re.escape(arg.name) + r"\b", rewritten):
            return None
    if not used:
        return None
    return rewritten, used, 16 // max(size for size, _ in used.values())


def _tree(array: str, count: int) -> str:
    return (
        f"pycuda_tree<{count}>({array});" if count > 1 else ""  # one value is its own reduction
    )


def _block_reduce(block: int, shuffle: bool) -> str:
    """Code that leaves the block's reduction of ``pr_acc`` in ``pr_acc`` of thread 0."""
    if shuffle:
        return f"""
    #pragma unroll
    for (int pr_off = 16; pr_off > 0; pr_off >>= 1)
        pr_acc = pycuda_reduce_op(pr_acc, pycuda_shfl_down(pr_acc, pr_off));
    __shared__ __align__(16) unsigned char pr_raw[{block // 32} * sizeof(out_type)];
    out_type *pr_smem = reinterpret_cast<out_type *>(pr_raw);
    const int pr_lane = threadIdx.x & 31, pr_warp = threadIdx.x >> 5;
    if (pr_lane == 0)
        pr_smem[pr_warp] = pr_acc;
    __syncthreads();
    if (pr_warp == 0) {{
        pr_acc = pr_lane < {block // 32} ? pr_smem[pr_lane] : pycuda_neutral();
        #pragma unroll
        for (int pr_off = 16; pr_off > 0; pr_off >>= 1)
            pr_acc = pycuda_reduce_op(pr_acc, pycuda_shfl_down(pr_acc, pr_off));
    }}"""
    return f"""
    __shared__ __align__(16) unsigned char pr_raw[{block} * sizeof(out_type)];
    out_type *pr_smem = reinterpret_cast<out_type *>(pr_raw);
    pr_smem[threadIdx.x] = pr_acc;
    __syncthreads();
    for (int pr_s = {block // 2}; pr_s >= 32; pr_s >>= 1) {{
        if (threadIdx.x < pr_s)
            pr_smem[threadIdx.x] = pycuda_reduce_op(pr_smem[threadIdx.x],
                                                    pr_smem[threadIdx.x + pr_s]);
        __syncthreads();
    }}
    if (threadIdx.x < 32) {{
        pr_acc = pr_smem[threadIdx.x];
        for (int pr_s = 16; pr_s > 0; pr_s >>= 1) {{
            // Read, then wait for the warp, then write: the post-Volta warp-synchronous idiom.
            if (threadIdx.x < pr_s)
                pr_acc = pycuda_reduce_op(pr_acc, pr_smem[threadIdx.x + pr_s]);
            __syncwarp();
            if (threadIdx.x < pr_s)
                pr_smem[threadIdx.x] = pr_acc;
            __syncwarp();
        }}
    }}"""


def _scalar_loop(map_expr: str, unroll: int) -> str:
    return f"""
    const long long pr_tile = (long long)blockDim.x * {unroll};
    for (long long pr_base = (long long)blockIdx.x * pr_tile + threadIdx.x; pr_base < n;
         pr_base += (long long)gridDim.x * pr_tile) {{
        out_type pr_v[{unroll}];
        #pragma unroll
        for (int pr_u = 0; pr_u < {unroll}; ++pr_u) {{
            const long long i = pr_base + (long long)pr_u * blockDim.x;
            pr_v[pr_u] = i < n ? out_type({map_expr}) : pycuda_neutral();
        }}
        {_tree("pr_v", unroll)}
        PYCUDA_ACCUMULATE(pr_v[0]);
    }}"""


def _vector_loop(
    map_expr: str, vec_map: str, used: dict[str, tuple[int, str]], vec: int, unroll: int
) -> str:
    loads, elements = [], []
    for name, (size, ctype) in used.items():
        load_t = _LOAD_TYPES[vec * size]
        loads.append(
            f"{load_t} pr_ld_{name}[{unroll}];\n"
            f"        #pragma unroll\n"
            f"        for (int pr_u = 0; pr_u < {unroll}; ++pr_u) {{\n"
            f"            const long long pr_c = pr_base + (long long)pr_u * blockDim.x;\n"
            f"            if (pr_c < pr_chunks)\n"
            f"                pr_ld_{name}[pr_u] =\n"
            f"                    __ldg(reinterpret_cast<const {load_t} *>({name}) + pr_c);\n"
            f"        }}"
        )
        elements.append(
            f"const {ctype} pr_elt_{name} = "
            f"reinterpret_cast<const {ctype} *>(&pr_ld_{name}[pr_u])[pr_j];"
        )
    return f"""
    const long long pr_chunks = n / {vec};
    const long long pr_tile = (long long)blockDim.x * {unroll};
    for (long long pr_base = (long long)blockIdx.x * pr_tile + threadIdx.x; pr_base < pr_chunks;
         pr_base += (long long)gridDim.x * pr_tile) {{
        {chr(10).join(loads)}
        out_type pr_v[{unroll}];
        #pragma unroll
        for (int pr_u = 0; pr_u < {unroll}; ++pr_u) {{
            const long long pr_c = pr_base + (long long)pr_u * blockDim.x;
            if (pr_c < pr_chunks) {{
                out_type pr_w[{vec}];
                #pragma unroll
                for (int pr_j = 0; pr_j < {vec}; ++pr_j) {{
                    const long long i = pr_c * {vec} + pr_j;
                    (void)i;
                    {" ".join(elements)}
                    pr_w[pr_j] = out_type({vec_map});
                }}
                {_tree("pr_w", vec)}
                pr_v[pr_u] = pr_w[0];
            }} else {{
                pr_v[pr_u] = pycuda_neutral();
            }}
        }}
        {_tree("pr_v", unroll)}
        PYCUDA_ACCUMULATE(pr_v[0]);
    }}
    // The last n % {vec} elements, read one by one by the first block.
    if (blockIdx.x == 0) {{
        const long long i = pr_chunks * {vec} + threadIdx.x;
        if (i < n)
            pr_acc = pycuda_reduce_op(pr_acc, out_type({map_expr}));
    }}"""


def _kernel(name: str, params: str, loop: str, block: int, shuffle: bool, write: str) -> str:
    return f"""
extern "C" __global__ void __launch_bounds__({block}) {name}({params}, long long n)
{{
    out_type pr_acc = pycuda_neutral(), pr_outer = pycuda_neutral();
    int pr_count = 0;
#define PYCUDA_ACCUMULATE(x) \\
    do {{ pr_acc = pycuda_reduce_op(pr_acc, (x)); \\
         if (++pr_count == {_FOLD_EVERY}) {{ pr_outer = pycuda_reduce_op(pr_outer, pr_acc); \\
                                          pr_acc = pycuda_neutral(); pr_count = 0; }} }} while (0)
    {loop}
#undef PYCUDA_ACCUMULATE
    pr_acc = pycuda_reduce_op(pr_outer, pr_acc);
    {_block_reduce(block, shuffle)}
    if (threadIdx.x == 0)
        {write}
}}
"""


class _Plan:
    """The generated source of one reduction and what its launches need to know."""

    def __init__(
        self,
        out_ctype: str,
        neutral: str,
        reduce_expr: str,
        map_expr: str,
        args: list[Argument],
        name: str,
        preamble: str,
        shuffle: bool,
        out_itemsize: int,
        final: tuple[str, str] | None = None,
        block: int = BLOCK_SIZE,
        includes: str = "",
    ) -> None:
        self.name = name
        self.block = block
        self.final = final  # (C type, expression of `a`) of the result, if it is not out_type
        small = out_itemsize <= 8
        scalar_unroll = (8 if small else 4) if shuffle else 2
        self.scalar_unroll = scalar_unroll
        vec_info = _vector_map(map_expr, args)
        if vec_info is not None and vec_info[2] * out_itemsize > 128:
            vec_info = None  # too many accumulators for registers
        self.vector_args = {k: v[0] for k, v in vec_info[1].items()} if vec_info else None
        self.unroll = 4 if vec_info else scalar_unroll
        self.vec = vec_info[2] if vec_info else 1
        params = ", ".join(["out_type *pr_out"] + [a.declarator() for a in args])
        final_ctype, final_expr = final if final else ("out_type", "a")
        head = (
            includes
            + _HELPERS
            + preamble
            + f"""
typedef {out_ctype} out_type;
__device__ __forceinline__ out_type pycuda_neutral() {{ return out_type({neutral}); }}
// By value: user functions taking non-const references to a and b compile, as in the original.
__device__ __forceinline__ out_type pycuda_reduce_op(out_type a, out_type b) {{
    return out_type({reduce_expr});
}}
template <int N>
__device__ __forceinline__ void pycuda_tree(out_type (&v)[N]) {{
    #pragma unroll
    for (int s = 1; s < N; s *= 2)
        #pragma unroll
        for (int k = 0; k + s < N; k += 2 * s)
            v[k] = pycuda_reduce_op(v[k], v[k + s]);
}}
__device__ __forceinline__ {final_ctype} pycuda_final(const out_type &a) {{
    return ({final_ctype})({final_expr});
}}
"""
        )
        write_partial = "pr_out[blockIdx.x] = pr_acc;"
        parts = [head, _kernel(f"{name}_stage1", params, _scalar_loop(map_expr, scalar_unroll),
                               block, shuffle, write_partial)]  # fmt: skip
        if vec_info is not None:
            loop = _vector_loop(map_expr, vec_info[0], vec_info[1], vec_info[2], 4)
            parts.append(_kernel(f"{name}_stage1_vec", params, loop, block, shuffle, write_partial))
        parts.append(
            _kernel(
                f"{name}_stage2",
                f"{final_ctype} *pr_out, const out_type *pr_in",
                _scalar_loop("pr_in[i]", scalar_unroll),
                block,
                shuffle,
                "pr_out[0] = pycuda_final(pr_acc);",
            )
        )
        self.source = "\n".join(parts)


def _make_plan(
    dtype_out: Any,
    neutral: str,
    reduce_expr: str,
    map_expr: str | None,
    arguments: Any,
    name: str,
    preamble: str,
    out_ctype: str | None = None,
    final: tuple[Any, str, str] | None = None,
    shuffle: bool | None = None,
) -> _Plan:
    """``final``: (result dtype, its C type, expression in ``a``) when the result is not
    ``dtype_out``."""
    dtype_out = np.dtype(dtype_out)
    args = _parse_arguments(arguments)
    if map_expr is None:
        map_expr = "in[i]"
    if out_ctype is None:
        out_ctype = dtype_to_ctype(dtype_out)
    if shuffle is None:
        shuffle = _dtypes.kind_of(dtype_out) in "biufc"
    block = BLOCK_SIZE
    while block > 32 and block * dtype_out.itemsize > 32768:
        block //= 2
    dtypes = [dtype_out, *(a.dtype for a in args), *([final[0]] if final else [])]
    headers = _dtypes.includes(dtypes, f"{out_ctype} {preamble}", first=("pycuda-complex.hpp",))
    return _Plan(
        out_ctype, str(neutral), reduce_expr, map_expr, args, name, preamble, shuffle,
        dtype_out.itemsize, (final[1], final[2]) if final else None, block, headers,
    )  # fmt: skip


def get_reduction_module(
    out_type: str,
    block_size: int,
    neutral: str,
    reduce_expr: str,
    map_expr: str | None,
    arguments: Any,
    name: str = "reduce_kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
) -> Any:
    """The compiled module holding ``name``_stage1 (and _stage1_vec, _stage2) for a reduction
    to the C type ``out_type``. ``block_size`` is accepted for compatibility; blocks have
    :data:`BLOCK_SIZE` threads.
    """
    from pycuda.compiler import SourceModule
    from pycuda.tools import get_or_register_dtype

    dtype = get_or_register_dtype(out_type)
    plan = _make_plan(dtype, neutral, reduce_expr, map_expr, arguments, name, preamble, out_type)
    return SourceModule(plan.source, options=options, keep=keep, no_extern_c=True)


def get_reduction_kernel_and_types(
    stage: int,
    out_type: str,
    block_size: int,
    neutral: str,
    reduce_expr: str,
    map_expr: str | None = None,
    arguments: Any = None,
    name: str = "reduce_kernel",
    keep: bool = False,
    options: Sequence[str] | None = None,
    preamble: str = "",
) -> tuple[Any, list[Argument]]:
    """``(prepared Function, argument list)`` of stage 1 (the map over the user's arguments) or
    stage 2 (partials to result) of a reduction; both end with ``long long n``.
    """
    from pycuda.tools import get_or_register_dtype

    dtype = get_or_register_dtype(out_type)
    args = _parse_arguments(arguments)
    mod = get_reduction_module(
        out_type, block_size, neutral, reduce_expr, map_expr, args, name, keep, options, preamble
    )
    func = mod.get_function(f"{name}_stage{stage}")
    types = [VectorArg(dtype, "pr_out")] + (args if stage == 1 else [VectorArg(dtype, "pr_in")])
    func.prepare("".join(a.struct_char for a in types) + "q")
    return func, types


class ReductionKernel:
    """A reduction of one or more arrays to one value of ``dtype_out``.

    ``map_expr`` (in terms of ``i`` and the ``arguments``; default ``in[i]``) gives each
    element's value, ``reduce_expr`` (in ``a`` and ``b``; associative and commutative) combines
    two, ``neutral`` is its identity. Calling it returns a 0-d GPUArray.

        krnl = ReductionKernel(numpy.float32, neutral="0", reduce_expr="a+b",
                               map_expr="x[i]*y[i]", arguments="float *x, float *y")
        dot = krnl(x_gpu, y_gpu).get()
    """

    def __init__(
        self,
        dtype_out: Any,
        neutral: Any,
        reduce_expr: str,
        map_expr: str | None = None,
        arguments: Any = None,
        name: str = "reduce_kernel",
        keep: bool = False,
        options: Sequence[str] | None = None,
        preamble: str = "",
        *,
        _out_ctype: str | None = None,
        _final: tuple[Any, str, str] | None = None,
        _shuffle: bool | None = None,
    ) -> None:
        from pycuda import driver
        from pycuda.compiler import SourceModule

        self.dtype_out = np.dtype(dtype_out)
        self.arguments = _parse_arguments(arguments)
        # _final: (result dtype, its C type, expression in `a`) when the result is not out_type.
        self.result_dtype = np.dtype(_final[0]) if _final else self.dtype_out
        plan = _make_plan(
            self.dtype_out, neutral, reduce_expr, map_expr, self.arguments, name, preamble,
            _out_ctype, _final, _shuffle,
        )  # fmt: skip
        self._plan = plan
        self.source = plan.source
        self.module = SourceModule(plan.source, options=options, keep=keep, no_extern_c=True)
        fmt = "P" + "".join(a.struct_char for a in self.arguments) + "q"
        self.stage1_func = self.module.get_function(f"{name}_stage1")
        self.stage1_func.prepare(fmt)
        self.stage1_vec_func = None
        if plan.vector_args is not None:
            self.stage1_vec_func = self.module.get_function(f"{name}_stage1_vec")
            self.stage1_vec_func.prepare(fmt)
        self.stage2_func = self.module.get_function(f"{name}_stage2")
        self.stage2_func.prepare("PPq")
        dev = driver.Context.get_device()
        sms = dev.get_attribute(driver.device_attribute.MULTIPROCESSOR_COUNT)
        per_sm = dev.get_attribute(driver.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR)
        fallback = sms * max(1, per_sm // plan.block)
        # One resident wave: more blocks than fit at once would only queue behind the first.
        self._max_blocks = {
            f: _resident_blocks(f, plan.block, sms, fallback)
            for f in (self.stage1_func, self.stage1_vec_func)
            if f is not None
        }
        self._vector_names = [a.name for a in self.arguments if isinstance(a, VectorArg)]
        # Per stage-1 function: (elements per block, most blocks), and the block's shape.
        self._limits = {self.stage1_func: (plan.block * plan.scalar_unroll, 0)}
        if self.stage1_vec_func is not None:
            self._limits[self.stage1_vec_func] = (plan.block * plan.unroll * plan.vec, 0)
        for f, (per_block, _) in self._limits.items():
            self._limits[f] = (per_block, self._max_blocks[f])
        self._block = (plan.block, 1, 1)
        # The one-array kernels (sum, max, any, ...): its dtype and the alignment that 16-byte
        # loads need (None without them), for _single_array's shortcut.
        self._single = None
        if len(self.arguments) == 1 and isinstance(self.arguments[0], VectorArg):
            spec = self.arguments[0]
            vec_args = plan.vector_args or {}
            align = plan.vec * vec_args[spec.name] if spec.name in vec_args else 1
            self._single = (spec.dtype, align if self.stage1_vec_func is not None else None)

    def _single_array(self, a: Any) -> tuple[list[Any], Any, int, bool] | None:
        """_launch_args((a,)) of a one-array kernel when ``a`` is a GPUArray known to be
        C-contiguous, of the declared dtype object; None where the general checks must run."""
        dtype, align = self._single  # type: ignore[misc]
        if getattr(a, "_c", None) is not True or a.dtype is not dtype:
            return None
        ptr = a.ptr
        return [ptr], a, a.size, align is not None and not ptr % align

    def _stage1(self, n: int, aligned: bool) -> tuple[Any, int, bool]:
        """The stage-1 function over ``n`` elements (16-byte loads where ``aligned``), its
        number of blocks, and whether that one launch writes the result (one block and no final
        conversion) or stage 2 reduces its partials. pycuda._fast_reduce launches the same."""
        func = self.stage1_vec_func if aligned and n else self.stage1_func
        per_block, max_blocks = self._limits[func]
        blocks = max(1, min(-(-n // per_block), max_blocks))
        return func, blocks, blocks == 1 and self._plan.final is None

    def _launch_args(self, args: tuple[Any, ...]) -> tuple[list[Any], Any, int, bool]:
        """Kernel arguments, the first array (size and allocator), n, and whether 16-byte
        loads may be used."""
        if len(args) != len(self.arguments):
            raise TypeError(
                f"reduction takes {len(self.arguments)} arguments "
                f"({', '.join(a.name for a in self.arguments)}), got {len(args)}"
            )
        packed: list[Any] = []
        first = None
        aligned = self.stage1_vec_func is not None
        vec_args = self._plan.vector_args or {}
        for spec, value in zip(self.arguments, args, strict=True):
            if isinstance(spec, VectorArg):
                if not hasattr(value, "gpudata"):
                    raise TypeError(
                        f"argument '{spec.name}' must be a GPUArray, got {type(value).__name__}"
                    )
                # GPUArrays know whether they are (cached); other array types tell by .flags.
                contiguous = getattr(value, "_c", None) or value.flags.c_contiguous
                if value.size and not contiguous:
                    raise ValueError(
                        f"argument '{spec.name}' is not contiguous: reductions read arrays as "
                        "flat memory; pass a contiguous copy (ary.copy())"
                    )
                if value.dtype != spec.dtype:
                    raise TypeError(
                        f"argument '{spec.name}' has dtype {value.dtype}, the kernel was "
                        f"declared with {spec.dtype}"
                    )
                first = value if first is None else first
                ptr = 0 if value.gpudata is None else int(value.gpudata)
                if spec.name in vec_args and ptr % (self._plan.vec * vec_args[spec.name]):
                    aligned = False
                packed.append(ptr)
            else:
                packed.append(_dtypes.argument_value(value, spec.dtype))
        if first is None:
            raise TypeError("a reduction needs at least one array argument")
        return packed, first, int(first.size), aligned

    def __call__(
        self,
        *args: Any,
        stream: Any = None,
        out: Any = None,
        allocator: Any = None,
        kernel_wrapper: Callable[[Any], Any] | None = None,
        **kw: Any,
    ) -> Any:
        """Reduce; returns ``out`` or a new 0-d GPUArray of ``dtype_out``.

        ``kernel_wrapper``, as in the original, is applied to each stage's launcher (a
        function's bound ``prepared_async_call``) before it is called, which it then is as
        ``launch(grid, block, stream, *args)``: for timing or logging the launches.
        """
        if kw:
            raise TypeError(f"unexpected keyword arguments: {', '.join(kw)}")
        fast = self._single_array(args[0]) if self._single and len(args) == 1 else None
        packed, first, n, aligned = fast or self._launch_args(args)
        if allocator is None:
            allocator = getattr(first, "allocator", None)
        if out is None:
            gpuarray = _gpuarray()
            if type(first) is gpuarray.GPUArray or not isinstance(first, gpuarray.GPUArray):
                out = gpuarray._empty_0d(self.result_dtype, allocator)
            else:  # a subclass's result, made by its _new_like_me/_new_with_changes
                out = gpuarray._new_result(first, (), self.result_dtype, allocator=allocator)
        elif out.dtype != self.result_dtype or out.size != 1:
            raise TypeError(
                f"out must be a GPUArray of one {self.result_dtype} element, got "
                f"{out.size} of {out.dtype}"
            )
        func, blocks, direct = self._stage1(n, aligned)
        block = self._block
        if kernel_wrapper is not None:
            # Both stages wrapped before either runs, as the original did.
            stage1 = kernel_wrapper(func.prepared_async_call)
            stage2 = kernel_wrapper(self.stage2_func.prepared_async_call)
        else:
            stage1, stage2 = _launcher(func), _launcher(self.stage2_func)
        if direct:
            stage1((1, 1), block, stream, out.gpudata, *packed, n)
            return out
        # Raw memory, not a GPUArray: the partials may be of a struct type (argmax's pairs).
        # Without an allocator, from the context's pool as the result: a cuMemFree per call
        # would wait for the device.
        allocate = allocator or _gpuarray()._default_allocator()
        partials = allocate(blocks * self.dtype_out.itemsize)
        stage1((blocks, 1), block, stream, partials, *packed, n)
        stage2((1, 1), block, stream, out.gpudata, partials, blocks)
        return out


def _gpuarray() -> Any:
    """pycuda.gpuarray (imported on first use: it imports this module's users)."""
    module = sys.modules.get("pycuda.gpuarray")
    if module is None:
        from pycuda import gpuarray as module
    return module


def _resident_blocks(func: Any, block: int, sms: int, fallback: int) -> int:
    """How many blocks of ``func`` all multiprocessors hold at once (its registers decide)."""
    from pycuda import driver

    try:
        per_sm = func.max_active_blocks_per_multiprocessor(block)
    except (AttributeError, driver.Error):  # no occupancy query: the thread-count bound
        return fallback
    return sms * per_sm if per_sm > 0 else fallback


def _launcher(func: Any) -> Callable[..., None]:
    """``launch(grid, block, stream, *args)`` of a prepared function (a kernel_wrapper's
    argument form), synchronous where ``stream`` is None."""
    return lambda grid, block, stream, *args: _launch(func, grid, block, stream, list(args))


def _launch(func: Any, grid: Any, block: Any, stream: Any, args: list[Any]) -> None:
    if stream is None:
        func.prepared_call(grid, block, *args)
    else:
        func.prepared_async_call(grid, block, stream, *args)


# {{{ the original's factories, memoized per context


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
    dtype = np.dtype(dtype)
    if what not in ("max", "min"):
        raise ValueError(f"what must be 'max' or 'min', got {what!r}")
    if dtype.kind == "c":
        raise TypeError(f"max/min of complex values ({dtype}) is not defined")
    if dtype.kind == "b":
        return "false" if what == "max" else "true"
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        value = info.min if what == "max" else info.max
        if value == -(2**63):
            return "(-9223372036854775807LL - 1)"  # the literal 9223372036854775808 overflows
        return f"{value}{'ULL' if dtype.kind == 'u' else 'LL'}"
    sign = "-" if what == "max" else ""
    if dtype == np.dtype(np.float64):
        return f"{sign}__longlong_as_double(0x7ff0000000000000LL)"
    return f"{sign}__int_as_float(0x7f800000)"  # float32; float16 converts from it


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
    from pycuda._arg_extremum import ArgExtremumKernel

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


# }}}

__all__ = [
    "BLOCK_SIZE",
    "ReductionKernel",
    "ScalarArg",
    "VectorArg",
    "get_all_kernel",
    "get_any_kernel",
    "get_argminmax_kernel",
    "get_dot_kernel",
    "get_minmax_kernel",
    "get_minmax_neutral",
    "get_reduction_kernel_and_types",
    "get_reduction_module",
    "get_subset_dot_kernel",
    "get_subset_minmax_kernel",
    "get_subset_sum_kernel",
    "get_sum_kernel",
]
