"""The CUDA driver API for pycuda, on a C++20 core"""

from collections.abc import Sequence
import os
import pathlib
import types
from typing import Annotated, TypeAlias, overload

import numpy
from numpy.typing import NDArray


class Error(Exception):
    """
    Base of every CUDA driver error; .code is the CUresult, .name its symbol, .routine the driver call that failed.
    """

    code: None = None

    name: None = None

    routine: None = None

class LogicError(Error):
    """A CUDA call was used wrongly (bad value, handle or context)."""

class LaunchError(Error):
    """A kernel launch failed."""

class MemoryError(Error):
    """Out of device memory."""

class RuntimeError(Error):
    """No usable device, driver or binary for the GPU."""

class DriverNotFoundError(RuntimeError, ImportError):
    """
    No CUDA driver (libcuda) could be loaded: a RuntimeError, and an ImportError as the original's import failure was.
    """

def init(flags: int = 0) -> None:
    """Initialize the CUDA driver (cuInit)."""

def get_driver_version() -> int:
    """The driver's CUDA version as an int, e.g. 13000."""

def get_version() -> tuple:
    """
    The CUDA version of the headers this module was built with, (major, minor, patch).
    """

def driver_library_path() -> str:
    """The libcuda that was opened (raises RuntimeError when none was found)."""

class Device:
    """
    A CUDA device, by ordinal or PCI bus id.

        dev = pycuda.driver.Device(0)
        print(dev.name(), dev.compute_capability(), dev.multiprocessor_count)
    """

    @overload
    def __init__(self, arg: str, /) -> None: ...

    @overload
    def __init__(self, arg: int, /) -> None: ...

    @staticmethod
    def count() -> int:
        """The number of CUDA devices."""

    def name(self) -> str:
        """The device's name, such as 'NVIDIA H100 80GB HBM3'."""

    def pci_bus_id(self) -> str:
        """
        The device's PCI bus id, 'domain:bus:device.function' (accepted by Device()).
        """

    def compute_capability(self) -> tuple[int, int]:
        """(major, minor)"""

    def total_memory(self) -> int:
        """Bytes of device memory."""

    def get_attribute(self, attr: int) -> object:
        """The value of a device_attribute."""

    def get_attributes(self) -> dict:
        """A dict of every device_attribute the driver knows, to its value."""

    def __getattr__(self, arg: str, /) -> object:
        """
        dev.max_threads_per_block is dev.get_attribute(device_attribute.MAX_THREADS_PER_BLOCK)
        """

    def make_context(self, flags: int = 0) -> Context:
        """Create a new context on this device and push it."""

    def retain_primary_context(self) -> Context:
        """
        The device's primary context, shared with the runtime API (CuPy, PyTorch); not pushed: call .push().
        """

    def can_access_peer(self, arg: Device, /) -> bool:
        """
        Whether contexts on this device can access memory on the given device (Context.enable_peer_access).
        """

    def uuid(self) -> bytes:
        """The device's 16-byte UUID (as nvidia-smi -L shows it, in hex)."""

    @property
    def handle(self) -> int:
        """The CUdevice ordinal, as an int."""

    def __eq__(self, other: object | None) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

class Context:
    """
    A CUDA context. Made by Device.make_context() (pushed) or Device.retain_primary_context() (not pushed).

        ctx = pycuda.driver.Device(0).make_context()
        ...
        ctx.pop(); ctx.detach()
    """

    def push(self) -> None:
        """Make this context current in the calling thread (cuCtxPushCurrent)."""

    def detach(self) -> None:
        """
        Give up this object's reference; the context is destroyed (or the primary context released) once nothing allocated in it remains.
        """

    def get_api_version(self) -> int:
        """
        The CUDA API version the context was created with (cuCtxGetApiVersion).
        """

    @property
    def handle(self) -> int:
        """The CUcontext, as an int."""

    @staticmethod
    def pop() -> None:
        """
        Pop the current context off this thread's context stack (cuCtxPopCurrent).
        """

    @staticmethod
    def get_current() -> Context | None:
        """The context current in this thread, or None."""

    @staticmethod
    def get_device() -> Device:
        """The device of the current context."""

    @staticmethod
    def synchronize() -> None:
        """Wait for all work in the current context (cuCtxSynchronize)."""

    @staticmethod
    def attach(flags: int = 0) -> Context:
        """
        A new reference to the current context (the driver's cuCtxAttach is gone; `flags` is ignored).
        """

    @staticmethod
    def set_limit(arg0: int, arg1: int, /) -> None:
        """
        Set a limit of the current context: set_limit(limit.STACK_SIZE, bytes) (cuCtxSetLimit).
        """

    @staticmethod
    def get_limit(arg: int, /) -> int:
        """The value of a limit (pycuda.driver.limit) of the current context."""

    @staticmethod
    def get_cache_config() -> int:
        """
        The current context's preference between shared memory and L1 (a func_cache value).
        """

    @staticmethod
    def set_cache_config(arg: int, /) -> None:
        """
        Prefer shared memory or L1 in the current context (a func_cache value).
        """

    @staticmethod
    def get_shared_config() -> int:
        """The current context's shared memory bank size (a shared_config value)."""

    @staticmethod
    def set_shared_config(arg: int, /) -> None:
        """
        Set the current context's shared memory bank size (a shared_config value).
        """

    @staticmethod
    def enable_peer_access(peer: Context, flags: int = 0) -> None:
        """Let the current context access memory allocated in context `peer`."""

    @staticmethod
    def disable_peer_access(arg: Context, /) -> None:
        """Stop the current context's access to memory of context `peer`."""

    def __eq__(self, other: object | None) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

class DeviceAllocation:
    """
    Linear device memory from mem_alloc(); frees itself in its context when collected.

        buf = drv.mem_alloc(a.nbytes)
        drv.memcpy_htod(buf, a)
        buf.free()
    """

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

    def free(self) -> None:
        """
        Free now (in the owning context). Using the allocation afterwards is LogicError.
        """

    def as_buffer(self, size: int, offset: int = 0) -> object:
        """
        A memoryview of the device address (only readable by the host for managed or host-mapped memory). Keep the allocation alive while using it.
        """

    def __repr__(self) -> str: ...

class ManagedAllocation(DeviceAllocation):
    """
    Unified memory (cuMemAllocManaged) behind managed_empty(); one address for host and device.
    """

    def get_device_pointer(self) -> int:
        """The memory's address, which host and device share."""

    def attach(self, mem_flags: int, stream: object | None = None) -> None:
        """cuStreamAttachMemAsync: flags from mem_attach_flags."""

class PointerHolderBase:
    """
    Subclass and override get_pointer() to pass any object as a device pointer.

        class Holder(drv.PointerHolderBase):
            def __init__(self, buf):
                super().__init__(); self.buf = buf
            def get_pointer(self):
                return int(self.buf)
    """

    def __init__(self) -> None: ...

    def get_pointer(self) -> int:
        """
        The device address this object stands for, as an int; a subclass overrides it.
        """

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

    def as_buffer(self, size: int, offset: int = 0) -> object:
        """
        A memoryview of `size` bytes at get_pointer() + `offset` (host-readable only for managed or host-mapped memory).
        """

def mem_get_ipc_handle(devptr: object) -> object:
    """A 64-byte bytearray another process opens with IPCMemoryHandle."""

class IPCMemoryHandle:
    """
    Device memory of another process, opened from the handle that process got from mem_get_ipc_handle().
    """

    def __init__(self, handle: object, flags: int = 1) -> None: ...

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

    def close(self) -> None:
        """
        Close the mapping now (cuIpcCloseMemHandle); the memory stays the other process's.
        """

def mem_alloc(bytes: int) -> DeviceAllocation:
    """
    Allocate `bytes` of device memory in the current context (DeviceAllocation). When the device is out of memory, garbage is collected and the allocation retried once.
    """

