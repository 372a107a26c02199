// bindings/async_memory.cpp: MemPool, StreamOrderedAllocator, StreamOrderedAllocation and
// mem_alloc_async of pycuda._driver (stream-ordered allocation, CUDA 11.2+).
#include "bindings/async_memory.hpp"

#include "bindings/memory.hpp"
#include "bindings/python_api.hpp"
#include "bindings/stream.hpp"
#include "core/async_memory.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

namespace pycuda::bindings {

namespace {

/// A strong reference to the Python stream object behind a `stream=` argument, as the core's
/// opaque stream owner (null for None). Released at once where the dropping thread holds the
/// GIL (an allocation's collection, also during the interpreter's teardown, so that no stream
/// outlives it), else under PyGILState_Ensure; leaked where no thread may take the GIL any more
/// (another thread during finalization, or after it).
std::shared_ptr<const void> stream_owner(nb::handle stream) {
    if (stream.is_none())
        return nullptr;
    return std::shared_ptr<const void>(Py_NewRef(stream.ptr()), [](const void* p) {
        pyapi::release_from_any_thread(static_cast<PyObject*>(const_cast<void*>(p)));
    });
}

/// The Python stream object an allocator was made with, or None.
nb::object stream_object(const StreamOrderedAllocator& a) {
    const void* owner = a.stream_owner().get();
    return owner ? nb::borrow(static_cast<PyObject*>(const_cast<void*>(owner))) : nb::none();
}

Device device_or_current(const Device* device, const char* what) {
    return device ? *device : Context::require_current(what)->device();
}

std::shared_ptr<StreamOrderedAllocator> make_allocator(nb::handle stream, const MemPoolRef* pool) {
    CUstream handle = stream_handle(stream);
    return StreamOrderedAllocator::create(handle, stream_owner(stream),
                                          pool ? pool->pool : nullptr);
}

std::unique_ptr<StreamOrderedAllocation>
allocate(const std::shared_ptr<StreamOrderedAllocator>& allocator, size_t bytes) {
    return retry_after_gc(
        [&] { return std::make_unique<StreamOrderedAllocation>(allocator, bytes); });
}

void bind_mem_pool(nb::module_& m) {
    nb::class_<MemPoolRef>(m, "MemPool", nb::dynamic_attr(),
                           "A memory pool of the CUDA driver on one device (CUDA 11.2+), which "
                           "stream-ordered allocations come from. MemPool(device=None) makes a "
                           "new pool (destroyed with the last object using it); MemPool.default() "
                           "and MemPool.current() give the device's own.\n\n"
                           "    pool = drv.MemPool()\n"
                           "    pool.release_threshold = 1 << 30   # keep up to 1 GiB cached\n"
                           "    buf = drv.mem_alloc_async(4096, stream, pool=pool)\n"
                           "    print(pool.used_current, pool.reserved_current)")
        .def(
            "__init__",
            [](MemPoolRef* self, const Device* device) {
                new (self) MemPoolRef{MemPool::create(device_or_current(device, "MemPool"))};
            },
            nb::arg("device").none() = nb::none(),
            "A new pool of `device`'s memory (default: the current context's device).")
        .def_static(
            "default",
            [](const Device* device) {
                return MemPoolRef{
                    MemPool::device_default(device_or_current(device, "MemPool.default"))};
            },
            nb::arg("device").none() = nb::none(),
            "The device's default pool (cuDeviceGetDefaultMemPool), shared by every library in "
            "the process that allocates stream-ordered memory without a pool.")
        .def_static(
            "current",
            [](const Device* device) {
                return MemPoolRef{
                    MemPool::device_current(device_or_current(device, "MemPool.current"))};
            },
            nb::arg("device").none() = nb::none(),
            "The pool that mem_alloc_async without a pool takes from now (cuDeviceGetMemPool).")
        .def_prop_ro(
            "handle",
            [](const MemPoolRef& r) { return reinterpret_cast<std::uintptr_t>(r.pool->handle()); },
            "The CUmemoryPool, as an int.")
        .def_prop_ro(
            "device", [](const MemPoolRef& r) { return r.pool->device(); },
            "The device whose memory the pool holds.")
        .def_prop_ro(
            "owned", [](const MemPoolRef& r) { return r.pool->owned(); },
            "True for a pool made by MemPool(), False for a device's own.")
        .def_prop_rw(
            "release_threshold", [](const MemPoolRef& r) { return r.pool->release_threshold(); },
            [](MemPoolRef& r, uint64_t bytes) { r.pool->set_release_threshold(bytes); },
            "Bytes of unused memory the pool keeps at a synchronization instead of returning "
            "them to the device (0 by default: each synchronization returns all unused memory).")
        .def(
            "trim", [](MemPoolRef& r, size_t keep) { r.pool->trim(keep); },
            nb::arg("min_bytes_to_keep") = 0,
            "Return unused memory to the device until at most `min_bytes_to_keep` bytes stay "
            "reserved. Memory whose free its stream has not reached yet is still in use: "
            "synchronize first.")
        .def_prop_ro(
            "reserved_current", [](const MemPoolRef& r) { return r.pool->reserved_current(); },
            "Bytes of device memory the pool holds now.")
        .def_prop_ro(
            "reserved_high", [](const MemPoolRef& r) { return r.pool->reserved_high(); },
            "The most bytes the pool held since it was made or reset_high_water_marks().")
        .def_prop_ro(
            "used_current", [](const MemPoolRef& r) { return r.pool->used_current(); },
            "Bytes of the pool lent out now (allocated and not yet freed).")
        .def_prop_ro(
            "used_high", [](const MemPoolRef& r) { return r.pool->used_high(); },
            "The most bytes lent out at once since it was made or reset_high_water_marks().")
        .def(
            "reset_high_water_marks", [](MemPoolRef& r) { r.pool->reset_high_water_marks(); },
            "Set reserved_high and used_high to the current values.")
        .def("__eq__",
             [](const MemPoolRef& a, nb::handle b) {
                 const MemPoolRef* other = nullptr;
                 return nb::try_cast<const MemPoolRef*>(b, other) && other &&
                        other->pool->handle() == a.pool->handle();
             })
        .def("__hash__",
             [](const MemPoolRef& r) {
                 return static_cast<Py_hash_t>(reinterpret_cast<std::uintptr_t>(r.pool->handle()));
             })
        .def("__repr__", [](const MemPoolRef& r) {
            char buf[128];
            std::snprintf(buf, sizeof buf, "<pycuda.driver.MemPool %s of device %d at 0x%llx>",
                          r.pool->owned() ? "(own)" : "(device's)",
                          static_cast<int>(r.pool->device().handle()),
                          static_cast<unsigned long long>(
                              reinterpret_cast<std::uintptr_t>(r.pool->handle())));
            return std::string(buf);
        });
}

void bind_allocation(nb::module_& m) {
    nb::class_<StreamOrderedAllocation>(
        m, "StreamOrderedAllocation", nb::dynamic_attr(),
        "Device memory from mem_alloc_async() or a StreamOrderedAllocator, usable as a "
        "DeviceAllocation is (int(), kernel arguments, copies, GPUArray gpudata). free() or "
        "collection queues cuMemFreeAsync on the stream it was allocated on.")
        .def("__int__", [](const StreamOrderedAllocation& a) { return a.ptr(); })
        .def("__index__", [](const StreamOrderedAllocation& a) { return a.ptr(); })
        .def("__len__", &StreamOrderedAllocation::size)
        .def(
            "free",
            [](StreamOrderedAllocation& a, nb::handle stream) {
                if (stream.is_none())
                    a.free();
                else
                    a.free_on(stream_handle(stream));
            },
            nb::arg("stream").none() = nb::none(),
            "Queue the free on the allocation's stream, or on `stream` (which must be ordered "
            "after every use). Using the allocation afterwards is LogicError.")
        .def_prop_ro(
            "stream",
            [](const StreamOrderedAllocation& a) { return stream_object(*a.allocator()); },
            "The stream it was allocated on (None: the default stream).")
        .def(
            "as_buffer",
            [](const StreamOrderedAllocation& a, size_t size, size_t offset) {
                return device_memoryview(a.ptr("as_buffer"), a.size(), size, offset);
            },
            nb::arg("size"), nb::arg("offset") = 0,
            "A memoryview of the device address (not readable by the host). Keep the "
            "allocation alive while using it.")
        .def("__repr__", [](const StreamOrderedAllocation& a) {
            if (a.freed())
                return std::string("<pycuda.driver.StreamOrderedAllocation (freed)>");
            char buf[112];
            std::snprintf(buf, sizeof buf,
                          "<pycuda.driver.StreamOrderedAllocation %zu bytes at 0x%llx>", a.size(),
                          static_cast<unsigned long long>(a.ptr()));
            return std::string(buf);
        });

    m.def(
        "mem_alloc_async",
        [](size_t bytes, nb::handle stream, const MemPoolRef* pool) {
            return allocate(make_allocator(stream, pool), bytes);
        },
        nb::arg("bytes"), nb::arg("stream").none() = nb::none(),
        nb::arg("pool").none() = nb::none(),
        "Allocate `bytes` of device memory ordered on `stream` (None: the default stream), "
        "from `pool` (a MemPool; None: the device's current pool), with cuMemAllocAsync (CUDA "
        "11.2+). Work queued after it on that stream (or ordered after it) may use the memory; "
        "it is freed with cuMemFreeAsync on that stream when freed or collected.\n\n"
        "    buf = drv.mem_alloc_async(a.nbytes, stream)\n"
        "    drv.memcpy_htod_async(buf, a, stream)");
}

void bind_allocator(nb::module_& m) {
    nb::class_<StreamOrderedAllocatorRef>(
        m, "StreamOrderedAllocator", nb::dynamic_attr(),
        "An allocator for GPUArray (allocator(nbytes) -> StreamOrderedAllocation) taking "
        "stream-ordered memory (CUDA 11.2+) on `stream` (None: the default stream, which "
        "GPUArray operations use) from `pool` (None: the device's current pool), in the "
        "current context. A non-blocking stream is not ordered with the default stream: use it "
        "only for arrays whose work is queued on it.\n\n"
        "    alloc = StreamOrderedAllocator()\n"
        "    a = gpuarray.empty(100, numpy.float32, allocator=alloc)")
        .def(
            "__init__",
            [](StreamOrderedAllocatorRef* self, nb::handle stream, const MemPoolRef* pool) {
                new (self) StreamOrderedAllocatorRef{make_allocator(stream, pool)};
            },
            nb::arg("stream").none() = nb::none(), nb::arg("pool").none() = nb::none())
        .def(
            "__call__",
            [](StreamOrderedAllocatorRef& r, size_t bytes) { return allocate(r.allocator, bytes); },
            nb::arg("nbytes"), "A StreamOrderedAllocation of `nbytes` bytes.")
        .def(
            "allocate",
            [](StreamOrderedAllocatorRef& r, size_t bytes) { return allocate(r.allocator, bytes); },
            nb::arg("nbytes"), "The same as calling the allocator.")
        .def_prop_ro(
            "stream",
            [](const StreamOrderedAllocatorRef& r) { return stream_object(*r.allocator); },
            "The stream given (None: the default stream).")
        .def_prop_ro(
            "pool",
            [](const StreamOrderedAllocatorRef& r) {
                return MemPoolRef{r.allocator->source_pool()};
            },
            "The MemPool blocks come from: the one given, else the device's current pool.")
        .def_prop_ro(
            "active_blocks",
            [](const StreamOrderedAllocatorRef& r) { return r.allocator->active_blocks(); },
            "Blocks this allocator lent that are not yet freed.")
        .def_prop_ro(
            "active_bytes",
            [](const StreamOrderedAllocatorRef& r) { return r.allocator->active_bytes(); },
            "Their bytes, as requested.")
        .def_prop_ro(
            "managed_bytes",
            [](const StreamOrderedAllocatorRef& r) {
                return r.allocator->source_pool()->reserved_current();
            },
            "Device memory the pool holds now (its reserved_current; a shared pool's includes "
            "other users').")
        .def_prop_ro(
            "held_bytes",
            [](const StreamOrderedAllocatorRef& r) {
                std::shared_ptr<MemPool> pool = r.allocator->source_pool();
                const uint64_t used = pool->used_current(), reserved = pool->reserved_current();
                return reserved > used ? reserved - used : 0;
            },
            "Device memory the pool holds unused, for reuse (reserved_current - used_current; "
            "a shared pool's includes what other users freed). free_held() returns it.")
        .def(
            "free_held",
            [](StreamOrderedAllocatorRef& r) {
                nb::gil_scoped_release release;
                r.allocator->free_held();
            },
            "Wait for the stream, then return the pool's unused memory to the device.");
}

} // namespace

void bind_async_memory(nb::module_& m) {
    bind_mem_pool(m);
    bind_allocation(m);
    bind_allocator(m);
}

} // namespace pycuda::bindings
