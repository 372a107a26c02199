"""pycuda._compile_cache: what identifies a compiled kernel, and where it is kept on disk.

The key is a SHA-256 over the source, the compiler options, the target, the compiler's identity
and version, and the contents of every user header the source includes (found recursively
through the include directories; toolkit headers are covered by the compiler's version).

Finding those headers and hashing them would cost a read of each on every hit: a source that
includes Thrust through ``include_dirs`` reads over a thousand files. So what was found is
remembered, by stamp (path, size, mtime): each header's digest and its ``#include`` lines, in
memory for the process; and for each scan (source, options, compiler, directories), the key it
gave and the stamps of what it read, in memory and on disk beside the binaries
(``<id>.deps``). A hit then costs one ``os.stat`` per header, no read. The stamps also cover
the directories where an include was looked for and not found, so a header added where it
would shadow another is seen too. A changed stamp makes the scan run again, reading only the
headers whose stamps changed; a header rewritten with the same contents gives the same key.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import time
from collections.abc import Sequence
from typing import Any

from pycuda import _driver
from pycuda._user_warnings import warn_user

_INCLUDE_RE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)

# (path, mtime_ns, size) of a header, or of a directory where an include was not found.
Stamp = tuple[str, int, int]
# One #include line: (quote, name), the quote '"' or '<'.
Directive = tuple[str, str]

# What each header held, by (path, size, mtime_ns): its SHA-256 and its #include lines. Only
# stamps older than _RACY_NS are remembered (see there).
_headers: dict[tuple[str, int, int], tuple[str, tuple[Directive, ...]]] = {}
# For each scan id (see cache_key): the key it gave, the stamps of the headers it read and
# those of the directories it searched in vain.
_records: dict[str, tuple[str, list[Stamp], list[Stamp]]] = {}


def _directives(text: bytes) -> tuple[Directive, ...]:
    return tuple((q.decode(), os.fsdecode(n.strip())) for q, n in _INCLUDE_RE.findall(text))


def _header(path: str, st: os.stat_result, racy_before: int) -> tuple[str, tuple[Directive, ...]]:
    """(digest, #include lines) of the header at `path`, whose stat is `st`: remembered, or
    read (and remembered when its stamp is old enough to trust)."""
    known = _headers.get((path, st.st_size, st.st_mtime_ns))
    if known is not None:
        return known
    with open(path, "rb") as f:
        data = f.read()
    found = (_driver.sha256_hex(data), _directives(data))
    if st.st_mtime_ns <= racy_before:
        _headers[(path, st.st_size, st.st_mtime_ns)] = found
    return found


def _scan(
    source: bytes, search_dirs: Sequence[str]
) -> tuple[list[tuple[str, os.stat_result, str]], list[str]]:
    """The headers that `source` includes, recursively, found in `search_dirs` (or, for "x",
    next to the including file), as (path, stat, digest) in the order found; and the
    directories where an include was looked for and not found (the nearest existing one on
    the way), where a new file would change what is found."""
    racy_before = time.time_ns() - _RACY_NS
    found: list[tuple[str, os.stat_result, str]] = []
    seen: set[str] = set()
    misses: dict[str, str] = {}  # a missing file's directory -> its nearest existing one
    stack = [(_directives(source), os.getcwd())]
    while stack:
        directives, here = stack.pop()
        for quote, name in directives:
            candidates = ([here] if quote == '"' else []) + list(search_dirs)
            for d in candidates:
                path = os.path.join(d, name)
                try:
                    st = os.stat(path)
                except OSError:
                    st = None
                if st is not None and stat.S_ISREG(st.st_mode):
                    path = os.path.abspath(path)
                    if path not in seen:
                        seen.add(path)
                        digest, includes = _header(path, st, racy_before)
                        found.append((path, st, digest))
                        stack.append((includes, os.path.dirname(path)))
                    break
                parent = os.path.abspath(os.path.dirname(path))
                if parent not in misses:
                    misses[parent] = _nearest_directory(parent)
    return found, sorted(set(misses.values()))


def _nearest_directory(path: str) -> str:
    while not os.path.isdir(path):
        up = os.path.dirname(path)
        if up == path:
            break
        path = up
    return path


def scan_includes(source: bytes, search_dirs: Sequence[str]) -> list[str]:
    """Paths of the headers that `source` includes, recursively, found in `search_dirs` (or,
    for "x", next to the including file). Headers not found there (the toolkit's) are left out:
    the compiler's version covers them."""
    return [path for path, _, _ in _scan(source, search_dirs)[0]]


def _blob(parts: list[bytes]) -> bytes:
    return b"".join(len(p).to_bytes(8, "little") + p for p in parts)


def cache_key(
    source: str,
    options: list[str],
    target: str,
    compiler: str,
    search_dirs: Sequence[str],
    cache_dir: str | None = None,
) -> tuple[str, list[Stamp]]:
    """(sha256 key, stamps of the user headers included). The key covers the source, the
    options, the target, the compiler and its version, and the contents of every header that
    the source includes from `search_dirs`.

    What a scan found is remembered (in memory, and in `cache_dir` when given) under an id of
    everything but the headers; while the stamps it took (of the headers, and of the
    directories it searched in vain) are current, the key is reused without reading any
    header."""
    src = source.encode()
    parts = [b"pycuda-compile-v3", compiler.encode(), target.encode()]
    parts += [o.encode() for o in options]
    parts.append(src)
    if _INCLUDE_RE.search(src) is None:
        return _driver.sha256_hex(_blob(parts)), []
    where = [os.getcwd(), *search_dirs]
    scan_id = _driver.sha256_hex(_blob([*parts, b"\0scan", *(os.fsencode(d) for d in where)]))
    record = _records.get(scan_id)
    if record is None and cache_dir:
        record = _load_record(cache_dir, scan_id)
    if record is not None and stamps_current(record[1]) and stamps_current(record[2]):
        _records[scan_id] = record
        return record[0], record[1]
    if cache_dir and record is not None:
        # Some stamp changed: what the other headers held need not be read again.
        _load_headers(cache_dir, scan_id)
    found, misses = _scan(src, search_dirs)
    for path, _, digest in found:
        parts += [os.fsencode(path), digest.encode()]
    key = _driver.sha256_hex(_blob(parts))
    stamps = [(path, st.st_mtime_ns, st.st_size) for path, st, _ in found]
    guards = []
    for d in misses:
        try:
            st = os.stat(d)
        except OSError:
            continue
        guards.append((d, st.st_mtime_ns, st.st_size))
    _records[scan_id] = (key, stamps, guards)
    if cache_dir:
        _save_record(cache_dir, scan_id, _records[scan_id], found)
    return key, stamps


# Dependency records on disk: fields joined by NUL (no path holds one), read with a split;
# no parser to import on a hit.
_RECORD_MAGIC = b"pycuda-deps-1"
_HEADERS_MAGIC = b"pycuda-headers-1"


def forget_scans() -> None:
    """Forget what this process remembers of headers and scans (the records on disk stay)."""
    _headers.clear()
    _records.clear()


def _headers_id(scan_id: str) -> str:
    return _driver.sha256_hex(b"headers\0" + scan_id.encode())


def _load_record(cache_dir: str, scan_id: str) -> tuple[str, list[Stamp], list[Stamp]] | None:
    data = disk_cache(cache_dir).get(scan_id, ".deps")
    if data is None:
        return None
    fields = data.split(b"\0")
    if len(fields) < 3 or fields[0] != _RECORD_MAGIC or (len(fields) - 3) % 3:
        return None
    try:
        headers = int(fields[2])
        stamps = [
            (os.fsdecode(fields[i]), int(fields[i + 1]), int(fields[i + 2]))
            for i in range(3, len(fields), 3)
        ]
    except ValueError:
        return None
    if not 0 <= headers <= len(stamps):
        return None
    return fields[1].decode(), stamps[:headers], stamps[headers:]


def _load_headers(cache_dir: str, scan_id: str) -> None:
    """Puts what the headers of the scan `scan_id` held, as its record says, in _headers."""
    data = disk_cache(cache_dir).get(_headers_id(scan_id), ".deps")
    if data is None:
        return
    fields = data.split(b"\0")
    if fields[0] != _HEADERS_MAGIC:
        return
    i = 1
    try:
        while i + 4 < len(fields):
            path, size, mtime, digest = os.fsdecode(fields[i]), *fields[i + 1 : i + 4]
            n = int(fields[i + 4])
            raw = fields[i + 5 : i + 5 + 2 * n]
            includes = tuple(
                (raw[j].decode(), os.fsdecode(raw[j + 1])) for j in range(0, len(raw), 2)
            )
            _headers.setdefault((path, int(size), int(mtime)), (digest.decode(), includes))
            i += 5 + 2 * n
    except (ValueError, UnicodeDecodeError):
        return


def _save_record(
    cache_dir: str,
    scan_id: str,
    record: tuple[str, list[Stamp], list[Stamp]],
    found: list[tuple[str, os.stat_result, str]],
) -> None:
    """Writes the scan's record and what its headers held (those remembered: old enough to
    trust) beside the binaries. A write that fails is left unsaid: store() reports the
    directory's problems, and a missing record costs only a scan."""
    key, stamps, guards = record
    fields = [_RECORD_MAGIC, key.encode(), str(len(stamps)).encode()]
    for path, mtime, size in stamps + guards:
        fields += [os.fsencode(path), str(mtime).encode(), str(size).encode()]
    cache = disk_cache(cache_dir)
    cache.put(scan_id, b"\0".join(fields), ".deps")
    fields = [_HEADERS_MAGIC]
    for path, st, _ in found:
        known = _headers.get((path, st.st_size, st.st_mtime_ns))
        if known is None:
            continue
        digest, includes = known
        fields += [os.fsencode(path), str(st.st_size).encode(), str(st.st_mtime_ns).encode()]
        fields += [digest.encode(), str(len(includes)).encode()]
        for quote, name in includes:
            fields += [quote.encode(), os.fsencode(name)]
    cache.put(_headers_id(scan_id), b"\0".join(fields), ".deps")


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


def stamps_current(stamps: Sequence[Stamp]) -> bool:
    """Whether the included headers (and the directories searched in vain) look unchanged
    since `stamps` were taken."""
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
