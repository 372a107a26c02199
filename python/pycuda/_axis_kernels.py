"""CUDA C sources of the axis reductions (``a.sum(axis=...)`` and friends): one module per
operation and number of merged kept and reduced dimensions.

Each module holds these kernels, all taking the same parameters:

- ``<name>_thread`` / ``<name>_block``: the first pass, reading the input (``in_t``) through the
  operation's map; one thread, or one block, per output element (see ``pycuda._axis_plan``);
- ``<name>_thread_part`` / ``<name>_block_part``: a later pass, reducing the partials (``acc_t``)
  that a split first pass wrote; one reduced dimension;
- ``<name>_block_vec`` (modules of one reduced dimension, elements of 1 to 8 bytes): the block
  first pass over contiguous rows that start on 16-byte boundaries, in 16-byte loads.

Blocks (``blockIdx.y``) take chunks of the reduced elements. Each thread loads ``GROUP`` elements
at a time (independent loads in flight), reduces them as a tree, and folds that into a running
value which itself folds into an outer one every 16 steps, so no long serial chain forms (float32
sums stay within a few ulps). A pass that is the last (``pr_last``) writes ``pr_final(acc)`` as
``res_t``, else the raw ``acc_t`` partial. Parameters:

    char *pr_out, const char *pr_in, const aux_t *pr_aux, long long pr_nout, long long pr_nred,
    long long pr_clen, long long pr_cstride, double pr_div, int pr_last,
    long long kd0.., ks0.., ko0.. (kept lengths, input and output byte strides),
    long long rd0.., rs0.. (reduced lengths, input byte strides)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from pycuda._array_kernels import HELPERS as _ARRAY_HELPERS
from pycuda._axis_plan import BLOCK, GROUP
from pycuda._c_types import ctype_to_dtype
from pycuda._reduction_parts import REDUCTION_HELPERS as _REDUCTION_HELPERS

_FOLD_EVERY = 16
_MAX_WARPS = BLOCK // 32  # warps of the largest block


@dataclass(frozen=True)
class ReduceOp:
    """One reduction in C: element types, identity, operator, map and final conversion.

    ``map`` is in ``x`` (the input element), ``r`` (its reduced index, C order), ``pr_aux`` and
    ``o`` (the output's index; var reads its mean as ``pr_aux[o]``); ``final`` is in ``a`` (the
    reduced value) and ``d`` (the divisor of mean/var, a double).
    """

    in_ctype: str
    acc_ctype: str
    res_ctype: str
    neutral: str
    reduce: str
    map: str
    final: str = "pc_cast<res_t>(a)"
    aux_ctype: str = "char"


def _split(index: str, lengths: str, targets: list[tuple[str, str]], ndim: int) -> str:
    """C statements that add ``index``'s per-dimension offsets (C order over ``lengths``0..)
    into each ``(variable, stride prefix)`` of ``targets``."""
    lines = [f"long long {var} = 0;" for var, _ in targets]
    rem = f"{index}_rem"
    lines.append(f"long long {rem} = {index};")
    for d in range(ndim - 1, 0, -1):
        adds = " ".join(f"{var} += {rem}_i * {pre}{d};" for var, pre in targets)
        lines.append(
            f"{{ const long long {rem}_q = {rem} / {lengths}{d};"
            f" const long long {rem}_i = {rem} - {rem}_q * {lengths}{d}; {adds} {rem} = {rem}_q; }}"
        )
    lines.append(" ".join(f"{var} += {rem} * {pre}0;" for var, pre in targets))
    return "\n        ".join(lines)


def _params(kept: int, red: int) -> str:
    params = [
        "char *pr_out", "const char *pr_in", "const aux_t *pr_aux", "long long pr_nout",
        "long long pr_nred", "long long pr_clen", "long long pr_cstride", "double pr_div",
        "int pr_last",
    ]  # fmt: skip
    for prefix, count in (("kd", kept), ("ks", kept), ("ko", kept), ("rd", red), ("rs", red)):
        params += [f"long long {prefix}{d}" for d in range(count)]
    return ", ".join(params)


def arg_format(kept: int, red: int) -> str:
    """The prepare() format of every kernel of a module with these dimension counts."""
    return "PPPqqqqdi" + "q" * (3 * kept + 2 * red)


def _load(first: bool) -> str:
    if first:
        return "pr_map(*(const in_t *)(pr_row + pr_ri), r, pr_aux, o)"
    return "*(const acc_t *)(pr_row + pr_ri)"


_WRITE = """
            char *pr_dst = pr_out + pr_ko + pr_chunk * pr_cstride;
            if (pr_last)
                *(res_t *)pr_dst = pr_final(pr_acc, pr_div);
            else
                *(acc_t *)pr_dst = pr_acc;"""


@functools.lru_cache(maxsize=256)  # run_passes asks once per reduction
def min_blocks(op: ReduceOp) -> int:
    """The blocks per multiprocessor that the kernels' ``__launch_bounds__`` promise: ptxas
    then holds 65536 / (BLOCK * that) registers, and issues every load of a step before using
    the first; it aims at 32 registers without, and issued two 16-byte loads at a time. 4 for
    accumulators and elements of 4 bytes, fewer for wider accumulators, narrower elements (more
    of them per load) and var's means, which would spill."""
    if op.acc_ctype.startswith("pycuda_arg_pair"):
        return 1
    acc = ctype_to_dtype(op.acc_ctype).itemsize
    if acc <= 4 and op.aux_ctype == "char" and ctype_to_dtype(op.in_ctype).itemsize >= 4:
        return 4
    return 2 if acc <= 8 else 1


