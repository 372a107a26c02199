"""pycuda.profiler: NVTX ranges and marks, and pycuda's automatic ranges.

CPU: in this process no profiler is attached, so the calls must work and do nothing; in child
interpreters the stand-in tool of tests/nvtx_recorder.c is attached and records each event, so
the tests see what a profiler would: the program's ranges and marks, and pycuda's own ranges
(domain "pycuda") around compiles and GPUArray operations, on the host-memory fake driver of
tests/hostemu.c, only while the automatic ranges are switched on.
"""

from __future__ import annotations

import textwrap

import hostemu
import nvtx_recorder
import pytest

import pycuda.profiler as profiler
from pycuda import _driver, _nvtx

needs_recorder = pytest.mark.skipif(
    nvtx_recorder.unavailable() is not None, reason=str(nvtx_recorder.unavailable())
)
needs_fake = pytest.mark.skipif(hostemu.compiler() is None, reason="no C compiler for the fake")
needs_nvtx = pytest.mark.skipif(
    not _driver.nvtx_available(), reason="this pycuda was built without NVTX's headers"
)


@pytest.fixture
def auto_ranges_restored():
    before = profiler.auto_ranges()
    yield
    profiler.set_auto_ranges(before)


# {{{ CPU, in this process: no profiler attached


def test_the_names_and_driver_names_are_the_same_functions():
    import pycuda.driver as drv

    assert profiler.start_profiler is drv.start_profiler
    assert profiler.stop_profiler is drv.stop_profiler
    assert set(profiler.__all__) <= set(dir(profiler))


def test_nvtx_is_built_in_where_the_headers_were():
    assert isinstance(profiler.nvtx_available(), bool)
    if nvtx_recorder.unavailable() is None:  # the headers this machine builds with
        assert profiler.nvtx_available()


def test_calls_work_and_do_nothing_without_a_profiler():
    level = profiler.push_range("outer", color="red")
    assert level < 0  # no tool keeps a stack
    assert profiler.push_range("inner") < 0
    assert profiler.pop_range() < 0
    assert profiler.pop_range() < 0
    assert profiler.mark("here", color=0x123456) is None
    with profiler.range("block", color="#00ff00") as r:
        assert isinstance(r, profiler.Range)

    @profiler.range("decorated")
    def twice(x: int) -> int:
        """Doubles."""
        return 2 * x

    assert twice(21) == 42
    assert twice.__name__ == "twice" and twice.__doc__ == "Doubles."


def test_a_range_closes_when_its_body_raises():
    rng = profiler.range("failing")

    @rng
    def fails() -> None:
        raise KeyError("inside")

    with pytest.raises(KeyError):
        fails()
    with pytest.raises(ZeroDivisionError), rng:
        1 / 0  # noqa: B018


def test_colors():
    assert profiler.argb(None) is None
    assert profiler.argb(0x00FF00) == 0xFF00FF00  # 0xRRGGBB is opaque
    assert profiler.argb(0x8000FF00) == 0x8000FF00  # 0xAARRGGBB kept
    assert profiler.argb(0) == 0xFF000000
    assert profiler.argb("#0000ff") == 0xFF0000FF
    assert profiler.argb(" Red ") == 0xFFFF0000
    assert repr(profiler.range("x", "blue")) == "pycuda.profiler.range('x', color=0xff0000ff)"
    with pytest.raises(ValueError, match="give 0xRRGGBB, '#rrggbb' or one of black, blue"):
        profiler.argb("mauve")
    with pytest.raises(ValueError, match="give 0xRRGGBB"):
        profiler.argb("#12345")
    with pytest.raises(ValueError, match="not a 32-bit"):
        profiler.argb(1 << 32)
    with pytest.raises(ValueError, match="not a 32-bit"):
        profiler.argb(-1)
    with pytest.raises(TypeError, match="color must be an int, a str or None, not float"):
        profiler.push_range("x", color=1.0)
    with pytest.raises(TypeError, match="not bool"):
        profiler.mark("x", color=True)


def test_names_must_be_text():
    with pytest.raises(TypeError, match="named by a str, not bytes"):
        profiler.push_range(b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="named by a str, not NoneType"):
        profiler.range(None)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="NUL"):
        profiler.mark("a\0b")


def test_auto_ranges_switch_python_and_cpp_together(auto_ranges_restored):
    profiler.set_auto_ranges(True)
    assert profiler.auto_ranges() and _nvtx.AUTO.on and _driver.nvtx_auto_ranges()
    profiler.set_auto_ranges(False)
    assert not profiler.auto_ranges() and not _nvtx.AUTO.on and not _driver.nvtx_auto_ranges()
    profiler.set_auto_ranges()  # on=True by default
    assert _nvtx.AUTO.on and _driver.nvtx_auto_ranges()


@pytest.mark.parametrize(
    ("value", "on"),
    [(None, False), ("", False), ("0", False), ("off", False), ("No", False), ("1", True),
     ("yes", True), ("true", True)],
)  # fmt: skip
def test_the_environment_setting(value, on):
    assert _nvtx.env_wants_ranges(value) is on


# }}}

# {{{ CPU, with the recorder attached


@pytest.fixture(scope="module")
def recorder(tmp_path_factory):
    return nvtx_recorder.build(tmp_path_factory.mktemp("nvtx"))


