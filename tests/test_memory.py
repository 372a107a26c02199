"""Device memory, the memset/memcpy family, pointers and IPC (pycuda.driver §1.2.10, §1.2.12)."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import pycuda.driver as drv

# --- without a GPU: names, and argument checks that happen before any driver call ---------

API = [
    "mem_alloc",
    "mem_alloc_pitch",
    "mem_get_info",
    "mem_get_address_range",
    "mem_alloc_like",
    "to_device",
    "from_device",
    "from_device_like",
    "DeviceAllocation",
    "ManagedAllocation",
    "PointerHolderBase",
    "mem_get_ipc_handle",
    "IPCMemoryHandle",
    "memcpy_htod",
    "memcpy_htod_async",
    "memcpy_dtoh",
    "memcpy_dtoh_async",
    "memcpy_dtod",
    "memcpy_dtod_async",
    "memcpy_peer",
    "memcpy_peer_async",
] + [
    f"memset_{kind}{bits}{suffix}"
    for kind in ("d", "d2d")
    for bits in (8, 16, 32)
    for suffix in ("", "_async")
]


@pytest.mark.parametrize("name", API)
def test_api_exists(name):
    assert callable(getattr(drv, name))


def test_managed_allocation_is_a_device_allocation():
    assert issubclass(drv.ManagedAllocation, drv.DeviceAllocation)


class Holder(drv.PointerHolderBase):
    def __init__(self, ptr):
        super().__init__()
        self.ptr = ptr

    def get_pointer(self):
        return self.ptr


class CudaArrayInterface:
    def __init__(self, ptr):
        self.__cuda_array_interface__ = {
            "data": (ptr, False),
            "shape": (1,),
            "typestr": "<f4",
            "version": 3,
        }


class HasGpudata:
    def __init__(self, gpudata):
        self.gpudata = gpudata


NONCONTIGUOUS = np.zeros((4, 4), np.float32)[:, ::2]


def test_pointer_holder_subclass_from_python():
    h = Holder(0x1234)
    assert int(h) == 0x1234
    assert h.__index__() == 0x1234
    assert h.get_pointer() == 0x1234


def test_pointer_holder_without_super_init_is_type_error():
    class Bad(drv.PointerHolderBase):
        def __init__(self):
            pass

    with pytest.raises(TypeError, match="super"):
        drv.memcpy_htod(Bad(), b"x")


# Made per test, not at collection: pytest keeps its parameters alive past nanobind's check
# for instances left at exit, which would report the holders as leaked.
@pytest.mark.parametrize(
    "make_dest",
    [
        lambda: 0x1000,
        lambda: np.uint64(0x1000),
        lambda: Holder(0x1000),
        lambda: CudaArrayInterface(0x1000),
        lambda: HasGpudata(0x1000),
        lambda: HasGpudata(Holder(0x1000)),
    ],
    ids=["int", "numpy-int", "holder", "cuda-array-interface", "gpudata", "gpudata-holder"],
)
def test_device_pointer_kinds_are_accepted(make_dest):
    # The device side is parsed first: reaching the host-buffer check proves it was accepted.
    with pytest.raises(ValueError, match="not contiguous"):
        drv.memcpy_htod(make_dest(), NONCONTIGUOUS)


@pytest.mark.parametrize("dest", [object(), "0x1000", 1.5, HasGpudata(HasGpudata(5))])
def test_device_pointer_wrong_type(dest):
    with pytest.raises(TypeError, match="memcpy_htod: expected a device pointer"):
        drv.memcpy_htod(dest, b"abcd")


def test_device_pointer_none_is_type_error():
    with pytest.raises(TypeError):
        drv.memcpy_htod(None, b"abcd")


@pytest.mark.parametrize("ptr", [-1, 2**64])
def test_device_pointer_out_of_range(ptr):
    with pytest.raises(ValueError, match="integer"):
        drv.memcpy_htod(ptr, b"abcd")


def test_host_side_must_be_a_buffer():
    with pytest.raises(TypeError, match="buffer protocol"):
        drv.memcpy_htod(0x1000, [1, 2, 3])
    with pytest.raises(TypeError, match="buffer protocol"):
        drv.memcpy_dtoh(42, 0x1000)


def test_host_side_must_be_contiguous():
    with pytest.raises(ValueError, match="contiguous"):
        drv.memcpy_htod(0x1000, NONCONTIGUOUS)
    with pytest.raises(ValueError, match="contiguous"):
        drv.memcpy_dtoh_async(NONCONTIGUOUS, 0x1000)


def test_dtoh_needs_a_writable_buffer():
    readonly = np.zeros(4)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        drv.memcpy_dtoh(b"abcd", 0x1000)
    with pytest.raises(ValueError, match="read-only"):
        drv.memcpy_dtoh(readonly, 0x1000)


@pytest.mark.parametrize("name,value", [("memset_d8", 256), ("memset_d16", 65536)])
def test_memset_value_must_fit(name, value):
    with pytest.raises(ValueError, match="does not fit"):
        getattr(drv, name)(0x1000, value, 1)


def test_memset_negative_value_is_type_error():
    with pytest.raises(TypeError):
        drv.memset_d32(0x1000, -1, 1)


def test_memset_2d_width_beyond_pitch():
    with pytest.raises(ValueError, match="pitch"):
        drv.memset_d2d32(0x1000, 8, 0, 3, 2)


def test_mem_alloc_pitch_access_size():
    with pytest.raises(ValueError, match="access_size"):
        drv.mem_alloc_pitch(16, 16, 3)


def test_memcpy_peer_context_type():
    with pytest.raises(TypeError, match="Context or None"):
        drv.memcpy_peer(0x1000, 0x2000, 4, dest_context=5)


def test_from_device_order():
    with pytest.raises(ValueError, match="order"):
        drv.from_device(0x1000, (2,), np.float32, order="K")


def test_ipc_handle_must_be_64_bytes():
    with pytest.raises(ValueError, match="64 bytes"):
        drv.IPCMemoryHandle(bytearray(10))


def test_stream_argument_type():
    with pytest.raises(TypeError, match="stream"):
        drv.memcpy_dtod_async(0x1000, 0x2000, 4, stream="default")


# --- on a GPU ----------------------------------------------------------------------------


@pytest.mark.gpu
def test_alloc_roundtrip(ctx):
    a = np.random.rand(1000).astype(np.float32)
    buf = drv.mem_alloc(a.nbytes)
    assert isinstance(buf, drv.DeviceAllocation)
    assert int(buf) == buf.__index__() != 0
    drv.memcpy_htod(buf, a)
    b = np.empty_like(a)
    drv.memcpy_dtoh(b, buf)
    np.testing.assert_array_equal(a, b)


@pytest.mark.gpu
def test_to_device_from_device(ctx):
    a = np.arange(24, dtype=np.int32).reshape(4, 6)
    buf = drv.to_device(a)
    np.testing.assert_array_equal(drv.from_device(buf, a.shape, a.dtype), a)
    np.testing.assert_array_equal(drv.from_device_like(buf, a), a)
    like = drv.mem_alloc_like(a)
    drv.memcpy_dtod(like, buf, a.nbytes)
    np.testing.assert_array_equal(drv.from_device_like(like, a), a)


@pytest.mark.gpu
def test_fortran_order_and_other_buffers(ctx):
    f = np.asfortranarray(np.arange(12, dtype=np.float64).reshape(3, 4))
    buf = drv.to_device(f)
    back = drv.from_device(buf, f.shape, f.dtype, order="F")
    np.testing.assert_array_equal(back, f)
    drv.memcpy_htod(buf, b"\x01" * 8)
    out = bytearray(8)
    drv.memcpy_dtoh(out, buf)
    assert out == bytearray(b"\x01" * 8)
    drv.memcpy_dtoh(memoryview(out), buf)


@pytest.mark.gpu
def test_mem_get_info_and_address_range(ctx):
    free, total = drv.mem_get_info()
    assert 0 < free <= total
    buf = drv.mem_alloc(4096)
    base, size = drv.mem_get_address_range(int(buf) + 100)
    assert base == int(buf)
    assert size >= 4096


@pytest.mark.gpu
def test_memset_family(ctx):
    n = 64
    buf = drv.mem_alloc(n * 4)
    drv.memset_d8(buf, 0xAB, n * 4)
    np.testing.assert_array_equal(drv.from_device(buf, (n * 4,), np.uint8), 0xAB)
    drv.memset_d16(buf, 0xBEEF, n * 2)
    np.testing.assert_array_equal(drv.from_device(buf, (n * 2,), np.uint16), 0xBEEF)
    drv.memset_d32(buf, 0xDEADBEEF, n)
    np.testing.assert_array_equal(drv.from_device(buf, (n,), np.uint32), 0xDEADBEEF)
    s = drv.Stream()
    drv.memset_d8_async(buf, 1, n * 4, s)
    drv.memset_d16_async(buf, 2, n, s)
    drv.memset_d32_async(buf, 3, n // 4, stream=s)
    s.synchronize()
    expect = np.full(n * 4, 1, np.uint8)
    expect[: n * 2].view(np.uint16)[:] = 2
    expect[:n].view(np.uint32)[:] = 3
    np.testing.assert_array_equal(drv.from_device(buf, (n * 4,), np.uint8), expect)


@pytest.mark.gpu
@pytest.mark.parametrize("bits,dtype", [(8, np.uint8), (16, np.uint16), (32, np.uint32)])
def test_memset_2d_on_pitched_memory(ctx, bits, dtype):
    width, height = 10, 5
    item = np.dtype(dtype).itemsize
    buf, pitch = drv.mem_alloc_pitch(width * item, height, 4)
    assert pitch >= width * item
    drv.memset_d8(buf, 0, pitch * height)
    getattr(drv, f"memset_d2d{bits}")(buf, pitch, 7, width - 2, height)
    rows = drv.from_device(buf, (height, pitch // item), dtype)
    np.testing.assert_array_equal(rows[:, : width - 2], 7)
    np.testing.assert_array_equal(rows[:, width - 2 :], 0)
    getattr(drv, f"memset_d2d{bits}_async")(buf, pitch, 9, width, height, None)
    ctx.synchronize()
    rows = drv.from_device(buf, (height, pitch // item), dtype)
    np.testing.assert_array_equal(rows[:, :width], 9)


@pytest.mark.gpu
def test_async_copies(ctx):
    a = np.arange(256, dtype=np.float32)
    s = drv.Stream()
    buf = drv.mem_alloc(a.nbytes)
    other = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod_async(buf, a, s)  # pageable: CUDA makes it synchronous, which is allowed
    drv.memcpy_dtod_async(other, buf, a.nbytes, s)
    pinned = drv.pagelocked_empty_like(a)
    drv.memcpy_dtoh_async(pinned, other, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(pinned, a)
    b = np.empty_like(a)
    drv.memcpy_dtoh_async(b, buf)  # default stream
    ctx.synchronize()
    np.testing.assert_array_equal(b, a)


@pytest.mark.gpu
def test_pointer_kinds_in_real_copies(ctx):
    a = np.arange(16, dtype=np.float32)
    buf = drv.to_device(a)
    for src in (Holder(int(buf)), CudaArrayInterface(int(buf)), HasGpudata(buf), int(buf)):
        b = np.empty_like(a)
        drv.memcpy_dtoh(b, src)
        np.testing.assert_array_equal(a, b)
    h = Holder(int(buf))
    view = h.as_buffer(8)  # a device address: only its size is checked here
    assert len(view) == 8


@pytest.mark.gpu
def test_copies_beyond_the_allocation_are_value_errors(ctx):
    buf = drv.mem_alloc(16)
    other = drv.mem_alloc(64)
    with pytest.raises(ValueError, match="only 16"):
        drv.memcpy_htod(buf, np.zeros(5, np.float32))
    with pytest.raises(ValueError, match="only 16"):
        drv.memcpy_dtoh(np.zeros(5, np.float32), buf)
    with pytest.raises(ValueError, match="only 16"):
        drv.memcpy_dtod(other, buf, 32)
    with pytest.raises(ValueError, match="only 16"):
        drv.memcpy_dtod_async(buf, other, 32)
    with pytest.raises(ValueError, match="only 16"):
        drv.memset_d32(buf, 0, 5)
    with pytest.raises(ValueError, match="only 16"):
        drv.memset_d2d8(buf, 8, 0, 8, 3)
    with pytest.raises(ValueError, match="only 16"):
        drv.memcpy_htod_async(buf, np.zeros(17, np.uint8))
    with pytest.raises(ValueError):
        buf.as_buffer(8, offset=12)


@pytest.mark.gpu
def test_use_after_free_and_double_free(ctx):
    buf = drv.mem_alloc(64)
    buf.free()
    with pytest.raises(drv.LogicError, match="freed"):
        int(buf)
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memcpy_htod(buf, np.zeros(4, np.float32))
    with pytest.raises(drv.LogicError, match="freed"):
        drv.memset_d8(buf, 0, 4)
    with pytest.raises(drv.LogicError, match="freed"):
        buf.free()
    assert "freed" in repr(buf)


@pytest.mark.gpu
def test_no_current_context(ctx):
    buf = drv.mem_alloc(64)
    drv.Context.pop()  # returns nothing; the fixture context is pushed back below
    try:
        assert drv.Context.get_current() is None
        with pytest.raises(drv.LogicError):
            drv.mem_alloc(64)
        with pytest.raises(drv.LogicError):
            drv.mem_get_info()
        buf.free()  # freed in its own context, which is pushed for the call
    finally:
        ctx.push()
    with pytest.raises(drv.LogicError):
        buf.free()


@pytest.mark.gpu
def test_free_from_another_thread(ctx):
    bufs = [drv.mem_alloc(1024) for _ in range(4)]
    errors = []

    def worker():
        try:
            bufs[0].free()  # no context is current in this thread
            del bufs[1:]  # destructors, also without a current context
            gc.collect()
        except Exception as exc:  # reported to the main thread
            errors.append(exc)

    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert errors == []
    assert drv.Context.get_current() == ctx


@pytest.mark.gpu
def test_gc_then_retry_on_out_of_memory(ctx):
    free, _ = drv.mem_get_info()
    with pytest.raises(drv.MemoryError):
        drv.mem_alloc(free * 4 + (1 << 40))
    # The context is still usable afterwards.
    drv.mem_alloc(1024).free()


@pytest.mark.gpu
def test_managed_allocation(ctx):
    a = drv.managed_zeros((32,), np.float32, mem_flags=drv.mem_attach_flags.GLOBAL)
    base = a.base
    assert isinstance(base, drv.ManagedAllocation)
    assert base.get_device_pointer() == int(base)
    a[:] = np.arange(32)
    ctx.synchronize()
    np.testing.assert_array_equal(drv.from_device(base, (32,), np.float32), np.arange(32))
    s = drv.Stream()
    base.attach(drv.mem_attach_flags.SINGLE, s)
    s.synchronize()
    base.attach(drv.mem_attach_flags.GLOBAL)
    ctx.synchronize()
    view = base.as_buffer(16, offset=4)
    assert np.frombuffer(view, np.float32).tolist() == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.gpu
def test_memcpy_peer_same_device(ctx):
    a = np.arange(64, dtype=np.uint8)
    src = drv.to_device(a)
    dst = drv.mem_alloc(64)
    drv.memcpy_peer(dst, src, 64)  # None: each pointer's own context
    np.testing.assert_array_equal(drv.from_device_like(dst, a), a)
    drv.memset_d8(dst, 0, 64)
    drv.memcpy_peer(dst, src, 64, dest_context=ctx, src_context=ctx)
    np.testing.assert_array_equal(drv.from_device_like(dst, a), a)
    drv.memset_d8(dst, 0, 64)
    s = drv.Stream()
    drv.memcpy_peer_async(dst, src, 64, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(drv.from_device_like(dst, a), a)
    with pytest.raises(ValueError):
        drv.memcpy_peer(dst, src, 65)


@pytest.mark.gpu
def test_memcpy_peer_between_devices(ctx):
    if drv.Device.count() < 2:
        pytest.skip("needs two devices")
    other = drv.Device(1).retain_primary_context()
    a = np.arange(1024, dtype=np.int32)
    src = drv.to_device(a)  # on device 0
    other.push()
    try:
        dst = drv.mem_alloc(a.nbytes)  # on device 1, current
    finally:
        drv.Context.pop()
    # The current context is device 0's; None must still find dst's own context.
    drv.memcpy_peer(dst, src, a.nbytes)
    back = np.empty_like(a)
    other.push()
    try:
        drv.memcpy_dtoh(back, dst)
    finally:
        drv.Context.pop()
    np.testing.assert_array_equal(back, a)


def _ipc_child(handle, nbytes, queue):
    import pycuda.driver as cuda

    cuda.init()
    context = cuda.Device(0).retain_primary_context()
    context.push()
    try:
        mem = cuda.IPCMemoryHandle(handle)
        out = np.empty(nbytes, np.uint8)
        cuda.memcpy_dtoh(out, mem)
        mem.close()
        queue.put(out.tobytes())
    except Exception as exc:  # sent back to the test
        queue.put(repr(exc))
    finally:
        cuda.Context.pop()


@pytest.mark.gpu
def test_ipc_memory_between_processes(ctx):
    import multiprocessing

    a = np.arange(256, dtype=np.uint8)
    buf = drv.to_device(a)
    handle = drv.mem_get_ipc_handle(buf)
    assert isinstance(handle, bytearray) and len(handle) == 64
    mp = multiprocessing.get_context("spawn")
    queue = mp.Queue()
    child = mp.Process(target=_ipc_child, args=(bytes(handle), a.nbytes, queue))
    child.start()
    result = queue.get(timeout=120)
    child.join(timeout=60)
    assert result == a.tobytes(), result


@pytest.mark.gpu
def test_ipc_open_in_same_process_is_an_error(ctx):
    buf = drv.mem_alloc(256)
    with pytest.raises(drv.Error):
        drv.IPCMemoryHandle(drv.mem_get_ipc_handle(buf))
