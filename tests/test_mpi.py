"""The MPI examples: one GPU per rank under `mpirun -np 2` (needs mpi4py, mpirun, two GPUs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [pytest.mark.gpu, pytest.mark.mpi]


def _mpi_unavailable() -> str | None:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        return "mpi4py is not installed"
    if shutil.which("mpirun") is None:
        return "mpirun is not on PATH"
    import pycuda.driver as drv

    drv.init()
    if drv.Device.count() < 2:
        return f"needs two GPUs, this machine has {drv.Device.count()}"
    return None


@pytest.mark.parametrize("name", ["mpi_scale.py", "mpi_send_gpuarray.py"])
def test_mpi_example_on_two_gpus(name):
    reason = _mpi_unavailable()
    if reason:
        pytest.skip(reason)
    cmd = ["mpirun", "-np", "2", "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    cmd += [sys.executable, str(ROOT / "examples" / name)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{name}:\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    assert f"{Path(name).stem}:" in proc.stdout
