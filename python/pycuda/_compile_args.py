"""pycuda._compile_args: the checks pycuda.compiler makes on what callers pass it.

    source = source_text(source)                 # str() of a cgen module, as the original did
    options = string_list(options, "options")    # a list of str; a bare str is a TypeError

Strings reach NVRTC and nvcc as C strings, where a NUL byte would silently cut them short
(``-DX=1\\0-o/x`` would compile as ``-DX=1``), so a NUL is a ValueError here.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any


def no_nul(text: str, what: str) -> str:
    """``text``, unless it holds a NUL byte (ValueError)."""
    if "\0" in text:
        raise ValueError(f"{what} contains a NUL byte, which the compiler would cut it at")
    return text


def source_text(source: Any) -> str:
    """The source as text: a str as it is, bytes decoded as UTF-8, anything else through
    ``str()`` (cgen's Module, for one, prints as C). None is refused before any compiler runs
    (the original compiled the text "None" and failed in nvcc)."""
    if source is None:
        raise TypeError("the source must be CUDA C text (a str), got None")
    if isinstance(source, (bytes, bytearray)):
        source = bytes(source).decode("utf-8")
    elif not isinstance(source, str):
        source = str(source)
    return no_nul(source, "the source")


def string_list(values: Iterable[Any], what: str, paths: bool = False) -> list[str]:
    """``values`` as a list of str (os.PathLike items too when ``paths``); TypeError for a
    bare string, which would otherwise be taken one character per item, or a non-str item."""
    if isinstance(values, (str, bytes, os.PathLike)):
        raise TypeError(
            f"{what} must be a list of strings, not a single {type(values).__name__} "
            f"({values!r}); write [{values!r}]"
        )
    try:
        items = list(values)
    except TypeError:
        raise TypeError(f"{what} must be a list of strings, got {type(values).__name__}") from None
    out = []
    for item in items:
        if paths and isinstance(item, os.PathLike):
            item = os.fspath(item)
        if not isinstance(item, str):
            raise TypeError(
                f"{what} must hold strings, got {item!r} ({type(item).__name__}) in {items!r}"
            )
        out.append(no_nul(item, f"{what} item {item!r}"))
    return out


def optional_text(value: str | None, what: str) -> str | None:
    """None, or a str without NUL (TypeError for anything else)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, got {value!r} ({type(value).__name__})")
    return no_nul(value, what)
