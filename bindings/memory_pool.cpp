// bindings/memory_pool.cpp: bitlog2, DeviceMemoryPool, PageLockedAllocator,
// PageLockedMemoryPool and their pooled allocations.
#include "bindings/memory_pool.hpp"
#include "bindings/checked_int.hpp"
#include "bindings/memory.hpp"

#include "core/memory_pool.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include <memory>
#include <new>
#include <string>
#include <tuple>

namespace pycuda {
// The buffer-protocol view of a pooled host block (found by argument-dependent lookup).
std::tuple<void*, size_t, bool> host_span(const PooledHostAllocation& a) {
    return {a.ptr("PooledHostAllocation"), a.size(), false};
}
} // namespace pycuda

namespace pycuda::bindings {

namespace {

/// The flags of a page-locked pool's blocks (host_alloc_flags).
struct PageLockedAllocator {
    unsigned flags = 0;
};

template <typename Ref, typename Class>
void def_pool_statistics(Class& cls) {
    cls.def_prop_ro(
           "held_blocks", [](const Ref& r) { return r.pool->held_blocks(); },
           "Freed blocks the pool keeps for reuse.")
        .def_prop_ro(
            "active_blocks", [](const Ref& r) { return r.pool->active_blocks(); },
            "Blocks lent out and not yet returned.")
        .def_prop_ro(
            "managed_bytes", [](const Ref& r) { return r.pool->managed_bytes(); },
            "Bytes the pool has allocated, lent and held together.")
        .def_prop_ro(
            "active_bytes", [](const Ref& r) { return r.pool->active_bytes(); },
            "Bytes of the blocks lent out.")
        .def_static("bin_number", &PoolBins::bin_number, nb::arg("size"),
                    "The size class (bin) a request of `size` bytes falls in.")
        .def_static("alloc_size", &PoolBins::alloc_size, nb::arg("bin"),
                    "The bytes a block of size class `bin` has (at least any size in it).")
        .def(
            "free_held", [](Ref& r) { r.pool->free_held(); }, "Free all held (unused) blocks.")
        .def(
            "stop_holding", [](Ref& r) { r.pool->stop_holding(); },
            "Free held blocks and free returned blocks at once from now on.");
}

void bind_device_pool(nb::module_& m) {
    nb::class_<PooledDeviceAllocation>(m, "PooledDeviceAllocation", nb::dynamic_attr(),
                                       "A block lent by a DeviceMemoryPool; returns to it when "
                                       "freed or collected.")
        .def("free", &PooledDeviceAllocation::free, "Return the block to its pool now.")
        .def("__int__", [](const PooledDeviceAllocation& a) { return a.ptr(); })
        .def("__index__", [](const PooledDeviceAllocation& a) { return a.ptr(); })
        .def("__len__", &PooledDeviceAllocation::size);

    nb::class_<DevicePoolRef> cls(m, "DeviceMemoryPool", nb::dynamic_attr(),
                                  "A caching allocator of device memory: freed blocks are kept "
                                  "for reuse.\n\n"
                                  "    pool = DeviceMemoryPool()\n"
                                  "    a = gpuarray.empty(100, numpy.float32, "
                                  "allocator=pool.allocate)");
    cls.def("__init__", [](DevicePoolRef* self) { new (self) DevicePoolRef{make_device_pool()}; })
        .def(
            "allocate",
            [](DevicePoolRef& r, Int<size_t, "a size in bytes"> size) {
                return retry_after_gc(
                    [&] { return std::make_unique<PooledDeviceAllocation>(r.pool, size); });
            },
            nb::arg("size"), "A PooledDeviceAllocation of at least `size` bytes.");
    def_pool_statistics<DevicePoolRef>(cls);
}

nb::object pooled_array(HostPoolRef& r, nb::handle shape, nb::handle dtype, nb::handle order) {
    if (!nb::isinstance<nb::str>(order) ||
        (nb::cast<std::string>(order) != "C" && nb::cast<std::string>(order) != "F"))
        throw nb::value_error("PageLockedMemoryPool.allocate: order must be 'C' or 'F'");
    nb::module_ np = nb::module_::import_("numpy");
    nb::object dt = np.attr("dtype")(dtype);
    if (nb::cast<bool>(dt.attr("hasobject"))) // raw memory: NumPy would read it as pointers
        throw nb::type_error("PageLockedMemoryPool.allocate: host memory cannot hold Python "
                             "objects (an object dtype)");
    nb::tuple dims = PyIndex_Check(shape.ptr()) ? nb::make_tuple(shape) : nb::tuple(shape);
    size_t bytes = nb::cast<size_t>(dt.attr("itemsize"));
    for (nb::handle d : dims) {
        long long n = 0;
        if (!nb::try_cast<long long>(d, n))
            throw nb::type_error("PageLockedMemoryPool.allocate: the shape must be ints");
        if (n < 0)
            throw nb::value_error("PageLockedMemoryPool.allocate: negative dimensions");
        if (__builtin_mul_overflow(bytes, static_cast<size_t>(n), &bytes))
            throw std::bad_alloc(); // MemoryError: no memory has that many bytes
    }
    nb::object block = nb::cast(
        retry_after_gc([&] { return std::make_unique<PooledHostAllocation>(r.pool, bytes); }));
    return np.attr("ndarray")(dims, dt, nb::arg("buffer") = block, nb::arg("order") = order);
}

void bind_host_pool(nb::module_& m) {
    nb::class_<PooledHostAllocation>(m, "PooledHostAllocation", nb::dynamic_attr(),
                                     nb::type_slots(host_buffer_slots<PooledHostAllocation>()),
                                     "A page-locked block lent by a PageLockedMemoryPool; the "
                                     ".base of the arrays it allocates.")
        .def("free", &PooledHostAllocation::free, "Return the block to its pool now.")
        .def("__len__", &PooledHostAllocation::size);

    nb::class_<PageLockedAllocator>(m, "PageLockedAllocator",
                                    "Page-locked blocks with host_alloc_flags `flags`, for "
                                    "PageLockedMemoryPool.")
        .def(nb::init<unsigned>(), nb::arg("flags") = 0)
        .def_ro("flags", &PageLockedAllocator::flags, "The host_alloc_flags of its blocks.");

    nb::class_<HostPoolRef> cls(m, "PageLockedMemoryPool", nb::dynamic_attr(),
                                "A caching allocator of page-locked host arrays.\n\n"
                                "    pool = PageLockedMemoryPool()\n"
                                "    a = pool.allocate((1024,), numpy.float32)");
    cls.def(
           "__init__",
           [](HostPoolRef* self, const PageLockedAllocator* allocator) {
               unsigned flags = allocator ? allocator->flags : 0;
               new (self) HostPoolRef{std::make_shared<HostMemoryPool>(HostBlockAllocator(flags))};
           },
           nb::arg("allocator").none() = nb::none())
        .def("allocate", &pooled_array, nb::arg("shape"), nb::arg("dtype"), nb::arg("order") = "C",
             "A page-locked numpy array whose .base is a PooledHostAllocation.");
    def_pool_statistics<HostPoolRef>(cls);
}

} // namespace

void bind_memory_pool(nb::module_& m) {
    m.def("bitlog2", &bitlog2, nb::arg("n"), "floor(log2(n)); 0 for 0.");
    bind_device_pool(m);
    bind_host_pool(m);
}

} // namespace pycuda::bindings
