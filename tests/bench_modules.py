"""tests/bench_modules.py: loads a program of benchmarks/ as a module, for CPU tests of its parts.

The benchmarks are scripts, not a package; each is loaded from its file under a name of its own
(``bench_<stem>``) so that no other test's module of the same stem is shadowed.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
NO_DRIVER = "/nonexistent/pycuda-test/libcuda.so.1"


def load(stem: str) -> ModuleType:
    name = f"bench_{stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def run(stem: str, *args: str, **env: str) -> subprocess.CompletedProcess:
    """``python benchmarks/<stem>.py args...`` in a child process, which finds pycuda as this
    one does (the environment is inherited: PYTHONPATH, or the installed package)."""
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / f"{stem}.py"), *args],
        cwd=ROOT,
        env=dict(os.environ, **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
