"""Plans for copying between strided layouts with the driver's memcpy (1-D, 2-D or 3-D).

``get()``, ``set()`` and ``copy()`` of a non-contiguous GPUArray move the same elements between
two layouts of one shape. When both walk memory as at most three nested runs with non-negative
pitches, one ``cuMemcpy``/``cuMemcpy2D``/``cuMemcpy3D`` does it; otherwise a copy kernel must.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pycuda._kernel_layout import kernel_layout


@dataclass(frozen=True)
class CopyPlan:
    """How to copy: ``kind`` is ``"1d"``, ``"2d"``, ``"3d"`` or ``"kernel"`` (no memcpy fits).

    Rows of ``width_bytes`` bytes; ``height`` rows per slice, ``pitch`` bytes apart; ``depth``
    slices, ``pitch * rows_per_slice`` bytes apart (the driver's ``srcHeight``/``dstHeight``).
    Each side starts at its first element plus its ``offset`` (nonzero when both layouts are
    walked backwards along an axis).
    """

    kind: str
    width_bytes: int = 0
    height: int = 1
    depth: int = 1
    src_pitch: int = 0
    dst_pitch: int = 0
    src_rows_per_slice: int = 1
    dst_rows_per_slice: int = 1
    src_offset: int = 0
    dst_offset: int = 0


def _slice_rows(slice_stride: int, pitch: int, height: int) -> int | None:
    """Rows per slice when a slice stride is a whole number (>= height) of pitches, else None."""
    if pitch <= 0 or slice_stride % pitch:
        return None
    rows = slice_stride // pitch
    return rows if rows >= height else None


def copy_plan(
    shape: Sequence[int], dst_strides: Sequence[int], src_strides: Sequence[int], itemsize: int
) -> CopyPlan:
    """Plan the copy of an array of ``shape`` between two strided layouts (byte strides).

    Axes both sides walk as one run are merged first (see :func:`kernel_layout`). Then the
    innermost axis becomes the row (its bytes if both sides are dense there, else rows of one
    element), and at most two outer axes become the rows and slices of a 2-D or 3-D memcpy.
    Zero strides (broadcasting), negative strides left after merging and slice strides that are
    not whole multiples of the pitch need a kernel.
    """
    layout = kernel_layout(shape, [dst_strides, src_strides], [itemsize, itemsize])
    dst_off, src_off = layout.offsets
    if 0 in layout.shape:
        return CopyPlan("1d", 0, src_offset=src_off, dst_offset=dst_off)
    if layout.contiguous:
        return CopyPlan("1d", layout.shape[0] * itemsize, src_offset=src_off, dst_offset=dst_off)
    dims = list(layout.shape)
    dst, src = list(layout.strides[0]), list(layout.strides[1])
    if min(dst + src) <= 0:
        return CopyPlan("kernel")
    if dst[-1] == src[-1] == itemsize:
        width = dims.pop() * itemsize
        dst.pop()
        src.pop()
    else:
        width = itemsize
    if not dims or len(dims) > 2:
        return CopyPlan("kernel")
    height, dst_pitch, src_pitch = dims[-1], dst[-1], src[-1]
    if dst_pitch < width or src_pitch < width:
        return CopyPlan("kernel")
    if len(dims) == 1:
        return CopyPlan("2d", width, height, 1, src_pitch, dst_pitch, 1, 1, src_off, dst_off)
    src_rows = _slice_rows(src[0], src_pitch, height)
    dst_rows = _slice_rows(dst[0], dst_pitch, height)
    if src_rows is None or dst_rows is None:
        return CopyPlan("kernel")
    return CopyPlan(
        "3d", width, height, dims[0], src_pitch, dst_pitch, src_rows, dst_rows, src_off, dst_off
    )
