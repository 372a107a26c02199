"""python/pycuda/_dtypes.py: the one table of dtype facts that every kernel generator asks.

A :class:`DtypeInfo` row per dtype: the 14 NumPy dtypes GPUArray supports, bfloat16 where
ml_dtypes is installed, and the vector types of ``gpuarray.vec`` (plus structs registered with
:func:`register`), each with its C name, the dtype kernels compute and add up in, NumPy's sum
dtype, the headers a kernel must include, how a scalar travels to a kernel, its prepare() format
code and its DLPack type code. Generators read ``info(dtype).<fact>`` and decide nothing about
a dtype themselves, so a new dtype is one row in :func:`_builtin_rows` plus what
``tests/test_dtypes.py`` then demands (it compiles every generator for every row with NVRTC,
and checks the rows against NumPy, the promotion rules, the argument packer and DLPack).

    from pycuda._dtypes import info
    info(numpy.float16).compute          # dtype('float32'): 16-bit floats compute in float
    info(numpy.float16).headers          # ('cuda_fp16.h',)
    info(numpy.int8).sum_dtype           # dtype('int64'), as numpy.sum
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from pycuda._vec import VECTOR_TYPES

# DLPack's DLDataTypeCode values (dlpack.h).
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_COMPLEX, _DL_BOOL = 0, 1, 2, 4, 5, 6


def _bfloat16() -> np.dtype | None:
    try:
        import ml_dtypes
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


BFLOAT16 = _bfloat16()
"""``ml_dtypes.bfloat16`` as a dtype, or None when ml_dtypes is not installed."""

# Rows that exist only with an optional package: its name, for errors that say what to install.
_OPTIONAL = {"bfloat16": "ml_dtypes"}


@dataclass(frozen=True, eq=False)
class DtypeInfo:
    """What kernels need to know about one dtype."""

    dtype: np.dtype
    c_name: str
    """The C type kernels declare elements with (``__half``, ``pycuda::complex<float>``)."""
    kind: str
    """NumPy's kind letter, with bfloat16 (an ml_dtypes 'V' type) counted as 'f'."""
    compute: np.dtype
    """The dtype element-wise kernels compute in for operands of this dtype."""
    accumulator: np.dtype
    """The dtype reductions and scans whose result has this dtype add up in."""
    sum_dtype: np.dtype
    """``numpy.sum``'s result dtype for an array of this dtype (no ``dtype=``)."""
    headers: tuple[str, ...]
    """Headers a kernel using this dtype includes."""
    struct_char: str
    """The prepare() format code of a by-value kernel argument of this dtype."""
    dlpack: tuple[int, int] | None
    """(DLPack type code, bits), or None where DLPack cannot describe the dtype."""
    convert: Callable[[Any], Any]
    """A Python or NumPy scalar as a kernel operand of this dtype takes it: in the compute
    dtype (16-bit floats rounded to 16 bits first, then sent as float32)."""
    via_float: tuple[str, str, str] | None = None
    """For a storage type that converts through float: its C functions (to float, from float,
    from double), which ``_array_kernels`` writes its casts with."""
    aliases: tuple[str, ...] = ()
    """Other C spellings that read back to this dtype (``half``, ``unsigned``, ``int64_t``)."""
    arithmetic: bool = True
    """False for the vector and struct types: they have a C name and a format, no arithmetic."""

    @property
    def compute_c_name(self) -> str:
        """The C type of :attr:`compute`."""
        return info(self.compute).c_name

    @property
    def accumulator_c_name(self) -> str:
        """The C type of :attr:`accumulator`."""
        return info(self.accumulator).c_name

    @property
    def scalar_format(self) -> str:
        """The prepare() format code of a scalar operand of this dtype (sent in the compute
        dtype, see :attr:`convert`)."""
        return info(self.compute).struct_char


def _numpy_sum(dtype: np.dtype) -> np.dtype:
    """numpy.sum's widening: bool and signed integers narrower than 64 bits to int64, unsigned
    ones to uint64; other dtypes keep theirs."""
    if dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < 8):
        return np.dtype(np.int64)
    if dtype.kind == "u" and dtype.itemsize < 8:
        return np.dtype(np.uint64)
    return dtype


