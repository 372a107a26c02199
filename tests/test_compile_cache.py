"""Tests of the on-disk compile cache against entries and directories someone else could have
made: links, FIFOs, huge files, entries moved between keys, directories others can write
(CPU only: NVRTC needs no GPU). core/compile_cache's own tests are tests/cpp/test_compile_cache.cpp.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
import warnings

import pytest

from pycuda import _compile_cache, _driver
from pycuda import compiler as C

pytestmark = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

SOURCE_A = "__global__ void a(float *x) { x[0] = 1; }"
SOURCE_B = "__global__ void b(float *x) { x[0] = 2; }"


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh cache directory, an empty memo, fresh CompileCache objects, no problem reported."""
    monkeypatch.setattr(C, "_memo", {})
    monkeypatch.setattr(_compile_cache, "_reported", set())
    C.disk_cache.cache_clear()
    yield str(tmp_path / "cache")
    C.disk_cache.cache_clear()


def _new_process():
    """What a new process would see: no memo, no in-memory entries."""
    C._memo.clear()
    C.disk_cache.cache_clear()


def _compile(source, cache_dir):
    return C.compile(source, arch="sm_90", cache_dir=cache_dir)


def _only_entry(cache_dir):
    [name] = [f for f in os.listdir(cache_dir) if f.endswith(".bin")]
    return os.path.join(cache_dir, name)


@pytest.fixture
def nvrtc_runs(monkeypatch):
    runs = []
    real = C._compile_nvrtc
    monkeypatch.setattr(C, "_compile_nvrtc", lambda *a: runs.append(1) or real(*a))
    return runs


def test_a_link_as_an_entry_is_not_followed(cache_dir, tmp_path, nvrtc_runs):
    genuine = _compile(SOURCE_A, cache_dir)
    entry = _only_entry(cache_dir)
    elsewhere = tmp_path / "elsewhere.bin"
    shutil.copy(entry, elsewhere)  # a whole, valid entry behind the link
    os.remove(entry)
    os.symlink(elsewhere, entry)
    _new_process()
    assert _compile(SOURCE_A, cache_dir) == genuine
    assert nvrtc_runs == [1, 1]  # a miss: compiled again
    assert not os.path.islink(entry)  # and replaced by a file of ours


FIFO_READER = textwrap.dedent(
    """
    import os, sys
    from pycuda import compiler as C
    cache_dir, key = sys.argv[1], sys.argv[2]
    os.mkfifo(os.path.join(cache_dir, key + ".bin"))
    out = C.compile(sys.argv[3], arch="sm_90", cache_dir=cache_dir)
    sys.stdout.write(out.hex())
    """
)


def test_a_fifo_as_an_entry_is_a_miss_without_waiting(cache_dir):
    genuine = _compile(SOURCE_A, cache_dir)
    entry = _only_entry(cache_dir)
    os.remove(entry)
    key = os.path.basename(entry)[: -len(".bin")]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run(
        [sys.executable, "-c", FIFO_READER, cache_dir, key, SOURCE_A],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert bytes.fromhex(proc.stdout) == genuine


HUGE_READER = textwrap.dedent(
    """
    import resource, sys
    from pycuda import _driver
    cache = _driver.CompileCache(sys.argv[1])
    # Room for what is loaded now plus 256 MiB: reading a 1 GiB entry would fail here.
    with open("/proc/self/statm") as f:
        used = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (used + (256 << 20),) * 2)
    print(cache.get(sys.argv[2]))
    """
)


def test_an_entry_over_the_size_cap_is_not_read(cache_dir):
    _compile(SOURCE_A, cache_dir)
    entry = _only_entry(cache_dir)
    with open(entry, "r+b") as f:
        f.truncate((1 << 30) + 1)  # sparse: no disk used
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    key = os.path.basename(entry)[: -len(".bin")]
    proc = subprocess.run(
        [sys.executable, "-c", HUGE_READER, cache_dir, key],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "None"


def test_an_entry_planted_under_another_key_is_a_miss(cache_dir, nvrtc_runs):
    genuine_b = _compile(SOURCE_B, cache_dir)
    entry_b = _only_entry(cache_dir)
    os.remove(entry_b)
    _compile(SOURCE_A, cache_dir)
    shutil.copy(_only_entry(cache_dir), entry_b)  # a valid entry, of A's key, under B's name
    _new_process()
    assert _compile(SOURCE_B, cache_dir) == genuine_b
    assert nvrtc_runs == [1, 1, 1]


def test_the_cache_directory_is_made_private(tmp_path, cache_dir):
    nested = os.path.join(cache_dir, "a", "b")
    old = os.umask(0)  # so that a mode taken from the umask would show
    try:
        _compile(SOURCE_A, nested)
    finally:
        os.umask(old)
    assert os.stat(nested).st_mode & 0o7777 == 0o700
    assert os.stat(cache_dir).st_mode & 0o7777 == 0o700


def test_a_directory_others_can_write_is_not_used(cache_dir, nvrtc_runs):
    genuine = _compile(SOURCE_A, cache_dir)
    entry = _only_entry(cache_dir)
    os.chmod(cache_dir, 0o775)
    _new_process()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert _compile(SOURCE_A, cache_dir) == genuine  # compiled: the entry is not read
        assert _compile(SOURCE_B, cache_dir)[:4] == b"\x7fELF"
    assert nvrtc_runs == [1, 1, 1]
    [w] = caught  # once, not once per kernel
    text = str(w.message)
    assert "writable by its group (mode 0775)" in text and f"chmod go-w {cache_dir}" in text
    assert w.filename == __file__  # the user's line, not pycuda's
    assert os.listdir(cache_dir) == [os.path.basename(entry)]  # nothing written there


def test_a_directory_open_to_all_is_not_used(cache_dir):
    os.makedirs(cache_dir)
    os.chmod(cache_dir, 0o1777)  # like /tmp
    with pytest.warns(UserWarning, match="writable by others"):
        _compile(SOURCE_A, cache_dir)
    assert os.listdir(cache_dir) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root, to give a directory to another user")
def test_a_directory_of_another_user_is_not_used(cache_dir):
    os.makedirs(cache_dir, mode=0o700)
    os.chown(cache_dir, 65534, 65534)
    with pytest.warns(UserWarning, match="owned by uid 65534") as caught:
        _compile(SOURCE_A, cache_dir)
    assert "PYCUDA_CACHE_DIR" in str(caught[0].message)
    assert os.listdir(cache_dir) == []
