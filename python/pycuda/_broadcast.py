"""Broadcasting (NumPy's rules): the common shape of operands, and each operand's strides in it."""

from __future__ import annotations

from collections.abc import Sequence

from pycuda._shape import Shape, Strides


def shape_text(shape: Sequence[int]) -> str:
    """A shape as NumPy's broadcast errors print it: no spaces, ``(4,)`` for one dimension."""
    return "(" + ",".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def broadcast_shapes(*shapes: Sequence[int]) -> Shape:
    """The shape that all ``shapes`` broadcast to, aligning trailing axes.

    Each axis takes the one length other than 1 among the operands (or 1); a second different
    length raises :exc:`ValueError` with NumPy's message, e.g. ``operands could not be broadcast
    together with shapes (2,3) (4,)``.
    """
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for axis, n in enumerate(shape, start=ndim - len(shape)):
            if n == result[axis] or n == 1:
                continue
            if result[axis] != 1:
                listed = " ".join(shape_text(s) for s in shapes)
                raise ValueError(f"operands could not be broadcast together with shapes {listed}")
            result[axis] = n
    return tuple(result)


def broadcast_strides(
    shape: Sequence[int], strides: Sequence[int], target: Sequence[int]
) -> Strides:
    """Strides that read an operand of ``shape``/``strides`` as the broadcast shape ``target``.

    New leading axes and stretched axes of length 1 get stride 0. Raises :exc:`ValueError` when
    ``shape`` does not broadcast to ``target``.
    """
    lead = len(target) - len(shape)
    if lead < 0:
        raise ValueError(
            f"input operand has more dimensions than allowed by the axis remapping: "
            f"cannot broadcast {shape_text(shape)} to {shape_text(target)}"
        )
    result = [0] * len(target)
    for axis, (n, s) in enumerate(zip(shape, strides, strict=True), start=lead):
        if n == target[axis]:
            result[axis] = s
        elif n != 1:
            raise ValueError(
                f"cannot broadcast an operand of shape {shape_text(shape)} "
                f"to shape {shape_text(target)}"
            )
    return tuple(result)


def assignment_strides(
    shape: Sequence[int], strides: Sequence[int], target: Sequence[int]
) -> Strides:
    """Strides that read a value of ``shape``/``strides`` for ``a[key] = value`` into ``target``.

    As :func:`broadcast_strides`, but, as NumPy allows in assignments, the value may have extra
    leading axes of length 1. Raises NumPy's ``could not broadcast input array from shape (2,2,3)
    into shape (2,3)``.
    """
    lead = 0
    while len(shape) - lead > len(target) and shape[lead] == 1:
        lead += 1
    try:
        return broadcast_strides(shape[lead:], strides[lead:], target)
    except ValueError:
        raise ValueError(
            f"could not broadcast input array from shape {shape_text(shape[lead:])} "
            f"into shape {shape_text(target)}"
        ) from None
