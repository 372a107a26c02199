"""Binding GPUArrays to texture references: what ``GPUArray.bind_to_texref`` and
``bind_to_texref_ext`` delegate to.

    offset = bind_gpuarray_to_texref(x_gpu, mod.get_texref("tex"), allow_offset=False)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda import _driver
from pycuda._enums import TRSF_READ_AS_INTEGER, array_format
from pycuda._textures import contiguous_order, dtype_to_array_format

# dtype -> (format, channels per element) of the double and complex hacks.
_DOUBLE_HACK = {np.dtype(np.float64): (array_format.SIGNED_INT32, 2)}
_COMPLEX_HACK = {
    np.dtype(np.complex64): (array_format.UNSIGNED_INT32, 2),
    np.dtype(np.complex128): (array_format.SIGNED_INT32, 4),
}


def _check_contiguous(ary: Any, texref: Any, what: str) -> np.dtype:
    if not isinstance(texref, _driver.TextureReference):
        raise TypeError(
            f"{what} takes a texture reference (Module.get_texref), got {type(texref).__name__}"
        )
    dtype = np.dtype(ary.dtype)
    if not contiguous_order(tuple(ary.shape), tuple(ary.strides), dtype.itemsize):
        raise ValueError("only contiguous arrays may be bound to a texture reference")
    return dtype


def bind_gpuarray_to_texref_plain(ary: Any, texref: Any, allow_offset: bool = False) -> int:
    """``GPUArray.bind_to_texref``: bind the memory alone (the format stays the reference's:
    its declaration's element type, or what set_format gave). Returns the offset in elements."""
    dtype = _check_contiguous(ary, texref, "bind_to_texref")
    return texref.set_address(ary.gpudata, ary.nbytes, allow_offset) // dtype.itemsize


def bind_gpuarray_to_texref(
    ary: Any,
    texref: Any,
    allow_offset: bool = False,
    channels: int = 1,
    allow_double_hack: bool = False,
    allow_complex_hack: bool = False,
) -> int:
    """``GPUArray.bind_to_texref_ext``: bind the memory with the format of its dtype.

    ``channels`` elements make one texel. float64 (``allow_double_hack``) is read as
    ``fp_tex_double`` (int2), complex64/complex128 (``allow_complex_hack``) as
    ``fp_tex_cfloat``/``fp_tex_cdouble``; integer data is read as integers. Returns the
    offset in elements that kernels must add (0 unless ``allow_offset``)."""
    dtype = _check_contiguous(ary, texref, "bind_to_texref_ext")
    hack = (_DOUBLE_HACK if allow_double_hack else {}) | (
        _COMPLEX_HACK if allow_complex_hack else {}
    )
    if dtype in hack:
        if channels != 1:
            raise ValueError(f"'fake' {dtype} textures can only have one channel")
        fmt, channels = hack[dtype]
        read_as_int = True
    else:
        if channels not in (1, 2, 4):
            raise ValueError(f"channels must be 1, 2 or 4, got {channels}")
        fmt = dtype_to_array_format(dtype)
        read_as_int = np.issubdtype(dtype, np.integer)
    flags = texref.get_flags()
    flags = flags | TRSF_READ_AS_INTEGER if read_as_int else flags & ~TRSF_READ_AS_INTEGER
    offset = texref._bind_linear(ary.gpudata, ary.nbytes, allow_offset, fmt, channels, flags)
    return offset // dtype.itemsize
