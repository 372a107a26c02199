"""pycuda._nvtx: the switch of pycuda's automatic NVTX ranges, and how the package opens one.

The automatic ranges mark, on a profiler's timeline (Nsight Systems), the compiles
(``compiler.compile``, ``SourceModule``) and the GPUArray operations (the element-wise
operators, ``fill``, ``_array_core.launch``), in the NVTX domain "pycuda". They are off by
default; ``PYCUDA_NVTX=1`` in the environment when pycuda is imported turns them on, and so does
``pycuda.profiler.set_auto_ranges(True)``.

Code that opens one checks ``AUTO.on`` first: while they are off, that attribute read is all
they cost. The C++ launches of the operators read the same setting from the extension
(``_driver.nvtx_auto_ranges()``), which ``set_auto_ranges`` keeps equal to ``AUTO.on``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from pycuda import _driver

ENV_VAR = "PYCUDA_NVTX"
_OFF_WORDS = ("", "0", "false", "no", "off")


class AutoRanges:
    """Whether the automatic ranges are on (``on``, a plain attribute: read on hot paths)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


AUTO = AutoRanges()


def set_auto_ranges(on: bool) -> None:
    """Turn the automatic ranges on or off, in Python and in the C++ launches together."""
    on = bool(on)
    _driver.set_nvtx_auto_ranges(on)
    AUTO.on = on


def env_wants_ranges(value: str | None) -> bool:
    """What ``$PYCUDA_NVTX`` asks: on for any value but unset, empty, 0, false, no, off."""
    return value is not None and value.strip().lower() not in _OFF_WORDS


class AutoRange:
    """One of pycuda's own ranges for a ``with`` block; open it only where ``AUTO.on``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __enter__(self) -> AutoRange:
        _driver.nvtx_push_auto_range(self.name)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _driver.nvtx_pop_auto_range()


def in_range(name: str, func: Callable[..., Any], *args: Any) -> Any:
    """``func(*args)`` inside one of pycuda's own ranges named ``name``."""
    _driver.nvtx_push_auto_range(name)
    try:
        return func(*args)
    finally:
        _driver.nvtx_pop_auto_range()


set_auto_ranges(env_wants_ranges(os.environ.get(ENV_VAR)))
