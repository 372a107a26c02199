"""Tests for pycuda._kernel_layout: merged loops visit exactly the element tuples NumPy pairs up."""

import numpy as np
from layout_helpers import byte_offset, random_view

from pycuda._broadcast import broadcast_shapes, broadcast_strides
from pycuda._kernel_layout import kernel_layout, vector_width


def element_tuples(views):
    """Rows (value of operand 0, operand 1, ...) over the broadcast shape, sorted."""
    rows = np.stack([np.asarray(v, dtype=np.int64).ravel() for v in np.broadcast_arrays(*views)])
    return rows[:, np.lexsort(rows[::-1])] if rows.size else rows


def emulate(layout, bases, starts):
    """What a kernel following ``layout`` reads: per operand, the base values at its offsets."""
    index = np.indices(layout.shape).reshape(len(layout.shape), -1)
    rows = []
    for k, base in enumerate(bases):
        offsets = starts[k] + layout.offsets[k] + np.asarray(layout.strides[k]) @ index
        assert (offsets % base.itemsize == 0).all()
        rows.append(base.reshape(-1)[offsets // base.itemsize].astype(np.int64))
    rows = np.stack(rows)
    return rows[:, np.lexsort(rows[::-1])] if rows.size else rows


def random_operands(rng):
    """1 to 3 random strided views whose shapes broadcast together (first is the output)."""
    base, view = random_view(rng, 4, dtype=rng.choice([np.float32, np.float64, np.int16]))
    operands = [(base, view)]
    for _ in range(int(rng.integers(0, 3))):
        b, v = random_view(rng, 4, dtype=rng.choice([np.float32, np.int8]))
        extra = v.ndim - view.ndim
        if extra > 0 and 0 not in v.shape[:extra]:
            v = v[(0,) * extra + (Ellipsis,)]  # drop leading axes, keeping a view
        try:
            np.broadcast_shapes(view.shape, v.shape)
        except ValueError:
            continue
        if np.broadcast_shapes(view.shape, v.shape) == view.shape:
            operands.append((b, v))
    return operands


def test_merged_loops_read_the_same_elements_as_numpy():
    rng = np.random.default_rng(30)
    merged = fast = 0
    for _ in range(2000):
        operands = random_operands(rng)
        shape = broadcast_shapes(*(v.shape for _, v in operands))
        strides = [broadcast_strides(v.shape, v.strides, shape) for _, v in operands]
        layout = kernel_layout(shape, strides, [v.itemsize for _, v in operands])
        bases = [b for b, _ in operands]
        starts = [byte_offset(b, v) for b, v in operands]
        expected = element_tuples([v for _, v in operands])
        got = emulate(layout, bases, starts)
        assert got.shape == expected.shape and (got == expected).all(), (shape, strides, layout)
        assert layout.ndim <= max(len(shape), 1)
        merged += layout.ndim < len([n for n in shape if n != 1])
        fast += layout.contiguous
    assert merged > 100 and fast > 50


def test_contiguous_operands_take_the_flat_path():
    a = np.zeros((4, 5, 6), np.float32)
    b = np.zeros((4, 5, 6), np.float64)
    layout = kernel_layout(a.shape, [a.strides, b.strides], [4, 8])
    assert layout.contiguous and layout.shape == (120,)
    # Fortran-ordered operands are as good, and so is a transposed pair.
    f = np.asfortranarray(a)
    assert kernel_layout(f.shape, [f.strides, f.strides], [4, 4]).contiguous
    t = a.T
    assert kernel_layout(t.shape, [t.strides, b.T.strides], [4, 8]).contiguous
    # Reversed views are walked forwards from their last element.
    r = a[::-1, ::-1, ::-1]
    layout = kernel_layout(r.shape, [r.strides, r.strides], [4, 4])
    assert layout.contiguous and layout.offsets == (119 * -4, 119 * -4)


def test_mixed_orders_and_broadcasts_are_not_flat():
    a = np.zeros((4, 6), np.float32)
    layout = kernel_layout(a.shape, [a.strides, a.T.copy().T.strides], [4, 4])
    assert not layout.contiguous and layout.ndim == 2
    layout = kernel_layout((4, 6), [a.strides, (0, 4)], [4, 4])
    assert not layout.contiguous and layout.shape == (4, 6)
    # A strided pair of rows merges into one axis with a step.
    s = np.zeros((4, 12), np.float32)[:, ::2]
    layout = kernel_layout(s.shape, [s.strides, s.strides], [4, 4])
    assert layout.shape == (24,) and layout.strides == ((8,), (8,)) and not layout.contiguous


def test_degenerate_shapes():
    assert kernel_layout((), [(), ()], [4, 8]).shape == (1,)
    assert kernel_layout((1, 1), [(4, 4), (0, 0)], [4, 8]).strides == ((4,), (8,))
    empty = kernel_layout((3, 0), [(0, 4), (8, 8)], [4, 8])
    assert empty.shape == (0,) and empty.contiguous


def test_vector_width():
    assert vector_width(4, [0, 256, 1024]) == 4  # float4
    assert vector_width(4, [0, 8]) == 2
    assert vector_width(4, [0, 4]) == 1
    assert vector_width(8, [16, 32]) == 2  # double2
    assert vector_width(16, [0]) == 1  # complex128 is already 16 bytes
    assert vector_width(2, [0, 64]) == 8  # eight halves
    assert vector_width(1, [0], max_bytes=4) == 4
    assert vector_width(12, [0, 48]) == 1  # float3 is not a power of two
    assert vector_width(4, []) == 4
    rng = np.random.default_rng(31)
    for _ in range(500):
        itemsize = int(rng.choice([1, 2, 4, 8, 16]))
        addresses = [int(a) * itemsize for a in rng.integers(0, 64, 3)]
        w = vector_width(itemsize, addresses)
        assert w * itemsize <= 16 and all(a % (w * itemsize) == 0 for a in addresses)
        if w * itemsize < 16:
            assert not all(a % (2 * w * itemsize) == 0 for a in addresses)
