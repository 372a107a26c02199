"""Without a CUDA driver: pycuda imports, and init/autoinit fail with one clear error (CPU).

Each case runs in a fresh interpreter whose PYCUDA_LIBCUDA points nowhere; they skip where a
libcuda is installed, since the dynamic linker would find that one.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
NOWHERE = "/nonexistent/pycuda-test/libcuda.so.1"


def _libcuda_installed() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


pytestmark = pytest.mark.skipif(
    _libcuda_installed(), reason="a libcuda.so.1 is installed here, so the driver can be found"
)


def run_python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYCUDA_LIBCUDA=NOWHERE)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_import_works_and_init_raises_one_clear_error():
    proc = run_python(
        """
        import json
        import pycuda.driver as drv
        result = {}
        try:
            drv.init()
        except drv.RuntimeError as exc:
            result["init"] = [str(exc), exc.__cause__ is None, exc.__context__ is None,
                              isinstance(exc, drv.Error)]
        try:
            import pycuda.autoinit
        except drv.RuntimeError as exc:
            result["autoinit"] = [str(exc), exc.__cause__ is None, exc.__context__ is None,
                                  isinstance(exc, drv.Error)]
        print(json.dumps(result))
        """
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    for what in ("init", "autoinit"):
        assert what in result, f"{what} did not raise pycuda.driver.RuntimeError: {proc.stdout}"
        message, no_cause, no_context, is_driver_error = result[what]
        assert "libcuda.so.1" in message
        assert NOWHERE in message  # where it looked
        assert "/usr/lib" in message
        assert no_cause and no_context, "the error must not be chained"
        assert is_driver_error


def test_uncaught_autoinit_error_exits_normally_with_one_traceback():
    proc = run_python("import pycuda.autoinit")
    assert proc.returncode == 1, (proc.returncode, proc.stderr)  # not a signal, not an abort
    assert proc.stderr.count("Traceback") == 1
    assert "During handling of the above exception" not in proc.stderr
    assert "direct cause" not in proc.stderr
    # DriverNotFoundError: a pycuda.driver.RuntimeError (and an ImportError)
    assert "DriverNotFoundError" in proc.stderr and "libcuda.so.1" in proc.stderr
    assert "PyCUDA ERROR" not in proc.stderr


def test_modules_import_without_a_driver():
    proc = run_python(
        """
        import pycuda, pycuda.driver, pycuda.tools, pycuda.characterize, pycuda.debug
        import pycuda.compyte.dtypes
        print("imported")
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "imported"
