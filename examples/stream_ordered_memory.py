"""examples/stream_ordered_memory.py: stream-ordered device memory (CUDA 11.2+) with GPUArray.

A driver memory pool keeps freed memory for reuse; mem_alloc_async and StreamOrderedAllocator
take blocks from it on a stream, and their frees are queued on that stream. The default
allocator of GPUArray can be switched to it (here with tools.set_default_allocator; or with
PYCUDA_DEFAULT_ALLOCATOR=stream_ordered in the environment).
"""

import numpy

import pycuda.autoinit  # noqa: F401
import pycuda.driver as drv
import pycuda.gpuarray as gpuarray
from pycuda.tools import StreamOrderedAllocator, set_default_allocator

if __name__ == "__main__":
    pool = drv.MemPool()
    pool.release_threshold = 64 << 20  # keep up to 64 MiB cached across synchronizations

    # Raw memory on a stream: copy in, copy out, free on the stream.
    stream = drv.Stream()
    host = numpy.random.uniform(-1, 1, 1 << 16).astype(numpy.float32)
    buf = drv.mem_alloc_async(host.nbytes, stream, pool=pool)
    drv.memcpy_htod_async(buf, host, stream)
    back = drv.pagelocked_empty_like(host)
    drv.memcpy_dtoh_async(back, buf, stream)
    buf.free()
    stream.synchronize()
    assert numpy.array_equal(back, host), "round trip through stream-ordered memory failed"

    # GPUArray arithmetic whose arrays (and results) take their memory from the pool.
    alloc = StreamOrderedAllocator(pool=pool)
    a = gpuarray.to_gpu(host, allocator=alloc)
    b = gpuarray.to_gpu(2 * host, allocator=alloc)
    result = (a + b) * 0.5 - a
    expected = (host + 2 * host) * numpy.float32(0.5) - host
    assert numpy.allclose(result.get(), expected, rtol=1e-6), "GPUArray arithmetic mismatch"
    print(f"{alloc.active_blocks} blocks in use, pool holds {pool.reserved_current} bytes")

    # Every array made without an allocator from now on takes stream-ordered memory.
    set_default_allocator("stream_ordered")
    c = gpuarray.to_gpu(host)
    assert isinstance(c.gpudata, drv.StreamOrderedAllocation), type(c.gpudata)
    assert numpy.array_equal((c * 2).get(), host * 2), "default-allocator arithmetic mismatch"
    del c
    set_default_allocator("pool")

    del a, b, result
    drv.Context.synchronize()
    assert alloc.active_blocks == 0 and pool.used_current == 0, "memory still in use"
    pool.trim(0)
    assert pool.reserved_current == 0, "trim left memory reserved"
    print("Success")
