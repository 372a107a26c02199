"""The stand-in NVTX tool of tests/nvtx_recorder.c: built here, attached to child interpreters.

``run_recorded`` runs Python code in a fresh interpreter that NVTX finds the recorder in (as it
finds nsys's library: ``$NVTX_INJECTION64_PATH``), with ``events()`` defined: the NVTX events
since the last call, one string each ("push solve", "pop", "push pycuda:add", "pop pycuda",
"mark done #FF00FF00").
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

from child_process import noise_in, run_python

SOURCE = Path(__file__).with_name("nvtx_recorder.c")
CUDA_INCLUDE = Path("/usr/local/cuda/include")

PRELUDE = """
import ctypes, os
_RECORDER = ctypes.CDLL(os.environ["NVTX_INJECTION64_PATH"])
_RECORDER.recorder_log.restype = ctypes.c_char_p

def events():
    return _RECORDER.recorder_log().decode().splitlines()
"""


def unavailable() -> str | None:
    """Why the recorder cannot be built here, or None."""
    if not (shutil.which("cc") or shutil.which("gcc")):
        return "no C compiler for the NVTX recorder"
    if not (CUDA_INCLUDE / "nvtx3" / "nvToolsExt.h").is_file():
        return f"no NVTX headers in {CUDA_INCLUDE}"
    return None


def build(directory: Path) -> Path:
    """Compiles tests/nvtx_recorder.c into ``directory``; returns the library's path."""
    lib = directory / "libnvtx_recorder.so"
    compiler = shutil.which("cc") or shutil.which("gcc")
    subprocess.run(
        [compiler, "-O1", "-shared", "-fPIC", "-pthread", f"-I{CUDA_INCLUDE}", "-o", str(lib),
         str(SOURCE)],
        check=True,
    )  # fmt: skip
    return lib


def run_recorded(lib: Path, code: str, timeout: float = 300, **env: str) -> str:
    """Runs PRELUDE + ``code`` with the recorder attached (``env``: more variables); asserts a
    clean exit and returns stdout."""
    program = PRELUDE + textwrap.dedent(code)
    proc = run_python(program, timeout=timeout, NVTX_INJECTION64_PATH=str(lib), **env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not noise_in(proc.stderr), proc.stderr
    return proc.stdout
