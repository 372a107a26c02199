"""The fake libcuda.so.1 of tests/fake_driver/*.c: built here, run in child interpreters.

Device memory is host memory; contexts, copies (page-locked async ones deferred until a
synchronization), streams, events, modules (with their globals), CUDA arrays and stream-ordered
memory pools behave, and stream captures and graphs replay their memsets and copies; kernel
launches do nothing, so results of kernels are not computed, but they are counted
(``hostemu_launches``, with cuLaunchKernelEx's configuration). Point PYCUDA_LIBCUDA at the built
file (it comes first in the driver search, even on a machine with a real driver): the
``fake_libcuda_so`` fixture of conftest.py gives its path, and ``run_on_fake`` runs code against it
with the fake's counters at hand.

Environment variables of the fake: $HOSTEMU_WITHOUT names entry points to withhold
(comma-separated), as an older driver lacks them; $HOSTEMU_CC is the compute capability (e.g.
"80"; 9.0 without it); with $HOSTEMU_NO_MEMORY_POOLS set the device has no memory pools.

Outside pytest, ``python tests/fake_libcuda.py DIR`` builds it into DIR and prints its path.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from child_process import noise_in, run_python

SOURCES = sorted((Path(__file__).resolve().parent / "fake_driver").glob("*.c"))
# Hidden by default: only what the parts mark EXPORTED is seen from outside.
FLAGS = ("-O1", "-shared", "-fPIC", "-pthread", "-fvisibility=hidden")

PRELUDE = """
import ctypes, os, sys, threading
import numpy as np
import pycuda.driver as drv
from pycuda import _driver

_FAKE = ctypes.CDLL(os.environ["PYCUDA_LIBCUDA"])
_STATS = ("live_host_allocs", "live_host_bytes", "async_htod", "async_dtoh", "sync_htod",
          "sync_dtoh", "pending")

def stats():
    out = (ctypes.c_longlong * len(_STATS))()
    _FAKE.hostemu_stats(out)
    return dict(zip(_STATS, out))

drv.init()
ctx = drv.Device(0).make_context()
"""


def build(directory: Path) -> Path:
    """Compiles SOURCES into ``directory``/libcuda.so.1 and returns its path; skips the calling
    test without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip(f"no C compiler to build the fake driver {SOURCES[0].parent}")
    lib = directory / "libcuda.so.1"
    subprocess.run([cc, *FLAGS, "-o", str(lib), *map(str, SOURCES)], check=True)
    return lib


def run_on_fake(lib: Path, code: str, timeout: float = 300, **env: str) -> str:
    """Runs PRELUDE + ``code`` against the fake ``lib`` in a fresh interpreter, with the
    environment variables ``env`` added (e.g. HOSTEMU_WITHOUT), where ``drv``, ``np``,
    ``_driver``, a made context ``ctx`` and ``stats()`` (the fake's counters: page-locked
    allocations and bytes alive, deferred and synchronous copies run, copies pending) are
    defined; asserts a clean exit (status 0, nothing in stderr that a clean run must not print)
    and returns stdout."""
    program = PRELUDE + textwrap.dedent(code)
    proc = run_python(program, timeout=timeout, PYCUDA_LIBCUDA=str(lib), **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not noise_in(proc.stderr), proc.stderr
    return proc.stdout


if __name__ == "__main__":
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(build(out))