def _number(t: Any, c_name: str, struct_char: str, dl_code: int, *aliases: str,
            headers: tuple[str, ...] = ()) -> DtypeInfo:  # fmt: skip
    """A dtype kernels store, compute and add up in as itself."""
    dtype = np.dtype(t)
    return DtypeInfo(
        dtype, c_name, dtype.kind, dtype, dtype, _numpy_sum(dtype), headers, struct_char,
        (dl_code, 8 * dtype.itemsize), dtype.type, None, aliases,
    )  # fmt: skip


def _through_float(
    dtype: np.dtype, c_name: str, struct_char: str, dl_code: int,
    via_float: tuple[str, str, str], header: str, *aliases: str,
) -> DtypeInfo:  # fmt: skip
    """A narrow float stored as itself and computed and added up in float32 (its arithmetic in
    CUDA is float's anyway, and float32 sums keep the 16-bit result exact to rounding)."""
    float32 = np.dtype(np.float32)
    to_storage = dtype.type

    def convert(value: Any) -> np.float32:
        return np.float32(to_storage(value))  # one rounding to the 16-bit value, as NumPy's

    convert.__name__ = convert.__qualname__ = f"{dtype.name}_scalar"
    return DtypeInfo(
        dtype, c_name, "f", float32, float32, dtype, (header,), struct_char,
        (dl_code, 8 * dtype.itemsize), convert, via_float, aliases,
    )  # fmt: skip


def _builtin_rows() -> list[DtypeInfo]:
    """The dtypes GPUArray supports, in the order tests and docs list them."""
    rows = [
        _number(np.bool_, "bool", "?", _DL_BOOL),
        _number(np.int8, "signed char", "b", _DL_INT, "char", "int8_t"),
        _number(np.int16, "short", "h", _DL_INT, "signed short", "short int", "int16_t"),
        _number(np.int32, "int", "i", _DL_INT, "signed int", "int32_t"),
        # 'long long' is 64 bits on every CUDA host; 'long' is 32 bits on Windows.
        _number(np.int64, "long long", "q", _DL_INT, "long", "long int", "signed long",
                "long long int", "int64_t", "ptrdiff_t"),
        _number(np.uint8, "unsigned char", "B", _DL_UINT, "uint8_t"),
        _number(np.uint16, "unsigned short", "H", _DL_UINT, "unsigned short int", "uint16_t"),
        _number(np.uint32, "unsigned int", "I", _DL_UINT, "unsigned", "uint32_t"),
        _number(np.uint64, "unsigned long long", "Q", _DL_UINT, "unsigned long",
                "unsigned long int", "unsigned long long int", "uint64_t", "size_t"),
        _through_float(np.dtype(np.float16), "__half", "e", _DL_FLOAT,
                       ("__half2float", "__float2half_rn", "__double2half"), "cuda_fp16.h",
                       "half"),
        _number(np.float32, "float", "f", _DL_FLOAT),
        _number(np.float64, "double", "d", _DL_FLOAT),
        _number(np.complex64, "pycuda::complex<float>", "F", _DL_COMPLEX, "complex<float>",
                headers=("pycuda-complex.hpp",)),
        _number(np.complex128, "pycuda::complex<double>", "D", _DL_COMPLEX, "complex<double>",
                headers=("pycuda-complex.hpp",)),
    ]  # fmt: skip
    if BFLOAT16 is not None:
        # The argument packer has no bfloat16 code: a by-value bfloat16 travels as its 2 bytes.
        bfloat16 = _through_float(
            BFLOAT16, "__nv_bfloat16", "2s", _DL_BFLOAT,
            ("__bfloat162float", "__float2bfloat16_rn", "__double2bfloat16"), "cuda_bf16.h",
            "nv_bfloat16",
        )  # fmt: skip
        rows.append(bfloat16)
    return rows


def _struct_row(dtype: np.dtype, c_name: str) -> DtypeInfo:
    """A vector or struct type: named and passed by value as its bytes, no arithmetic."""

    def convert(value: Any) -> bytes:
        return np.asarray(value, dtype=dtype).tobytes()

    return DtypeInfo(
        dtype, c_name, dtype.kind, dtype, dtype, dtype, (), f"{dtype.itemsize}s", None, convert,
        arithmetic=False,
    )  # fmt: skip


