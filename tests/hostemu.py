"""The host-memory fake libcuda of tests/hostemu.c: built here, run in child interpreters.

A test hands Python code to ``run_with_hostemu``; it runs in a fresh interpreter whose pycuda
loads the fake driver (``PYCUDA_LIBCUDA``), with ``drv``, ``np``, ``_driver``, a made context
``ctx`` and ``stats()`` (the fake's counters: page-locked allocations and bytes alive, deferred
and synchronous copies run, copies pending) already defined.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

from child_process import noise_in, run_python

SOURCE = Path(__file__).with_name("hostemu.c")

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


def compiler() -> str | None:
    """A C compiler, or None (the tests using the fake then skip)."""
    return shutil.which("cc") or shutil.which("gcc")


def build(directory: Path) -> Path:
    """Compiles tests/hostemu.c into ``directory``/libcuda.so.1; returns its path."""
    lib = directory / "libcuda.so.1"
    subprocess.run(
        [compiler(), "-O1", "-shared", "-fPIC", "-pthread", "-o", str(lib), str(SOURCE)],
        check=True,
    )
    return lib


def run_with_hostemu(lib: Path, code: str, timeout: float = 300, **env: str) -> str:
    """Runs PRELUDE + ``code`` against the fake driver ``lib`` (with the environment variables
    ``env`` added, e.g. HOSTEMU_WITHOUT); asserts a clean exit (status 0, nothing in stderr
    that a clean run must not print) and returns stdout."""
    program = PRELUDE + textwrap.dedent(code)
    proc = run_python(program, timeout=timeout, PYCUDA_LIBCUDA=str(lib), **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not noise_in(proc.stderr), proc.stderr
    return proc.stdout
