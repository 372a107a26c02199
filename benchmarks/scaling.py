"""benchmarks/scaling.py: how the cost of array operations grows with size, 2^10 to 2^30 float32.

For each size (powers of 2, every --step-th): a+b, 2*a+b through ElementwiseKernel (into an
allocated output), sum(a) brought to the host, pageable host->device and device->host copies,
and a device-to-device copy (memcpy_dtod: the copy ceiling); pycuda's and, when importable,
CuPy's (a+b, cupy.ElementwiseKernel, cupy.sum(a).get(), cupy.asarray(h) + sync, .get()).
Timing (benchmarks/_timing.py): operations that stay on the device are timed with events
around bursts of calls (at small sizes that is the host's cost per call in a loop of calls);
those that end on the host (a transfer, a sum brought back) by the wall time of one call; the
median of repeats either way. Bandwidth counts the bytes the operation must move (inputs read
once, output written once; the copy's read and write). Sizes whose arrays do not fit in free
device (or host) memory are skipped and listed.

Writes DIR/scaling.json (or --json PATH) and DIR/scaling.png (needs matplotlib; DIR: --out,
default docs/); progress goes to stderr.

    python benchmarks/scaling.py --quick --out OUT          # fewer repeats
    python benchmarks/scaling.py --replot OUT/scaling.json   # the figure again, without a GPU
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import pycuda.driver as drv
from pycuda import gpuarray
from pycuda._array_core import default_pool
from pycuda.elementwise import ElementwiseKernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _gpu import require_gpu  # noqa: E402
from _report import report  # noqa: E402
from _scaling_plot import plot  # noqa: E402
from _timing import cupy_timer, device_ms, pycuda_timer, seconds  # noqa: E402

# operation: (bytes it must move per float32 element, how it is timed)
OPERATIONS = {
    "a+b": (12, "events"),
    "2*a+b": (12, "events"),
    "sum": (4, "wall"),
    "host->device": (4, "wall"),
    "device->host": (4, "wall"),
    "device->device": (8, "events"),
}
CALLS = {  # what each library's line calls, as the figure's legend names it
    "pycuda": {
        "a+b": "a + b",
        "2*a+b": "ElementwiseKernel 2*a+b",
        "sum": "gpuarray.sum(a).get()",
        "host->device": "gpuarray.to_gpu(h)",
        "device->host": "a.get()",
        "device->device": "memcpy_dtod (copy ceiling)",
    },
    "cupy": {
        "a+b": "a + b",
        "2*a+b": "cupy.ElementwiseKernel 2*a+b",
        "sum": "cupy.sum(a).get()",
        "host->device": "cupy.asarray(h) + sync",
        "device->host": "a.get()",
    },
}
# Device memory one size needs: a, b, out, and one result (a+b, to_gpu) alive at a time.
ARRAYS_ALIVE = 5
HEADROOM = 256 << 20
Row = tuple[str, float, str]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs", help="folder of scaling.png (default docs/)")
    parser.add_argument("--json", help="the JSON's path (default OUT/scaling.json)")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--min-exp", type=int, default=10, help="smallest size 2^MIN (10)")
    parser.add_argument("--max-exp", type=int, default=30, help="largest size 2^MAX (30)")
    parser.add_argument("--step", type=int, default=2, help="exponent step (2: 2^10, 2^12...)")
    parser.add_argument("--no-cupy", action="store_true", help="leave CuPy out")
    parser.add_argument("--replot", metavar="JSON", help="only draw the figure of a saved JSON")
    args = parser.parse_args(argv)
    if not 0 <= args.min_exp <= args.max_exp or args.step < 1:
        parser.error("need 0 <= --min-exp <= --max-exp and --step >= 1")
    return args


def exponents(args: argparse.Namespace) -> list[int]:
    return list(range(args.min_exp, args.max_exp + 1, args.step))


def repeats(quick: bool) -> dict[str, int]:
    """Event rounds, and the wall timer's byte budget and bounds on its rounds."""
    if quick:
        return {"rounds": 5, "budget": 128 << 20, "least": 3, "most": 30}
    return {"rounds": 11, "budget": 1 << 30, "least": 5, "most": 100}


