"""pycuda._vec: CUDA's vector types (float3, int4, ...) as numpy dtypes; pycuda.gpuarray.vec.

The 42 types of the original: ``{char,uchar,short,ushort,int,uint,long,ulong,float}{1,2,3,4}``
and ``{longlong,ulonglong,double}{1,2}``, with fields ``x, y, z, w`` and CUDA's sizes, and a
``make_<name>(x, y, ...)`` constructor for each that returns a 0-d array, which a kernel takes by
value::

    import numpy as np
    from pycuda.gpuarray import vec

    points = np.zeros(100, dtype=vec.float3)      # 12 bytes each, like CUDA's float3
    origin = vec.make_float4(1, 2, 3, 0)           # pass as a float4 kernel argument
    origin["x"]                                     # array(1., dtype=float32)

numpy cannot express an alignment above that of the fields, so CUDA's (16 for float4 and
double2, 8 for int2, ...) is kept beside each dtype: ``cuda_alignment(dtype)``, also in the
dtype's ``metadata["cuda_alignment"]``. Sizes and field offsets equal CUDA's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["VECTOR_TYPES", "cuda_alignment", "register_vector_types", "vec"]

_FIELDS = ("x", "y", "z", "w")

# (base name, component dtype, component counts). "long" is the C long of this platform (64-bit
# on Linux, 32-bit on Windows), as CUDA's long1..long4 are.
_BASES: list[tuple[str, np.dtype, tuple[int, ...]]] = [
    ("char", np.dtype(np.int8), (1, 2, 3, 4)),
    ("uchar", np.dtype(np.uint8), (1, 2, 3, 4)),
    ("short", np.dtype(np.int16), (1, 2, 3, 4)),
    ("ushort", np.dtype(np.uint16), (1, 2, 3, 4)),
    ("int", np.dtype(np.int32), (1, 2, 3, 4)),
    ("uint", np.dtype(np.uint32), (1, 2, 3, 4)),
    ("long", np.dtype("l"), (1, 2, 3, 4)),
    ("ulong", np.dtype("L"), (1, 2, 3, 4)),
    ("longlong", np.dtype(np.int64), (1, 2)),
    ("ulonglong", np.dtype(np.uint64), (1, 2)),
    ("float", np.dtype(np.float32), (1, 2, 3, 4)),
    ("double", np.dtype(np.float64), (1, 2)),
]


def _cuda_alignment_of(component: np.dtype, count: int) -> int:
    # vector_types.h: 1- and 3-vectors align like one component; 2- and 4-vectors like the
    # whole vector, at most 16 bytes (long4 and ulong4 are 32 bytes aligned to 16).
    if count in (2, 4):
        return min(component.itemsize * count, 16)
    return component.itemsize


def _make_dtype(component: np.dtype, count: int) -> np.dtype:
    return np.dtype(
        [(_FIELDS[i], component) for i in range(count)],
        metadata={"cuda_alignment": _cuda_alignment_of(component, count)},
    )


def _maker(name: str, dtype: np.dtype, count: int) -> Callable[..., np.ndarray]:
    """make_<name>(x, y, ...) with the fields as parameter names, like CUDA's make_float3."""
    if count == 1:

        def make(x: Any) -> np.ndarray:
            return np.array((x,), dtype=dtype)
    elif count == 2:

        def make(x: Any, y: Any) -> np.ndarray:
            return np.array((x, y), dtype=dtype)
    elif count == 3:

        def make(x: Any, y: Any, z: Any) -> np.ndarray:
            return np.array((x, y, z), dtype=dtype)
    else:

        def make(x: Any, y: Any, z: Any, w: Any) -> np.ndarray:
            return np.array((x, y, z, w), dtype=dtype)

    make.__name__ = make.__qualname__ = f"make_{name}"
    fields = ", ".join(_FIELDS[:count])
    make.__doc__ = (
        f"A 0-d array of dtype vec.{name} holding ({fields}); a kernel takes it by value."
    )
    return make


VECTOR_TYPES: dict[str, np.dtype] = {
    f"{base}{count}": _make_dtype(component, count)
    for base, component, counts in _BASES
    for count in counts
}
"""Every vector type by its CUDA name, in the original's registration order."""


class vec:  # noqa: N801 - the original's name
    """CUDA vector types as numpy dtypes (``vec.float3``) and their constructors
    (``vec.make_float3(1, 2, 3)``)."""


for _name, _dtype in VECTOR_TYPES.items():
    setattr(vec, _name, _dtype)
    setattr(vec, f"make_{_name}", staticmethod(_maker(_name, _dtype, len(_dtype.names))))
del _name, _dtype


def cuda_alignment(dtype: Any) -> int:
    """CUDA's alignment of ``dtype`` in bytes: a vector type's own (16 for float4), otherwise
    numpy's, which equals CUDA's for scalars and for structs of scalars."""
    dtype = np.dtype(dtype)
    for known in VECTOR_TYPES.values():
        if dtype == known:
            return known.metadata["cuda_alignment"]
    return dtype.alignment


def register_vector_types(register_dtype: Callable[..., Any]) -> None:
    """Register every vector type with a C-type registry: ``register_dtype(dtype, [name],
    alias_ok=...)``. Where two names share one layout (long2 and longlong2 on 64-bit Linux,
    int2 and long2 on Windows) the first is the canonical name and later ones are aliases."""
    seen: list[np.dtype] = []
    for name, dtype in VECTOR_TYPES.items():
        alias = any(dtype == earlier for earlier in seen)
        register_dtype(dtype, [name], alias_ok=alias)
        seen.append(dtype)
