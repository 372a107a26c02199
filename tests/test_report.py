"""Tests of the device report, python -m pycuda: without a GPU (CPU) and with one (gpu)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import gpu_unavailable_reason

ROOT = Path(__file__).resolve().parent.parent


def run_report(**env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pycuda"],
        cwd=ROOT,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_report_without_a_driver_says_what_is_missing():
    proc = run_report(PYCUDA_LIBCUDA="/nonexistent/pycuda-test/libcuda.so.1")
    if gpu_unavailable_reason() is None:
        # A driver is installed here and the dynamic linker finds it despite PYCUDA_LIBCUDA.
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "pycuda:" in proc.stdout and "2026.1" in proc.stdout
    assert "driver:    NOT FOUND" in proc.stdout
    assert "libcuda.so.1" in proc.stdout
    assert "/nonexistent/pycuda-test/libcuda.so.1" in proc.stdout  # where it looked
    assert proc.stdout.rstrip().splitlines()[-1].startswith("NO USABLE GPU: ")


@pytest.mark.gpu
def test_report_with_a_gpu_runs_the_test_kernel_everywhere():
    import pycuda.driver as drv

    proc = run_report()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Traceback" not in out + proc.stderr
    assert drv.driver_library_path() in out
    count = drv.Device.count()
    for index in range(count):
        assert f"device {index}:  {drv.Device(index).name()}" in out
    assert out.count("test kernel: ok") == count
    assert "compute capability" in out and "SMs" in out and "GB/s" in out
    assert out.rstrip().splitlines()[-1] == f"OK: {count} device(s) ran the test kernel correctly"
