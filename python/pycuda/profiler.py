"""pycuda.profiler: profiler control and NVTX annotations for Nsight Systems *(new)*.

    import pycuda.profiler as profiler

    with profiler.range("solve", color="green"):
        solve()

    @profiler.range("step")
    def step():
        ...

    profiler.mark("converged")
    profiler.set_auto_ranges(True)   # pycuda's own ranges: compiles and GPUArray operations

Ranges and marks go through NVTX v3, compiled into pycuda from the CUDA toolkit's headers. They
cost next to nothing unless a profiler attaches (``nsys profile --trace=cuda,nvtx python ...``),
which NVTX finds by itself; no library is opened otherwise. Where pycuda was built without NVTX's
headers, ``nvtx_available()`` is False and every call here does nothing.

``start_profiler()``/``stop_profiler()`` (also in ``pycuda.driver``, as in the original) limit
what a profiler started with ``--capture-range=cudaProfilerApi`` records.

pycuda's automatic ranges (NVTX domain "pycuda") mark each compile (``compile``,
``SourceModule``) and GPUArray operation (the element-wise operators and functions, ``fill``,
and the kernel launches of reductions, scans and the strided paths, named by kernel). They are
off by default: ``PYCUDA_NVTX=1`` in the environment when pycuda is imported turns them on, as
does ``set_auto_ranges(True)``. Off, they cost one attribute check per operation.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from pycuda import _nvtx
from pycuda._driver import nvtx_available as _nvtx_available
from pycuda._driver import nvtx_mark as _nvtx_mark
from pycuda._driver import nvtx_pop_range as _nvtx_pop_range
from pycuda._driver import nvtx_push_range as _nvtx_push_range
from pycuda._driver import start_profiler, stop_profiler

__all__ = [
    "auto_ranges",
    "mark",
    "nvtx_available",
    "pop_range",
    "push_range",
    "range",
    "set_auto_ranges",
    "start_profiler",
    "stop_profiler",
]

F = TypeVar("F", bound=Callable[..., Any])

# Colors by name, as 0xRRGGBB (CSS's values).
COLORS = {
    "black": 0x000000,
    "blue": 0x0000FF,
    "brown": 0xA52A2A,
    "cyan": 0x00FFFF,
    "gray": 0x808080,
    "green": 0x008000,
    "grey": 0x808080,
    "lime": 0x00FF00,
    "magenta": 0xFF00FF,
    "orange": 0xFFA500,
    "pink": 0xFFC0CB,
    "purple": 0x800080,
    "red": 0xFF0000,
    "white": 0xFFFFFF,
    "yellow": 0xFFFF00,
}


def argb(color: int | str | None) -> int | None:
    """``color`` as NVTX's 0xAARRGGBB: an int 0xRRGGBB (opaque) or 0xAARRGGBB, ``"#rrggbb"``,
    or a name in ``COLORS``; None stays None (the profiler's own color)."""
    if color is None:
        return None
    if isinstance(color, str):
        text = color.strip().lower()
        if text in COLORS:
            return 0xFF000000 | COLORS[text]
        digits = text[1:] if text.startswith("#") else None
        if digits is None or len(digits) != 6 or any(c not in "0123456789abcdef" for c in digits):
            raise ValueError(
                f"color {color!r}: give 0xRRGGBB, '#rrggbb' or one of {', '.join(sorted(COLORS))}"
            )
        return 0xFF000000 | int(digits, 16)
    if isinstance(color, bool) or not isinstance(color, int):
        raise TypeError(f"color must be an int, a str or None, not {type(color).__name__}")
    if not 0 <= color <= 0xFFFFFFFF:
        raise ValueError(f"color {color:#x} is not a 32-bit 0xAARRGGBB or 0xRRGGBB value")
    return color if color > 0xFFFFFF else 0xFF000000 | color


def _message(message: Any) -> str:
    if not isinstance(message, str):
        raise TypeError(f"a range or mark is named by a str, not {type(message).__name__}")
    if "\0" in message:
        raise ValueError("a range or mark name cannot contain a NUL character")
    return message


def nvtx_available() -> bool:
    """Whether this pycuda was built with NVTX (otherwise ranges and marks do nothing)."""
    return _nvtx_available()


def push_range(message: str, color: int | str | None = None) -> int:
    """Open a range named ``message`` on this thread; close it with ``pop_range()``. Returns its
    nesting level (from 0), or a negative number when no profiler is attached."""
    return _nvtx_push_range(_message(message), argb(color))


def pop_range() -> int:
    """Close this thread's innermost range opened by ``push_range``; returns its nesting level,
    or a negative number when no profiler is attached."""
    return _nvtx_pop_range()


def mark(message: str, color: int | str | None = None) -> None:
    """An instant event named ``message`` on the profiler's timeline."""
    _nvtx_mark(_message(message), argb(color))


class Range:
    """A named NVTX range: ``with`` it around a block, or decorate a function with it (each
    call is then a range). One object may be used any number of times, nested and from
    several threads: each use opens and closes its own range.

        with Range("load", color="blue"):
            data = load()
    """

    __slots__ = ("message", "color")

    def __init__(self, message: str, color: int | str | None = None) -> None:
        self.message = _message(message)
        self.color = argb(color)

    def __enter__(self) -> Range:
        _nvtx_push_range(self.message, self.color)
        return self

    def __exit__(self, *exc_info: Any) -> None:
        _nvtx_pop_range()

    def __call__(self, func: F) -> F:
        message, color = self.message, self.color

        @functools.wraps(func)
        def ranged(*args: Any, **kwargs: Any) -> Any:
            _nvtx_push_range(message, color)
            try:
                return func(*args, **kwargs)
            finally:
                _nvtx_pop_range()

        return ranged  # type: ignore[return-value]

    def __repr__(self) -> str:
        color = "None" if self.color is None else f"{self.color:#010x}"
        return f"pycuda.profiler.range({self.message!r}, color={color})"


def range(message: str, color: int | str | None = None) -> Range:
    """A range named ``message`` (see ``Range``), as a context manager or a decorator:

    with pycuda.profiler.range("update"):
        ...

    @pycuda.profiler.range("update", color=0x00FF00)
    def update(): ...
    """
    return Range(message, color)


def set_auto_ranges(on: bool = True) -> None:
    """Turn pycuda's automatic ranges (compiles, GPUArray operations) on or off."""
    _nvtx.set_auto_ranges(on)


def auto_ranges() -> bool:
    """Whether pycuda's automatic ranges are on."""
    return _nvtx.AUTO.on
