"""Host memory helpers of pycuda.driver: numpy arrays on page-locked, aligned, managed or
registered memory. Each array's ``.base`` is the allocation object behind it.

a = drv.pagelocked_empty((1024,), numpy.float32)
a.base.get_device_pointer()  # with mem_flags=drv.host_alloc_flags.DEVICEMAP
"""

from __future__ import annotations

from typing import Any

from pycuda import _driver
from pycuda._arg_checks import require
from pycuda._lazy_import import lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)

__all__ = [
    "pagelocked_empty",
    "pagelocked_zeros",
    "pagelocked_empty_like",
    "pagelocked_zeros_like",
    "aligned_empty",
    "aligned_zeros",
    "aligned_empty_like",
    "aligned_zeros_like",
    "managed_empty",
    "managed_zeros",
    "managed_empty_like",
    "managed_zeros_like",
    "register_host_memory",
]


def _layout(shape: Any, dtype: Any, order: str) -> tuple[tuple[int, ...], np.dtype, int]:
    """Normalized (shape, dtype, nbytes); bad arguments are TypeError/ValueError."""
    if order not in ("C", "F"):
        raise ValueError(f"order must be 'C' or 'F', not {order!r}")
    dtype = np.dtype(dtype)
    if dtype.hasobject:
        # (The memory is raw: NumPy would take its bytes for object pointers, and crash.)
        raise TypeError(f"host memory cannot hold Python objects (dtype {dtype})")
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(n) for n in shape)
    if any(n < 0 for n in shape):
        raise ValueError(f"negative dimensions are not allowed: {shape}")
    nbytes = dtype.itemsize
    for n in shape:
        nbytes *= n
    return shape, dtype, nbytes


def _array_on(memory: Any, shape: tuple[int, ...], dtype: np.dtype, order: str) -> np.ndarray:
    # np.ndarray(buffer=obj) keeps obj itself as .base (np.frombuffer would interpose a
    # memoryview), so a.base is the allocation.
    return np.ndarray(shape, dtype, buffer=memory, order=order)


def _zeroed(array: np.ndarray) -> np.ndarray:
    """`array`, filled with zeros (the *_zeros variants are their *_empty ones, zeroed)."""
    array.fill(0)
    return array


def _like_order(array: np.ndarray, what: str) -> str:
    require(array, "shape dtype flags", what, "a NumPy array")
    return "F" if array.flags.f_contiguous and not array.flags.c_contiguous else "C"


def pagelocked_empty(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """An uninitialized page-locked array (``cuMemHostAlloc``; flags from
    :class:`host_alloc_flags`). Its ``.base`` is a :class:`PagelockedHostAllocation`."""
    shape, dtype, nbytes = _layout(shape, dtype, order)
    return _array_on(_driver._pagelocked_alloc(nbytes, mem_flags), shape, dtype, order)


def pagelocked_zeros(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """As :func:`pagelocked_empty`, filled with zeros."""
    return _zeroed(pagelocked_empty(shape, dtype, order, mem_flags))


def pagelocked_empty_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    """A page-locked array with the shape, dtype and memory order of ``array``."""
    order = _like_order(array, "pagelocked_empty_like")
    return pagelocked_empty(array.shape, array.dtype, order, mem_flags)


def pagelocked_zeros_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    """As :func:`pagelocked_empty_like`, filled with zeros."""
    return _zeroed(pagelocked_empty_like(array, mem_flags))


def aligned_empty(shape: Any, dtype: Any, order: str = "C", alignment: int = 4096) -> np.ndarray:
    """An uninitialized pageable array whose data starts at a multiple of ``alignment`` (a power
    of two). Its ``.base`` is an :class:`AlignedHostAllocation`."""
    if alignment <= 0 or alignment & (alignment - 1):
        raise ValueError(f"alignment must be a power of two, not {alignment}")
    shape, dtype, nbytes = _layout(shape, dtype, order)
    return _array_on(_driver._aligned_alloc(nbytes, alignment), shape, dtype, order)


def aligned_zeros(shape: Any, dtype: Any, order: str = "C", alignment: int = 4096) -> np.ndarray:
    """As :func:`aligned_empty`, filled with zeros."""
    return _zeroed(aligned_empty(shape, dtype, order, alignment))


def aligned_empty_like(array: np.ndarray, alignment: int = 4096) -> np.ndarray:
    """An aligned array with the shape, dtype and memory order of ``array``."""
    order = _like_order(array, "aligned_empty_like")
    return aligned_empty(array.shape, array.dtype, order, alignment)


def aligned_zeros_like(array: np.ndarray, alignment: int = 4096) -> np.ndarray:
    """As :func:`aligned_empty_like`, filled with zeros."""
    return _zeroed(aligned_empty_like(array, alignment))


def managed_empty(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """An uninitialized array in unified memory (``cuMemAllocManaged``; flags from
    :class:`mem_attach_flags`, 0 meaning GLOBAL). Its ``.base`` is a
    :class:`ManagedAllocation`; passed to a kernel, the kernel gets its device pointer.
    Synchronize before touching it from the host while kernels may use it."""
    shape, dtype, nbytes = _layout(shape, dtype, order)
    return _array_on(_driver._managed_alloc(nbytes, mem_flags), shape, dtype, order)


def managed_zeros(shape: Any, dtype: Any, order: str = "C", mem_flags: int = 0) -> np.ndarray:
    """As :func:`managed_empty`, filled with zeros."""
    return _zeroed(managed_empty(shape, dtype, order, mem_flags))


def managed_empty_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    """A managed array with the shape, dtype and memory order of ``array``."""
    order = _like_order(array, "managed_empty_like")
    return managed_empty(array.shape, array.dtype, order, mem_flags)


def managed_zeros_like(array: np.ndarray, mem_flags: int = 0) -> np.ndarray:
    """As :func:`managed_empty_like`, filled with zeros."""
    return _zeroed(managed_empty_like(array, mem_flags))


def register_host_memory(ary: np.ndarray, flags: int = 0) -> np.ndarray:
    """Page-lock the memory of the contiguous array ``ary`` (``cuMemHostRegister``; flags from
    :class:`mem_host_register_flags`) and return a new array on the same memory whose ``.base``
    is a :class:`RegisteredHostMemory` (whose ``.base`` is ``ary``). The memory stays
    registered until that object is collected or ``unregister()`` is called."""
    if not isinstance(ary, np.ndarray):
        raise TypeError(f"register_host_memory needs a numpy array, not {type(ary).__name__}")
    if not (ary.flags.c_contiguous or ary.flags.f_contiguous):
        raise ValueError("register_host_memory needs a C- or F-contiguous array")
    if ary.dtype.hasobject:
        raise TypeError("register_host_memory: the array holds Python objects (object dtype)")
    registered = _driver._register_host_memory(ary, flags)
    return _array_on(registered, ary.shape, ary.dtype, _like_order(ary, "register_host_memory"))
