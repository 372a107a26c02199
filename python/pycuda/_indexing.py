"""Indexing with NumPy's rules: ``__getitem__`` keys turned into views or into gather plans.

Basic keys (ints, slices with any step, ``...``, ``None``) give a view: a byte offset, a shape and
strides. Keys with integer arrays or boolean masks give an :class:`IndexPlan` that says how a
gather kernel builds the result, with NumPy's result shape (separated advanced indices move to
the front).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda._broadcast import broadcast_shapes, shape_text
from pycuda._shape import Shape, Strides

_INVALID = (
    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or "
    "boolean arrays are valid indices"
)


@dataclass(frozen=True)
class AdvancedIndex:
    """One integer-array or boolean-mask index of a key.

    ``index`` is the array as given (host or device); ``axes`` the source axes it consumes (one
    for an integer array, ``mask.ndim`` for a mask), with their lengths and byte strides;
    ``shape`` is what it contributes to broadcasting: the array's shape, or ``(count,)`` for a
    mask with ``count`` true elements.
    """

    index: Any
    is_mask: bool
    axes: tuple[int, ...]
    lengths: tuple[int, ...]
    strides: tuple[int, ...]
    shape: Shape


@dataclass(frozen=True)
class IndexPlan:
    """How ``a[key]`` is formed from ``a``'s memory.

    ``offset``, ``shape`` and ``strides`` describe the view left by the basic part of the key
    (ints, slices, newaxis), in key order. With no ``advanced`` entries that view is the result.
    Otherwise the result has shape ``result_shape``: the view's axes with the broadcast
    ``index_shape`` inserted at ``insert_at``, and element ``out[pre, idx, post]`` is read at
    ``offset + view(pre, post) + sum(entry.index[idx] * entry.stride)`` over ``advanced``.
    """

    offset: int
    shape: Shape
    strides: Strides
    advanced: tuple[AdvancedIndex, ...] = ()
    index_shape: Shape = ()
    insert_at: int = 0

    @property
    def is_view(self) -> bool:
        """True when the key is basic, so the result is a view of the array."""
        return not self.advanced

    @property
    def result_shape(self) -> Shape:
        """The shape of ``a[key]``."""
        if self.is_view:
            return self.shape
        at = self.insert_at
        return self.shape[:at] + self.index_shape + self.shape[at:]


def classify_index_item(item: Any) -> tuple[str, Any]:
    """The kind of one item of an indexing key, and its value in a normalized form.

    Kinds: ``int`` (Python and NumPy integers, 0-d integer arrays; value an int), ``slice``,
    ``newaxis``, ``ellipsis``, ``array`` (an integer array of dimension >= 1; lists become NumPy
    arrays) and ``mask`` (a boolean array, or a Python/NumPy bool as a 0-d mask). Device arrays
    are classified by their ``dtype`` and ``shape`` and returned as they are. Anything else
    raises NumPy's :exc:`IndexError`.
    """
    if item is None:
        return "newaxis", None
    if item is Ellipsis:
        return "ellipsis", None
    if isinstance(item, slice):
        return "slice", item
    if isinstance(item, (bool, np.bool_)):
        return "mask", np.bool_(item)
    if isinstance(item, (list, tuple)):
        item = np.asarray(item) if len(item) else np.zeros(0, dtype=np.intp)
    dtype = getattr(item, "dtype", None)
    if dtype is not None and hasattr(item, "shape") and (item.shape or not np.isscalar(item)):
        kind = np.dtype(dtype).kind
        if kind == "b":
            return "mask", item
        if kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        if len(item.shape) == 0:
            return "int", operator.index(item)
        return "array", item
    try:
        return "int", operator.index(item)
    except TypeError:
        raise IndexError(_INVALID) from None


def _expand(key: Any, ndim: int) -> list[tuple[str, Any]]:
    """Classify the items of ``key`` and replace its Ellipsis (or the end) by full slices."""
    items = [classify_index_item(k) for k in (key if isinstance(key, tuple) else (key,))]
    ellipses = [i for i, (kind, _) in enumerate(items) if kind == "ellipsis"]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(
        1 if kind in ("int", "slice", "array") else (np.ndim(v) if kind == "mask" else 0)
        for kind, v in items
    )
    if used > ndim:
        raise IndexError(
            f"too many indices for array: array is {ndim}-dimensional, but {used} were indexed"
        )
    fill = [("slice", slice(None))] * (ndim - used)
    if ellipses:
        # The Ellipsis stays as a marker: even when it stands for no axis, NumPy counts it as
        # separating the advanced indices on either side.
        at = ellipses[0] + 1
        return items[:at] + fill + items[at:]
    return items + fill


def _count_true(mask: Any) -> int:
    return int(np.count_nonzero(np.asarray(mask)))


def index_plan(
    shape: Sequence[int],
    strides: Sequence[int],
    key: Any,
    count_true: Callable[[Any], int] = _count_true,
) -> IndexPlan:
    """Resolve ``a[key]`` for an array of ``shape`` and byte ``strides`` with NumPy's rules.

    Raises :exc:`IndexError` with NumPy's messages for out-of-range integers, too many indices,
    several ellipses, boolean masks of the wrong shape and invalid index types. ``count_true``
    counts the true elements of a mask (pass one that works on device arrays).
    """
    items = _expand(key, len(shape))
    offset, axis = 0, 0
    out_shape: list[int] = []
    out_strides: list[int] = []
    advanced: list[AdvancedIndex] = []
    positions: list[int] = []  # key positions of advanced items (ints too, for adjacency)
    insert_at = None
    for pos, (kind, value) in enumerate(items):
        if kind == "ellipsis":
            continue
        if kind == "newaxis":
            out_shape.append(1)
            out_strides.append(0)
            continue
        if kind == "slice":
            n = shape[axis]
            start, stop, step = value.indices(n)
            length = len(range(start, stop, step))
            offset += start * strides[axis] if length else 0
            out_shape.append(length)
            out_strides.append(strides[axis] * step)
            axis += 1
            continue
        positions.append(pos)
        if insert_at is None:
            insert_at = len(out_shape)
        if kind == "int":
            offset += normalize_index(value, axis, shape[axis]) * strides[axis]
            axis += 1
            continue
        width = 1 if kind == "array" else np.ndim(value)
        axes = tuple(range(axis, axis + width))
        lengths = tuple(shape[a] for a in axes)
        if kind == "mask":
            check_mask_shape(tuple(np.shape(value)), lengths, axis)
            contributes: Shape = (count_true(value),)
        else:
            contributes = tuple(value.shape)
        advanced.append(
            AdvancedIndex(
                value, kind == "mask", axes, lengths, tuple(strides[a] for a in axes), contributes
            )
        )
        axis += width
    if not advanced:
        return IndexPlan(offset, tuple(out_shape), tuple(out_strides))
    shapes = [a.shape for a in advanced]
    try:
        index_shape = broadcast_shapes(*shapes)
    except ValueError:
        # NumPy lists a mask once per axis it covers (as the coordinate arrays of its nonzero).
        listed = " ".join(shape_text(a.shape) for a in advanced for _ in range(len(a.axes) or 1))
        raise IndexError(
            f"shape mismatch: indexing arrays could not be broadcast together with shapes {listed}"
        ) from None
    adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
    return IndexPlan(
        offset,
        tuple(out_shape),
        tuple(out_strides),
        tuple(advanced),
        index_shape,
        insert_at if adjacent else 0,
    )


def normalize_index(index: int, axis: int, length: int) -> int:
    """An integer index into an axis of ``length``, negatives from the end, checked like NumPy."""
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of bounds for axis {axis} with size {length}")
    return index % length


def check_index_bounds(values: np.ndarray, axis: int, length: int) -> None:
    """Raise NumPy's :exc:`IndexError` if an integer of ``values`` is outside [-length, length)."""
    values = np.asarray(values)
    bad = (values < -length) | (values >= length)
    if bad.any():
        normalize_index(int(values[bad].flat[0]), axis, length)


def check_mask_shape(mask_shape: Sequence[int], lengths: Sequence[int], axis: int) -> None:
    """Raise NumPy's :exc:`IndexError` unless a boolean mask matches the axes it indexes.

    As in NumPy, a mask axis of length 0 is accepted against any length (it selects nothing).
    """
    for k, (m, n) in enumerate(zip(mask_shape, lengths, strict=True)):
        if m not in (n, 0):
            raise IndexError(
                f"boolean index did not match indexed array along axis {axis + k}; size of axis "
                f"is {n} but size of corresponding boolean axis is {m}"
            )
