"""CUDA arrays from NumPy arrays and GPUArrays, and binding them to texture references.

    import pycuda.driver as drv
    ary = drv.np_to_array(numpy.random.rand(32, 64).astype(numpy.float32), "C")
    drv.bind_array_to_texref(ary, mod.get_texref("tex"))

Orders: ``"C"`` reads a (rows, cols[, ...]) C-ordered array as a texture of width ``cols``;
``"F"`` reads a (width, height[, depth]) array in Fortran order, x first. float64 travels as
two 32-bit channels (``fp_tex_double``), complex64 as two and complex128 as four
(``fp_tex_cfloat``/``fp_tex_cdouble``, see pycuda-helpers.hpp).
"""

from __future__ import annotations

import atexit
import functools
from typing import Any

from pycuda import _driver
from pycuda._arg_checks import require, require_str
from pycuda._enums import address_mode, array3d_flags, array_format, filter_mode
from pycuda._lazy_import import lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)

# The references of modules still loaded at exit hold arrays and memory owners: release them
# while Python and the driver still can (core/texture_reference.hpp, "Lifetime").
atexit.register(_driver._forget_texture_references)


@functools.cache
def _formats() -> dict[np.dtype, array_format]:
    """The array format of each dtype a texel can be (built at first use: NumPy is lazy)."""
    return {
        np.dtype(np.uint8): array_format.UNSIGNED_INT8,
        np.dtype(np.uint16): array_format.UNSIGNED_INT16,
        np.dtype(np.uint32): array_format.UNSIGNED_INT32,
        np.dtype(np.int8): array_format.SIGNED_INT8,
        np.dtype(np.int16): array_format.SIGNED_INT16,
        np.dtype(np.int32): array_format.SIGNED_INT32,
        np.dtype(np.float16): array_format.HALF,
        np.dtype(np.float32): array_format.FLOAT,
    }


@functools.cache
def _word_hacks() -> dict[np.dtype, tuple[array_format, int]]:
    """dtypes whose elements travel as several 32-bit integer channels."""
    return {
        np.dtype(np.float64): (array_format.SIGNED_INT32, 2),
        np.dtype(np.complex64): (array_format.SIGNED_INT32, 2),
        np.dtype(np.complex128): (array_format.SIGNED_INT32, 4),
    }


def dtype_to_array_format(dtype: Any) -> array_format:
    """The ``array_format`` holding elements of ``dtype`` (8/16/32-bit integers, float16,
    float32); TypeError for any other dtype."""
    dtype = np.dtype(dtype)
    try:
        return _formats()[dtype]
    except KeyError:
        raise TypeError(
            f"cannot convert dtype '{dtype}' to an array format: textures hold (u)int8/16/32, "
            "float16 and float32 (float64 and complex through allow_double_hack / "
            "np_to_array, as fp_tex_double/fp_tex_cfloat/fp_tex_cdouble)"
        ) from None


def _texel(dtype: np.dtype, allow_hacks: bool) -> tuple[array_format, int]:
    if allow_hacks and dtype in _word_hacks():
        return _word_hacks()[dtype]
    return dtype_to_array_format(dtype), 1


def _check_order(order: str) -> str:
    order = require_str(order, "order").upper()
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', got {order!r}")
    return order


def _width_height_depth(shape: tuple[int, ...], order: str) -> tuple[int, int, int]:
    """(width, height, depth) of a 2D or 3D array in texels (depth 0 for 2D)."""
    if len(shape) not in (2, 3):
        raise ValueError(f"CUDA arrays from 2D or 3D arrays only, got shape {shape}")
    dims = tuple(shape) if order == "F" else tuple(reversed(shape))
    return dims[0], dims[1], dims[2] if len(dims) == 3 else 0


def _host_layout(array: np.ndarray, order: str) -> np.ndarray:
    return np.ascontiguousarray(array) if order == "C" else np.asfortranarray(array)


def matrix_to_array(matrix: np.ndarray, order: str = "F", allow_double_hack: bool = False) -> Any:
    """A 2D ``Array`` holding ``matrix`` (C order: (rows, cols); F order: (width, height)).

    With ``allow_double_hack``, float64 becomes two SIGNED_INT32 channels."""
    order = _check_order(order)
    matrix = np.asarray(matrix)
    if matrix.ndim != 2:
        raise ValueError(f"matrix_to_array: a 2D array is needed, got shape {matrix.shape}")
    fmt, channels = _texel(matrix.dtype, allow_double_hack and matrix.dtype == np.float64)
    width, height, _ = _width_height_depth(matrix.shape, order)
    descr = _driver.ArrayDescriptor()
    descr.width, descr.height, descr.format, descr.num_channels = width, height, fmt, channels
    ary = _driver.Array(descr)
    _copy_2d(_host_layout(matrix, order), ary, width * matrix.dtype.itemsize, height, host=True)
    return ary


def _copy_2d(src: Any, ary: Any, row_bytes: int, height: int, host: bool) -> None:
    copy = _driver.Memcpy2D()
    if host:
        copy.set_src_host(src)
    else:
        copy.set_src_device(src)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = row_bytes
    copy.height = height
    copy(True)


def _copy_3d(src: Any, ary: Any, row_bytes: int, height: int, depth: int, host: bool) -> None:
    copy = _driver.Memcpy3D()
    if host:
        copy.set_src_host(src)
    else:
        copy.set_src_device(src)
    copy.set_dst_array(ary)
    copy.width_in_bytes = copy.src_pitch = row_bytes
    copy.src_height = copy.height = height
    copy.depth = depth
    copy()


