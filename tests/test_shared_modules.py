"""Tests of the modules SourceModules share (pycuda._shared_modules): on the CPU with a stand-in
loader (which binaries are shared, per context, for how long; the recent modules a context
keeps, and when it lets them go), and on a GPU: variables stay per SourceModule, a shared
module outlives the SourceModule that loaded it, contexts go."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from pycuda import _driver, _shared_modules, driver
from pycuda import compiler as C

needs_nvrtc = pytest.mark.skipif(not _driver.nvrtc_available(), reason="NVRTC is not installed")

STATELESS = "__global__ void twice(float *a) { a[threadIdx.x] *= 2; }"
COUNTER = """
__device__ int counter;
__global__ void count(int *out) { out[0] = atomicAdd(&counter, 1) + 1; }
"""


class _Loads(list):
    """The modules the stand-in loader made, and the stand-in current context's handle."""

    context = 0x1000


@pytest.fixture
def loads(monkeypatch):
    """A stand-in loader and context (no GPU): returns the modules loaded, in order."""
    _shared_modules.forget()
    loaded = _Loads()

    class FakeModule:
        def get_global(self, name: str) -> tuple[int, int]:
            return (id(self), 4)

    def load(binary: bytes) -> FakeModule:
        loaded.append(FakeModule())
        return loaded[-1]

    monkeypatch.setattr(driver, "module_from_buffer", load)
    monkeypatch.setattr(_driver, "_current_context_handle", lambda: loaded.context)
    monkeypatch.setattr(C, "_context_arch", lambda: "sm_80")
    yield loaded
    _shared_modules.forget()


def _shared_in(handle: int) -> list:
    return [key for key in _shared_modules._shared.keys() if key[0] == handle]


@needs_nvrtc
def test_a_binary_without_variables_is_loaded_once_per_context(loads):
    first = C.SourceModule(STATELESS)
    second = C.SourceModule(STATELESS)
    assert second.module is first.module and len(loads) == 1
    assert second.get_global("x") == first.get_global("x")
    loads.context = 0x2000
    other_context = C.SourceModule(STATELESS)
    assert other_context.module is not first.module and len(loads) == 2


@needs_nvrtc
def test_a_binary_with_variables_is_loaded_by_each(loads):
    first = C.SourceModule(COUNTER)
    second = C.SourceModule(COUNTER)
    assert second.module is not first.module and len(loads) == 2
    assert first.get_global("counter") != second.get_global("counter")


@needs_nvrtc
def test_sharing_lasts_while_a_holder_lives(loads, monkeypatch):
    monkeypatch.setattr(_shared_modules, "RECENT_KEPT", 0)  # only the holders keep modules
    first = C.SourceModule(STATELESS)
    second = C.SourceModule(STATELESS)
    del first
    gc.collect()
    assert C.SourceModule(STATELESS).module is second.module and len(loads) == 1
    module = second.module
    del second
    gc.collect()
    # Nothing holds a LoadedModule now: the table keeps no module (and no context) alive.
    assert _shared_in(loads.context) == []
    assert C.SourceModule(STATELESS).module is not module and len(loads) == 2


@needs_nvrtc
def test_compiling_in_a_loop_loads_the_module_once(loads):
    # The tutorials' pattern: each SourceModule dropped before the next one is made.
    modules = set()
    for _ in range(5):
        mod = C.SourceModule(STATELESS)
        modules.add(id(mod.module))
        del mod
        gc.collect()
    assert len(loads) == 1 and len(modules) == 1


@needs_nvrtc
def test_a_binary_with_variables_is_not_kept(loads):
    for n in range(1, 4):
        mod = C.SourceModule(COUNTER)
        del mod
        gc.collect()
        assert len(loads) == n  # each SourceModule gets fresh variables, as in the original
    assert len(_shared_modules._recent) == 0


