"""Loading libcuda at run time (core/driver_api) with libraries that are not a working driver:
the toolkit's stub and a driver lacking entry points (CPU; each case in a fresh interpreter, with
PYCUDA_LIBCUDA naming the library, which is tried before any installed driver)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STUB = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "lib64" / "stubs" / "libcuda.so"

INIT = textwrap.dedent(
    """
    import pycuda.driver as drv
    try:
        drv.init()
    except drv.RuntimeError as exc:
        print(exc)
    else:
        print("initialized")
    """
)


def _init_with(libcuda: Path) -> str:
    env = dict(os.environ, PYCUDA_LIBCUDA=str(libcuda), PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        [sys.executable, "-c", INIT], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


@pytest.mark.skipif(not STUB.exists(), reason=f"no CUDA toolkit stub library at {STUB}")
def test_the_toolkits_stub_library_is_named_as_such():
    message = _init_with(STUB)
    assert "stub library (CUDA_ERROR_STUB_LIBRARY), not a driver" in message
    assert "install the NVIDIA driver" in message
    assert str(STUB) in message  # the file that was loaded
    assert "cuInit" not in message and len(message) < 400  # no list of entry points


# A libcuda whose cuGetProcAddress finds nothing (CUDA_ERROR_NOT_FOUND).
FINDS_NOTHING = """
int cuGetProcAddress_v2(const char *symbol, void **fn, int version,
                        unsigned long long flags, int *status) {
    *fn = 0;
    if (status) *status = 1;
    return 500;
}
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler to build a fake libcuda")
def test_missing_entry_points_are_a_short_list(tmp_path):
    (tmp_path / "fake.c").write_text(FINDS_NOTHING)
    lib = tmp_path / "libcuda.so.1"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, tmp_path / "fake.c"], check=True)
    message = _init_with(lib)
    assert f"the CUDA driver at {lib} lacks entry points: cuInit " in message
    assert message.endswith(" more)") and "(and " in message
    assert len(message.split(": ", 1)[1].split("(and")[0].split()) == 10
    assert "stub" not in message
