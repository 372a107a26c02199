"""Tests of the compile cache's memory of headers (CPU: NVRTC needs no GPU): a hit in a new
process reads no header while the headers' stamps are unchanged, a header touched with the same
contents still hits, and a changed or newly shadowing header is a miss."""

from __future__ import annotations

import builtins
import io
import os
import time

import pytest

from pycuda import _compile_cache, _driver
from pycuda import compiler as C

pytestmark = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

SOURCE = "#include <outer.h>\n__global__ void f(int *a) { a[0] = VALUE; }"
# Stamps this old are trusted (see _compile_cache._RACY_NS); each test sets its own.
LONG_AGO = time.time_ns() - 3600 * 10**9


@pytest.fixture
def state(tmp_path, monkeypatch):
    """An empty memo, disk cache and header memory; a cache directory; a list of NVRTC runs."""
    monkeypatch.setattr(C, "_memo", {})
    monkeypatch.setattr(_compile_cache, "_headers", {})
    monkeypatch.setattr(_compile_cache, "_records", {})
    C.disk_cache.cache_clear()
    runs: list[int] = []
    real = C._compile_nvrtc
    monkeypatch.setattr(C, "_compile_nvrtc", lambda *a: runs.append(1) or real(*a))
    yield str(tmp_path / "cache"), runs
    C.disk_cache.cache_clear()


def _write(path, text: str, mtime_ns: int = LONG_AGO) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def _headers(tmp_path, value: int = 1):
    """inc/outer.h includes inc/inner.h, which defines VALUE; both stamped long ago, and the
    directory too (a directory searched in vain is stamped as well)."""
    inc = tmp_path / "inc"
    inc.mkdir(exist_ok=True)
    _write(inc / "outer.h", '#include "inner.h"\n')
    _write(inc / "inner.h", f"#define VALUE {value}\n")
    os.utime(inc, ns=(LONG_AGO, LONG_AGO))
    os.utime(tmp_path, ns=(LONG_AGO, LONG_AGO))
    return inc


def _new_process() -> None:
    """What a new process would know: nothing in memory, only the disk cache."""
    C._memo.clear()
    C.disk_cache.cache_clear()
    _compile_cache.forget_scans()


def _compile(dirs, cache_dir):
    return C.compile(SOURCE, arch="sm_80", target="ptx", include_dirs=dirs, cache_dir=cache_dir)


@pytest.fixture
def opened(monkeypatch):
    """The paths of the files Python code opens from now on."""
    paths: list[str] = []
    for target in (builtins, io):
        real = target.open

        def spy(file, *args, _real=real, **kwargs):
            paths.append(os.fspath(file) if isinstance(file, (str, os.PathLike)) else file)
            return _real(file, *args, **kwargs)

        monkeypatch.setattr(target, "open", spy)
    return paths


def test_a_hit_in_a_new_process_reads_no_header(tmp_path, state, monkeypatch, opened):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], cache_dir)
    assert runs == [1]
    assert any(name.endswith(".deps") for name in os.listdir(cache_dir))
    _new_process()
    opened.clear()
    assert _compile([str(inc)], cache_dir) == first
    assert runs == [1]
    assert not [p for p in opened if str(inc) in str(p)], opened


def test_a_hit_in_the_same_process_reads_no_header_without_a_disk_cache(tmp_path, state, opened):
    _, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], False)
    C._memo.clear()  # past the memo: the scan's record is what remains
    opened.clear()
    assert _compile([str(inc)], False) == first
    assert runs == [1] and not opened


def test_a_touched_header_with_the_same_contents_still_hits(tmp_path, state, opened):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], cache_dir)
    touched = LONG_AGO + 10**9
    os.utime(inc / "inner.h", ns=(touched, touched))
    _new_process()
    opened.clear()
    assert _compile([str(inc)], cache_dir) == first
    assert runs == [1]
    # Only the touched header is read again; outer.h's contents are remembered on disk.
    assert [p for p in opened if str(inc) in str(p)] == [str(inc / "inner.h")]
    _new_process()
    opened.clear()
    assert _compile([str(inc)], cache_dir) == first  # and the new stamp is remembered
    assert not [p for p in opened if str(inc) in str(p)]


def test_a_changed_header_is_a_miss(tmp_path, state):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], cache_dir)
    # Same size, another stamp: the contents are read again.
    _write(inc / "inner.h", "#define VALUE 7\n", LONG_AGO + 10**9)
    _new_process()
    second = _compile([str(inc)], cache_dir)
    assert runs == [1, 1] and second != first
    assert b"7;" in second


def test_a_change_in_the_same_process_is_seen(tmp_path, state):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], cache_dir)
    _write(inc / "inner.h", "#define VALUE 8\n", LONG_AGO + 2 * 10**9)
    second = _compile([str(inc)], cache_dir)
    assert runs == [1, 1] and second != first and b"8;" in second


def test_a_header_that_now_shadows_another_is_a_miss(tmp_path, state):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    front = tmp_path / "front"
    front.mkdir()
    os.utime(front, ns=(LONG_AGO, LONG_AGO))
    dirs = [str(front), str(inc)]
    first = _compile(dirs, cache_dir)
    _write(front / "outer.h", "#define VALUE 9\n")  # found before inc/outer.h from now on
    _new_process()
    second = _compile(dirs, cache_dir)
    assert runs == [1, 1] and second != first and b"9;" in second


def test_a_damaged_record_is_only_a_rescan(tmp_path, state):
    cache_dir, runs = state
    inc = _headers(tmp_path)
    first = _compile([str(inc)], cache_dir)
    cache = _driver.CompileCache(cache_dir)
    for name in os.listdir(cache_dir):
        if name.endswith(".deps"):
            # Intact entries holding nonsense (the checksums cover damage on disk).
            cache.put(name[: -len(".deps")], b"pycuda-deps-1\0x\09\0y", ".deps")
    _new_process()
    assert _compile([str(inc)], cache_dir) == first
    assert runs == [1]


def test_records_and_binaries_are_different_entries(tmp_path):
    cache = _driver.CompileCache(str(tmp_path))
    cache.put("k", b"binary")
    cache.put("k", b"record", ".deps")
    again = _driver.CompileCache(str(tmp_path))
    assert again.get("k") == b"binary" and again.get("k", ".deps") == b"record"
    assert sorted(os.listdir(tmp_path)) == ["k.bin", "k.deps"]
    with pytest.raises(ValueError):
        again.get("k", ".exe")
