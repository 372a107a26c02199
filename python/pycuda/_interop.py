"""Zero-copy exchange of device arrays: the CUDA Array Interface (v3) and DLPack.

Pure functions that :class:`pycuda.gpuarray.GPUArray` calls to implement
``__cuda_array_interface__``, ``__dlpack__``, ``__dlpack_device__`` and
``gpuarray.from_dlpack``; they know nothing of GPUArray's internals.

Specifications followed:

* CUDA Array Interface v3: https://numba.readthedocs.io/en/stable/cuda/cuda_array_interface.html
* DLPack Python protocol: https://dmlc.github.io/dlpack/latest/python_spec.html and the Array API
  standard's ``__dlpack__`` (stream, max_version, dl_device, copy).

Streams. Both protocols name CUDA streams by integer: ``1`` is the legacy default stream (where
pycuda work without ``stream=`` runs), ``2`` the per-thread default stream, any other positive
integer a ``CUstream`` handle, and ``0`` is forbidden as ambiguous. The values 1 and 2 are also the
driver's own ``CU_STREAM_LEGACY`` and ``CU_STREAM_PER_THREAD`` handles, so they can be passed to
the driver as they are.

Synchronizing with a stream we did not create. ``pycuda.driver.Stream`` wraps only its own
streams, so a foreign stream cannot be told to wait for an event. The ordering is therefore
established as follows: an event is recorded on the producer's stream (``Event.record`` accepts
any stream handle); if the consumer's stream is a ``pycuda.driver.Stream``, it waits for the event
on the device (no host blocking); otherwise the host waits for the event (``Event.synchronize``),
which is correct for any consumer stream, at the price of blocking until the producer's queued
work is done. No synchronization is done at all when producer and consumer name the same stream.

Example::

    cai = cuda_array_interface(a.shape, a.dtype, a.strides, a.ptr)
    capsule = export_dlpack(a, stream=1, max_version=(1, 0))
    ptr, shape, dtype, strides, holder = import_dlpack(torch_tensor)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from pycuda import _driver, _dtypes
from pycuda._enums import event_flags

#: DLPack device types (DLDeviceType) that we produce or accept.
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13

#: Stream numbers of the protocols (and the driver's CU_STREAM_LEGACY / CU_STREAM_PER_THREAD).
LEGACY_DEFAULT_STREAM = 1
PER_THREAD_DEFAULT_STREAM = 2

#: The DLPack version whose versioned capsules we produce and consume.
DLPACK_VERSION = (1, 0)


# ---------------------------------------------------------------------------------------------
# layout helpers


def c_contiguous_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """Byte strides of a C-contiguous (row-major) array of `shape`."""
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def _is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> bool:
    """True when `strides` address `shape` as C-contiguous (extents of 0 or 1 do not matter)."""
    if math.prod(shape) == 0:
        return True
    expected = c_contiguous_strides(shape, itemsize)
    return all(n == 1 or s == e for n, s, e in zip(shape, strides, expected, strict=True))


def _stream_number(stream: Any) -> int | None:
    """A `stream=` value as the protocols' integer: None stays None (pycuda's default stream is
    returned by the callers as 1), a pycuda Stream or an object with ``__cuda_stream__``/``.ptr``/
    ``.handle``/``.cuda_stream`` becomes its handle, an int stays itself."""
    if stream is None or isinstance(stream, int):
        return stream
    proto = getattr(stream, "__cuda_stream__", None)
    if proto is not None:
        return int(proto()[1])
    for name in ("handle", "ptr", "cuda_stream"):
        value = getattr(stream, name, None)
        if isinstance(value, int):
            return value
    raise TypeError(
        f"stream must be None, an int, a pycuda.driver.Stream or an object with __cuda_stream__, "
        f"got {type(stream).__name__}"
    )


# ---------------------------------------------------------------------------------------------
# CUDA Array Interface


def cuda_array_interface(
    shape: tuple[int, ...],
    dtype: Any,
    strides_bytes: tuple[int, ...] | None,
    ptr: int,
    read_only: bool = False,
    stream_ptr: Any = None,
) -> dict[str, Any]:
    """The ``__cuda_array_interface__`` dict (version 3) of a device array.

    `strides_bytes` are NumPy-style byte strides; they are reported as None when they describe a
    C-contiguous array, as the specification asks. `stream_ptr` is the stream the array's pending
    work was queued on: None (or 0) means pycuda's default stream, the legacy default stream,
    and is exported as 1; a pycuda Stream or a handle is exported as its handle. (Never 0, which
    the specification forbids.) A zero-size array exports a null pointer, as the specification
    asks.

        a.__cuda_array_interface__ == cuda_array_interface(a.shape, a.dtype, a.strides, a.ptr)
    """
    dtype = np.dtype(dtype)
    shape = tuple(int(n) for n in shape)
    strides = None
    if strides_bytes is not None:
        strides = tuple(int(s) for s in strides_bytes)
        if len(strides) != len(shape):
            raise ValueError(f"shape {shape} and strides {strides} differ in length")
        if _is_c_contiguous(shape, strides, dtype.itemsize):
            strides = None
    stream = _stream_number(stream_ptr)
    if not stream:  # None or 0: our default stream is the legacy default stream
        stream = LEGACY_DEFAULT_STREAM
    return {
        "shape": shape,
        "typestr": dtype.str,
        "descr": dtype.descr,
        "data": (0 if math.prod(shape) == 0 else int(ptr), bool(read_only)),
        "strides": strides,
        "version": 3,
        "stream": stream,
    }


def parse_cuda_array_interface(
    obj: Any,
) -> tuple[int, tuple[int, ...], np.dtype, tuple[int, ...], int | None]:
    """Reads an object's ``__cuda_array_interface__`` (or such a dict itself), versions 0 to 3.

    Returns ``(ptr, shape, dtype, strides_bytes, stream)``: strides are always given in bytes
    (computed for C-contiguous arrays, whose interface may say None or omit them), and `stream` is
    None (no synchronization needed) or the producer's stream number (see synchronize_with).
    Masked arrays are refused (ValueError), as is an interface of a version this module does not
    know or with the forbidden stream 0.
    """
    cai = obj if isinstance(obj, dict) else getattr(obj, "__cuda_array_interface__", None)
    if not isinstance(cai, dict):
        raise TypeError(
            f"expected an object with __cuda_array_interface__, got {type(obj).__name__}"
        )
    version = cai.get("version", 0)
    if not isinstance(version, int) or not 0 <= version <= 3:
        raise ValueError(f"unsupported __cuda_array_interface__ version {version!r} (0 to 3)")
    if cai.get("mask") is not None:
        raise ValueError("masked arrays (__cuda_array_interface__ with a mask) are not supported")
    try:
        shape = tuple(int(n) for n in cai["shape"])
        dtype = np.dtype(cai["typestr"])
        ptr, _read_only = cai["data"]
    except KeyError as exc:
        raise ValueError(f"__cuda_array_interface__ lacks the required key {exc}") from None
    strides = cai.get("strides")
    if strides is None:
        strides = c_contiguous_strides(shape, dtype.itemsize)
    else:
        strides = tuple(int(s) for s in strides)
        if len(strides) != len(shape):
            raise ValueError(f"__cuda_array_interface__: shape {shape} and strides {strides}")
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if not isinstance(stream, int) or stream == 0:
            raise ValueError(
                f"__cuda_array_interface__ stream must be None or a nonzero int, got {stream!r}"
            )
    return int(ptr or 0), shape, dtype, strides, stream


class _ForeignStream:
    """A stream handle we did not create, in the form Event.record accepts."""

    def __init__(self, handle: int) -> None:
        self.handle = handle

    def __cuda_stream__(self) -> tuple[int, int]:
        return (0, self.handle)


def _same_stream(producer: int | None, consumer: int | None) -> bool:
    legacy = (None, 0, LEGACY_DEFAULT_STREAM)
    return producer == consumer or (producer in legacy and consumer in legacy)


def synchronize_with(stream: Any, consumer_stream: Any = None) -> None:
    """Orders later work on `consumer_stream` after the work queued on producer `stream`.

    `stream` is what an interface carried: None (nothing to wait for), 1 (legacy default), 2
    (per-thread default) or a stream handle. `consumer_stream` is where the consumer will use the
    data: None (pycuda's default stream, the legacy default stream), a pycuda.driver.Stream, or a
    stream number. When both are the same stream nothing is done; when the consumer is a
    pycuda.driver.Stream it waits for an event recorded on the producer stream, on the device;
    otherwise the host waits for that event (pycuda cannot make a foreign stream wait).
    """
    producer = _stream_number(stream)
    if producer is None:
        return
    if producer == 0:
        raise ValueError("stream 0 is ambiguous and forbidden by the protocols; use 1 or 2")
    ours = consumer_stream if isinstance(consumer_stream, _driver.Stream) else None
    consumer = ours.handle if ours is not None else _stream_number(consumer_stream)
    if _same_stream(producer, consumer):
        return
    event = _driver.Event(int(event_flags.DISABLE_TIMING))
    event.record(_ForeignStream(producer))
    if ours is not None:
        ours.wait_for_event(event)
    else:
        event.synchronize()


# ---------------------------------------------------------------------------------------------
# DLPack


def dlpack_device(device_id: int, managed: bool = False) -> tuple[int, int]:
    """The ``__dlpack_device__`` answer: (kDLCUDA, ordinal), or (kDLCUDAManaged, ordinal)."""
    return (KDL_CUDA_MANAGED if managed else KDL_CUDA, int(device_id))


def current_device_id() -> int:
    """The ordinal of the current context's device (where a new GPUArray's memory lives)."""
    device = _driver.Context.get_device()
    for ordinal in range(_driver.Device.count()):
        if _driver.Device(ordinal) == device:
            return ordinal
    raise RuntimeError("the current context's device is not among the driver's devices")


def _array_pointer(array: Any) -> int:
    ptr = getattr(array, "ptr", None)
    if ptr is None:
        ptr = array.gpudata
    return int(ptr)


def _consumer_stream(stream: Any) -> int | None:
    """The Array API `stream=` of __dlpack__ as a stream number, or None for "do not sync"."""
    if stream is None:  # for CUDA the producer must assume the legacy default stream
        return LEGACY_DEFAULT_STREAM
    if not isinstance(stream, int) or isinstance(stream, bool):
        raise TypeError(f"__dlpack__ stream must be None or an int, got {type(stream).__name__}")
    if stream == -1:  # the consumer asks for no synchronization
        return None
    if stream == 0:
        raise ValueError("__dlpack__(stream=0) is ambiguous and forbidden for CUDA; use 1 or 2")
    if stream < -1:
        raise ValueError(f"__dlpack__ stream {stream} is not a CUDA stream")
    return stream


def _wants_versioned(max_version: Any) -> bool:
    if max_version is None:
        return False
    try:
        major, _minor = max_version
        return int(major) >= DLPACK_VERSION[0]
    except (TypeError, ValueError):
        raise TypeError(
            f"max_version must be None or (major, minor), got {max_version!r}"
        ) from None


def export_dlpack(
    array: Any,
    stream: int | None = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
    *,
    producer_stream: Any = None,
    device_id: int | None = None,
    read_only: bool = False,
    managed: bool = False,
) -> Any:
    """``array.__dlpack__(stream=, max_version=, dl_device=, copy=)`` for a device array.

    `array` needs ``shape``, ``dtype``, ``strides`` (bytes) and ``ptr`` (or ``gpudata``); the
    capsule keeps `array` alive until the consumer is done with it. Following the Array API:

    * `stream`: the consumer's stream; None means the legacy default stream (1), -1 asks for no
      synchronization, 0 is forbidden. Work pending on `producer_stream` (pycuda's default, the
      legacy default stream, unless the array records another) is ordered before the consumer's
      (see synchronize_with).
    * `max_version`: (1, x) or later gets a DLPack 1.x "dltensor_versioned" capsule, None or (0, x)
      a legacy "dltensor" capsule.
    * `dl_device`: must be this array's own device; anything else is BufferError (we do not copy
      across devices).
    * `copy`: False or None export in place; True exports a fresh copy made by ``array.copy()``
      (flagged as copied in a versioned capsule); BufferError if the array cannot copy itself.

        capsule = export_dlpack(a, stream=1, max_version=(1, 0))
    """
    if device_id is None:
        device_id = current_device_id()
    ours = dlpack_device(device_id, managed)
    if dl_device is not None and tuple(dl_device) != ours:
        raise BufferError(
            f"cannot export to DLPack device {tuple(dl_device)}: this array lives on {ours} and "
            "pycuda exports only in place"
        )
    versioned = _wants_versioned(max_version)
    consumer = _consumer_stream(stream)
    copied = False
    if copy:
        if not callable(getattr(array, "copy", None)):
            raise BufferError("__dlpack__(copy=True): this array cannot make a copy of itself")
        array = array.copy()  # queued on the default stream, like the rest of our work
        producer_stream, copied = None, True
    if consumer is not None:
        synchronize_with(_stream_number(producer_stream) or LEGACY_DEFAULT_STREAM, consumer)
    return _driver._dlpack_export(
        _array_pointer(array),
        tuple(array.shape),
        tuple(array.strides) if array.strides is not None else None,
        np.dtype(array.dtype),
        ours[1],
        array,
        versioned,
        read_only=read_only,
        copied=copied,
        managed=managed,
    )


def import_dlpack(
    obj: Any, stream: Any = None
) -> tuple[int, tuple[int, ...], np.dtype, tuple[int, ...], Any]:
    """Takes the memory of a DLPack producer (an object with ``__dlpack__``, or a capsule).

    Returns ``(ptr, shape, dtype, strides_bytes, holder)``; the memory stays valid while `holder`
    lives, so keep it (as a GPUArray's ``base``). Strides are in bytes (computed when the producer
    gave none). `stream` is where we will use the data (None: pycuda's default stream, sent as 1,
    the legacy default stream); the producer orders its pending work before it. A host array
    (NumPy, a CPU tensor) is BufferError: copy it with ``gpuarray.to_gpu`` instead.

        ptr, shape, dtype, strides, holder = import_dlpack(torch.arange(4, device="cuda"))
    """
    capsule = obj
    if hasattr(obj, "__dlpack__"):
        device_fn = getattr(obj, "__dlpack_device__", None)
        if device_fn is not None:
            device_type = int(device_fn()[0])
            if device_type not in (KDL_CUDA, KDL_CUDA_MANAGED):
                where = "the host" if device_type in (KDL_CPU, KDL_CUDA_HOST) else "a non-CUDA"
                raise BufferError(
                    f"this {type(obj).__name__} lives on {where} device (DLPack device type "
                    f"{device_type}); copy it to the GPU with pycuda.gpuarray.to_gpu instead"
                )
        number = _stream_number(stream)
        number = number if number else LEGACY_DEFAULT_STREAM
        try:
            capsule = obj.__dlpack__(stream=number, max_version=DLPACK_VERSION)
        except TypeError:  # a producer older than DLPack 1.0 takes no max_version
            capsule = obj.__dlpack__(stream=number)
    ptr, shape, strides, name, _device_type, _device_id, holder = _driver._dlpack_import(capsule)
    dtype = _dtypes.from_name(name)  # bindings/dlpack.cpp names only table rows (test_dtypes)
    if strides is None:
        strides = c_contiguous_strides(shape, dtype.itemsize)
    return ptr, shape, dtype, strides, holder
