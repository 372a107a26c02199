"""Tests for pycuda._view_layout: reshape (view or copy), ravel, transpose, squeeze vs NumPy."""

import re

import numpy as np
import pytest
from layout_helpers import random_view

from pycuda._view_layout import (
    AxisError,
    dtype_view_layout,
    normalize_axis,
    ravel_layout,
    reshape_args,
    reshape_layout,
    resolve_shape,
    squeeze_layout,
    transpose_layout,
)


def is_view_of(result, base):
    """Whether NumPy returned a view (shares the base's buffer) rather than a copy."""
    return result.size == 0 or np.shares_memory(result, base)


def random_newshape(rng, shape):
    """A shape with the same size: axes shuffled, merged, split into 1s, and maybe a -1."""
    dims = list(shape)
    if rng.random() < 0.3:
        rng.shuffle(dims)
    if len(dims) >= 2 and rng.random() < 0.5:
        i = int(rng.integers(0, len(dims) - 1))
        dims[i : i + 2] = [dims[i] * dims[i + 1]]
    for _ in range(int(rng.integers(0, 3))):
        dims.insert(int(rng.integers(0, len(dims) + 1)), 1)
    if dims and rng.random() < 0.3 and 0 not in dims:
        dims[int(rng.integers(0, len(dims)))] = -1
    return tuple(dims)


def same_shape_other_order(view, shape, order):
    """The one exception to NumPy's views: the same shape (-1 resolved) asked in the order the
    array is not contiguous in, while it is in the other (the original's layout; a copy)."""
    flags = view.flags
    wanted, other = (flags.c_contiguous, flags.f_contiguous)[:: 1 if order == "C" else -1]
    return shape == view.shape and other and not wanted


def test_reshape_matches_numpy_views_and_copies():
    rng = np.random.default_rng(10)
    views = copies = 0
    for _ in range(3000):
        base, view = random_view(rng, 4)
        newshape = random_newshape(rng, view.shape)
        for order in "CF":
            expected = view.reshape(newshape, order=order)
            shape, strides = reshape_layout(view.shape, view.strides, 8, newshape, order)
            assert shape == expected.shape
            numpy_view = is_view_of(expected, base) and not same_shape_other_order(
                view, expected.shape, order
            )
            assert (strides is not None) == numpy_view, (view.shape, view.strides, newshape)
            if strides is not None and expected.size:
                assert strides == expected.strides, (view.shape, view.strides, newshape, order)
                views += 1
            else:
                copies += 1
    assert views > 1000 and copies > 300  # both paths were exercised


def test_reshape_to_the_same_shape_is_laid_out_in_the_order_asked():
    """The original's test suite: reshape((4, 32), order="F") of a C array is F-contiguous and
    back; an array contiguous both ways (1-D), or in neither, stays a plain view."""
    c = np.empty((4, 32), np.float32)
    f = np.asfortranarray(c)
    assert reshape_layout(c.shape, c.strides, 4, (4, 32), "F") == ((4, 32), None)
    assert reshape_layout(f.shape, f.strides, 4, (4, 32), "C") == ((4, 32), None)
    assert reshape_layout(f.shape, f.strides, 4, (4, 32), "F") == ((4, 32), f.strides)
    assert reshape_layout(c.shape, c.strides, 4, [4, 32], "c") == ((4, 32), c.strides)
    for shape, strides in (((128,), (4,)), ((1, 7), (28, 4)), ((0, 5), (20, 4))):
        for order in "CF":
            assert reshape_layout(shape, strides, 4, shape, order) == (shape, strides)
    strided = c[:, ::2]
    assert reshape_layout(strided.shape, strided.strides, 4, (4, 16), "F") == (
        (4, 16),
        strided.strides,
    )
    # The same with a -1 that works out to the same shape.
    assert reshape_layout(c.shape, c.strides, 4, (-1, 32), "F") == ((4, 32), None)
    assert reshape_layout(c.shape, c.strides, 4, (4, -1), "C") == ((4, 32), c.strides)


def test_ravel_matches_numpy():
    rng = np.random.default_rng(11)
    for _ in range(1000):
        base, view = random_view(rng, 4)
        for order in "CF":
            expected = view.ravel(order)
            shape, strides = ravel_layout(view.shape, view.strides, 8, order)
            assert shape == expected.shape
            assert (strides is not None) == is_view_of(expected, base)
            if strides is not None and expected.size > 1:
                assert strides == expected.strides


