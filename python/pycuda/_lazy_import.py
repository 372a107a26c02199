"""pycuda._lazy_import: a module imported where it is first used, not where it is named.

    np = lazy_module("numpy", globals(), "np")
    __getattr__, __dir__ = lazy_attributes("pycuda.gpuarray", globals(), {
        "cumsum": ("pycuda._axis_scan", "cumsum")})

A program that never touches an array (a device query) then never pays for NumPy's import,
which is about a third of such a process's life; one that adds two arrays never pays for the
reduction, scan and gather machinery. At the first attribute read the stand-in imports the
module and puts the module itself under its name in the owner's namespace, so every later read
costs what a plain global costs; a name served by ``lazy_attributes`` (PEP 562's module
``__getattr__``) is likewise put in the owner's namespace at its first read.

tests/test_layout.py counts the modules named here as imports of the owner: a layer still
points down when it loads later.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any


class LazyModule:
    """Stands for a module under a name in a namespace until the first attribute is read."""

    __slots__ = ("_name", "_namespace", "_alias")

    def __init__(self, name: str, namespace: dict[str, Any], alias: str) -> None:
        self._name, self._namespace, self._alias = name, namespace, alias

    def load(self) -> ModuleType:
        """Import the module and name it in the owner's namespace in place of this stand-in."""
        __import__(self._name)
        module = sys.modules[self._name]
        self._namespace[self._alias] = module
        return module

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.load(), attr)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported at first use>"


def lazy_module(name: str, namespace: dict[str, Any], alias: str) -> Any:
    """A stand-in for module ``name`` named ``alias`` in ``namespace`` (a module's globals())."""
    return LazyModule(name, namespace, alias)


def lazy_attributes(
    owner: str, namespace: dict[str, Any], names: dict[str, tuple[str, str]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A module's ``__getattr__`` and ``__dir__`` (PEP 562) serving ``names``: each public name
    maps to (module, attribute), imported at the name's first read. ``owner`` is the module's
    name, for the AttributeError of a name it does not have."""

    def __getattr__(name: str) -> Any:
        try:
            module, attr = names[name]
        except KeyError:
            raise AttributeError(f"module {owner!r} has no attribute {name!r}") from None
        __import__(module)
        value = namespace[name] = getattr(sys.modules[module], attr)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *names})

    return __getattr__, __dir__
