"""How an axis reduction runs: NumPy's axis arguments checked, the array's axes merged into kept
(output) and reduced dimensions, and the launches chosen (kernel kind, block, chunks).

Everything here is arithmetic on tuples of Python ints (shapes in elements, strides in bytes), so
it is tested against NumPy without a GPU. ``pycuda._axis_reduction`` runs the plans.

The two kernel kinds (``pycuda._axis_kernels``):

- ``"block"``: one block per output element, its threads striding over the reduced elements; used
  when the innermost reduced dimension is contiguous (a sum along the last axis reads whole rows,
  coalesced).
- ``"thread"``: one thread per output element, walking the reduced elements; used when the
  innermost kept dimension is contiguous (a sum along axis 0 of a C array: neighbouring threads
  read neighbouring columns, coalesced), or the reduced run is short.

When there are too few outputs to fill the GPU, the reduced elements are split into ``chunks``
(a second grid dimension); each chunk writes a partial, and a further pass reduces the partials.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda._launch_config import THREADS_PER_BLOCK

MAX_DIMS = 6  # merged kept or reduced dimensions a kernel takes; more: a compacting copy first
GROUP = 8  # loads per thread per step, reduced as a tree before they join the running sum
# The most threads of a block of the axis kernels (but the vector thread-kind's, see
# _axis_kernels.vector_threads), and the block size that ``wave`` counts: the launch owner's.
BLOCK = THREADS_PER_BLOCK
_MAX_CHUNKS = 65535  # gridDim.y
_THREAD_MIN_RUN = 64  # fewest reduced elements per thread in a thread-kind launch
_THREAD_MAX_RUN = 1024  # most: bounds each thread's serial chain (accuracy of float sums)
_BLOCK_MAX_GROUPS = 512  # most groups of GROUP loads per thread in a block-kind chunk
# How many threads a pass aims at, as a fraction of those the GPU holds at once: each has
# GROUP loads in flight (of up to 16 bytes), so fewer than a full GPU keep the memory busy,
# and fewer threads per output mean fewer partials to add up (benchmarks/_axis_sweep.py).
_BLOCK_FILL = 4.0  # a BLOCK-thread block per row of 4096x16384 float32: 102% of a copy, a warp 98%
_THREAD_FILL = 0.5
_THREAD_LX = 32  # threads across the outputs of a thread-kind block when there are many


def normalize_axes(axis: Any, ndim: int, allow_tuple: bool = True) -> tuple[int, ...]:
    """The sorted, non-negative axes that ``axis`` (None, an int or a tuple of ints) names.

    NumPy's errors: :class:`numpy.exceptions.AxisError` for an axis out of range,
    :class:`ValueError` for a repeated one, :class:`TypeError` for a non-integer (or a tuple
    where ``allow_tuple`` is false, as for argmax).
    """
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)) and allow_tuple:
        items = list(axis)
    else:
        items = [axis]
    axes = []
    for item in items:
        if isinstance(item, (bool, np.bool_)):
            raise TypeError("an axis must be an integer, not bool")
        try:
            value = operator.index(item)
        except TypeError:
            raise TypeError(
                f"'{type(item).__name__}' object cannot be interpreted as an integer (axis)"
            ) from None
        if not -ndim <= value < ndim:
            raise np.exceptions.AxisError(value, ndim)
        axes.append(value % ndim if ndim else value)
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    return tuple(sorted(axes))


def result_shape(shape: Sequence[int], axes: Sequence[int], keepdims: bool) -> tuple[int, ...]:
    """The shape of a reduction of ``shape`` over ``axes``."""
    if keepdims:
        return tuple(1 if k in axes else n for k, n in enumerate(shape))
    return tuple(n for k, n in enumerate(shape) if k not in axes)


def c_strides(shape: Sequence[int], itemsize: int) -> tuple[int, ...]:
    """Byte strides of a C-contiguous array of ``shape``."""
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


@dataclass(frozen=True)
class AxisLayout:
    """The kept and reduced dimensions of a reduction after merging (slowest first).

    Output element ``o`` (C order over ``kept_shape``) reads the input at byte
    ``sum(k[d] * kept_in[d]) + sum(r[d] * red_in[d])`` for every reduced index ``r`` (C order
    over ``red_shape``), and is written at byte ``sum(k[d] * kept_out[d])``.
    """

    kept_shape: tuple[int, ...]
    kept_in: tuple[int, ...]
    kept_out: tuple[int, ...]
    red_shape: tuple[int, ...]
    red_in: tuple[int, ...]

    @property
    def n_out(self) -> int:
        return math.prod(self.kept_shape)

    @property
    def n_red(self) -> int:
        return math.prod(self.red_shape)


def _merge(dims: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Merge neighbouring ``(n, stride, stride, ...)`` dimensions that walk as one run."""
    merged: list[tuple[int, ...]] = []
    for dim in dims:
        if merged:
            outer = merged[-1]
            if all(o == s * dim[0] for o, s in zip(outer[1:], dim[1:], strict=True)):
                merged[-1] = (outer[0] * dim[0], *dim[1:])
                continue
        merged.append(dim)
    return merged


