"""Prefix scans (cumulative sums, maxima, ... of any associative operator): ``InclusiveScanKernel``
and ``ExclusiveScanKernel``.

One launch, one read and one write of each element: a single-pass scan with decoupled
look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
NVIDIA 2016). Each block takes the next tile (4096 elements of 4 bytes) from an atomic counter,
so tiles start in order; it loads its tile with 16-byte loads, scans it (serially within each
thread, then with warp shuffles across threads), publishes the tile's aggregate, and walks back
over the tiles before it, adding their aggregates until it meets one that has published its
inclusive prefix. Values are published before their flag with a ``__threadfence`` between, and
read through L2 (``__ldcg``), so no block ever reads a stale value. The flags and the tile
counter are zeroed by one memset before each launch.

The operator (``scan_expr`` in ``a`` and ``b``, ``a`` the earlier value) need only be
associative: the order of operands is kept everywhere, so non-commutative operators work.

    from pycuda.scan import InclusiveScanKernel
    cumsum = InclusiveScanKernel(numpy.int32, "a+b")
    cumsum(a_gpu)          # in place, as the original
    b_gpu = cumsum(a_gpu, output_ary="new")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from pycuda.tools import dtype_to_ctype

SCAN_BLOCK = 256
_MAX_GRID = 2**31 - 1

_HELPERS = r"""
#ifndef PYCUDA_SCAN_HELPERS
#define PYCUDA_SCAN_HELPERS
template <class T, bool Up>
__device__ __forceinline__ T pycuda_scan_shfl(const T &v, unsigned delta) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned w[W] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k)
        w[k] = Up ? __shfl_up_sync(0xffffffffu, w[k], delta)
                  : __shfl_sync(0xffffffffu, w[k], (int)delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
#endif
"""


def _items_per_thread(itemsize: int) -> int:
    """Elements each thread scans: 64 bytes of them (32 at most), a whole number of 16-byte
    loads when the element size is a power of two."""
    return max(1, min(32, 64 // itemsize))


def _source(ctype: str, itemsize: int, scan_expr: str, neutral: str | None, name: str,
            preamble: str, exclusive: bool) -> str:  # fmt: skip
    items = _items_per_thread(itemsize)
    vec_ok = itemsize & (itemsize - 1) == 0 and itemsize <= 16 and (items * itemsize) % 16 == 0
    chunks = items * itemsize // 16 if vec_ok else 0
    nw = SCAN_BLOCK // 32
    includes = "#include <cuda_fp16.h>\n" if "half" in ctype + preamble else ""
    includes += "#include <cuda_bf16.h>\n" if "bfloat16" in ctype + preamble else ""
    if exclusive:
        finish = f"""
        const scan_t pr_p = pr_pre.ok ? pr_pre.v : scan_t({neutral});
        #pragma unroll
        for (int k = {items} - 1; k > 0; --k)
            pr_x[k] = pycuda_scan_op(pr_p, pr_x[k - 1]);
        pr_x[0] = pr_p;"""
    else:
        finish = f"""
        if (pr_pre.ok) {{
            #pragma unroll
            for (int k = 0; k < {items}; ++k)
                pr_x[k] = pycuda_scan_op(pr_pre.v, pr_x[k]);
        }}"""
    vec_load = vec_store = ""
    if vec_ok:
        vec_load = f"""
    if (pr_vec && pr_valid == {items}) {{
        #pragma unroll
        for (int c = 0; c < {chunks}; ++c) {{
            const uint4 pr_c = reinterpret_cast<const uint4 *>(in + pr_start)[c];
            memcpy(&pr_x[c * {16 // itemsize}], &pr_c, 16);
        }}
    }} else"""
        vec_store = f"""
    if (pr_vec && pr_valid == {items}) {{
        #pragma unroll
        for (int c = 0; c < {chunks}; ++c) {{
            uint4 pr_c;
            memcpy(&pr_c, &pr_x[c * {16 // itemsize}], 16);
            reinterpret_cast<uint4 *>(out + pr_start)[c] = pr_c;
        }}
    }} else"""
    return f"""{includes}#include <pycuda-complex.hpp>
{_HELPERS}
{preamble}
typedef {ctype} scan_t;
// By value: user functions taking non-const references to a and b compile.
__device__ __forceinline__ scan_t pycuda_scan_op(scan_t a, scan_t b) {{
    return scan_t({scan_expr});
}}
// A value that may be absent (a thread past the end of the array holds none): no neutral
// element is needed for an inclusive scan.
struct pr_opt {{
    scan_t v;
    int ok;
}};
__device__ __forceinline__ pr_opt pr_combine(const pr_opt &a, const pr_opt &b) {{
    if (!a.ok)
        return b;
    if (!b.ok)
        return a;
    pr_opt r;
    r.v = pycuda_scan_op(a.v, b.v);
    r.ok = 1;
    return r;
}}
constexpr int PR_WORDS = (sizeof(scan_t) + 3) / 4;
__device__ __forceinline__ void pr_publish(unsigned *dst, const scan_t &v) {{
    unsigned w[PR_WORDS] = {{}};
    memcpy(w, &v, sizeof(scan_t));
    #pragma unroll
    for (int k = 0; k < PR_WORDS; ++k)
        __stcg(dst + k, w[k]);
}}
__device__ __forceinline__ scan_t pr_read(const unsigned *src) {{
    unsigned w[PR_WORDS];
    #pragma unroll
    for (int k = 0; k < PR_WORDS; ++k)
        w[k] = __ldcg(src + k);
    scan_t v;
    memcpy(&v, w, sizeof(scan_t));
    return v;
}}
// Warp-inclusive scan of optional values, operand order kept (earlier lanes on the left).
__device__ __forceinline__ pr_opt pr_warp_scan(pr_opt x, int lane) {{
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {{
        const pr_opt other = pycuda_scan_shfl<pr_opt, true>(x, d);
        if (lane >= d)
            x = pr_combine(other, x);
    }}
    return x;
}}

extern "C" __global__ void __launch_bounds__({SCAN_BLOCK})
{name}(const scan_t *in, scan_t *out, int *status, unsigned *aggregates,
       unsigned *inclusives, long long n, int num_tiles, int pr_vec)
{{
    __shared__ int pr_tile_s;
    __shared__ __align__(16) unsigned char pr_wraw[{nw} * sizeof(pr_opt)];
    __shared__ __align__(16) unsigned char pr_praw[sizeof(pr_opt)];
    pr_opt *pr_wincl = reinterpret_cast<pr_opt *>(pr_wraw);
    pr_opt *pr_tile_prefix = reinterpret_cast<pr_opt *>(pr_praw);
    volatile int *pr_flags = status;
    if (threadIdx.x == 0)
        pr_tile_s = atomicAdd(status + num_tiles, 1);  // tiles start in order: no deadlock
    __syncthreads();
    const int tile = pr_tile_s;
    const long long pr_start =
        (long long)tile * {SCAN_BLOCK * items} + (long long)threadIdx.x * {items};
    const long long pr_left = n - pr_start;
    const int pr_valid = pr_left <= 0 ? 0 : (pr_left >= {items} ? {items} : (int)pr_left);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

    scan_t pr_x[{items}];
    {vec_load}
    {{
        #pragma unroll
        for (int k = 0; k < {items}; ++k)
            if (k < pr_valid)
                pr_x[k] = in[pr_start + k];
    }}
    // Serial scan within the thread; its total is the last valid element.
    pr_opt pr_mine;
    pr_mine.ok = pr_valid > 0;
    pr_mine.v = pr_x[0];
    #pragma unroll
    for (int k = 1; k < {items}; ++k)
        if (k < pr_valid) {{
            pr_x[k] = pycuda_scan_op(pr_x[k - 1], pr_x[k]);
            pr_mine.v = pr_x[k];
        }}
    // Across the block: warps, then the warps' totals in warp 0.
    const pr_opt pr_incl = pr_warp_scan(pr_mine, lane);
    pr_opt pr_excl = pycuda_scan_shfl<pr_opt, true>(pr_incl, 1);
    if (lane == 0)
        pr_excl.ok = 0;
    if (lane == 31)
        pr_wincl[warp] = pr_incl;
    __syncthreads();
    if (warp == 0) {{
        pr_opt t;
        t.ok = 0;
        if (lane < {nw})
            t = pr_wincl[lane];
        t = pr_warp_scan(t, lane);
        if (lane < {nw})
            pr_wincl[lane] = t;
    }}
    __syncthreads();
    // Decoupled look-back by warp 0, 32 predecessors at a time (lane k looks at tile base - k).
    // Flags: 1 = the tile's aggregate is published, 2 = its inclusive prefix is.
    if (warp == 0) {{
        const scan_t pr_agg = pr_wincl[{nw} - 1].v;
        pr_opt pr_run;
        pr_run.ok = 0;
        if (tile == 0) {{
            if (lane == 0) {{
                pr_publish(inclusives, pr_agg);
                __threadfence();
                pr_flags[0] = 2;
            }}
        }} else {{
            if (lane == 0) {{
                pr_publish(aggregates + (long long)tile * PR_WORDS, pr_agg);
                __threadfence();
                pr_flags[tile] = 1;
            }}
            for (int base = tile - 1;; base -= 32) {{
                const int j = base - lane;
                int f;
                do {{  // tiles before 0 read as inclusive; tile 0 always stops the walk first
                    f = j >= 0 ? pr_flags[j] : 2;
                }} while (__any_sync(0xffffffffu, f == 0));
                __threadfence();
                const unsigned incl = __ballot_sync(0xffffffffu, f == 2);
                const int stop = incl ? __ffs(incl) - 1 : 31;  // nearest inclusive, or all
                pr_opt x;
                x.ok = lane <= stop && j >= 0;
                if (x.ok)
                    x.v = pr_read((f == 2 ? inclusives : aggregates) + (long long)j * PR_WORDS);
                // Higher lanes hold earlier tiles: combine (lane + d) before lane.
                #pragma unroll
                for (int d = 1; d < 32; d <<= 1) {{
                    const pr_opt other = pycuda_scan_shfl<pr_opt, false>(x, lane + d);
                    if (lane + d < 32)
                        x = pr_combine(other, x);
                }}
                x = pycuda_scan_shfl<pr_opt, false>(x, 0);
                pr_run = pr_combine(x, pr_run);
                if (incl)
                    break;
            }}
            if (lane == 0) {{
                pr_publish(inclusives + (long long)tile * PR_WORDS,
                           pycuda_scan_op(pr_run.v, pr_agg));
                __threadfence();
                pr_flags[tile] = 2;
            }}
        }}
        if (lane == 0)
            *pr_tile_prefix = pr_run;
    }}
    __syncthreads();
    pr_opt pr_pre = *pr_tile_prefix;
    if (warp > 0)
        pr_pre = pr_combine(pr_pre, pr_wincl[warp - 1]);
    pr_pre = pr_combine(pr_pre, pr_excl);
    {{{finish}
    }}
    {vec_store}
    {{
        #pragma unroll
        for (int k = 0; k < {items}; ++k)
            if (k < pr_valid)
                out[pr_start + k] = pr_x[k];
    }}
}}
"""


class _ScanKernel:
    """A compiled scan; see InclusiveScanKernel and ExclusiveScanKernel."""

    exclusive = False

    def __init__(
        self,
        dtype: Any,
        scan_expr: str,
        neutral: Any = None,
        name_prefix: str = "scan",
        options: Sequence[str] | None = None,
        preamble: str = "",
        devices: Any = None,  # accepted for compatibility; kernels load into the current context
    ) -> None:
        from pycuda.compiler import SourceModule

        self.dtype = np.dtype(dtype)
        if self.exclusive and neutral is None:
            raise ValueError("ExclusiveScanKernel needs a neutral element (neutral='0' for sums)")
        self.scan_expr = scan_expr
        self.neutral = neutral
        name = f"{name_prefix}_{'exclusive' if self.exclusive else 'inclusive'}"
        self.items = _items_per_thread(self.dtype.itemsize)
        self.tile = SCAN_BLOCK * self.items
        self.words = (self.dtype.itemsize + 3) // 4
        self.source = _source(
            dtype_to_ctype(self.dtype), self.dtype.itemsize, scan_expr,
            None if neutral is None else str(neutral), name, preamble, self.exclusive,
        )  # fmt: skip
        self.module = SourceModule(self.source, options=options, no_extern_c=True)
        self.func = self.module.get_function(name)
        self.func.prepare("PPPPPqii")

    def __call__(
        self, input_ary: Any, output_ary: Any = None, allocator: Any = None, stream: Any = None
    ) -> Any:
        """Scan ``input_ary`` into ``output_ary`` (default: in place; "new": a new array)."""
        from pycuda import driver, gpuarray

        self._check(input_ary, "input_ary")
        if allocator is None:
            allocator = getattr(input_ary, "allocator", None) or driver.mem_alloc
        if output_ary is None:
            output_ary = input_ary
        elif isinstance(output_ary, str):
            if output_ary != "new":
                raise ValueError(
                    f"output_ary must be a GPUArray, None or 'new', not {output_ary!r}"
                )
            output_ary = gpuarray.empty(input_ary.shape, self.dtype, allocator=allocator)
        else:
            self._check(output_ary, "output_ary")
            if output_ary.size != input_ary.size:
                raise ValueError(
                    f"output_ary has {output_ary.size} elements, input_ary {input_ary.size}"
                )
        n = int(input_ary.size)
        if n == 0:
            return output_ary
        tiles = -(-n // self.tile)
        if tiles > _MAX_GRID:
            raise ValueError(f"array of {n} elements is too large to scan in one launch")
        status_bytes = -(-(tiles + 1) * 4 // 16) * 16
        values_bytes = tiles * self.words * 4
        scratch = allocator(status_bytes + 2 * values_bytes)
        base = int(scratch)
        in_ptr, out_ptr = int(input_ary.gpudata), int(output_ary.gpudata)
        vec = int(in_ptr % 16 == 0 and out_ptr % 16 == 0)
        driver.memset_d32_async(base, 0, tiles + 1, stream)
        args = (in_ptr, out_ptr, base, base + status_bytes, base + status_bytes + values_bytes,
                n, tiles, vec)  # fmt: skip
        if stream is None:
            self.func.prepared_call((tiles, 1), (SCAN_BLOCK, 1, 1), *args)
        else:
            self.func.prepared_async_call((tiles, 1), (SCAN_BLOCK, 1, 1), stream, *args)
        self._scratch = scratch  # kept until the next call, so a pooled block is not reused early
        return output_ary

    def _check(self, ary: Any, what: str) -> None:
        if not hasattr(ary, "gpudata"):
            raise TypeError(f"{what} must be a GPUArray, got {type(ary).__name__}")
        if ary.dtype != self.dtype:
            raise TypeError(f"{what} has dtype {ary.dtype}; this scan was built for {self.dtype}")
        if ary.size and not ary.flags.c_contiguous:
            raise ValueError(
                f"{what} is not contiguous: scans need a contiguous 1-D array (pass a copy)"
            )


class InclusiveScanKernel(_ScanKernel):
    """``out[i] = in[0] op in[1] op ... op in[i]`` for an associative ``scan_expr`` in ``a``, ``b``.

    cumsum = InclusiveScanKernel(numpy.int32, "a+b")
    cumsum(a_gpu)  # in place
    """

    exclusive = False


class ExclusiveScanKernel(_ScanKernel):
    """``out[0] = neutral``, ``out[i] = in[0] op ... op in[i-1]``; ``neutral`` is required.

    offsets = ExclusiveScanKernel(numpy.int64, "a+b", neutral="0")
    offsets(counts_gpu, output_ary="new")
    """

    exclusive = True


__all__ = ["ExclusiveScanKernel", "InclusiveScanKernel"]
