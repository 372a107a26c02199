"""A fake libcuda.so.1 for CPU tests: tests/fake_driver/hostemu.c, built here with gcc.

Device memory is host memory; contexts, copies, streams, events, modules (with their globals)
and CUDA arrays behave, and stream captures and graphs replay their memsets and copies; kernel
launches do nothing, so results of kernels are not computed.
Point PYCUDA_LIBCUDA at the built file (it comes first in the driver search, even on a machine
with a real driver).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

SOURCE = Path(__file__).resolve().parent / "fake_driver" / "hostemu.c"


def build(directory: Path) -> str:
    """The path of a fresh build in ``directory``; skips the test without a C compiler."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if gcc is None:
        pytest.skip("no C compiler (gcc) to build the fake driver tests/fake_driver/hostemu.c")
    out = directory / "libcuda.so.1"
    subprocess.run([gcc, "-shared", "-fPIC", "-O1", "-o", str(out), str(SOURCE)], check=True)
    return str(out)
