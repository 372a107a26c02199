"""Random strided NumPy views for the layout tests: the views GPUArray must describe exactly."""

import numpy as np


def random_shape(rng, max_ndim=4, max_dim=5, allow_empty=True):
    """A random shape with 0..max_ndim axes; sometimes with a zero-length axis."""
    ndim = int(rng.integers(0, max_ndim + 1))
    low = 0 if allow_empty and rng.random() < 0.15 else 1
    return tuple(int(n) for n in rng.integers(low, max_dim + 1, ndim))


def random_view(rng, ndim_max=4, dtype=np.float64, allow_empty=True):
    """(base, view): a view of a fresh base array by random slices, steps and a transpose.

    The base holds 0, 1, 2, ... so that a view's values are the flat positions it reads.
    """
    shape = random_shape(rng, ndim_max, 4, allow_empty)
    base_shape = tuple(2 * n + int(rng.integers(0, 3)) for n in shape)
    base = np.arange(int(np.prod(base_shape)), dtype=np.int64).astype(dtype).reshape(base_shape)
    key = []
    for n in base_shape:
        step = int(rng.choice([1, 1, 2, 3, -1, -2]))
        start = int(rng.integers(0, n + 1)) if n else 0
        stop = int(rng.integers(0, n + 1)) if rng.random() < 0.5 else None
        key.append(slice(start if rng.random() < 0.7 else None, stop, step))
    view = base[tuple(key) + (Ellipsis,)]
    view = view.transpose(rng.permutation(view.ndim))
    return base, view


def byte_offset(base, view):
    """Byte offset of a view's first element from its base's first element."""
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


def rebuild(base, offset, shape, strides):
    """The view of ``base`` at byte ``offset`` with ``shape`` and byte ``strides``."""
    flat = base.reshape(-1)
    start = flat[offset // base.itemsize :] if flat.size else flat
    return np.lib.stride_tricks.as_strided(start, shape=shape, strides=strides)
