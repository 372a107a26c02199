"""Prefix scans (cumulative sums, maxima, ... of any associative operator): ``InclusiveScanKernel``
and ``ExclusiveScanKernel``.

One launch, one read and one write of each element: a single-pass scan with decoupled
look-back (Merrill and Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back",
NVIDIA 2016). Block b scans tile b (128 threads x 256 bytes). Each warp loads its part of the
tile with coalesced 16-byte loads and transposes it through shared memory so that every thread
holds consecutive elements; each thread reduces its elements, the block combines the totals
with warp shuffles and publishes the tile's aggregate, and warp 0 walks back over the tiles
before it, 32 at a time, combining their aggregates until it meets one that has published its
inclusive prefix, while the other warps scan their elements. For values of up to 4 bytes a
tile's flag and value are one 64-bit word, stored and loaded whole, so no fence is needed;
larger values are published before their flag with a ``__threadfence`` between and read through
L2 (``__ldcg``). The tile status is zeroed by one memset per launch.

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

from pycuda import _array_core as core
from pycuda import _dtypes, compiler, driver
from pycuda._arg_checks import check_array_dtype
from pycuda._cluda import CLUDA_PREAMBLE  # noqa: F401 - the original's scan module offers it
from pycuda._scan_templates import (
    EXCLUSIVE_UPDATE_SOURCE,
    INCLUSIVE_UPDATE_SOURCE,
    SCAN_INTERVALS_SOURCE,
    SHARED_PREAMBLE,
)
from pycuda.tools import dtype_to_ctype

# Measured on an H200 (int32, 2^26 elements; tuned with benchmarks/_kernel_sweep.py): tiles of
# 128 threads x 256 bytes scanned at 74% of the copy bandwidth; 128 x 128 bytes at 69%, 256 x 64
# bytes at 60%. More elements per thread means fewer tiles and fewer look-backs.
SCAN_BLOCK = 128
_THREAD_BYTES = 256  # bytes of elements each thread scans
_MAX_GRID = 2**31 - 1

_HELPERS = r"""
#ifndef PYCUDA_SCAN_HELPERS
#define PYCUDA_SCAN_HELPERS
// Any trivially copyable value through a warp shuffle, in 32-bit words.
// Kind 0: from lane - delta (up), 1: from lane + delta (down), 2: from lane delta.
template <class T, int Kind>
__device__ __forceinline__ T pycuda_scan_shfl(const T &v, unsigned delta) {
    constexpr int W = (sizeof(T) + 3) / 4;
    unsigned w[W] = {};
    memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < W; ++k)
        w[k] = Kind == 0   ? __shfl_up_sync(0xffffffffu, w[k], delta)
               : Kind == 1 ? __shfl_down_sync(0xffffffffu, w[k], delta)
                           : __shfl_sync(0xffffffffu, w[k], (int)delta);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
