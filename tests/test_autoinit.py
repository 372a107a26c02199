"""Tests of pycuda.autoinit and pycuda.autoprimaryctx, each in a fresh interpreter (gpu)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.gpu


def run_python(code: str, **env: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert "PyCUDA ERROR" not in proc.stderr
    assert "Aborted" not in proc.stderr
    return proc


def test_autoinit_makes_the_primary_context_current():
    proc = run_python(
        """
        import pycuda.autoinit
        import pycuda.driver as drv
        ctx = pycuda.autoinit.context
        assert drv.Context.get_current() == ctx
        assert pycuda.autoinit.device == drv.Device(0)
        assert ctx == drv.Device(0).retain_primary_context()
        assert drv.Context.get_device() == pycuda.autoinit.device
        buf = drv.mem_alloc(1 << 20)
        print("OK")
        """,
        CUDA_DEVICE="0",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"


def test_autoprimaryctx_is_the_same_primary_context():
    proc = run_python(
        """
        import pycuda.autoprimaryctx
        import pycuda.autoinit
        import pycuda.driver as drv
        ctx = pycuda.autoprimaryctx.context
        assert ctx == pycuda.autoinit.context
        assert ctx == pycuda.autoprimaryctx.device.retain_primary_context()
        assert drv.Context.get_current() == ctx
        print("OK")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"


def test_cuda_device_picks_the_device():
    import pycuda.driver as drv

    drv.init()
    last = drv.Device.count() - 1
    proc = run_python(
        f"""
        import pycuda.autoinit
        import pycuda.driver as drv
        assert pycuda.autoinit.device == drv.Device({last})
        print("OK")
        """,
        CUDA_DEVICE=str(last),
    )
    assert proc.returncode == 0, proc.stderr


def test_exit_is_clean_with_extra_contexts_left_pushed():
    proc = run_python(
        """
        import numpy as np
        import pycuda.autoinit
        import pycuda.driver as drv
        extra = drv.Device(0).make_context()        # pushed and never popped
        buf = drv.mem_alloc(4096)                   # owned by the extra context
        drv.memcpy_htod(buf, np.zeros(1024, np.float32))
        pycuda.autoinit.context.push()              # the primary again, on top
        another = drv.Device(0).make_context()      # and one more, never popped
        print("leaving")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "leaving"


def test_primary_context_is_the_runtime_apis():
    # A thread with no context: the runtime API (cudart) makes the primary context current
    # there. It must be autoinit's context.
    proc = run_python(
        """
        import ctypes, ctypes.util, glob, threading
        import pycuda.autoinit
        import pycuda.driver as drv
        names = [ctypes.util.find_library("cudart")] + sorted(
            glob.glob("/usr/local/cuda*/lib64/libcudart.so*"), reverse=True)
        cudart = None
        for name in filter(None, names):
            try:
                cudart = ctypes.CDLL(name)
                break
            except OSError:
                pass
        if cudart is None:
            print("NO_CUDART")
            raise SystemExit(0)
        seen = {}
        def worker():
            assert drv.Context.get_current() is None
            assert cudart.cudaSetDevice(0) == 0
            assert cudart.cudaFree(None) == 0
            seen["ctx"] = drv.Context.get_current()
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert seen["ctx"] == pycuda.autoinit.context, seen
        print("OK")
        """,
        CUDA_DEVICE="0",
    )
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.strip() == "NO_CUDART":
        pytest.skip("no libcudart here to check sharing with the runtime API")
    assert proc.stdout.strip() == "OK"


def test_context_made_in_one_thread_works_in_another():
    proc = run_python(
        """
        import threading
        import numpy as np
        import pycuda.autoinit
        import pycuda.driver as drv
        from pycuda.compiler import SourceModule

        made = drv.Device(0).make_context()
        drv.Context.pop()
        results = {}

        def work(ctx, key):
            ctx.push()
            try:
                mod = SourceModule("__global__ void twice(float *a) { a[threadIdx.x] *= 2; }")
                a = np.arange(32, dtype=np.float32)
                mod.get_function("twice")(drv.InOut(a), block=(32, 1, 1), grid=(1, 1))
                buf = drv.mem_alloc(a.nbytes)
                drv.memcpy_htod(buf, a)
                back = np.empty_like(a)
                drv.memcpy_dtoh(back, buf)
                results[key] = bool(np.array_equal(back, 2 * np.arange(32)))
            finally:
                drv.Context.pop()

        for ctx, key in ((pycuda.autoinit.context, "primary"), (made, "made")):
            t = threading.Thread(target=work, args=(ctx, key))
            t.start()
            t.join()
        assert results == {"primary": True, "made": True}, results
        assert drv.Context.get_current() == pycuda.autoinit.context
        made.detach()
        print("OK")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "OK"
