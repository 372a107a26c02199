"""pycuda.compyte.dtypes: the registry mapping NumPy dtypes to C type names, and C arguments.

from pycuda.compyte.dtypes import dtype_to_ctype, parse_c_arg_backend
dtype_to_ctype(numpy.uint32)            # 'unsigned int'
get_or_register_dtype("unsigned long")  # dtype('uint64') on Linux
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from pycuda import _dtypes


class TypeNameNotKnown(RuntimeError, ValueError):  # the original's name
    """A C type name that no dtype is registered for."""


class DTypeRegistry:
    """Two-way map between NumPy dtypes and C type names.

    The first name a dtype is registered with is the one dtype_to_ctype returns; further names
    are aliases that only map C names to the dtype (e.g. "unsigned" -> uint32).
    """

    def __init__(self) -> None:
        self.dtype_to_name: dict[np.dtype, str] = {}
        self.name_to_dtype: dict[str, np.dtype] = {}

    def register_dtype(
        self, dtypes: Any, c_names: str | Sequence[str], alias_ok: bool = False
    ) -> None:
        """Register dtype(s) under C name(s); the first name is the canonical one.

        A dtype already known under another canonical name needs ``alias_ok=True``; a C name
        already bound to another dtype is always an error.
        """
        names = [c_names] if isinstance(c_names, str) else list(c_names)
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"C type names must be str, got {type(name).__name__}")
        names = [_normalize(n) for n in names]
        if not names:
            raise ValueError("register_dtype needs at least one C name")
        dtype_list = dtypes if isinstance(dtypes, (list, tuple)) else [dtypes]
        for dtype in (np.dtype(d) for d in dtype_list):
            existing = self.dtype_to_name.get(dtype)
            # Naming a dtype by one of its known names again is no conflict (float16 as "half").
            known = self.name_to_dtype.get(names[0]) == dtype
            if existing is not None and not known and not alias_ok:
                raise RuntimeError(
                    f"dtype {dtype} is already registered as C type '{existing}'; "
                    f"pass alias_ok=True to add {names} as aliases"
                )
            for name in names:
                bound = self.name_to_dtype.get(name)
                if bound is not None and bound != dtype:
                    raise RuntimeError(
                        f"C type name '{name}' is already registered for dtype {bound}, not {dtype}"
                    )
            for name in names:
                self.name_to_dtype[name] = dtype
            self.dtype_to_name.setdefault(dtype, names[0])

    def get_or_register_dtype(self, c_names: str | Sequence[str], dtype: Any = None) -> np.dtype:
        """The dtype for a C name; with ``dtype`` given, register it first if needed."""
        if not isinstance(c_names, (str, list, tuple)):
            raise TypeError(f"C type names: a str or a list of str, got {type(c_names).__name__}")
        names = [c_names] if isinstance(c_names, str) else list(c_names)
        if dtype is None:
            for name in names:
                found = self.name_to_dtype.get(_normalize(name))
                if found is not None:
                    return found
            raise TypeNameNotKnown(
                f"no dtype is registered for C type {names}; register one with "
                "pycuda.tools.get_or_register_dtype(name, dtype)"
            )
        dtype = np.dtype(dtype)
        self.register_dtype(dtype, names, alias_ok=True)
        return dtype

    def dtype_to_ctype(self, dtype: Any) -> str:
        """The C name of a registered dtype (ValueError when there is none)."""
        if dtype is None:
            raise ValueError("dtype may not be None")
        dtype = np.dtype(dtype)
        try:
            return self.dtype_to_name[dtype]
        except KeyError:
            raise ValueError(
                f"unable to map dtype '{dtype}' to a C type; register it with "
                "pycuda.tools.register_dtype(dtype, c_names)"
            ) from None


def _normalize(c_name: str) -> str:
    """One spelling per C type: single spaces, none inside template brackets."""
    if not isinstance(c_name, str):
        raise TypeError(f"a C type name must be a str, got {type(c_name).__name__}")
    name = " ".join(c_name.split())
    return re.sub(r"\s*([<>,])\s*", r"\1", name)


def fill_registry_with_c_types(
    reg: DTypeRegistry, respect_windows: bool = False, include_bool: bool = True
) -> None:
    """Register the C scalar types (and <stdint.h> names) with their NumPy dtypes.

    ``long`` is 64 bits except on Windows when ``respect_windows`` is true (LLP64).
    """
    if include_bool:
        reg.register_dtype(np.bool_, ["bool"])
    reg.register_dtype(np.int8, ["signed char", "char", "int8_t"])
    reg.register_dtype(np.uint8, ["unsigned char", "uint8_t"])
    reg.register_dtype(np.int16, ["short", "signed short", "short int", "int16_t"])
    reg.register_dtype(np.uint16, ["unsigned short", "unsigned short int", "uint16_t"])
    reg.register_dtype(np.int32, ["int", "signed int", "signed", "int32_t"])
    reg.register_dtype(np.uint32, ["unsigned int", "unsigned", "uint32_t"])

    import sys

    long_bits = 32 if respect_windows and sys.platform == "win32" else 64
    long_dtype, ulong_dtype = (np.int64, np.uint64) if long_bits == 64 else (np.int32, np.uint32)
    reg.register_dtype(long_dtype, ["long", "long int", "signed long"], alias_ok=True)
    reg.register_dtype(ulong_dtype, ["unsigned long", "unsigned long int"], alias_ok=True)
    reg.register_dtype(np.int64, ["long long", "long long int", "int64_t"], alias_ok=True)
    reg.register_dtype(
        np.uint64, ["unsigned long long", "unsigned long long int", "uint64_t"], alias_ok=True
    )
    # numpy's intc/longlong are the same dtypes as int32/int64 on Linux; cover the odd platforms.
    for dtype in (np.intc, np.uintc, np.longlong, np.ulonglong):
        if np.dtype(dtype) not in reg.dtype_to_name:
            reg.register_dtype(dtype, [np.dtype(dtype).name])
    reg.register_dtype(np.float32, ["float"])
    reg.register_dtype(np.float64, ["double"])
    # cuda_fp16.h's type; kernels that use it include the header.
    reg.register_dtype(np.float16, ["__half", "half"])


def fill_registry_with_opencl_c_types(reg: DTypeRegistry) -> None:
    """Register OpenCL C's scalar type names (``uchar``, ``ulong``, ``intptr_t``, ...)."""
    for dtype, names in (
        (np.int8, ["char", "signed char"]),
        (np.uint8, ["uchar", "unsigned char"]),
        (np.int16, ["short", "signed short", "signed short int", "short signed int"]),
        (np.uint16, ["ushort", "unsigned short", "unsigned short int", "short unsigned int"]),
        (np.int32, ["int", "signed int"]),
        (np.uint32, ["uint", "unsigned", "unsigned int"]),
        (np.int64, ["long", "long int", "signed long int", "long signed int"]),
        (np.uint64, ["ulong", "unsigned long", "unsigned long int", "long unsigned int"]),
        (np.intp, ["intptr_t"]),
        (np.uintp, ["uintptr_t"]),
        (np.float32, ["float"]),
        (np.float64, ["double"]),
    ):
        reg.get_or_register_dtype(names, dtype)