def mem_alloc_pitch(width: int, height: int, access_size: int) -> tuple:
    """Pitched 2D allocation: returns (DeviceAllocation, pitch in bytes)."""

def mem_get_info() -> tuple[int, int]:
    """(free, total) bytes of the current device."""

def mem_get_address_range(ptr: object) -> tuple[int, int]:
    """(base, size) of the allocation containing `ptr`."""

class HostPointer:
    """Host memory known to CUDA."""

    def get_device_pointer(self) -> int:
        """The device address of this memory (needs DEVICEMAP/mapped memory)."""

class PagelockedHostAllocation(HostPointer):
    """
    Page-locked host memory behind pagelocked_empty(); the array's .base.

        a = drv.pagelocked_empty((4, 4), numpy.float32)
        a.base.get_flags()
    """

    def free(self) -> None:
        """Free now; arrays on this memory must not be used afterwards."""

    def get_flags(self) -> int:
        """The host_alloc_flags it was allocated with."""

HostAllocation: TypeAlias = PagelockedHostAllocation

class RegisteredHostMemory(HostPointer):
    """
    An existing array page-locked by register_host_memory(); .base is that array.
    """

    def unregister(self) -> None:
        """
        Unregister the memory now (cuMemHostUnregister); the array stays usable as ordinary memory.
        """

    @property
    def base(self) -> object:
        """The array whose memory was registered."""

class AlignedHostAllocation:
    """Pageable host memory with a chosen alignment, behind aligned_empty()."""

    def free(self) -> None:
        """Free now; arrays on this memory must not be used afterwards."""

    def get_device_pointer(self) -> int:
        """
        The device address of this memory, once register_host_memory() has page-locked it (with DEVICEMAP where mapping is not implied).
        """

def memset_d8(dest: object, data: int, size: int) -> None:
    """Set `size` elements at `dest` to `data`."""

