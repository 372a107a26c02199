"""Kernel launches: argument packing (CPU) and Function.__call__ / prepared_* on a GPU."""

from __future__ import annotations

import struct
import threading

import numpy as np
import pytest

import pycuda.driver as drv
from pycuda import _driver
from pycuda._user_warnings import ArgumentConversionWarning

float3 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32)])
float4 = np.dtype([("x", np.float32), ("y", np.float32), ("z", np.float32), ("w", np.float32)])
# struct S { char c; double d; int i; } as a C compiler lays it out.
struct_s = np.dtype([("c", np.int8), ("d", np.float64), ("i", np.int32)], align=True)


class FakeCudaArray:
    """Stands for any library's device array (CuPy, torch): only the interface."""

    def __init__(self, ptr: int) -> None:
        self.__cuda_array_interface__ = {
            "shape": (1,),
            "typestr": "<f4",
            "data": (ptr, False),
            "version": 3,
        }


class FakeGPUArray:
    def __init__(self, ptr: int) -> None:
        self.gpudata = ptr


# ---------------------------------------------------------------- CPU: layouts and packing


def test_param_layout_natural_alignment() -> None:
    assert _driver._param_layout("PiiP") == [(0, 8), (8, 4), (12, 4), (16, 8)]
    assert _driver._param_layout("cdi") == [(0, 1), (8, 8), (16, 4)]
    assert _driver._param_layout("eFD") == [(0, 2), (8, 8), (16, 16)]  # complex: float2/double2
    # by-value blobs: float3 aligned as float, float4 to 16 bytes
    assert _driver._param_layout("c12sc16s") == [(0, 1), (4, 12), (16, 1), (32, 16)]


def test_param_layout_rejects_unknown_codes() -> None:
    with pytest.raises(ValueError, match="unknown type code 'k'"):
        _driver._param_layout("Pk")


def test_pack_mixed_scalars_by_type() -> None:
    got = _driver._pack_args(None, (np.int8(1), np.float64(2.5), np.int32(-3)))
    assert got == struct.pack("@bdi", 1, 2.5, -3)


def test_pack_every_numpy_scalar_type() -> None:
    for t in (
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float16,
        np.float32,
        np.float64,
    ):
        assert _driver._pack_args(None, (t(7),)) == np.array(7, t).tobytes(), t
    assert _driver._pack_args(None, (np.bool_(True),)) == b"\x01"
    assert _driver._pack_args(None, (np.complex64(1 + 2j),)) == np.complex64(1 + 2j).tobytes()
    assert _driver._pack_args(None, (np.complex128(3 - 4j),)) == np.complex128(3 - 4j).tobytes()


def test_pack_half_complex_bool_alignment() -> None:
    got = _driver._pack_args(None, (np.float16(1.5), np.complex64(1 + 2j), np.bool_(True)))
    want = np.float16(1.5).tobytes() + b"\0" * 6 + np.complex64(1 + 2j).tobytes() + b"\x01"
    assert got == want


def test_pack_structs_and_vectors_by_value() -> None:
    s = np.zeros((), struct_s)
    s["c"], s["d"], s["i"] = 7, 1.5, -3
    v3 = np.array((1, 2, 3), float3)
    v4 = np.array((1, 2, 3, 4), float4)
    got = _driver._pack_args(None, (np.int8(9), v3, np.int8(8), v4, s[()]))
    want = b"\x09\0\0\0" + v3.tobytes() + b"\x08" + b"\0" * 15 + v4.tobytes() + s.tobytes()
    assert got == want
    # A plain 4-element float array passed by value is a float4.
    arr = np.arange(4, dtype=np.float32)
    assert _driver._pack_args(None, (np.int8(1), arr)) == b"\x01" + b"\0" * 15 + arr.tobytes()


def test_pack_device_pointers_from_interfaces() -> None:
    got = _driver._pack_args(None, (FakeCudaArray(0x1000), FakeGPUArray(0x2000), np.int32(5)))
    assert got == struct.pack("@PPi", 0x1000, 0x2000, 5)


def test_pack_python_numbers_rejected_with_parameter_index() -> None:
    with pytest.raises(TypeError, match=r"parameter 1 \(0-based\).*numpy.int32"):
        _driver._pack_args(None, (np.int32(1), 5))
    with pytest.raises(TypeError, match=r"parameter 0 \(0-based\).*float"):
        _driver._pack_args(None, (2.0,))
    with pytest.raises(TypeError, match=r"invalid type on parameter 0"):
        _driver._pack_args(None, ("text",))


