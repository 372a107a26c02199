"""benchmarks/_axis_sweep.py: candidate kernels for sums along an axis of a 2-d array, timed.

A tuning sweep, not a benchmark of the package: each variant is a hand-written CUDA source (the
shapes ``pycuda._axis_kernels`` could emit), beside the package's own ``a.sum(axis=0)`` and
``a.sum(axis=1)`` (the baselines). On a 4096x16384 float32 C-ordered array: bytes read per
second, and as a percentage of a device-to-device copy of the same array timed in the same run
(bytes read + written). Every variant's result is checked against NumPy's float64 sums (also on
a 1003x4100 array, whose sizes are no multiple of a tile); a wrong one prints a FAIL line and is
marked in the JSON.

Row sums (axis=1): ``rows_t{T}_r{R}_u{U}``: T threads per row (one warp: 32), R rows per block,
U independent 16-byte loads in flight per thread (``_scalar``: 4-byte loads), a warp-shuffle
reduction (and one ``__syncthreads`` when a row has several warps).

Column sums (axis=0): ``cols_x{X}_w{W}_u{U}_c{C}[_s]``: blocks of X threads across columns (4
neighbouring columns each, one 16-byte load; ``_s``: one column, 4-byte loads) and W rows of
threads across rows, U rows unrolled per thread (independent loads), the rows split into C
chunks (grid.y); C > 1 writes partials that a second kernel adds up.

``_m{B}``: ``__launch_bounds__(block, B)`` (B blocks per multiprocessor, half of it), so that
ptxas keeps every unrolled load in flight (without, it holds 32 registers and issues about 4).

    python benchmarks/_axis_sweep.py --json axis_sweep.json
    python benchmarks/_axis_sweep.py --compile-only     # no GPU: NVRTC-compile every source
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

ROWS, COLS = 4096, 16384
SMALL = (1003, 4100)  # odd row count, columns a multiple of 4 but not of any tile

# {{{ sources

_COMMON = r"""
template <int N>
__device__ __forceinline__ float tree(float (&v)[N]) {
    #pragma unroll
    for (int s = 1; s < N; s *= 2)
        #pragma unroll
        for (int k = 0; k + s < N; k += 2 * s)
            v[k] += v[k + s];
    return v[0];
}
__device__ __forceinline__ float4 add4(float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
__device__ __forceinline__ float warp_sum(float a) {
    #pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        a += __shfl_down_sync(0xffffffffu, a, off);
    return a;
}
"""


def _bounds(block: int, minb: int) -> str:
    """``__launch_bounds__``: with ``minb`` blocks per multiprocessor, ptxas may use up to
    65536 / (block * minb) registers; without, it aims at 32 (a full multiprocessor) and then
    issues only about 4 of 8 unrolled 16-byte loads before using the first."""
    return f"__launch_bounds__({block}, {minb})" if minb else f"__launch_bounds__({block})"


def rows_source(name: str, tpr: int, rpb: int, unroll: int, load: str, minb: int = 0) -> str:
    """Sums of rows (contiguous, 16-byte aligned, ``cols`` a multiple of 4): ``tpr`` threads
    per row, ``rpb`` rows per block, ``unroll`` 16-byte loads per thread per step. ``load``:
    "ldg" (read-only path), "cs" (streaming, evict-first), "plain" (an ordinary load) or
    "scalar" (4-byte loads).
    Parameters: in, out, rows, cols."""
    block = tpr * rpb
    nw = tpr // 32
    ld = {"cs": "__ldcs", "plain": "*"}.get(load, "__ldg")
    vec = 1 if load == "scalar" else 4  # "scalar": 4-byte loads, any alignment
    t = "float4" if vec == 4 else "float"
    if vec == 4:
        fetch = f"{ld}(reinterpret_cast<const float4 *>(p) + k)"
        use = "(q[u].x + q[u].y) + (q[u].z + q[u].w)"
    else:
        fetch = f"{ld}(p + k)"
        use = "q[u]"
    if nw > 1:
        combine = f"""
    __shared__ float s_part[{block // 32}];
    if (lane == 0)
        s_part[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (t == 0) {{
        float w[{nw}];
        #pragma unroll
        for (int k = 0; k < {nw}; ++k)
            w[k] = s_part[g * {nw} + k];
        acc = tree(w);
    }}"""
    else:
        combine = ""
    return f"""
extern "C" __global__ void {_bounds(block, minb)}
{name}(const float *in, float *out, int rows, long long cols)
{{
    const int g = threadIdx.x / {tpr}, t = threadIdx.x % {tpr}, lane = threadIdx.x & 31;
    (void)lane;
    const long long row = (long long)blockIdx.x * {rpb} + g;
    float acc = 0.f;
    if (row < rows) {{
        const float *p = in + row * cols;
        const long long nv = cols / {vec};
        for (long long c = t; c < nv; c += {tpr * unroll}) {{
            {t} q[{unroll}];
            const bool full = c + {(unroll - 1) * tpr} < nv;
            if (full) {{  // every load issued before the first is used
                #pragma unroll
                for (int u = 0; u < {unroll}; ++u) {{
                    const long long k = c + (long long)u * {tpr};
                    q[u] = {fetch};
                }}
            }} else {{
                #pragma unroll
                for (int u = 0; u < {unroll}; ++u) {{
                    const long long k = c + (long long)u * {tpr};
                    if (k < nv)
                        q[u] = {fetch};
                }}
            }}
            float v[{unroll}];
            #pragma unroll
            for (int u = 0; u < {unroll}; ++u)
                v[u] = full || c + (long long)u * {tpr} < nv ? {use} : 0.f;
            acc += tree(v);
        }}
        for (long long k = nv * {vec} + t; k < cols; k += {tpr})
            acc += p[k];
    }}
    acc = warp_sum(acc);{combine}
    if (t == 0 && row < rows)
        out[row] = acc;
}}
"""


def cols_source(
    name: str, lx: int, w: int, unroll: int, vec: bool, ld: str = "__ldg", minb: int = 0
) -> str:
    """Sums of columns of a (rows, cols) C array: a block of ``lx`` x ``w`` threads covers
    ``lx`` column groups (4 columns a float4 when ``vec``, else 1) and its chunk of rows
    (grid.y), its ``w`` thread rows taking interleaved rows, ``unroll`` rows at a time.
    Writes ``out + chunk * cols`` (the partial of the chunk, or the result when grid.y is 1).
    Parameters: in, out, rows, cols, rows per chunk."""
    block = lx * w
    t = "float4" if vec else "float"
    zero = "make_float4(0.f, 0.f, 0.f, 0.f)" if vec else "0.f"
    width = 4 if vec else 1
    if vec:
        body = f"""
            {t} v[{unroll}];
            #pragma unroll
            for (int u = 0; u < {unroll}; ++u) {{
                const long long rr = r + (long long)u * {w};
                v[u] = rr < r1 ? {ld}(reinterpret_cast<const float4 *>(in + rr * cols) + cg)
                               : {zero};
            }}
            #pragma unroll
            for (int s = 1; s < {unroll}; s *= 2)
                #pragma unroll
                for (int k = 0; k + s < {unroll}; k += 2 * s)
                    v[k] = add4(v[k], v[k + s]);
            acc = add4(acc, v[0]);"""
        store = "reinterpret_cast<float4 *>(out + (long long)blockIdx.y * cols)[cg] = acc;"
    else:
        body = f"""
            float v[{unroll}];
            #pragma unroll
            for (int u = 0; u < {unroll}; ++u) {{
                const long long rr = r + (long long)u * {w};
                v[u] = rr < r1 ? {ld}(in + rr * cols + cg) : 0.f;
            }}
            acc += tree(v);"""
        store = "out[(long long)blockIdx.y * cols + cg] = acc;"
    if w > 1:
        combine = f"""
    __shared__ {t} s_part[{w}][{lx}];
    s_part[threadIdx.y][threadIdx.x] = acc;
    __syncthreads();
    if (threadIdx.y != 0)
        return;
    #pragma unroll
    for (int k = 1; k < {w}; ++k)
        acc = {"add4(acc, s_part[k][threadIdx.x])" if vec else "acc + s_part[k][threadIdx.x]"};"""
    else:
        combine = ""
    return f"""
extern "C" __global__ void {_bounds(block, minb)}
{name}(const float *in, float *out, int rows, long long cols, int clen)
{{
    const long long ng = cols / {width};
    const long long cg = (long long)blockIdx.x * {lx} + threadIdx.x;
    const int r0 = blockIdx.y * clen;
    const int r1 = min(rows, r0 + clen);
    {t} acc = {zero};
    if (cg < ng) {{
        for (int r = r0 + threadIdx.y; r < r1; r += {w * unroll}) {{{body}
        }}
    }}{combine}
    if (cg < ng)
        {store}
}}
"""


COLS_FINISH = r"""
extern "C" __global__ void __launch_bounds__(256)
cols_finish(const float *part, float *out, int chunks, long long cols)
{
    const long long c = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols)
        return;
    float acc = 0.f;
    for (int k = 0; k < chunks; k += 8) {
        float v[8];
        #pragma unroll
        for (int u = 0; u < 8; ++u)
            v[u] = k + u < chunks ? part[(long long)(k + u) * cols + c] : 0.f;
        acc += tree(v);
    }
    out[c] = acc;
}
"""


@dataclass
class Variant:
    axis: int
    name: str
    params: dict = field(default_factory=dict)


def variants() -> list[Variant]:
    out = [Variant(1, "pycuda a.sum(axis=1)"), Variant(0, "pycuda a.sum(axis=0)")]
    row_cfgs = [
        (32, 8, 4, "ldg"), (32, 8, 8, "ldg"), (32, 4, 4, "ldg"), (32, 16, 4, "ldg"),
        (32, 8, 2, "ldg"), (32, 8, 4, "cs"), (64, 4, 4, "ldg"), (128, 2, 4, "ldg"),
        (128, 1, 8, "ldg"), (256, 1, 4, "ldg"), (256, 1, 8, "ldg"), (512, 1, 4, "ldg"),
        (1024, 1, 4, "ldg"), (256, 1, 4, "cs"), (32, 8, 8, "scalar"), (256, 1, 8, "scalar"),
        (32, 8, 8, "plain"), (32, 8, 4, "plain"), (64, 4, 8, "ldg"), (32, 4, 8, "ldg"),
    ]  # fmt: skip
    for tpr, rpb, unroll, load in row_cfgs:
        name = f"rows_t{tpr}_r{rpb}_u{unroll}" + ("" if load == "ldg" else f"_{load}")
        out.append(Variant(1, name, dict(tpr=tpr, rpb=rpb, unroll=unroll, load=load)))
    col_cfgs = [
        (256, 1, 8, 64, False), (256, 1, 8, 16, False),
        (256, 1, 4, 16, True), (256, 1, 8, 16, True), (256, 1, 8, 32, True),
        (256, 1, 4, 64, True), (256, 1, 8, 8, True), (128, 1, 8, 32, True),
        (32, 8, 4, 1, True), (32, 8, 8, 1, True), (32, 8, 4, 2, True), (32, 8, 8, 4, True),
        (32, 8, 4, 8, True), (32, 16, 4, 1, True), (32, 16, 4, 2, True), (32, 16, 8, 2, True),
        (32, 32, 4, 1, True), (32, 32, 8, 1, True), (64, 4, 8, 4, True), (64, 4, 8, 8, True),
        (64, 8, 4, 2, True), (64, 8, 8, 4, True), (64, 16, 4, 1, True), (128, 4, 4, 4, True),
        (128, 2, 8, 8, True), (128, 8, 4, 1, True),
    ]  # fmt: skip
    for lx, w, unroll, chunks, vec in col_cfgs:
        name = f"cols_x{lx}_w{w}_u{unroll}_c{chunks}" + ("" if vec else "_s")
        out.append(Variant(0, name, dict(lx=lx, w=w, unroll=unroll, chunks=chunks, vec=vec)))
    for lx, w, unroll, chunks in ((32, 8, 8, 4), (32, 8, 8, 2)):  # ordinary loads
        name = f"cols_x{lx}_w{w}_u{unroll}_c{chunks}_plain"
        params = dict(lx=lx, w=w, unroll=unroll, chunks=chunks, vec=True, ld="*")
        out.append(Variant(0, name, params))
    # The same with registers for every load in flight: half a multiprocessor of threads.
    for v in list(out):
        p = v.params
        if not p or p["unroll"] < 4 or p.get("load") == "scalar" or p.get("vec") is False:
            continue
        block = p["tpr"] * p["rpb"] if v.axis == 1 else p["lx"] * p["w"]
        minb = max(1, 1024 // block)
        out.append(Variant(v.axis, f"{v.name}_m{minb}", dict(p, minb=minb)))
    return out


def module_sources() -> dict[int, str]:
    """One module per axis, holding every variant's kernel (two NVRTC compiles in all)."""
    parts: dict[int, list[str]] = {0: [_COMMON, COLS_FINISH], 1: [_COMMON]}
    for v in variants():
        p = v.params
        if not p:
            continue
        if v.axis == 1:
            parts[1].append(
                rows_source(v.name, p["tpr"], p["rpb"], p["unroll"], p["load"], p.get("minb", 0))
            )
        else:
            parts[0].append(
                cols_source(
                    v.name,
                    p["lx"],
                    p["w"],
                    p["unroll"],
                    p["vec"],
                    p.get("ld", "__ldg"),
                    p.get("minb", 0),
                )  # fmt: skip
            )
    return {axis: "\n".join(src) for axis, src in parts.items()}


# }}}

# {{{ running


def compile_only(arch: str) -> int:
    from pycuda import compiler

    failed = 0
    t0 = time.perf_counter()
    sources = module_sources()
    for axis, src in sources.items():
        try:
            cubin = compiler.compile(src, arch=arch, no_extern_c=True, cache_dir=False)
            assert cubin[:4] == b"\x7fELF"
        except Exception as exc:  # report every failure, not just the first
            failed += 1
            print(f"FAIL compile axis={axis} module: {exc}")
    n = sum(bool(v.params) for v in variants())
    print(
        f"compiled {len(sources) - failed}/{len(sources)} modules ({n} variants) for {arch} "
        f"in {time.perf_counter() - t0:.1f} s"
    )
    return 1 if failed else 0


def _device_ms(op: Callable[[], object], burst: int = 10, rounds: int = 7) -> float:
    import pycuda.driver as drv

    for _ in range(2):
        op()
    start, stop = drv.Event(), drv.Event()
    times = []
    for _ in range(rounds):
        start.record()
        for _ in range(burst):
            op()
        stop.record()
        stop.synchronize()
        times.append(stop.time_since(start) / burst)
    return statistics.median(times)


_EXACT: dict = {}


def _check(got: np.ndarray, host: np.ndarray, axis: int) -> tuple[str | None, float]:
    """(an error or None, the largest error in float32 epsilons of the sum of magnitudes):
    wrong when that exceeds 8 (a loose bound on any order of float32 additions, far below a
    missed or doubled element)."""
    key = (id(host), axis)
    if key not in _EXACT:
        wide = host.astype(np.float64)
        _EXACT[key] = (wide.sum(axis=axis), np.abs(wide).sum(axis=axis))
    exact, scale = _EXACT[key]
    if got.shape != exact.shape:
        return f"shape {got.shape}, expected {exact.shape}", float("inf")
    rel = np.abs(got.astype(np.float64) - exact) / (np.finfo(np.float32).eps * scale)
    bad = ~(rel <= 8)  # NaN (an unwritten output) is bad too
    if bad.any():
        k = int(np.argmax(bad))
        return f"wrong at {k}: {got[k]!r}, exact {exact[k]!r}", float(np.nanmax(rel))
    return None, float(rel.max())


class Runner:
    def __init__(self) -> None:
        import pycuda.autoinit  # noqa: F401
        import pycuda.driver as drv
        from pycuda import gpuarray
        from pycuda.compiler import SourceModule
        from pycuda.tools import DeviceMemoryPool

        self.drv, self.gpuarray = drv, gpuarray
        self.pool = DeviceMemoryPool()
        rng = np.random.default_rng(3)
        self.hosts = {
            "big": rng.standard_normal((ROWS, COLS), dtype=np.float32),
            "small": rng.standard_normal(SMALL, dtype=np.float32) + np.float32(0.5),
        }
        self.devs = {k: gpuarray.to_gpu(h) for k, h in self.hosts.items()}
        self.out = gpuarray.empty(max(ROWS, COLS), np.float32)
        self.part = drv.mem_alloc(4 * COLS * 256)
        self.copy_dst = gpuarray.empty_like(self.devs["big"])
        t0 = time.perf_counter()
        self.mods = {
            axis: SourceModule(src, no_extern_c=True) for axis, src in module_sources().items()
        }
        self.compile_s = time.perf_counter() - t0
        self.finish = self.mods[0].get_function("cols_finish")
        self.finish.prepare("PPiq")
        self.copy_tbs = self.copy()

    def copy(self) -> float:
        """Device-to-device copy of the array, TB/s counting bytes read + written."""
        a = self.devs["big"]
        dst, src, nbytes = self.copy_dst.gpudata, a.gpudata, a.nbytes
        return 2 * nbytes / _device_ms(lambda: self.drv.memcpy_dtod(dst, src, nbytes)) / 1e9

    def call(self, v: Variant, which: str) -> Callable[[], object]:
        a = self.devs[which]
        rows, cols = a.shape
        if not v.params:
            alloc = self.pool.allocate
            return lambda: a.sum(axis=v.axis, allocator=alloc)
        func = self.mods[v.axis].get_function(v.name)
        p = v.params
        out = int(self.out.gpudata)
        if v.axis == 1:
            func.prepare("PPiq")
            grid = (-(-rows // p["rpb"]), 1)
            block = (p["tpr"] * p["rpb"], 1, 1)
            return lambda: func.prepared_call(grid, block, a.gpudata, out, rows, cols)
        func.prepare("PPiqi")
        chunks = p["chunks"]
        clen = -(-rows // chunks)
        chunks = -(-rows // clen)
        groups = cols // 4 if p["vec"] else cols
        grid = (-(-groups // p["lx"]), chunks)
        block = (p["lx"], p["w"], 1)
        part = int(self.part)
        fin = self.finish
        fgrid = (-(-cols // 256), 1)
        if chunks == 1:
            return lambda: func.prepared_call(grid, block, a.gpudata, out, rows, cols, clen)

        def first():
            func.prepared_call(grid, block, a.gpudata, part, rows, cols, clen)

        def two_pass():
            first()
            fin.prepared_call(fgrid, (256, 1, 1), part, out, chunks, cols)

        two_pass.first = first
        return two_pass

    def result(self, v: Variant, which: str, r: object) -> np.ndarray:
        if r is not None:
            return r.get()
        rows, cols = self.hosts[which].shape
        return self.out.get()[: rows if v.axis == 1 else cols]

    def run(self, v: Variant) -> tuple[float, str | None, float, dict]:
        """(device ms per call, an error or None, the largest error (see _check), extras: the host
        time per call of the package's rows, the first pass alone of two-pass variants)."""
        err, ulps = None, 0.0
        for which in ("small", "big"):
            self.out.fill(np.float32(np.nan))
            got = self.result(v, which, self.call(v, which)())
            e, u = _check(got, self.hosts[which], v.axis)
            ulps = max(ulps, u)
            err = err or (e and f"{which} {self.hosts[which].shape}: {e}")
        op = self.call(v, "big")
        extra = {}
        if not v.params:
            self.drv.Context.synchronize()
            t0 = time.perf_counter()
            for _ in range(50):
                op()
            extra["host_us"] = (time.perf_counter() - t0) / 50 * 1e6
            self.drv.Context.synchronize()
        elif getattr(op, "first", None) is not None:
            extra["pass1_us"] = _device_ms(op.first) * 1e3
        return _device_ms(op), err, ulps, extra

    def cupy_rows(self) -> list[tuple[str, int, Callable[[], object]]]:
        try:
            import cupy as cp
        except ImportError:
            return []
        x = cp.asarray(self.hosts["big"])
        return [(f"cupy sum(axis={ax})", ax, lambda ax=ax: cp.sum(x, axis=ax)) for ax in (0, 1)]


def _cupy_ms(op: Callable[[], object]) -> float:
    import cupy as cp

    for _ in range(2):
        op()
    times = []
    for _ in range(7):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        for _ in range(10):
            op()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 10)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results to this path")
    parser.add_argument("--compile-only", action="store_true", help="NVRTC only, no GPU")
    parser.add_argument("--arch", default="sm_90", help="for --compile-only")
    parser.add_argument("--axis", type=int, choices=(0, 1), help="only this axis's variants")
    args = parser.parse_args()
    if args.compile_only:
        return compile_only(args.arch)
    t0 = time.perf_counter()
    r = Runner()
    dev = r.drv.Context.get_device().name()
    nbytes = r.hosts["big"].nbytes
    print(
        f"{dev}: device-to-device copy {r.copy_tbs:.3f} TB/s (read+write) of {ROWS}x{COLS} "
        f"float32; sweep modules compiled in {r.compile_s:.1f} s"
    )
    results: list[dict] = []
    todo = [v for v in variants() if args.axis is None or v.axis == args.axis]
    for v in todo:
        try:
            ms, err, ulps, extra = r.run(v)
        except Exception as exc:
            print(f"FAIL {v.name}: {type(exc).__name__}: {exc}")
            results.append(dict(axis=v.axis, name=v.name, error=str(exc), ok=False))
            continue
        tbs = nbytes / ms / 1e9
        pct = 100 * tbs / r.copy_tbs
        flag = "" if err is None else f"   FAIL: {err}"
        more = "".join(f" {k} {x:.1f}" for k, x in extra.items())
        print(
            f"axis={v.axis} {v.name:32s} {ms * 1e3:8.1f} us {tbs:6.3f} TB/s {pct:5.1f}% "
            f"err {ulps:5.2f} eps{more}{flag}"
        )
        if err is not None:
            print(f"FAIL {v.name}: {err}")
        results.append(
            dict(axis=v.axis, name=v.name, us=ms * 1e3, tbs=tbs, pct=pct, ulps=ulps,
                 ok=err is None, error=err, params=v.params, **extra)
        )  # fmt: skip
        sys.stdout.flush()
        if args.json:
            _save(args.json, dev, r.copy_tbs, None, results)
    for name, axis, op in r.cupy_rows():
        ms = _cupy_ms(op)
        tbs = nbytes / ms / 1e9
        pct = 100 * tbs / r.copy_tbs
        print(f"axis={axis} {name:32s} {ms * 1e3:8.1f} us {tbs:6.3f} TB/s {pct:5.1f}%")
        results.append(dict(axis=axis, name=name, us=ms * 1e3, tbs=tbs, pct=pct, ok=True))
    again = r.copy()
    print(f"copy again at the end: {again:.3f} TB/s; total {time.perf_counter() - t0:.1f} s")
    if args.json:
        _save(args.json, dev, r.copy_tbs, again, results)
    return 0


def _save(path: str, dev: str, copy: float, copy_end: float | None, results: list) -> None:
    doc = dict(device=dev, copy_tbs=copy, copy_tbs_end=copy_end, shape=[ROWS, COLS],
               results=results)  # fmt: skip
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


# }}}

if __name__ == "__main__":
    sys.exit(main())
