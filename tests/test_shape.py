"""Tests for pycuda._shape: shape arguments, contiguous strides, flags and compact strides."""

import numpy as np
import pytest
from layout_helpers import random_shape, random_view

from pycuda._shape import (
    ArrayFlags,
    compact_strides,
    contiguous_strides,
    like_strides,
    new_array_strides,
    normalize_order,
    normalize_shape,
    size_of,
    span_bytes,
)


@pytest.mark.parametrize(
    "arg, expected",
    [
        (3, (3,)),
        (np.int32(3), (3,)),
        ((2, np.uint8(3)), (2, 3)),
        ([4, 0], (4, 0)),
        ((), ()),
        (np.array(5), (5,)),
        (np.array([2, 3]), (2, 3)),
        (np.zeros(0, dtype=float), ()),
    ],
)
def test_normalize_shape_accepts_what_numpy_accepts(arg, expected):
    got = normalize_shape(arg)
    assert got == expected == np.empty(arg).shape
    assert all(type(d) is int for d in got)


@pytest.mark.parametrize(
    "arg, exc, match",
    [
        (-1, ValueError, "negative dimensions are not allowed"),
        ((2, -3), ValueError, "negative dimensions"),
        (2.0, TypeError, "'float' object cannot be interpreted as an integer"),
        ((2, 1.5), TypeError, "cannot be interpreted as an integer"),
        ("3", TypeError, "cannot be interpreted"),
        (None, TypeError, "cannot be interpreted"),
        (np.array([2.0]), TypeError, "must hold integers"),
        (np.zeros((2, 2), int), TypeError, "0- or 1-dimensional"),
    ],
)
def test_normalize_shape_rejects(arg, exc, match):
    with pytest.raises(exc, match=match):
        normalize_shape(arg)


def test_normalize_order():
    assert normalize_order("f") == "F"
    with pytest.raises(ValueError, match="order must be one of"):
        normalize_order("K")
    assert normalize_order("k", "CFAK") == "K"


def test_contiguous_strides_match_numpy():
    rng = np.random.default_rng(1)
    for _ in range(500):
        shape = random_shape(rng, 5, 6)
        for dtype in (np.int8, np.float32, np.complex128):
            for order in "CF":
                itemsize = np.dtype(dtype).itemsize
                expected = np.empty(shape, dtype, order=order).strides
                assert new_array_strides(shape, itemsize, order) == expected
                # reshape of a contiguous buffer gives the regular strides, empty or not
                expected = (
                    np.empty(size_of(shape) + 1, dtype)[:-1].reshape(shape, order=order).strides
                )
                assert contiguous_strides(shape, itemsize, order) == expected


def test_flags_match_numpy_on_random_views():
    rng = np.random.default_rng(2)
    for _ in range(2000):
        _, view = random_view(rng, 5)
        flags = ArrayFlags.of(view.shape, view.strides, view.itemsize)
        assert flags.c_contiguous == view.flags.c_contiguous, (view.shape, view.strides)
        assert flags.f_contiguous == view.flags.f_contiguous, (view.shape, view.strides)
        assert flags.forc == view.flags.forc


def test_flags_relaxed_rules():
    # Axes of length 1 may have any stride; empty arrays are contiguous both ways.
    assert ArrayFlags.of((3, 1), (8, 999), 8) == ArrayFlags(True, True)
    assert ArrayFlags.of((1, 3), (999, 8), 8).c_contiguous
    assert ArrayFlags.of((2, 0, 3), (7, 5, 3), 8) == ArrayFlags(True, True)
    assert ArrayFlags.of((), (), 4) == ArrayFlags(True, True)
    assert not ArrayFlags.of((3,), (-8,), 8).forc


def test_compact_strides_keep_axis_order_like_empty_like_K():
    rng = np.random.default_rng(3)
    for _ in range(2000):
        _, view = random_view(rng, 5, allow_empty=False)
        if view.size == 0:
            continue
        got = compact_strides(view.shape, view.strides, view.itemsize)
        host = np.lib.stride_tricks.as_strided(np.empty(view.size, view.dtype), view.shape, got)
        assert ArrayFlags.of(view.shape, got, view.itemsize).forc or view.ndim > 1
        # The host array is dense: it covers exactly size * itemsize bytes.
        assert span_bytes(host.shape, got, host.itemsize) == (0, view.nbytes)
        # Same axis order as numpy's order='K' wherever the order is decided by distinct strides.
        expected = np.empty_like(view, order="K").strides
        long_axes = [a for a in range(view.ndim) if view.shape[a] > 1]
        by_ours = sorted(long_axes, key=lambda a: -got[a])
        by_numpy = sorted(long_axes, key=lambda a: -expected[a])
        assert by_ours == by_numpy, (view.shape, view.strides, got, expected)


def test_span_bytes_and_size():
    rng = np.random.default_rng(4)
    for _ in range(1000):
        base, view = random_view(rng, 4, allow_empty=False)
        if view.size == 0:
            continue
        low, high = span_bytes(view.shape, view.strides, view.itemsize)
        positions = view.astype(np.int64).ravel() * base.itemsize
        assert (low, high) == (positions.min() - positions[0], positions.max() - positions[0] + 8)
        assert size_of(view.shape) == view.size
    assert span_bytes((3, 0), (8, 8), 8) == (0, 0)


def test_like_strides_match_empty_like():
    rng = np.random.default_rng(5)
    for _ in range(3000):
        _, view = random_view(rng, 4)
        for order in "CFAK":
            expected = np.empty_like(view, order=order).strides
            got = like_strides(view.shape, view.strides, view.itemsize, order)
            assert got == expected, (view.shape, view.strides, order)
    with pytest.raises(ValueError, match="order must be one of"):
        like_strides((2,), (8,), 8, "X")