_ROWS: dict[np.dtype, DtypeInfo] = {row.dtype: row for row in _builtin_rows()}
SUPPORTED_DTYPES: tuple[np.dtype, ...] = tuple(_ROWS)
"""The dtypes GPUArray supports; bfloat16 comes last, where ml_dtypes is installed."""
# The one registry of C type names; pycuda.tools' registry (compyte's default DTypeRegistry)
# reads and writes these same two dicts, so a type registered there is one kernels know.
BY_C_NAME: dict[str, np.dtype] = {}
"""C spelling (normalized) -> dtype: every name users write in kernel argument lists."""
REGISTRY_NAMES: dict[np.dtype, str] = {}
"""dtype -> the name ``pycuda.tools.dtype_to_ctype`` gives it: the first it was registered
under, which for the built-in types is the original's (``long`` for int64, where the rows say
``long long``, which kernels declare)."""
_BY_C_NAME = BY_C_NAME


def _normalize(name: str) -> str:
    """Collapse spaces, and spaces around '<', '>' and ',', so spellings compare equal."""
    name = " ".join(name.split())
    for mark in "<>,":
        name = name.replace(f" {mark}", mark).replace(f"{mark} ", mark)
    return name.removeprefix("const ").removeprefix("volatile ")


for _row in _ROWS.values():
    for _name in (_row.c_name, *_row.aliases):
        _BY_C_NAME[_normalize(_name)] = _row.dtype


def register(dtype: Any, c_name: str, alias_ok: bool = False) -> DtypeInfo:
    """Make ``c_name`` the C type of the struct ``dtype`` (a row without arithmetic).

    Registering a second name for a dtype that already has one is an error unless ``alias_ok``
    (or the name already reads back to it): the new name is then only read back, and the dtype
    keeps its first name. A name that reads back to another dtype is an error.
    """
    dtype = np.dtype(dtype)
    name = _normalize(c_name)
    bound = BY_C_NAME.get(name)
    if bound is not None and bound != dtype:
        raise RuntimeError(f"C type name {c_name!r} is already registered for dtype {bound}")
    row = _ROWS.get(dtype)
    if row is not None and row.c_name != c_name and bound is None and not alias_ok:
        raise RuntimeError(
            f"dtype {dtype} already has the C name {row.c_name!r}; pass alias_ok=True to "
            f"also accept {c_name!r}"
        )
    BY_C_NAME[name] = dtype
    REGISTRY_NAMES.setdefault(dtype, c_name)
    return row if row is not None else add_struct(dtype, c_name)


def add_struct(dtype: np.dtype, c_name: str) -> DtypeInfo:
    """The row of ``dtype``, made for a struct (a structured or void dtype) named ``c_name``
    when there is none: what makes a struct registered by either entry point usable in
    generated kernels. Other dtypes the table lacks (``long double``) get no row: kernels
    cannot compute with them."""
    row = _ROWS.get(dtype)
    if row is None and dtype.kind == "V":
        row = _ROWS[dtype] = _struct_row(dtype, c_name)
    if row is None:
        raise ValueError(f"unable to map dtype '{dtype}' to a CUDA C type")
    return row


# CUDA's vector types (float3, int4, ...); where two share a layout the first is the name.
for _name, _dtype in VECTOR_TYPES.items():
    register(_dtype, _name, alias_ok=True)
del _row, _name, _dtype


def find(dtype: Any) -> DtypeInfo | None:
    """The row of ``dtype``, or None for a dtype the table does not know."""
    row = _ROWS.get(dtype)  # a np.dtype hashes as itself: no conversion on the common path
    if row is None and not isinstance(dtype, np.dtype):
        try:
            row = _ROWS.get(np.dtype(dtype))
        except TypeError:
            return None
    return row


def info(dtype: Any) -> DtypeInfo:
    """The row of ``dtype``: TypeError for what is no dtype, ValueError for one not in the
    table."""
    row = _ROWS.get(dtype)
    if row is not None:
        return row
    try:
        dtype = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"{dtype!r} is not a dtype: {exc}") from None
    row = _ROWS.get(dtype)
    if row is None:
        raise ValueError(f"unable to map dtype '{dtype}' to a CUDA C type")
    return row


def rows() -> tuple[DtypeInfo, ...]:
    """The rows of :data:`SUPPORTED_DTYPES`, in its order."""
    return tuple(_ROWS[d] for d in SUPPORTED_DTYPES)


def kind_of(dtype: Any) -> str:
    """NumPy's kind letter of ``dtype``, with bfloat16 counted as 'f'."""
    row = find(dtype)
    return np.dtype(dtype).kind if row is None else row.kind


