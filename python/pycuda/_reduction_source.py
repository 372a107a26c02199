"""The CUDA C of a reduction (see pycuda.reduction for how it runs): the two stages' kernels for
a map, a reduce expression and a neutral element, and the original's module-level functions
that compile them (``get_reduction_module``, ``get_reduction_kernel_and_types``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from pycuda import _dtypes, compiler
from pycuda._grid_stride import parse_arguments
from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda._reduction_parts import REDUCTION_HELPERS
from pycuda.tools import (
    Argument,
    VectorArg,
    dtype_to_ctype,
    get_or_register_dtype,
)

BLOCK_SIZE = THREADS_PER_BLOCK  # threads of a reduction's blocks (reduction.BLOCK_SIZE)
_FOLD_EVERY = 64  # tiles per inner accumulator before it folds into the outer one
_LOAD_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "uint2", 16: "uint4"}


def reduction_arguments(arguments: str | Sequence[Argument] | None) -> list[Argument]:
    if arguments is None:
        raise TypeError("ReductionKernel needs arguments, e.g. arguments='const float *in'")
    return parse_arguments(arguments)


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


class SourcePlan:
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
            + REDUCTION_HELPERS
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


def make_plan(
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
) -> SourcePlan:
    """``final``: (result dtype, its C type, expression in ``a``) when the result is not
    ``dtype_out``."""
    dtype_out = np.dtype(dtype_out)
    args = reduction_arguments(arguments)
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
    return SourcePlan(
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
    dtype = get_or_register_dtype(out_type)
    plan = make_plan(dtype, neutral, reduce_expr, map_expr, arguments, name, preamble, out_type)
    return compiler.SourceModule(plan.source, options=options, keep=keep, no_extern_c=True)


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
    dtype = get_or_register_dtype(out_type)
    args = reduction_arguments(arguments)
    mod = get_reduction_module(
        out_type, block_size, neutral, reduce_expr, map_expr, args, name, keep, options, preamble
    )
    func = mod.get_function(f"{name}_stage{stage}")
    types = [VectorArg(dtype, "pr_out")] + (args if stage == 1 else [VectorArg(dtype, "pr_in")])
    func.prepare("".join(a.struct_char for a in types) + "q")
    return func, types
