"""bindings/*.cpp compile under CPython's limited API (the one abi3 wheel for 3.12+, issue 20).

Every CPython call that the limited API spells differently goes through bindings/python_api.hpp.
The syntax-only compile needs a C++ compiler, nanobind's headers, cuda.h and the headers of a
CPython 3.12 or later: the running interpreter's where it is one, else the folder named by
$PYCUDA_LIMITED_API_INCLUDE (the one holding Python.h); it skips with the reason otherwise.
The text check below runs everywhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BINDINGS = sorted((ROOT / "bindings").glob("*.cpp"))
HEADER = ROOT / "bindings" / "python_api.hpp"
LIMITED_API = "0x030C0000"  # what nanobind's STABLE_ABI build defines Py_LIMITED_API to

# Names of the full API (or of CPython's structs) with a limited-API form in python_api.hpp.
FULL_API_ONLY = re.compile(
    r"\b(PyTuple_(GET|SET)_\w+|PyList_(GET|SET)_\w+|PySequence_Fast_(ITEMS|GET_\w+)"
    r"|PyMemoryView_GET_\w+|Py_complex|PyComplex_AsCComplex|PyUnicode_CHECK_INTERNED"
    r"|PyUnicode_AsUTF8|PyObject_CallOneArg|PyMethod_New|_?Py_IsFinalizing"
    r"|_?PyThreadState_\w*Unchecked\w*|PyListObject|PyTupleObject)\b|->tp_\w+"
)


def python_include() -> tuple[Path | None, str]:
    """A CPython >= 3.12 include folder and where it came from, or None and why not."""
    named = os.environ.get("PYCUDA_LIMITED_API_INCLUDE")
    if named:
        folder = Path(named)
        if not (folder / "Python.h").is_file():
            raise AssertionError(f"PYCUDA_LIMITED_API_INCLUDE={named}: no Python.h there")
        return folder, "PYCUDA_LIMITED_API_INCLUDE"
    if sys.version_info < (3, 12):
        return None, (
            f"the limited-API compile needs CPython >= 3.12 headers (this is "
            f"{sys.version_info.major}.{sys.version_info.minor}): set "
            "PYCUDA_LIMITED_API_INCLUDE to the folder holding their Python.h"
        )
    folder = Path(sysconfig.get_paths()["include"])
    if not (folder / "Python.h").is_file():
        return None, f"the running interpreter's headers are not installed ({folder})"
    return folder, "the running interpreter"


def cuda_include() -> Path | None:
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            candidates = [Path(os.environ[env]) / "include"]
            break
    else:
        candidates = [Path("/usr/local/cuda/include")]
    return next((c for c in candidates if (c / "cuda.h").is_file()), None)


@pytest.fixture(scope="module")
def limited_compile() -> list[str]:
    """The compiler command line up to the source file; skips where a part is missing."""
    include, origin = python_include()
    if include is None:
        pytest.skip(origin)
    cxx = os.environ.get("CXX") or shutil.which("clang++") or shutil.which("g++")
    if not cxx:
        pytest.skip("no C++ compiler (clang++, g++ or $CXX) for the limited-API compile")
    try:
        import nanobind
    except ImportError:
        pytest.skip("nanobind is not installed (its headers are needed)")
    cuda = cuda_include()
    if cuda is None:
        pytest.skip("cuda.h not found (CUDA_HOME, CUDA_PATH, /usr/local/cuda)")
    return [
        cxx, "-fsyntax-only", "-std=gnu++20", f"-DPy_LIMITED_API={LIMITED_API}",
        f"-I{include}", f"-I{nanobind.include_dir()}", f"-I{ROOT}", f"-I{cuda}",
        "-Wno-deprecated-declarations",
    ]  # fmt: skip


@pytest.mark.parametrize("source", BINDINGS, ids=lambda p: p.name)
def test_binding_compiles_under_limited_api(limited_compile, source):
    proc = subprocess.run(
        [*limited_compile, str(source)], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, (
        f"{source.name} does not compile with Py_LIMITED_API={LIMITED_API}; reach CPython "
        f"through bindings/python_api.hpp:\n{proc.stderr}"
    )


@pytest.mark.parametrize(
    "source", [*BINDINGS, *(ROOT / "bindings").glob("*.hpp")], ids=lambda p: p.name
)
def test_full_api_names_only_in_python_api_header(source):
    """Where no 3.12+ headers are at hand, this catches the usual slips without a compile."""
    if source == HEADER:
        return
    slips = [
        f"{source.name}:{number}: {line.strip()}"
        for number, line in enumerate(source.read_text().splitlines(), 1)
        if FULL_API_ONLY.search(line.split("//")[0])
    ]
    assert not slips, "use bindings/python_api.hpp (not in the limited API):\n" + "\n".join(slips)
