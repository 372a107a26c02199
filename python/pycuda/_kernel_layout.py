"""The loop layout of an element-wise kernel: operands' axes merged into as few as possible.

An element-wise kernel over strided operands computes, for each output element, one byte offset
per operand. The fewer dimensions, the cheaper that is; when every operand is plain contiguous
the kernel is a flat 1-D loop with wide loads. Because an element-wise operation may visit the
elements in any order, axes may be reordered and reversed freely, as long as every operand sees
the same reordering.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pycuda._launch_config import THREADS_PER_BLOCK
from pycuda._shape import Shape


@dataclass(frozen=True)
class KernelLayout:
    """The loop of an element-wise kernel over ``shape`` (C order, last axis fastest).

    Operand ``k`` is read at byte ``offsets[k] + sum(i[d] * strides[k][d])``. ``contiguous`` is
    the fast path: one dimension, and every operand's stride there is its itemsize.
    """

    shape: Shape
    strides: tuple[tuple[int, ...], ...]
    offsets: tuple[int, ...]
    contiguous: bool

    @property
    def ndim(self) -> int:
        """Number of loop dimensions after merging."""
        return len(self.shape)


def kernel_layout(
    shape: Sequence[int],
    operand_strides: Sequence[Sequence[int]],
    itemsizes: Sequence[int],
) -> KernelLayout:
    """Merge the axes of an element-wise loop over ``shape`` shared by all operands.

    ``operand_strides[k]`` are operand ``k``'s byte strides over the (broadcast) ``shape``, 0 on
    broadcast axes; ``itemsizes[k]`` its element size. Operand 0 should be the output: axes are
    ordered by its strides, largest first. Axes of length 1 are dropped, axes on which every
    stride is negative or zero are reversed (moving each operand's start), and neighbouring axes
    that every operand walks as one run are merged.
    """
    if len(operand_strides) != len(itemsizes):
        raise ValueError("need one itemsize per operand")
    count = len(itemsizes)
    offsets = [0] * count
    if 0 in shape:
        return KernelLayout((0,), tuple((s,) for s in itemsizes), tuple(offsets), True)
    axes = []
    for axis, n in enumerate(shape):
        if n == 1:
            continue
        column = [strides[axis] for strides in operand_strides]
        if all(s <= 0 for s in column) and any(s < 0 for s in column):
            for k, s in enumerate(column):
                offsets[k] += (n - 1) * s
            column = [-s for s in column]
        axes.append((n, column))
    # Stable sort: the output's largest stride first; ties keep the array's own axis order.
    axes.sort(key=lambda ax: [-abs(s) for s in ax[1]])
    merged: list[tuple[int, list[int]]] = []
    for n, column in axes:
        if merged:
            outer_n, outer = merged[-1]
            if all(o == s * n for o, s in zip(outer, column, strict=True)):
                merged[-1] = (outer_n * n, column)
                continue
        merged.append((n, column))
    if not merged:  # a single element
        merged.append((1, list(itemsizes)))
    out_shape = tuple(n for n, _ in merged)
    strides = tuple(tuple(column[k] for _, column in merged) for k in range(count))
    contiguous = len(merged) == 1 and all(strides[k][0] == itemsizes[k] for k in range(count))
    return KernelLayout(out_shape, strides, tuple(offsets), contiguous)


def vector_width(itemsize: int, addresses: Sequence[int], max_bytes: int = 16) -> int:
    """Elements per wide load/store on the flat path: 1, 2, 4, ... with all addresses aligned.

    The widest ``w`` such that ``w * itemsize`` is a power of two of at most ``max_bytes`` bytes
    (16: ``float4``, ``double2``) and every operand address is a multiple of it.
    """
    if itemsize <= 0 or max_bytes <= 0:
        raise ValueError("itemsize and max_bytes must be positive")
    if itemsize & (itemsize - 1) or any(address % itemsize for address in addresses):
        return 1  # not a power of two (float3), or a misaligned operand: scalar accesses
    width = 1
    while 2 * width * itemsize <= max_bytes and all(
        address % (2 * width * itemsize) == 0 for address in addresses
    ):
        width *= 2
    return width


# Where an operand's elements lie along the innermost merged axis of a rows kernel.
CONTIGUOUS, BROADCAST, STRIDED = "c", "b", "s"
# Rows of fewer than 32 vectors (less than a warp) whose padding to a power of two would leave
# more than this part of the threads idle keep the element-wise strided kernel.
_MAX_IDLE = 0.25
_MAX_GRID_X, _MAX_GRID_Y = 2**31 - 1, 65535


@dataclass(frozen=True)
class RowsLayout:
    """What a rows kernel (``_array_kernels.rows_kernel``) is compiled for.

    The merged loop is seen as rows (every axis but the last, ``ndim - 1`` of them) of
    ``shape[-1]`` elements. ``inner`` holds one of ``CONTIGUOUS`` (stride = itemsize),
    ``BROADCAST`` (stride 0) or ``STRIDED`` per array operand, output first; each thread
    handles ``width`` neighbouring elements of a row, with one ``width``-element access per
    contiguous operand and one read per broadcast one.
    """

    ndim: int
    width: int
    inner: str


def inner_class(stride: int, itemsize: int) -> str:
    """``CONTIGUOUS``, ``BROADCAST`` or ``STRIDED``: how an operand walks the innermost axis."""
    if stride == itemsize:
        return CONTIGUOUS
    return BROADCAST if stride == 0 else STRIDED


def rows_layout(
    layout: KernelLayout, itemsizes: Sequence[int], addresses: Sequence[int]
) -> RowsLayout:
    """The rows kernel for ``layout``, whose operands start at ``addresses`` (after the
    layout's offsets; output first, array operands only).

    The width is the widest access every contiguous operand allows at the start of every row
    (its address and its strides along the outer axes aligned, at most 16 bytes), and no more
    than a row holds; 1 when no operand is contiguous along the rows, and 1 when one is
    strided: a warp's access to element ``e`` of each thread's ``width`` would then touch as
    many sectors as one of all its elements (``x[::2]``: 32 sectors for 4 bytes of each), so
    the loads of ``width`` elements would cost ``width`` times the cache lookups of one access
    per thread to neighbouring elements.
    """
    if not len(itemsizes) == len(addresses) == len(layout.strides):
        raise ValueError("need one itemsize and one address per operand")
    inner = "".join(
        inner_class(strides[-1], size)
        for strides, size in zip(layout.strides, itemsizes, strict=True)
    )
    width = 16
    for cls, strides, size, address in zip(
        inner, layout.strides, itemsizes, addresses, strict=True
    ):
        if cls == CONTIGUOUS:
            width = min(width, vector_width(size, [address, *strides[:-1]]))
    if CONTIGUOUS not in inner or STRIDED in inner:
        width = 1
    while width > layout.shape[-1]:
        width //= 2
    return RowsLayout(layout.ndim, width, inner)


def rows_launch(
    rows: int, length: int, width: int, max_blocks: int | None = None
) -> tuple[tuple[int, int, int], tuple[int, int, int]] | None:
    """``(grid, block)`` of a rows kernel over ``rows`` rows of ``length`` elements, or None
    for short rows that would leave too many threads idle (the element-wise strided kernel
    serves them).

    A block has THREADS_PER_BLOCK threads. Thread ``(x, y)`` takes vector ``x`` (elements
    ``x*width ...``) of row ``y`` (a warp: 32 neighbouring vectors of one row); ``blockDim.x``
    is the power of two of at most ``THREADS_PER_BLOCK`` that pads the row's vectors least (the
    widest among equals), the rest of the block takes further rows. Every thread makes one
    vector of a row, and where that would take more than ``max_blocks`` blocks the grid has
    fewer rows of blocks and the kernel's loop strides over the rest: a block per 4 KiB of
    output spent a third of a broadcast's time starting blocks (71% of the copy on an H200,
    87% with about 60 blocks a multiprocessor).
    """
    if rows < 1 or length < 1 or width < 1:
        raise ValueError(f"need positive rows, length and width, got {rows}, {length}, {width}")
    vectors = -(-length // width)
    if vectors >= 32:
        candidates = [32, 64, 128, THREADS_PER_BLOCK]
    else:
        candidates = [1 << (vectors - 1).bit_length()]
    bx = min(candidates, key=lambda b: (-(-vectors // b) * b, -b))
    padded = -(-vectors // bx) * bx
    if vectors < 32 and padded - vectors > _MAX_IDLE * padded:
        return None
    by = THREADS_PER_BLOCK // bx
    gx = min(-(-vectors // bx), _MAX_GRID_X)
    gy = min(-(-rows // by), _MAX_GRID_Y)
    if max_blocks is not None:
        gy = min(gy, max(1, max_blocks // gx))
    grid = (gx, gy, 1)
    return grid, (bx, by, 1)
