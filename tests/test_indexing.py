"""Tests for pycuda._indexing: views and gather plans reproduce NumPy's indexing exactly."""

import re

import numpy as np
import pytest
from layout_helpers import byte_offset, random_view, rebuild

from pycuda._indexing import check_index_bounds, check_mask_shape, index_plan


def random_basic_item(rng, n):
    """An int (maybe negative), a slice with any step (maybe empty or out of range), or None."""
    r = rng.random()
    if r < 0.25 and n:
        return int(rng.integers(-n, n)) if rng.random() < 0.8 else np.int32(rng.integers(0, n))
    if r < 0.35:
        return None

    def bound():
        return None if rng.random() < 0.3 else int(rng.integers(-n - 2, n + 3))

    step = None if rng.random() < 0.3 else int(rng.choice([1, 2, 3, -1, -2, -3]))
    return slice(bound(), bound(), step)


def random_basic_key(rng, shape):
    items, axis = [], 0
    while axis < len(shape) and rng.random() < 0.8:
        items.append(random_basic_item(rng, shape[axis]))
        axis += items[-1] is not None
    if rng.random() < 0.3:
        items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
    if len(items) == 1 and rng.random() < 0.5:
        return items[0]
    return tuple(items)


def test_basic_keys_give_numpy_views():
    rng = np.random.default_rng(40)
    for _ in range(4000):
        base, view = random_view(rng, 4)
        key = random_basic_key(rng, view.shape)
        try:
            expected = view[key if isinstance(key, tuple) else (key,)][...]
        except IndexError as exc:
            with pytest.raises(IndexError, match=re.escape(str(exc))):
                index_plan(view.shape, view.strides, key)
            continue
        plan = index_plan(view.shape, view.strides, key)
        assert plan.is_view and plan.result_shape == expected.shape, (view.shape, key)
        got = rebuild(base, byte_offset(base, view) + plan.offset, plan.shape, plan.strides)
        assert np.array_equal(got, expected), (view.shape, view.strides, key)
        if expected.size > 1:
            assert plan.strides == expected.strides, (view.shape, view.strides, key)
            assert plan.offset == byte_offset(view, expected)


def test_empty_forward_slice_has_length_zero():
    # The original gave a[5:3] the shape (2,).
    plan = index_plan((10,), (4,), slice(5, 3))
    assert plan.shape == (0,)
    assert index_plan((10,), (4,), slice(3, 5, -1)).shape == (0,)
    assert index_plan((10,), (4,), slice(None, None, -3)).shape == (4,)


@pytest.mark.parametrize(
    "key, exc, message",
    [
        ((5,), IndexError, "index 5 is out of bounds for axis 0 with size 2"),
        ((0, -4), IndexError, "index -4 is out of bounds for axis 1 with size 3"),
        ((0, 0, 0), IndexError, "too many indices for array: array is 2-dimensional, but 3 were"),
        ((Ellipsis, Ellipsis), IndexError, r"an index can only have a single ellipsis \('...'\)"),
        ((1.5,), IndexError, "only integers, slices"),
        (("a",), IndexError, "only integers, slices"),
        ((np.array([1.0]),), IndexError, "arrays used as indices must be of integer"),
        ((np.array([True, False, True]),), IndexError, "boolean index did not match indexed"),
    ],
)
def test_errors_read_like_numpy(key, exc, message):
    a = np.zeros((2, 3))
    with pytest.raises(exc, match=message):
        a[key]
    with pytest.raises(exc, match=message):
        index_plan(a.shape, a.strides, key)


