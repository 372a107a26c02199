"""Every program in examples/ is Python 3 that checks its own result (CPU), and runs (gpu)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.py"))
# The mpi_* examples run under mpirun on two GPUs: tests/test_mpi.py.
SINGLE_PROCESS = [p for p in EXAMPLES if not p.name.startswith("mpi_")]
# Examples of working with other libraries, each with a check that the library can use the GPU
# here (run in a child process: a library's CUDA set-up stays out of the test process).
NEEDS = {
    "interop_cupy.py": "import cupy; assert cupy.cuda.runtime.getDeviceCount() > 0",
    "interop_torch.py": "import torch; assert torch.cuda.is_available()",
    # Numba compiles a kernel of its own: a Numba that cannot (numba-cuda built for another
    # NumPy: "module 'numpy' has no attribute 'row_stack'") is a machine without Numba.
    "interop_numba.py": (
        "from numba import cuda; import numpy as np; assert cuda.is_available()\n"
        "@cuda.jit\ndef k(a):\n    a[0] = 1\n"
        "a = cuda.to_device(np.zeros(1)); k[1, 1](a); assert a.copy_to_host()[0] == 1"
    ),
    "interop_jax.py": "import jax; assert jax.default_backend() == 'gpu'",
}


def test_every_interop_example_names_what_it_needs():
    interop = {p.name for p in EXAMPLES if p.name.startswith("interop_")}
    assert interop == set(NEEDS)


def test_there_are_examples():
    names = {p.name for p in EXAMPLES}
    assert {"hello_gpu.py", "doublify.py", "vec_elm_mul.py", "manual_context.py"} <= names


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_is_python3_and_checks_its_result(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    assert any(isinstance(node, ast.Assert) for node in ast.walk(tree)), "no result check"
    assert ast.get_docstring(tree), "no first line saying what it is"


@pytest.mark.gpu
@pytest.mark.parametrize("path", SINGLE_PROCESS, ids=lambda p: p.name)
def test_example_runs(path):
    if path.name in NEEDS:
        probe = subprocess.run(
            [sys.executable, "-c", NEEDS[path.name]], capture_output=True, text=True, timeout=300
        )
        if probe.returncode != 0:
            lines = probe.stderr.strip().splitlines() or ["(no message)"]
            pytest.skip(f"{path.name} needs what `{NEEDS[path.name]}` checks: {lines[-1]}")
    proc = subprocess.run(
        [sys.executable, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"{path.name} failed:\n{proc.stdout}\n{proc.stderr}"
    assert "Traceback" not in proc.stderr
    assert "PyCUDA ERROR" not in proc.stderr
    last = proc.stdout.rstrip().splitlines()[-1]
    assert last == "Success" or last.startswith(path.stem + ":"), last