__device__ __forceinline__ void pycuda_scan_st_relaxed(unsigned long long *p,
                                                       unsigned long long w) {
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
__device__ __forceinline__ unsigned long long pycuda_scan_ld_relaxed(
    const unsigned long long *p) {
    unsigned long long w;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
    return w;
}
#endif
"""

# Tile status, values of at most 4 bytes: one 64-bit word per tile, flag << 32 | value, stored
# and loaded whole (relaxed, gpu scope), so a flag is never seen without its value and no fence
# is needed. Flags: 0 nothing yet, 1 the tile's aggregate, 2 its inclusive prefix.
_STATUS_PACKED = r"""
__device__ __forceinline__ void pr_publish(int *, unsigned *status, unsigned *, int tile,
                                           int flag, const scan_t &v) {
    unsigned bits = 0;
    memcpy(&bits, &v, sizeof(scan_t));
    pycuda_scan_st_relaxed(reinterpret_cast<unsigned long long *>(status) + tile,
                           ((unsigned long long)flag << 32) | bits);
}
__device__ __forceinline__ int pr_peek(const int *, const unsigned *status, const unsigned *,
                                       int j, scan_t &v) {
    const unsigned long long w =
        pycuda_scan_ld_relaxed(reinterpret_cast<const unsigned long long *>(status) + j);
    const unsigned bits = (unsigned)w;
    memcpy(&v, &bits, sizeof(scan_t));
    return (int)(w >> 32);
}
"""

# Larger values: flags apart from the values, each value written before its flag with a
# __threadfence between, and read (through L2) after a fence that follows the flag's read.
_STATUS_FENCED = r"""
constexpr int PR_WORDS = (sizeof(scan_t) + 3) / 4;
__device__ __forceinline__ void pr_publish(int *flags, unsigned *aggregates, unsigned *inclusives,
                                           int tile, int flag, const scan_t &v) {
    unsigned w[PR_WORDS] = {};
    memcpy(w, &v, sizeof(scan_t));
    unsigned *dst = (flag == 2 ? inclusives : aggregates) + (long long)tile * PR_WORDS;
    #pragma unroll
    for (int k = 0; k < PR_WORDS; ++k)
        __stcg(dst + k, w[k]);
    __threadfence();
    *(volatile int *)(flags + tile) = flag;
}
__device__ __forceinline__ int pr_peek(const int *flags, const unsigned *aggregates,
                                       const unsigned *inclusives, int j, scan_t &v) {
    const int f = *(const volatile int *)(flags + j);
    if (f != 0) {
        __threadfence();
        const unsigned *src = (f == 2 ? inclusives : aggregates) + (long long)j * PR_WORDS;
        unsigned w[PR_WORDS];
        #pragma unroll
        for (int k = 0; k < PR_WORDS; ++k)
            w[k] = __ldcg(src + k);
        memcpy(&v, w, sizeof(scan_t));
    }
    return f;
}
"""


def _items_per_thread(itemsize: int) -> int:
    """Elements each thread scans: _THREAD_BYTES of them (64 at most), a whole number of
    16-byte loads when the element size is a power of two."""
    return max(1, min(64, _THREAD_BYTES // itemsize))


def _packed(itemsize: int) -> bool:
    return itemsize <= 4


def _vector_width(itemsize: int, items: int) -> int:
    """Elements per 16-byte load, or 0 where the tile cannot be moved in 16-byte pieces."""
    if itemsize & (itemsize - 1) or itemsize > 16 or (items * itemsize) % 16:
        return 0
    return 16 // itemsize


def _io_code(items: int, vw: int, nw: int) -> tuple[str, str, str]:
    """(shared declarations, fast load, fast store) of a whole tile with 16-byte accesses.

    Each warp moves its 32 * items elements as 16-byte lane-consecutive pieces (coalesced) and
    transposes them in shared memory to items consecutive elements a lane (16-byte loads of
    each lane's own elements measured 47% against 59% this way); one padding element every 32
    keeps the column reads of 4-byte elements free of bank conflicts.
    """
    seg = 33 * items
    smem = f"""
    __shared__ __align__(16) unsigned char pr_traw[{nw * seg} * sizeof(scan_t)];
    scan_t *pr_wbuf = reinterpret_cast<scan_t *>(pr_traw) + warp * {seg};"""
    load = f"""
        const scan_t *pr_win = in + pr_tile_base + (long long)warp * {32 * items};
        #pragma unroll
        for (int c = 0; c < {items // vw}; ++c) {{
            const uint4 pr_c = reinterpret_cast<const uint4 *>(pr_win)[c * 32 + lane];
            scan_t pr_t[{vw}];
            memcpy(pr_t, &pr_c, 16);
            #pragma unroll
            for (int e = 0; e < {vw}; ++e) {{
                const int pr_k = (c * 32 + lane) * {vw} + e;
                pr_wbuf[pr_k + (pr_k >> 5)] = pr_t[e];
            }}
        }}
        __syncwarp();
        #pragma unroll
        for (int k = 0; k < {items}; ++k) {{
            const int pr_k = lane * {items} + k;
            pr_x[k] = pr_wbuf[pr_k + (pr_k >> 5)];
        }}"""
    store = f"""
        scan_t *pr_wout = out + pr_tile_base + (long long)warp * {32 * items};
        __syncwarp();
        #pragma unroll
        for (int k = 0; k < {items}; ++k) {{
            const int pr_k = lane * {items} + k;
            pr_wbuf[pr_k + (pr_k >> 5)] = pr_x[k];
        }}
        __syncwarp();
        #pragma unroll
        for (int c = 0; c < {items // vw}; ++c) {{
            scan_t pr_t[{vw}];
            #pragma unroll
            for (int e = 0; e < {vw}; ++e) {{
                const int pr_k = (c * 32 + lane) * {vw} + e;
                pr_t[e] = pr_wbuf[pr_k + (pr_k >> 5)];
            }}
            uint4 pr_c;
            memcpy(&pr_c, pr_t, 16);
            reinterpret_cast<uint4 *>(pr_wout)[c * 32 + lane] = pr_c;
        }}"""
    return smem, load, store


def _serial_scan(items: int) -> str:
    return f"""
    #pragma unroll
    for (int k = 1; k < {items}; ++k)
        pr_x[k] = pycuda_scan_op(pr_x[k - 1], pr_x[k]);"""


def _thread_total(items: int) -> str:
    """Code leaving the thread's total in ``pr_incl``, by a tree of its elements: the tile's
    aggregate is published, and warp 0 looks back, before the threads' serial scans, which the
    other warps do meanwhile."""
    return f"""
    scan_t pr_r[{items}];
    #pragma unroll
    for (int k = 0; k < {items}; ++k)
        pr_r[k] = pr_x[k];
    #pragma unroll
    for (int st = 1; st < {items}; st <<= 1) {{
        #pragma unroll
        for (int k = 0; k + st < {items}; k += 2 * st)
            pr_r[k] = pycuda_scan_op(pr_r[k], pr_r[k + st]);
    }}
    scan_t pr_incl = pr_r[0];"""


def _finish_code(items: int, exclusive: bool, neutral: str | None) -> str:
    """Applies the thread's prefix (``pr_pre``, present when ``pr_has``) to its elements."""
    if exclusive:
        return f"""
    {{
        const scan_t pr_p = pr_has ? pr_pre : scan_t({neutral});
        #pragma unroll
        for (int k = {items} - 1; k > 0; --k)
            pr_x[k] = pr_has ? pycuda_scan_op(pr_pre, pr_x[k - 1]) : pr_x[k - 1];
        pr_x[0] = pr_p;
    }}"""
    return f"""
    if (pr_has) {{
        #pragma unroll
        for (int k = 0; k < {items}; ++k)
            pr_x[k] = pycuda_scan_op(pr_pre, pr_x[k]);
    }}"""


def _source(dtype: np.dtype, scan_expr: str, neutral: str | None, name: str, preamble: str,
            exclusive: bool) -> str:  # fmt: skip
    ctype, itemsize = dtype_to_ctype(dtype), dtype.itemsize
    items = _items_per_thread(itemsize)
    tile = SCAN_BLOCK * items
    nw = SCAN_BLOCK // 32
    vw = _vector_width(itemsize, items)
    smem, fast_load, fast_store = _io_code(items, vw, nw) if vw else ("", "", "")
    includes = _dtypes.includes([dtype], preamble, first=("pycuda-complex.hpp",))
    status = _STATUS_PACKED if _packed(itemsize) else _STATUS_FENCED
    fast = f"pr_vec && pr_tile_base + {tile} <= n" if vw else "false"
    return f"""{includes}{_HELPERS}
{preamble}
typedef {ctype} scan_t;
// By value: user functions taking non-const references to a and b compile.
__device__ __forceinline__ scan_t pycuda_scan_op(scan_t a, scan_t b) {{
    return scan_t({scan_expr});
}}
{status}
extern "C" __global__ void __launch_bounds__({SCAN_BLOCK})
{name}(const scan_t *in, scan_t *out, int *flags, unsigned *aggregates, unsigned *inclusives,
       long long n, int pr_vec)
{{
    __shared__ __align__(16) unsigned char pr_sraw[({nw} + 1) * sizeof(scan_t)];
    scan_t *pr_wsum = reinterpret_cast<scan_t *>(pr_sraw);  // then the tile's prefix
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;{smem}
    // The tile is the block's index, as in CUB's scans: this relies on the hardware starting
    // blocks in index order (so every tile looked back at has started), as it does; an atomic
    // tile counter measured 3% slower (its round trip comes before every load).
    const int tile = blockIdx.x;
    const long long pr_tile_base = (long long)tile * {tile};
    const long long pr_my = pr_tile_base + (long long)threadIdx.x * {items};
    scan_t pr_x[{items}];
    if ({fast}) {{{fast_load}
    }} else {{
        // Past the end: the last element again, a real value that only flows into positions
        // after it (never stored) and into the last tile's aggregate (never read).
        #pragma unroll
        for (int k = 0; k < {items}; ++k)
            pr_x[k] = in[pr_my + k < n ? pr_my + k : n - 1];
    }}
{_thread_total(items)}
    // Across the warp (operand order kept: earlier lanes on the left), then across warps.
    #pragma unroll
    for (int d = 1; d < 32; d <<= 1) {{
        const scan_t pr_o = pycuda_scan_shfl<scan_t, 0>(pr_incl, d);
        if (lane >= d)
            pr_incl = pycuda_scan_op(pr_o, pr_incl);
    }}
    const scan_t pr_lane_excl = pycuda_scan_shfl<scan_t, 0>(pr_incl, 1);
    if (lane == 31)
        pr_wsum[warp] = pr_incl;
    __syncthreads();
    if (warp == 0) {{
        scan_t pr_w = pr_wsum[lane < {nw} ? lane : {nw - 1}];
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {{
            const scan_t pr_o = pycuda_scan_shfl<scan_t, 0>(pr_w, d);
            if (lane >= d)
                pr_w = pycuda_scan_op(pr_o, pr_w);
        }}
        // The lanes past the last warp read pr_wsum[{nw - 1}] above, which lane {nw - 1}
        // overwrites now: shuffles do not order shared memory accesses (racecheck's hazard).
        __syncwarp();
        if (lane < {nw})
            pr_wsum[lane] = pr_w;
        const scan_t pr_agg = pycuda_scan_shfl<scan_t, 2>(pr_w, {nw - 1});
        // Decoupled look-back, 32 predecessors at a time (lane l looks at tile base - l).
        if (tile == 0) {{
            if (lane == 0)
                pr_publish(flags, aggregates, inclusives, 0, 2, pr_agg);
        }} else {{
            if (lane == 0)
                pr_publish(flags, aggregates, inclusives, tile, 1, pr_agg);
            scan_t pr_run = pr_agg;  // replaced by the first window's value
            for (int base = tile - 1;; base -= 32) {{
                const int j = base - lane;
                scan_t pr_v = pr_agg;
                int f;
                do {{  // tiles before 0 read as inclusive; tile 0 always stops the walk first
                    f = j >= 0 ? pr_peek(flags, aggregates, inclusives, j, pr_v) : 2;
                }} while (__any_sync(0xffffffffu, f == 0));
                const unsigned pr_found = __ballot_sync(0xffffffffu, f == 2);
                const int stop = pr_found ? __ffs(pr_found) - 1 : 31;  // nearest inclusive
                // Higher lanes hold earlier tiles: lane l folds lanes l+d.. in on its left.
                #pragma unroll
                for (int d = 1; d < 32; d <<= 1) {{
                    const scan_t pr_o = pycuda_scan_shfl<scan_t, 1>(pr_v, d);
                    if (lane + d <= stop)
                        pr_v = pycuda_scan_op(pr_o, pr_v);
                }}
                pr_v = pycuda_scan_shfl<scan_t, 2>(pr_v, 0);
                pr_run = base == tile - 1 ? pr_v : pycuda_scan_op(pr_v, pr_run);
                if (pr_found)
                    break;
            }}
            if (lane == 0) {{
                pr_publish(flags, aggregates, inclusives, tile, 2,
                           pycuda_scan_op(pr_run, pr_agg));
                pr_wsum[{nw}] = pr_run;
            }}
        }}
    }}{_serial_scan(items)}
    __syncthreads();
    // The thread's prefix: earlier tiles, earlier warps, earlier lanes (each may be absent).
    scan_t pr_pre = pr_lane_excl;
    bool pr_has = false;
    if (tile > 0) {{
        pr_pre = pr_wsum[{nw}];
        pr_has = true;
    }}
    if (warp > 0) {{
        pr_pre = pr_has ? pycuda_scan_op(pr_pre, pr_wsum[warp - 1]) : pr_wsum[warp - 1];
        pr_has = true;
    }}
    if (lane > 0) {{
        pr_pre = pr_has ? pycuda_scan_op(pr_pre, pr_lane_excl) : pr_lane_excl;
        pr_has = true;
    }}{_finish_code(items, exclusive, neutral)}
    if ({fast}) {{{fast_store}
    }} else {{
        #pragma unroll
        for (int k = 0; k < {items}; ++k)
            if (pr_my + k < n)
                out[pr_my + k] = pr_x[k];
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
        self.dtype = np.dtype(dtype)
        if self.dtype.itemsize == 0:
            raise TypeError(f"cannot scan elements of {self.dtype!r}: they have no size")
        if self.exclusive and neutral is None:
            raise ValueError("ExclusiveScanKernel needs a neutral element (neutral='0' for sums)")
        self.scan_expr = scan_expr
        self.neutral = neutral
        name = f"{name_prefix}_{'exclusive' if self.exclusive else 'inclusive'}"
        self.items = _items_per_thread(self.dtype.itemsize)
        self.block = SCAN_BLOCK
        self.tile = self.block * self.items
        self.words = (self.dtype.itemsize + 3) // 4
        self.packed = _packed(self.dtype.itemsize)
        self.source = _source(
            self.dtype, scan_expr, None if neutral is None else str(neutral), name, preamble,
            self.exclusive,
        )  # fmt: skip
        self.module = compiler.SourceModule(self.source, options=options, no_extern_c=True)
        self.func = self.module.get_function(name)
        self.func.prepare("PPPPPqi")

    def __call__(
        self, input_ary: Any, output_ary: Any = None, allocator: Any = None, stream: Any = None
    ) -> Any:
        """Scan ``input_ary`` into ``output_ary`` (default: in place; "new": a new array)."""
        self._check(input_ary, "input_ary", int(getattr(input_ary, "size", 0)))
        if allocator is None:
            allocator = getattr(input_ary, "allocator", None)
        if output_ary is None:
            output_ary = input_ary
        elif isinstance(output_ary, str):
            if output_ary != "new":
                raise ValueError(
                    f"output_ary must be a GPUArray, None or 'new', not {output_ary!r}"
                )
            output_ary = core.new_result(
                input_ary, input_ary.shape, self.dtype, allocator=allocator
            )
        else:
            self._check(output_ary, "output_ary", int(input_ary.size))
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
        # Flags, then the aggregates and inclusive prefixes; small values pack theirs with the
        # flags into 64-bit words (no separate flags), all zeroed by the memset.
        flags_bytes = 0 if self.packed else -(-tiles * 4 // 16) * 16
        values_bytes = tiles * (8 if self.packed else self.words * 4)
        # Without an allocator, from the context's pool (not a cuMemFree per call).
        allocate = allocator or core.context_allocator()
        scratch = allocate(flags_bytes + (1 if self.packed else 2) * values_bytes)
        base = int(scratch)
        in_ptr, out_ptr = int(input_ary.gpudata), int(output_ary.gpudata)
        vec = int(in_ptr % 16 == 0 and out_ptr % 16 == 0)
        zeroed = flags_bytes + (values_bytes if self.packed else 0)
        driver.memset_d32_async(base, 0, zeroed // 4, stream)
        args = (in_ptr, out_ptr, base, base + flags_bytes, base + flags_bytes + values_bytes,
                n, vec)  # fmt: skip
        core.launch(self.func, (tiles, 1), (self.block, 1, 1), stream, args)
        self._scratch = scratch  # kept until the next call, so a pooled block is not reused early
        return output_ary

    def _check(self, ary: Any, what: str, elements: int) -> None:
        """``ary`` as a scan's input or output of ``elements`` elements: a GPUArray of flat
        memory (C or Fortran order, as the original took); another dtype than the scan's is the
        original's reinterpretation (pycuda._arg_checks.check_array_dtype)."""
        if not hasattr(ary, "gpudata"):
            raise TypeError(f"{what} must be a GPUArray, got {type(ary).__name__}")
        if ary.size and not (ary.flags.c_contiguous or ary.flags.f_contiguous):
            raise ValueError(
                f"{what} is not contiguous: scans need a contiguous 1-D array (pass a copy)"
            )
        if ary.dtype != self.dtype:
            check_array_dtype(
                f"{type(self).__name__} {what}", ary.dtype, self.dtype, ary.nbytes, elements
            )


# The original's name for the common base class.
_ScanKernelBase = _ScanKernel


class InclusiveScanKernel(_ScanKernel):
    """``out[i] = in[0] op in[1] op ... op in[i]`` for an associative ``scan_expr`` in ``a``, ``b``.

    cumsum = InclusiveScanKernel(numpy.int32, "a+b")
    cumsum(a_gpu)  # in place
    """

    exclusive = False
    # The original's final-update kernel template for this kind of scan (see
    # pycuda._scan_templates); this class scans in one pass and does not launch it.
    final_update_tp = INCLUSIVE_UPDATE_SOURCE


class ExclusiveScanKernel(_ScanKernel):
    """``out[0] = neutral``, ``out[i] = in[0] op ... op in[i-1]``; ``neutral`` is required.

    offsets = ExclusiveScanKernel(numpy.int64, "a+b", neutral="0")
    offsets(counts_gpu, output_ary="new")
    """

    exclusive = True
    final_update_tp = EXCLUSIVE_UPDATE_SOURCE


__all__ = [
    "EXCLUSIVE_UPDATE_SOURCE",
    "INCLUSIVE_UPDATE_SOURCE",
    "SCAN_INTERVALS_SOURCE",
    "SHARED_PREAMBLE",
    "ExclusiveScanKernel",
    "InclusiveScanKernel",
]