def axis_layout(
    shape: Sequence[int],
    strides: Sequence[int],
    axes: Sequence[int],
    out_strides: Sequence[int],
    ordered: bool = False,
) -> AxisLayout:
    """Merge the axes of a reduction of an array (``shape``, byte ``strides``) over ``axes``;
    see ``_axis_layout`` (this converts to tuples, and the result is cached)."""
    return _axis_layout(tuple(shape), tuple(strides), tuple(axes), tuple(out_strides), ordered)


@functools.lru_cache(maxsize=1024)  # a call per reduction: planning costs host time
def _axis_layout(
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    axes: tuple[int, ...],
    out_strides: tuple[int, ...],
    ordered: bool,
) -> AxisLayout:
    """Merge the axes of a reduction of an array (``shape``, byte ``strides``) over ``axes``.

    ``out_strides`` are the output's byte strides over the kept axes (in their order). Axes of
    length 1 are dropped. Kept axes are ordered by input stride (largest first, so the
    innermost is the one neighbouring threads walk), and so are reduced axes unless ``ordered``
    (argmax/argmin: the reduced index must stay the C-order index). Neighbours that walk as one
    run merge.
    """
    kept = [k for k in range(len(shape)) if k not in axes]
    if len(out_strides) != len(kept):
        raise ValueError("need one output stride per kept axis")
    kdims = [(shape[k], strides[k], o) for k, o in zip(kept, out_strides, strict=True)]
    kdims = [d for d in kdims if d[0] != 1]
    kdims.sort(key=lambda d: -abs(d[1]))
    kdims = _merge(kdims) or [(1, 0, 0)]
    rdims = [(shape[k], strides[k]) for k in axes if shape[k] != 1]
    if not ordered:
        rdims.sort(key=lambda d: -abs(d[1]))
    rdims = _merge(rdims) or [(1, 0)]
    return AxisLayout(
        tuple(d[0] for d in kdims),
        tuple(d[1] for d in kdims),
        tuple(d[2] for d in kdims),
        tuple(d[0] for d in rdims),
        tuple(d[1] for d in rdims),
    )


@dataclass(frozen=True)
class Launch:
    """One pass of a reduction: kernel ``kind`` ("block"/"thread"), threads per ``block``
    (blockDim.x) and ``rows`` (blockDim.y), ``grid`` (x, y=chunks), ``chunk_len`` reduced
    elements per chunk, and ``vec`` outputs per thread (thread kind; 1: one).

    Block kind: a group of ``block`` threads per output, ``rows`` outputs per block. Thread
    kind: a thread per ``vec`` outputs, ``block`` of them across the outputs and ``rows``
    threads sharing each output's chunk."""

    kind: str
    block: int
    grid: tuple[int, int]
    chunks: int
    chunk_len: int
    rows: int = 1
    vec: int = 1


def _pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def choose_launch(
    layout: AxisLayout, itemsize: int, wave: int, vec: int = 1, max_threads: int = BLOCK
) -> Launch:
    """The launch of one pass over ``layout`` (elements of ``itemsize`` bytes).

    ``wave`` is how many BLOCK-thread blocks the GPU holds at once; a pass aims at a fraction of
    that many threads, each with several loads in flight, splitting the reduced elements into
    chunks when the outputs alone fall short. ``vec``: how many neighbouring outputs a
    thread-kind thread may take (the caller checked the alignment; see run_passes), and
    ``max_threads`` the most threads of its blocks.
    """
    n_out, n_red = layout.n_out, layout.n_red
    resident = wave * BLOCK
    red_contig = abs(layout.red_in[-1]) == itemsize and n_red >= 32
    kept_contig = abs(layout.kept_in[-1]) == itemsize and n_out >= 32
    if red_contig or (not kept_contig and n_out < BLOCK and n_red >= 64):
        return _block_launch(n_out, n_red, resident)
    if n_out % max(vec, 1):
        vec, max_threads = 1, BLOCK
    return _thread_launch(n_out, n_red, resident, vec, max_threads if vec > 1 else BLOCK)


