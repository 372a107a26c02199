"""The cuRAND host library, opened at run time: its version, Sobol direction vectors and
scramble constants.

The original bound these in ``pycuda._driver`` (so ``pycuda.driver`` has them too) and
``pycuda.curandom`` uses them; here both modules import them from this one.

    from pycuda.driver import direction_vector_set, get_curand_version
    get_curand_version()                          # (10, 4, 0), or None without libcurand
    dst = numpy.empty((4, 32), numpy.uint32)
    _get_direction_vectors(direction_vector_set.VECTOR_32, dst, 4)
"""

from __future__ import annotations

import ctypes
import enum
import functools
import glob
import os
from typing import Any

import numpy as np


class CurandLibraryError(RuntimeError):
    """libcurand could not be found or a call into it failed."""


_CURAND_DIMENSIONS = 20000  # dimensions of cuRAND's Joe-Kuo direction-vector sets


class direction_vector_set(enum.IntEnum):  # noqa: N801 - the original's name
    """The direction-vector sets of ``curandGetDirectionVectors32/64``."""

    VECTOR_32 = 101
    SCRAMBLED_VECTOR_32 = 102
    VECTOR_64 = 103
    SCRAMBLED_VECTOR_64 = 104


def _curand_candidates() -> list[str]:
    names = ["libcurand.so.10", "libcurand.so"]
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            for sub in ("lib64", "lib", "targets/x86_64-linux/lib"):
                names += sorted(glob.glob(os.path.join(root, sub, "libcurand.so*")))
    return names


@functools.cache
def _curand_library() -> ctypes.CDLL | None:
    for name in _curand_candidates():
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    return None


def _curand() -> ctypes.CDLL:
    lib = _curand_library()
    if lib is None:
        raise CurandLibraryError(
            "libcurand was not found (tried "
            + ", ".join(_curand_candidates())
            + "); install the CUDA toolkit's cuRAND or set CUDA_HOME"
        )
    return lib


def _check_curand(status: int, call: str) -> None:
    if status != 0:
        raise CurandLibraryError(f"{call} failed with curandStatus_t {status}")


def get_curand_version() -> tuple[int, int, int] | None:
    """cuRAND's version as ``(major, minor, patch)``, or None where libcurand is absent."""
    lib = _curand_library()
    if lib is None:
        return None
    version = ctypes.c_int()
    _check_curand(lib.curandGetVersion(ctypes.byref(version)), "curandGetVersion")
    v = version.value
    return v // 1000, (v % 1000) // 100, v % 100


def _cycled(table: np.ndarray, count: int) -> np.ndarray:
    """``count`` rows of ``table``, from its start again past its end (as the original)."""
    reps = -(-count // table.shape[0]) if count else 0
    return np.concatenate([table] * max(reps, 1))[:count]


def _direction_table(direction: direction_vector_set) -> np.ndarray:
    """All of cuRAND's direction vectors of a set: ``(20000, 32)`` uint32 or ``(20000, 64)``
    uint64."""
    bits = 32 if int(direction) in (101, 102) else 64
    ctype = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64
    pointer = ctypes.POINTER(ctype)()
    getter = getattr(_curand(), f"curandGetDirectionVectors{bits}")
    _check_curand(getter(ctypes.byref(pointer), int(direction)), getter.__name__)
    flat = np.ctypeslib.as_array(pointer, shape=(_CURAND_DIMENSIONS * bits,))
    return flat.reshape(_CURAND_DIMENSIONS, bits).copy()


def _scramble_table(bits: int) -> np.ndarray:
    """All of cuRAND's 32- or 64-bit scramble constants (20000 of them)."""
    ctype = ctypes.c_uint32 if bits == 32 else ctypes.c_uint64
    pointer = ctypes.POINTER(ctype)()
    getter = getattr(_curand(), f"curandGetScrambleConstants{bits}")
    _check_curand(getter(ctypes.byref(pointer)), getter.__name__)
    return np.ctypeslib.as_array(pointer, shape=(_CURAND_DIMENSIONS,)).copy()


def _fill(dst: Any, rows: np.ndarray, what: str) -> None:
    """Write ``rows`` into the host buffer ``dst`` (an ndarray or any writable buffer)."""
    try:
        view = memoryview(dst).cast("B")
    except TypeError:
        raise TypeError(f"{what}: dst must be a writable host buffer (a NumPy array)") from None
    if view.readonly:
        raise TypeError(f"{what}: dst is read-only")
    data = np.ascontiguousarray(rows).view(np.uint8).reshape(-1)
    if view.nbytes < data.size:
        raise ValueError(f"{what}: dst holds {view.nbytes} bytes, {data.size} are needed")
    np.frombuffer(view, dtype=np.uint8)[: data.size] = data


def _get_direction_vectors(set: Any, dst: Any, count: int) -> None:  # noqa: A002 - its name
    """Write ``count`` direction vectors of ``set`` (a ``direction_vector_set``) into ``dst``:
    ``count * 32`` 32-bit words (``count * 64`` 64-bit words for the 64-bit sets), repeating
    cuRAND's 20000 dimensions past their end, as the original's ``_driver`` function."""
    table = _direction_table(direction_vector_set(int(set)))
    _fill(dst, _cycled(table, int(count)), "_get_direction_vectors")


def _get_scramble_constants32(dst: Any, count: int) -> None:
    """Write ``count`` 32-bit scramble constants (cycled past 20000) into ``dst``."""
    _fill(dst, _cycled(_scramble_table(32), int(count)), "_get_scramble_constants32")


def _get_scramble_constants64(dst: Any, count: int) -> None:
    """Write ``count`` 64-bit scramble constants (cycled past 20000) into ``dst``."""
    _fill(dst, _cycled(_scramble_table(64), int(count)), "_get_scramble_constants64")
