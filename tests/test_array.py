"""CUDA arrays: descriptors, Array (1D, 2D, 3D, layered, surface, cubemap), the linear array
copies, and the NumPy/GPUArray helpers (matrix_to_array, np_to_array, gpuarray_to_array,
make_multichannel_2d_array, dtype_to_array_format)."""

from __future__ import annotations

import numpy as np
import pytest

import pycuda.driver as drv

gpu = pytest.mark.gpu


# --- without a GPU ----------------------------------------------------------------------------


def test_descriptors_hold_their_fields():
    d = drv.ArrayDescriptor()
    assert (d.width, d.height, d.format, d.num_channels) == (0, 0, drv.array_format.FLOAT, 1)
    d.width, d.height, d.format, d.num_channels = 64, 32, drv.array_format.SIGNED_INT16, 2
    assert (d.width, d.height, d.format, d.num_channels) == (64, 32, 9, 2)
    d3 = drv.ArrayDescriptor3D()
    d3.width, d3.height, d3.depth = 4, 5, 6
    d3.flags = drv.array3d_flags.LAYERED | drv.array3d_flags.SURFACE_LDST
    assert (d3.width, d3.height, d3.depth, d3.flags) == (4, 5, 6, 3)


@pytest.mark.parametrize(
    ("dtype", "fmt"),
    [
        (np.uint8, "UNSIGNED_INT8"),
        (np.uint16, "UNSIGNED_INT16"),
        (np.uint32, "UNSIGNED_INT32"),
        (np.int8, "SIGNED_INT8"),
        (np.int16, "SIGNED_INT16"),
        (np.int32, "SIGNED_INT32"),
        (np.float16, "HALF"),
        (np.float32, "FLOAT"),
    ],
)
def test_dtype_to_array_format(dtype, fmt):
    assert drv.dtype_to_array_format(dtype) == getattr(drv.array_format, fmt)
    assert drv.dtype_to_array_format(np.dtype(dtype)) == getattr(drv.array_format, fmt)


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex64, np.bool_])
def test_dtype_without_array_format_is_a_type_error(dtype):
    with pytest.raises(TypeError, match="cannot convert dtype"):
        drv.dtype_to_array_format(dtype)


def test_helpers_reject_bad_shapes_before_any_driver_call():
    with pytest.raises(ValueError, match="order"):
        drv.matrix_to_array(np.zeros((2, 2), np.float32), "X")
    with pytest.raises(ValueError, match="2D"):
        drv.matrix_to_array(np.zeros(4, np.float32), "C")
    with pytest.raises(ValueError, match="2D or 3D"):
        drv.np_to_array(np.zeros((2, 2, 2, 2), np.float32), "C")
    with pytest.raises(ValueError, match="1, 2 or 4 channels"):
        drv.make_multichannel_2d_array(np.zeros((4, 4, 3), np.float32), "C")
    with pytest.raises(ValueError, match="3D"):
        drv.make_multichannel_2d_array(np.zeros((4, 4), np.float32), "C")
    with pytest.raises(TypeError, match="cannot convert dtype"):
        drv.matrix_to_array(np.zeros((2, 2), np.float64), "C")


def test_original_names_of_the_host_array_copies():
    assert callable(drv.memcpy_htoa) and callable(drv.memcpy_atoh)
    assert callable(drv.py_memcpy_htoa) and callable(drv.py_memcpy_atoh)
    assert callable(drv.memcpy_dtoa) and callable(drv.memcpy_atod) and callable(drv.memcpy_atoa)


# --- on the GPU -------------------------------------------------------------------------------


def _descr(width, height=0, fmt=drv.array_format.FLOAT, channels=1):
    d = drv.ArrayDescriptor()
    d.width, d.height, d.format, d.num_channels = width, height, fmt, channels
    return d


def _descr3d(width, height, depth, flags=0, fmt=drv.array_format.FLOAT, channels=1):
    d = drv.ArrayDescriptor3D()
    d.width, d.height, d.depth, d.flags = width, height, depth, flags
    d.format, d.num_channels = fmt, channels
    return d


