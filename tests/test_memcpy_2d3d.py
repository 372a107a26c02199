"""Memcpy2D, Memcpy3D and Memcpy3DPeer: fields, setters, bounds checks, and 2D/3D copies between
host, device and arrays with offsets and pitches."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import pycuda.driver as drv

gpu = pytest.mark.gpu


# --- without a GPU ----------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["Memcpy2D", "Memcpy3D", "Memcpy3DPeer"])
def test_fields_read_back(cls):
    copy = getattr(drv, cls)()
    names = ["src_x_in_bytes", "src_y", "src_pitch", "dst_x_in_bytes", "dst_y", "dst_pitch",
             "width_in_bytes", "height"]  # fmt: skip
    if cls != "Memcpy2D":
        names += ["src_z", "src_lod", "src_height", "dst_z", "dst_lod", "dst_height", "depth"]
    for k, name in enumerate(names):
        setattr(copy, name, 10 + k)
    for k, name in enumerate(names):
        assert getattr(copy, name) == 10 + k
    assert copy.src_memory_type == 0 and copy.dst_memory_type == 0


def test_host_buffers_are_held_by_the_descriptor():
    copy = drv.Memcpy2D()
    src = np.arange(16, dtype=np.float32)
    before = sys.getrefcount(src)
    copy.set_src_host(src)
    assert sys.getrefcount(src) > before  # a buffer view holds it
    ba = bytearray(64)
    copy.set_dst_host(ba)
    with pytest.raises(BufferError):
        ba.extend(b"x")  # exported: cannot be resized under the copy
    copy.set_dst_host(np.zeros(4))
    ba.extend(b"x")  # released when replaced
    del copy
    gc.collect()
    assert sys.getrefcount(src) == before


def test_copies_past_a_host_buffer_are_refused():
    src, dst = np.zeros((4, 8), np.float32), np.zeros((4, 8), np.float32)
    copy = drv.Memcpy2D()
    copy.set_src_host(src)
    copy.set_dst_host(dst)
    copy.width_in_bytes = copy.src_pitch = copy.dst_pitch = 32
    copy.height = 5  # one row too many
    with pytest.raises(ValueError, match="source"):
        copy()
    with pytest.raises(ValueError, match="source"):
        copy(aligned=True)  # the original's keyword
    copy.height, copy.dst_y = 4, 1
    with pytest.raises(ValueError, match="destination"):
        copy()
    c3 = drv.Memcpy3D()
    c3.set_src_host(src)
    c3.set_dst_host(dst)
    c3.width_in_bytes = c3.src_pitch = c3.dst_pitch = 32
    c3.height = c3.src_height = c3.dst_height = 2
    c3.depth = 3  # 3 slices of 2 rows: 6 rows > 4
    with pytest.raises(ValueError, match="source"):
        c3()


def test_dst_host_must_be_writable():
    copy = drv.Memcpy2D()
    with pytest.raises(ValueError, match="read-only"):
        copy.set_dst_host(b"immutable")


def test_unset_side_is_an_error():
    copy = drv.Memcpy2D()
    copy.set_dst_host(np.zeros(4, np.float32))
    copy.width_in_bytes, copy.height = 16, 1
    # LogicError, as the original's (the driver refused the copy with INVALID_VALUE there).
    with pytest.raises(drv.LogicError, match="no source"):
        copy()


# --- on the GPU -------------------------------------------------------------------------------


def _copy2d(src, dst, width_in_bytes, height, **fields):
    copy = drv.Memcpy2D()
    for side, (kind, obj) in (("src", src), ("dst", dst)):
        getattr(copy, f"set_{side}_{kind}")(obj)
    copy.width_in_bytes, copy.height = width_in_bytes, height
    for name, value in fields.items():
        setattr(copy, name, value)
    return copy


@gpu
def test_2d_host_device_host_with_offsets_and_pitch(ctx):
    h, w = 6, 10
    a = np.arange(h * w, dtype=np.float32).reshape(h, w)
    dev, pitch = drv.mem_alloc_pitch(w * 4, h, 4)
    assert pitch >= w * 4
    drv.memset_d32(dev, 0, pitch * h // 4)
    # a[1:4, 2:7] -> device rows 2..4, columns 1..5
    _copy2d(("host", a), ("device", dev), 5 * 4, 3,
            src_x_in_bytes=2 * 4, src_y=1, src_pitch=w * 4,
            dst_x_in_bytes=1 * 4, dst_y=2, dst_pitch=pitch)(True)  # fmt: skip
    back = np.full((h, w), -1, np.float32)
    _copy2d(("device", dev), ("host", back), w * 4, h, src_pitch=pitch, dst_pitch=w * 4)()
    expected = np.zeros((h, w), np.float32)
    expected[2:5, 1:6] = a[1:4, 2:7]
    np.testing.assert_array_equal(back, expected)


@gpu
def test_2d_host_array_host_and_async(ctx):
    h, w = 8, 16
    a = np.random.rand(h, w).astype(np.float32)
    d = drv.ArrayDescriptor()
    d.width, d.height, d.format, d.num_channels = w, h, drv.array_format.FLOAT, 1
    ary = drv.Array(d)
    c = _copy2d(("host", a), ("array", ary), w * 4, h, src_pitch=w * 4)
    assert c.src_memory_type == drv.memory_type.HOST
    assert c.dst_memory_type == drv.memory_type.ARRAY
    c()
    back = drv.pagelocked_zeros((h, w), np.float32)
    stream = drv.Stream()
    # rows 2.. of the array, from column 3, into the top-left of back
    _copy2d(("array", ary), ("host", back), (w - 3) * 4, h - 2,
            src_x_in_bytes=3 * 4, src_y=2, dst_pitch=w * 4)(stream)  # fmt: skip
    stream.synchronize()
    np.testing.assert_array_equal(back[: h - 2, : w - 3], a[2:, 3:])
    assert not back[h - 2 :].any()


@gpu
def test_2d_device_to_device_unified(ctx):
    a = np.random.rand(4, 8).astype(np.float32)
    src = drv.to_device(a)
    dst = drv.mem_alloc(a.nbytes)
    _copy2d(("unified", src), ("device", dst), 32, 4, src_pitch=32, dst_pitch=32)()
    np.testing.assert_array_equal(drv.from_device(dst, a.shape, a.dtype), a)


def _copy3d(cls, src, dst, width_in_bytes, height, depth, **fields):
    copy = cls()
    for side, (kind, obj) in (("src", src), ("dst", dst)):
        getattr(copy, f"set_{side}_{kind}")(obj)
    copy.width_in_bytes, copy.height, copy.depth = width_in_bytes, height, depth
    for name, value in fields.items():
        setattr(copy, name, value)
    return copy


@gpu
@pytest.mark.parametrize("cls", [drv.Memcpy3D, drv.Memcpy3DPeer])
def test_3d_copies_with_offsets(ctx, cls):
    d, h, w = 4, 5, 6
    a = np.arange(d * h * w, dtype=np.float32).reshape(d, h, w)
    ary_descr = drv.ArrayDescriptor3D()
    ary_descr.width, ary_descr.height, ary_descr.depth = w, h, d
    ary_descr.format, ary_descr.num_channels = drv.array_format.FLOAT, 1
    ary = drv.Array(ary_descr)
    _copy3d(cls, ("host", a), ("array", ary), w * 4, h, d, src_pitch=w * 4, src_height=h)()
    # the block [1:3, 2:5, 1:4] of the array -> device (linear, pitch w*4, h rows a slice)
    dev = drv.mem_alloc(a.nbytes)
    drv.memset_d32(dev, 0, a.size)
    c = _copy3d(cls, ("array", ary), ("device", dev), 3 * 4, 3, 2,
                src_x_in_bytes=4, src_y=2, src_z=1,
                dst_pitch=w * 4, dst_height=h)  # fmt: skip
    if cls is drv.Memcpy3DPeer:
        c.set_src_context(ctx)
        c.set_dst_context(ctx)
    c()
    back = np.zeros_like(a)
    stream = drv.Stream()
    _copy3d(cls, ("device", dev), ("host", back), w * 4, h, d,
            src_pitch=w * 4, src_height=h, dst_pitch=w * 4, dst_height=h)(stream)  # fmt: skip
    stream.synchronize()
    expected = np.zeros_like(a)
    expected[0:2, 0:3, 0:3] = a[1:3, 2:5, 1:4]
    np.testing.assert_array_equal(back, expected)


@gpu
def test_device_side_bounds_are_checked(ctx):
    dev = drv.mem_alloc(64)
    copy = _copy2d(("host", np.zeros(128, np.uint8)), ("device", dev), 16, 5,
                   src_pitch=16, dst_pitch=16)  # fmt: skip
    with pytest.raises(ValueError, match="destination"):
        copy()