def time_ms(op, timing: str, nbytes: int, sync, record, rep: dict[str, int]) -> float:
    """One operation's time per call in ms: events around bursts sized to ~2 ms of device work
    (at least one call, at most 50), or the wall time of single synchronous calls."""
    if timing == "events":
        burst = max(1, min(50, int(2e-3 / max(5e-6, nbytes / 2e12))))
        return device_ms(op, sync, record, burst=burst, rounds=rep["rounds"])
    warmup = 1 if nbytes >= 64 << 20 else 3  # a large copy is its own warm-up
    return 1e3 * seconds(op, nbytes, rep["budget"], rep["least"], rep["most"], warmup)


def pycuda_calls(host: np.ndarray, kernel) -> dict[str, Callable[[], object]]:
    a, b = gpuarray.to_gpu(host), gpuarray.to_gpu(host)
    out = gpuarray.empty_like(a)
    return {
        "a+b": lambda: a + b,
        "2*a+b": lambda: kernel(a, b, out),
        "sum": lambda: gpuarray.sum(a).get(),
        "host->device": lambda: gpuarray.to_gpu(host),
        "device->host": a.get,
        "device->device": lambda: drv.memcpy_dtod(out.gpudata, a.gpudata, a.nbytes),
    }


def cupy_calls(cp, host: np.ndarray, kernel) -> dict[str, Callable[[], object]]:
    a, b = cp.asarray(host), cp.asarray(host)
    out = cp.empty_like(a)
    sync = cp.cuda.Device().synchronize

    def to_device():
        cp.asarray(host)
        sync()

    return {
        "a+b": lambda: a + b,
        "2*a+b": lambda: kernel(a, b, out),
        "sum": lambda: cp.sum(a).get(),
        "host->device": to_device,
        "device->host": a.get,
    }


def host_bytes_free() -> int:
    """Linux's MemAvailable (free pages count the page cache as used, which it is not)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def measure(lib: str, make, release, timer, host: np.ndarray, rep, skipped) -> dict[str, float]:
    """``{operation: ms}`` of one library at one size (``{}`` where it does not fit); the
    arrays are freed and the library's pool emptied before returning."""
    n, nbytes = host.size, host.nbytes
    free = drv.mem_get_info()[0]
    if ARRAYS_ALIVE * nbytes + HEADROOM > free:
        why = f"needs {ARRAYS_ALIVE * nbytes / 2**30:.1f} GiB, {free / 2**30:.1f} GiB free"
        skipped.append({"library": lib, "elements": n, "reason": why})
        print(f"scaling: {lib} 2^{n.bit_length() - 1}: skipped ({why})", file=sys.stderr)
        return {}
    times: dict[str, float] = {}
    sync, record = timer
    try:
        calls = make(host)
        for op, call in calls.items():
            per_element, timing = OPERATIONS[op]
            try:
                times[op] = time_ms(call, timing, per_element * n, sync, record, rep)
            except Exception as exc:  # one operation failing must not lose the others
                skipped.append(failure(lib, n, exc, op))
        del calls
    except Exception as exc:  # the arrays themselves did not fit after all
        skipped.append(failure(lib, n, exc))
    finally:
        release()
    return times


def failure(lib: str, n: int, exc: Exception, op: str | None = None) -> dict[str, Any]:
    print(f"scaling: {lib} {op or ''} 2^{n.bit_length() - 1} failed: {exc}", file=sys.stderr)
    where = {"operation": op} if op else {}
    return {"library": lib, "elements": n, **where, "reason": f"{type(exc).__name__}: {exc}"}


