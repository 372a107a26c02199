"""CUDA C type names of dtypes, both ways: what generated kernels declare for each array dtype.

``dtype_to_ctype`` names the C type a kernel uses for elements of a dtype; ``ctype_to_dtype``
reads the C types users write in ``ElementwiseKernel`` argument lists. Vector types
(``gpuarray.vec``) are added with :func:`register_dtype`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from pycuda._dtype_rules import BFLOAT16

_NAMES: dict[np.dtype, str] = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.int16): "short",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.int32): "int",
    np.dtype(np.uint32): "unsigned int",
    # 'long long' is 64 bits on every CUDA host; 'long' is 32 bits on Windows.
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float16): "__half",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
    np.dtype(np.complex64): "pycuda::complex<float>",
    np.dtype(np.complex128): "pycuda::complex<double>",
}
if BFLOAT16 is not None:
    _NAMES[BFLOAT16] = "__nv_bfloat16"

# Other spellings users write (C, CUDA and PyCUDA's own), read back to dtypes.
_ALIASES: dict[str, np.dtype] = {
    "char": np.dtype(np.int8),
    "signed short": np.dtype(np.int16),
    "short int": np.dtype(np.int16),
    "unsigned short int": np.dtype(np.uint16),
    "unsigned": np.dtype(np.uint32),
    "signed int": np.dtype(np.int32),
    "long": np.dtype(np.int64),
    "long int": np.dtype(np.int64),
    "signed long": np.dtype(np.int64),
    "unsigned long": np.dtype(np.uint64),
    "unsigned long int": np.dtype(np.uint64),
    "long long int": np.dtype(np.int64),
    "unsigned long long int": np.dtype(np.uint64),
    "int8_t": np.dtype(np.int8),
    "uint8_t": np.dtype(np.uint8),
    "int16_t": np.dtype(np.int16),
    "uint16_t": np.dtype(np.uint16),
    "int32_t": np.dtype(np.int32),
    "uint32_t": np.dtype(np.uint32),
    "int64_t": np.dtype(np.int64),
    "uint64_t": np.dtype(np.uint64),
    "size_t": np.dtype(np.uint64),
    "ptrdiff_t": np.dtype(np.int64),
    "half": np.dtype(np.float16),
    "__half": np.dtype(np.float16),
    "complex<float>": np.dtype(np.complex64),
    "complex<double>": np.dtype(np.complex128),
}
if BFLOAT16 is not None:
    _ALIASES["nv_bfloat16"] = BFLOAT16


def register_dtype(dtype: Any, c_name: str, alias_ok: bool = False) -> None:
    """Make ``c_name`` the C type of ``dtype`` (e.g. the struct dtypes of ``gpuarray.vec``).

    Registering a second name for a dtype that already has one is an error unless ``alias_ok``:
    the new name is then only read back, and the dtype keeps its first name.
    """
    dtype = np.dtype(dtype)
    existing = _NAMES.get(dtype)
    if existing is not None and existing != c_name:
        if not alias_ok:
            raise RuntimeError(
                f"dtype {dtype} already has the C name {existing!r}; pass alias_ok=True to also "
                f"accept {c_name!r}"
            )
        _ALIASES[_normalize(c_name)] = dtype
        return
    _NAMES[dtype] = c_name


def dtype_to_ctype(dtype: Any) -> str:
    """The CUDA C type name of elements of ``dtype``, e.g. ``float`` for ``numpy.float32``."""
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{dtype!r} is not a dtype: {exc}") from None
    try:
        return _NAMES[dtype]
    except KeyError:
        raise ValueError(f"unable to map dtype '{dtype}' to a CUDA C type") from None


def _normalize(name: str) -> str:
    """Collapse spaces, and spaces around '<', '>' and ',', so spellings compare equal."""
    name = " ".join(name.split())
    for mark in "<>,":
        name = name.replace(f" {mark}", mark).replace(f"{mark} ", mark)
    return name.removeprefix("const ").removeprefix("volatile ")


def ctype_to_dtype(name: str) -> np.dtype:
    """The dtype of the CUDA C type ``name``: ``float``, ``unsigned int``, ``complex<float>``..."""
    key = _normalize(name)
    for dtype, c_name in _NAMES.items():
        if _normalize(c_name) == key:
            return dtype
    if key in _ALIASES:
        return _ALIASES[key]
    raise ValueError(f"unknown CUDA C type {name!r}: no dtype is registered under that name")
