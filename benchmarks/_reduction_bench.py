"""benchmarks/_reduction_bench.py: reductions and scans against the copy bandwidth and CuPy.

``run()`` returns ``[(name, value, unit)]``: the device-to-device copy bandwidth (bytes read +
written), then sum, max, dot and argmax of 2^26 float32 (bytes read) and an inclusive scan of
2^26 int32 (bytes read + written), each in TB/s and as a percentage of the copy figure, beside
CuPy's equivalents where CuPy is importable; and the host cost of ``sum(a).get()`` on 1000
elements in microseconds, beside CuPy's and the round trip's floor in interleaved rounds.
Device times: CUDA events around a burst, after warm-up, median of rounds. Part of
``benchmarks/reductions.py``, and runnable alone:

    python benchmarks/_reduction_bench.py
"""

from __future__ import annotations

import statistics
from collections.abc import Callable

import numpy as np
from _host_cost import host_us

N = 1 << 26
Row = tuple[str, float, str]


def _device_ms(op: Callable[[], object], record, burst: int = 10, rounds: int = 11) -> float:
    """Median over rounds of the mean time of one op, from events around a burst."""
    for _ in range(3):
        op()
    times = []
    for _ in range(rounds):
        end = record()
        for _ in range(burst):
            op()
        times.append(end() / burst)
    return statistics.median(times)


def _pycuda_record():
    import pycuda.driver as drv

    start, stop = drv.Event(), drv.Event()
    start.record()

    def end() -> float:
        stop.record()
        stop.synchronize()
        return stop.time_since(start)

    return end


def _cupy_record(cp):
    def record():
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()

        def end() -> float:
            stop.record()
            stop.synchronize()
            return cp.cuda.get_elapsed_time(start, stop)

        return end

    return record


def _tbps(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e12


def run() -> list[Row]:
    """Measure; see the module's docstring."""
    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv
    from pycuda import _reduce_ops as ops
    from pycuda import gpuarray
    from pycuda.scan import InclusiveScanKernel
    from pycuda.tools import DeviceMemoryPool

    # Results and temporaries from a pool, as GPUArray's own default: a cuMemFree per call
    # would synchronize the device and time the host, not the kernels.
    pool = DeviceMemoryPool()
    alloc = pool.allocate
    rng = np.random.default_rng(0)
    x_host = rng.random(N, dtype=np.float32)
    y_host = rng.random(N, dtype=np.float32)
    i_host = rng.integers(0, 100, N).astype(np.int32)
    x, y = gpuarray.to_gpu(x_host), gpuarray.to_gpu(y_host)
    ints = gpuarray.to_gpu(i_host)
    copy_dst = gpuarray.empty(N, np.float32)

    rows: list[Row] = []
    copy_ms = _device_ms(
        lambda: drv.memcpy_dtod(copy_dst.gpudata, x.gpudata, 4 * N), _pycuda_record
    )
    copy = _tbps(8 * N, copy_ms)
    rows.append(("device-to-device copy 2^26 float32 (read+write)", copy, "TB/s"))

    cumsum = InclusiveScanKernel(np.int32, "a+b")
    cases = [
        ("sum", 4 * N, lambda: ops.sum(x, allocator=alloc)),
        ("max", 4 * N, lambda: ops.max(x, allocator=alloc)),
        ("dot", 8 * N, lambda: ops.dot(x, y, allocator=alloc)),
        ("argmax", 4 * N, lambda: ops.argmax(x, allocator=alloc)),
        ("inclusive scan int32 (read+write)", 8 * N, lambda: cumsum(ints, allocator=alloc)),
    ]
    for name, nbytes, op in cases:
        rate = _tbps(nbytes, _device_ms(op, _pycuda_record))
        rows.append((f"pycuda {name} 2^26", rate, "TB/s"))
        rows.append((f"pycuda {name} 2^26 / copy", 100 * rate / copy, "%"))

    try:
        import cupy as cp
    except ImportError:
        cp = None
    if cp is not None:
        cx, cy = cp.asarray(x_host), cp.asarray(y_host)
        ci = cp.asarray(i_host)
        cupy_cases = [
            ("sum", 4 * N, lambda: cp.sum(cx)),
            ("max", 4 * N, lambda: cp.max(cx)),
            ("dot", 8 * N, lambda: cp.dot(cx, cy)),
            ("argmax", 4 * N, lambda: cp.argmax(cx)),
            ("inclusive scan int32 (read+write)", 8 * N, lambda: cp.cumsum(ci)),
        ]
        for name, nbytes, op in cupy_cases:
            rate = _tbps(nbytes, _device_ms(op, _cupy_record(cp)))
            rows.append((f"cupy {name} 2^26", rate, "TB/s"))

    # Host costs side by side in interleaved rounds; sum(a) as users call it (the default
    # allocator: the context's pool).
    small = gpuarray.to_gpu(x_host[:1000])
    sync = drv.Context.synchronize
    contenders = {
        "host cost of sum(a).get(), 1000 float32": (lambda: gpuarray.sum(small).get(), sync),
        "round trip floor: empty launch + 4-byte copy back": (_round_trip(), sync),
        "round trip floor with the sum kernel: its launch + 4-byte copy back": (
            _sum_round_trip(small),
            sync,
        ),
    }
    if cp is not None:
        csmall = cp.asarray(x_host[:1000])
        contenders["cupy host cost of sum(a).get(), 1000 float32"] = (
            lambda: cp.sum(csmall).get(),
            cp.cuda.Device().synchronize,
        )
    rows += [(name, us, "us") for name, us in host_us(contenders).items()]
    return rows


def _round_trip() -> Callable[[], None]:
    """What any ``sum(a).get()`` waits for: one launch, the kernel, one synchronous 4-byte copy."""
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule

    func = SourceModule('extern "C" __global__ void k(float *p) {}', no_extern_c=True)
    func = func.get_function("k").prepare("P")
    dev = drv.mem_alloc(4)
    host = np.empty(1, np.float32)
    ptr = int(dev)

    def op() -> None:
        func.prepared_call((1, 1, 1), (32, 1, 1), ptr)
        drv.memcpy_dtoh(host, dev)

    return op


def _sum_round_trip(small) -> Callable[[], None]:
    """The least sum(a).get() itself can take: the launch sum(a) makes (the same kernel, grid
    and arguments, through prepared_call) and a synchronous 4-byte copy back into an existing
    array, with none of the Python around them (result array, plan look-up, new host array)."""
    import pycuda.driver as drv
    from pycuda.reduction import get_sum_kernel

    kernel = get_sum_kernel(np.float32, np.float32)
    plan = kernel._launch_plan(small.size, kernel._aligned(small.ptr))
    assert plan.stage2 is None, "1000 elements reduce in one launch"
    dev = drv.mem_alloc(4)
    host = np.empty(1, np.float32)
    out, src, n = int(dev), small.ptr, small.size

    def op() -> None:
        plan.stage1((1, 1), plan.block, out, src, n)
        drv.memcpy_dtoh(host, dev)

    return op


if __name__ == "__main__":
    for name, value, unit in run():
        print(f"{name:60s} {value:10.3f} {unit}")
