"""pycuda._lazy_import: a module imported where it is first used, not where it is named.

    np = lazy_module("numpy", globals(), "np")

A program that never touches an array (a device query) then never pays for NumPy's import,
which is about a third of such a process's life. At the first attribute read the stand-in
imports the module and puts the module itself under its name in the owner's namespace, so
every later read costs what a plain global costs.
"""

from __future__ import annotations

import sys
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
