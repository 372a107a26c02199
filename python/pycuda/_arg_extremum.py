"""The argmax/argmin kernels behind ``gpuarray.argmax`` and ``argmin``: the flat index (int64) of
the first largest (smallest) element, or of the first NaN if there is one, as numpy's.

Two launches. Stage 1: a grid of at most one resident wave; each thread walks its elements in
increasing index order (a grid-stride loop of 16-byte loads, ``UNROLL`` of them issued together)
keeping a plain value and index, replaced only by a strictly better value or a first NaN, so the
first extremum wins without comparing indices; then the block combines its threads' pairs
(value, then the lower index on a tie) and writes one pair. Stage 2: one block combines the
pairs and writes the index. Values compare in their compute dtype (``pycuda._dtypes``: float16
and bfloat16 in float32, exactly).

    from pycuda.reduction import get_argminmax_kernel
    index = get_argminmax_kernel("max", numpy.float32)(a_gpu).get()
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _array_core as core
from pycuda import _dtypes, compiler
from pycuda._launch_config import THREADS_PER_BLOCK, one_wave, resident_blocks
from pycuda._reduction_parts import REDUCTION_HELPERS, minmax_neutral

STAGE2_BLOCK = 1024
UNROLL = 2  # 16-byte loads in flight per thread and trip

_HELPERS = r"""
#ifndef PYCUDA_ARG_EXTREMUM_HELPERS
#define PYCUDA_ARG_EXTREMUM_HELPERS
template <class K>
struct pycuda_arg_best {
    K v;
    long long i;
};
#endif
"""


def _stage1(name: str, ctype: str, neutral: str, vw: int, block: int, unroll: int) -> str:
    """Stage 1 reading ``vw`` elements per load (``pr_chunk<vw>``)."""
    loads = "\n".join(
        f"            pr_upd(pr_bv, pr_bi, pr_c[u].v[{e}], {vw} * (pr_j + u * pr_total) + {e});"
        for e in range(vw)
    )
    stage1 = f"""
extern "C" __global__ void __launch_bounds__({block})
{name}_stage1{"_vec" if vw > 1 else ""}(pr_pair *pr_out, const {ctype} *in, long long n)
{{
    const long long pr_tid = (long long)blockIdx.x * {block} + threadIdx.x;
    const long long pr_total = (long long)gridDim.x * {block};
    const long long pr_nv = n / {vw};
    pr_key pr_bv = {neutral};
    long long pr_bi = 0x7fffffffffffffffLL;  // no element: loses every tie
    // The thread's first element seeds the pair (a run of extreme values keeps its index).
    if (pr_tid < pr_nv) {{
        pr_bv = pr_key(in[{vw} * pr_tid]);
        pr_bi = {vw} * pr_tid;
    }} else if (pr_nv * {vw} + pr_tid < n) {{
        pr_bv = pr_key(in[pr_nv * {vw} + pr_tid]);
        pr_bi = pr_nv * {vw} + pr_tid;
    }}
    const pr_chunk{vw} *pr_in = reinterpret_cast<const pr_chunk{vw} *>(in);
    long long pr_j = pr_tid;
    for (; pr_j + {unroll - 1} * pr_total < pr_nv; pr_j += {unroll} * pr_total) {{
        pr_chunk{vw} pr_c[{unroll}];
        #pragma unroll
        for (int u = 0; u < {unroll}; ++u)
            pr_c[u] = pr_in[pr_j + u * pr_total];
        #pragma unroll
        for (int u = 0; u < {unroll}; ++u) {{
{loads}
        }}
    }}
    for (; pr_j < pr_nv; pr_j += pr_total) {{
        pr_chunk{vw} pr_c[1];
        pr_c[0] = pr_in[pr_j];
        const int u = 0;
{loads}
    }}
    for (long long e = pr_nv * {vw} + pr_tid; e < n; e += pr_total)
        pr_upd(pr_bv, pr_bi, in[e], e);
    pr_block<{block}>(pr_bv, pr_bi);
    if (threadIdx.x == 0) {{
        pr_pair pr_p;
        pr_p.v = pr_bv;
        pr_p.i = pr_bi;
        pr_out[blockIdx.x] = pr_p;
    }}
}}
"""
    return stage1


def _common(ctype: str, neutral: str, is_max: bool) -> str:
    better = ">" if is_max else "<"
    worse_or_equal = "<=" if is_max else ">="
    return f"""
// b replaces a when b is a NaN and a is not, when b is strictly better, or on a tie when b's
// index is lower; of two NaNs the lower index wins.
__device__ __forceinline__ void pr_comb(pr_key &av, long long &ai, pr_key bv, long long bi) {{
    const bool an = av != av, bn = bv != bv;
    const bool take = (an || bn) ? (bn && (!an || bi < ai))
                                 : (bv {better} av || (bv == av && bi < ai));
    if (take) {{
        av = bv;
        ai = bi;
    }}
}}
// Within a thread indices only grow: a strictly better value, or a first NaN, replaces.
__device__ __forceinline__ void pr_upd(pr_key &bv, long long &bi, {ctype} x, long long i) {{
    const pr_key v = pr_key(x);
    if (!(v {worse_or_equal} bv) && bv == bv) {{
        bv = v;
        bi = i;
    }}
}}
template <int B>
__device__ __forceinline__ void pr_block(pr_key &bv, long long &bi) {{
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1)
        pr_comb(bv, bi, pycuda_shfl_down(bv, d), __shfl_down_sync(0xffffffffu, bi, d));
    __shared__ __align__(8) unsigned char pr_raw[B / 32 * sizeof(pr_key)];
    __shared__ long long pr_si[B / 32];
    pr_key *pr_sv = reinterpret_cast<pr_key *>(pr_raw);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {{
        pr_sv[warp] = bv;
        pr_si[warp] = bi;
    }}
    __syncthreads();
    if (warp == 0) {{
        bv = lane < B / 32 ? pr_sv[lane] : pr_key({neutral});
        bi = lane < B / 32 ? pr_si[lane] : 0x7fffffffffffffffLL;
        #pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            pr_comb(bv, bi, pycuda_shfl_down(bv, d), __shfl_down_sync(0xffffffffu, bi, d));
    }}
}}
"""


def source(
    what: str, dtype: Any, name: str, block: int = THREADS_PER_BLOCK, unroll: int = UNROLL
) -> str:
    """The CUDA source of ``name``_stage1, _stage1_vec (16-byte loads) and _stage2."""
    dtype = np.dtype(dtype)
    neutral = minmax_neutral(what, dtype)  # refuses complex values
    row = _dtypes.info(dtype)
    ctype, key_ctype = row.c_name, row.compute_c_name
    includes = _dtypes.includes([dtype], first=("pycuda-complex.hpp",))
    vw = 16 // dtype.itemsize
    return f"""{includes}{REDUCTION_HELPERS}{_HELPERS}
