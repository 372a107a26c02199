"""Tests of pycuda._user_warnings: the compiler's messages and the cache's warnings point at the
user's line however deep in pycuda they are raised (CPU; the compiles use NVRTC)."""

from __future__ import annotations

import inspect
import uuid
import warnings

import pytest

from pycuda import _driver
from pycuda import compiler as C
from pycuda._user_warnings import warn_user

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")
SMALL = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"


def _fresh(source: str) -> str:
    """``source`` made unique, so that no cache of an earlier compile in this process (other
    tests run in the same worker) answers instead of the compiler."""
    return f"// {uuid.uuid4()}\n{source}"


# Code that runs as if it were part of the package, three calls deep.
_INNER = """
from pycuda._user_warnings import warn_user
def deepest():
    warn_user("from inside")
def middle():
    deepest()
def outer():
    middle()
"""


def _package_function():
    namespace = {"__name__": "pycuda._pretend_inner"}
    exec(compile(_INNER, "<pycuda inner>", "exec"), namespace)
    return namespace["outer"]


def test_the_warning_points_past_every_pycuda_frame():
    outer = _package_function()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        outer()
    [w] = caught
    assert (w.filename, w.lineno) == (__file__, line)


def test_called_from_user_code_directly():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        warn_user("direct")
    assert (caught[0].filename, caught[0].lineno) == (__file__, line)


@needs_nvrtc
def test_compiler_messages_point_at_the_compile_call(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "_memo", {})
    C.disk_cache.cache_clear()  # the memory cache too: a hit says nothing
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        C.compile(_fresh(SMALL), arch="sm_90", options=["--ptxas-options=-v"], cache_dir=False)
    found = [w for w in caught if "ptxas info" in str(w.message)]
    assert len(found) == 1, [f"{w.category.__name__}: {str(w.message)[:300]}" for w in caught]
    [w] = found
    assert (w.filename, w.lineno) == (__file__, line)


@needs_nvrtc
def test_compiler_messages_point_at_the_source_module(monkeypatch):
    import pycuda.driver as drv

    monkeypatch.setattr(C, "_memo", {})
    C.disk_cache.cache_clear()  # the memory cache too: a hit says nothing
    monkeypatch.setattr(drv, "module_from_buffer", lambda cubin: "module")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        C.SourceModule(_fresh(SMALL), arch="sm_90", options=["-Xptxas", "-v"], cache_dir=False)
    found = [w for w in caught if "ptxas info" in str(w.message)]
    assert len(found) == 1, [f"{w.category.__name__}: {str(w.message)[:300]}" for w in caught]
    [w] = found
    assert (w.filename, w.lineno) == (__file__, line)


@needs_nvrtc
def test_ptxas_report_comes_on_every_compile_of_the_same_source(monkeypatch):
    # NVRTC >= 12.9 caches programs itself and skips ptxas on a hit, which dropped the -v report
    # from every compile after the first; a user who asks for it gets it each time.
    monkeypatch.setattr(C, "_memo", {})
    source = _fresh(SMALL)
    for attempt in range(3):
        C._memo.clear()  # our own caches say nothing; NVRTC's (on disk, per user) is the point
        C.disk_cache.cache_clear()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            C.compile(source, arch="sm_90", options=["--ptxas-options=-v"], cache_dir=False)
        assert any("ptxas info" in str(w.message) for w in caught), attempt