def _block_launch(n_out: int, n_red: int, resident: int) -> Launch:
    """A group of threads per output: a warp, more while the outputs leave the GPU short of
    threads and the rows are long, up to BLOCK (then chunks)."""
    group = 32
    while group < BLOCK and n_out * group < _BLOCK_FILL * resident and n_red >= 64 * group:
        group *= 2
    rows = max(1, min(BLOCK // group, _pow2_at_least(n_out)))
    chunks = 1
    if group == BLOCK:
        chunks = max(1, int(_BLOCK_FILL * resident) // (group * max(n_out, 1)))
        chunks = min(chunks, -(-n_red // (group * GROUP * 4)))  # >= 4 groups per thread
    chunks = max(chunks, -(-n_red // (group * GROUP * _BLOCK_MAX_GROUPS)))
    grid_x = min(-(-n_out // rows), 1 << 20)
    return _launch("block", group, grid_x, chunks, n_red, rows)


def _thread_launch(n_out: int, n_red: int, resident: int, vec: int, max_threads: int) -> Launch:
    """A thread per ``vec`` outputs; while the outputs leave the GPU short of threads, threads
    share an output's chunk (``rows``, a power of two, of a block of up to ``max_threads``),
    then chunks. (Sums along axis 0 of 4096x16384 float32: 32x32 threads a block, one pass,
    102% of a copy; 32x8 and 4 chunks, 97%.)"""
    groups = n_out // vec
    want = max(1, int(_THREAD_FILL * resident) // max(groups, 1))  # threads per output
    want = min(want, max(1, n_red // _THREAD_MIN_RUN))
    if want >= 2:  # narrow blocks, threads of a column of the block share the outputs
        block = min(_THREAD_LX, max(32, -(-groups // 32) * 32))
        rows = min(max_threads // block, want)
        rows = 1 << (rows.bit_length() - 1)
    else:
        block, rows = min(BLOCK, max(32, -(-groups // 32) * 32)), 1
    blocks_x = -(-groups // block)
    chunks = max(1, want // rows)
    chunks = max(chunks, -(-n_red // (rows * _THREAD_MAX_RUN)))
    return _launch("thread", block, min(blocks_x, 1 << 20), chunks, n_red, rows, vec)


def _launch(
    kind: str, block: int, grid_x: int, chunks: int, n_red: int, rows: int = 1, vec: int = 1
) -> Launch:
    chunks = max(1, min(chunks, _MAX_CHUNKS))
    chunk_len = -(-n_red // chunks) if n_red else 0
    if kind == "block":  # chunks start on 16-element boundaries: 16-byte loads stay aligned
        chunk_len = -(-chunk_len // 16) * 16
    if chunk_len:
        chunks = -(-n_red // chunk_len)
    return Launch(kind, block, (max(1, grid_x), chunks), chunks, chunk_len, rows, vec)


def partial_layouts(
    layout: AxisLayout, launch: Launch, acc_size: int
) -> tuple[tuple[int, ...], int, AxisLayout]:
    """Where a pass that splits into chunks writes its partials, and the next pass over them.

    Returns (kept output strides of the partials, bytes between chunks, the layout of the pass
    that reduces the partials, whose ``kept_out`` is still this layout's). Thread-kind partials
    lie chunk-major (neighbouring threads write neighbours), block-kind ones output-major (the
    next pass reads each output's partials as one contiguous run).
    """
    contig = c_strides(layout.kept_shape, acc_size)
    n_out, chunks = layout.n_out, launch.chunks
    if launch.kind == "thread":
        part_out, chunk_stride, red_in = contig, n_out * acc_size, n_out * acc_size
    else:
        part_out = tuple(s * chunks for s in contig)
        chunk_stride, red_in = acc_size, acc_size
    nxt = AxisLayout(layout.kept_shape, part_out, layout.kept_out, (chunks,), (red_in,))
    return part_out, chunk_stride, nxt
