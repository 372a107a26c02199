"""Threads and processes: 16 threads sharing a context, each compiling, allocating and launching
on its own stream at once; contexts pushed and popped in several threads; a child forked after
CUDA was initialised gets a clear error (never a hang); multiprocessing with 'spawn' works; 16
processes and 16 threads compile into one cache at once (those two need only NVRTC)."""

from __future__ import annotations

import subprocess
import sys
import threading
import traceback

import numpy as np
import pytest
from child_process import ROOT, child_env, noise_in, python_command, run_python

import pycuda._driver as _driver

gpu = pytest.mark.gpu
needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

THREADS = 16

AXPB = """
__global__ void axpb(float *y, const float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = SCALE * x[i] + OFFSET;
}
"""


def _run_threads(count: int, work) -> list[str]:
    """Runs work(i) in `count` threads; the tracebacks of those that raised."""
    errors: list[str] = []

    def run(i: int) -> None:
        try:
            work(i)
        except BaseException:  # reported to the test, whatever it is
            errors.append(f"thread {i}:\n{traceback.format_exc()}")

    threads = [threading.Thread(target=run, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    hung = [i for i, t in enumerate(threads) if t.is_alive()]
    return errors + [f"threads {hung} did not finish"] * bool(hung)


@gpu
def test_sixteen_threads_share_a_context_each_with_its_own_stream(ctx):
    import pycuda.driver as drv
    from pycuda import gpuarray
    from pycuda.compiler import SourceModule

    start = threading.Barrier(THREADS, timeout=120)

    def work(t: int) -> None:
        ctx.push()
        try:
            stream = drv.Stream()
            # A compile of its own (its constants differ), while the others compile theirs.
            source = f"#define SCALE {t + 1}.0f\n#define OFFSET {t}.0f\n" + AXPB
            axpb = SourceModule(source).get_function("axpb")
            start.wait()
            for r in range(20):
                n = 1000 + 97 * t + r
                x_h = np.arange(n, dtype=np.float32) * (r + 1) % 4093
                x = gpuarray.to_gpu_async(x_h, stream=stream)
                y = gpuarray.empty_like(x)
                axpb(
                    y, x, np.int32(n), block=(128, 1, 1), grid=((n + 127) // 128, 1), stream=stream
                )
                want = (t + 1) * x_h + t
                s = gpuarray.sum(y, stream=stream)
                z = (y * 2).get()  # the legacy default stream waits for `stream`
                got = y.get_async(stream=stream)
                stream.synchronize()
                np.testing.assert_array_equal(got, want)
                np.testing.assert_array_equal(z, 2 * want)
                np.testing.assert_allclose(float(s.get()), want.sum(dtype=np.float64), rtol=1e-5)
        finally:
            drv.Context.pop()

    errors = _run_threads(THREADS, work)
    assert not errors, "\n".join(errors)


@gpu
def test_contexts_pushed_and_popped_in_several_threads(ctx):
    import pycuda.driver as drv

    dev = drv.Context.get_device()
    made = []
    for _ in range(4):  # contexts made here and used in every thread
        made.append(dev.make_context())
        drv.Context.pop()

    def work(t: int) -> None:
        assert drv.Context.get_current() is None  # a new thread starts with an empty stack
        for r in range(25):
            shared = made[(t + r) % len(made)]
            shared.push()
            assert drv.Context.get_current() == shared
            ctx.push()  # two deep
            assert drv.Context.get_current() == ctx
            buf = drv.mem_alloc(4096)
            drv.memcpy_htod(buf, np.full(1024, t, np.int32))
            back = np.empty(1024, np.int32)
            drv.memcpy_dtoh(back, buf)
            assert (back == t).all()
            del buf
            drv.Context.pop()
            assert drv.Context.get_current() == shared
            drv.Context.pop()
            assert drv.Context.get_current() is None
        own = dev.make_context()  # made, used and destroyed in this thread
        try:
            drv.mem_alloc(1 << 20).free()
        finally:
            drv.Context.pop()
            own.detach()

    try:
        errors = _run_threads(8, work)
    finally:
        for c in made:
            c.detach()
    assert drv.Context.get_current() == ctx
    assert not errors, "\n".join(errors)


FORK_PROGRAM = """
import multiprocessing
import os
import sys

import numpy as np

import pycuda.autoinit
import pycuda.driver as drv
from pycuda import gpuarray

a = gpuarray.to_gpu(np.arange(10, dtype=np.float32))  # the parent's, inherited by the child


def use_cuda_in_child():
    results = []
    calls = [
        lambda: drv.mem_alloc(16),
        lambda: gpuarray.to_gpu(np.ones(3, np.float32)),
        a.get,
        drv.Context.synchronize,
        lambda: drv.Device(0).make_context(),
        drv.init,
    ]
    for call in calls:
        try:
            call()
            results.append("NO ERROR")
        except drv.Error as exc:
            results.append(f"{type(exc).__name__}: {exc}")
    return results


def pool_worker(_):
    return float(gpuarray.to_gpu(np.ones(3, np.float32)).get().sum())


if __name__ == "__main__":
    pid = os.fork()
    if pid == 0:
        for line in use_cuda_in_child():
            print("CHILD", line.replace("\\n", " "))
        sys.exit(0)  # a normal exit: atexit handlers and finalizers run in the child
    _, status = os.waitpid(pid, 0)
    print("PARENT child exit", os.waitstatus_to_exitcode(status))
    with multiprocessing.get_context("fork").Pool(1) as pool:
        try:
            pool.map(pool_worker, [0])
            print("POOL NO ERROR")
        except drv.Error as exc:
            print("POOL", type(exc).__name__, str(exc).replace("\\n", " "))
    assert (a.get() == np.arange(10)).all()  # the parent's CUDA is untouched
    print("PARENT OK")
"""


@gpu
def test_forked_child_gets_a_clear_error_and_never_hangs(tmp_path):
    script = tmp_path / "fork_after_init.py"
    script.write_text(FORK_PROGRAM)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, env=child_env(), capture_output=True,
        text=True, timeout=120, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    child = [line for line in lines if line.startswith("CHILD")]
    assert len(child) == 6, proc.stdout
    for line in child:
        assert line.startswith("CHILD LogicError: ") and "CUDA_ERROR_NOT_INITIALIZED" in line, line
        assert "forked" in line and "spawn" in line, line
    assert "PARENT child exit 0" in lines, proc.stdout
    pool = [line for line in lines if line.startswith("POOL")]
    assert pool and pool[0].startswith("POOL LogicError") and "spawn" in pool[0], proc.stdout
    assert "PARENT OK" in lines, proc.stdout
    # The pool's worker error is printed by us above; nothing else may reach stderr.
    assert not noise_in(proc.stderr), proc.stderr


SPAWN_PROGRAM = """
import multiprocessing

import numpy as np


def work(k):
    import pycuda.autoinit  # noqa: F401
    from pycuda import gpuarray

    x = np.arange(1000, dtype=np.float32)
    return float((gpuarray.to_gpu(x) * k).get().sum())


if __name__ == "__main__":
    import pycuda.autoinit  # noqa: F401 - the parent uses CUDA too, before starting workers
    from pycuda import gpuarray

    assert float(gpuarray.sum(gpuarray.to_gpu(np.ones(10, np.float32))).get()) == 10
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        results = pool.map(work, range(8))
    assert results == [float(np.arange(1000).sum() * k) for k in range(8)], results
    print("spawn OK")
"""


@gpu
def test_multiprocessing_spawn_works(tmp_path):
    script = tmp_path / "spawn_workers.py"
    script.write_text(SPAWN_PROGRAM)
    proc = subprocess.run(
        [sys.executable, str(script)], cwd=ROOT, env=child_env(), capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "spawn OK"
    assert not noise_in(proc.stderr), proc.stderr


SHARED_SOURCES = [
    f"__global__ void shared{k}(float *a, int n) {{ int i = threadIdx.x; if (i < n) "
    f"a[i] = a[i] * {k + 2}.0f + sinf(a[i]); }}"
    for k in range(4)
]

COMPILER_PROGRAM = """
import hashlib
import sys

import pycuda.compiler as compiler

cache, me, forbid = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "forbid"
if forbid:
    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled although every entry should be in the cache")
    compiler._compile_nvrtc = no_compiling
sources = SHARED_SOURCES
if me >= 0:
    sources = sources + ["__global__ void own(int *a) { a[0] = %d; }" % me]
print(" ".join(hashlib.sha256(compiler.compile(s, arch="sm_90", cache_dir=cache)).hexdigest()
               for s in sources))
""".replace("SHARED_SOURCES", repr(SHARED_SOURCES), 1)


@needs_nvrtc
def test_sixteen_processes_compile_into_one_cache(tmp_path):
    cache = str(tmp_path / "cache")
    procs = [
        subprocess.Popen(
            [*python_command(COMPILER_PROGRAM), cache, str(i), "compile"],
            cwd=ROOT,
            env=child_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for i in range(16)
    ]
    outputs = [p.communicate(timeout=300) for p in procs]
    hashes = []
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err
        assert "pycuda compile cache" not in err, err  # no failed or raced store
        hashes.append(out.split())
        assert len(hashes[-1]) == len(SHARED_SOURCES) + 1, out
    # Each process got its own kernel (16 different binaries: no entry served another key).
    assert len({h[-1] for h in hashes}) == 16
    # A 17th process finds every shared kernel in the cache, as one of those compiled.
    last = run_python(COMPILER_PROGRAM, args=(cache, "-1", "forbid"), timeout=120)
    assert last.returncode == 0, last.stderr
    for k, digest in enumerate(last.stdout.split()):
        assert digest in {h[k] for h in hashes}, k


@needs_nvrtc
def test_sixteen_threads_compile_into_one_cache(tmp_path):
    import pycuda.compiler as compiler

    cache = str(tmp_path / "cache")
    results: dict[int, list[bytes]] = {}

    def work(t: int) -> None:
        sources = [*SHARED_SOURCES, f"__global__ void own(int *a) {{ a[0] = {t}; }}"]
        results[t] = [compiler.compile(s, arch="sm_90", cache_dir=cache) for s in sources]

    errors = _run_threads(THREADS, work)
    assert not errors, "\n".join(errors)
    for t in range(THREADS):
        for k, binary in enumerate(results[t][: len(SHARED_SOURCES)]):
            assert binary[:4] == b"\x7fELF" and f"shared{k}".encode() in binary, (t, k)
    # Each thread got its own kernel (no entry served another key).
    assert len({results[t][-1] for t in range(THREADS)}) == THREADS
