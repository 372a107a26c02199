"""Tests of pycuda.tools: the C-type registry and kernel arguments (CPU); contexts, device data
and memoization per context (gpu)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import pycuda.tools as tools
from pycuda.compyte.dtypes import TypeNameNotKnown
from pycuda.tools import (
    DeviceData,
    OccupancyRecord,
    ScalarArg,
    VectorArg,
    dtype_to_ctype,
    get_arg_type,
    get_or_register_dtype,
    parse_c_arg,
    register_dtype,
)

# {{{ C types (CPU)


@pytest.mark.parametrize(
    ("dtype", "ctype"),
    [
        (np.bool_, "bool"),
        (np.int8, "signed char"),
        (np.uint8, "unsigned char"),
        (np.int16, "short"),
        (np.uint16, "unsigned short"),
        (np.int32, "int"),
        (np.uint32, "unsigned int"),
        (np.int64, "long"),
        (np.uint64, "unsigned long"),
        (np.float32, "float"),
        (np.float64, "double"),
        (np.complex64, "pycuda::complex<float>"),
        (np.complex128, "pycuda::complex<double>"),
    ],
)
def test_dtype_to_ctype_prefilled(dtype, ctype):
    assert dtype_to_ctype(dtype) == ctype
    assert dtype_to_ctype(np.dtype(dtype)) == ctype
    assert get_or_register_dtype(ctype) == np.dtype(dtype)


def test_c_aliases_map_to_dtypes():
    assert get_or_register_dtype("unsigned") == np.uint32
    assert get_or_register_dtype("long long") == np.int64
    assert get_or_register_dtype("unsigned long long") == np.uint64
    assert get_or_register_dtype("char") == np.int8
    assert get_or_register_dtype("uint16_t") == np.uint16
    assert get_or_register_dtype(["no such type", "float"]) == np.float32


def test_fp_tex_hack():
    assert dtype_to_ctype(np.float32, with_fp_tex_hack=True) == "fp_tex_float"
    assert dtype_to_ctype(np.float64, with_fp_tex_hack=True) == "fp_tex_double"
    assert dtype_to_ctype(np.complex64, with_fp_tex_hack=True) == "fp_tex_cfloat"
    assert dtype_to_ctype(np.int32, with_fp_tex_hack=True) == "int"


def test_unregistered_dtype_is_a_clear_value_error():
    dtype = np.dtype([("unregistered_x", np.int32), ("unregistered_y", np.int16)])
    with pytest.raises(ValueError, match="register_dtype"):
        dtype_to_ctype(dtype)
    with pytest.raises(ValueError, match="None"):
        dtype_to_ctype(None)


def test_unknown_name_raises_type_name_not_known():
    with pytest.raises(TypeNameNotKnown, match="no_such_ctype_t"):
        get_or_register_dtype("no_such_ctype_t")
    assert issubclass(TypeNameNotKnown, ValueError)


def test_register_struct_dtype_and_use_it_in_arguments():
    dtype = np.dtype([("px", np.float32), ("py", np.float32), ("tag", np.int32)])
    register_dtype(dtype, ["test_tools_point3"])
    assert dtype_to_ctype(dtype) == "test_tools_point3"
    arg = parse_c_arg("test_tools_point3 *points")
    assert isinstance(arg, VectorArg) and arg.dtype == dtype
    scalar = parse_c_arg("test_tools_point3 p")
    assert scalar.struct_char == "12s"
    assert scalar.declarator() == "test_tools_point3 p"


def test_register_conflicts_are_errors():
    first = np.dtype([("conflict_a", np.int32)])
    second = np.dtype([("conflict_b", np.float64)])
    register_dtype(first, "test_tools_conflict")
    register_dtype(first, "test_tools_conflict")  # the same registration again is harmless
    with pytest.raises(RuntimeError, match="already registered"):
        register_dtype(second, "test_tools_conflict")
    with pytest.raises(RuntimeError, match="alias_ok"):
        register_dtype(first, "test_tools_conflict_other_name")
    register_dtype(first, "test_tools_conflict_alias", alias_ok=True)
    assert get_or_register_dtype("test_tools_conflict_alias") == first
    assert dtype_to_ctype(first) == "test_tools_conflict"


def test_get_or_register_registers_once():
    dtype = np.dtype([("gor_a", np.uint8), ("gor_b", np.uint8)])
    assert get_or_register_dtype("test_tools_gor", dtype) == dtype
    assert get_or_register_dtype("test_tools_gor") == dtype
    assert dtype_to_ctype(dtype) == "test_tools_gor"


@pytest.mark.parametrize(
    ("decl", "kind", "dtype", "name"),
    [
        ("float *x", VectorArg, np.float32, "x"),
        ("float* x", VectorArg, np.float32, "x"),
        ("const float * __restrict__ x", VectorArg, np.float32, "x"),
        ("double a[]", VectorArg, np.float64, "a"),
        ("unsigned int n", ScalarArg, np.uint32, "n"),
        ("  unsigned   long long  big ", ScalarArg, np.uint64, "big"),
        ("const int k", ScalarArg, np.int32, "k"),
        ("pycuda::complex<float> *z", VectorArg, np.complex64, "z"),
        ("pycuda::complex< double > w", ScalarArg, np.complex128, "w"),
        ("volatile unsigned char *bytes_2", VectorArg, np.uint8, "bytes_2"),
    ],
)
def test_parse_c_arg(decl, kind, dtype, name):
    arg = parse_c_arg(decl)
    assert type(arg) is kind
    assert arg.dtype == np.dtype(dtype)
    assert arg.name == name


@pytest.mark.parametrize(
    ("decl", "error", "match"),
    [
        ("float", ValueError, "expected 'type name'"),
        ("", ValueError, "expected 'type name'"),
        ("float **pp", ValueError, "pointers to pointers"),
        ("mystery_t x", TypeNameNotKnown, "mystery_t"),
    ],
)
def test_parse_c_arg_rejects_bad_declarations(decl, error, match):
    with pytest.raises(error, match=match):
        parse_c_arg(decl)


def test_vector_and_scalar_args():
    vec = VectorArg(np.float32, "dest")
    assert vec.declarator() == "float *dest"
    assert vec.struct_char == "P"
    scalar = ScalarArg(np.int32, "n")
    assert scalar.declarator() == "int n"
    assert scalar.struct_char == "i"
    assert ScalarArg(np.float64, "a").struct_char == "d"
    assert repr(vec) == "VectorArg('dest', float32)"
    assert get_arg_type("float *x") == "P"
    assert get_arg_type("unsigned int n") == "I"


# }}}

# {{{ device data arithmetic and occupancy with given device numbers (CPU)


def _h100_like() -> types.SimpleNamespace:
    # Device numbers of a compute capability 9.0 part, as DeviceData reads them.
    return types.SimpleNamespace(
        max_threads=1024,
        warp_size=32,
        warps_per_mp=64,
        thread_blocks_per_mp=32,
        registers=65536,
        shared_memory=233472,
        reserved_shared_memory_per_block=1024,
        smem_alloc_granularity=128,
        register_allocation_granularity=256,
    )


def test_occupancy_limited_by_warps_and_registers():
    rec = OccupancyRecord(_h100_like(), threads=256, registers=32)
    assert rec.tb_per_mp == 8
    assert rec.warps_per_mp == 64
    assert rec.occupancy == 1.0
    heavy = OccupancyRecord(_h100_like(), threads=256, registers=128)
    # 8 warps x 128 regs x 32 threads = 32768 registers per block: two blocks fit.
    assert (heavy.tb_per_mp, heavy.limited_by) == (2, "regs")
    assert heavy.occupancy == 0.25


def test_occupancy_limited_by_shared_memory():
    rec = OccupancyRecord(_h100_like(), threads=128, shared_mem=48 * 1024)
    # 48 KiB + 1 KiB reserved per block: 4 blocks in 228 KiB.
    assert (rec.tb_per_mp, rec.limited_by) == (4, "smem")
    assert rec.occupancy == 16 / 64


def test_occupancy_small_blocks_hit_the_block_limit():
    rec = OccupancyRecord(_h100_like(), threads=32)
    assert (rec.tb_per_mp, rec.limited_by) == (32, "device")
    assert rec.occupancy == 0.5


def test_occupancy_rejects_impossible_blocks():
    with pytest.raises(ValueError, match="too many threads"):
        OccupancyRecord(_h100_like(), threads=2048)
    with pytest.raises(ValueError, match="too many registers"):
        OccupancyRecord(_h100_like(), threads=1024, registers=255)
    with pytest.raises(ValueError, match="too much shared memory"):
        OccupancyRecord(_h100_like(), threads=32, shared_mem=300_000)


def test_device_data_alignment_helpers():
    devdata = DeviceData.__new__(DeviceData)  # the helpers need no device numbers
    assert devdata.align_bytes(4) == 64
    assert devdata.align_bytes(8) == devdata.align_bytes(16) == 128
    with pytest.raises(ValueError):
        devdata.align_bytes(3)
    assert devdata.align(65) == 128
    assert devdata.align(64) == 64
    assert devdata.align_words(4) == 16
    assert devdata.align_dtype(17, 4) == 32
    assert devdata.coalesce(17) == 32
    assert [DeviceData.make_valid_tex_channel_count(n) for n in (1, 2, 3, 4)] == [1, 2, 4, 4]
    with pytest.raises(ValueError):
        DeviceData.make_valid_tex_channel_count(5)


# }}}

# {{{ default device selection and re-exports (CPU)


def test_pinned_device_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CUDA_DEVICE", raising=False)
    assert tools._pinned_device_number() is None
    (tmp_path / ".cuda_device").write_text("1\n")
    assert tools._pinned_device_number() == 1
    monkeypatch.setenv("CUDA_DEVICE", "3")
    assert tools._pinned_device_number() == 3
    monkeypatch.setenv("CUDA_DEVICE", "gpu0")
    with pytest.raises(ValueError, match="CUDA_DEVICE"):
        tools._pinned_device_number()


def test_pool_reexports():
    from pycuda import _driver

    names = ["bitlog2", "DeviceMemoryPool", "PageLockedAllocator", "PageLockedMemoryPool"]
    names += ["PooledDeviceAllocation", "PooledHostAllocation"]
    for name in names:
        assert getattr(tools, name) is getattr(_driver, name)
    assert tools.bitlog2(1024) == 10


def test_context_dependent_memoize_caches_by_arguments():
    # Whatever context is current (none, here) stays so: only the arguments vary.
    calls = []

    @tools.context_dependent_memoize
    def scaled(x, scale=2):
        """Doc kept."""
        calls.append((x, scale))
        return x * scale

    assert scaled.__doc__ == "Doc kept." and scaled.__name__ == "scaled"
    assert [scaled(3), scaled(3), scaled(3, scale=5), scaled(3, scale=5), scaled(4)] == [
        6,
        6,
        15,
        15,
        8,
    ]
    assert calls == [(3, 2), (3, 5), (4, 2)]
    tools.clear_context_caches()
    assert scaled(3) == 6
    assert calls == [(3, 2), (3, 5), (4, 2), (3, 2)]


# }}}

# {{{ on a GPU


@pytest.mark.gpu
def test_make_default_context_is_current_and_poppable(ctx, monkeypatch):
    import pycuda.driver as drv

    monkeypatch.delenv("CUDA_DEVICE", raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")
    new = tools.make_default_context()
    try:
        assert drv.Context.get_current() == new
        assert new != ctx  # make_context() makes a separate context
    finally:
        drv.Context.pop()
        new.detach()
    assert drv.Context.get_current() == ctx


@pytest.mark.gpu
def test_make_default_context_honours_cuda_device_and_ctx_maker(ctx, monkeypatch):
    import pycuda.driver as drv

    last = drv.Device.count() - 1
    monkeypatch.setenv("CUDA_DEVICE", str(last))
    seen = []

    def maker(dev):
        seen.append(dev)
        return "made"

    assert tools.make_default_context(maker) == "made"
    assert seen == [drv.Device(last)]
    monkeypatch.setenv("CUDA_DEVICE", str(last + 1))
    with pytest.raises(RuntimeError, match="does not exist"):
        tools.make_default_context(maker)


@pytest.mark.gpu
def test_make_default_context_reports_when_no_device_works(ctx, monkeypatch):
    import pycuda.driver as drv

    monkeypatch.delenv("CUDA_DEVICE", raising=False)
    monkeypatch.setenv("HOME", "/nonexistent")

    def refuse(dev):
        raise drv.LogicError("refused for the test")

    with pytest.raises(RuntimeError, match="wasn't able to create a context"):
        tools.make_default_context(refuse)


@pytest.mark.gpu
def test_device_data_reads_the_device(ctx):
    import pycuda.driver as drv

    dev = drv.Context.get_device()
    devdata = DeviceData()
    assert devdata.warp_size == 32
    assert devdata.max_threads == dev.get_attribute(drv.device_attribute.MAX_THREADS_PER_BLOCK)
    assert devdata.warps_per_mp * 32 == dev.get_attribute(
        drv.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR
    )
    assert devdata.registers >= 65536
    assert devdata.shared_memory >= 48 * 1024
    assert devdata.thread_blocks_per_mp >= 16
    rec = OccupancyRecord(devdata, threads=256, registers=32)
    assert 0 < rec.occupancy <= 1
    assert DeviceData(dev).registers == devdata.registers


@pytest.mark.gpu
def test_context_dependent_memoize_caches_per_context(ctx):
    import pycuda.driver as drv

    calls = []
    other = None

    @tools.context_dependent_memoize
    def twice(x, scale=2):
        calls.append(x)
        return x * scale

    try:
        assert twice(3) == 6 and twice(3) == 6
        assert calls == [3]
        assert twice(3, scale=3) == 9
        assert calls == [3, 3]
        other = drv.Device(0).make_context()
        try:
            assert twice(3) == 6
            assert calls == [3, 3, 3]  # another context computes again
        finally:
            drv.Context.pop()
        assert twice(3) == 6
        assert calls == [3, 3, 3]
        tools.clear_context_caches()
        assert twice(3) == 6
        assert calls == [3, 3, 3, 3]
        assert twice in tools.context_dependent_memoized_functions
    finally:
        tools.clear_context_caches()  # the cache holds the other context
        if other is not None:
            other.detach()


@pytest.mark.gpu
def test_mark_cuda_test_runs_inside_a_fresh_context(ctx):
    import pycuda.driver as drv

    inside = []

    def body():
        inside.append(drv.Context.get_current())
        return "ran"

    assert tools.mark_cuda_test(body)() == "ran"
    assert inside[0] is not None and inside[0] != ctx
    assert drv.Context.get_current() == ctx


@pytest.mark.gpu
def test_debug_memory_pool_logs_each_allocation(ctx):
    import gc
    import io

    import pycuda.driver as drv
    from pycuda import gpuarray

    log = io.StringIO()
    pool = tools.DebugMemoryPool(interactive=False, logfile=log)
    assert isinstance(pool, drv.DeviceMemoryPool)

    def big():
        return pool.allocate(1 << 20)

    def small():
        return pool.allocate(100)

    a, b, c = big(), big(), small()
    assert int(a) != 0 and pool.active_blocks == 3
    text = log.getvalue()
    assert "\n  Allocation of size 1048576 occurring (mem: last_free:" in text
    assert "(pool: held:0, active:2):\n      at: " in text
    assert text.rstrip().endswith("(1048576 bytes): 2x")  # the blocks alive before c
    assert "|big|allocate" in text and "|small|allocate" in text
    assert sorted(size for size, _ in pool.blocks.values()) == [100, 1 << 20, 1 << 20]
    del b
    gc.collect()
    assert len(pool.blocks) == 2  # a freed allocation leaves the histogram
    x = gpuarray.zeros(1000, np.float32, allocator=pool.allocate)
    assert isinstance(x.gpudata, drv.PooledDeviceAllocation) and x.get().sum() == 0
    assert pool.bin_number(1000) >= 0 and pool.alloc_size(pool.bin_number(1000)) >= 1000
    assert pool.managed_bytes >= pool.active_bytes > 0
    del a, c, x
    gc.collect()
    assert pool.blocks == {}
    pool.free_held()
    pool.stop_holding()
    assert pool.held_blocks == 0


def test_debug_memory_pool_asks_for_mnemonics_once(monkeypatch, tmp_path, capsys):
    from pycuda import _debug_memory_pool as dmp

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    answers = iter(["", "my-buffers"])  # first [Enter]: show the stack; then a name
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    pool = tools.DebugMemoryPool.__new__(tools.DebugMemoryPool)  # no device pool needed
    pool.interactive = True
    pool.stacktrace_mnemonics = dmp._MnemonicStore(dmp._mnemonics_path())
    stack = ("<module>", "main", "allocate")
    assert pool.describe(stack, 64) == "my-buffers"
    assert "64 ('<module>', 'main', 'allocate')" in capsys.readouterr().out
    assert pool.describe(stack, 64) == "my-buffers"  # remembered: no more questions
    again = dmp._MnemonicStore(dmp._mnemonics_path())  # and on disk, for the next run
    assert again[stack, 64] == "my-buffers"
    with pytest.raises(KeyError):
        again[stack, 65]
    pool.interactive = False
    assert pool.describe(stack, 64) == "<module>|main|allocate"


def test_base_dtype_to_ctype_is_the_registry_mapping():
    assert tools.base_dtype_to_ctype(np.float32) == "float"
    assert tools.base_dtype_to_ctype(np.complex64) == "pycuda::complex<float>"
    assert tools.dtype_to_ctype(np.float32, with_fp_tex_hack=True) == "fp_tex_float"
    with pytest.raises(ValueError):
        tools.base_dtype_to_ctype(np.dtype("O"))


@pytest.mark.gpu
def test_init_cuda_context_fixture(ctx):
    import pycuda.driver as drv

    gen = tools.init_cuda_context_fixture()
    made = next(gen)
    assert drv.Context.get_current() == made
    with pytest.raises(StopIteration):
        next(gen)
    assert drv.Context.get_current() == ctx


# }}}