def fill_registry_with_c99_stdint_types(reg: DTypeRegistry) -> None:
    """Register ``bool`` and the <stdint.h> names (``int8_t`` ... ``uint64_t``,
    ``uintptr_t``), ``float`` and ``double``."""
    reg.get_or_register_dtype("bool", np.bool_)
    for bits in (8, 16, 32, 64):
        reg.get_or_register_dtype(f"int{bits}_t", np.dtype(f"int{bits}"))
        reg.get_or_register_dtype(f"uint{bits}_t", np.dtype(f"uint{bits}"))
    reg.get_or_register_dtype("uintptr_t", np.uintp)
    reg.get_or_register_dtype("float", np.float32)
    reg.get_or_register_dtype("double", np.float64)


def fill_registry_with_c99_complex_types(reg: DTypeRegistry) -> None:
    """Register C99's ``float complex``, ``double complex`` and ``long double complex``."""
    reg.get_or_register_dtype("float complex", np.complex64)
    reg.get_or_register_dtype("double complex", np.complex128)
    reg.get_or_register_dtype("long double complex", np.clongdouble)


def parse_c_arg_backend(
    c_arg: str,
    scalar_arg_factory: Callable[[np.dtype, str], Any],
    vec_arg_factory: Callable[[np.dtype, str], Any],
    name_to_dtype: Callable[[str], np.dtype] | None = None,
) -> Any:
    """Parse one C parameter declaration (``"const float *x"``, ``"unsigned n"``) into an
    argument.

    Pointers (``*`` or ``[]``) become ``vec_arg_factory(dtype, name)``, everything else
    ``scalar_arg_factory(dtype, name)``. Qualifiers (const, volatile, __restrict__) are ignored.
    """
    if name_to_dtype is None:
        name_to_dtype = _default_registry.get_or_register_dtype
    decl = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict)\b", " ", c_arg).strip()
    match = re.fullmatch(r"(?P<type>.*?)(?P<name>[A-Za-z_]\w*)\s*(?P<array>\[\s*\])?", decl)
    if match is None or not match.group("type").strip():
        raise ValueError(f"cannot parse C argument declaration '{c_arg}': expected 'type name'")
    tp = match.group("type").strip()
    is_vector = match.group("array") is not None
    if tp.endswith("*"):
        tp = tp[:-1].rstrip()
        is_vector = True
    if "*" in tp:
        raise ValueError(f"'{c_arg}': pointers to pointers are not supported as kernel arguments")
    try:
        dtype = name_to_dtype(_normalize(tp))
    except TypeNameNotKnown:
        raise TypeNameNotKnown(
            f"unknown C type '{tp}' in argument '{c_arg}'; register it with "
            "pycuda.tools.get_or_register_dtype(name, dtype)"
        ) from None
    factory = vec_arg_factory if is_vector else scalar_arg_factory
    return factory(dtype, match.group("name"))