@functools.lru_cache(maxsize=256)
def vector_threads(op: ReduceOp) -> int:
    """The most threads of a block of the vector thread-kind first pass: 1024 where 64
    registers serve (see min_blocks), else BLOCK."""
    return 1024 if min_blocks(op) == 4 else BLOCK


def _thread_kernel(
    name: str, kept: int, red: int, first: bool, kv: int = 1, minb: int = 4, threads: int = BLOCK
) -> str:
    """One thread per ``kv`` neighbouring outputs (``kv`` > 1: one ``kv``-element load per
    reduced element, the innermost kept dimension contiguous, its length a multiple of ``kv``
    and every other stride a multiple of the load's size). blockDim.y threads share each
    output's chunk, interleaved, and combine through shared memory as a tree. A whole step in
    range issues its GROUP loads unguarded, before using any. Blocks of up to ``threads``."""
    bounds = f"{threads}, {max(1, minb * BLOCK // threads)}"
    raw = f"pc_pack<in_t, {kv}>" if first else "acc_t"
    if first:
        value = "pr_map(pr_p[pr_u].v[pr_j], r, pr_aux, o + pr_j)"
    else:
        value = "pr_p[pr_u]"
    fetch = f"""{{
                    const long long r = pr_r + (long long)pr_u * blockDim.y;
                    {_split("r", "rd", [("pr_ri", "rs")], red)}
                    pr_p[pr_u] = *(const pr_raw_t *)(pr_row + pr_ri);
                }}"""
    skip = "\n                    if (r >= pr_r1)\n                        continue;"
    guarded = fetch.replace("blockDim.y;", "blockDim.y;" + skip, 1)
    return f"""
extern "C" __global__ void __launch_bounds__({bounds}) {name}({_params(kept, red)})
{{
    __shared__ __align__(16) unsigned char pr_raw[{threads} * {kv} * sizeof(acc_t)];
    acc_t *pr_smem = reinterpret_cast<acc_t *>(pr_raw);
    const long long pr_chunk = blockIdx.y;
    const long long pr_r0 = pr_chunk * pr_clen;
    const long long pr_r1 = pr_r0 + pr_clen < pr_nred ? pr_r0 + pr_clen : pr_nred;
    const long long pr_ngroups = pr_nout / {kv};
    const int pr_slot = (threadIdx.y * blockDim.x + threadIdx.x) * {kv};
    for (long long pr_gb = (long long)blockIdx.x * blockDim.x; pr_gb < pr_ngroups;
         pr_gb += (long long)gridDim.x * blockDim.x) {{
        const bool pr_live = pr_gb + threadIdx.x < pr_ngroups;
        const long long o = pr_live ? (pr_gb + threadIdx.x) * {kv} : 0;
        {_split("o", "kd", [("pr_ki", "ks"), ("pr_ko", "ko")], kept)}
        const char *pr_row = pr_in + pr_ki;
        acc_t pr_acc[{kv}], pr_outer[{kv}];
        #pragma unroll
        for (int pr_j = 0; pr_j < {kv}; ++pr_j)
            pr_acc[pr_j] = pr_outer[pr_j] = pr_neutral();
        int pr_count = 0;
        typedef {raw} pr_raw_t;
        for (long long pr_r = pr_r0 + threadIdx.y; pr_live && pr_r < pr_r1;
             pr_r += (long long){GROUP} * blockDim.y) {{
            pr_raw_t pr_p[{GROUP}];
            const bool pr_full = pr_r + (long long)({GROUP} - 1) * blockDim.y < pr_r1;
            if (pr_full) {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {fetch}
            }} else {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {guarded}
            }}
            acc_t pr_v[{kv}][{GROUP}];
            #pragma unroll
            for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {{
                const long long r = pr_r + (long long)pr_u * blockDim.y;
                (void)r;
                #pragma unroll
                for (int pr_j = 0; pr_j < {kv}; ++pr_j)
                    pr_v[pr_j][pr_u] = pr_full || r < pr_r1 ? {value} : pr_neutral();
            }}
            #pragma unroll
            for (int pr_j = 0; pr_j < {kv}; ++pr_j) {{
                pr_tree(pr_v[pr_j]);
                pr_acc[pr_j] = pr_op(pr_acc[pr_j], pr_v[pr_j][0]);
            }}
            if (++pr_count == {_FOLD_EVERY}) {{
                #pragma unroll
                for (int pr_j = 0; pr_j < {kv}; ++pr_j) {{
                    pr_outer[pr_j] = pr_op(pr_outer[pr_j], pr_acc[pr_j]);
                    pr_acc[pr_j] = pr_neutral();
                }}
                pr_count = 0;
            }}
        }}
        #pragma unroll
        for (int pr_j = 0; pr_j < {kv}; ++pr_j)
            pr_acc[pr_j] = pr_op(pr_outer[pr_j], pr_acc[pr_j]);
        if (blockDim.y > 1) {{  // the same for the whole block: its barriers are safe
            #pragma unroll
            for (int pr_j = 0; pr_j < {kv}; ++pr_j)
                pr_smem[pr_slot + pr_j] = pr_acc[pr_j];
            __syncthreads();
            for (int pr_s = 1; pr_s < (int)blockDim.y; pr_s *= 2) {{  // a tree, for accuracy
                if ((threadIdx.y & (2 * pr_s - 1)) == 0 && threadIdx.y + pr_s < blockDim.y) {{
                    #pragma unroll
                    for (int pr_j = 0; pr_j < {kv}; ++pr_j)
                        pr_smem[pr_slot + pr_j] = pr_op(
                            pr_smem[pr_slot + pr_j],
                            pr_smem[pr_slot + pr_s * blockDim.x * {kv} + pr_j]);
                }}
                __syncthreads();
            }}
            #pragma unroll
            for (int pr_j = 0; pr_j < {kv}; ++pr_j)
                pr_acc[pr_j] = pr_smem[pr_slot + pr_j];
            __syncthreads();  // pr_smem is reused by the next outputs
        }}
        if (pr_live && threadIdx.y == 0) {{
            #pragma unroll
            for (int pr_j = 0; pr_j < {kv}; ++pr_j) {{
                const acc_t pr_a = pr_acc[pr_j];
                char *pr_dst = pr_out + pr_ko + pr_j * ko{kept - 1} + pr_chunk * pr_cstride;
                if (pr_last)
                    *(res_t *)pr_dst = pr_final(pr_a, pr_div);
                else
                    *(acc_t *)pr_dst = pr_a;
            }}
        }}
    }}
}}
"""


