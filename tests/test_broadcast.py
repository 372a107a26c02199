"""Tests for pycuda._broadcast: broadcast shapes and strides against NumPy."""

import re

import numpy as np
import pytest
from layout_helpers import random_view

from pycuda._broadcast import assignment_strides, broadcast_shapes, broadcast_strides


def random_broadcastable(rng, target):
    """A shape that broadcasts to ``target``: trailing axes kept or set to 1."""
    ndim = int(rng.integers(0, len(target) + 1))
    tail = target[len(target) - ndim :]
    return tuple(1 if rng.random() < 0.4 else n for n in tail)


def test_broadcast_shapes_match_numpy():
    rng = np.random.default_rng(20)
    for _ in range(3000):
        target = tuple(int(n) for n in rng.integers(0, 4, int(rng.integers(0, 5))))
        shapes = [random_broadcastable(rng, target) for _ in range(int(rng.integers(1, 4)))]
        assert broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)


def test_broadcast_mismatch_reads_like_numpy():
    message = r"operands could not be broadcast together with shapes \(2,3\) \(4,\)"
    with pytest.raises(ValueError, match=message):
        np.zeros((2, 3)) + np.zeros(4)
    with pytest.raises(ValueError, match=message):
        broadcast_shapes((2, 3), (4,))
    with pytest.raises(ValueError, match=r"\(2,0\) \(3,\) \(\)"):
        broadcast_shapes((2, 0), (3,), ())
    assert broadcast_shapes() == ()


def test_random_mismatches_raise_where_numpy_does():
    rng = np.random.default_rng(21)
    for _ in range(2000):
        shapes = [tuple(int(n) for n in rng.integers(0, 4, int(rng.integers(0, 4))))]
        shapes.append(tuple(int(n) for n in rng.integers(0, 4, int(rng.integers(0, 4)))))
        try:
            expected = np.broadcast_shapes(*shapes)
        except ValueError:
            with pytest.raises(ValueError, match="could not be broadcast"):
                broadcast_shapes(*shapes)
        else:
            assert broadcast_shapes(*shapes) == expected


def test_broadcast_strides_match_broadcast_to():
    rng = np.random.default_rng(22)
    for _ in range(2000):
        _, view = random_view(rng, 3)
        target = tuple(int(n) for n in rng.integers(1, 4, int(rng.integers(0, 3)))) + tuple(
            n if rng.random() < 0.7 else (int(rng.integers(2, 4)) if n == 1 else n)
            for n in view.shape
        )
        expected = np.broadcast_to(view, target)
        got = broadcast_strides(view.shape, view.strides, target)
        # NumPy keeps any stride on length-1 axes; compare where it matters.
        assert all(s == e or n <= 1 for s, e, n in zip(got, expected.strides, target, strict=True))
        assert all(s == 0 for s, n in zip(got, target, strict=True) if n > 1 and 0 in (s,))


def test_broadcast_strides_errors():
    with pytest.raises(ValueError, match="cannot broadcast"):
        broadcast_strides((3,), (8,), (4,))
    with pytest.raises(ValueError, match="more dimensions"):
        broadcast_strides((2, 3), (24, 8), (3,))
    assert broadcast_strides((3, 1), (8, 8), (2, 3, 5)) == (0, 8, 0)


def test_assignment_strides_follow_numpy_setitem():
    rng = np.random.default_rng(23)
    accepted = refused = 0
    for _ in range(2000):
        target = tuple(int(n) for n in rng.integers(0, 4, int(rng.integers(0, 4))))
        value_shape = (1,) * int(rng.integers(0, 2)) + random_broadcastable(rng, target)
        if rng.random() < 0.3:
            value_shape = tuple(int(n) for n in rng.integers(0, 4, int(rng.integers(0, 4))))
        value = np.arange(int(np.prod(value_shape)), dtype=np.float64).reshape(value_shape)
        dest = np.zeros(target)
        try:
            dest[...] = value
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                assignment_strides(value.shape, value.strides, target)
            refused += 1
            continue
        strides = assignment_strides(value.shape, value.strides, target)
        got = np.lib.stride_tricks.as_strided(value, target, strides)
        assert np.array_equal(got, dest), (value_shape, target)
        accepted += 1
    assert accepted > 500 and refused > 100
