"""Host memory of pycuda.driver: page-locked, aligned, managed and registered arrays (§1.2.11)."""

from __future__ import annotations

import numpy as np
import pytest

import pycuda.driver as drv

# --- without a GPU: aligned memory needs no CUDA, and argument checks come first -----------


@pytest.mark.parametrize("alignment", [8, 64, 4096, 1 << 16])
def test_aligned_empty_alignment_and_base(alignment):
    a = drv.aligned_empty((3, 5), np.float64, alignment=alignment)
    assert a.ctypes.data % alignment == 0
    assert isinstance(a.base, drv.AlignedHostAllocation)
    assert a.shape == (3, 5) and a.dtype == np.float64 and a.flags.c_contiguous
    a[:] = 1.5  # writable
    assert a.sum() == 15 * 1.5


def test_aligned_zeros_and_like():
    f = drv.aligned_zeros((4, 3), np.int16, order="F")
    assert f.flags.f_contiguous and not f.flags.c_contiguous
    assert not f.any()
    like = drv.aligned_empty_like(f)
    assert like.shape == f.shape and like.dtype == f.dtype and like.flags.f_contiguous
    zeros = drv.aligned_zeros_like(np.ones((2, 2), np.complex64), alignment=128)
    assert zeros.dtype == np.complex64 and not zeros.any() and zeros.ctypes.data % 128 == 0


def test_aligned_scalar_shape_and_empty():
    assert drv.aligned_empty(7, np.uint8).shape == (7,)
    empty = drv.aligned_empty((0, 4), np.float32)
    assert empty.size == 0 and isinstance(empty.base, drv.AlignedHostAllocation)


def test_aligned_free_then_use_is_an_error():
    a = drv.aligned_empty(16, np.uint8)
    base = a.base
    base.free()
    with pytest.raises(BufferError, match="freed"):
        memoryview(base)
    with pytest.raises(drv.LogicError, match="freed"):
        base.free()


@pytest.mark.parametrize("alignment", [0, 3, 100, -8])
def test_aligned_bad_alignment(alignment):
    with pytest.raises(ValueError, match="power of two"):
        drv.aligned_empty(4, np.float32, alignment=alignment)


@pytest.mark.parametrize(
    "make", [drv.pagelocked_empty, drv.managed_empty, drv.aligned_empty, drv.pagelocked_zeros]
)
def test_bad_order_and_shape_before_any_driver_call(make):
    with pytest.raises(ValueError, match="order"):
        make((2, 2), np.float32, order="K")
    with pytest.raises(ValueError, match="negative"):
        make((2, -1), np.float32)
    with pytest.raises(TypeError):
        make((2, 2), "not a dtype")


def test_register_host_memory_argument_checks():
    with pytest.raises(TypeError, match="numpy array"):
        drv.register_host_memory([1, 2, 3])
    with pytest.raises(ValueError, match="contiguous"):
        drv.register_host_memory(np.zeros((4, 4))[:, ::2])


def test_class_names():
    assert drv.HostAllocation is drv.PagelockedHostAllocation
    assert issubclass(drv.PagelockedHostAllocation, drv.HostPointer)
    assert issubclass(drv.RegisteredHostMemory, drv.HostPointer)


# --- on a GPU ----------------------------------------------------------------------------


@pytest.mark.gpu
def test_pagelocked_empty(ctx):
    a = drv.pagelocked_empty((10, 3), np.float32)
    assert isinstance(a.base, drv.PagelockedHostAllocation)
    assert a.shape == (10, 3) and a.flags.c_contiguous
    a[:] = np.arange(30).reshape(10, 3)
    buf = drv.to_device(a)
    np.testing.assert_array_equal(drv.from_device_like(buf, a), a)
    assert isinstance(a.base.get_flags(), int)


@pytest.mark.gpu
def test_pagelocked_zeros_like_orders(ctx):
    f = np.asfortranarray(np.ones((3, 4), np.int64))
    z = drv.pagelocked_zeros_like(f)
    assert z.flags.f_contiguous and z.dtype == np.int64 and not z.any()
    e = drv.pagelocked_empty_like(np.ones(5, np.uint8))
    assert e.shape == (5,) and isinstance(e.base, drv.HostAllocation)
    assert not drv.pagelocked_zeros((2, 2), np.float64, order="F").any()


