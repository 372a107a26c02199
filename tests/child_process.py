"""Helpers for tests that run a program in a fresh interpreter: a context poisoned by a kernel
fault, a fork, a signal or an exit cannot be tested inside the pytest process itself."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pycuda

ROOT = Path(__file__).resolve().parent.parent
# The pycuda the tests import (an installed one, or python/ through PYTHONPATH) is the one the
# child imports.
_PACKAGE_PARENT = str(Path(pycuda.__file__).resolve().parent.parent)

# What a clean exit must not print: a traceback, an exception ignored during shutdown, a clean-up
# report, nanobind's leak report, an abort.
NOISE = (
    "Traceback",
    "Exception ignored",
    "clean-up operation failed",
    "leaked",
    "Aborted",
    "could not pop",
)


def child_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, PYTHONUNBUFFERED="1", **extra)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_PARENT, env.get("PYTHONPATH")]))
    return env


def python_command(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def run_python(
    code: str, timeout: float = 120, args: tuple[str, ...] = (), **env: str
) -> subprocess.CompletedProcess:
    """Runs `code` in a fresh interpreter; stdout and stderr as text."""
    return subprocess.run(
        [*python_command(code), *args],
        cwd=ROOT,
        env=child_env(**env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def noise_in(stderr: str) -> list[str]:
    """The lines of `stderr` that a clean run must not print."""
    return [line for line in stderr.splitlines() if any(n in line for n in NOISE)]
