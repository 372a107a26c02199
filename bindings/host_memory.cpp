// bindings/host_memory.cpp: HostPointer, PagelockedHostAllocation, AlignedHostAllocation and
// RegisteredHostMemory, all exporting the buffer protocol so numpy arrays can sit on them.
#include "bindings/checked_int.hpp"
#include "bindings/memory.hpp"

#include "core/host_memory.hpp"

#include <nanobind/stl/unique_ptr.h>

#include <memory>
#include <tuple>

namespace pycuda {
// The buffer-protocol views (found by argument-dependent lookup from get_host_buffer<T>).
std::tuple<void*, size_t, bool> host_span(const HostPointer& p) {
    return {p.data("host memory buffer"), p.size(), false};
}
std::tuple<void*, size_t, bool> host_span(const RegisteredHostMemory& p) {
    // Re-export with the registered buffer's own writability.
    bool readonly = static_cast<const Py_buffer*>(p.owner().get())->readonly != 0;
    return {p.data("RegisteredHostMemory buffer"), p.size(), readonly};
}
std::tuple<void*, size_t, bool> host_span(const AlignedHostAllocation& p) {
    return {p.data(), p.size(), false};
}
} // namespace pycuda

namespace pycuda::bindings {

namespace {

// Holds a Python buffer export for the core's RegisteredHostMemory (type-erased owner);
// released with the GIL, which nanobind holds while it destroys instances.
std::shared_ptr<void> hold_buffer(nb::handle obj) {
    auto view = std::make_unique<Py_buffer>();
    if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_STRIDES) != 0)
        throw nb::python_error();
    if (!PyBuffer_IsContiguous(view.get(), 'A')) {
        PyBuffer_Release(view.get());
        throw nb::value_error("register_host_memory: the array must be C- or F-contiguous");
    }
    return std::shared_ptr<void>(view.release(), [](void* p) {
        auto* v = static_cast<Py_buffer*>(p);
        PyBuffer_Release(v);
        delete v;
    });
}

} // namespace

void bind_host_memory(nb::module_& m) {
    nb::class_<HostPointer>(m, "HostPointer", nb::dynamic_attr(), "Host memory known to CUDA.")
        .def("get_device_pointer", &HostPointer::device_pointer,
             "The device address of this memory (needs DEVICEMAP/mapped memory).");

    nb::class_<PagelockedHostAllocation, HostPointer>(
        m, "PagelockedHostAllocation",
        nb::type_slots(host_buffer_slots<PagelockedHostAllocation>()),
        "Page-locked host memory behind pagelocked_empty(); the array's .base.\n\n"
        "    a = drv.pagelocked_empty((4, 4), numpy.float32)\n"
        "    a.base.get_flags()")
        .def("free", &PagelockedHostAllocation::free,
             "Free now; arrays on this memory must not be used afterwards.")
        .def("get_flags", &PagelockedHostAllocation::flags,
             "The host_alloc_flags it was allocated with.");
    m.attr("HostAllocation") = m.attr("PagelockedHostAllocation");

    nb::class_<RegisteredHostMemory, HostPointer>(
        m, "RegisteredHostMemory", nb::type_slots(host_buffer_slots<RegisteredHostMemory>()),
        "An existing array page-locked by register_host_memory(); .base is that array.")
        .def("unregister", &RegisteredHostMemory::unregister,
             "Unregister the memory now (cuMemHostUnregister); the array stays usable as "
             "ordinary memory.")
        .def_prop_ro(
            "base",
            [](const RegisteredHostMemory& r) {
                return nb::borrow(static_cast<const Py_buffer*>(r.owner().get())->obj);
            },
            "The array whose memory was registered.");

    nb::class_<AlignedHostAllocation>(m, "AlignedHostAllocation", nb::dynamic_attr(),
                                      nb::type_slots(host_buffer_slots<AlignedHostAllocation>()),
                                      "Pageable host memory with a chosen alignment, behind "
                                      "aligned_empty().")
        .def("free", &AlignedHostAllocation::free,
             "Free now; arrays on this memory must not be used afterwards.")
        .def("get_device_pointer", &AlignedHostAllocation::device_pointer,
             "The device address of this memory, once register_host_memory() has page-locked "
             "it (with DEVICEMAP where mapping is not implied).");

    m.def(
        "_pagelocked_alloc",
        [](Int<size_t, "a size in bytes"> bytes, Int<unsigned, "host_alloc_flags"> flags) {
            return retry_after_gc(
                [&] { return std::make_unique<PagelockedHostAllocation>(bytes, flags); });
        },
        nb::arg("bytes"), nb::arg("flags") = 0);
    m.def(
        "_aligned_alloc",
        [](size_t bytes, size_t alignment) {
            return std::make_unique<AlignedHostAllocation>(bytes, alignment);
        },
        nb::arg("bytes"), nb::arg("alignment"));
    m.def(
        "_register_host_memory",
        [](nb::handle ary, unsigned flags) {
            std::shared_ptr<void> owner = hold_buffer(ary);
            auto* view = static_cast<Py_buffer*>(owner.get());
            return std::make_unique<RegisteredHostMemory>(view->buf, static_cast<size_t>(view->len),
                                                          flags, std::move(owner));
        },
        nb::arg("ary"), nb::arg("flags") = 0);
}

} // namespace pycuda::bindings