def _block_scalar_loop(red: int, first: bool) -> str:
    """Steps of GROUP loads a block's width apart; a whole step in range loads unguarded (so
    every load is issued before the first is used)."""
    one = f"""{{
                    const long long r = pr_r + (long long)pr_u * blockDim.x;
                    {_split("r", "rd", [("pr_ri", "rs")], red)}
                    pr_v[pr_u] = {_load(first)};
                }}"""
    load = f"pr_v[pr_u] = {_load(first)};"
    guarded = one.replace(load, f"pr_v[pr_u] = r < pr_r1 ? {_load(first)} : pr_neutral();")
    return f"""
        for (long long pr_r = pr_r0 + threadIdx.x; pr_r < pr_r1;
             pr_r += (long long)blockDim.x * {GROUP}) {{
            acc_t pr_v[{GROUP}];
            if (pr_r + (long long)({GROUP} - 1) * blockDim.x < pr_r1) {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {one}
            }} else {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {guarded}
            }}
            PR_STEP(pr_v);
        }}"""


def _block_vector_loop(vec: int) -> str:
    """The first pass over one contiguous row in 16-byte loads of ``vec`` elements (the row
    start and the chunk start aligned to 16 bytes), then the last elements one by one. A whole
    step in range issues its GROUP loads unguarded, before using any."""
    return f"""
        typedef pc_pack<in_t, {vec}> pr_pack_t;
        const pr_pack_t *pr_packs = reinterpret_cast<const pr_pack_t *>(pr_row);
        const long long pr_c1 = pr_r1 / {vec};
        for (long long pr_c = pr_r0 / {vec} + threadIdx.x; pr_c < pr_c1;
             pr_c += (long long)blockDim.x * {GROUP}) {{
            pr_pack_t pr_p[{GROUP}];
            const pr_pack_t *pr_q = pr_packs + pr_c;
            const bool pr_full = pr_c + (long long)({GROUP} - 1) * blockDim.x < pr_c1;
            if (pr_full) {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u, pr_q += blockDim.x)
                    pr_p[pr_u] = *pr_q;
            }} else {{
                #pragma unroll
                for (int pr_u = 0; pr_u < {GROUP}; ++pr_u, pr_q += blockDim.x)
                    if (pr_c + (long long)pr_u * blockDim.x < pr_c1)
                        pr_p[pr_u] = *pr_q;
            }}
            acc_t pr_v[{GROUP}];
            #pragma unroll
            for (int pr_u = 0; pr_u < {GROUP}; ++pr_u) {{
                const long long c = pr_c + (long long)pr_u * blockDim.x;
                if (pr_full || c < pr_c1) {{
                    acc_t pr_w[{vec}];
                    #pragma unroll
                    for (int pr_j = 0; pr_j < {vec}; ++pr_j)
                        pr_w[pr_j] = pr_map(pr_p[pr_u].v[pr_j], c * {vec} + pr_j, pr_aux, o);
                    pr_tree(pr_w);
                    pr_v[pr_u] = pr_w[0];
                }} else {{
                    pr_v[pr_u] = pr_neutral();
                }}
            }}
            PR_STEP(pr_v);
        }}
        for (long long r = pr_c1 * {vec} + threadIdx.x; r < pr_r1; r += blockDim.x)
            pr_acc = pr_op(pr_acc, pr_map(*(const in_t *)(pr_row + r * rs0), r, pr_aux, o));"""