def test_pack_prepared_formats() -> None:
    assert _driver._pack_args("PiiP", (0x10, 1, 2, FakeCudaArray(0x20))) == struct.pack(
        "@PiiP", 0x10, 1, 2, 0x20
    )
    assert _driver._pack_args("cdi", (b"a", 2, np.int32(3))) == struct.pack("@cdi", b"a", 2, 3)
    assert _driver._pack_args("e", (1.5,)) == np.float16(1.5).tobytes()
    assert _driver._pack_args("FD", (1 + 2j, 3)) == struct.pack("@ff8xdd", 1, 2, 3, 0)
    assert _driver._pack_args("?f", (True, np.float32(0.5))) == struct.pack("@?xxxf", True, 0.5)
    blob = np.array((1, 2, 3), float3)
    assert _driver._pack_args("b12s", (1, blob)) == b"\x01\0\0\0" + blob.tobytes()
    # pointer-sized integer codes (np.intp, np.uintp) take device memory too
    assert _driver._pack_args("lL", (FakeGPUArray(0x30), FakeCudaArray(0x40))) == struct.pack(
        "@PP", 0x30, 0x40
    )


def test_pack_prepared_errors() -> None:
    with pytest.raises(TypeError, match="prepared for 2 arguments, got 1"):
        _driver._pack_args("ii", (1,))
    with pytest.raises(OverflowError):
        _driver._pack_args("b", (300,))
    with pytest.raises(TypeError, match="format gives it 12 bytes, got 16"):
        _driver._pack_args("12s", (np.array((1, 2, 3, 4), float4),))
    with pytest.raises(TypeError, match="is a float"):
        _driver._pack_args("f", ("x",))


@pytest.mark.parametrize(
    ("grid", "block", "exc"),
    [
        ((1,), 256, TypeError),
        ((1,), (1.0, 1), TypeError),
        ((1,), (0, 1, 1), ValueError),
        ((1,), (-4,), ValueError),
        ((1,), (1, 1, 1, 1), ValueError),
        ((1,), (2048, 1, 1), ValueError),
        ((1,), (32, 32, 2), ValueError),
        ((1,), (1, 1, 128), ValueError),
        ((1, 1 << 17), (1,), ValueError),
        ("ab", (1,), TypeError),
    ],
)
def test_bad_launch_dims_rejected(grid, block, exc) -> None:
    with pytest.raises(exc):
        _driver._check_launch_dims(grid, block)


def test_launch_dims_accept_lists_and_numpy_ints() -> None:
    got = _driver._check_launch_dims([np.int64(3)], (np.uint16(32), 2))
    assert got == ((3, 1, 1), (32, 2, 1))


# ---------------------------------------------------------------- GPU

RECORD_SRC = r"""
struct S { char c; double d; int i; };
__global__ void k(float* a, int n, float x) {}
__global__ void noargs() {}
__global__ void add(float* dst, const float* a, const float* b)
{
    int t = threadIdx.x;
    dst[t] = a[t] + b[t];
}
__global__ void scale(float* a, float x) { a[threadIdx.x] *= x; }
// Writes every parameter's bytes, back to back, so the test sees what the kernel received.
__global__ void record(unsigned char* out, char c, double d, int i, float3 v3, float4 v4,
                       unsigned short h, float2 cf, double2 cd, bool b, S s)
{
    int o = 0;
#define PUT(x) memcpy(out + o, &x, sizeof(x)); o += sizeof(x);
    PUT(c) PUT(d) PUT(i) PUT(v3) PUT(v4) PUT(h) PUT(cf) PUT(cd) PUT(b) PUT(s)
}
"""


@pytest.fixture
def mod(ctx):
    from pycuda.compiler import SourceModule

    return SourceModule(RECORD_SRC)


def record_args():
    s = np.zeros((), struct_s)
    s["c"], s["d"], s["i"] = 7, 1.5, -3
    args = (
        np.int8(5),
        np.float64(2.5),
        np.int32(9),
        np.array((1, 2, 3), float3),
        np.array((4, 5, 6, 7), float4)[()],
        np.float16(1.5),
        np.complex64(1 + 2j),
        np.complex128(3 - 4j),
        np.bool_(True),
        s[()],
    )
    expected = b"".join(np.asarray(a).tobytes() for a in args)
    return args, expected


@pytest.mark.gpu
def test_call_in_out_inout(mod) -> None:
    add = mod.get_function("add")
    a = np.random.rand(64).astype(np.float32)
    b = np.random.rand(64).astype(np.float32)
    dest = np.zeros_like(a)
    add(drv.Out(dest), drv.In(a), drv.In(b), block=(64, 1, 1), grid=(1, 1))
    np.testing.assert_allclose(dest, a + b)
    scale = mod.get_function("scale")
    original = a.copy()
    scale(drv.InOut(a), np.float32(2), block=(64, 1, 1))
    np.testing.assert_array_equal(a, 2 * original)