@needs_nvrtc
def test_the_context_keeps_a_bounded_number_of_recent_modules(loads, monkeypatch):
    monkeypatch.setattr(_shared_modules, "RECENT_KEPT", 3)
    sources = [STATELESS.replace("*= 2", f"*= {k + 2}") for k in range(5)]
    for src in sources[:4]:
        C.SourceModule(src)
    gc.collect()
    assert len(loads) == 4 and len(_shared_modules._recent) == 3
    assert len(_shared_in(loads.context)) == 3  # the least recently used one was let go
    C.SourceModule(sources[1])  # used again: now the most recent
    C.SourceModule(sources[4])  # lets sources[2] go, the least recent now
    assert len(loads) == 5
    for src in (sources[1], sources[3], sources[4]):
        C.SourceModule(src)
    assert len(loads) == 5
    C.SourceModule(sources[2])
    assert len(loads) == 6 and len(_shared_modules._recent) == 3


@needs_nvrtc
def test_kept_modules_go_with_a_switch_of_context_or_the_caches(loads):
    from pycuda import tools

    C.SourceModule(STATELESS)
    gc.collect()
    first_context = loads.context
    assert len(_shared_in(first_context)) == 1
    loads.context = 0x2000  # a load in another context lets the first context's modules go
    other = C.SourceModule(STATELESS)
    gc.collect()
    assert _shared_in(first_context) == [] and len(loads) == 2
    del other
    gc.collect()
    assert len(_shared_in(loads.context)) == 1  # kept in the context now current
    tools.clear_context_caches()
    gc.collect()
    assert _shared_in(loads.context) == [] and len(_shared_modules._recent) == 0
    C.SourceModule(STATELESS)
    assert len(loads) == 3


@needs_nvrtc
def test_clear_cache_shares_nothing_loaded_before(loads):
    first = C.SourceModule(STATELESS)
    C.clear_cache()
    second = C.SourceModule(STATELESS)
    assert second.module is not first.module and len(loads) == 2
    assert C.SourceModule(STATELESS).module is second.module
    del first, second
    gc.collect()
    C.clear_cache()  # lets the kept modules go too
    assert _shared_in(loads.context) == []


@needs_nvrtc
def test_a_plain_call_again_is_one_look_up(loads, monkeypatch):
    # The loop's second SourceModule neither compiles (no memo look-up) nor loads.
    first = C.SourceModule(STATELESS)
    del first
    gc.collect()
    monkeypatch.setattr(C, "compile", lambda *a, **k: pytest.fail("compiled again"))
    again = C.SourceModule(STATELESS)
    assert len(loads) == 1 and again.module is loads[0]
    # A call with other arguments is not that call; another context is not that context.
    monkeypatch.undo()
    monkeypatch.setattr(driver, "module_from_buffer", lambda b: loads.append(object()) or loads[-1])
    monkeypatch.setattr(_driver, "_current_context_handle", lambda: loads.context)
    monkeypatch.setattr(C, "_context_arch", lambda: "sm_80")
    C.SourceModule(STATELESS, no_extern_c=True)
    assert len(loads) == 2
    loads.context = 0x2000
    assert C.SourceModule(STATELESS).module is not again.module and len(loads) == 3


@needs_nvrtc
def test_the_look_up_never_skips_a_header_check(loads, tmp_path, monkeypatch):
    # A source that includes a header of the user's: every call checks the header, so an
    # edited header is compiled again (the memo's stamps), never served from the look-up.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scale.h").write_text("#define SCALE 2\n")
    source = '#include "scale.h"\n' + STATELESS.replace("*= 2", "*= SCALE")
    first = C.SourceModule(source).module
    assert not _shared_modules._recent_calls
    (tmp_path / "scale.h").write_text("#define SCALE 3.0f  // another size, another time\n")
    assert C.SourceModule(source).module is not first and len(loads) == 2