def _block_kernel(name: str, kept: int, red: int, first: bool, vec: int = 0, minb: int = 4) -> str:
    """A group of blockDim.x threads (a multiple of 32, or a block of one warp or less) per
    output, blockDim.y outputs per block; warp shuffles, then shared memory when a group has
    several warps."""
    loop = _block_vector_loop(vec) if vec else _block_scalar_loop(red, first)
    return f"""
extern "C" __global__ void __launch_bounds__({BLOCK}, {minb}) {name}({_params(kept, red)})
{{
    __shared__ __align__(16) unsigned char pr_raw[{_MAX_WARPS} * sizeof(acc_t)];
    acc_t *pr_smem = reinterpret_cast<acc_t *>(pr_raw);
    const long long pr_chunk = blockIdx.y;
    const long long pr_lo = pr_chunk * pr_clen;
    const long long pr_hi = pr_lo + pr_clen < pr_nred ? pr_lo + pr_clen : pr_nred;
    const int pr_tid = threadIdx.y * blockDim.x + threadIdx.x;
    const int pr_lane = pr_tid & 31, pr_warp = pr_tid >> 5;
    const int pr_gwarps = (blockDim.x + 31) >> 5;  // warps per output
    for (long long pr_ob = (long long)blockIdx.x * blockDim.y; pr_ob < pr_nout;
         pr_ob += (long long)gridDim.x * blockDim.y) {{
        const bool pr_live = pr_ob + threadIdx.y < pr_nout;
        const long long o = pr_live ? pr_ob + threadIdx.y : 0;
        const long long pr_r0 = pr_lo, pr_r1 = pr_live ? pr_hi : pr_lo;
        {_split("o", "kd", [("pr_ki", "ks"), ("pr_ko", "ko")], kept)}
        const char *pr_row = pr_in + pr_ki;
        PR_BEGIN;{loop}
        PR_END;
        #pragma unroll
        for (int pr_off = 16; pr_off > 0; pr_off >>= 1)
            pr_acc = pr_op(pr_acc, pycuda_shfl_down(pr_acc, pr_off));
        if (pr_gwarps > 1) {{  // the same for the whole block: its barriers are safe
            if (pr_lane == 0)
                pr_smem[pr_warp] = pr_acc;
            __syncthreads();
            if (threadIdx.x == 0)
                for (int pr_k = 1; pr_k < pr_gwarps; ++pr_k)
                    pr_acc = pr_op(pr_acc, pr_smem[pr_warp + pr_k]);
            __syncthreads();  // pr_smem is reused by the next outputs
        }}
        if (threadIdx.x == 0 && pr_live) {{{_WRITE}
        }}
    }}
}}
"""