@pytest.mark.gpu
def test_pagelocked_devicemap(ctx):
    flags = drv.host_alloc_flags.DEVICEMAP
    a = drv.pagelocked_zeros((64,), np.uint32, mem_flags=flags)
    assert a.base.get_flags() & flags
    a[:] = np.arange(64)
    ptr = a.base.get_device_pointer()
    dev = drv.mem_alloc(a.nbytes)
    drv.memcpy_dtod(dev, ptr, a.nbytes)
    np.testing.assert_array_equal(drv.from_device_like(dev, a), np.arange(64))


@pytest.mark.gpu
def test_pagelocked_free_and_double_free(ctx):
    a = drv.pagelocked_empty(8, np.uint8)
    base = a.base
    del a
    base.free()
    with pytest.raises(drv.LogicError, match="released"):
        base.free()
    with pytest.raises(drv.LogicError, match="released"):
        base.get_flags()
    with pytest.raises(BufferError):
        memoryview(base)


@pytest.mark.gpu
def test_pagelocked_async_copy(ctx):
    src = drv.pagelocked_empty((1 << 16,), np.float32)
    src[:] = np.random.rand(src.size)
    dst = drv.pagelocked_empty_like(src)
    s = drv.Stream()
    buf = drv.mem_alloc(src.nbytes)
    drv.memcpy_htod_async(buf, src, s)
    drv.memcpy_dtoh_async(dst, buf, s)
    s.synchronize()
    np.testing.assert_array_equal(src, dst)


@pytest.mark.gpu
def test_no_current_context(ctx):
    drv.Context.pop()  # returns nothing; the fixture context is pushed back below
    try:
        with pytest.raises(drv.LogicError):
            drv.pagelocked_empty(4, np.float32)
        with pytest.raises(drv.LogicError):
            drv.managed_empty(4, np.float32)
        drv.aligned_empty(4, np.float32)  # needs no context
    finally:
        ctx.push()


@pytest.mark.gpu
def test_register_host_memory(ctx):
    ary = np.arange(4096, dtype=np.float32)
    registered = drv.register_host_memory(ary)
    assert isinstance(registered.base, drv.RegisteredHostMemory)
    assert registered.base.base is ary
    assert np.shares_memory(registered, ary)
    np.testing.assert_array_equal(registered, ary)
    buf = drv.mem_alloc(ary.nbytes)
    s = drv.Stream()
    drv.memcpy_htod_async(buf, registered, s)
    s.synchronize()
    out = np.zeros_like(ary)
    drv.memcpy_dtoh(out, buf)
    np.testing.assert_array_equal(out, ary)
    registered.base.unregister()
    with pytest.raises(drv.LogicError, match="released"):
        registered.base.unregister()


@pytest.mark.gpu
def test_register_host_memory_fortran_and_mapped(ctx):
    ary = np.asfortranarray(np.ones((64, 64), np.float64))
    registered = drv.register_host_memory(ary, drv.mem_host_register_flags.DEVICEMAP)
    assert registered.flags.f_contiguous and registered.shape == ary.shape
    ptr = registered.base.get_device_pointer()
    drv.memset_d32(ptr, 0, ary.nbytes // 4)
    ctx.synchronize()
    assert not ary.any()


@pytest.mark.gpu
def test_managed_empty_and_like(ctx):
    a = drv.managed_empty((8, 8), np.float32, order="F")
    assert isinstance(a.base, drv.ManagedAllocation)
    assert a.flags.f_contiguous
    z = drv.managed_zeros_like(a, mem_flags=drv.mem_attach_flags.GLOBAL)
    assert not z.any()
    e = drv.managed_empty_like(np.ones(3))
    assert e.shape == (3,)
    z[:] = 2
    ctx.synchronize()
    np.testing.assert_array_equal(drv.from_device(z.base, (8, 8), np.float32, order="F"), 2)