@pytest.mark.gpu
def test_every_argument_type_reaches_the_kernel(mod) -> None:
    record = mod.get_function("record")
    args, expected = record_args()
    out = drv.mem_alloc(256)
    drv.memset_d8(out, 0, 256)
    record(out, *args, block=(1, 1, 1))
    got = drv.from_device(out, (len(expected),), np.uint8).tobytes()
    assert got == expected


@pytest.mark.gpu
def test_prepared_forms_reach_the_kernel(mod) -> None:
    record = mod.get_function("record")
    args, expected = record_args()
    with pytest.raises(TypeError):
        record.prepare("Pi")
    record.prepare(
        [
            np.intp,
            "c",
            np.float64,
            np.int32,
            float3,
            float4,
            np.float16,
            np.complex64,
            np.complex128,
            np.bool_,
            struct_s,
        ]
    )
    assert record.arg_format == "lcdi12s16seFD?24s"  # np.intp is "l", as in the original
    out = drv.mem_alloc(256)
    prepared = (b"\x05", 2.5, 9) + args[3:]
    record.prepared_call((1, 1), (1, 1, 1), out, *prepared)
    assert drv.from_device(out, (len(expected),), np.uint8).tobytes() == expected
    drv.memset_d8(out, 0, 256)
    stream = drv.Stream()
    record.prepared_async_call((1,), (1,), stream, out, *prepared, shared_size=0)
    stream.synchronize()
    assert drv.from_device(out, (len(expected),), np.uint8).tobytes() == expected
    timer = record.prepared_timed_call((1,), (1,), out, *prepared)
    assert 0 < timer() < 1


@pytest.mark.gpu
def test_device_memory_kinds_as_arguments(mod) -> None:
    scale = mod.get_function("scale")
    host = np.ones(32, np.float32)
    buf = drv.to_device(host)
    scale(buf, np.float32(2), block=(32, 1, 1))
    scale(FakeCudaArray(int(buf)), np.float32(2), block=(32, 1, 1))
    scale(FakeGPUArray(buf), np.float32(2), block=(32, 1, 1))
    np.testing.assert_array_equal(drv.from_device(buf, (32,), np.float32), 8 * host)
    managed = drv.managed_zeros(32, np.float32, mem_flags=drv.mem_attach_flags.GLOBAL)
    managed[:] = 1
    scale(managed, np.float32(3), block=(32, 1, 1))
    drv.Context.synchronize()
    np.testing.assert_array_equal(managed, 3)


@pytest.mark.gpu
def test_time_kernel_and_streams(mod) -> None:
    k = mod.get_function("k")
    buf = drv.mem_alloc(64)
    seconds = k(buf, np.int32(1), np.float32(1), block=(32, 1, 1), time_kernel=True)
    assert isinstance(seconds, float) and 0 <= seconds < 1
    stream = drv.Stream()
    assert k(buf, np.int32(1), np.float32(1), block=(32,), grid=(2, 2), stream=stream) is None
    stream.synchronize()
    k(buf, np.int32(1), np.float32(1), block=[8, 8], shared=1024, texrefs=[])


@pytest.mark.gpu
def test_kernel_without_parameters(mod) -> None:
    f = mod.get_function("noargs")
    f(block=(1, 1, 1))
    assert f.prepare([]) is f and f.arg_format == ""
    f.prepared_call((2, 2), (4, 4, 1))
    with pytest.raises(TypeError, match="takes 0 arguments, got 1"):
        f(np.int32(1), block=(1, 1, 1))
    drv.Context.synchronize()


@pytest.mark.gpu
def test_argument_errors_before_launch(mod) -> None:
    k = mod.get_function("k")
    buf = drv.mem_alloc(64)
    with pytest.raises(TypeError, match="takes 3 arguments, got 2"):
        k(buf, np.int32(1), block=(1, 1, 1))
    # A scalar of another size is converted as C converts it, with a warning where its value
    # does not fit (tests/test_arg_packer.py); the kernel ignores its parameters.
    wrapped = r"parameter 1 \(0-based\).* 4 bytes; the int64 value 1099511627776 given was"
    with pytest.warns(ArgumentConversionWarning, match=wrapped):
        k(buf, np.int64(2**40), np.float32(1), block=(1, 1, 1))
    with pytest.raises(TypeError, match=r"parameter 1 \(0-based\).* 4 bytes.* 8 bytes"):
        k(buf, buf, np.float32(1), block=(1, 1, 1))  # a pointer cannot be converted
    with pytest.raises(TypeError, match=r"parameter 2 \(0-based\).*Python float"):
        k(buf, np.int32(1), 1.0, block=(1, 1, 1))
    with pytest.raises(ValueError, match="must specify block"):
        k(buf, np.int32(1), np.float32(1))
    with pytest.raises(ValueError, match="extra keyword"):
        k(buf, np.int32(1), np.float32(1), block=(1, 1, 1), blocks=2)
    with pytest.raises(ValueError):
        k(buf, np.int32(1), np.float32(1), block=(k.max_threads_per_block + 1, 1, 1))
    with pytest.raises(TypeError):
        k(buf, np.int32(1), np.float32(1), block=(1, 1, 1), grid=(1.5, 1))
    with pytest.raises(TypeError, match="texture"):
        k(buf, np.int32(1), np.float32(1), block=(1, 1, 1), texrefs=[object()])
    with pytest.raises(TypeError, match="not prepared"):
        k.prepared_call((1,), (1,), buf, 1, 1.0)
    drv.Context.synchronize()  # nothing bad was launched