def _array_to_host(ary, shape, dtype) -> np.ndarray:
    """All of a 2D or 3D array back on the host through Memcpy3D."""
    out = np.zeros(shape, dtype)
    depth, height = (shape[0], shape[1]) if len(shape) == 3 else (1, shape[0])
    copy = drv.Memcpy3D()
    copy.set_src_array(ary)
    copy.set_dst_host(out)
    copy.width_in_bytes = copy.dst_pitch = out.strides[-2]
    copy.dst_height = copy.height = height
    copy.depth = depth
    copy()
    return out


@gpu
def test_array_kinds_and_descriptors(ctx):
    one = drv.Array(_descr(100))
    assert one.get_descriptor().width == 100 and one.get_descriptor().height == 0
    two = drv.Array(_descr(16, 8, drv.array_format.UNSIGNED_INT8, 4))
    d = two.get_descriptor()
    assert (d.width, d.height, d.format, d.num_channels) == (16, 8, 1, 4)
    three = drv.Array(_descr3d(8, 4, 2))
    d3 = three.get_descriptor_3d()
    assert (d3.width, d3.height, d3.depth) == (8, 4, 2)
    layered = drv.Array(_descr3d(8, 4, 5, drv.array3d_flags.LAYERED))
    assert layered.get_descriptor_3d().flags & drv.array3d_flags.LAYERED
    surface = drv.Array(_descr3d(8, 4, 0, drv.array3d_flags.SURFACE_LDST))
    assert surface.get_descriptor_3d().flags & drv.array3d_flags.SURFACE_LDST
    cube = drv.Array(_descr3d(8, 8, 6, drv.array3d_flags.CUBEMAP))
    assert cube.get_descriptor_3d().flags & drv.array3d_flags.CUBEMAP
    assert one.handle != 0
    one.free()
    with pytest.raises(drv.LogicError, match="freed"):
        one.free()
    with pytest.raises(drv.LogicError, match="freed"):
        one.get_descriptor()


@gpu
def test_bad_arrays_are_value_errors(ctx):
    with pytest.raises(ValueError, match="1, 2 or 4"):
        drv.Array(_descr(8, 8, drv.array_format.FLOAT, 3))
    with pytest.raises(ValueError, match="array_format"):
        drv.Array(_descr(8, 8, 0x77, 1))
    with pytest.raises(ValueError, match="width"):
        drv.Array(_descr(0))
    with pytest.raises(ValueError, match="cubemap"):
        drv.Array(_descr3d(8, 4, 6, drv.array3d_flags.CUBEMAP))


@gpu
def test_linear_array_copies(ctx):
    a = np.arange(64, dtype=np.float32)
    ary = drv.Array(_descr(64))
    drv.memcpy_htoa(ary, 0, a)
    back = np.zeros_like(a)
    drv.memcpy_atoh(back, ary, 0)
    np.testing.assert_array_equal(back, a)
    part = np.zeros(16, np.float32)
    drv.py_memcpy_atoh(part, ary, 8 * 4)
    np.testing.assert_array_equal(part, a[8:24])
    drv.py_memcpy_htoa(ary, 4, np.full(2, -1, np.float32))
    drv.memcpy_atoh(back, ary, 0)
    assert list(back[:4]) == [0, -1, -1, 3]

    dev = drv.mem_alloc(a.nbytes)
    drv.memcpy_htod(dev, a * 2)
    drv.memcpy_dtoa(ary, 0, dev, a.nbytes)
    other = drv.Array(_descr(64))
    drv.memcpy_atoa(other, 0, ary, 0, a.nbytes)
    out = drv.mem_alloc(a.nbytes)
    drv.memcpy_atod(out, other, 0, a.nbytes)
    np.testing.assert_array_equal(drv.from_device(out, a.shape, a.dtype), a * 2)
    with pytest.raises(ValueError):
        drv.memcpy_dtoa(ary, 0, dev, a.nbytes + 4)  # more than the allocation holds


@gpu
@pytest.mark.parametrize("order", ["C", "F"])
def test_matrix_to_array_round_trip(ctx, order):
    a = np.random.rand(5, 7).astype(np.float32)  # C: (rows, cols); F: (width, height)
    ary = drv.matrix_to_array(a, order)
    d = ary.get_descriptor()
    if order == "C":
        assert (d.width, d.height) == (7, 5)
        np.testing.assert_array_equal(_array_to_host(ary, (5, 7), np.float32), a)
    else:
        assert (d.width, d.height) == (5, 7)
        np.testing.assert_array_equal(_array_to_host(ary, (7, 5), np.float32), a.T)