@pytest.mark.parametrize(
    "size, newshape, message",
    [
        (6, (4,), r"cannot reshape array of size 6 into shape \(4,\)"),
        (6, (-1, 4), r"cannot reshape array of size 6 into shape \(4\)"),
        (6, (4, -1, 2), r"into shape \(4,newaxis,2\)"),
        (0, (0, -1), r"cannot reshape array of size 0 into shape \(0,newaxis\)"),
        (6, (-1, -1), "can only specify one unknown dimension"),
        (6, (-2, -3), "can only specify one unknown dimension"),
    ],
)
def test_reshape_errors_read_like_numpy(size, newshape, message):
    with pytest.raises(ValueError, match=message):
        np.zeros(size).reshape(newshape)
    with pytest.raises(ValueError, match=message):
        resolve_shape(size, newshape)


def test_resolve_shape_and_args():
    assert resolve_shape(12, (3, -1)) == (3, 4)
    assert resolve_shape(0, (-1,)) == (0,)
    assert resolve_shape(0, (3, -1)) == (3, 0)
    assert resolve_shape(6, (-2, 3)) == (2, 3)  # any negative entry is the unknown one
    assert reshape_args((2, np.int64(3))) == (2, 3)
    assert reshape_args(([2, 3],)) == (2, 3)
    assert reshape_args(((),)) == ()
    with pytest.raises(TypeError):
        reshape_args((2.5,))


def test_transpose_matches_numpy():
    rng = np.random.default_rng(12)
    for _ in range(500):
        _, view = random_view(rng, 5)
        axes = [int(a) for a in rng.permutation(view.ndim)]
        if rng.random() < 0.5:
            axes = [a - view.ndim if rng.random() < 0.5 else a for a in axes]
        for arg in (None, axes):
            expected = view.transpose(arg)
            assert transpose_layout(view.shape, view.strides, arg) == (
                expected.shape,
                expected.strides,
            )


def test_transpose_errors():
    with pytest.raises(ValueError, match="axes don't match array"):
        transpose_layout((2, 3), (24, 8), (0,))
    with pytest.raises(ValueError, match="repeated axis in transpose"):
        transpose_layout((2, 3), (24, 8), (0, 0))
    with pytest.raises(AxisError, match="axis 4 is out of bounds"):
        transpose_layout((2, 3), (24, 8), (0, 4))


def test_squeeze_matches_numpy():
    rng = np.random.default_rng(13)
    for _ in range(500):
        _, view = random_view(rng, 5)
        view = view[tuple(None if rng.random() < 0.3 else slice(None) for _ in range(view.ndim))]
        expected = view.squeeze()
        assert squeeze_layout(view.shape, view.strides) == (expected.shape, expected.strides)
        ones = [a for a in range(view.ndim) if view.shape[a] == 1]
        if ones:
            pick = tuple(ones[: int(rng.integers(1, len(ones) + 1))])
            expected = view.squeeze(pick)
            got = squeeze_layout(view.shape, view.strides, pick)
            assert got == (expected.shape, expected.strides)


def test_squeeze_errors():
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        squeeze_layout((2, 1), (8, 8), 0)
    with pytest.raises(AxisError):
        squeeze_layout((2, 1), (8, 8), 2)
    assert normalize_axis(-1, 3) == 2


def test_dtype_view_matches_numpy():
    rng = np.random.default_rng(14)
    kinds = [np.int8, np.int16, np.float32, np.float64, np.complex128]
    views = errors = 0
    for _ in range(3000):
        _, view = random_view(rng, 3, dtype=kinds[int(rng.integers(0, len(kinds)))])
        new = np.dtype(kinds[int(rng.integers(0, len(kinds)))])
        try:
            expected = view.view(new)
        except ValueError as exc:
            with pytest.raises(ValueError, match=re.escape(str(exc))):
                dtype_view_layout(view.shape, view.strides, view.itemsize, new.itemsize)
            errors += 1
            continue
        got = dtype_view_layout(view.shape, view.strides, view.itemsize, new.itemsize)
        assert got == (expected.shape, expected.strides), (view.shape, view.strides, new)
        views += 1
    assert views > 300 and errors > 300
