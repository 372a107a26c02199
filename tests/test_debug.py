"""Tests of python -m pycuda.debug: debugging is on, then the script runs with its args (CPU)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_debug_runs_script_with_debugging_on(tmp_path):
    script = tmp_path / "show.py"
    (tmp_path / "sibling_module_of_show.py").write_text("VALUE = 'sibling'\n")
    script.write_text(
        "import sys\n"
        "import pycuda.driver\n"
        "import sibling_module_of_show\n"
        "print(pycuda.driver.CUDA_DEBUGGING, __name__, sys.argv[1:], "
        "sibling_module_of_show.VALUE)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pycuda.debug", str(script), "a", "--b"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "True __main__ ['a', '--b'] sibling"


def test_debug_without_script_prints_usage():
    proc = subprocess.run(
        [sys.executable, "-m", "pycuda.debug"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert "usage" in proc.stderr