def _fill_with_table(reg: DTypeRegistry) -> None:
    """Register the dtypes of pycuda's dtype table that the C scalar types leave out (complex,
    bfloat16) under the table's C names, which generated kernels use."""
    for row in _dtypes.rows():
        if row.dtype not in reg.dtype_to_name:
            reg.register_dtype(row.dtype, [row.c_name, *row.aliases])


class _TableRegistry(DTypeRegistry):
    """The default registry: its two maps are those of pycuda's dtype table (``_dtypes``), so
    one registry serves both ``pycuda.tools`` and the kernels GPUArray generates, and a struct
    registered here gets the table's row that ``take``, ``fill`` and the element-wise kernels
    read."""

    def __init__(self) -> None:
        self.dtype_to_name = _dtypes.REGISTRY_NAMES
        self.name_to_dtype = _dtypes.BY_C_NAME

    def register_dtype(
        self, dtypes: Any, c_names: str | Sequence[str], alias_ok: bool = False
    ) -> None:
        """As ``DTypeRegistry.register_dtype``; a struct dtype also gets its row in the
        table, named by its first C name."""
        super().register_dtype(dtypes, c_names, alias_ok)
        for dtype in dtypes if isinstance(dtypes, (list, tuple)) else [dtypes]:
            dtype = np.dtype(dtype)
            if dtype.kind == "V":
                _dtypes.add_struct(dtype, self.dtype_to_name[dtype])


_default_registry = _TableRegistry()
fill_registry_with_c_types(_default_registry, respect_windows=True)
_fill_with_table(_default_registry)

# The original's module-level registry and its two maps (deprecated there, still used).
TYPE_REGISTRY = _default_registry
DTYPE_TO_NAME = TYPE_REGISTRY.dtype_to_name
NAME_TO_DTYPE = TYPE_REGISTRY.name_to_dtype


def _fill_dtype_registry(respect_windows: bool, include_bool: bool = True) -> None:
    """Fill the default registry with the C types (already done when this module loads)."""
    fill_registry_with_c_types(TYPE_REGISTRY, respect_windows, include_bool)


def register_dtype(dtype: Any, c_names: str | Iterable[str], alias_ok: bool = False) -> None:
    """Register ``dtype`` under the C name(s) ``c_names`` in the default registry."""
    names = c_names if isinstance(c_names, str) else list(c_names)
    _default_registry.register_dtype(dtype, names, alias_ok=alias_ok)


def get_or_register_dtype(c_names: str | Sequence[str], dtype: Any = None) -> np.dtype:
    """The dtype for a C name in the default registry, registering ``dtype`` if given."""
    return _default_registry.get_or_register_dtype(c_names, dtype)


def dtype_to_ctype(dtype: Any) -> str:
    """The C name of ``dtype`` in the default registry."""
    return _default_registry.dtype_to_ctype(dtype)
