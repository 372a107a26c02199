"""pycuda._curand_host: the cuRAND host library (its version, Sobol direction vectors and
scramble constants), opened at run time by core through ``pycuda._driver``.

The original bound these in ``pycuda._driver`` (so ``pycuda.driver`` has them too) and
``pycuda.curandom`` uses them; here both modules import them from this one. Core looks for
libcurand as for NVRTC: ``$PYCUDA_LIBCURAND``, then ``libcurand.so.10``/``libcurand.so`` where
the dynamic loader finds them, then ``lib64/`` of ``$CUDA_HOME``, ``$CUDA_PATH``,
``$CUDA_ROOT`` and ``/usr/local/cuda``.

    from pycuda.driver import direction_vector_set, get_curand_version
    get_curand_version()                          # (10, 4, 0), or None without libcurand
    dst = numpy.empty((4, 32), numpy.uint32)
    _get_direction_vectors(direction_vector_set.VECTOR_32, dst, 4)
"""

from __future__ import annotations

import operator
from typing import Any

from pycuda import _driver
from pycuda._arg_checks import require_array
from pycuda._enums import direction_vector_set  # noqa: F401 - part of this module's API
from pycuda._lazy_import import lazy_module

np = lazy_module("numpy", globals(), "np")  # NumPy at first use (_lazy_import)


class CurandLibraryError(RuntimeError):
    """libcurand could not be found or a call into it failed."""


def curand_available() -> bool:
    """Whether core finds and opens a libcurand (it stays open once opened)."""
    return bool(_driver.curand_available())


def _require_curand() -> None:
    if not curand_available():
        raise CurandLibraryError(
            "libcurand was not found (looked in "
            + _driver.curand_search_description()
            + "); install the CUDA toolkit's cuRAND, or set PYCUDA_LIBCURAND to its file or "
            "CUDA_HOME to the toolkit"
        )


def get_curand_version() -> tuple[int, int, int] | None:
    """cuRAND's version as ``(major, minor, patch)``, or None where libcurand is absent."""
    if not curand_available():
        return None
    try:
        v = _driver.curand_version()
    except RuntimeError as e:  # a curandStatus_t other than success
        raise CurandLibraryError(str(e)) from None
    return v // 1000, (v % 1000) // 100, v % 100


def cycled(table: np.ndarray, count: int) -> np.ndarray:
    """``count`` rows of ``table``, from its start again past its end (as the original)."""
    require_array(table, "cycled")
    if table.ndim == 0 or table.shape[0] == 0:
        raise ValueError(f"cycled needs a table with at least one row, got shape {table.shape}")
    count = operator.index(count)
    if count < 0:
        raise ValueError(f"count must not be negative, got {count}")
    reps = -(-count // table.shape[0])
    # (np.tile: a count past memory is NumPy's MemoryError saying how much, not a list's.)
    return np.tile(table, (max(reps, 1),) + (1,) * (table.ndim - 1))[:count]


def direction_table(direction: direction_vector_set) -> np.ndarray:
    """All of cuRAND's direction vectors of a set: ``(20000, 32)`` uint32 or ``(20000, 64)``
    uint64 (a copy: core's view is libcurand's own read-only table)."""
    _require_curand()
    direction = direction_vector_set(int(direction))
    bits32 = direction in (direction_vector_set.VECTOR_32, direction_vector_set.SCRAMBLED_VECTOR_32)
    get = _driver.curand_direction_vectors32 if bits32 else _driver.curand_direction_vectors64
    try:
        return np.array(get(int(direction)), copy=True)
    except RuntimeError as e:  # a curandStatus_t other than success, or a missing getter
        raise CurandLibraryError(str(e)) from None


def scramble_table(bits: int) -> np.ndarray:
    """All of cuRAND's 32- or 64-bit scramble constants (20000 of them), as a copy."""
    _require_curand()
    get = _driver.curand_scramble_constants32 if bits == 32 else _driver.curand_scramble_constants64
    try:
        return np.array(get(), copy=True)
    except RuntimeError as e:
        raise CurandLibraryError(str(e)) from None


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
    table = direction_table(direction_vector_set(int(set)))
    _fill(dst, cycled(table, int(count)), "_get_direction_vectors")


def _get_scramble_constants32(dst: Any, count: int) -> None:
    """Write ``count`` 32-bit scramble constants (cycled past 20000) into ``dst``."""
    _fill(dst, cycled(scramble_table(32), int(count)), "_get_scramble_constants32")


def _get_scramble_constants64(dst: Any, count: int) -> None:
    """Write ``count`` 64-bit scramble constants (cycled past 20000) into ``dst``."""
    _fill(dst, cycled(scramble_table(64), int(count)), "_get_scramble_constants64")