@gpu
def test_matrix_to_array_double_hack(ctx):
    a = np.random.randn(3, 4)
    ary = drv.matrix_to_array(a, "C", allow_double_hack=True)
    d = ary.get_descriptor()
    assert (d.format, d.num_channels, d.width) == (drv.array_format.SIGNED_INT32, 2, 4)
    np.testing.assert_array_equal(_array_to_host(ary, (3, 4), np.float64), a)


@gpu
@pytest.mark.parametrize(
    ("dtype", "fmt", "channels"),
    [
        (np.float32, drv.array_format.FLOAT, 1),
        (np.float64, drv.array_format.SIGNED_INT32, 2),
        (np.complex64, drv.array_format.SIGNED_INT32, 2),
        (np.complex128, drv.array_format.SIGNED_INT32, 4),
        (np.uint16, drv.array_format.UNSIGNED_INT16, 1),
    ],
)
def test_np_to_array_2d_and_3d(ctx, dtype, fmt, channels):
    a2 = (np.random.rand(4, 6) * 100).astype(dtype)
    a3 = (np.random.rand(3, 4, 6) * 100).astype(dtype)
    ary2 = drv.np_to_array(a2, "C")
    d2 = ary2.get_descriptor()
    assert (d2.width, d2.height, d2.format, d2.num_channels) == (6, 4, fmt, channels)
    np.testing.assert_array_equal(_array_to_host(ary2, a2.shape, dtype), a2)
    ary3 = drv.np_to_array(a3, "C")
    d3 = ary3.get_descriptor_3d()
    assert (d3.width, d3.height, d3.depth) == (6, 4, 3)
    np.testing.assert_array_equal(_array_to_host(ary3, a3.shape, dtype), a3)
    surf = drv.np_to_array(a3, "C", allowSurfaceBind=True)
    assert surf.get_descriptor_3d().flags & drv.array3d_flags.SURFACE_LDST
    np.testing.assert_array_equal(_array_to_host(surf, a3.shape, dtype), a3)
    f3 = drv.np_to_array(np.asfortranarray(a3.transpose(2, 1, 0)), "F")  # (w, h, d) order F
    np.testing.assert_array_equal(_array_to_host(f3, a3.shape, dtype), a3)


@gpu
def test_gpuarray_to_array(ctx):
    a = np.random.rand(3, 4, 5).astype(np.float32)

    class Stand:  # GPUArray's attributes, from mem_alloc
        def __init__(self, host):
            self.shape, self.dtype, self.strides = host.shape, host.dtype, host.strides
            self.gpudata = drv.to_device(host)

    ary = drv.gpuarray_to_array(Stand(a), "C")
    np.testing.assert_array_equal(_array_to_host(ary, a.shape, a.dtype), a)
    flat = drv.gpuarray_to_array(Stand(a[0]), "C", allowSurfaceBind=True)
    np.testing.assert_array_equal(_array_to_host(flat, a[0].shape, a.dtype), a[0])
    with pytest.raises(ValueError, match="contiguous"):
        drv.gpuarray_to_array(Stand(a), "F")


@gpu
@pytest.mark.parametrize("channels", [1, 2, 4])
def test_make_multichannel_2d_array(ctx, channels):
    a = np.random.rand(4, 6, channels).astype(np.float32)  # (h, w, channels)
    ary = drv.make_multichannel_2d_array(a, "C")
    d = ary.get_descriptor()
    assert (d.width, d.height, d.num_channels) == (6, 4, channels)
    back = _array_to_host(ary, (4, 6 * channels), np.float32)
    np.testing.assert_array_equal(back, a.reshape(4, 6 * channels))
    f = drv.make_multichannel_2d_array(np.asfortranarray(a.transpose(2, 1, 0)), "F")
    np.testing.assert_array_equal(_array_to_host(f, (4, 6 * channels), np.float32), back)