def random_advanced_key(rng, shape):
    """A key mixing integer arrays, boolean masks, ints, slices, None and Ellipsis."""
    items, axis = [], 0
    while axis < len(shape) and rng.random() < 0.85:
        n = shape[axis]
        r = rng.random()
        if r < 0.3 and n:
            index_shape = tuple(int(d) for d in rng.integers(1, 3, int(rng.integers(0, 2))))
            chosen = rng.integers(-n, n, (2, 2))[: index_shape[0] if index_shape else 1]
            items.append(chosen[0, :1] if not index_shape else chosen.reshape(-1)[:2][:2])
            axis += 1
        elif r < 0.4 and axis + 2 <= len(shape):
            items.append(rng.random(shape[axis : axis + 2]) < 0.5)
            axis += 2
        elif r < 0.5:
            items.append(rng.random(n) < 0.5)
            axis += 1
        elif r < 0.55:
            items.append([int(i) for i in rng.integers(0, max(n, 1), 2)] if n else [])
            axis += 1
        else:
            item = random_basic_item(rng, n)
            items.append(item)
            axis += item is not None
    if rng.random() < 0.2:
        items.insert(int(rng.integers(0, len(items) + 1)), Ellipsis)
    if rng.random() < 0.1:
        items.insert(int(rng.integers(0, len(items) + 1)), bool(rng.random() < 0.5))
    return tuple(items)


def gather(base, start, plan):
    """Emulate a gather kernel following ``plan`` on the CPU."""
    index = np.indices(plan.shape).reshape(len(plan.shape), int(np.prod(plan.shape)))
    view_offsets = (start + plan.offset + np.asarray(plan.strides, dtype=np.int64) @ index).reshape(
        plan.shape
    )
    index_offsets = np.zeros(plan.index_shape, dtype=np.int64)
    for entry in plan.advanced:
        if entry.is_mask:
            coords = np.nonzero(entry.index) if np.ndim(entry.index) else ()
        else:
            coords = (np.asarray(entry.index) % entry.lengths[0],)
        for coord, stride in zip(coords, entry.strides, strict=True):
            index_offsets = index_offsets + np.broadcast_to(coord, plan.index_shape) * stride
    at, k = plan.insert_at, len(plan.index_shape)
    view_offsets = view_offsets.reshape(plan.shape[:at] + (1,) * k + plan.shape[at:])
    index_offsets = index_offsets.reshape(
        (1,) * at + plan.index_shape + (1,) * (len(plan.shape) - at)
    )
    offsets = view_offsets + index_offsets
    return base.reshape(-1)[offsets // base.itemsize]


def test_advanced_keys_match_numpy():
    rng = np.random.default_rng(41)
    checked = separated = 0
    for _ in range(4000):
        base, view = random_view(rng, 4, allow_empty=False)
        key = random_advanced_key(rng, view.shape)
        try:
            expected = view[key]
        except IndexError as exc:
            with pytest.raises(IndexError, match=re.escape(str(exc).strip())):
                plan = index_plan(view.shape, view.strides, key)
                for entry in plan.advanced:
                    if not entry.is_mask:
                        check_index_bounds(entry.index, entry.axes[0], entry.lengths[0])
            continue
        plan = index_plan(view.shape, view.strides, key)
        assert plan.result_shape == expected.shape, (view.shape, key)
        if plan.is_view or expected.size == 0:
            continue
        got = gather(base, byte_offset(base, view), plan)
        assert np.array_equal(got, expected), (view.shape, view.strides, key)
        checked += 1
        separated += plan.insert_at == 0 and plan.shape[:1] != ()
    assert checked > 500 and separated > 50, (checked, separated)


def test_separated_advanced_indices_move_to_front():
    a = np.zeros((2, 3, 4, 5))
    for key in [
        (slice(None), [0, 1], slice(None), [1, 2]),
        ([0, 1], slice(None), 0),
        (slice(None), 0, slice(None), [1, 2]),
        (slice(None), [0], [1], slice(None)),
        ([0], None, [0]),
    ]:
        assert index_plan(a.shape, a.strides, key).result_shape == a[key].shape


def test_mask_checks():
    check_mask_shape((2, 3), (2, 3), 0)
    with pytest.raises(IndexError, match="along axis 1; size of axis is 3 but size of corr"):
        check_mask_shape((2, 2), (2, 3), 0)
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 6"):
        check_index_bounds(np.array([1, 7, -2]), 1, 6)
    check_index_bounds(np.array([-6, 5]), 0, 6)
    counted = index_plan((4,), (8,), np.array([True, False, True, True]), count_true=lambda m: 3)
    assert counted.result_shape == (3,)