def _array_like(shape: tuple[int, ...], dtype: np.dtype, order: str, surface: bool) -> Any:
    """An Array for a 2D or 3D array: layered and surface-bindable when ``surface``."""
    width, height, depth = _width_height_depth(shape, order)
    fmt, channels = _texel(dtype, True)
    if depth == 0 and not surface:
        descr = _driver.ArrayDescriptor()
    else:
        descr = _driver.ArrayDescriptor3D()
        descr.depth = max(depth, 1)
        if surface:
            descr.flags = array3d_flags.SURFACE_LDST | (array3d_flags.LAYERED if depth == 0 else 0)
    descr.width, descr.height, descr.format, descr.num_channels = width, height, fmt, channels
    return _driver.Array(descr)


def np_to_array(nparray: np.ndarray, order: str, allowSurfaceBind: bool = False) -> Any:  # noqa: N803
    """An ``Array`` holding a 2D or 3D NumPy array (float64 and complex as 32-bit words).

    With ``allowSurfaceBind`` the array is made with SURFACE_LDST (a 2D one as a one-layer
    layered array, as the original did)."""
    order = _check_order(order)
    nparray = _host_layout(np.asarray(nparray), order)
    ary = _array_like(nparray.shape, nparray.dtype, order, allowSurfaceBind)
    width, height, depth = _width_height_depth(nparray.shape, order)
    row_bytes = width * nparray.dtype.itemsize
    if depth == 0 and not allowSurfaceBind:
        _copy_2d(nparray, ary, row_bytes, height, host=True)
    else:
        _copy_3d(nparray, ary, row_bytes, height, max(depth, 1), host=True)
    return ary


def contiguous_order(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> str:
    """The orders ("C", "F", both or neither) in which (shape, strides) is contiguous."""

    def dense(dims: list[int], steps: list[int]) -> bool:
        expected = itemsize
        for n, s in zip(dims, steps, strict=True):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True

    c = dense(list(reversed(shape)), list(reversed(strides)))
    f = dense(list(shape), list(strides))
    return ("C" if c else "") + ("F" if f else "")


def gpuarray_to_array(gpuarray: Any, order: str, allowSurfaceBind: bool = False) -> Any:  # noqa: N803
    """As ``np_to_array``, from a contiguous GPUArray (copied on the device)."""
    order = _check_order(order)
    require(gpuarray, "shape dtype strides gpudata", "gpuarray_to_array", "a GPUArray")
    shape, dtype = tuple(gpuarray.shape), np.dtype(gpuarray.dtype)
    if order not in contiguous_order(shape, tuple(gpuarray.strides), dtype.itemsize):
        raise ValueError(
            f"gpuarray_to_array: the GPUArray must be {order}-contiguous for order={order!r}"
        )
    ary = _array_like(shape, dtype, order, allowSurfaceBind)
    width, height, depth = _width_height_depth(shape, order)
    row_bytes = width * dtype.itemsize
    if depth == 0 and not allowSurfaceBind:
        _copy_2d(gpuarray.gpudata, ary, row_bytes, height, host=False)
    else:
        _copy_3d(gpuarray.gpudata, ary, row_bytes, height, max(depth, 1), host=False)
    return ary


def make_multichannel_2d_array(ndarray: np.ndarray, order: str) -> Any:
    """A 2D ``Array`` with 1, 2 or 4 channels: shape (rows, cols, channels) for order "C",
    (channels, width, height) for order "F"."""
    order = _check_order(order)
    ndarray = np.asarray(ndarray)
    if ndarray.ndim != 3:
        raise ValueError(f"make_multichannel_2d_array: a 3D array is needed, got {ndarray.shape}")
    if order == "C":
        height, width, channels = ndarray.shape
    else:
        channels, width, height = ndarray.shape
    if channels not in (1, 2, 4):
        raise ValueError(f"make_multichannel_2d_array: 1, 2 or 4 channels, got {channels}")
    descr = _driver.ArrayDescriptor()
    descr.width, descr.height = width, height
    descr.format, descr.num_channels = dtype_to_array_format(ndarray.dtype), channels
    ary = _driver.Array(descr)
    row_bytes = width * channels * ndarray.dtype.itemsize
    _copy_2d(_host_layout(ndarray, order), ary, row_bytes, height, host=True)
    return ary


def bind_array_to_texref(ary: Any, texref: Any) -> None:
    """Bind ``ary`` to ``texref`` with CLAMP addressing and POINT filtering."""
    require(texref, "set_array", "bind_array_to_texref", "a texture reference")
    texref.set_array(ary)
    texref.set_address_mode(0, address_mode.CLAMP)
    texref.set_address_mode(1, address_mode.CLAMP)
    texref.set_filter_mode(filter_mode.POINT)


def matrix_to_texref(matrix: np.ndarray, texref: Any, order: str) -> None:
    """``bind_array_to_texref(matrix_to_array(matrix, order), texref)``."""
    bind_array_to_texref(matrix_to_array(matrix, order), texref)


def memcpy_htoa(ary: Any, index: int, src: Any) -> None:
    """Copy the host buffer ``src`` into the 1D Array ``ary`` from byte ``index`` on."""
    _driver.memcpy_htoa(ary, index, src)


def memcpy_atoh(dest: Any, ary: Any, index: int) -> None:
    """Fill the host buffer ``dest`` from the 1D Array ``ary`` from byte ``index`` on."""
    _driver.memcpy_atoh(dest, ary, index)


py_memcpy_htoa = memcpy_htoa
py_memcpy_atoh = memcpy_atoh

__all__ = [
    "bind_array_to_texref",
    "dtype_to_array_format",
    "gpuarray_to_array",
    "make_multichannel_2d_array",
    "matrix_to_array",
    "matrix_to_texref",
    "memcpy_atoh",
    "memcpy_htoa",
    "np_to_array",
    "py_memcpy_atoh",
    "py_memcpy_htoa",
]
