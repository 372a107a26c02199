"""pycuda._arg_checks: a wrong argument becomes a TypeError that names the call, the argument
and what it must be, instead of an AttributeError from inside (``'int' object has no attribute
'dtype'``). Found by tests/test_fuzz.py."""

from __future__ import annotations

from typing import Any


def require(obj: Any, attributes: str, what: str, expected: str) -> None:
    """TypeError unless ``obj`` has each of ``attributes`` (space-separated names) and is not
    a class (whose descriptors would pass for them)."""
    if not isinstance(attributes, str):
        raise TypeError(f"attributes must be a str of names, got {type(attributes).__name__}")
    if isinstance(obj, type):
        raise TypeError(f"{what} takes {expected}, got the class {obj.__name__}")
    for name in attributes.split():
        if not hasattr(obj, name):
            raise TypeError(
                f"{what} takes {expected}, got {type(obj).__name__} (it has no .{name})"
            )


def require_array(obj: Any, what: str) -> None:
    """TypeError unless ``obj`` is array-like: has shape and dtype (NumPy array, GPUArray)."""
    require(obj, "shape dtype", what, "an array (with .shape and .dtype)")


def require_str(obj: Any, what: str) -> str:
    """``obj`` if it is a str, else TypeError."""
    if not isinstance(obj, str):
        raise TypeError(f"{what} must be a str, got {type(obj).__name__}")
    return obj