@needs_nvrtc
def test_debugging_turned_on_later_is_not_served_by_the_look_up(loads, monkeypatch):
    C.SourceModule(STATELESS)
    gc.collect()
    monkeypatch.setattr(driver, "CUDA_DEBUGGING", True)
    seen = []
    monkeypatch.setattr(C, "compile", lambda *a, **k: seen.append(a) or b"debug build")
    C.SourceModule(STATELESS)
    assert seen, "a debugging compile was served the earlier call's module"


@needs_nvrtc
def test_an_unhashable_argument_is_compiled_as_before(loads):
    # no_extern_c is read for its truth, as the original did: a list works, and is never a key.
    first = C.SourceModule(STATELESS, no_extern_c=[])
    assert C.SourceModule(STATELESS, no_extern_c=[]).module is first.module
    assert not _shared_modules._recent_calls and len(loads) == 1


@needs_nvrtc
def test_the_look_up_goes_with_the_caches(loads):
    from pycuda import tools

    C.SourceModule(STATELESS)
    assert len(_shared_modules._recent_calls) == 1
    tools.clear_context_caches()
    assert not _shared_modules._recent_calls
    C.SourceModule(STATELESS)
    C.clear_cache()
    assert not _shared_modules._recent_calls
    assert C.SourceModule(STATELESS).module is not loads[0]


# --- on a GPU --------------------------------------------------------------------------------


def _count(mod: C.SourceModule) -> int:
    out = np.zeros(1, np.int32)
    mod.get_function("count")(driver.Out(out), block=(1, 1, 1), grid=(1, 1))
    return int(out[0])


@pytest.mark.gpu
def test_two_source_modules_keep_separate_variables(ctx):
    first, second = C.SourceModule(COUNTER), C.SourceModule(COUNTER)
    assert first.module is not second.module
    assert first.get_global("counter")[0] != second.get_global("counter")[0]
    assert [_count(first), _count(first), _count(second), _count(first)] == [1, 2, 1, 3]
    driver.memcpy_htod(second.get_global("counter")[0], np.array([41], np.int32))
    assert (_count(second), _count(first)) == (42, 4)


@pytest.mark.gpu
def test_a_shared_module_works_after_the_first_source_module_goes(ctx):
    first = C.SourceModule(STATELESS)
    second = C.SourceModule(STATELESS)
    assert second.module is first.module
    del first
    gc.collect()
    a = np.arange(32, dtype=np.float32)
    second.get_function("twice")(driver.InOut(a), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(a, 2 * np.arange(32, dtype=np.float32))
    # A Function outlives every SourceModule: it holds the module itself.
    twice = C.SourceModule(STATELESS).get_function("twice")
    del second
    gc.collect()
    twice(driver.InOut(a), block=(32, 1, 1), grid=(1, 1))
    np.testing.assert_array_equal(a, 4 * np.arange(32, dtype=np.float32))


@pytest.mark.gpu
def test_modules_of_a_context_that_goes_are_not_shared_into_the_next(ctx):
    device = ctx.get_device()
    a = np.arange(32, dtype=np.float32)
    for round_ in range(3):
        own = device.make_context()
        handle = own.handle
        try:
            mod = C.SourceModule(STATELESS)
            assert C.SourceModule(STATELESS).module is mod.module
            mod.get_function("twice")(driver.InOut(a), block=(32, 1, 1), grid=(1, 1))
        finally:
            driver.Context.pop()
        del mod
        own.detach()
        gc.collect()
        # The context keeps its recent modules (and so lives) until a module is loaded in
        # another one, which lets them go.
        assert len(_shared_in(handle)) == 1, round_
        C.SourceModule(STATELESS)
        gc.collect()
        assert _shared_in(handle) == [], round_
    np.testing.assert_array_equal(a, 8 * np.arange(32, dtype=np.float32))
    shared = C.SourceModule(STATELESS)  # back in the session's context: loads afresh
    assert C.SourceModule(STATELESS).module is shared.module