typedef {key_ctype} pr_key;
typedef pycuda_arg_best<pr_key> pr_pair;
struct __align__(16) pr_chunk{vw} {{ {ctype} v[{vw}]; }};
struct pr_chunk1 {{ {ctype} v[1]; }};
{_common(ctype, neutral, what == "max")}
{_stage1(name, ctype, neutral, vw, block, unroll)}
{_stage1(name, ctype, neutral, 1, block, unroll)}
extern "C" __global__ void __launch_bounds__({STAGE2_BLOCK})
{name}_stage2(long long *pr_result, const pr_pair *pr_in, long long m)
{{
    pr_key pr_bv = {neutral};
    long long pr_bi = 0x7fffffffffffffffLL;
    for (long long k = threadIdx.x; k < m; k += {STAGE2_BLOCK})
        pr_comb(pr_bv, pr_bi, pr_in[k].v, pr_in[k].i);
    pr_block<{STAGE2_BLOCK}>(pr_bv, pr_bi);
    if (threadIdx.x == 0)
        *pr_result = pr_bi;
}}
"""


class ArgExtremumKernel:
    """``get_argminmax_kernel(what, dtype)``: call it on a contiguous array of ``dtype`` to get
    the index of its first maximum (``what="max"``) or minimum as a 0-d int64 GPUArray."""

    def __init__(self, what: str, dtype: Any, name: str | None = None) -> None:
        if what not in ("max", "min"):
            raise ValueError(f"what must be 'max' or 'min', got {what!r}")
        self.what = what
        self.dtype = np.dtype(dtype)
        name = name or f"arg{what}_kernel"
        self.block, self.unroll = THREADS_PER_BLOCK, UNROLL
        self.source = source(what, self.dtype, name, self.block, self.unroll)
        self.module = compiler.SourceModule(self.source, no_extern_c=True)
        self.stage1_func = self.module.get_function(f"{name}_stage1")
        self.stage1_vec_func = self.module.get_function(f"{name}_stage1_vec")
        self.stage2_func = self.module.get_function(f"{name}_stage2")
        for f in (self.stage1_func, self.stage1_vec_func):
            f.prepare("PPq")
        self.stage2_func.prepare("PPq")
        sms, per_sm = core.device_counts()
        fallback = one_wave(per_sm // self.block, sms)
        self._resident = {
            f: resident_blocks(f, self.block, sms, fallback)
            for f in (self.stage1_func, self.stage1_vec_func)
        }
        self._pair_bytes = 16  # pycuda_arg_best: a value of at most 8 bytes and an index

    def __call__(self, a: Any, stream: Any = None, allocator: Any = None, out: Any = None) -> Any:
        """The index of the first extremum of ``a`` (non-empty) as a 0-d int64 GPUArray."""
        if not hasattr(a, "gpudata") or not hasattr(a, "dtype"):
            raise TypeError(f"a must be a GPUArray, got {type(a).__name__}")
        if a.dtype != self.dtype:
            raise TypeError(f"a has dtype {a.dtype}; this kernel was built for {self.dtype}")
        n = int(a.size)
        if n == 0:
            raise ValueError(f"attempt to get arg{self.what} of an empty sequence")
        if not a.flags.c_contiguous:
            raise ValueError(
                "argument 'a' is not contiguous: reductions read arrays as flat memory; pass a "
                "contiguous copy (ary.copy())"
            )
        if allocator is None:
            allocator = getattr(a, "allocator", None)
        if out is None:
            out = core.new_result(a, (), np.dtype(np.int64), allocator=allocator)
        elif out.dtype != np.int64 or out.size != 1:
            raise TypeError(f"out must be a GPUArray of one int64, got {out.size} of {out.dtype}")
        ptr = int(a.gpudata)
        func = self.stage1_vec_func if ptr % 16 == 0 else self.stage1_func
        per_block = self.block * (16 // self.dtype.itemsize if func is self.stage1_vec_func else 1)
        blocks = max(1, min(-(-n // per_block), self._resident[func]))
        # Without an allocator, from the context's pool as the result (not a cuMemFree per call).
        partials = (allocator or core.context_allocator())(blocks * self._pair_bytes)
        core.launch(func, (blocks, 1), (self.block, 1, 1), stream, [partials, ptr, n])
        core.launch(self.stage2_func, (1, 1), (STAGE2_BLOCK, 1, 1), stream,
                [out.gpudata, partials, blocks])  # fmt: skip
        return out


__all__ = ["ArgExtremumKernel", "source"]
