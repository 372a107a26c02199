"""``DebugMemoryPool``: a DeviceMemoryPool that reports every allocation (``pycuda.tools``).

Before each allocation it writes to ``logfile`` (default ``sys.stdout``), in the original's
format: the size, the device's free memory before the last allocation and now, the pool's held
and active blocks, where the allocation comes from, and how many blocks of each size and origin
are alive::

      Allocation of size 4000 occurring (mem: last_free:..., free: ..., total:...) (pool: ...):
          at: <module>|main|allocate
      main|allocate (4000 bytes): 2x

The origin is the chain of calling functions' names, or, with ``interactive=True`` (the
default, as in the original), a mnemonic asked for once per chain and size and remembered in
``$XDG_CACHE_HOME/pycuda/stacktrace-mnemonics.json``; interactive mode also waits for Enter
after each report. No dependency beyond the standard library (the original needed pytools).

    pool = DebugMemoryPool(interactive=False, logfile=open("alloc.log", "w"))
    x = gpuarray.empty(1000, numpy.float32, allocator=pool.allocate)
"""

from __future__ import annotations

import itertools
import json
import os
import sys
import traceback
import weakref
from collections import Counter
from typing import Any

import pycuda.driver as cuda
from pycuda._arg_checks import require
from pycuda._driver import DeviceMemoryPool


class _BlockTracker:
    """Kept in an allocation's ``__dict__``: dies with the allocation, and so tells the pool."""

    __slots__ = ("__weakref__",)


def _mnemonics_path() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pycuda", "stacktrace-mnemonics.json")


class _MnemonicStore:
    """Names given to (call chain, size) pairs, kept on disk between runs."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            with open(path) as f:
                self._names: dict[str, str] = json.load(f)
        except (OSError, ValueError):
            self._names = {}

    @staticmethod
    def _key(stack: tuple[str, ...], size: int) -> str:
        return json.dumps([list(stack), size])

    def __getitem__(self, key: tuple[tuple[str, ...], int]) -> str:
        return self._names[self._key(*key)]

    def __setitem__(self, key: tuple[tuple[str, ...], int], name: str) -> None:
        self._names[self._key(*key)] = name
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        temporary = f"{self.path}.{os.getpid()}.tmp"
        with open(temporary, "w") as f:
            json.dump(self._names, f)
        os.replace(temporary, self.path)  # never a half-written file


class DebugMemoryPool(DeviceMemoryPool):
    """A :class:`DeviceMemoryPool` that logs each allocation (see the module's description).

    ``blocks`` maps each live allocation's number to ``(size, origin)``; ``last_free`` is the
    device's free memory after the previous allocation.
    """

    def __init__(self, interactive: bool = True, logfile: Any = None) -> None:
        if logfile is not None:
            require(logfile, "write", "DebugMemoryPool: logfile", "a file (with .write)")
        super().__init__()
        self.last_free, _ = cuda.mem_get_info()
        self.interactive = interactive
        self.logfile = sys.stdout if logfile is None else logfile
        self.blocks: dict[int, tuple[int, str]] = {}
        self._numbers = itertools.count()
        if interactive:
            self.stacktrace_mnemonics = _MnemonicStore(_mnemonics_path())

    def allocate(self, size: int) -> Any:
        """A PooledDeviceAllocation of ``size`` bytes, reported before it is made."""
        stack = tuple(frame.name for frame in traceback.extract_stack())
        description = self.describe(stack, size)
        histogram = Counter(self.blocks.values())
        prefix = os.path.commonprefix([descr for _, descr in histogram])
        free, total = cuda.mem_get_info()
        print(
            f"\n  Allocation of size {size} occurring (mem: last_free:{self.last_free}, "
            f"free: {free}, total:{total}) (pool: held:{self.held_blocks}, "
            f"active:{self.active_blocks}):\n      at: {description}",
            file=self.logfile,
        )
        for (block_size, descr), count in sorted(histogram.items()):
            print(f"  {descr[len(prefix) :]} ({block_size} bytes): {count}x", file=self.logfile)
        if self.interactive:
            _prompt("  [Enter]")
        result = super().allocate(size)
        number = next(self._numbers)
        self.blocks[number] = (size, description)
        # The tracker dies with the allocation (it is only in its __dict__); the entry goes then.
        tracker = _BlockTracker()
        weakref.finalize(tracker, self.blocks.pop, number, None)
        result._debug_memory_pool_tracker = tracker
        self.last_free, _ = cuda.mem_get_info()
        return result

    def describe(self, stack: tuple[str, ...], size: int) -> str:
        """The origin of an allocation: the call chain, or its mnemonic (interactive)."""
        if not self.interactive:
            return "|".join(stack)
        try:
            return self.stacktrace_mnemonics[stack, size]
        except KeyError:
            pass
        print(size, stack)
        while True:
            mnemonic = _prompt("Enter mnemonic or [Enter] for more info:")
            if mnemonic is None:  # no one to answer: the call chain names it
                mnemonic = "|".join(stack)
            if mnemonic:
                break
            traceback.print_stack()
        self.stacktrace_mnemonics[stack, size] = mnemonic
        return mnemonic


def _prompt(text: str) -> str | None:
    """The user's answer, or None where standard input has ended (a pipe, a batch job), so
    that an interactive pool in a script without a terminal still allocates."""
    try:
        return input(text)
    except EOFError:
        return None
