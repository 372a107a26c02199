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