def _head(op: ReduceOp) -> str:
    return f"""{_ARRAY_HELPERS}
{_REDUCTION_HELPERS}
// a / d of mean/var (d a count), component-wise for complex values.
template <class T>
__device__ __forceinline__ T pr_div_by(T a, double d) {{ return a / (T)d; }}
template <class T>
__device__ __forceinline__ pycuda::complex<T> pr_div_by(pycuda::complex<T> a, double d) {{
    return pycuda::complex<T>(a.real() / (T)d, a.imag() / (T)d);
}}
// |x - m|^2 of var/std, real for complex values.
template <class T>
__device__ __forceinline__ T pr_sqdev(T x, T m) {{ return (x - m) * (x - m); }}
template <class T>
__device__ __forceinline__ T pr_sqdev(pycuda::complex<T> x, pycuda::complex<T> m) {{
    const T re = x.real() - m.real(), im = x.imag() - m.imag();
    return re * re + im * im;
}}
typedef {op.in_ctype} in_t;
typedef {op.acc_ctype} acc_t;
typedef {op.res_ctype} res_t;
typedef {op.aux_ctype} aux_t;
__device__ __forceinline__ acc_t pr_neutral() {{ return acc_t({op.neutral}); }}
__device__ __forceinline__ acc_t pr_op(acc_t a, acc_t b) {{ return acc_t({op.reduce}); }}
__device__ __forceinline__ acc_t pr_map(const in_t &x, long long r, const aux_t *pr_aux,
                                        long long o) {{
    (void)r; (void)pr_aux; (void)o;
    return acc_t({op.map});
}}
__device__ __forceinline__ res_t pr_final(const acc_t &a, double d) {{
    (void)d;
    return {op.final};
}}
template <int N>
__device__ __forceinline__ void pr_tree(acc_t (&v)[N]) {{
    #pragma unroll
    for (int s = 1; s < N; s *= 2)
        #pragma unroll
        for (int k = 0; k + s < N; k += 2 * s)
            v[k] = pr_op(v[k], v[k + s]);
}}
#define PR_BEGIN \\
    acc_t pr_acc = pr_neutral(), pr_outer = pr_neutral(); \\
    int pr_count = 0
#define PR_STEP(v) \\
    do {{ \\
        _Pragma("unroll") for (int pr_s = 1; pr_s < {GROUP}; pr_s *= 2) \\
            _Pragma("unroll") for (int pr_k = 0; pr_k + pr_s < {GROUP}; pr_k += 2 * pr_s) \\
                v[pr_k] = pr_op(v[pr_k], v[pr_k + pr_s]); \\
        pr_acc = pr_op(pr_acc, v[0]); \\
        if (++pr_count == {_FOLD_EVERY}) {{ \\
            pr_outer = pr_op(pr_outer, pr_acc); \\
            pr_acc = pr_neutral(); \\
            pr_count = 0; \\
        }} \\
    }} while (0)
#define PR_END pr_acc = pr_op(pr_outer, pr_acc)
"""


