"""Tests for pycuda._copy_layout: emulated memcpy plans copy exactly what NumPy assigns."""

import numpy as np
from layout_helpers import byte_offset, random_view

from pycuda._copy_layout import copy_plan


def random_destination(rng, shape, dtype):
    """(base, view) of ``shape``: a random axis order, maybe with gaps between elements."""
    perm = rng.permutation(len(shape))
    steps = [int(rng.choice([1, 1, 2])) for _ in shape]
    base = np.zeros([shape[a] * s for a, s in zip(perm, steps, strict=True)], dtype)
    view = base[tuple(slice(None, None, s) for s in steps) + (Ellipsis,)]
    return base, view.transpose(np.argsort(perm))


def emulate(plan, src_base, src_start, dst_base, dst_start):
    """Run ``plan`` as the driver would, on the bytes of the two bases."""
    src = src_base.reshape(-1).view(np.uint8)
    dst = dst_base.reshape(-1).view(np.uint8)
    z, y, x = np.meshgrid(
        np.arange(plan.depth), np.arange(plan.height), np.arange(plan.width_bytes), indexing="ij"
    )
    src_at = src_start + plan.src_offset + (z * plan.src_rows_per_slice + y) * plan.src_pitch + x
    dst_at = dst_start + plan.dst_offset + (z * plan.dst_rows_per_slice + y) * plan.dst_pitch + x
    dst[dst_at.reshape(-1)] = src[src_at.reshape(-1)]
    return np.unique(dst_at)


def view_bytes(base, view):
    """The byte positions of ``view``'s elements in ``base``."""
    index = np.indices(view.shape).reshape(view.ndim, view.size)
    starts = byte_offset(base, view) + np.asarray(view.strides, dtype=np.int64) @ index
    return np.unique((starts[:, None] + np.arange(view.itemsize)).reshape(-1))


def test_plans_copy_like_numpy_assignment():
    rng = np.random.default_rng(60)
    kinds = {}
    for _ in range(3000):
        dtype = [np.int8, np.float32, np.complex128][int(rng.integers(0, 3))]
        src_base, src = random_view(rng, 4, dtype=dtype)
        dst_base, dst = random_destination(rng, src.shape, dtype)
        plan = copy_plan(src.shape, dst.strides, src.strides, src.itemsize)
        kinds[plan.kind] = kinds.get(plan.kind, 0) + 1
        if plan.kind == "kernel":
            continue
        src_start, dst_start = byte_offset(src_base, src), byte_offset(dst_base, dst)
        written = emulate(plan, src_base, src_start, dst_base, dst_start)
        assert np.array_equal(dst, src), (src.shape, src.strides, dst.strides, plan)
        # Exactly the destination's bytes were written, nothing between them.
        assert np.array_equal(written, view_bytes(dst_base, dst)), plan
    assert all(kinds.get(k, 0) > 10 for k in ("1d", "2d", "3d", "kernel")), kinds


def test_simple_cases():
    a = np.zeros((4, 6), np.float32)
    assert copy_plan(a.shape, a.strides, a.strides, 4).kind == "1d"
    s = a[:, :3]
    plan = copy_plan(s.shape, (12, 4), s.strides, 4)
    assert (plan.kind, plan.width_bytes, plan.height, plan.src_pitch, plan.dst_pitch) == (
        "2d",
        12,
        4,
        24,
        12,
    )
    # Broadcast sources and mixed directions need a kernel.
    assert copy_plan((4, 6), (24, 4), (0, 4), 4).kind == "kernel"
    assert copy_plan((4, 6), (24, 4), (-24, 4), 4).kind == "kernel"
    # Both reversed: a forward 1-D copy from the last elements.
    plan = copy_plan((6,), (-4,), (-4,), 4)
    assert plan.kind == "1d" and plan.src_offset == plan.dst_offset == -20
