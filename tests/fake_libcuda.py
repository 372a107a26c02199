"""The fake libcuda.so.1 of tests/fake_driver/hostemu.c: built here, run in child interpreters.

Device memory is host memory; contexts, copies (page-locked async ones deferred until a
synchronization), streams, events, modules (with their globals) and CUDA arrays behave; kernel
launches do nothing, so results of kernels are not computed. Point PYCUDA_LIBCUDA at the built
file (it comes first in the driver search, even on a machine with a real driver): the
``fake_libcuda_so`` fixture of conftest.py gives its path, and ``run_on_fake`` runs code against it
with the fake's counters at hand.

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

SOURCE = Path(__file__).resolve().parent / "fake_driver" / "hostemu.c"
FLAGS = ("-O1", "-shared", "-fPIC", "-pthread")

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
    """Compiles SOURCE into ``directory``/libcuda.so.1 and returns its path; skips the calling
    test without a C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip(f"no C compiler to build the fake driver {SOURCE}")
    lib = directory / "libcuda.so.1"
    subprocess.run([cc, *FLAGS, "-o", str(lib), str(SOURCE)], check=True)
    return lib


def run_on_fake(lib: Path, code: str, timeout: float = 300) -> str:
    """Runs PRELUDE + ``code`` against the fake ``lib`` in a fresh interpreter, where ``drv``,
    ``np``, ``_driver``, a made context ``ctx`` and ``stats()`` (the fake's counters: page-locked
    allocations and bytes alive, deferred and synchronous copies run, copies pending) are
    defined; asserts a clean exit (status 0, nothing in stderr that a clean run must not print)
    and returns stdout."""
    program = PRELUDE + textwrap.dedent(code)
    proc = run_python(program, timeout=timeout, PYCUDA_LIBCUDA=str(lib))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not noise_in(proc.stderr), proc.stderr
    return proc.stdout


if __name__ == "__main__":
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(build(out))
