"""pycuda._compile_cache: what identifies a compiled kernel, and where it is kept on disk.

The key is a SHA-256 over the source, the compiler options, the target, the compiler's identity
and version, and the contents of every user header the source includes (found recursively
through the include directories; toolkit headers are covered by the compiler's version).
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Sequence
from typing import Any

from pycuda import _driver
from pycuda._user_warnings import warn_user

_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


def scan_includes(source: bytes, search_dirs: Sequence[str]) -> list[str]:
    """Paths of the headers that `source` includes, recursively, found in `search_dirs` (or,
    for "x", next to the including file). Headers not found there (the toolkit's) are left out:
    the compiler's version covers them."""
    found: list[str] = []
    seen: set[str] = set()
    stack = [(source, os.getcwd())]
    while stack:
        text, here = stack.pop()
        for quote, name in _INCLUDE_RE.findall(text):
            name = os.fsdecode(name.strip())
            candidates = ([here] if quote == b'"' else []) + list(search_dirs)
            for d in candidates:
                path = os.path.join(d, name)
                if os.path.isfile(path):
                    path = os.path.abspath(path)
                    if path not in seen:
                        seen.add(path)
                        found.append(path)
                        with open(path, "rb") as f:
                            stack.append((f.read(), os.path.dirname(path)))
                    break
    return found


def cache_key(
    source: str, options: list[str], target: str, compiler: str, search_dirs: Sequence[str]
) -> tuple[str, list[tuple[str, int, int]]]:
    """(sha256 key, stamps of the user headers included). The key covers the source, the
    options, the target, the compiler and its version, and the contents of every header that
    the source includes from `search_dirs`."""
    parts = [b"pycuda-compile-v2", compiler.encode(), target.encode()]
    parts += [o.encode() for o in options]
    src = source.encode()
    parts.append(src)
    stamps = []
    for path in scan_includes(src, search_dirs):
        st = os.stat(path)
        with open(path, "rb") as f:
            parts += [path.encode(), f.read()]
        stamps.append((path, st.st_mtime_ns, st.st_size))
    blob = b"".join(len(p).to_bytes(8, "little") + p for p in parts)
    return _driver.sha256_hex(blob), stamps


def default_cache_dir() -> str:
    """The per-user cache directory. (v3: entries bound to their key; a new folder, made with
    mode 0700, rather than v2's, which an older build may have made group-writable and which a
    cache that refuses such folders would then never use.)"""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "pycuda", "compiler-cache-v3")


def resolve_cache_dir(cache_dir: str | bool | None) -> str | None:
    """The disk cache directory a compile uses: None (no disk cache) for ``cache_dir=False``;
    for None, ``$PYCUDA_CACHE_DIR``, else None when ``$PYCUDA_DISABLE_CACHE`` is set, else the
    default under ``$XDG_CACHE_HOME``; any other value as a path."""
    if cache_dir is False:
        return None
    if cache_dir is None:
        cache_dir = os.environ.get("PYCUDA_CACHE_DIR")
        if cache_dir is None:
            if os.environ.get("PYCUDA_DISABLE_CACHE"):
                return None
            cache_dir = default_cache_dir()
    return os.fspath(cache_dir)


@functools.cache
def disk_cache(directory: str) -> Any:
    """The process's CompileCache for `directory` ("" for one kept in memory only)."""
    return _driver.CompileCache(directory)


# Problems already reported: a directory that cannot be used says so once, not per kernel.
_reported: set[str] = set()


def store(cache_dir: str, key: str, binary: bytes) -> None:
    """Put `binary` in the cache; a disk entry that cannot be written (or a directory that is
    not safe to use, see core/compile_cache.hpp) is a warning at the user's line, once."""
    problem = disk_cache(cache_dir).put(key, binary)
    if problem and problem not in _reported:
        _reported.add(problem)
        warn_user(f"pycuda compile cache: {problem}")


# File systems stamp modification times from a coarse clock (a few ms on Linux), so a header
# rewritten within that window keeps its mtime. A stamp that recent is not trusted (as git does
# for its index): the key is recomputed from the contents instead, which costs a read and a
# hash, not a compile.
_RACY_NS = 2_000_000_000


def stamps_current(stamps: list[tuple[str, int, int]]) -> bool:
    """Whether the included headers look unchanged since `stamps` were taken."""
    if not stamps:
        return True
    racy_before = time.time_ns() - _RACY_NS
    for path, mtime, size in stamps:
        try:
            st = os.stat(path)
        except OSError:
            return False
        if st.st_mtime_ns != mtime or st.st_size != size or mtime > racy_before:
            return False
    return True