def vector_width(in_itemsize: int, red: int) -> int:
    """Elements per load (of 16 bytes, 8 for bytes: each element's accumulator takes registers)
    of the vector first pass (0: the module has none): only over one reduced dimension, of
    elements of 1, 2, 4 or 8 bytes."""
    return min(8, 16 // in_itemsize) if red == 1 and in_itemsize in (1, 2, 4, 8) else 0


def thread_vector_width(in_itemsize: int) -> int:
    """Neighbouring outputs per thread of the vector thread-kind first pass (0: none): at
    most 4 (each holds accumulators) and 16 bytes of elements of 1, 2, 4 or 8 bytes."""
    return min(4, 16 // in_itemsize) if in_itemsize in (1, 2, 4, 8) else 0


def kernel_names(name: str, vec: int = 0) -> dict[tuple[str, bool], str]:
    """{(kind, first pass): kernel name} of a module; kinds "block_vec" and "thread_vec" too
    when ``vec``."""
    names = {
        (kind, first): f"{name}_{kind}{'' if first else '_part'}"
        for kind in ("thread", "block")
        for first in (True, False)
    }
    if vec:
        names[("block_vec", True)] = f"{name}_block_vec"
        names[("thread_vec", True)] = f"{name}_thread_vec"
    return names


def reduction_source(name: str, op: ReduceOp, kept: int, red: int, vec: int = 0) -> str:
    """The module of ``op`` over ``kept`` and ``red`` merged dimensions (partial passes: 1),
    with the vector first passes when ``vec`` (block kind: ``vec`` elements per load, over one
    reduced dimension; thread kind: ``thread_vector_width`` outputs per thread)."""
    parts = [_head(op)]
    minb = min_blocks(op)
    for (kind, first), kname in kernel_names(name).items():
        if kind == "thread":
            parts.append(_thread_kernel(kname, kept, red if first else 1, first, 1, minb))
        else:
            parts.append(_block_kernel(kname, kept, red if first else 1, first, 0, minb))
    if vec:
        parts.append(_block_kernel(f"{name}_block_vec", kept, 1, True, vec, minb))
        kv = min(4, vec)  # thread_vector_width of the same elements
        threads = vector_threads(op)
        parts.append(_thread_kernel(f"{name}_thread_vec", kept, red, True, kv, minb, threads))
    return "\n".join(parts)
