"""Shared libraries are opened through one door, core/driver_api: no module of the package opens
one itself (ctypes.CDLL and its kin, dlopen), and no other C++ file calls the loader.

(Issue 12's layout rules; NVRTC and cuRAND are found and opened by core, which
``pycuda._driver.find_nvrtc``/``find_curand`` report without opening them.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import pycuda

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = Path(pycuda.__file__).resolve().parent

# ctypes' library loaders (and their lazy loaders and aliases), and a dlopen of any binding.
_LOADER_NAMES = {"CDLL", "PyDLL", "WinDLL", "OleDLL", "cdll", "pydll", "windll", "oledll"}
_LOADER_NAMES |= {"LoadLibrary", "dlopen"}
_CPP_LOADER_CALL = re.compile(
    r"\b(dlopen|dlmopen|dlsym|dlvsym|dlinfo|dladdr1?|cuGetProcAddress)\s*\("
)
_THE_DOOR = "core/driver_api.cpp"


def library_loads(source: str) -> list[str]:
    """Each use of a library loader in Python ``source``, as "line: name"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in _LOADER_NAMES:
            found.append(f"{node.lineno}: {node.attr}")
        elif isinstance(node, ast.Name) and node.id in _LOADER_NAMES:
            found.append(f"{node.lineno}: {node.id}")
        elif isinstance(node, ast.ImportFrom) and node.module in ("ctypes", "_ctypes"):
            found += [f"{node.lineno}: {a.name}" for a in node.names if a.name in _LOADER_NAMES]
    return found


def test_the_check_sees_each_way_of_loading():
    assert library_loads("import ctypes\nlib = ctypes.CDLL('libcurand.so')\n") == ["2: CDLL"]
    assert library_loads("from ctypes import cdll\ncdll.LoadLibrary('x')\n") == [
        "1: cdll",
        "2: LoadLibrary",
        "2: cdll",
    ]
    assert library_loads("import _ctypes\n_ctypes.dlopen('x')\n") == ["2: dlopen"]
    # NumPy's .ctypes attribute and text that names a loader are no loads.
    assert library_loads("p = ary.ctypes.data\ns = 'ctypes.CDLL'  # dlopen\n") == []


def test_no_package_module_opens_a_library():
    modules = sorted(PACKAGE.rglob("*.py"))
    assert len(modules) > 40, PACKAGE
    loads = {
        str(m.relative_to(PACKAGE)): found
        for m in modules
        if (found := library_loads(m.read_text(encoding="utf-8")))
    }
    assert loads == {}, "open libraries through core/driver_api (pycuda._driver), not ctypes"


def test_only_driver_api_calls_the_loader():
    if not (ROOT / _THE_DOOR).is_file():
        pytest.skip("the C++ sources are not next to these tests")
    calls = {}
    for path in sorted([*ROOT.glob("core/*.[ch]pp"), *ROOT.glob("bindings/*.[ch]pp")]):
        name = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        found = [
            f"{i}: {m.group(1)}"
            for i, line in enumerate(lines, 1)
            if (m := _CPP_LOADER_CALL.search(line.split("//", 1)[0]))
        ]
        if found and name != _THE_DOOR:
            calls[name] = found
    assert calls == {}, f"only {_THE_DOOR} may open libraries or resolve their symbols"
    assert _CPP_LOADER_CALL.search((ROOT / _THE_DOOR).read_text(encoding="utf-8"))