def memset_d8_async(dest: object, data: int, size: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memset_d2d8(dest: object, pitch: int, data: int, width: int, height: int) -> None:
    """
    Set a `width` x `height` rectangle (rows `pitch` bytes apart) to `data`.
    """

def memset_d2d8_async(dest: object, pitch: int, data: int, width: int, height: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memset_d16(dest: object, data: int, size: int) -> None:
    """Set `size` elements at `dest` to `data`."""

def memset_d16_async(dest: object, data: int, size: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memset_d2d16(dest: object, pitch: int, data: int, width: int, height: int) -> None:
    """
    Set a `width` x `height` rectangle (rows `pitch` bytes apart) to `data`.
    """

def memset_d2d16_async(dest: object, pitch: int, data: int, width: int, height: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memset_d32(dest: object, data: int, size: int) -> None:
    """Set `size` elements at `dest` to `data`."""

def memset_d32_async(dest: object, data: int, size: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memset_d2d32(dest: object, pitch: int, data: int, width: int, height: int) -> None:
    """
    Set a `width` x `height` rectangle (rows `pitch` bytes apart) to `data`.
    """

def memset_d2d32_async(dest: object, pitch: int, data: int, width: int, height: int, stream: object | None = None) -> None:
    """As the synchronous form, queued on `stream`."""

def memcpy_htod(dest: object, src: object) -> None:
    """Copy all of the host buffer `src` to `dest`."""

def memcpy_htod_async(dest: object, src: object, stream: object | None = None) -> None:
    """
    Copy the host buffer `src` to `dest` on `stream`. Only a page-locked `src` makes the copy asynchronous; keep it alive until the stream has reached the copy.
    """

def memcpy_dtoh(dest: object, src: object) -> None:
    """Fill all of the writable host buffer `dest` from `src`."""

def memcpy_dtoh_async(dest: object, src: object, stream: object | None = None) -> None:
    """
    Fill the host buffer `dest` from `src` on `stream`. Only a page-locked `dest` makes the copy asynchronous; read it after the stream has finished the copy.
    """

def memcpy_dtod(dest: object, src: object, size: int) -> None:
    """Copy `size` bytes on the device."""

def memcpy_dtod_async(dest: object, src: object, size: int, stream: object | None = None) -> None:
    """Copy `size` bytes on the device, queued on `stream`."""

def memcpy_peer(dest: object, src: object, size: int, dest_context: object | None = None, src_context: object | None = None) -> None:
    """
    Copy between devices. A context left None is the one the pointer belongs to.
    """

def memcpy_peer_async(dest: object, src: object, size: int, dest_context: object | None = None, src_context: object | None = None, stream: object | None = None) -> None:
    """As memcpy_peer, queued on `stream`."""

def bitlog2(n: int) -> int:
    """floor(log2(n)); 0 for 0."""

class PooledDeviceAllocation:
    """
    A block lent by a DeviceMemoryPool; returns to it when freed or collected.
    """

    def free(self) -> None:
        """Return the block to its pool now."""

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

    def __len__(self) -> int: ...

class DeviceMemoryPool:
    """
    A caching allocator of device memory: freed blocks are kept for reuse.

        pool = DeviceMemoryPool()
        a = gpuarray.empty(100, numpy.float32, allocator=pool.allocate)
    """

    def __init__(self) -> None: ...

    def allocate(self, size: int) -> PooledDeviceAllocation:
        """A PooledDeviceAllocation of at least `size` bytes."""

    @property
    def held_blocks(self) -> int:
        """Freed blocks the pool keeps for reuse."""

    @property
    def active_blocks(self) -> int:
        """Blocks lent out and not yet returned."""

    @property
    def managed_bytes(self) -> int:
        """Bytes the pool has allocated, lent and held together."""

    @property
    def active_bytes(self) -> int:
        """Bytes of the blocks lent out."""

    @staticmethod
    def bin_number(size: int) -> int:
        """The size class (bin) a request of `size` bytes falls in."""

    @staticmethod
    def alloc_size(bin: int) -> int:
        """The bytes a block of size class `bin` has (at least any size in it)."""

    def free_held(self) -> None:
        """Free all held (unused) blocks."""

    def stop_holding(self) -> None:
        """Free held blocks and free returned blocks at once from now on."""

class PooledHostAllocation:
    """
    A page-locked block lent by a PageLockedMemoryPool; the .base of the arrays it allocates.
    """

    def free(self) -> None:
        """Return the block to its pool now."""

    def __len__(self) -> int: ...

class PageLockedAllocator:
    """
    Page-locked blocks with host_alloc_flags `flags`, for PageLockedMemoryPool.
    """

    def __init__(self, flags: int = 0) -> None: ...

    @property
    def flags(self) -> int:
        """The host_alloc_flags of its blocks."""

class PageLockedMemoryPool:
    """
    A caching allocator of page-locked host arrays.

        pool = PageLockedMemoryPool()
        a = pool.allocate((1024,), numpy.float32)
    """

    def __init__(self, allocator: PageLockedAllocator | None = None) -> None: ...

    def allocate(self, shape: object, dtype: object, order: object = 'C') -> object:
        """A page-locked numpy array whose .base is a PooledHostAllocation."""

    @property
    def held_blocks(self) -> int:
        """Freed blocks the pool keeps for reuse."""

    @property
    def active_blocks(self) -> int:
        """Blocks lent out and not yet returned."""

    @property
    def managed_bytes(self) -> int:
        """Bytes the pool has allocated, lent and held together."""

    @property
    def active_bytes(self) -> int:
        """Bytes of the blocks lent out."""

    @staticmethod
    def bin_number(size: int) -> int:
        """The size class (bin) a request of `size` bytes falls in."""

    @staticmethod
    def alloc_size(bin: int) -> int:
        """The bytes a block of size class `bin` has (at least any size in it)."""

    def free_held(self) -> None:
        """Free all held (unused) blocks."""

    def stop_holding(self) -> None:
        """Free held blocks and free returned blocks at once from now on."""

class MemPool:
    """
    A memory pool of the CUDA driver on one device (CUDA 11.2+), which stream-ordered allocations come from. MemPool(device=None) makes a new pool (destroyed with the last object using it); MemPool.default() and MemPool.current() give the device's own.

        pool = drv.MemPool()
        pool.release_threshold = 1 << 30   # keep up to 1 GiB cached
        buf = drv.mem_alloc_async(4096, stream, pool=pool)
        print(pool.used_current, pool.reserved_current)
    """

    def __init__(self, device: Device | None = None) -> None:
        """
        A new pool of `device`'s memory (default: the current context's device).
        """

    @staticmethod
    def default(device: Device | None = None) -> MemPool:
        """
        The device's default pool (cuDeviceGetDefaultMemPool), shared by every library in the process that allocates stream-ordered memory without a pool.
        """

    @staticmethod
    def current(device: Device | None = None) -> MemPool:
        """
        The pool that mem_alloc_async without a pool takes from now (cuDeviceGetMemPool).
        """

    @property
    def handle(self) -> int:
        """The CUmemoryPool, as an int."""

    @property
    def device(self) -> Device:
        """The device whose memory the pool holds."""

    @property
    def owned(self) -> bool:
        """True for a pool made by MemPool(), False for a device's own."""

    @property
    def release_threshold(self) -> int:
        """
        Bytes of unused memory the pool keeps at a synchronization instead of returning them to the device (0 by default: each synchronization returns all unused memory).
        """

    @release_threshold.setter
    def release_threshold(self, arg: int, /) -> None: ...

    def trim(self, min_bytes_to_keep: int = 0) -> None:
        """
        Return unused memory to the device until at most `min_bytes_to_keep` bytes stay reserved. Memory whose free its stream has not reached yet is still in use: synchronize first.
        """

    @property
    def reserved_current(self) -> int:
        """Bytes of device memory the pool holds now."""

    @property
    def reserved_high(self) -> int:
        """
        The most bytes the pool held since it was made or reset_high_water_marks().
        """

    @property
    def used_current(self) -> int:
        """Bytes of the pool lent out now (allocated and not yet freed)."""

    @property
    def used_high(self) -> int:
        """
        The most bytes lent out at once since it was made or reset_high_water_marks().
        """

    def reset_high_water_marks(self) -> None:
        """Set reserved_high and used_high to the current values."""

    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    def __repr__(self) -> str: ...

class StreamOrderedAllocation:
    """
    Device memory from mem_alloc_async() or a StreamOrderedAllocator, usable as a DeviceAllocation is (int(), kernel arguments, copies, GPUArray gpudata). free() or collection queues cuMemFreeAsync on the stream it was allocated on.
    """

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

    def __len__(self) -> int: ...

    def free(self, stream: object | None = None) -> None:
        """
        Queue the free on the allocation's stream, or on `stream` (which must be ordered after every use). Using the allocation afterwards is LogicError.
        """

    @property
    def stream(self) -> object:
        """The stream it was allocated on (None: the default stream)."""

    def as_buffer(self, size: int, offset: int = 0) -> object:
        """
        A memoryview of the device address (not readable by the host). Keep the allocation alive while using it.
        """

    def __repr__(self) -> str: ...

def mem_alloc_async(bytes: int, stream: object | None = None, pool: MemPool | None = None) -> StreamOrderedAllocation:
    """
    Allocate `bytes` of device memory ordered on `stream` (None: the default stream), from `pool` (a MemPool; None: the device's current pool), with cuMemAllocAsync (CUDA 11.2+). Work queued after it on that stream (or ordered after it) may use the memory; it is freed with cuMemFreeAsync on that stream when freed or collected.

        buf = drv.mem_alloc_async(a.nbytes, stream)
        drv.memcpy_htod_async(buf, a, stream)
    """

class StreamOrderedAllocator:
    """
    An allocator for GPUArray (allocator(nbytes) -> StreamOrderedAllocation) taking stream-ordered memory (CUDA 11.2+) on `stream` (None: the default stream, which GPUArray operations use) from `pool` (None: the device's current pool), in the current context. A non-blocking stream is not ordered with the default stream: use it only for arrays whose work is queued on it.

        alloc = StreamOrderedAllocator()
        a = gpuarray.empty(100, numpy.float32, allocator=alloc)
    """

    def __init__(self, stream: object | None = None, pool: MemPool | None = None) -> None: ...

    def __call__(self, nbytes: int) -> StreamOrderedAllocation:
        """A StreamOrderedAllocation of `nbytes` bytes."""

    def allocate(self, nbytes: int) -> StreamOrderedAllocation:
        """The same as calling the allocator."""

    @property
    def stream(self) -> object:
        """The stream given (None: the default stream)."""

    @property
    def pool(self) -> MemPool:
        """
        The MemPool blocks come from: the one given, else the device's current pool.
        """

    @property
    def active_blocks(self) -> int:
        """Blocks this allocator lent that are not yet freed."""

    @property
    def active_bytes(self) -> int:
        """Their bytes, as requested."""

    @property
    def managed_bytes(self) -> int:
        """
        Device memory the pool holds now (its reserved_current; a shared pool's includes other users').
        """

    @property
    def held_bytes(self) -> int:
        """
        Device memory the pool holds unused, for reuse (reserved_current - used_current; a shared pool's includes what other users freed). free_held() returns it.
        """

    def free_held(self) -> None:
        """
        Wait for the stream, then return the pool's unused memory to the device.
        """

class Stream:
    """
    A CUDA stream: work queued on it runs in order.

        s = pycuda.driver.Stream()
        pycuda.driver.memcpy_htod_async(dev, host, s)
        s.synchronize()
    """

    def __init__(self, flags: int = 0, priority: int = 0) -> None: ...

    def synchronize(self) -> None:
        """Wait until all work queued on the stream is done."""

    def is_done(self) -> bool:
        """Whether all work queued on the stream is done."""

    def wait_for_event(self, event: Event) -> None:
        """Make later work on this stream wait for `event`."""

    @property
    def flags(self) -> int:
        """The stream_flags it was created with."""

    @property
    def priority(self) -> int:
        """Its priority (lower numbers run first; 0 is the default)."""

    @property
    def handle(self) -> int:
        """The CUstream, as an int."""

    def __cuda_stream__(self) -> tuple: ...

    def begin_capture(self, mode: object | None = 'relaxed') -> None:
        """
        Start recording the work queued on this stream into a graph instead of running it (cuStreamBeginCapture); `mode` is a capture_mode or 'global', 'thread_local', 'relaxed'. Work queued with no stream still goes to the default stream: use capture() to capture GPUArray operators.
        """

    def end_capture(self) -> Graph:
        """
        Stop recording; returns the Graph of what was queued since begin_capture().
        """

    def is_capturing(self) -> bool:
        """True while the stream is capturing (and the capture is still valid)."""

    def capture_status(self) -> int:
        """
        The stream's capture_status: NONE, ACTIVE, or INVALIDATED (a forbidden call spoiled the capture; end_capture() will raise).
        """

    def capture(self, mode: int | str = 'relaxed') -> StreamCapture:
        """
        A StreamCapture: `with stream.capture() as cap:` records the block's work on this stream, including work queued with no stream (GPUArray operators), into cap.graph.
        """

class Event:
    """
    A marker in a stream, for synchronization and timing.

        start, end = drv.Event(), drv.Event()
        start.record(); ...; end.record(); end.synchronize()
        ms = end.time_since(start)
    """

    def __init__(self, flags: int = 0) -> None: ...

    def record(self, stream: object | None = None) -> object:
        """Record on `stream`; returns self."""

    def synchronize(self) -> object:
        """Wait for the event; returns self."""

    def query(self) -> bool:
        """True once the recorded work has completed."""

    def time_since(self, start: Event) -> float:
        """Milliseconds from `start` to this event."""

    def time_till(self, end: Event) -> float:
        """Milliseconds from this event to `end`."""

    def ipc_handle(self) -> object:
        """
        A 64-byte bytearray that another process opens with Event.from_ipc_handle() (the event needs event_flags.INTERPROCESS | DISABLE_TIMING).
        """

    @staticmethod
    def from_ipc_handle(handle: object) -> Event:
        """The event of another process, from its ipc_handle()."""

    @property
    def handle(self) -> int:
        """The CUevent, as an int."""

class GraphNode:
    """
    A node of a Graph, made by its add_*_node methods: a dependency of later nodes, and for kernel nodes the handle GraphExec.set_kernel_node_params takes.
    """

    @property
    def graph(self) -> object:
        """The Graph the node belongs to."""

    @property
    def type(self) -> int:
        """The node's kind, a graph_node_type (KERNEL, MEMCPY, MEMSET, ...)."""

    @property
    def handle(self) -> int:
        """The CUgraphNode, as an int."""

class Graph:
    """
    A CUDA graph: work (kernels, copies, memsets, events) and the dependencies between its parts, launched all at once by the GraphExec that instantiate() makes. Made empty in the current context and built node by node, or returned by Stream.end_capture() and StreamCapture.graph. It keeps what its nodes use (arguments, events, host buffers) alive.

        g = drv.Graph()
        fill = g.add_memset_node(dev_a, 0, n, element_size=4)
        k = g.add_kernel_node(func, (blocks, 1), (256, 1, 1), (dev_a, numpy.int32(n)),
                              dependencies=[fill])
        g.add_memcpy_node(host_a, dev_a, dependencies=[k])
        g.instantiate().launch()
    """

    def __init__(self) -> None: ...

    def add_kernel_node(self, func: object, grid: object, block: object, args: object = (), dependencies: object | None = None, shared: object = 0) -> GraphNode:
        """
        A node launching `func` (a Function) on `grid` and `block` with `args` (a tuple or list of its arguments), packed as prepared_call packs them where func is prepared, else as __call__ does (by type: NumPy scalars and device memory); `shared` bytes of dynamic shared memory. The arguments are kept with the graph; In/Out/InOut are refused.
        """

    def add_memcpy_node(self, dest: object, src: object, nbytes: object | None = None, dependencies: object | None = None) -> GraphNode:
        """
        A node copying `nbytes` bytes from `src` to `dest`, each device memory (DeviceAllocation, GPUArray, int address, ...) or a contiguous host buffer (held by the graph; page-locked memory copies fastest). nbytes defaults to the host buffer's size.
        """

    def add_memset_node(self, dest: object, value: int, count: int, element_size: int = 1, dependencies: object | None = None) -> GraphNode:
        """
        A node setting `count` elements of `element_size` (1, 2 or 4) bytes at `dest` to `value`, as memset_d8/d16/d32 do.
        """

    def add_event_record_node(self, event: object, dependencies: object | None = None) -> GraphNode:
        """A node recording `event` (an Event)."""

    def add_event_wait_node(self, event: object, dependencies: object | None = None) -> GraphNode:
        """
        A node waiting for `event` (recorded elsewhere) before its dependents run.
        """

    def add_empty_node(self, dependencies: object | None = None) -> GraphNode:
        """A node that does nothing: one point for many nodes to depend on."""

    def clone(self) -> Graph:
        """A copy of the graph (cuGraphClone); its nodes are its own."""

    @property
    def node_count(self) -> int:
        """The number of nodes."""

    def instantiate(self, flags: int = 0) -> GraphExec:
        """
        The executable graph (cuGraphInstantiateWithFlags): a GraphExec to launch.
        """

    def debug_dot_print(self, path: object, flags: int = 1) -> None:
        """
        Write the graph to `path` in Graphviz DOT (flags: CUgraphDebugDot_flags; 1, the default, is verbose).
        """

    @property
    def handle(self) -> int:
        """The CUgraph, as an int."""

class GraphExec:
    """
    An executable graph, made by Graph.instantiate(): launched with one call, updated in place where the driver allows it.

        ge = graph.instantiate()
        ge.launch(stream)
        ge.update(graph_with_new_parameters)
    """

    def launch(self, stream: object | None = None) -> None:
        """Launch on `stream` (None: the default stream)."""

    def upload(self, stream: object | None = None) -> None:
        """Prepare the launch on `stream` ahead of time (cuGraphUpload)."""

    def update(self, graph: object) -> None:
        """
        Take the node parameters of `graph`, which must have the same nodes and dependencies (cuGraphExecUpdate). A refusal raises pycuda.driver.LogicError (code CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE) saying why, and changes nothing.
        """

    def set_kernel_node_params(self, node: object, args: object | None = None, func: object | None = None, grid: object | None = None, block: object | None = None, shared: object | None = None) -> None:
        """
        New arguments (packed as add_kernel_node packs them) and, where given, function, grid, block and shared size for `node`, a kernel node of the graph this was instantiated from (cuGraphExecKernelNodeSetParams). What is not given (None) is as the node was added.
        """

    @property
    def handle(self) -> int:
        """The CUgraphExec, as an int."""

class StreamCapture:
    """
    A `with` block capturing a stream into a Graph (made by Stream.capture()). Inside it, work of this thread queued with no stream (GPUArray operators, prepared_call, memset_d8, ...) goes to the capturing stream, so it is captured too.

        with stream.capture() as cap:
            c = a + b
        ge = cap.graph.instantiate()
    """

    def __init__(self, stream: object | None, mode: object | None = 'relaxed') -> None: ...

    def __enter__(self) -> object: ...

    def __exit__(self, exc_type: object | None, exc_value: object | None, traceback: object | None) -> bool: ...

    @property
    def graph(self) -> object:
        """
        The captured Graph once the block has ended without an exception, else None.
        """

    @property
    def stream(self) -> object:
        """The Stream being captured."""

    @property
    def mode(self) -> int:
        """The capture_mode, as an int."""

class Module:
    """
    A loaded CUDA module (cubin, PTX or fatbin).

        mod = pycuda.driver.module_from_file('kernels.cubin')
        f = mod.get_function('scale')
        ptr, size = mod.get_global('table')
    """

    def get_function(self, name: str) -> Function:
        """The kernel named `name` (a Function)."""

    def get_global(self, name: str) -> tuple[int, int]:
        """
        (device address, size in bytes) of a __device__ or __constant__ variable.
        """

    @property
    def handle(self) -> int:
        """The CUmodule, as an int."""

    def get_texref(self, name: str) -> TextureReference:
        """
        The TextureReference of the file-scope declaration `texture<...> name;`.
        """

    def get_surfref(self, name: str) -> SurfaceReference:
        """
        The SurfaceReference of the file-scope declaration `surface<void, dim> name;`.
        """

def module_from_file(filename: str) -> Module:
    """Load a cubin, PTX or fatbin file as a Module."""

def module_from_buffer(buffer: object, options: object = [], message_handler: object | None = None) -> Module:
    """
    Load a cubin, PTX or fatbin image from memory. `options` is a list of
    (jit_option, value); message_handler(success, info_log, error_log) receives the
    JIT compiler's messages. A failure raises with the error log in the message.
    """

class Function:
    """
    A kernel of a Module, called like a Python function.

        f = mod.get_function('scale')
        f(dev_a, numpy.float32(2), numpy.int32(n), block=(256, 1, 1),
          grid=((n + 255) // 256, 1))
        f.prepare('PfI')
        f.prepared_call((blocks, 1), (256, 1, 1), dev_a, 2.0, n)

    __call__(*args, block, grid=(1, 1), stream=None, shared=0, texrefs=[], time_kernel=False, cluster=None, cooperative=False) launches with `args` packed by type; with time_kernel=True it returns the kernel's run time in seconds. cluster=(x, y, z) launches thread block clusters of that shape (the grid must divide into them; compute capability 9.0+); cooperative=True launches every block at once, as grid-wide synchronization (cooperative_groups::this_grid().sync()) needs.
    """

    def __call__(self, /, *args, **kwargs):
        """Call self as a function."""

    def prepare(self, arg_types: object, texrefs: object | None = None) -> object:
        """
        Fix the argument types (NumPy types, dtypes, struct codes like 'PiiP', 'V' for a struct by value; anything else means a pointer) for prepared_call, and record `texrefs` (self.texrefs), the texture references each prepared launch needs bound; returns self.
        """

    @property
    def arg_format(self) -> object:
        """
        The struct-style format prepare() made (None before it); assigning one prepares with it.
        """

    @arg_format.setter
    def arg_format(self, value: object | None) -> None: ...

    def get_attribute(self, attr: int) -> int:
        """cuFuncGetAttribute (a function_attribute)."""

    def set_attribute(self, attr: int, value: int) -> None:
        """
        cuFuncSetAttribute: set a function_attribute, such as MAX_DYNAMIC_SHARED_SIZE_BYTES.
        """

    def set_cache_config(self, config: int) -> None:
        """Prefer shared memory or L1 for this kernel (a func_cache value)."""

    def set_shared_config(self, config: int) -> None:
        """The shared memory bank size for this kernel (a shared_config value)."""

    def max_active_blocks_per_multiprocessor(self, block_size: int, dynamic_smem: int = 0) -> int:
        """Occupancy: resident blocks per multiprocessor."""

    def suggested_block_size(self, shared: int = 0, limit: int = 0) -> tuple:
        """
        (min_grid_size, block_size): the block size that reaches the highest occupancy with `shared` bytes of dynamic shared memory per block (limit: the most threads per block to consider, 0 for the kernel's own maximum), and the fewest blocks that fill the device with it (cuOccupancyMaxPotentialBlockSize).
        """

    def max_potential_cluster_size(self, block: object, shared: int = 0) -> int:
        """
        The most blocks one thread block cluster of this kernel can have, for blocks of shape `block` (a tuple, or an int of threads) with `shared` bytes of dynamic shared memory (cuOccupancyMaxPotentialClusterSize; compute capability 9.0+).
        """

    def max_active_clusters(self, cluster: object, block: object, shared: int = 0) -> int:
        """
        How many clusters of shape `cluster` can be resident on the device at once (cuOccupancyMaxActiveClusters; compute capability 9.0+).
        """

    @property
    def function_name(self) -> str:
        """The kernel's name in its module."""

    @property
    def handle(self) -> int:
        """The CUfunction, as an int."""

    def __getattr__(self, arg: str, /) -> int: ...

    prepared_call: types.MethodDescriptorType = ...

    prepared_async_call: types.MethodDescriptorType = ...

    prepared_timed_call: types.MethodDescriptorType = ...

    def param_set_texref(self, texref: object) -> None:
        """Check that `texref` is bound (its object is already in its module)."""

class ArrayBase:
    """
    The instance data of pycuda.gpuarray.GPUArray: shape, dtype, strides, size, allocator, gpudata, base, nbytes, mem_size, itemsize, all assignable.
    """

    size: types.MemberDescriptorType = ...

    allocator: types.MemberDescriptorType = ...

    base: types.MemberDescriptorType = ...

    shape: getset_descriptor = ...

    strides: getset_descriptor = ...

    dtype: getset_descriptor = ...

    gpudata: getset_descriptor = ...

    ptr: getset_descriptor = ...

    nbytes: getset_descriptor = ...

    mem_size: getset_descriptor = ...

    itemsize: getset_descriptor = ...

class FlatLaunches:
    """
    The remembered flat launches of gpuarray's binary operators (see pycuda._operators) and one-block whole-array reductions (pycuda._reduction_kernel).
    """

    def __init__(self, capacity: int) -> None: ...

    def bind(self, array_type: object, fallback: object) -> None:
        """
        Serve the exact instances of `array_type` (GPUArray) from now on; calls not served here go to fallback(array, op, other, reflected).
        """

    def operator(self, name: object, op: object, reflected: bool = False) -> object:
        """
        A method descriptor for `array_type.<name>`: `op` (an interned ufunc name) served as binary() serves it.
        """

    def remember(self, op: object, lhs: object, rhs: object, reflected: bool, context: int, n: int, function: object, grid: int, block: int, allocate: object, plan: object) -> bool:
        """
        Remember the launch the Python path made for this key and plan; False where it cannot be served here (`allocate` neither a DeviceMemoryPool's nor a StreamOrderedAllocator, a stand-in function).
        """

    def remember_reduction(self, kernel_of: object, dtype: object, context: int, n: int, function: object, block: int, allocate: object, result: object, itemsize: int) -> bool:
        """
        Remember the one-block launch `function(out, array, n)` of a whole-array reduction the Python path made, for arrays of `dtype` and `n` elements at 16-byte aligned addresses; False where it cannot be served here.
        """

    def clear(self) -> None:
        """Forget every remembered launch."""

    def __len__(self) -> int: ...

    binary: types.MethodDescriptorType = ...

    reduce: types.MethodDescriptorType = ...

class FlatOperator:
    """
    A binary operator of GPUArray (NumPy's rules), served in C++ where its launch is remembered.
    """

    def __repr__(self, /):
        """Return repr(self)."""

    def __call__(self, /, *args, **kwargs):
        """Call self as a function."""

    def __get__(self, instance, owner=None, /):
        """Return an attribute of instance, which is of type owner."""

    __vectorcalloffset__: types.MemberDescriptorType = ...

class Linker:
    """
    Links cubins, PTX and libraries into one Module.

        ln = pycuda.driver.Linker()
        ln.add_data(cubin, pycuda.driver.jit_input_type.CUBIN, 'k')
        ln.add_file('/usr/local/cuda/lib64/libcudadevrt.a',
                    pycuda.driver.jit_input_type.LIBRARY)
        mod = ln.link_module()
    """

    def __init__(self, message_handler: object | None = None, options: object | None = None, log_verbose: bool = False) -> None: ...

    def add_data(self, data: object, input_type: int, name: str = 'unknown') -> None:
        """Add an in-memory image of jit_input_type `input_type`."""

    def add_file(self, filename: str, input_type: int) -> None:
        """Add a file of jit_input_type."""

    def link_module(self) -> Module:
        """Complete the link and load the result as a Module."""

def nvrtc_compile(source: str, name: str, options: Sequence[str], headers: Sequence[tuple[str, str]] = []) -> tuple:
    """
    Compile CUDA C++ with NVRTC in this process.

    Returns (success, log, ptx: bytes, cubin: bytes); cubin is empty for a virtual
    architecture (compute_XY). headers: (name, contents) pairs found by #include.
    """

def nvrtc_version() -> tuple[int, int]:
    """NVRTC's (major, minor) version."""

def nvrtc_supported_archs() -> list[int]:
    """The SM numbers (e.g. [75, 80, 90]) NVRTC compiles for."""

def nvrtc_available() -> bool:
    """Whether a libnvrtc could be opened."""

def nvrtc_library_path() -> str:
    """The path of the libnvrtc in use (opens it)."""

def find_nvrtc() -> str | None:
    """
    The libnvrtc file core opens (or opened), found without opening it; None when the
    search finds none (nvrtc_available() may still find one through the loader).
    """

def curand_available() -> bool:
    """Whether a libcurand could be opened."""

def curand_library_path() -> str:
    """The path of the libcurand in use (opens it)."""

def find_curand() -> str | None:
    """
    The libcurand file core opens (or opened), found without opening it; None when the
    search finds none.
    """

def curand_search_description() -> str:
    """The places searched for libcurand, in order."""

def curand_version() -> int:
    """cuRAND's version number, e.g. 10400 for 10.4.0."""

def curand_direction_vectors32(set: int) -> Annotated[NDArray[numpy.uint32], dict(shape=(20000, 32), order='C', writable=False)]:
    """
    A 32-bit direction-vector set (101, 102) as a read-only (20000, 32) uint32 array.
    """

def curand_direction_vectors64(set: int) -> Annotated[NDArray[numpy.uint64], dict(shape=(20000, 64), order='C', writable=False)]:
    """
    A 64-bit direction-vector set (103, 104) as a read-only (20000, 64) uint64 array.
    """

def curand_scramble_constants32() -> Annotated[NDArray[numpy.uint32], dict(shape=(20000), order='C', writable=False)]:
    """The 20000 32-bit scramble constants, read-only uint32."""

def curand_scramble_constants64() -> Annotated[NDArray[numpy.uint64], dict(shape=(20000), order='C', writable=False)]:
    """The 20000 64-bit scramble constants, read-only uint64."""

def set_toolkit_library_dirs(dirs: Sequence[str]) -> None:
    """
    Folders searched for NVRTC and cuRAND after $PYCUDA_LIBNVRTC / $PYCUDA_LIBCURAND and
    before the loader's: the toolkit variables' (those pycuda uses), then the pip
    packages' and conda's. Core reads none of $CUDA_HOME, $CUDA_PATH, $CUDA_ROOT.
    """

def toolkit_library_candidates(title: str) -> list[str]:
    """
    Where 'NVRTC' or 'cuRAND' is looked for, in order (files, or names for the loader).
    """

def toolkit_library_in(title: str, dirs: Sequence[str]) -> str:
    """
    The first file of 'NVRTC' or 'cuRAND' in the folders dirs that this process could
    load, or '' when they hold none.
    """

def toolkit_setting_problem(title: str) -> str:
    """
    What is wrong with the library file named for 'NVRTC' or 'cuRAND' ($PYCUDA_LIBNVRTC,
    $PYCUDA_LIBCURAND); empty when nothing is.
    """

class CompileCache:
    """
    Content-addressed store of compiled kernels: memory, then disk.

        c = CompileCache('/tmp/cache')   # or CompileCache() for memory
        c.put(key, cubin); c.get(key) -> bytes | None
    """

    def __init__(self, directory: str | os.PathLike = '') -> None: ...

    def get(self, key: str, suffix: str = '.bin') -> object:
        """
        The entry for key ('.bin': a binary, '.deps': a dependency record), or None on a
        miss (a corrupt file is a miss).
        """

    def put(self, key: str, data: bytes, suffix: str = '.bin') -> str:
        """Store an entry; returns '' or why the disk copy could not be written."""

    def clear_memory(self) -> None:
        """Forget the entries kept in memory; those on disk stay."""

    def entry_path(self, key: str, suffix: str = '.bin') -> pathlib.Path:
        """The file that holds (or would hold) the entry for `key`."""

    @property
    def directory(self) -> pathlib.Path:
        """The cache's directory ('' for a cache kept in memory only)."""

def sha256_hex(data: bytes) -> str:
    """SHA-256 of bytes as 64 hex digits."""

def start_profiler() -> None:
    """
    Start profiler data collection (cuProfilerStart), e.g. under nsys --capture-range.
    """

def stop_profiler() -> None:
    """Stop profiler data collection (cuProfilerStop)."""

def initialize_profiler(config_file: str, output_file: str, output_mode: int) -> None:
    """
    Removed from CUDA 12: always raises, pointing to Nsight Systems / Nsight Compute.
    """

def nvtx_available() -> bool:
    """Whether this build has NVTX (else the nvtx_* calls do nothing)."""

def nvtx_push_range(message: str, argb: int | None = None) -> int:
    """
    Open an NVTX range on this thread (color 0xAARRGGBB); its nesting level, or negative when no profiler is attached.
    """

def nvtx_pop_range() -> int:
    """Close this thread's innermost NVTX range; its level, or negative."""

def nvtx_mark(message: str, argb: int | None = None) -> None:
    """An NVTX instant event."""

def nvtx_push_auto_range(message: str) -> None:
    """Open one of pycuda's own ranges (NVTX domain 'pycuda')."""

def nvtx_pop_auto_range() -> None:
    """Close one of pycuda's own ranges."""

def nvtx_auto_ranges() -> bool:
    """
    Whether pycuda's automatic ranges are on (the flag the C++ launches read).
    """

def set_nvtx_auto_ranges(on: bool) -> None:
    """
    Turn the automatic ranges of the C++ launches on or off (pycuda.profiler.set_auto_ranges sets this and Python's flag together).
    """

class ArrayDescriptor:
    """
    Shape and texel type of a 1D or 2D Array (height 0 means 1D).

        d = pycuda.driver.ArrayDescriptor()
        d.width, d.height = 64, 32
        d.format = pycuda.driver.array_format.FLOAT
        d.num_channels = 1
        ary = pycuda.driver.Array(d)
    """

    def __init__(self) -> None: ...

    @property
    def format(self) -> int:
        """The type of each channel of a texel (an array_format value)."""

    @format.setter
    def format(self, arg: int, /) -> None: ...

    @property
    def num_channels(self) -> int:
        """Channels per texel: 1, 2 or 4."""

    @num_channels.setter
    def num_channels(self, arg: int, /) -> None: ...

    @property
    def width(self) -> int:
        """Texels per row."""

    @width.setter
    def width(self, arg: int, /) -> None: ...

    @property
    def height(self) -> int:
        """Rows (0 for a 1D array)."""

    @height.setter
    def height(self, arg: int, /) -> None: ...

class ArrayDescriptor3D:
    """
    Shape, texel type and flags (array3d_flags: LAYERED, SURFACE_LDST, CUBEMAP) of an Array of up to three dimensions (height/depth 0 for fewer).
    """

    def __init__(self) -> None: ...

    @property
    def format(self) -> int:
        """The type of each channel of a texel (an array_format value)."""

    @format.setter
    def format(self, arg: int, /) -> None: ...

    @property
    def num_channels(self) -> int:
        """Channels per texel: 1, 2 or 4."""

    @num_channels.setter
    def num_channels(self, arg: int, /) -> None: ...

    @property
    def width(self) -> int:
        """Texels per row."""

    @width.setter
    def width(self, arg: int, /) -> None: ...

    @property
    def height(self) -> int:
        """Rows (0 for a 1D array)."""

    @height.setter
    def height(self, arg: int, /) -> None: ...

    @property
    def depth(self) -> int:
        """Slices (0 for a 1D or 2D array)."""

    @depth.setter
    def depth(self, arg: int, /) -> None: ...

    @property
    def flags(self) -> int:
        """array3d_flags, or'ed together."""

    @flags.setter
    def flags(self, arg: int, /) -> None: ...

class Array:
    """
    A CUDA array, for textures and surfaces.

        ary = pycuda.driver.Array(descriptor)  # ArrayDescriptor[3D]
        pycuda.driver.memcpy_htoa(ary, 0, host_data)  # 1D arrays
    """

    @overload
    def __init__(self, descriptor: ArrayDescriptor) -> None: ...

    @overload
    def __init__(self, descriptor: ArrayDescriptor3D) -> None: ...

    def free(self) -> None:
        """Free the array now (else it goes with its last user)."""

    def get_descriptor(self) -> ArrayDescriptor:
        """The array's ArrayDescriptor."""

    def get_descriptor_3d(self) -> ArrayDescriptor3D:
        """The array's ArrayDescriptor3D."""

    @property
    def handle(self) -> int:
        """The CUarray, as an int."""

def memcpy_htoa(ary: Array, index: int, src: object) -> None:
    """Copy the host buffer `src` into `ary` from byte `index` on."""

def py_memcpy_htoa(ary: Array, index: int, src: object) -> None:
    """Copy the host buffer `src` into `ary` from byte `index` on."""

def memcpy_atoh(dest: object, ary: Array, index: int) -> None:
    """Fill the host buffer `dest` from `ary`, from byte `index` on."""

def py_memcpy_atoh(dest: object, ary: Array, index: int) -> None:
    """Fill the host buffer `dest` from `ary`, from byte `index` on."""

def memcpy_dtoa(ary: Array, index: int, src: object, len: int) -> None:
    """
    Copy `len` bytes of device memory `src` into `ary` from byte `index` on.
    """

def memcpy_atod(dest: object, ary: Array, index: int, len: int) -> None:
    """
    Copy `len` bytes of `ary`, from byte `index` on, to device memory `dest`.
    """

def memcpy_atoa(dest: Array, dest_index: int, src: Array, src_index: int, len: int) -> None:
    """Copy `len` bytes from array `src` to array `dest`, at byte offsets."""

class Memcpy2D:
    """
    A 2D copy between host memory, device memory and arrays.

        copy = pycuda.driver.Memcpy2D()
        copy.set_src_host(a)  # a C-contiguous (rows, cols) numpy array
        copy.set_dst_device(dev); copy.dst_pitch = pitch
        copy.src_pitch = copy.width_in_bytes = a.strides[0]
        copy.height = a.shape[0]
        copy(aligned=True)  # or copy(stream)
    """

    def __init__(self) -> None: ...

    @property
    def src_x_in_bytes(self) -> int:
        """Where the copy starts in a source row, in bytes."""

    @src_x_in_bytes.setter
    def src_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def src_y(self) -> int:
        """The first source row copied."""

    @src_y.setter
    def src_y(self, arg: int, /) -> None: ...

    @property
    def src_pitch(self) -> int:
        """Bytes from one source row to the next."""

    @src_pitch.setter
    def src_pitch(self, arg: int, /) -> None: ...

    @property
    def dst_x_in_bytes(self) -> int:
        """Where the copy starts in a destination row, in bytes."""

    @dst_x_in_bytes.setter
    def dst_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def dst_y(self) -> int:
        """The first destination row written."""

    @dst_y.setter
    def dst_y(self, arg: int, /) -> None: ...

    @property
    def dst_pitch(self) -> int:
        """Bytes from one destination row to the next."""

    @dst_pitch.setter
    def dst_pitch(self, arg: int, /) -> None: ...

    @property
    def width_in_bytes(self) -> int:
        """Bytes copied from each row."""

    @width_in_bytes.setter
    def width_in_bytes(self, arg: int, /) -> None: ...

    @property
    def height(self) -> int:
        """Rows copied (per slice)."""

    @height.setter
    def height(self, arg: int, /) -> None: ...

    def set_src_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_src_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_src_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_src_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    def set_dst_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_dst_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_dst_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_dst_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    @property
    def src_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @src_device.setter
    def src_device(self, arg: object, /) -> None: ...

    @property
    def dst_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @dst_device.setter
    def dst_device(self, arg: object, /) -> None: ...

    @property
    def src_memory_type(self) -> int:
        """
        The kind of memory the source is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    @property
    def dst_memory_type(self) -> int:
        """
        The kind of memory the destination is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    @overload
    def __call__(self, aligned: bool = False) -> None:
        """Copy now: cuMemcpy2D when aligned, else cuMemcpy2DUnaligned."""

    @overload
    def __call__(self, stream: object) -> None:
        """
        Copy on `stream`. From page-locked memory the copy runs later: this object holds the buffer, so keep it alive until the stream has reached the copy.
        """

class Memcpy3D:
    """
    A 3D copy between host memory, device memory and arrays: as Memcpy2D, plus src_z, src_lod, src_height (rows per slice), the same for dst, and depth.
    """

    def __init__(self) -> None: ...

    @property
    def src_x_in_bytes(self) -> int:
        """Where the copy starts in a source row, in bytes."""

    @src_x_in_bytes.setter
    def src_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def src_y(self) -> int:
        """The first source row copied."""

    @src_y.setter
    def src_y(self, arg: int, /) -> None: ...

    @property
    def src_z(self) -> int:
        """The first source slice copied."""

    @src_z.setter
    def src_z(self, arg: int, /) -> None: ...

    @property
    def src_lod(self) -> int:
        """The source array's level of detail (mipmap level); 0."""

    @src_lod.setter
    def src_lod(self, arg: int, /) -> None: ...

    @property
    def src_pitch(self) -> int:
        """Bytes from one source row to the next."""

    @src_pitch.setter
    def src_pitch(self, arg: int, /) -> None: ...

    @property
    def src_height(self) -> int:
        """Rows from one source slice to the next."""

    @src_height.setter
    def src_height(self, arg: int, /) -> None: ...

    @property
    def dst_x_in_bytes(self) -> int:
        """Where the copy starts in a destination row, in bytes."""

    @dst_x_in_bytes.setter
    def dst_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def dst_y(self) -> int:
        """The first destination row written."""

    @dst_y.setter
    def dst_y(self, arg: int, /) -> None: ...

    @property
    def dst_z(self) -> int:
        """The first destination slice written."""

    @dst_z.setter
    def dst_z(self, arg: int, /) -> None: ...

    @property
    def dst_lod(self) -> int:
        """The destination array's level of detail (mipmap level); 0."""

    @dst_lod.setter
    def dst_lod(self, arg: int, /) -> None: ...

    @property
    def dst_pitch(self) -> int:
        """Bytes from one destination row to the next."""

    @dst_pitch.setter
    def dst_pitch(self, arg: int, /) -> None: ...

    @property
    def dst_height(self) -> int:
        """Rows from one destination slice to the next."""

    @dst_height.setter
    def dst_height(self, arg: int, /) -> None: ...

    @property
    def width_in_bytes(self) -> int:
        """Bytes copied from each row."""

    @width_in_bytes.setter
    def width_in_bytes(self, arg: int, /) -> None: ...

    @property
    def height(self) -> int:
        """Rows copied (per slice)."""

    @height.setter
    def height(self, arg: int, /) -> None: ...

    @property
    def depth(self) -> int:
        """Slices copied."""

    @depth.setter
    def depth(self, arg: int, /) -> None: ...

    def set_src_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_src_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_src_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_src_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    def set_dst_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_dst_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_dst_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_dst_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    @property
    def src_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @src_device.setter
    def src_device(self, arg: object, /) -> None: ...

    @property
    def dst_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @dst_device.setter
    def dst_device(self, arg: object, /) -> None: ...

    @property
    def src_memory_type(self) -> int:
        """
        The kind of memory the source is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    @property
    def dst_memory_type(self) -> int:
        """
        The kind of memory the destination is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    def __call__(self, stream: object | None = None) -> None:
        """Copy now, or on `stream`."""

class Memcpy3DPeer:
    """
    A 3D copy between host memory, device memory and arrays: as Memcpy2D, plus src_z, src_lod, src_height (rows per slice), the same for dst, and depth.
    """

    def __init__(self) -> None: ...

    @property
    def src_x_in_bytes(self) -> int:
        """Where the copy starts in a source row, in bytes."""

    @src_x_in_bytes.setter
    def src_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def src_y(self) -> int:
        """The first source row copied."""

    @src_y.setter
    def src_y(self, arg: int, /) -> None: ...

    @property
    def src_z(self) -> int:
        """The first source slice copied."""

    @src_z.setter
    def src_z(self, arg: int, /) -> None: ...

    @property
    def src_lod(self) -> int:
        """The source array's level of detail (mipmap level); 0."""

    @src_lod.setter
    def src_lod(self, arg: int, /) -> None: ...

    @property
    def src_pitch(self) -> int:
        """Bytes from one source row to the next."""

    @src_pitch.setter
    def src_pitch(self, arg: int, /) -> None: ...

    @property
    def src_height(self) -> int:
        """Rows from one source slice to the next."""

    @src_height.setter
    def src_height(self, arg: int, /) -> None: ...

    @property
    def dst_x_in_bytes(self) -> int:
        """Where the copy starts in a destination row, in bytes."""

    @dst_x_in_bytes.setter
    def dst_x_in_bytes(self, arg: int, /) -> None: ...

    @property
    def dst_y(self) -> int:
        """The first destination row written."""

    @dst_y.setter
    def dst_y(self, arg: int, /) -> None: ...

    @property
    def dst_z(self) -> int:
        """The first destination slice written."""

    @dst_z.setter
    def dst_z(self, arg: int, /) -> None: ...

    @property
    def dst_lod(self) -> int:
        """The destination array's level of detail (mipmap level); 0."""

    @dst_lod.setter
    def dst_lod(self, arg: int, /) -> None: ...

    @property
    def dst_pitch(self) -> int:
        """Bytes from one destination row to the next."""

    @dst_pitch.setter
    def dst_pitch(self, arg: int, /) -> None: ...

    @property
    def dst_height(self) -> int:
        """Rows from one destination slice to the next."""

    @dst_height.setter
    def dst_height(self, arg: int, /) -> None: ...

    @property
    def width_in_bytes(self) -> int:
        """Bytes copied from each row."""

    @width_in_bytes.setter
    def width_in_bytes(self, arg: int, /) -> None: ...

    @property
    def height(self) -> int:
        """Rows copied (per slice)."""

    @height.setter
    def height(self, arg: int, /) -> None: ...

    @property
    def depth(self) -> int:
        """Slices copied."""

    @depth.setter
    def depth(self, arg: int, /) -> None: ...

    def set_src_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_src_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_src_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_src_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    def set_dst_host(self, buffer: object) -> None:
        """Host memory (a buffer, held by this object)."""

    def set_dst_device(self, ptr: object) -> None:
        """Device memory: a DeviceAllocation, a GPUArray's gpudata or an address."""

    def set_dst_unified(self, ptr: object) -> None:
        """Managed (unified) memory, by its address."""

    def set_dst_array(self, ary: Array) -> None:
        """A CUDA Array (pycuda.driver.Array)."""

    @property
    def src_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @src_device.setter
    def src_device(self, arg: object, /) -> None: ...

    @property
    def dst_device(self) -> int:
        """
        The device address of this side; assigning one copies from (to) device memory there.
        """

    @dst_device.setter
    def dst_device(self, arg: object, /) -> None: ...

    @property
    def src_memory_type(self) -> int:
        """
        The kind of memory the source is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    @property
    def dst_memory_type(self) -> int:
        """
        The kind of memory the destination is, a CUmemorytype value (1 host, 2 device, 3 array, 4 unified).
        """

    def set_src_context(self, ctx: Context) -> None:
        """The context the source memory belongs to."""

    def set_dst_context(self, ctx: Context) -> None:
        """The context the destination memory belongs to."""

    def __call__(self, stream: object | None = None) -> None:
        """Copy now, or on `stream`."""

class TextureReference:
    """
    A texture reference: `texture<float, 2> tex;` in a SourceModule source, from
    Module.get_texref('tex'); or TextureReference() as a holder of settings. Setters take
    effect at once (a texture object is made and its handle written to the module).

        tex = mod.get_texref('tex')
        pycuda.driver.matrix_to_texref(a, tex, order='C')
        tex.set_filter_mode(pycuda.driver.filter_mode.LINEAR)
        kernel(dest, block=(16, 16, 1), texrefs=[tex])
    """

    def __init__(self) -> None: ...

    def set_array(self, array: Array) -> None:
        """Bind an Array (its format replaces the reference's)."""

    def set_address(self, devptr: object, bytes: int, allow_offset: bool = False) -> int:
        """
        Bind linear memory; returns the byte offset from the texture alignment (an error unless allow_offset).
        """

    def set_address_2d(self, devptr: object, descr: ArrayDescriptor, pitch: int) -> None:
        """Bind pitched 2D memory described by an ArrayDescriptor."""

    def set_format(self, format: int, num_components: int) -> None:
        """The texel type: an array_format and 1, 2 or 4 components."""

    def set_address_mode(self, dim: int, mode: int) -> None:
        """
        How coordinates outside the texture are read in dimension `dim` (an address_mode).
        """

    def set_filter_mode(self, mode: int) -> None:
        """POINT (nearest texel) or LINEAR interpolation (a filter_mode)."""

    def set_flags(self, flags: int) -> None:
        """TRSF_READ_AS_INTEGER, TRSF_NORMALIZED_COORDINATES, TRSF_SRGB, ..."""

    def set_border_color(self, color: Sequence[float]) -> None:
        """RGBA read outside the texture in address_mode.BORDER."""

    def get_address(self) -> int:
        """The device address bound to the texture (0 when an Array is bound)."""

    def get_array(self) -> Array:
        """The Array bound to the texture, or None."""

    def get_address_mode(self, dim: int) -> int:
        """The address_mode of dimension `dim`."""

    def get_filter_mode(self) -> int:
        """The filter_mode."""

    def get_format(self) -> tuple[int, int]:
        """(array_format, number of components)."""

    def get_flags(self) -> int:
        """The TRSF_* flags set."""

    def get_border_color(self) -> list[float]:
        """The RGBA color read outside the texture in address_mode.BORDER."""

    @property
    def name(self) -> str:
        """The texture's name in the source."""

    @property
    def is_bound(self) -> bool:
        """Whether memory or an Array is bound and a texture object made for it."""

    @property
    def object_handle(self) -> int:
        """The current texture object's handle (0 when none)."""

class SurfaceReference:
    """
    A surface reference: `surface<void, 2> surf;` in a source, from Module.get_surfref('surf').
    """

    def set_array(self, array: Array, flags: int = 0) -> None:
        """Bind an Array made with array3d_flags.SURFACE_LDST."""

    def get_array(self) -> Array:
        """The Array bound to the surface, or None."""

    @property
    def name(self) -> str:
        """The surface's name in the source."""

    @property
    def is_bound(self) -> bool:
        """Whether an Array is bound and a surface object made for it."""

    @property
    def object_handle(self) -> int:
        """The current surface object's handle (0 when none)."""

class TextureObject:
    """
    A texture object (cudaTextureObject_t), passed to kernels as a 64-bit integer:

        tex = pycuda.driver.TextureObject.from_array(ary, filter_mode=filter_mode.LINEAR)
        kernel(numpy.uint64(tex.handle), dest, block=(16, 16, 1))

    address_mode is one address_mode for all dimensions or up to three; flags are TRSF_*; it keeps its array or memory alive.
    """

    @staticmethod
    def from_array(array: Array, address_mode: object | None = None, filter_mode: int = 0, flags: int = 0, border_color: object | None = None) -> TextureObject:
        """A texture over an Array (read with tex1D/tex2D/tex3D)."""

    @staticmethod
    def from_linear(devptr: object, bytes: int, format: int, num_channels: int = 1, flags: int = 0) -> TextureObject:
        """A texture over linear memory (read with tex1Dfetch)."""

    @staticmethod
    def from_pitch2d(devptr: object, width: int, height: int, pitch: int, format: int, num_channels: int = 1, address_mode: object | None = None, filter_mode: int = 0, flags: int = 0, border_color: object | None = None) -> TextureObject:
        """
        A texture over pitched 2D memory (width, height in texels; pitch in bytes).
        """

    @property
    def handle(self) -> int:
        """The CUtexObject, passed to kernels as numpy.uint64(tex.handle)."""

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...

class SurfaceObject:
    """
    A surface object over an Array made with SURFACE_LDST, passed to kernels as numpy.uint64(surf.handle).
    """

    def __init__(self, array: Array) -> None: ...

    @property
    def handle(self) -> int:
        """The CUsurfObject, passed to kernels as numpy.uint64(surf.handle)."""

    def __int__(self) -> int: ...

    def __index__(self) -> int: ...
