"""pycuda.sparse.inner: inner products whose value reaches the host without blocking.

:class:`AsyncInnerProduct` starts ``dot(a, b)`` on the GPU; polling
:meth:`~AsyncInnerProduct.get_host_result` first finds the product done and starts copying it
to page-locked host memory on a stream of :data:`STREAM_POOL`, then finds the copy done and
returns the value. Until then it returns None, so a solver can go on queueing work.

    import pycuda.autoinit
    import pycuda.driver as drv
    import pycuda.gpuarray as gpuarray
    from pycuda.sparse.inner import AsyncInnerProduct

    a = gpuarray.arange(4, dtype="float32")
    ip = AsyncInnerProduct(a, a, drv.pagelocked_empty)
    while (value := ip.get_host_result()) is None:
        pass                                            # value == 14
"""

from __future__ import annotations

import atexit
from typing import Any

import pycuda.driver as drv
from pycuda import gpuarray

# Streams for the copies, reused once their copy is done.
STREAM_POOL: list[Any] = []


def get_stream() -> Any:
    """A stream from :data:`STREAM_POOL`, or a new one."""
    if STREAM_POOL:
        return STREAM_POOL.pop()
    return drv.Stream()


def _takes_order_third(allocator: Any) -> bool:
    """Whether ``allocator`` is one of PyCUDA's host allocators, whose third parameter is the
    memory order rather than a stream."""
    if allocator in (drv.pagelocked_empty, drv.pagelocked_zeros):
        return True
    return isinstance(getattr(allocator, "__self__", None), drv.PageLockedMemoryPool)


def allocate_host(allocator: Any, shape: Any, dtype: Any, stream: Any) -> Any:
    """``allocator(shape, dtype, stream)``, the original's call of a page-locked allocator.

    The original passes the copy's stream third, which for ``pagelocked_empty`` and
    ``PageLockedMemoryPool.allocate`` lands in their ``order`` parameter; NumPy of the time
    read any object there as a truth value, and a 0-d result has no order anyway. Ours take
    only 'C' or 'F' there, so those two get ``(shape, dtype)``."""
    if _takes_order_third(allocator):
        return allocator(shape, dtype)
    return allocator(shape, dtype, stream)


class AsyncInnerProduct:
    """``dot(a, b)`` computed on the GPU and fetched to the host asynchronously.

    ``pagelocked_allocator(shape, dtype, stream)`` makes the host array the value is copied
    to (``pycuda.driver.pagelocked_empty`` or a ``PageLockedMemoryPool``'s ``allocate`` do);
    ``gpu_result`` is the 0-d GPUArray of the product."""

    def __init__(self, a: Any, b: Any, pagelocked_allocator: Any) -> None:
        self.gpu_result = gpuarray.dot(a, b)
        self.gpu_finished_evt = drv.Event()
        self.gpu_finished_evt.record()
        self.gpu_finished = False
        self.pagelocked_allocator = (
            drv.pagelocked_empty if pagelocked_allocator is None else pagelocked_allocator
        )
        self._stream_returned = False

    def get_host_result(self) -> Any:
        """The product as a 0-d host array once it has arrived, else None (without waiting;
        each call moves the fetch on)."""
        if not self.gpu_finished:
            if self.gpu_finished_evt.query():
                self.gpu_finished = True
                self.copy_stream = get_stream()
                self.host_dest = allocate_host(
                    self.pagelocked_allocator,
                    self.gpu_result.shape,
                    self.gpu_result.dtype,
                    self.copy_stream,
                )
                drv.memcpy_dtoh_async(self.host_dest, self.gpu_result.gpudata, self.copy_stream)
                self.copy_finished_evt = drv.Event()
                self.copy_finished_evt.record(self.copy_stream)
            return None
        if not self.copy_finished_evt.query():
            return None
        if not self._stream_returned:
            STREAM_POOL.append(self.copy_stream)
            self._stream_returned = True
        return self.host_dest


def _forget_streams() -> None:
    # Streams go before the interpreter tears down the driver module.
    STREAM_POOL.clear()


atexit.register(_forget_streams)