@pytest.fixture(scope="module")
def fake(tmp_path_factory):
    return hostemu.build(tmp_path_factory.mktemp("hostemu"))


@needs_nvtx
@needs_recorder
def test_a_profiler_sees_the_programs_ranges_and_marks(recorder):
    nvtx_recorder.run_recorded(
        recorder,
        """
        import threading
        import pycuda.profiler as profiler

        assert profiler.push_range("outer", color="red") == 0
        assert profiler.push_range("inner") == 1
        assert profiler.pop_range() == 1
        profiler.mark("here", color=0x00FF00)
        assert profiler.pop_range() == 0
        with profiler.range("block", color=0x80123456):
            pass

        @profiler.range("step")
        def step(fail):
            if fail:
                raise ValueError
        step(False)
        try:
            step(True)
        except ValueError:
            pass
        got = events()
        assert got == ["push outer #FFFF0000", "push inner", "pop", "mark here #FF00FF00",
                       "pop", "push block #80123456", "pop", "push step", "pop", "push step",
                       "pop"], got
        # Each thread has its own stack: a range opened in another thread closes there.
        t = threading.Thread(target=lambda: step(False))
        with profiler.range("main"):
            t.start()
            t.join()
        got = events()
        assert sorted(got) == sorted(["push main", "push step", "pop", "pop"]), got
        """,
        PYCUDA_NVTX="0",
    )


@needs_nvtx
@needs_recorder
def test_compiles_are_ranges_only_while_switched_on(recorder):
    nvtx_recorder.run_recorded(
        recorder,
        """
        import pycuda.profiler as profiler
        from pycuda import compiler

        src = "__global__ void k(float *a) { a[0] = %d; }"
        compiler.compile(src % 1, arch="sm_90", cache_dir=False)
        assert events() == [], "off by default"
        profiler.set_auto_ranges(True)
        compiler.compile(src % 2, arch="sm_90", cache_dir=False)
        assert events() == ["push pycuda:compile", "pop pycuda"]
        compiler.compile(src % 2, arch="sm_90", cache_dir=False)
        assert events() == [], "a look-up in memory is no compile"
        profiler.set_auto_ranges(False)
        compiler.compile(src % 3, arch="sm_90", cache_dir=False)
        assert events() == []
        """,
        PYCUDA_NVTX="0",
    )


@needs_nvtx
@needs_recorder
def test_the_environment_variable_switches_them_on_at_import(recorder):
    nvtx_recorder.run_recorded(
        recorder,
        """
        import pycuda.profiler as profiler
        from pycuda import _driver, compiler

        assert profiler.auto_ranges() and _driver.nvtx_auto_ranges()
        compiler.compile("__global__ void k(int *a) { a[1] = 7; }", arch="sm_90",
                         cache_dir=False)
        assert events() == ["push pycuda:compile", "pop pycuda"], events()
        """,
        PYCUDA_NVTX="1",
    )


ARRAY_OPERATIONS = """
import pycuda.gpuarray as gpuarray
import pycuda.profiler as profiler
from pycuda import _driver, _nvtx, cumath
from pycuda._operators import FLAT

def operations():
    a = gpuarray.empty(256, np.float32)
    a.fill(0)
    a.fill(1.5)
    b = a + a
    c = a + a            # the same launch again: served by the C++ operators
    a += 1
    d = cumath.exp(a)
    e = a[::2] * 2       # strided: the general path and its kernel's launch
    return b, c, d, e

operations()  # compiles and remembers the launches: not looked at
events()
"""


@needs_nvtx
@needs_recorder
@needs_fake
def test_array_operations_are_ranges_while_switched_on(recorder, fake):
    nvtx_recorder.run_recorded(
        recorder,
        hostemu.PRELUDE
        + ARRAY_OPERATIONS
        + textwrap.dedent(
            """
        assert len(FLAT) > 0, "the C++ operators serve nothing: the test would miss them"
        profiler.set_auto_ranges(True)
        operations()
        got = events()
        ours = [e for e in got if "pycuda" in e]
        assert ours == got, got  # nothing in the default domain
        names = [e.split(":", 1)[1] for e in got if e.startswith("push")]
        assert names[:6] == ["fill", "fill", "add", "add", "add", "exp"], names
        assert names[6] == "multiply" and names[7].startswith("pycuda_elwise"), names
        assert len(names) == 8 and got.count("pop pycuda") == 8, got
        assert got[-4:] == ["push pycuda:multiply", "push pycuda:" + names[7], "pop pycuda",
                            "pop pycuda"], got
        """
        ),
        PYCUDA_LIBCUDA=str(fake),
        PYCUDA_NVTX="0",
    )


@needs_nvtx
@needs_recorder
@needs_fake
def test_switched_off_the_array_operations_never_reach_nvtx(recorder, fake):
    nvtx_recorder.run_recorded(
        recorder,
        hostemu.PRELUDE
        + ARRAY_OPERATIONS
        + textwrap.dedent(
            """
        profiler.set_auto_ranges(True)
        profiler.set_auto_ranges(False)
        def refuse(*args):
            raise AssertionError("an automatic range was opened while they are off")
        _driver.nvtx_push_auto_range = _driver.nvtx_pop_auto_range = refuse
        operations()
        assert events() == [], "the C++ operators opened a range"
        """
        ),
        PYCUDA_LIBCUDA=str(fake),
        PYCUDA_NVTX="0",
    )


# }}}