@pytest.mark.gpu
def test_function_attributes(mod) -> None:
    k = mod.get_function("k")
    assert k.num_regs >= 0
    assert k.max_threads_per_block == k.get_attribute(drv.function_attribute.MAX_THREADS_PER_BLOCK)
    assert k.binary_version >= 50 and k.ptx_version >= 50
    assert k.local_size_bytes >= 0 and k.const_size_bytes >= 0 and k.shared_size_bytes == 0
    with pytest.raises(AttributeError):
        k.no_such_attribute  # noqa: B018
    k.set_cache_config(drv.func_cache.PREFER_L1)
    k.set_shared_config(drv.shared_config.DEFAULT_BANK_SIZE)
    k.set_attribute(drv.function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, 64 * 1024)
    assert k.max_active_blocks_per_multiprocessor(128) >= 1
    k.user_note = "functions take attributes, as in the original"
    assert k.user_note.startswith("functions")


@pytest.mark.gpu
def test_launch_from_second_thread(mod) -> None:
    k = mod.get_function("k")
    buf = drv.mem_alloc(64)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            mod.get_function("k")  # same module, another thread
            ctx_obj.push()
            try:
                k(buf, np.int32(1), np.float32(1), block=(32, 1, 1))
                drv.Context.synchronize()
            finally:
                drv.Context.pop()
        except BaseException as e:  # reported in the main thread
            errors.append(e)

    ctx_obj = drv.Context.get_current()
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert not errors


@pytest.mark.gpu
def test_launch_without_context_is_logic_error(mod) -> None:
    k = mod.get_function("k")
    buf = drv.mem_alloc(64)
    errors: list[BaseException] = []

    def worker() -> None:
        try:
            k(buf, np.int32(1), np.float32(1), block=(1, 1, 1))
        except BaseException as e:
            errors.append(e)

    t = threading.Thread(target=worker)  # a new thread has no current context
    t.start()
    t.join()
    assert len(errors) == 1 and isinstance(errors[0], drv.LogicError)
    assert "no current context" in str(errors[0])


def test_argument_handlers_need_contiguous_arrays() -> None:
    with pytest.raises(ValueError, match="contiguous"):
        drv.Out(np.zeros((4, 4), np.float32)[:, 1])
    handler = drv.InOut(np.zeros(3, np.float32))
    assert isinstance(handler, drv.ArgumentHandler) and handler.dev_alloc is None


@pytest.mark.gpu
def test_in_out_on_a_stream(mod) -> None:
    add = mod.get_function("add")
    a = drv.pagelocked_empty(32, np.float32)
    b = drv.pagelocked_empty(32, np.float32)
    dest = drv.pagelocked_zeros(32, np.float32)
    a[:] = np.arange(32)
    b[:] = 1
    stream = drv.Stream()
    add(drv.Out(dest), drv.In(a), drv.In(b), block=(32, 1, 1), stream=stream)
    stream.synchronize()
    np.testing.assert_array_equal(dest, np.arange(32) + 1)


@pytest.mark.gpu
def test_complex_arguments_by_type_and_prepared(mod) -> None:
    from pycuda.compiler import SourceModule

    cmod = SourceModule(
        r"""
        __global__ void cplx(float2* out, char c, float2 z, double2 w)
        { out[0] = z; out[1] = make_float2((float)w.x, (float)w.y); out[2].x = c; }
        """
    )
    f = cmod.get_function("cplx")
    out = drv.mem_alloc(24)
    f(out, np.int8(3), np.complex64(1 + 2j), np.complex128(3 - 4j), block=(1, 1, 1))
    got = drv.from_device(out, (6,), np.float32)
    np.testing.assert_array_equal(got[:5], [1, 2, 3, -4, 3])
    f.prepare("PcFD")
    f.prepared_call((1,), (1,), out, b"\x05", 5 + 6j, 7 - 8j)
    got = drv.from_device(out, (6,), np.float32)
    np.testing.assert_array_equal(got[:5], [5, 6, 7, -8, 5])