def from_c_name(name: str) -> np.dtype:
    """The dtype of the CUDA C type ``name``: ``float``, ``unsigned int``, ``complex<float>``..."""
    dtype = _BY_C_NAME.get(_normalize(name))
    if dtype is None:
        raise ValueError(f"unknown CUDA C type {name!r}: no dtype is registered under that name")
    return dtype


def from_name(name: str) -> np.dtype:
    """The supported dtype NumPy names ``name`` (``"float32"``, ``"bfloat16"``)."""
    for dtype in SUPPORTED_DTYPES:
        if dtype.name == name:
            return dtype
    if name in _OPTIONAL:
        raise TypeError(f"a {name} array needs the {_OPTIONAL[name]} package")
    raise TypeError(f"{name!r} is not a dtype GPUArray supports")


# {{{ what kernels include


def _mentions(text: str) -> list[str]:
    """Headers of the rows whose C names (or names starting with them, such as ``__half2``)
    ``text`` uses. Only the rows' own names count: an alias such as ``half`` is also a common
    word, and a user's own ``half`` would clash with cuda_fp16.h's."""
    found = []
    for row in _ROWS.values():
        if row.headers and re.search(r"(?<![\w:])" + re.escape(row.c_name), text):
            found += row.headers
    return found


def includes(dtypes: Iterable[Any], text: str = "", first: Sequence[str] = ()) -> str:
    """``#include`` lines for kernels over ``dtypes`` whose own code is ``text`` (a user's
    preamble): ``first``, then the headers of those dtypes' rows, then those of the rows whose
    C names ``text`` uses, each header once. Dtypes the table does not know need none."""
    wanted = list(first)
    for dtype in dtypes:
        row = find(dtype)
        if row is not None:
            wanted += row.headers
    if text:
        wanted += _mentions(text)
    return "".join(f"#include <{h}>\n" for h in dict.fromkeys(wanted))


# }}}

# {{{ scalars as kernels take them


def scalar_value(value: Any, dtype: Any) -> Any:
    """``value`` as the kernel operand of an array of ``dtype`` takes it: in the compute dtype
    (a float16's rounded to 16 bits, then sent as float32). A Python complex is refused for a
    real dtype, as NumPy does; a NumPy complex keeps its real part, as NumPy's casts do."""
    row = info(dtype)
    if type(value) is complex and row.dtype.kind not in "bcV":
        raise TypeError(f"cannot convert the Python complex {value!r} to {row.dtype}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        return row.convert(value)


def argument_value(value: Any, dtype: Any) -> Any:
    """``value`` as a by-value kernel argument declared of ``dtype`` itself, for the format
    code :attr:`DtypeInfo.struct_char` (bytes for the types the packer has no code for)."""
    dtype = np.dtype(dtype)
    row = find(dtype)
    char = row.struct_char if row is not None else dtype.char
    if char.endswith("s") or dtype.kind == "V":
        return np.asarray(value, dtype=dtype).tobytes()
    if isinstance(value, np.generic) and value.dtype == dtype:
        return value
    return dtype.type(value)


# }}}

# {{{ DLPack


def dlpack_type(dtype: Any) -> tuple[int, int]:
    """(DLPack type code, bits) of ``dtype``; TypeError where DLPack cannot describe it."""
    row = find(dtype)
    if row is None or row.dlpack is None:
        raise TypeError(f"DLPack cannot describe dtype {dtype}")
    return row.dlpack


def from_dlpack(code: int, bits: int) -> np.dtype:
    """The dtype of a DLPack (type code, bits) with one lane; TypeError for one we lack."""
    for row in rows():
        if row.dlpack == (code, bits):
            return row.dtype
    if (code, bits) == (_DL_BFLOAT, 16):
        raise TypeError(f"a bfloat16 DLPack tensor needs the {_OPTIONAL['bfloat16']} package")
    raise TypeError(f"DLPack type (code {code}, {bits} bits) has no dtype here")


# }}}

__all__ = [
    "BFLOAT16",
    "SUPPORTED_DTYPES",
    "DtypeInfo",
    "argument_value",
    "dlpack_type",
    "find",
    "from_c_name",
    "from_dlpack",
    "from_name",
    "add_struct",
    "includes",
    "info",
    "kind_of",
    "register",
    "rows",
    "scalar_value",
]
