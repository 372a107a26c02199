"""Recorded launches for CPU tests of the reductions: SourceModule replaced by modules whose
functions log their prepared calls, memory handed out instead of allocated, a stand-in device.
"""

from __future__ import annotations

from typing import Any


class FakeDevice:
    """Context.get_device()'s stand-in: an H100-like multiprocessor count and thread limit."""

    def get_attribute(self, attr: Any) -> int:
        from pycuda import driver

        return 132 if attr == driver.device_attribute.MULTIPROCESSOR_COUNT else 2048


class Memory:
    """Addresses handed out from ``start`` on: 256-byte aligned, never reused."""

    def __init__(self, start: int = 1 << 20) -> None:
        self.next = start

    def allocate(self, size: int) -> int:
        ptr = self.next
        self.next += (size + 255) // 256 * 256 + 256
        return ptr


class LaunchLog(Memory):
    """``module`` stands in for SourceModule: its functions append (name, grid, block, args)
    to ``calls`` for prepared_call, and (name, grid, block, args, stream) for the async form."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[Any, ...]] = []

    def module(self, source: str, options: Any = None, keep: bool = False,
               no_extern_c: bool = False, **kw: Any) -> Any:  # fmt: skip
        log = self

        class Function:
            def __init__(self, name: str) -> None:
                self.name = name

            def prepare(self, fmt: str) -> None:
                self.format = fmt

            def prepared_call(self, grid: Any, block: Any, *args: Any) -> None:
                log.calls.append((self.name, grid, block, args))

            def prepared_async_call(self, grid: Any, block: Any, stream: Any, *args: Any) -> None:
                log.calls.append((self.name, grid, block, args, stream))

        class Module:
            def get_function(self, name: str) -> Function:
                return Function(name)

        return Module()


def without_new_memory(calls: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A reduction's launches without the addresses of new memory (the result's and the
    partials'), checking that stage 2 reads what stage 1 wrote (a launch queued on no stream
    counts as the synchronous one)."""
    calls = [c[:4] if len(c) == 5 and c[4] is None else c for c in calls]
    if len(calls) == 2:
        assert calls[1][3][1] == calls[0][3][0]
        return [calls[0][:3] + (calls[0][3][1:],), calls[1][:3] + (calls[1][3][2:],)]
    return [(name, grid, block, args[1:]) for name, grid, block, args in calls]