def run(args: argparse.Namespace) -> dict[str, Any]:
    import pycuda.autoinit  # noqa: F401 - only once require_gpu has found a device

    rep = repeats(args.quick)
    twice_plus = ElementwiseKernel(
        "float *a, float *b, float *out", "out[i] = 2.0f*a[i] + b[i]", "twice_plus"
    )
    libs: dict[str, tuple] = {
        "pycuda": (
            lambda h: pycuda_calls(h, twice_plus),
            lambda: default_pool().free_held(),  # a size's arrays go before the next's come
            (drv.Context.synchronize, pycuda_timer()),
        )
    }
    cp = None if args.no_cupy else cupy_library(libs)
    exps = [e for e in exponents(args) if 3 * (4 << e) < host_bytes_free()]
    skipped = [{"elements": 1 << e, "reason": "host memory"} for e in exponents(args)
               if e not in exps]  # fmt: skip
    host = np.ones(1 << exps[-1], np.float32) if exps else np.ones(0, np.float32)
    series = {(lib, op): [] for lib in libs for op in OPERATIONS if op in CALLS[lib]}
    started = time.perf_counter()
    for e in exps:
        for lib, (make, release, timer) in libs.items():
            t0 = time.perf_counter()
            times = measure(lib, make, release, timer, host[: 1 << e], rep, skipped)
            for op, ms in times.items():
                series[lib, op].append((1 << e, ms))
            if times:  # (a skipped size has said so)
                shown = ", ".join(f"{op} {ms:.4g} ms" for op, ms in times.items())
                print(f"scaling: {lib} 2^{e}: {shown} ({time.perf_counter() - t0:.1f} s)",
                      file=sys.stderr)  # fmt: skip
    print(f"scaling: measured in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return {
        "quick": args.quick,
        "cupy": getattr(cp, "__version__", None),
        "series": [as_series(lib, op, points) for (lib, op), points in series.items()],
        "skipped": skipped,
    }


def cupy_library(libs: dict[str, tuple]):
    """Adds CuPy's (make, release, timer) to ``libs`` and returns the module; None (and a line
    on stderr) where CuPy cannot be imported or set up on this device."""
    try:
        import cupy as cp

        twice_plus = cp.ElementwiseKernel("float32 a, float32 b", "float32 out", "out = 2*a + b",
                                          "twice_plus")  # fmt: skip
        libs["cupy"] = (
            lambda h: cupy_calls(cp, h, twice_plus),
            cp.get_default_memory_pool().free_all_blocks,
            (cp.cuda.Device().synchronize, cupy_timer(cp)),
        )
    except Exception as exc:  # ImportError, or a CUDA runtime CuPy cannot use
        print(f"scaling: CuPy left out ({type(exc).__name__}: {exc})", file=sys.stderr)
        return None
    return cp


def as_series(lib: str, op: str, points: list[tuple[int, float]]) -> dict[str, Any]:
    per_element, timing = OPERATIONS[op]
    return {
        "library": lib,
        "operation": op,
        "call": CALLS[lib][op],
        "timing": timing,
        "bytes_per_element": per_element,
        "elements": [n for n, _ in points],
        "ms": [ms for _, ms in points],
        "gbs": [per_element * n / (ms * 1e-3) / 1e9 for n, ms in points],
    }


def rows(series: list[dict[str, Any]]) -> list[Row]:
    """One row a point: ``cupy   a+b 2^20  <GB/s>  GB/s (<time>)``."""
    out: list[Row] = []
    for s in series:
        for n, ms, gbs in zip(s["elements"], s["ms"], s["gbs"], strict=True):
            name = f"{s['library']:<6} {s['operation']:<14} 2^{n.bit_length() - 1}"
            out.append((name, gbs, f"GB/s ({ms * 1e3:.2f} us)"))
    return out


def draw(result: dict[str, Any], png: str) -> None:
    try:
        plot(result, png)
    except ImportError as exc:
        print(f"scaling: no figure ({exc}); the JSON has every figure", file=sys.stderr)
        return
    print(f"scaling: wrote {png}", file=sys.stderr)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    png = os.path.join(args.out, "scaling.png")
    if args.replot:
        with open(args.replot) as f:
            draw(json.load(f), png)
        return
    require_gpu("scaling.py")
    result = run(args)
    os.makedirs(args.out, exist_ok=True)
    json_path = args.json or os.path.join(args.out, "scaling.json")
    table = rows(result["series"]) or [("nothing measured: see skipped", float("nan"), "")]
    report(table, json_path, **result)
    with open(json_path) as f:  # the figure is drawn from what was saved, as --replot does
        draw(json.load(f), png)


if __name__ == "__main__":
    main()
